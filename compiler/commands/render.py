"""`evidence-plan render EVIDENCE_PLAN_JSON`: the compiled plan as Markdown, or as the HTML page."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from compiler.commands._options import limit_options
from compiler.commands._output import err, write_files, write_output
from compiler.core.exits import EXIT_INPUT, EXIT_READY

if TYPE_CHECKING:
    from compiler.load.limits import Limits

@click.command("render")
@click.argument("compiled", metavar="EVIDENCE_PLAN_JSON")
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True,
              help="Where to write the Markdown (or the HTML); - is stdout.")
@click.option("--html", "html", is_flag=True, help="Write the HTML page (as compile --html does) instead of Markdown.")
@limit_options
def command(compiled: str, output: str, html: bool, limits: Limits) -> int:
    """Render a compiled evidence-plan.json as Markdown, or with --html as one self-contained
    HTML page (inline CSS and SVG, no script, nothing from the network). The JSON is the source
    of truth. When `verify` has written its receipts beside it (evidence-plan.verify.json), the
    page shows each item's last result.

    \b
    Examples:
      evidence-plan render evidence-plan.json > PLAN.md
      evidence-plan render build/evidence-plan.json -o docs/plan.md
      evidence-plan render evidence-plan.json --html -o evidence-plan.html
    """
    from compiler.api.compile import RECEIPTS
    from compiler.model.output_model import read_compiled
    from compiler.render.markdown import link_base, render_markdown

    document = read_compiled(compiled, limits)
    json_dir = "." if compiled == "-" else os.path.dirname(compiled) or "."
    verified = None
    receipts = os.path.join(json_dir, RECEIPTS)
    if compiled != "-" and os.path.exists(receipts):  # all that a folder without them costs
        from compiler.api.results import compiled_digest, last_verify

        verified, note = last_verify(receipts, document, lambda: compiled_digest(compiled, limits), limits)
        if note is not None:
            err(f"note: {note}")
    if html:
        from compiler.render.html import render_pieces as html_pieces

        if output == "-":
            for piece in html_pieces(document, verified=verified):
                click.echo(piece, nl=False)
            return EXIT_READY
        if not write_files({output: lambda: html_pieces(document, verified=verified)}, inputs=[compiled]):
            return EXIT_INPUT
        err(f"wrote {output}")
        return EXIT_READY
    md_dir = "." if output == "-" else os.path.dirname(output) or "."
    markdown = render_markdown(document, base=link_base(json_dir, md_dir, document["root"]), verified=verified)
    return write_output(output, markdown, inputs=[compiled])
