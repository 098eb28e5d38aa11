"""`evidence-plan graph PLAN`: the plan's graph alone (compiler/render/picture.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from compiler.commands._options import evidence_options, limit_options, revision_option
from compiler.render.picture import FORMATS

if TYPE_CHECKING:
    from compiler.load.limits import Limits


@click.command("graph")
@click.argument("plan", metavar="PLAN")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="mermaid", show_default=True,
              help="mermaid: the Markdown page's flowchart; dot: Graphviz; svg: the HTML page's picture as one SVG "
                   "file; json: that picture's boxes (coordinates, ids) and edges (points).")
@click.option("--rev", metavar="REV", default=None, callback=revision_option,
              help="Read PLAN as it was at git revision REV (PLAN from the working folder: REV:./PLAN).")
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True, help="Where to write it; - is stdout.")
@evidence_options
@limit_options
def command(plan: str, fmt: str, rev: str | None, output: str, root: str | None, no_verify: bool,
            limits: Limits) -> int:
    """Print the graph of PLAN: a column (or rank) per wave, a box per item, an arrow from each
    dependency to the item that needs it; the critical path and the items in error marked. A
    very wide wave is one list box, and a blocked plan is ordered as far as its dependencies
    allow (the rest in one column).

    PLAN is a plan file or a compiled evidence-plan.json, - for standard input, or a plan of
    git history: --rev REV PLAN, or REV:path as for diff (a name that is both a file and a
    REV:path git has is refused; ./NAME is always the file). A plan of git history is read from
    the local repository only, and its evidence is not checked. Compiled as compile would,
    nothing written but the graph. Exit 0 (a blocked plan too: its picture shows why), 2 input
    error.

    \b
    Examples:
      evidence-plan graph plan.yaml                       # Mermaid, for a Markdown page
      evidence-plan graph plan.yaml --format dot | dot -Tpng -o plan.png
      evidence-plan graph plan.yaml --format svg -o plan.svg
      evidence-plan graph evidence-plan.json --format json | jq '.boxes[] | {id, x, y}'
      evidence-plan graph --rev main plan.yaml            # the plan as the main branch has it
    """
    from compiler.api.plans import read_document
    from compiler.commands._output import err, write_files
    from compiler.core.exits import EXIT_INPUT, EXIT_READY
    from compiler.render.picture import pieces

    document = read_document(plan, root=root, verify_evidence=not no_verify, limits=limits, rev=rev)
    if output == "-":
        for piece in pieces(document, fmt):
            click.echo(piece, nl=False)
        return EXIT_READY
    if not write_files({output: lambda: pieces(document, fmt)}, inputs=[plan]):
        return EXIT_INPUT
    err(f"wrote {output}")
    return EXIT_READY
