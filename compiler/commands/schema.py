"""`evidence-plan schema [input|output]`: the JSON Schema of a plan file, or of evidence-plan.json."""

from __future__ import annotations

import click

from compiler.core.exits import EXIT_READY
from compiler.model.json_schema import SCHEMAS


@click.command("schema")
@click.argument("kind", type=click.Choice(tuple(SCHEMAS)), default="input")
def command(kind: str) -> int:
    """Print the JSON Schema of a plan file (input) or of evidence-plan.json (output).

    \b
    Examples:
      evidence-plan schema > plan.schema.json      # for editor completion and validation
      evidence-plan schema output
    """
    from compiler.model.json_schema import committed

    click.echo(committed(kind), nl=False)
    return EXIT_READY
