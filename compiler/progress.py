"""Progress: each item's status (todo, doing, done, dropped: compiler/fields.py), what is left,
and what can be done next (`evidence-plan next`).

Dropped items leave the graph: they are in no wave, on no critical path, and no live item may
depend on one (EP307, compiler/checks/status.py). The next items are the live items that are
not done and whose dependencies are all done, in wave order, the ones already started (doing)
first: finishing work in progress unblocks what waits on it, and an agent asking for work should
not start a second item beside one that is half done.

Plain functions over plain data; no pydantic, no networkx: `next` orders the plan itself (a
wave is the longest chain of dependencies below an item, so the waves are the same as
compiler/graph.py's), in one linear pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from compiler import fields

if TYPE_CHECKING:
    from compiler.diagnostics import Diagnostic
    from compiler.load import Limits
    from compiler.values import Item

STATUS_FIELD = fields.by_name(fields.ITEM_FIELDS)["status"]
STATUSES: tuple[str, ...] = STATUS_FIELD.choices  # todo, doing, done, dropped
DEFAULT: str = STATUS_FIELD.default  # todo
DONE, DOING, DROPPED = "done", "doing", "dropped"


def status(item: Item) -> str:
    """The item's status: as the plan gives it, else todo."""
    for key, value in item.options:
        if key == "status":
            return str(value)
    return DEFAULT


def tracked(items: tuple[Item, ...]) -> bool:
    """Whether any item gives a status (most plans do not: then nothing here has work to do)."""
    return any(key == "status" for item in items for key, _ in item.options)


def live(items: tuple[Item, ...]) -> tuple[Item, ...]:
    """The items that are not dropped: the graph's. The same tuple when none is."""
    if not tracked(items):
        return items
    kept = tuple(item for item in items if status(item) != DROPPED)
    return kept if len(kept) < len(items) else items


def counts(statuses: list[str]) -> dict[str, int]:
    """Items per status, every status named (in the declaration's order), zero or not."""
    out = dict.fromkeys(STATUSES, 0)
    for value in statuses:
        if value in out:
            out[value] += 1
    return out


def wave_numbers(items: tuple[Item, ...]) -> dict[str, int]:
    """Each live item's wave (1-based): one more than the latest wave of its dependencies, as
    compiler/graph.waves makes them (topological generations). The first item of each id; known,
    non-self dependencies only. One pass when the plan is written in order, else Kahn's
    algorithm, iterative and linear; the plan must have no cycle (the checks have said so):
    items on one are left out."""
    first: dict[str, Item] = {}
    for item in live(items):
        first.setdefault(item.id, item)
    in_order = _in_order(first)
    if in_order is not None:
        return in_order
    # Kahn's algorithm over item numbers: lists of integers (a dependency's dependents laid out
    # side by side, as a compressed sparse row), which stay compact where dicts of ids do not.
    ids = list(first)
    number = {ident: n for n, ident in enumerate(ids)}
    waiting = [0] * len(ids)
    edges: list[tuple[int, int]] = []
    for n, item in enumerate(first.values()):
        for dep in item.depends_on:  # a repeated one counts twice and is released twice
            d = number.get(dep)
            if d is not None and d != n:
                waiting[n] += 1
                edges.append((d, n))
    start = [0] * (len(ids) + 1)
    for d, _ in edges:
        start[d + 1] += 1
    for n in range(len(ids)):
        start[n + 1] += start[n]
    filled = start[:-1]
    dependents = [0] * len(edges)
    for d, n in edges:
        dependents[filled[d]] = n
        filled[d] += 1
    wave = [1] * len(ids)
    ready = [n for n, count in enumerate(waiting) if count == 0]
    while ready:
        n = ready.pop()
        below = wave[n] + 1
        for m in dependents[start[n]:start[n + 1]]:
            if wave[m] < below:
                wave[m] = below
            waiting[m] -= 1
            if waiting[m] == 0:
                ready.append(m)
    return {ident: wave[n] for n, ident in enumerate(ids) if waiting[n] == 0}


def _in_order(first: dict[str, Item]) -> dict[str, int] | None:
    """The waves in one pass, when every dependency is on an item listed earlier (plans are mostly
    written in order); None as soon as one is not."""
    wave: dict[str, int] = {}
    get = wave.get
    for ident, item in first.items():
        below = 0
        for dep in item.depends_on:
            known = get(dep)
            if known is None:
                if dep in first and dep != ident:
                    return None  # a dependency listed later: Kahn's algorithm decides
                continue
            if known > below:
                below = known
        wave[ident] = below + 1
    return wave


class NextItem(NamedTuple):
    id: str
    change: str
    proof: str
    status: str  # todo or doing
    wave: int
    depends_on: tuple[str, ...]


def next_items(items: tuple[Item, ...], wave_of: dict[str, int]) -> list[NextItem]:
    """The live items not done whose dependencies are all done, doing ones first, each group in
    wave order (ids sorted within a wave, as the waves are)."""
    done = {item.id for item in items if status(item) == DONE}
    found: list[NextItem] = []
    seen: set[str] = set()
    for item in items:
        state = status(item)
        if state in (DONE, DROPPED) or item.id in seen or item.id not in wave_of:
            continue
        seen.add(item.id)
        if all(dep in done for dep in item.depends_on if dep != item.id):
            found.append(NextItem(item.id, item.change, item.proof, state, wave_of[item.id], item.depends_on))
    found.sort(key=lambda n: (n.status != DOING, n.wave, n.id))
    return found


class Next(NamedTuple):
    """What `next` answers for a plan."""

    name: str  # the plan file, as diagnostics name it
    plan: str | None  # the plan's own name
    status: str  # ready or blocked (as `check` says)
    progress: dict[str, int]  # items per status
    remaining: int  # live items not done
    items: list[NextItem]  # empty when blocked, or when nothing is left
    diagnostics: tuple[Diagnostic, ...]


def plan_next(path: str, *, root: str | None = None, verify_evidence: bool = True,
              limits: Limits | None = None) -> Next:
    """Check the plan at ``path`` as `check` does, then, when it is ready, its next items. Raises
    ``PlanInputError`` when the file cannot be read or is not a plan."""
    from compiler.compile import compile_plan
    from compiler.load import DEFAULT_LIMITS

    result = compile_plan(path, root=root, verify_evidence=verify_evidence, limits=limits or DEFAULT_LIMITS,
                          order=False)
    items = result.plan.items
    statuses = [status(item) for item in items] if tracked(items) else [DEFAULT] * len(items)
    progress = counts(statuses)
    remaining = progress[DEFAULT] + progress[DOING]
    found = next_items(items, wave_numbers(items)) if result.status == "ready" else []
    return Next(result.document.name, result.plan.name, result.status, progress, remaining, found,
                result.diagnostics)
