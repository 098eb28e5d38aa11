"""`evidence-plan symbols PATH...`: what `path::Name` can resolve in each file, with its lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from compiler.repo.listing import Listing


def _json(listings: list[Listing]) -> None:
    from compiler.core.cilog import json_safe

    rows = [row for listing in listings for row in listing.rows()]
    click.echo(json_safe(json.dumps(rows, indent=2, ensure_ascii=False)))


def _text(listings: list[Listing]) -> None:
    from compiler.api.edit import yaml_scalar
    from compiler.core.display import escape

    for listing in listings:
        # Each entry as a YAML scalar: pasted into a plan's evidence list, it reads back as itself.
        entries = [escape(yaml_scalar(listing.evidence(s))) for s in listing.symbols]
        width = min(60, max(map(len, entries), default=0))
        for s, entry in zip(listing.symbols, entries, strict=True):
            where = f"line {s.first}" if s.first == s.last else f"lines {s.first}-{s.last}"
            click.echo(f"{entry.ljust(width)}  # {where}")


# `symbols --format`: name -> how the listings are printed.
FORMATS: dict[str, Callable[[list[Listing]], None]] = {"text": _text, "json": _json}


@click.command("symbols")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--root", metavar="DIR", default=None,
              help="Repository root the paths are cited from (default: the git work tree holding each file, "
                   "else its folder).")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="text", show_default=True,
              help="text: one ready-to-paste evidence entry per line; json: a list of objects, for agents.")
def command(paths: tuple[str, ...], root: str | None, fmt: str) -> int:
    """List the symbols of each file as evidence entries (path::Name) with the lines they resolve to,
    found exactly as `check` finds them: Python definitions (also in if/try/with blocks, overloads,
    re-exports, nested), TOML tables and keys, Markdown headings (each under its shortest unique
    name: a heading written twice is qualified by its parent's, 26.10.0.Output), and
    definition-looking lines of other files. Each line pastes into a plan's evidence list as it is
    (quoted where YAML needs it). Read-only. Exit 0, or 2 when a file cannot be read.

    \b
    Examples:
      evidence-plan symbols src/app/accounts.py
      evidence-plan symbols pyproject.toml README.md
      evidence-plan symbols --format json src/app/accounts.py | jq -r '.[].evidence'
    """
    from compiler.core.display import escape
    from compiler.repo.listing import list_symbols

    listings = [list_symbols(path, root) for path in paths]  # an unreadable file: exit 2 (the group)
    FORMATS[fmt](listings)
    for listing in listings:
        if listing.note is not None:
            click.echo(f"{escape(listing.path)}: note: {listing.note}", err=True)
        elif not listing.symbols:
            click.echo(f"{escape(listing.path)}: no symbols", err=True)
    return 0
