"""Rules about phases (compiler/analysis/phases.py): no item needs an item of a later phase. A plan
that gives no phase pays one look at its options."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.analysis.phases import FIELD, phase_of, places
from compiler.checks.context import CheckContext, Rule
from compiler.core.diagnostics import Diagnostic, Note
from compiler.core.display import clip
from compiler.model.values import Item


def backwards_dependency(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP312: an item depends on an item of a later phase, so the earlier phase could not finish
    without work the plan puts after it: at that ``depends_on`` entry, with a note at the later
    item's phase. Items without a phase, unknown ids and an item's dependency on itself are other
    rules' (or none's) to judge; a repeated dependency is reported once."""
    if not ctx.plan.gives(FIELD):
        return
    order, of_id = places(ctx.plan.items)
    names = list(order)
    holders: dict[str, Item] = {}  # the item whose phase each id has, made at the first problem
    for item in ctx.plan.items:
        if not item.depends_on or (mine := of_id.get(item.id)) is None:
            continue
        later = [(j, dep) for j, dep in enumerate(item.depends_on) if of_id.get(dep, 0) > mine]
        seen: set[str] = set()  # a repeated dependency is EP304's, reported here once
        for j, dep in later:
            if dep in seen:
                continue
            seen.add(dep)
            here, there, theirs = names[mine - 1], names[of_id[dep] - 1], of_id[dep]
            if not holders:
                for one in ctx.plan.items:
                    if one.id in of_id and one.id not in holders and phase_of(one) is not None:
                        holders[one.id] = one
            other = holders[dep]
            yield Diagnostic(
                "EP312", f"{clip(item.id)} (phase {clip(here)}, {mine} of {len(order)}) depends on"
                f" {clip(dep)}, of the later phase {clip(there)} ({theirs} of {len(order)}): the"
                f" dependency runs backwards across phases", item=item.id,
                location=ctx.loc(item, item.depends_key, j),
                notes=(Note(f"{clip(dep)} is in phase {clip(there)}", ctx.loc(other, FIELD)),),
                hint=f"move {clip(dep)} to phase {clip(here)} or an earlier one, move {clip(item.id)} to"
                     f" {clip(there)} or a later one, or drop the dependency; phases are ordered by where each"
                     " first appears in the plan")


RULES = (
    Rule(backwards_dependency, ("EP312",)),
)
