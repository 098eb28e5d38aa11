"""`evidence-plan lsp`: plans in the editor (Language Server Protocol, stdio)."""

from __future__ import annotations

import click

from compiler.commands._output import err
from compiler.core.exits import EXIT_INPUT, EXIT_READY


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Speak over standard input and output (the only transport, and the"
                                            " default; accepted because editors pass it).")
def command(stdio: bool) -> int:
    """Serve plan files to an editor over stdio (Language Server Protocol), until the client exits:
    the diagnostics `check` gives, as you type; hover on evidence (the cited lines) and on ids;
    go to definition, references and rename of item ids; completion of ids, repository paths,
    symbols, field names and choice words; the diagnostics' fixes as code actions; the outline.

    A plan file is any file `check DIR` would find (plan.yaml, NAME.plan.json ...) and any other
    YAML or JSON file the editor sends that has a plan's shape. Nothing runs a proof, and nothing
    is read outside a plan's repository root.

    Needs pygls 2.x, an optional extra: install evidence-plan with it (evidence-plan[lsp]), or
    pip install 'pygls>=2,<3' beside it. Exit 0 when the client exits, 2 when pygls is missing.
    docs/guide/editors.md configures VS Code, Neovim and Helix.

    \b
    Examples:
      evidence-plan lsp
      evidence-plan lsp --stdio    # as editors that always pass --stdio start it
    """
    from compiler.api.workspace import Refused
    from compiler.serve import missing

    absent = missing("lsp")
    if absent is not None:
        err(absent)
        return EXIT_INPUT
    from compiler.serve.lsp_stdio import serve

    try:
        serve()
    except Refused as refused:
        err(f"evidence-plan lsp: {refused}")
        return EXIT_INPUT
    return EXIT_READY
