"""The plan's budgets: EP401 (no items) and EP402 (more items than ``budget.max_items``), which
the plan alone decides; EP403 (a revision past ``budget.max_revisions``) and EP404 (a
revision that repeats a blocked one), which need the evidence-plan.json a compile replaces, so
`compile` asks them (``revision_checks``, the revision phase, with the revision in the context)."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks.context import CheckContext, Rule
from compiler.core.codes import CODES
from compiler.core.diagnostics import Diagnostic, Location


def because(code: str) -> str:
    """The loop's word for a budget code, as its message ends with it (``reason: step_budget``)."""
    return f"reason: {CODES[code].reason}"


def at_plan(ctx: CheckContext, *path: str, key: bool = False) -> Location:
    """Where a plan-level key (or its value) is; the plan's ``items`` key for ``()``; else the file."""
    smap = ctx.doc.source_map
    if not path:
        pos = smap.key(ctx.plan.items_path) if ctx.plan.items_path else smap.value(())
    else:
        pos = smap.key(path) if key else smap.value(path)
    return Location(ctx.doc.name, *pos) if pos else Location(ctx.doc.name)


def no_plan(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP401: a plan without a single item (valid or not) is never ready: nothing would be done
    and nothing proved, and a run that reports an empty plan as ready has hidden a failure."""
    if ctx.plan.item_count == 0:
        yield Diagnostic("EP401", f"the plan has no items: nothing to do and nothing to prove ({because('EP401')})",
                         location=at_plan(ctx),
                         hint="write the plan's items; an agent whose plan came out empty writes a recovery plan"
                              " instead: what to try next, each item with its proof")


def step_budget(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP402: more items than the plan's ``budget.max_items``, at that value."""
    budget = ctx.plan.budget
    limit = budget.get("max_items") if budget else None
    if limit is not None and ctx.plan.item_count > limit:
        yield Diagnostic("EP402", f"the plan has {ctx.plan.item_count:,} items, more than its budget of {limit:,}"
                         f" (budget.max_items; {because('EP402')})", location=at_plan(ctx, "budget", "max_items"),
                         hint="shorten the plan: merge or drop items, or split it into plans that each fit; raise"
                              " max_items only deliberately")




def revision_checks(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP403: this compile's revision (``ctx.revision``) is past the plan's
    ``budget.max_revisions``, at that value. EP404: the items are those of revision
    ``ctx.repeats``, which was blocked, at the plan's items."""
    number, repeats = ctx.revision, ctx.repeats
    if number is None:
        return
    budget = ctx.plan.budget
    limit = budget.get("max_revisions") if budget else None
    if limit is not None and number > limit:
        yield Diagnostic("EP403", f"this compile would be revision {number}, past the plan's budget of {limit}"
                         f" revision{'s' if limit != 1 else ''} (budget.max_revisions; {because('EP403')})",
                         location=at_plan(ctx, "budget", "max_revisions"),
                         hint="stop replanning: feed the last error back (evidence-plan check --format json) and"
                              " route around it in this revision, or have a person raise max_revisions")
    if repeats is not None:
        yield Diagnostic("EP404", f"replan repeats revision {repeats}: the items are the same as that revision's,"
                         f" which was blocked", location=at_plan(ctx),
                         hint=f"read revision {repeats}'s issues and change what they name: resubmitting a blocked"
                              " plan loops")


RULES = (
    Rule(no_plan, ("EP401",)),
    Rule(step_budget, ("EP402",)),
    Rule(revision_checks, ("EP403", "EP404"), "revision"),
)
