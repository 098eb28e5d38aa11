"""`evidence-plan next PLAN`: the items that can be done now, each with its proof command."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from compiler.commands._options import evidence_options, limit_options
from compiler.core.exits import EXIT_BLOCKED, EXIT_READY

if TYPE_CHECKING:
    from compiler.api.next import Next
    from compiler.load.limits import Limits

# Widest change text shown on a line of the text format (the JSON has it whole).
CHANGE_WIDTH = 72


def _text(found: Next) -> None:
    from compiler.commands._output import plural, show_diagnostics
    from compiler.core.display import clip, escape
    from compiler.report.reporters import text

    name = escape(found.name)
    if found.status == "blocked":
        click.echo(text(found.diagnostics), nl=False)  # as `check` reports them
        errors = sum(1 for d in found.diagnostics if d.severity == "error")
        click.echo(f"{name}: blocked: {plural(errors, 'error')}: fix them first, then ask again", err=True)
        return
    if found.diagnostics:
        show_diagnostics(found.diagnostics)
    p = found.progress
    live = found.remaining + p["done"]
    dropped = f", {p['dropped']:,} dropped" if p["dropped"] else ""
    if not found.items:
        click.echo(f"all {plural(live, 'item')} done{dropped}" if live else
                   f"nothing to do: {plural(p['dropped'], 'item')} dropped")
        return
    width = max(len(n.status) for n in found.items)
    for n in found.items:
        change = f": {escape(clip(n.change, CHANGE_WIDTH))}" if n.change.strip() else ""
        click.echo(f"{n.status.ljust(width)}  wave {n.wave}  {escape(n.id)}{change}")
        click.echo(f"{' ' * width}  proof: {escape(n.proof)}")
    click.echo(f"{name}: {plural(len(found.items), 'next item')}; {p['done']:,} of {live:,} done{dropped}",
               err=True)


def _json(found: Next) -> None:
    from compiler.api.next import as_json
    from compiler.core.cilog import json_safe

    click.echo(json_safe(json.dumps(as_json(found), indent=2, ensure_ascii=False)))


# `next --format`: name -> how the answer is printed.
FORMATS: dict[str, Callable[[Next], None]] = {"text": _text, "json": _json}


@click.command("next")
@click.argument("plan", metavar="PLAN")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="text", show_default=True,
              help="text: each next item and its proof, for people; json: one object with stable keys, for "
                   "scripts and agents.")
@evidence_options
@limit_options
def command(plan: str, fmt: str, root: str | None, no_verify: bool, limits: Limits) -> int:
    """Print what can be done now: the items whose dependencies are all done and that are not
    done or dropped themselves, in wave order, each with its proof command. Items already
    started (status: doing) come first: finish what is started before starting more.

    PLAN is checked as `check` checks it: a blocked plan has no next item (its issues are shown,
    exit 1). Exit 0 with the next items; 0 too when every item is done or dropped ("all N items
    done"); 1 blocked; 2 input error. Warnings are shown, and do not block. Read-only.

    \b
    Examples:
      evidence-plan next plan.yaml
      evidence-plan next plan.yaml --format json | jq -r '.next[0].proof'
      evidence-plan next --no-verify-evidence plan.yaml
    """
    from compiler.api.next import plan_next

    found = plan_next(plan, root=root, verify_evidence=not no_verify, limits=limits)
    FORMATS[fmt](found)
    return EXIT_BLOCKED if found.status == "blocked" else EXIT_READY
