"""What crosses the wire of `evidence-plan lsp`: the library's places and diagnostics (code points,
compiler/api/editor.py) as lsprotocol's types in the client's units, and back. Imported by
compiler/serve/lsp.py and compiler/serve/lsp_answers.py, which speak the protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from compiler.api.editor import Analysis, Range, diagnostic_range
from compiler.core.codes import CODES
from compiler.core.diagnostics import Diagnostic
from compiler.serve.positions import Encoding, from_units, to_units

NAME = "evidence-plan"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{NAME}"


# --- positions ------------------------------------------------------------------------------------


def lsp_range(lines: Sequence[str], found: Range, encoding: Encoding) -> types.Range:
    """A library range (code points) in the client's units, of the text whose ``lines`` it is in."""
    def position(line: int, column: int) -> types.Position:
        text = lines[line] if 0 <= line < len(lines) else ""
        return types.Position(line=line, character=to_units(text, column, encoding))
    return types.Range(start=position(found.line, found.column), end=position(found.end_line, found.end_column))


def library_place(lines: Sequence[str], position: types.Position, encoding: Encoding) -> tuple[int, int]:
    """A client's position as (line, code-point column) of the text whose ``lines`` it is in."""
    text = lines[position.line] if 0 <= position.line < len(lines) else ""
    return position.line, from_units(text, position.character, encoding)


# --- diagnostics ----------------------------------------------------------------------------------

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def lsp_diagnostic(analysis: Analysis, diagnostic: Diagnostic, encoding: Encoding, uri: str) -> types.Diagnostic:
    """One diagnostic as the editor shows it: check's message (and hint), its code with the rule's
    name and a link to its page, at the range of what its location starts."""
    url = docs_link(diagnostic.code)
    related = []
    for note in diagnostic.notes:
        loc = note.location
        if loc is not None and loc.file == analysis.name and loc.line is not None:
            at = diagnostic_range(analysis, Diagnostic(diagnostic.code, note.message, location=loc))
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=lsp_range(analysis.lines, at, encoding)), message=note.message))
    name = CODES[diagnostic.code].name
    message = f"{diagnostic.message} [{name}]" + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    return types.Diagnostic(
        range=lsp_range(analysis.lines, diagnostic_range(analysis, diagnostic), encoding),
        message=message, severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code, code_description=types.CodeDescription(href=url) if url else None, source=NAME,
        related_information=related or None, data={"name": name})


def docs_link(code: str) -> str | None:
    """The code's page: on the documentation site where pyproject.toml declares one (as SARIF's
    ``helpUri``), else its Markdown file in a source checkout, else None."""
    from compiler.api.explain import docs_path, docs_url

    url = docs_url(code)
    if url is not None:
        return url
    page = Path(__file__).resolve().parents[2] / docs_path(code)  # compiler/serve/ -> the top
    return page.as_uri() if page.is_file() else None
