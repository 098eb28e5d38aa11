"""`evidence-plan explain CODE|NAME...`: the page of a diagnostic code (compiler/api/explain.py)."""

from __future__ import annotations

import click

from compiler.api.explain import FORMATS
from compiler.core.exits import EXIT_READY


def _codes(words: tuple[str, ...], every: bool) -> list[str]:
    """The codes the words name, in their order, each once; a usage error for a word that names
    none (with a did-you-mean), for no word without --all, and for words with --all."""
    from compiler.api.explain import find, suggest
    from compiler.core.codes import CODES
    from compiler.core.display import clip, escape

    if every:
        if words:
            raise click.UsageError("give codes or --all, not both")
        return list(CODES)
    if not words:
        raise click.UsageError("give a code or a rule name (EP201, missing-file), or --all")
    codes: dict[str, None] = {}
    for word in words:
        code = find(word)
        if code is None:
            close = suggest(word)
            meant = f" (did you mean {close}?)" if close is not None else ""
            raise click.BadParameter(f"{escape(clip(word))} names no diagnostic code or rule{meant}; every code:"
                                     " evidence-plan explain --all", param_hint="CODE")
        codes.setdefault(code, None)
    return list(codes)


@click.command("explain")
@click.argument("words", nargs=-1, metavar="CODE|NAME...")
@click.option("--all", "every", is_flag=True, help="Every code, in the order of the codes table.")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="text", show_default=True,
              help="text: for a terminal, with one example; markdown: the page of docs/codes/, every example;"
                   " json: a list of objects (code, name, severity, summary, why, fix, examples, docs), for tools.")
def command(words: tuple[str, ...], every: bool, fmt: str) -> int:
    """Explain diagnostic codes: what each means, why it matters, how to fix it, and an example plan
    that triggers it with what `check` prints for it (a real run, from the test corpus). A code is
    named in any case (EP201, ep201) or by its rule name (missing-file). The page is the one of
    docs/codes/, made from the same source. Exit 0, or 2 for a word that names no code.

    \b
    Examples:
      evidence-plan explain EP201
      evidence-plan explain missing-file dependency-cycle
      evidence-plan explain --all --format json > codes.json
    """
    from compiler.api.explain import explain
    from compiler.core.cilog import json_safe
    from compiler.core.display import escape_lines

    page = explain(_codes(words, every), fmt)
    click.echo(json_safe(page) if fmt == "json" else escape_lines(page), nl=False)
    return EXIT_READY
