"""EP112: estimates and claims that are not grounded (compiler/analysis/estimates.py says the rule).

A plan without estimates or claims pays one look at each item's options, and imports nothing."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks.context import CheckContext, Rule
from compiler.core.diagnostics import Diagnostic, Location
from compiler.core.display import clip

_HINTS = {
    "low": "a 90% interval of a duration or a quantity starts above 0: give the least it could be",
    "high": "give the most it could be, at least low: narrow a wide interval with evidence (a similar past"
            " change, a measurement)",
    "left": "give the share of the item still to do, between 0 and 1 (0.25: a quarter left), or leave it out",
    "evidence": "say what the range comes from: a similar past change, a measurement, a file (`app/x.py`)",
}


def ungrounded(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP112: each estimate and claim flagged by the grounding rule, at the part it is about."""
    given = [item for item in ctx.plan.items if item.options and item.option("estimate") is not None]
    if not given and not ctx.plan.claims:
        return
    from compiler.analysis.estimates import flags

    for item in given:
        for flag in flags(item.option("estimate"), ctx.max_spread):
            where = ctx.loc(item, "estimate", flag.part)
            if where.line is None:  # a part not given (evidence): at the estimate
                where = ctx.loc(item, "estimate")
            yield Diagnostic("EP112", f"{clip(item.id)}: estimate is ungrounded: {flag.reason}", item=item.id,
                             location=where, hint=_HINTS[flag.part])
    for j, claim in ctx.plan.claims:
        for flag in flags(claim, ctx.max_spread):
            where = _at(ctx, ("claims", j, flag.part)) or _at(ctx, ("claims", j)) or Location(ctx.doc.name)
            yield Diagnostic("EP112", f"claim {j + 1} ({clip(claim['description'], 40)}) is ungrounded: {flag.reason}",
                             location=where, hint=_HINTS[flag.part])


def _at(ctx: CheckContext, path: tuple[object, ...]) -> Location | None:
    pos = ctx.doc.source_map.value(path)
    return Location(ctx.doc.name, *pos) if pos else None


RULES = (Rule(ungrounded, ("EP112",)),)
