"""`evidence-plan where TEXT`: where a text occurs, each hit as ready-to-paste evidence."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click


def _json(rows: list[dict[str, Any]], text: str) -> None:
    from compiler.core.cilog import json_safe

    click.echo(json_safe(json.dumps(rows, indent=2, ensure_ascii=False)))


def _text(rows: list[dict[str, Any]], text: str) -> None:
    from compiler.api.edit import yaml_scalar
    from compiler.core.cilog import json_safe
    from compiler.core.display import escape

    # A double-quoted YAML scalar too; pasted, it is TEXT again (a "##[" in it written "##\u005b").
    contains = json_safe(json.dumps(text, ensure_ascii=False))
    # Each entry as a YAML scalar: pasted into a plan's evidence list, it reads back as itself.
    for row in rows:
        click.echo(escape(yaml_scalar(row["reference"])))
        if row["symbol"] is not None:
            click.echo(f"  {escape(yaml_scalar(row['symbol']['evidence']))}  # lines {row['symbol']['lines']}")
        click.echo(f"  {{path: {escape(yaml_scalar(str(row['path']), flow=True))}, lines: {row['contains']['lines']}, "
                   f"contains: {escape(contains)}}}")


# `where --format`: name -> how the hits (and the text searched) are printed.
FORMATS: dict[str, Callable[[list[dict[str, Any]], str], None]] = {"text": _text, "json": _json}


@click.command("where")
@click.argument("text", metavar="TEXT")
@click.option("--root", metavar="DIR", default=None,
              help="Repository root (default: the git work tree of the working folder, else that folder).")
@click.option("--in", "within", metavar="PATH", multiple=True,
              help="Search only this file or folder (repeatable); default: the whole repository.")
@click.option("--max", "max_hits", type=click.IntRange(min=1), default=200, show_default=True,
              help="Stop after this many hits.")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="text", show_default=True,
              help="text: each hit as evidence entries to paste; json: a list of objects, for agents.")
def command(text: str, root: str | None, within: tuple[str, ...], max_hits: int, fmt: str) -> int:
    """Find where TEXT occurs in the repository and print each hit as the evidence that would
    cite it: path:LINE, the enclosing definition as path::Symbol with its lines, and a contains
    form. Read-only. Exit 0 when found, 1 when not, 2 on an input error.

    \b
    Examples:
      evidence-plan where "def create_account"
      evidence-plan where "EMAIL_RE" --in src/app --format json
    """
    from compiler.api.where import rows, where

    found = where(text, root, within, max_hits)
    FORMATS[fmt](rows(found, text), text)
    if found.more:
        click.echo(f"stopped at {max_hits} hits (--max)", err=True)
    elif fmt == "text":
        click.echo(f"{len(found.hits)} hit{'' if len(found.hits) == 1 else 's'} in {found.files:,} files", err=True)
    return 0 if found.hits else 1
