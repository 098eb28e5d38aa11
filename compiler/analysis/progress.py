"""Progress: each item's status (todo, doing, done, dropped: compiler/model/fields.py), what is left,
and what can be done next (`evidence-plan next`).

Dropped items leave the graph: they are in no wave, on no critical path, and no live item may
depend on one (EP307, compiler/checks/status.py). The next items are the live items that are
not done and whose dependencies are all done, in wave order, the ones already started (doing)
first: finishing work in progress unblocks what waits on it, and an agent asking for work should
not start a second item beside one that is half done.

Plain functions over plain data; no pydantic, no networkx: `next` orders the plan itself (a
wave is the longest chain of dependencies below an item, so the waves are the same as
compiler/analysis/graph.py's), in one linear pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from compiler.model import fields

if TYPE_CHECKING:
    from compiler.model.values import Item

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
    """Each live item's wave (1-based), as compile's waves are (compiler/analysis/graph.py: plain_waves):
    dropped items have left the graph."""
    from compiler.analysis.graph import plain_waves

    return plain_waves(live(items))


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
            found.append(NextItem(id=item.id, change=item.change, proof=item.proof, status=state,
                                  wave=wave_of[item.id], depends_on=item.depends_on))
    found.sort(key=lambda n: (n.status != DOING, n.wave, n.id))
    return found
