"""The answers of `evidence-plan lsp` to an editor's requests, as the protocol's types: the
library's answers (compiler/api/editor*.py, in code points) turned into lsprotocol's, every column
through compiler/serve/positions.py. compiler/serve/lsp.py registers them.
"""

from __future__ import annotations

from lsprotocol import types

from compiler.api.editor import Analysis, Range, diagnostic_range, edit_range, fixed_text, one_edit
from compiler.serve.lsp_wire import FIX_ALL, library_place, lsp_diagnostic, lsp_range
from compiler.serve.positions import Encoding


def _edit(uri: str, version: int | None, analysis: Analysis, edits: list[tuple[Range, str]],
          encoding: Encoding) -> types.WorkspaceEdit:
    """Edits of the open plan, for the version they were made of (a client refuses them for another)."""
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=[types.TextEdit(range=lsp_range(analysis.lines, at, encoding), new_text=text)
               for at, text in edits])])


def _wanted(only: list[str] | None, kind: str) -> bool:
    """Whether the client's ``only`` (kinds, or their parents: ``source`` covers ``source.fixAll``) admits ``kind``."""
    return only is None or any(kind == given or kind.startswith(f"{given}.") for given in only)


def code_actions(analysis: Analysis, version: int | None, encoding: Encoding,
                 params: types.CodeActionParams) -> list[types.CodeAction]:
    """The fixes of the diagnostics at the range asked about, and a fix of the whole plan when it
    has a safe fix: what `evidence-plan fix` would write. ``analysis``: of the text the editor
    holds, at ``version``."""
    uri = params.text_document.uri
    only = [str(kind) for kind in params.context.only] if params.context.only else None
    start = library_place(analysis.lines, params.range.start, encoding)
    end = library_place(analysis.lines, params.range.end, encoding)
    actions: list[types.CodeAction] = []
    any_safe = False
    for diagnostic in analysis.diagnostics:
        fix = diagnostic.fix
        if fix is None or not fix.edits:
            continue
        any_safe = any_safe or fix.applicability == "safe"
        at = diagnostic_range(analysis, diagnostic)
        if (at.end_line, at.end_column) < start or (at.line, at.column) > end:
            continue
        if not _wanted(only, types.CodeActionKind.QuickFix.value):
            continue
        shown = [lsp_diagnostic(analysis, diagnostic, encoding, uri)]
        if fix.applicability == "display-only":
            actions.append(types.CodeAction(
                title=fix.message, kind=types.CodeActionKind.QuickFix, diagnostics=shown,
                disabled=types.CodeActionDisabled(reason="shown only: evidence-plan fix never applies it")))
            continue
        safe = fix.applicability == "safe"
        actions.append(types.CodeAction(
            title=fix.message if safe else f"{fix.message} (a guess: evidence-plan fix --unsafe-fixes)",
            kind=types.CodeActionKind.QuickFix, diagnostics=shown, is_preferred=safe,
            edit=_edit(uri, version, analysis, [(edit_range(e), e.new_text) for e in fix.edits], encoding)))
    if any_safe and _wanted(only, FIX_ALL):
        fixed = fixed_text(analysis)
        if fixed is not None:
            actions.append(types.CodeAction(
                title="Apply every safe fix (as evidence-plan fix)", kind=FIX_ALL,
                edit=_edit(uri, version, analysis, [one_edit(analysis.text, fixed)], encoding)))
    return actions
