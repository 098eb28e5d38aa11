"""Which files a proof may name before they exist: those the plan will write first. A path a
proof runs (a script, a test file or folder, the module of a unittest name) is *planned* for an
item when a path of the ``paths:`` of that item, or of an item it depends on transitively, can
name it or something under it (compiler/core/globs.py decides the overlap: ``tests/`` and
``tests/*.py`` plan ``tests/test_new.py``; ``tests/planner/nodes/x.py`` plans the folder
``tests/planner``). An item elsewhere in the plan does not count: it may not have run yet; nor
does a dropped item for the items after it (it runs nothing).

Only the paths that are missing are asked about (a few), so a plan without ``paths:`` pays one
look, and a plan with them pays for its asks only:

1. each asked path is compared with the paths that can overlap it, found by their leading literal
   segments (as compiler/checks/paths.py buckets them), within a bound on comparisons and steps;
   what the bound leaves undecided counts as planned (never a false error);
2. an ask whose own item writes the path is answered at once (the common case: an item writes
   the test it runs);
3. the others are answered in one pass over a topological order, each item carrying the asked
   paths its dependencies write as the bits of a Python int. A bit is given when its path's first
   writer is reached and retired once every item that asks about it is done: the sets are kept
   shifted past the lowest live bit (as compiler/checks/dependencies.py's ``redundant`` keeps its
   candidates), so a chain of 100,000 items each running the file of the one before carries one
   bit, not 100,000. A set is dropped once every item that depends on it has read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from compiler.core import globs
from compiler.model.values import Item

# Comparisons of an asked path with a written one, per plan: past it, the rest count as planned.
MAX_COMPARISONS = 200_000


def _written(items: Iterable[Item]) -> list[tuple[str, globs.Glob]]:
    out: list[tuple[str, globs.Glob]] = []
    for item in items:
        if not item.options or "paths" in item.broken:
            continue
        for text in item.option("paths") or ():
            if isinstance(text, str) and globs.problem(text) is None:
                out.append((item.id, globs.parse(text)))
    return out


def writers(paths: Iterable[str], items: Iterable[Item]) -> dict[str, set[str] | None]:
    """Each asked path -> the ids of the items whose ``paths:`` can name it or something under it;
    None when the bound left it undecided (count it as planned)."""
    written = _written(items)
    exact: dict[tuple[str, ...], list[tuple[str, globs.Glob]]] = {}  # by a written path's literal prefix
    under: dict[tuple[str, ...], list[tuple[str, globs.Glob]]] = {}  # by each leading part of it
    for ident, glob in written:
        prefix = glob.literal_prefix
        exact.setdefault(prefix, []).append((ident, glob))
        for k in range(1, len(prefix)):
            under.setdefault(prefix[:k], []).append((ident, glob))
    left, steps_left = MAX_COMPARISONS, globs.MAX_SEARCH
    out: dict[str, set[str] | None] = {}
    for path in dict.fromkeys(paths):
        if globs.problem(path) is not None:
            out[path] = set()
            continue
        asked = globs.parse(path)
        parts = asked.literal_prefix  # the whole path: a proof's path has no wildcard
        candidates = [w for k in range(len(parts) + 1) for w in exact.get(parts[:k], ())]
        candidates += under.get(parts, ())
        found: set[str] | None = set()
        for ident, glob in candidates:
            if found is None or ident in found:
                continue
            written_parts = glob.literal_prefix
            if len(written_parts) + 1 == len(glob.segments) and glob.segments[-1] == globs.ANY:
                # A file or folder without wildcards (most paths): they overlap when one is the other or below it.
                shorter = min(len(parts), len(written_parts))
                if parts[:shorter] == written_parts[:shorter]:
                    found.add(ident)
                continue
            if left <= 0 or steps_left <= 0:
                found = None
                break
            left -= 1
            steps = globs.Steps(min(globs.MAX_STEPS, steps_left))
            try:
                hit = globs.overlaps(asked, glob, steps)
            except globs.Undecided:
                found = None
                break
            finally:
                steps_left -= steps.used
            if hit:
                found.add(ident)
        out[path] = found
    return out


def planned(items: tuple[Item, ...], asks: Mapping[str, Iterable[str]]) -> set[tuple[str, str]]:
    """The (item id, path) pairs of ``asks`` (id -> the missing paths its proof runs) that the item
    or one of its transitive dependencies writes (see the module's doc)."""
    from compiler.analysis.progress import live

    if not any(item.options and item.option("paths") for item in items):
        return set()
    pending = {ident: list(dict.fromkeys(paths)) for ident, paths in asks.items()}
    by_path = writers((p for paths in pending.values() for p in paths), items)
    alive = live(items)  # a dropped item writes nothing for the items after it (its own proof is read as written)
    kept = None if alive is items else {item.id for item in alive}
    items = alive
    out: set[tuple[str, str]] = set()
    rest: dict[str, list[str]] = {}  # asks not answered by the item itself
    for ident, paths in pending.items():
        for path in paths:
            who = by_path.get(path, set())
            if who is None or ident in who:
                out.add((ident, path))
            elif who:
                rest.setdefault(ident, []).append(path)
    if not rest:
        return out
    from compiler.analysis.graph import plain_waves

    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    order = list(plain_waves(first.values()))  # topological; items on or after a cycle left out
    askers: dict[str, int] = {}  # path -> the items still to ask about it
    for paths in rest.values():
        for path in paths:
            askers[path] = askers.get(path, 0) + 1
    gives: dict[str, list[str]] = {}  # item -> the asked paths it writes
    for path in askers:
        for ident in by_path[path] or ():
            if kept is None or ident in kept:
                gives.setdefault(ident, []).append(path)
    readers: dict[str, int] = {}  # item -> the items still to read its set: dropped at 0
    for item in first.values():
        for dep in dict.fromkeys(item.depends_on):
            if dep != item.id and dep in first:
                readers[dep] = readers.get(dep, 0) + 1
    bit: dict[str, int] = {}  # path -> its bit (absolute, never reused)
    retired: list[bool] = []
    base = 0  # every bit below it is retired; a set is stored shifted by the base it was made at
    reach: dict[str, tuple[int, int]] = {}  # item -> (the bits its dependencies write >> base, base)
    for ident in order:
        value, made_at = 0, base
        for dep in dict.fromkeys(first[ident].depends_on):
            if dep == ident or dep not in first:
                continue
            got = reach.get(dep)
            if got is not None and got[1] + got[0].bit_length() > base:
                value |= got[0] >> (base - got[1])
            readers[dep] -= 1
            if not readers[dep]:
                reach.pop(dep, None)  # every item that reads it is done
        for path in rest.get(ident, ()):
            b = bit.get(path)
            if b is not None and b >= base and (value >> (b - base)) & 1:
                out.add((ident, path))
            askers[path] -= 1
            if not askers[path] and b is not None:
                retired[b] = True
        for path in gives.get(ident, ()):
            if askers[path] and path not in bit:
                bit[path] = len(retired)
                retired.append(False)
            b = bit.get(path)
            if b is not None and b >= base and not retired[b]:
                value |= 1 << (b - base)
        while base < len(retired) and retired[base]:
            base += 1
        if value and readers.get(ident):
            reach[ident] = (value, made_at)
    return out
