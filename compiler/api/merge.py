"""The library half of `evidence-plan verify --merge RECEIPT...`: the receipts of several runs of
one plan (a CI job per chunk of its items, each uploading its evidence-plan.verify.json) made one.

Each file is read as a plan file is (bounded, UTF-8, no symlink out of its repository) and must be
receipts that verify wrote (``format``, a ``plan_digest``, items with an id, a wave and a known
result), all of one plan: the same items' digest. Anything else is an input error located in
its file (exit 2). An item found in several keeps the receipt of the run that decided it last,
by its ``started`` (a proof's start; for an item that ran nothing, its run's start; a tie goes to
the file named later), and a note says so. The merged receipts are those of one run: the items in
wave order, the counts, and a status that passes only when every item passed (``passed``,
``approved``, ``cached`` or ``flaky``; under ``--strict`` none flaky and none that passes without
the change) and no run was interrupted.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.diagnostics import PlanInputError

if TYPE_CHECKING:
    from compiler.load.limits import Limits
    from compiler.load.sourcemap import SourceMap


class Receipts(NamedTuple):
    """One receipts file, read and checked."""

    path: str  # as given
    name: str  # as messages name it
    document: dict[str, Any]
    smap: SourceMap


class Merged(NamedTuple):
    document: dict[str, Any]  # the merged receipts, in the format of evidence-plan.verify.json
    plan: str | None  # the plan's path as the first receipts name it (from the working folder); None: stdin
    notes: list[str]  # what the merge chose, a line each (plain text)
    passed: bool


def read_receipts(path: str, limits: Limits | None = None) -> Receipts:
    """A receipts file, read and checked (see the module's docstring); a PlanInputError when it is
    not one, at the place in it that says so."""
    from compiler.api.receipts import FORMAT
    from compiler.load.errors import input_error
    from compiler.load.json_reader import parse_json
    from compiler.load.limits import DEFAULT_LIMITS
    from compiler.load.read import read_text
    from compiler.report.receipts import RESULTS

    limits = limits or DEFAULT_LIMITS
    name, text = read_text(path, limits=limits)
    data, smap = parse_json(text, name, limits, unique_keys=False)

    def refuse(why: str, at: tuple[Any, ...] = ()) -> PlanInputError:
        return input_error("EP001", f"cannot merge: {why}", name, smap.value(at),
                           hint="give the evidence-plan.verify.json files that verify wrote, of one plan")

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise refuse(f"it is not receipts of verify (its format is {found!r}, not {FORMAT!r})",
                     ("format",) if isinstance(data, dict) and "format" in data else ())
    if not isinstance(data.get("plan_digest"), str):
        raise refuse("it names no plan (no plan_digest)")
    items = data.get("items")
    if not isinstance(items, list):
        raise refuse("it has no list of items", ("items",))
    ids: set[str] = set()
    for n, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or type(item.get("wave")) is not int:
            raise refuse(f"item {n + 1} has no id or no wave", ("items", n))
        if item["id"] in ids:
            raise refuse(f"{item['id']} has two receipts in it", ("items", n, "id"))
        ids.add(item["id"])
        if item.get("result") not in RESULTS:
            raise refuse(f"{item['id']} has the result {item.get('result')!r}, which verify does not write"
                         f" ({', '.join(RESULTS)})", ("items", n, "result"))
    return Receipts(path=path, name=name, document=data, smap=smap)


def _when(value: Any) -> float:
    """An ISO 8601 time of the receipts as seconds; one that cannot be read is the earliest."""
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            return float("-inf")
        if when.tzinfo is not None:  # verify writes UTC; a time without a zone is not its
            return when.timestamp()
    return float("-inf")


def _decided(item: dict[str, Any], run: dict[str, Any]) -> float:
    """When the run decided the item: its proof's start, else (it ran nothing) the run's start."""
    return _when(item["started"]) if item.get("started") is not None else _when(run.get("started"))


def merge(reads: Sequence[Receipts], folder: str, *, strict: bool = False) -> Merged:
    """The receipts ``reads`` (at least one) made one (see the module's docstring); ``folder``:
    where the merged file goes, which its ``source`` is relative to; ``strict``: an item that is
    flaky or passes without the change fails them, as under ``verify --strict``. A PlanInputError
    when they are receipts of different plans."""
    from compiler.load.errors import input_error
    from compiler.report.receipts import PASSING, RESULTS

    first = reads[0]
    digest = first.document["plan_digest"]
    for other in reads[1:]:
        theirs = other.document["plan_digest"]
        if theirs != digest:
            raise input_error("EP001", f"cannot merge: its plan digest {theirs[:12]}... is not that of"
                              f" {first.name} ({digest[:12]}...)", other.name, other.smap.value(("plan_digest",)),
                              hint="receipts of another plan, or of this one after its items changed: merge the"
                                   " receipts of one run of the CI")
    chosen: dict[str, tuple[dict[str, Any], int, float]] = {}
    seen_in: dict[str, list[int]] = {}
    for n, read in enumerate(reads):
        for item in read.document["items"]:
            when = _decided(item, read.document)
            seen_in.setdefault(item["id"], []).append(n)
            kept = chosen.get(item["id"])
            if kept is None or when >= kept[2]:  # a tie: the file named later
                chosen[item["id"]] = (item, n, when)
    notes = []
    for ident, where in seen_in.items():
        if len(where) > 1:
            item, n, _ = chosen[ident]
            notes.append(f"{ident} is in {len(where)} receipts: kept {reads[n].name}'s ({item['result']},"
                         f" decided {item.get('started') or reads[n].document.get('started')}), the later")
    items = sorted((c[0] for c in chosen.values()), key=lambda i: (i["wave"], i["id"]))
    latest = max(range(len(reads)), key=lambda n: (_when(reads[n].document.get("started")), n))
    counts = dict.fromkeys(RESULTS, 0)
    for item in items:
        counts[item["result"]] += 1
    interrupted = any(r.document.get("interrupted") is True for r in reads)
    passed = not interrupted and all(i["result"] in PASSING and not (strict and _proves_nothing(i)) for i in items)
    plan = _plan(first)
    commits = {r.document.get("commit") for r in reads}
    if len(commits) > 1:
        notes.append(f"the receipts are of {len(commits)} commits: the merged ones name"
                     f" {reads[latest].document.get('commit')}, of the latest run ({reads[latest].name})")
    dirty = [r.document.get("dirty") for r in reads]
    starts = [s for s in (r.document.get("started") for r in reads) if _when(s) > float("-inf")]
    document = {
        "format": first.document["format"],
        "source": "-" if plan is None else _relative(plan, folder),
        "plan_digest": digest, "revision": reads[latest].document.get("revision"),
        "commit": reads[latest].document.get("commit"),
        "dirty": True if True in dirty else (False if False in dirty else None),
        "started": min(starts, key=_when) if starts else None,
        "status": "passed" if passed else "failed", "interrupted": interrupted, "counts": counts, "items": items,
        "cache": _caches(reads)}
    return Merged(document=document, plan=plan, notes=notes, passed=passed)


def _proves_nothing(item: dict[str, Any]) -> bool:
    """What fails a run under ``--strict`` though it passed: a flaky proof, or one that passes
    without the change (``--against``: compiler/api/against.py)."""
    from compiler.api.against import RUNS_AGAINST
    from compiler.report.receipts import FLAKY, PASSED

    against = item.get("against")
    return item["result"] == FLAKY or (item["result"] in RUNS_AGAINST and isinstance(against, dict)
                                       and against.get("result") == PASSED)


def _caches(reads: Sequence[Receipts]) -> dict[str, Any]:
    """Every item's last cached result among the receipts: the latest by its ``started``."""
    out: dict[str, Any] = {}
    for read in reads:
        cache = read.document.get("cache")
        if not isinstance(cache, dict):
            continue
        for ident, entry in cache.items():
            if not isinstance(entry, dict):
                continue
            kept = out.get(ident)
            if kept is None or _when(entry.get("started")) >= _when(kept.get("started")):
                out[ident] = entry
    return dict(sorted(out.items()))


def _plan(read: Receipts) -> str | None:
    """The plan as receipts name it (``source``, relative to their folder), from the working folder."""
    source = read.document.get("source")
    if not isinstance(source, str) or source == "-":
        return None
    return posixpath.normpath(posixpath.join(os.path.dirname(read.path).replace(os.sep, "/"), source))


def _relative(plan: str, folder: str) -> str:
    return os.path.relpath(os.path.abspath(plan), os.path.abspath(folder)).replace(os.sep, "/")
