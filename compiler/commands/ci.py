"""`evidence-plan ci github PLAN`: a GitHub Actions workflow that verifies the plan wave by wave,
each wave's items fanned out over a matrix of jobs (compiler/api/ci.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from compiler.api.chunks import MAX_JOBS
from compiler.api.ci import INSTALL, PYTHON, RUNS_ON, WORKFLOW
from compiler.api.ci import MAX_JOBS as DEFAULT_JOBS
from compiler.commands._options import evidence_options, limit_options

if TYPE_CHECKING:
    from compiler.load.limits import Limits


@click.group("ci")
def command() -> None:
    """Write the configuration of a CI system that verifies a plan: its waves as jobs, their items
    fanned out over parallel jobs. Only GitHub Actions so far.

    \b
    Examples:
      evidence-plan ci github plan.yaml
      evidence-plan ci github plan.yaml --check .github/workflows/evidence-plan.yml
    """


@command.command("github")
@click.argument("plan", metavar="PLAN")
@click.option("-o", "--output", metavar="FILE", default=None,
              help=f"Where to write the workflow; - is stdout (default: {WORKFLOW} at the top of the plan's git work "
                   "tree).")
@click.option("--max-jobs", "max_jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=DEFAULT_JOBS,
              show_default=True, metavar="N",
              help=f"The most jobs a wave's matrix makes (GitHub's limit: {MAX_JOBS}); a wave of fewer items makes one "
                   "job per item.")
@click.option("--receipts", metavar="FILE", default=None,
              help="Balance the chunks by the durations in these receipts (default: evidence-plan.verify.json beside "
                   "the plan, when it is there); an item without one counts as the median.")
@click.option("--install", metavar="COMMAND", default=INSTALL, show_default=True,
              help="The shell command that installs evidence-plan in each job, e.g. 'pip install -r "
                   "requirements-dev.txt' or 'pip install git+https://github.com/OWNER/evidence-plan@v0.1.0'.")
@click.option("--python", metavar="VERSION", default=PYTHON, show_default=True,
              help="The Python that actions/setup-python installs.")
@click.option("--runs-on", "runs_on", metavar="LABEL", default=RUNS_ON, show_default=True,
              help="The runner of every job.")
@click.option("--check", "check", metavar="WORKFLOW", default=None,
              help="Write nothing: exit 1 when the workflow at WORKFLOW no longer verifies every item of PLAN in its "
                   "wave, once (what the workflow's last job runs).")
@evidence_options
@limit_options
def github(plan: str, output: str | None, max_jobs: int, receipts: str | None, install: str, python: str,
           runs_on: str, check: str | None, root: str | None, no_verify: bool, limits: Limits) -> int:
    """Write a GitHub Actions workflow that verifies PLAN: one job per wave, each needing the one
    before, each a matrix of the wave's items split into at most --max-jobs chunks of about equal
    running time (by the durations of earlier receipts, as pytest-split does). Each chunk's job
    runs `verify PLAN ID... --receipts-from DIR`: its items alone, their dependencies counted as
    passed only by the earlier waves' receipts of this same plan; it uploads its receipts. A last
    job merges them (`verify --merge`: a JUnit file, the job summary) and fails when a proof
    failed, when a wave's job did not succeed, or when the workflow no longer matches the plan.
    The chunks are written into the file, so a job run again runs the same items. verify runs the
    plan's commands: keep the workflow on pull_request, never pull_request_target with secrets.

    PLAN is checked first as `check` checks it: a blocked plan writes nothing (exit 1). Exit 0
    written (or, with --check, the workflow matches), 1 blocked (or it does not match), 2 input
    error.

    \b
    Examples:
      evidence-plan ci github plan.yaml
      evidence-plan ci github plan.yaml --max-jobs 20 --receipts last-run/evidence-plan.verify.json
      evidence-plan ci github plan.yaml --install 'pip install -r requirements-dev.txt' -o -
      evidence-plan ci github plan.yaml --check .github/workflows/evidence-plan.yml
    """
    import os

    from compiler.api.ci import check_workflow, github_workflow
    from compiler.commands._output import err, show_diagnostics, write_output
    from compiler.core.display import escape
    from compiler.core.exits import EXIT_BLOCKED, EXIT_READY

    if check is not None:
        result, problems = check_workflow(plan, check, root=root, limits=limits, verify_evidence=not no_verify)
    else:
        made = github_workflow(plan, receipts=receipts, max_jobs=max_jobs, install=install, python=python,
                               runs_on=runs_on, root=root, limits=limits, verify_evidence=not no_verify)
        result, problems = made.result, []
    name = escape(result.document.name)
    if result.diagnostics:
        show_diagnostics(result.diagnostics)
    if result.status != "ready":
        err(f"{name}: blocked: {'nothing was checked' if check is not None else 'nothing was written'};"
            " fix the plan first")
        return EXIT_BLOCKED
    if check is not None:
        for problem in problems:
            err(f"{escape(check)}: {problem}")
        if problems:
            err(f"{escape(check)}: it no longer matches {name}: regenerate it (evidence-plan ci github)")
            return EXIT_BLOCKED
        err(f"{escape(check)}: it verifies every item of {name} in its wave")
        return EXIT_READY
    assert made.text is not None
    target = output if output is not None else os.path.join(made.top, WORKFLOW)
    code = write_output(target, made.text, inputs=[plan])
    if code == EXIT_READY:
        waves = len({c.wave for c in made.chunks})
        err(f"{name}: {waves} wave job{'' if waves == 1 else 's'}, {len(made.chunks)} chunk"
            f"{'' if len(made.chunks) == 1 else 's'} in all")
    return code
