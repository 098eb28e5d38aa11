"""The rules, family by family (one module each: compiler/checks/*.py): each family's ``CHECKS``
runs in the order listed."""

from __future__ import annotations

from compiler.checks.context import Check, CheckContext
from compiler.core.diagnostics import Diagnostic


def all_checks() -> list[Check]:
    from compiler.checks import budget, dependencies, estimates, evidence, gates, items, paths, status

    return [*budget.CHECKS, *items.CHECKS, *evidence.CHECKS, *dependencies.CHECKS, *gates.CHECKS, *status.CHECKS,
            *estimates.CHECKS, *paths.CHECKS]


def run_checks(ctx: CheckContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for check in all_checks():
        out.extend(check(ctx))
    return out
