"""The library half of `evidence-plan check`: plans (files, and folders standing for the plan files
under them) checked without writing anything, each file whatever happened to the one before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from compiler.core.diagnostics import Diagnostic, PlanInputError, sort_diagnostics

if TYPE_CHECKING:
    from compiler.compile.pipeline import CompileResult
    from compiler.load.limits import Limits
    from compiler.report.reporters import PlanReport, Status


class Checked(NamedTuple):
    """What a check of several plans found."""

    plans: tuple[str, ...]  # what was counted: each file checked, and each folder that stood for none
    reports: tuple[PlanReport, ...]  # each plan's outcome: ready, blocked or unreadable, with its diagnostics
    diagnostics: tuple[Diagnostic, ...]  # all of them; sorted when more than one plan was checked
    blocked: int
    unreadable: int

    @property
    def ready(self) -> int:
        return len(self.plans) - self.blocked - self.unreadable


def check_plans(arguments: Sequence[str], *, root: str | None = None, verify_evidence: bool = True,
                strict: bool = False, limits: Limits | None = None, max_spread: float | None = None,
                fixes: bool = False) -> Checked:
    """Check each plan the arguments name (compiler/repo/discover.py expands folders). A plan is
    blocked by an error, or with ``strict`` (or the repository's ``strict`` setting) by a warning;
    one that cannot be read is unreadable, and the others are still checked. With ``fixes``, each
    diagnostic's fix has its text edits, as `check --format json` shows them (compiler/compile/
    pipeline.py: ``compile_document``)."""
    from compiler.compile.pipeline import compile_plan
    from compiler.load.limits import DEFAULT_LIMITS
    from compiler.repo.discover import expand
    from compiler.report.reporters import PlanReport

    found = expand(arguments)
    diagnostics: list[Diagnostic] = list(found.problems)
    reports = [PlanReport(d.location.file if d.location is not None else "", "unreadable", (d,))
               for d in found.problems]
    unreadable, blocked = len(found.problems), 0
    plans = (*found.files, *(d.location.file for d in found.problems if d.location is not None))
    for plan in found.files:
        try:
            result = compile_plan(plan, root=root, verify_evidence=verify_evidence, limits=limits or DEFAULT_LIMITS,
                                  order=False, max_spread=max_spread, fixes=fixes)
        except PlanInputError as error:
            diagnostics.append(error.diagnostic)
            unreadable += 1
            reports.append(PlanReport(plan, "unreadable", (error.diagnostic,)))
            continue
        diagnostics.extend(result.diagnostics)
        is_blocked = plan_status(result, strict=strict) == "blocked"
        blocked += is_blocked
        reports.append(PlanReport(plan, "blocked" if is_blocked else "ready", tuple(result.diagnostics)))
    ordered = sort_diagnostics(diagnostics) if len(plans) > 1 else tuple(diagnostics)
    return Checked(plans=tuple(plans), reports=tuple(reports), diagnostics=ordered, blocked=blocked,
                   unreadable=unreadable)


def plan_status(result: CompileResult, *, strict: bool = False) -> Status:
    """What `check` says of a compiled plan: blocked by an error, or with ``strict`` (or the
    repository's ``strict`` setting) by a warning; else ready."""
    strict_here = strict or bool(result.settings.get("strict"))  # the option, or the repository's setting
    return "blocked" if result.status == "blocked" or (strict_here and result.count("warning")) else "ready"
