"""The rules: every check family (one module each, compiler/checks/*.py) declares its ``RULES``,
each a check with the codes it emits and the phase it runs in (compiler/checks/context.py);
``rules()`` gathers them, family by family in the order below, and ``run`` runs one phase. A new
family is one module and one name here; a new rule, one line in its family."""

from __future__ import annotations

import functools

from compiler.checks.context import CheckContext, Phase, Rule
from compiler.core.diagnostics import Diagnostic


@functools.cache
def rules() -> tuple[Rule, ...]:
    """Every rule of every family, in the order they run within a phase (the families are
    imported on the first call: importing the registry costs nothing)."""
    from compiler.checks import budget, dependencies, estimates, evidence, gates, items, paths, phases, proofs, status

    families = (budget, items, evidence, proofs, dependencies, phases, gates, status, estimates, paths)
    return tuple(rule for family in families for rule in family.RULES)


def run(ctx: CheckContext, phase: Phase) -> list[Diagnostic]:
    """The diagnostics of every rule of ``phase``, in the families' order."""
    out: list[Diagnostic] = []
    for rule in rules():
        if rule.phase == phase:
            out.extend(rule.check(ctx))
    return out
