"""`evidence-plan check PLAN_OR_DIR...`: check plans without writing anything (for CI and pre-commit)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from compiler.commands._options import evidence_options, limit_options, spread_option, whole
from compiler.commands._output import echo_report, err, plural, style
from compiler.core.diagnostics import Diagnostic
from compiler.core.exits import EXIT_BLOCKED, EXIT_INPUT, EXIT_READY
from compiler.report.reporters import FORMATS

if TYPE_CHECKING:
    from compiler.load.limits import Limits
    from compiler.report.reporters import Context


@click.command("check")
@click.argument("plans", nargs=-1, required=True, metavar="PLAN_OR_DIR...")
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              default="auto", show_default=True,
              help="Report format; auto is github under GitHub Actions, else text.")
@click.option("--strict", is_flag=True, help="Warnings block too (exit 1); also the `strict` setting.")
@evidence_options
@spread_option
@limit_options
def command(plans: tuple[str, ...], fmt: str, strict: bool, root: str | None, no_verify: bool,
                  max_spread: float, limits: Limits) -> int:
    """Check one or more plans without writing anything (for CI and pre-commit).

    A folder stands for the plan files under it (plan.yaml, NAME.plan.yaml, or .yml, .json;
    not searched: symlinks, .git, node_modules, virtual environments and tool caches); a folder
    with none is exit 2. Every file is checked, even after a bad one. The report goes to stdout;
    with text, a summary line follows on stderr. Exit 0 all ready, 1 any blocked, 2 any unreadable.

    \b
    Examples:
      evidence-plan check plan.yaml
      evidence-plan check --strict plans/*.yaml
      evidence-plan check .                   # every plan file of the repository
      evidence-plan check --format sarif plan.yaml > evidence-plan.sarif
    """
    from compiler.api.check import check_plans
    from compiler.report import reporters

    fmt = reporters.resolve_format(fmt, dict(os.environ))
    checked = check_plans(plans, root=root, verify_evidence=not no_verify, strict=strict, limits=limits,
                          max_spread=whole(max_spread), fixes=fmt in reporters.SHOWS_FIXES)
    ordered = checked.diagnostics
    cwd = reporters.working_folder()
    context = reporters.Context(list(checked.reports), cwd, reporters.base_folder(os.environ, cwd))
    echo_report(reporters.report(fmt, ordered, style, context))
    _append_step_summary(fmt, context, ordered)
    if fmt == "text":
        errors = sum(1 for d in ordered if d.severity == "error")
        warnings = len(ordered) - errors
        err(f"{plural(len(checked.plans), 'plan')}: {checked.ready} ready, {checked.blocked} blocked,"
            f" {checked.unreadable} unreadable ({plural(errors, 'error')}, {plural(warnings, 'warning')})")
    if checked.unreadable:
        return EXIT_INPUT
    return EXIT_BLOCKED if checked.blocked else EXIT_READY


def _append_step_summary(fmt: str, context: Context, ordered: Sequence[Diagnostic]) -> None:
    """Under GitHub Actions (the github format), the whole report also goes to the job's summary
    page: GitHub shows only 10 error annotations of a step. Appended: other steps write there too."""
    from compiler.report import reporters

    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt != "github" or not path:
        return
    summary = reporters.step_summary(context.plans, ordered, cwd=context.cwd, base=context.base)
    try:
        with open(path, "a", encoding="utf-8", errors="surrogateescape") as out:
            out.write(summary)
    except OSError as error:
        err(f"{path}: cannot append the step summary: {error.strerror or error}")
