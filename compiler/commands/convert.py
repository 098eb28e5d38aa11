"""`evidence-plan convert IN OUT`: a plan between YAML and JSON, or rendered as Markdown, file in, file out."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from compiler.commands._options import evidence_options, limit_options
from compiler.commands._output import err, reported, show_diagnostics, write_output
from compiler.core.exits import EXIT_BLOCKED, EXIT_INPUT, EXIT_READY

if TYPE_CHECKING:
    from compiler.load.limits import Limits

from compiler.api.convert import EXTENSIONS, TARGETS


@click.command("convert")
@click.argument("source", metavar="IN")
@click.argument("target", metavar="OUT")
@click.option("--to", "to", type=click.Choice(TARGETS), default=None,
              help="Output format; needed when OUT is -, else taken from OUT's extension.")
@evidence_options
@limit_options
def command(source: str, target: str, to: str | None, root: str | None, no_verify: bool,
                    limits: Limits) -> int:
    """Convert a plan between YAML and JSON, or render it as Markdown, file in, file out.

    IN is .yaml, .yml or .json (a plan, or a compiled evidence-plan.json); - reads stdin.
    OUT is .yaml, .yml, .json or .md; - writes stdout (then give --to). Items are normalized;
    every item field is kept, so YAML -> JSON -> YAML gives the same plan, with the root: that
    OUT needs to find the same evidence. A plan whose items do not fit the format is not
    converted (exit 1); OUT may not be IN (use fix to edit a plan in place). Never touches the
    network.

    \b
    Examples:
      evidence-plan convert plan.yaml plan.json
      evidence-plan convert evidence-plan.json plan.yaml
      evidence-plan convert plan.yaml - --to md | less
      evidence-plan convert --no-verify-evidence plan.yaml /tmp/PLAN.md
    """
    from compiler.api.convert import convert, target_for

    kind = to or (None if target == "-" else target_for(target))
    if kind is None:
        raise click.UsageError(
            f"give --to {'|'.join(TARGETS)} when OUT is -" if target == "-"
            else f"cannot tell the format of {target!r}: use {', '.join(EXTENSIONS)}, or --to"
        )
    if to and target != "-" and target_for(target) not in (None, to):
        raise click.UsageError(f"--to {to} disagrees with the extension of {target!r}")
    if target != "-" and not reported(lambda: _check_targets([target], inputs=[source])):
        return EXIT_INPUT  # refused before converting: OUT is IN under some name, or may not be written
    out_dir = "." if target == "-" else os.path.dirname(target) or "."
    converted = convert(source, kind, out_dir, root=root, verify_evidence=not no_verify, limits=limits)
    if converted.text is None:
        show_diagnostics(converted.diagnostics)
        err(f"{converted.name}: not converted: fix the items above first")
        return EXIT_BLOCKED
    code = write_output(target, converted.text, inputs=[source])
    if code == EXIT_READY and converted.root_outside is not None:
        # Written anyway: it is where the evidence is, and OUT is the user's choice.
        err(f"{'<stdout>' if target == '-' else target}: warning: root: {converted.root_outside} leads outside"
             " the repository that holds it: compiled there, it is refused (EP208)")
        err("  hint: compile it with --root, or convert into the repository the evidence is in")
    return code


def _check_targets(paths: Sequence[str], inputs: Sequence[str]) -> None:
    from compiler.core.targets import check_targets

    check_targets(paths, inputs)
