"""`evidence-plan diff OLD NEW`: what a revision did to a plan (compiler/analysis/revisions.py's model)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from compiler.commands._options import limit_options, revision_option
from compiler.commands._output import echo_report
from compiler.core.exits import EXIT_BLOCKED, EXIT_READY
from compiler.report.diff import FORMATS

if TYPE_CHECKING:
    from compiler.load.limits import Limits



@click.command("diff")
@click.argument("plans", nargs=-1, metavar="OLD NEW")
@click.option("--base", metavar="REV", default=None, callback=revision_option,
              help="Read OLD as it was at git revision REV (OLD from the working folder: REV:./OLD); OLD may be "
                   "left out, and is then NEW: --base origin/main plan.yaml is what a branch did to plan.yaml.")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="text", show_default=True,
              help="text: for people; json: one object with stable keys; markdown: for a pull-request comment or "
                   "$GITHUB_STEP_SUMMARY; github: ::notice annotations on NEW's changed items' lines.")
@click.option("--root", metavar="DIR", default=None,
              help="Also check both plans' evidence against this repository root (default: not checked).")
@limit_options
def command(plans: tuple[str, ...], base: str | None, fmt: str, root: str | None, limits: Limits) -> int:
    """Compare two plans by item id: items added, removed, revised (each field, old and new
    value) and renamed (same content under a new id), dependency edges added and removed, items
    that moved to another wave (direct: the item was revised; indirect: something it depends on
    changed), and the status with the issues NEW has that OLD had not.

    OLD and NEW are plan files or compiled evidence-plan.json files, in any mix; - reads one of
    them from standard input. --base REV reads OLD from git history, as it was at REV, and OLD
    may then be left out (NEW's path at REV): the form for a pull request, which no file can
    stand in for. Either may also be REV:path, read with git (path from the repository's top;
    REV:./path from the working folder) when no file has that name; a name that is both a file
    and a REV:path git has is refused (exit 2): ./NAME is always the file, and C:\\x a Windows
    path. git reads the local repository only: nothing is fetched. Evidence is not checked
    unless --root is given: the diff is about the plans, and an old revision's evidence would be
    judged against today's files. Exit 0 the same, 1 different (like diff), 2 input error.

    \b
    Examples:
      evidence-plan diff plan.yaml plan.new.yaml
      evidence-plan diff --base origin/main plan.yaml --format markdown >> "$GITHUB_STEP_SUMMARY"
      evidence-plan diff main:plans/plan.yaml plans/plan.yaml
      evidence-plan diff evidence-plan.json plan.yaml --format json | jq '.revised[].id'
    """
    from compiler.analysis.revisions import compare
    from compiler.api.plans import read_side

    if base is None and len(plans) != 2:
        raise click.UsageError(f"diff compares two plans, OLD and NEW; {len(plans)} given "
                               "(or --base REV NEW: NEW as it was at REV against NEW)")
    if base is not None and len(plans) not in (1, 2):
        raise click.UsageError(f"--base REV takes NEW, or OLD and NEW; {len(plans)} given")
    old, new = plans if len(plans) == 2 else (plans[0], plans[0])
    if base is not None and old == "-":
        raise click.UsageError("--base reads OLD from git history: it names a file's path, not - (standard input)")
    if old == "-" and new == "-":
        raise click.UsageError("only one of OLD and NEW can be - (standard input)")
    verify = root is not None
    before = read_side(old, root=root, verify_evidence=verify, limits=limits, rev=base)
    after = read_side(new, root=root, verify_evidence=verify, limits=limits)
    change = compare(before, after)
    echo_report(FORMATS[fmt](change, after))
    return EXIT_READY if change["same"] else EXIT_BLOCKED
