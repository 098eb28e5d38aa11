"""Rules about progress (compiler/analysis/progress.py): a dropped item says why, no live item depends on
a dropped one, and a done item's dependencies are done. A plan that gives no status pays one
scan of its items' options."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.analysis.progress import DONE, DROPPED, status
from compiler.checks.context import CheckContext, Rule
from compiler.core.diagnostics import Diagnostic, Note
from compiler.core.display import clip
from compiler.model.values import Item


def missing_reason(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP019: a dropped item says why (in ``reason``), at its status."""
    if not ctx.plan.gives("status"):
        return
    for item in ctx.plan.items:
        if status(item) != DROPPED or "reason" in item.broken:
            continue
        reason = item.option("reason")
        if reason is None or not str(reason).strip():
            yield Diagnostic("EP019", f"{clip(item.id)} is dropped without a reason", item=item.id,
                             location=ctx.loc(item, "status"),
                             hint="say why in reason: what replaced it, or why it is no longer needed")


def _statuses(items: tuple[Item, ...]) -> dict[str, Item]:
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    return first


def depends_on_dropped(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP307: a live item (todo, doing or done) depends on a dropped one, which has left the
    graph: at that depends_on entry, with a note at the dropped item's status."""
    if not ctx.plan.gives("status"):
        return
    first = _statuses(ctx.plan.items)
    dropped = {ident for ident, item in first.items() if status(item) == DROPPED}
    if not dropped:
        return
    for item in ctx.plan.items:
        if status(item) == DROPPED:
            continue
        seen: set[str] = set()  # a repeated dependency is EP304's, reported here once
        for j, dep in enumerate(item.depends_on):
            if dep not in dropped or dep == item.id or dep in seen:
                continue
            seen.add(dep)
            gone = first[dep]
            reason = gone.option("reason")
            why = f": {clip(str(reason))}" if isinstance(reason, str) and reason.strip() else ""
            yield Diagnostic(
                "EP307", f"{clip(item.id)} depends on {clip(dep)}, which is dropped", item=item.id,
                location=ctx.loc(item, item.depends_key, j),
                notes=(Note(f"{clip(dep)} is dropped{why}", ctx.loc(gone, "status")),),
                hint=f"drop {clip(item.id)} too, or depend on what replaced {clip(dep)}")


def done_before_dependency(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP308 (warning): a done item depends on one that is not done (todo or doing): its status,
    or the dependency, is wrong. Not an error: work is sometimes marked out of order, and the
    plan still orders. A dropped dependency is EP307's."""
    if not ctx.plan.gives("status"):
        return
    first = _statuses(ctx.plan.items)
    for item in ctx.plan.items:
        if status(item) != DONE:
            continue
        seen: set[str] = set()
        for j, dep in enumerate(item.depends_on):
            if dep not in first or dep == item.id or dep in seen:
                continue
            seen.add(dep)
            state = status(first[dep])
            if state not in (DONE, DROPPED):
                yield Diagnostic(
                    "EP308", f"{clip(item.id)} is done, but depends on {clip(dep)}, which is {state}", item=item.id,
                    location=ctx.loc(item, item.depends_key, j),
                    hint=f"mark {clip(dep)} done too, or {clip(item.id)} doing until {clip(dep)} is done")


RULES = (
    Rule(missing_reason, ("EP019",)),
    Rule(depends_on_dropped, ("EP307",)),
    Rule(done_before_dependency, ("EP308",)),
)
