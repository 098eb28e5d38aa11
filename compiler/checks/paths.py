"""Rules about `paths:` (what an item writes): two items that may run in parallel (one wave) must
not both write one file (EP305); the comparisons are bounded, in number and in the steps each
takes, and what the bounds leave undecided is said (EP309). The grammar of a path is the
validator's (EP018).

Overlap is decided exactly (compiler/core/globs.py). The pairs that are asked are few: paths are put in
buckets by their leading literal segments, and two paths can overlap only when the prefix of one
is a prefix (by segments) of the other's, so each path is compared only with the paths whose
prefix is one of its own prefixes (a handful of buckets); and an item that has been found to
conflict is not searched further (one report names it). A wave of 10,000 items in their own
folders is measured in tests/checks/test_paths.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from compiler.checks.context import CheckContext, Rule
from compiler.core import globs
from compiler.core.diagnostics import Diagnostic, Location, Note
from compiler.core.display import clip, quoted
from compiler.model.values import Item


class _Entry(NamedTuple):
    item: Item
    at: int  # its place in the item's paths
    glob: globs.Glob


# Pairs of paths compared in one plan at most: paths that all start with a wildcard (`**/x{i}*`)
# share one bucket, and a hostile plan of them would be compared pair by pair for minutes. Past
# this, the rest is not compared, and a warning (EP309) says so.
MAX_COMPARISONS = 200_000
# Their steps are bounded too (globs.MAX_SEARCH in all, globs.MAX_STEPS for one pair): a pair past
# its own is undecided, and EP309 says so at it.


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_COMPARISONS
        self.steps = globs.MAX_SEARCH  # left
        self.compared = 0
        self.out_at: int | None = None  # the wave where it ran out


class _Pair(NamedTuple):
    first: _Entry  # of the item earlier in the plan
    second: _Entry
    witness: str | None  # a path both may write; None: their overlap was not decided (steps ran out)


def _conflicts(entries: list[_Entry], budget: _Budget, n: int) -> Iterator[_Pair]:
    """Pairs of entries of different items that overlap, with a witness: each item in at most
    one pair that it found, and each pair of items once; while the budget lasts. A pair whose
    search ran out of its own steps is given without a witness (once per pair of items), and
    the search goes on."""
    buckets: dict[tuple[str, ...], list[_Entry]] = {}
    for entry in entries:
        buckets.setdefault(entry.glob.literal_prefix, []).append(entry)
    found: set[int] = set()  # items (by position) whose search found a conflict
    pairs: set[tuple[int, int]] = set()
    undecided: set[tuple[int, int]] = set()  # pairs of items, reported
    unknown: set[tuple[int, int, int, int]] = set()  # pairs of entries left undecided: not asked again
    for x in entries:
        if x.item.position in found:
            continue
        prefix = x.glob.literal_prefix
        for k in range(len(prefix) + 1):
            for y in buckets.get(prefix[:k], ()):
                if y.item.position == x.item.position:
                    continue
                first, second = (x, y) if x.item.position < y.item.position else (y, x)
                pair = (first.item.position, second.item.position)
                entries_pair = (*pair, first.at, second.at)
                if entries_pair in unknown:
                    continue
                if budget.left <= 0 or budget.steps <= 0:
                    budget.out_at = n
                    return
                budget.left -= 1
                budget.compared += 1
                steps = globs.Steps(min(globs.MAX_STEPS, budget.steps))
                try:
                    w = globs.witness(x.glob, y.glob, steps)
                except globs.Undecided:
                    budget.steps -= steps.limit
                    if steps.limit < globs.MAX_STEPS:  # the plan's steps ran out, not the pair's
                        budget.out_at = n
                        return
                    unknown.add(entries_pair)
                    if pair not in undecided:
                        undecided.add(pair)
                        yield _Pair(first, second, None)
                    continue
                budget.steps -= steps.used
                if w is None:
                    continue
                found.add(x.item.position)
                if pair not in pairs:
                    pairs.add(pair)
                    yield _Pair(first, second, w)
                break
            if x.item.position in found:
                break


def path_conflicts(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP305: two items of one wave whose paths can overlap, named with a path both may write.
    Dropped items have left the graph (compiler/analysis/progress.py): they write nothing. EP309
    (a warning): the comparison stopped at its bound (compiler/core/globs.py: comparisons per plan,
    steps per pair and per plan), so a conflict may be missed; it says which bound."""
    from compiler.analysis.progress import live

    items = live(ctx.plan.items)
    owning = [item for item in items if item.options and item.option("paths") and "paths" not in item.broken]
    if len(owning) < 2:
        return
    from compiler.analysis.graph import plain_waves

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
    found: list[tuple[int, _Pair]] = []
    budget = _Budget()
    for n, entries in sorted(by_wave.items()):
        found.extend((n, pair) for pair in _conflicts(entries, budget, n))
        if budget.out_at is not None:
            break
    # A pair of items found to conflict is reported as such, whatever else was left undecided.
    conflicting = {(p.first.item.position, p.second.item.position) for _, p in found if p.witness is not None}
    found = [(n, p) for n, p in found if p.witness is not None
             or (p.first.item.position, p.second.item.position) not in conflicting]
    found.sort(key=lambda f: (f[1].second.item.position, f[1].second.at, f[1].witness is None))
    for n, (a, b, w) in found:
        first, second = clip(a.item.id), clip(b.item.id)
        note = (Note(f"{first} writes {quoted(a.glob.text)}", ctx.loc(a.item, "paths", a.at)),)
        if w is None:
            yield Diagnostic(
                "EP309",
                f"{first} and {second} may run in parallel (wave {n}), and whether their paths overlap was not"
                f" decided in {globs.MAX_STEPS:,} steps of the search ({first}: {quoted(a.glob.text)}, {second}:"
                f" {quoted(b.glob.text)}): they were compared partly, and a conflict may be missed",
                item=b.item.id, location=ctx.loc(b.item, "paths", b.at), notes=note,
                hint="write paths with fewer wildcards (list the files, or start with their literal folder), or add"
                     f" a dependency ({second} depends on {first}, or the other way)",
            )
            continue
        yield Diagnostic(
            "EP305",
            f"{first} and {second} may run in parallel (wave {n}) and both may write {clip(w)}"
            f" ({first}: {quoted(a.glob.text)}, {second}: {quoted(b.glob.text)})",
            item=b.item.id,
            location=ctx.loc(b.item, "paths", b.at),
            notes=note,
            hint=f"add a dependency ({second} depends on {first}, or the other way) or split ownership so that"
                 " their paths do not overlap",
        )
    if budget.out_at is not None:
        wild = sum(1 for entries in by_wave.values() for e in entries if not e.glob.literal_prefix)
        compared = (f"paths were compared {MAX_COMPARISONS:,} times" if budget.left <= 0 else
                    f"paths were compared {budget.compared:,} times in {globs.MAX_SEARCH:,} steps of the search")
        yield Diagnostic(
            "EP309",
            f"{compared}, and those of wave {budget.out_at} onwards were not all"
            f" compared: two items of one wave may still write the same file ({wild:,} paths start with a wildcard,"
            " and each of those is compared with every other path of its wave)",
            location=Location(ctx.doc.name),
            hint="start paths with their literal folder (src/billing/**/*.py, not **/billing/*.py)",
        )


RULES = (Rule(path_conflicts, ("EP305", "EP309")),)
