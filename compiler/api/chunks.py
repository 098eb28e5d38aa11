"""Each wave's items split into chunks of about equal running time, one CI job each (`ci github`).

As pytest-split and Knapsack do: the durations come from receipts of an earlier run (``seconds``
of each item that ran; compiler/api/verify.py writes them), an item without one counts as the
median of those known (1 s when none is), an approval as nothing (it runs no proof). Then greedy
longest-processing-time: the longest first, each into the chunk whose sum is the smallest so far
(the lower index on a tie), into ``min(max_jobs, groups)`` chunks. Items that name the same
``locks:`` entry are one group, kept in one chunk: on one machine verify never runs them at once,
and across machines nothing else would keep them apart. The order of the plan breaks every tie,
so the same input gives the same chunks.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from compiler.api.verify import Step

# A GitHub Actions matrix makes at most 256 jobs.
MAX_JOBS = 256
UNKNOWN_SECONDS = 1.0  # an item's estimate when no duration at all is known
MAX_RECEIPT_BYTES = 256 * 1024 * 1024


class Chunk(NamedTuple):
    """One job's items, in the plan's wave order, and what they are expected to take."""

    wave: int
    number: int  # 1-based, within its wave
    ids: tuple[str, ...]
    seconds: float  # the sum of the estimates
    estimated: int  # how many of the items had no known duration


def durations(path: str) -> dict[str, float]:
    """Each item's seconds in a receipts file, for the items that ran (a ``started`` time); an
    empty dict when there is no file. A file that is there but is not receipts is a ValueError
    that says why."""
    try:
        if os.path.getsize(path) > MAX_RECEIPT_BYTES:
            raise ValueError(f"it is larger than {MAX_RECEIPT_BYTES // 2**20} MiB")
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, RecursionError) as error:
        raise ValueError(f"it cannot be read ({error})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"it is not JSON ({error})") from None
    items = document.get("items") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise ValueError("it is not a receipts file of verify (no items)")
    out: dict[str, float] = {}
    for item in items:
        if not isinstance(item, dict) or item.get("started") is None:
            continue
        ident, seconds = item.get("id"), item.get("seconds")
        if isinstance(ident, str) and isinstance(seconds, (int, float)) and not isinstance(seconds, bool) \
                and 0 <= seconds < float("inf"):
            out[ident] = float(seconds)
    return out


def _groups(steps: Sequence[Step]) -> list[list[Step]]:
    """The steps, those that share a lock (transitively) in one group; groups in the order of
    their first step."""
    parent = list(range(len(steps)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    holder: dict[str, int] = {}
    for n, step in enumerate(steps):
        for lock in sorted(step.locks):
            if lock in holder:
                a, b = find(holder[lock]), find(n)
                parent[max(a, b)] = min(a, b)
            else:
                holder[lock] = n
    grouped: dict[int, list[Step]] = {}
    for n, step in enumerate(steps):
        grouped.setdefault(find(n), []).append(step)
    return list(grouped.values())


def balance(weights: Sequence[float], bins: int) -> list[list[int]]:
    """Greedy longest-processing-time: the indexes of ``weights`` in ``bins`` bins, each in
    increasing order; the heaviest first, each into the lightest bin (on a tie the one that holds
    fewer, then the lower bin; the lower index first among equal weights). With at least ``bins``
    weights, no bin is empty, even when every weight is 0."""
    import heapq

    out: list[list[int]] = [[] for _ in range(bins)]
    lightest = [(0.0, 0, b) for b in range(bins)]  # (sum, how many, bin): a heap, the lightest on top
    for i in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        load, count, target = lightest[0]
        out[target].append(i)
        heapq.heapreplace(lightest, (load + weights[i], count + 1, target))
    return [sorted(b) for b in out]


def estimate(steps: Iterable[Step], known: Mapping[str, float]) -> dict[str, tuple[float, bool]]:
    """Each step's seconds and whether it was estimated: its known duration, else the median of
    those known of these steps (UNKNOWN_SECONDS when none is); an approval takes 0."""
    steps = list(steps)
    found = [known[s.id] for s in steps if s.id in known and s.approval is None]
    fallback = statistics.median(found) if found else UNKNOWN_SECONDS
    return {s.id: (0.0, False) if s.approval is not None else (known[s.id], False) if s.id in known
            else (fallback, True) for s in steps}


def chunk_waves(steps: Sequence[Step], known: Mapping[str, float], max_jobs: int) -> list[Chunk]:
    """Every wave's steps in at most ``max_jobs`` chunks (at most MAX_JOBS), balanced by their
    estimated seconds; chunks in wave order, then index. No chunk is empty."""
    if not 1 <= max_jobs <= MAX_JOBS:
        raise ValueError(f"max_jobs must be from 1 to {MAX_JOBS}, not {max_jobs}")
    seconds = estimate(steps, known)
    waves: dict[int, list[Step]] = {}
    for step in steps:
        waves.setdefault(step.wave, []).append(step)
    out: list[Chunk] = []
    for wave in sorted(waves):
        order = {step.id: n for n, step in enumerate(waves[wave])}
        groups = _groups(waves[wave])
        bins = balance([sum(seconds[s.id][0] for s in g) for g in groups], min(max_jobs, len(groups)))
        for number, members in enumerate(bins, start=1):
            ids = sorted((s.id for g in members for s in groups[g]), key=order.__getitem__)
            out.append(Chunk(wave=wave, number=number, ids=tuple(ids),
                             seconds=sum(seconds[i][0] for i in ids),
                             estimated=sum(seconds[i][1] for i in ids)))
    return out
