"""Phases: an item's optional ``phase`` names the stage of the work it belongs to (a migration's
`extract`, `switch`, `cleanup`), so that a plan can be read, and reviewed, a phase at a time. The
plan's phases are the names in order of first appearance; the waves stay computed from the
dependencies alone. What a phase promises is that it needs nothing of a later one: an item that
depends on an item of a later phase is an error (EP312, compiler/checks/phases.py).

Plain functions over plain data; a plan that gives no phase pays one look at its options
(``Plan.gives``) and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from compiler.model.values import Item

FIELD = "phase"


def phase_of(item: Item) -> str | None:
    """The item's phase, as the plan gives it; None when it gives none (or a blank one)."""
    value = dict(item.options).get(FIELD) if item.options else None
    return value if type(value) is str and value.strip() else None


def places(items: Iterable[Item]) -> tuple[dict[str, int], dict[str, int]]:
    """The plan's phases, each with its place (1-based) in order of first appearance, and the place
    of each item's phase by id (the first item of an id; items of no phase are not in it)."""
    order: dict[str, int] = {}
    of_id: dict[str, int] = {}
    for item in items:
        name = phase_of(item) if item.options else None
        if name is not None:
            place = order.setdefault(name, len(order) + 1)
            if item.id not in of_id:
                of_id[item.id] = place
    return order, of_id
