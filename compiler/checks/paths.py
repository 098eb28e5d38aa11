"""Rules about `paths:` (what an item writes): two items that may run in parallel (one wave) must
not both write one file (EP305); the comparisons are bounded (EP309). The grammar of a path is
the validator's (EP018).

Overlap is decided exactly (compiler/globs.py). The pairs that are asked are few: paths are put in
buckets by their leading literal segments, and two paths can overlap only when the prefix of one
is a prefix (by segments) of the other's, so each path is compared only with the paths whose
prefix is one of its own prefixes (a handful of buckets); and an item that has been found to
conflict is not searched further (one report names it). A wave of 10,000 items in their own
folders is measured in tests/checks/test_paths.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from compiler import globs
from compiler.checks import CheckContext
from compiler.diagnostics import Diagnostic, Location, Note
from compiler.display import clip, quoted
from compiler.values import Item


class _Entry(NamedTuple):
    item: Item
    at: int  # its place in the item's paths
    glob: globs.Glob


# Pairs of paths compared in one plan at most: paths that all start with a wildcard (`**/x{i}*`)
# share one bucket, and a hostile plan of them would be compared pair by pair for minutes. Past
# this, the rest is not compared, and a warning (EP309) says so.
MAX_COMPARISONS = 200_000


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_COMPARISONS
        self.out_at: int | None = None  # the wave where it ran out


def _conflicts(entries: list[_Entry], budget: _Budget, n: int) -> Iterator[tuple[_Entry, _Entry, str]]:
    """Pairs of entries of different items that overlap, with a witness: each item in at most
    one pair that it found, and each pair of items once; while the budget lasts."""
    buckets: dict[tuple[str, ...], list[_Entry]] = {}
    for entry in entries:
        buckets.setdefault(entry.glob.literal_prefix, []).append(entry)
    found: set[int] = set()  # items (by position) whose search found a conflict
    pairs: set[tuple[int, int]] = set()
    for x in entries:
        if x.item.position in found:
            continue
        prefix = x.glob.literal_prefix
        for k in range(len(prefix) + 1):
            for y in buckets.get(prefix[:k], ()):
                if y.item.position == x.item.position:
                    continue
                if budget.left <= 0:
                    budget.out_at = n
                    return
                budget.left -= 1
                w = globs.witness(x.glob, y.glob)
                if w is None:
                    continue
                found.add(x.item.position)
                first, second = (x, y) if x.item.position < y.item.position else (y, x)
                pair = (first.item.position, second.item.position)
                if pair not in pairs:
                    pairs.add(pair)
                    yield first, second, w
                break
            if x.item.position in found:
                break


def path_conflicts(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP305: two items of one wave whose paths can overlap, named with a path both may write.
    Dropped items have left the graph (compiler/progress.py): they write nothing."""
    from compiler.progress import live

    items = live(ctx.plan.items)
    owning = [item for item in items if item.options and item.option("paths") and "paths" not in item.broken]
    if len(owning) < 2:
        return
    from compiler.graph import plain_waves

    wave = plain_waves(items)
    first_of: dict[str, int] = {}
    for item in items:
        first_of.setdefault(item.id, item.position)
    by_wave: dict[int, list[_Entry]] = {}
    for item in owning:
        n = wave.get(item.id)
        if n is None or first_of[item.id] != item.position:
            continue  # on a cycle, or a repeated id: not ordered
        for j, text in enumerate(item.option("paths")):
            by_wave.setdefault(n, []).append(_Entry(item, j, globs.parse(text)))
    found = []
    budget = _Budget()
    for n, entries in sorted(by_wave.items()):
        for a, b, w in _conflicts(entries, budget, n):
            found.append((b.item.position, b.at, n, a, b, w))
        if budget.out_at is not None:
            break
    found.sort(key=lambda f: (f[0], f[1]))
    for _, _, n, a, b, w in found:
        first, second = clip(a.item.id), clip(b.item.id)
        yield Diagnostic(
            "EP305",
            f"{first} and {second} may run in parallel (wave {n}) and both may write {clip(w)}"
            f" ({first}: {quoted(a.glob.text)}, {second}: {quoted(b.glob.text)})",
            b.item.id,
            ctx.loc(b.item, "paths", b.at),
            (Note(f"{first} writes {quoted(a.glob.text)}", ctx.loc(a.item, "paths", a.at)),),
            hint=f"add a dependency ({second} depends on {first}, or the other way) or split ownership so that"
                 " their paths do not overlap",
        )
    if budget.out_at is not None:
        wild = sum(1 for entries in by_wave.values() for e in entries if not e.glob.literal_prefix)
        yield Diagnostic(
            "EP309",
            f"paths were compared {MAX_COMPARISONS:,} times, and those of wave {budget.out_at} onwards were not all"
            f" compared: two items of one wave may still write the same file ({wild:,} paths start with a wildcard,"
            " and each of those is compared with every other path of its wave)",
            None, Location(ctx.doc.name),
            hint="start paths with their literal folder (src/billing/**/*.py, not **/billing/*.py)",
        )


CHECKS = [path_conflicts]
