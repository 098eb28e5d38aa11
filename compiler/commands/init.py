"""`evidence-plan init`: a starter plan that cites real files of the repository, and the pre-commit
and CI snippets that check it (compiler/api/init.py)."""

from __future__ import annotations

import shlex

import click

from compiler.commands._output import err, reported
from compiler.core.exits import EXIT_INPUT, EXIT_READY


@click.command("init")
@click.option("--root", metavar="DIR", default=None,
              help="Repository root the plan cites from (default: the git work tree holding the working folder, "
                   "else that folder).")
@click.option("-o", "--output", "output", metavar="FILE", default=None,
              help="Where to write the plan (default: plan.yaml at the top of the root). Never written over: "
                   "exit 2 when it exists.")
def command(root: str | None, output: str | None) -> int:
    """Write a starter plan for a repository: two items (a test that states the behaviour, and the
    change after it) citing real files of it, found as check finds evidence: a test that pytest
    collects (its proof is that test), a source file's function or class, and a section of the
    README; with no test, the first item writes one. `check` finds it ready. Then print the
    pre-commit hook and the GitHub Actions workflow that check it (stdout). Reads the repository,
    writes only the plan, never over a file. Exit 0, or 2 when the plan's file exists or the
    root is no folder.

    \b
    Examples:
      evidence-plan init
      evidence-plan init --root ../service -o ../service/plans/first.plan.yaml
    """
    from compiler.api.init import PRE_COMMIT, Starter, ci_workflow, initialise

    if output == "-":
        raise click.BadParameter("init writes the plan to a file: give its name (stdout is for the snippets)",
                                 param_hint="-o")
    made: list[Starter] = []
    if not reported(lambda: made.append(initialise(root, output))):
        return EXIT_INPUT
    (starter,) = made
    found = starter.found
    cited = [e for e in (found.test.evidence if found.test else None, found.source, found.readme) if e is not None]
    err(f"wrote {starter.output}: a starter plan of 2 items, citing {', '.join(cited) or 'the repository folder'}")
    if found.test is None:
        err("  no test found: its first item writes one (in paths:), which its proof names")
    err(f"  next: edit its changes, then evidence-plan check {shlex.quote(starter.output)}")
    if not starter.hooked:
        err(f"  note: the pre-commit hooks find plans by name (plan.yaml, NAME.plan.yaml, .yml, .json): give"
            f" {starter.checked_as} to the hook's args")
    err("the pre-commit hook and the CI workflow that check it, to paste (docs/guide/pre-commit.md, docs/guide/ci.md):")
    click.echo(PRE_COMMIT + "\n" + ci_workflow(starter.checked_as), nl=False)
    return EXIT_READY
