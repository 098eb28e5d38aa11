"""How commands print and write: people's lines on stderr (escaped), reports and data on stdout
(through compiler/core/cilog.py's guard), files written as a set (compiler/core/write.py), and a
failure to write reported, not raised."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import click

from compiler.core.diagnostics import Diagnostic, PlanInputError
from compiler.core.exits import EXIT_INPUT, EXIT_READY

if TYPE_CHECKING:
    from compiler.core.write import Content


def color() -> bool | None:
    return False if os.environ.get("NO_COLOR") else None  # None: click decides by the terminal


def style(text: str, severity: str) -> str:
    if os.environ.get("NO_COLOR"):
        return text
    return click.style(text, fg="red" if severity == "error" else "yellow", bold=True)


def err(text: str = "") -> None:
    """One line for people on stderr; whatever of the plan it holds is shown escaped."""
    from compiler.core.display import escape

    click.echo(escape(text), err=True, color=color())


def show_input_error(err: PlanInputError) -> None:
    from compiler.report.reporters import text

    click.echo(text([err.diagnostic], style), err=True, nl=False, color=color())


def show_diagnostics(diagnostics: Sequence[Diagnostic], limit: int | None = None) -> None:
    from compiler.report.reporters import text

    shown = diagnostics if limit is None else diagnostics[:limit]
    click.echo(text(shown, style), err=True, nl=False, color=color())
    if len(shown) < len(diagnostics):
        err(f"... and {len(diagnostics) - len(shown)} more")


def write_files(files: Mapping[str, Content], inputs: Sequence[str] = ()) -> bool:
    """Write files as a set (compiler/api/compile.py's write_files: pages through the CI-log
    guard, never over one of ``inputs``, what the command read, ``-`` standard input, under any
    name); a failure is reported, not raised."""
    from compiler.api.compile import write_files as write

    return reported(lambda: write(files, inputs))


def reported(write: Callable[[], None]) -> bool:
    """Run ``write``; a WriteError is reported (what, and the hint), and False returned."""
    from compiler.core.write import WriteError

    try:
        write()
    except WriteError as error:
        err(f"{error.path}: error: {error.message}")
        err(f"  hint: {error.hint}")
        return False
    return True


def echo_report(report: str) -> None:
    """A report to stdout: the tool's own workflow commands (``--format github``) as they are,
    anything else through the guard."""
    from compiler.core.cilog import Commands, echo_commands

    if isinstance(report, Commands):
        echo_commands(report)
    else:
        click.echo(report, nl=False, color=color())


def write_output(target: str, text: str, inputs: Sequence[str] = ()) -> int:
    """Data to stdout (``-``) or to a file (never one of ``inputs``); the exit code."""
    if target == "-":
        click.echo(text, nl=False)
        return EXIT_READY
    if not write_files({target: text}, inputs):
        return EXIT_INPUT
    err(f"wrote {target}")
    return EXIT_READY


def rewrite_plan(plan: str, text: str, original: str) -> bool:
    """Replace a plan file's text as the file it is, if it still holds ``original``, the text
    read (see compiler.core.write.rewrite)."""
    from compiler.core.write import rewrite

    return reported(lambda: rewrite(plan, text, original))


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
