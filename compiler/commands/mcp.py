"""`evidence-plan mcp [--root DIR]`: serve the plan tools to a coding agent (Model Context Protocol, stdio)."""

from __future__ import annotations

import click

from compiler.commands._output import err
from compiler.core.exits import EXIT_INPUT, EXIT_READY


@click.command("mcp")
@click.option("--root", metavar="DIR", default=None,
              help="The only folder the server reads and writes; plan paths and evidence are relative to it "
                   "(default: the git work tree of the working folder, else that folder).")
def command(root: str | None) -> int:
    """Serve the plan tools to a coding agent over stdio (Model Context Protocol), until the client
    disconnects: check_plan, fix_plan, next_items, diff_plans, find_evidence and explain, and the
    plan format and its JSON Schemas as resources. Every tool but fix_plan only reads; fix_plan
    writes the plan file only when asked to. Nothing runs a proof; no path outside DIR is read or
    written (a tool error says so).

    Needs the MCP SDK 2.x, an optional extra: install evidence-plan with it (evidence-plan[mcp]), or
    pip install 'mcp>=2,<3' beside it. Exit 0 when the client disconnects, 2 when the SDK is missing
    or DIR is not a folder.

    \b
    Examples:
      evidence-plan mcp --root .
      claude mcp add evidence-plan -- evidence-plan mcp --root /path/to/repo
    """
    import os

    from compiler.api.workspace import Refused
    from compiler.repo.listing import repository_root
    from compiler.serve import missing

    absent = missing("mcp")
    if absent is not None:
        err(absent)
        return EXIT_INPUT
    from compiler.serve.mcp import serve

    try:
        serve(root if root is not None else repository_root(None, os.getcwd()))
    except Refused as refused:
        err(f"evidence-plan mcp: {refused}")
        return EXIT_INPUT
    return EXIT_READY
