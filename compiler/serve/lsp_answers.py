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


FIX_ALL_TITLE = "Apply every safe fix (as evidence-plan fix)"


def code_actions(analysis: Analysis, version: int | None, encoding: Encoding,
                 params: types.CodeActionParams, *, lazy: bool = False) -> list[types.CodeAction]:
    """The fixes of the diagnostics at the range asked about, and a fix of the whole plan when it
    has a safe fix: what `evidence-plan fix` would write. ``analysis``: of the text the editor
    holds, at ``version``. With ``lazy`` (the client resolves an action's edit when it is chosen),
    the whole plan's fix comes without its edit, which ``fix_all`` makes: editors ask for code
    actions at every move of the cursor, and that edit costs `fix`'s compiles."""
    uri = params.text_document.uri
    # a kind the protocol names is an enum member (its str() is its name, not its value); another, a str
    only = [getattr(kind, "value", kind) for kind in params.context.only] if params.context.only else None
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
            title=fix.message if safe else f"{fix.message} [unsafe: only fix --unsafe-fixes applies it]",
            kind=types.CodeActionKind.QuickFix, diagnostics=shown, is_preferred=safe,
            edit=_edit(uri, version, analysis, [(edit_range(e), e.new_text) for e in fix.edits], encoding)))
    if any_safe and _wanted(only, FIX_ALL):
        if lazy:
            actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": uri, "version": version}))
        else:
            edit = fix_all(analysis, version, encoding, uri)
            if edit is not None:
                actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, edit=edit))
    return actions


def fix_all(analysis: Analysis, version: int | None, encoding: Encoding, uri: str) -> types.WorkspaceEdit | None:
    """The edit that makes of the plan's text what `evidence-plan fix` would write (one
    replacement, of what lies between what stays), or None when fix would write nothing."""
    fixed = fixed_text(analysis)
    return None if fixed is None else _edit(uri, version, analysis, [one_edit(analysis.text, fixed)], encoding)


# --- questions about places: answered from the newest analysis that could be read ------------------

_SYMBOL_KINDS = {"phase": types.SymbolKind.Namespace, "wave": types.SymbolKind.Namespace,
                 "item": types.SymbolKind.Object}
_COMPLETION_KINDS = {"id": types.CompletionItemKind.Reference, "file": types.CompletionItemKind.File,
                     "folder": types.CompletionItemKind.Folder, "symbol": types.CompletionItemKind.Function,
                     "field": types.CompletionItemKind.Property, "word": types.CompletionItemKind.EnumMember}


def hover(analysis: Analysis, encoding: Encoding, position: types.Position) -> types.Hover | None:
    from compiler.api.editor_hover import hover as hover_at

    found = hover_at(analysis, *library_place(analysis.lines, position, encoding))
    if found is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.markdown),
                       range=lsp_range(analysis.lines, found.range, encoding))


def definition(analysis: Analysis, encoding: Encoding, uri: str, position: types.Position) -> list[types.Location]:
    """Where the place leads: ranges in other files are whole lines (column 0 in every unit)."""
    from pygls.uris import from_fs_path

    from compiler.api.editor_places import definition as definition_at

    out = []
    for target in definition_at(analysis, *library_place(analysis.lines, position, encoding)):
        here = target.path == analysis.path
        target_uri = uri if here else from_fs_path(target.path)
        if target_uri is None:
            continue
        at = lsp_range(analysis.lines, target.range, encoding) if here else types.Range(
            start=types.Position(line=target.range.line, character=0),
            end=types.Position(line=target.range.end_line, character=0))
        out.append(types.Location(uri=target_uri, range=at))
    return out


def references(analysis: Analysis, encoding: Encoding, uri: str, params: types.ReferenceParams) -> list[types.Location]:
    from compiler.api.editor_places import references as references_at

    found = references_at(analysis, *library_place(analysis.lines, params.position, encoding),
                          params.context.include_declaration)
    return [types.Location(uri=uri, range=lsp_range(analysis.lines, at, encoding)) for at in found]


def prepare_rename(analysis: Analysis, encoding: Encoding, position: types.Position) -> types.Range | None:
    from compiler.api.editor_places import prepare_rename as prepare_at

    found = prepare_at(analysis, *library_place(analysis.lines, position, encoding))
    return None if found is None else lsp_range(analysis.lines, found, encoding)


def rename(analysis: Analysis, version: int | None, encoding: Encoding,
           params: types.RenameParams) -> types.WorkspaceEdit | None:
    """Every place that names the id, renamed; RenameRefused (a sentence) for a new id the plan cannot take."""
    from compiler.api.editor_places import rename as rename_at

    edits = rename_at(analysis, *library_place(analysis.lines, params.position, encoding), params.new_name)
    if not edits:
        return None
    return _edit(params.text_document.uri, version, analysis, [(e.range, e.new_text) for e in edits], encoding)


def outline(analysis: Analysis, encoding: Encoding) -> list[types.DocumentSymbol]:
    from compiler.api.editor_places import Symbol
    from compiler.api.editor_places import outline as outline_of

    def symbol(found: Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=found.name or "(no id)", detail=found.detail or None, kind=_SYMBOL_KINDS[found.kind],
            range=lsp_range(analysis.lines, found.range, encoding),
            selection_range=lsp_range(analysis.lines, found.selection_range, encoding),
            children=[symbol(child) for child in found.children] or None)

    return [symbol(found) for found in outline_of(analysis)]


def completion(text: str, path: str, good: Analysis | None, encoding: Encoding,
               position: types.Position) -> types.CompletionList:
    """Completion at a place of the editor's text as it is now (half-typed, most often), with the
    ids of the newest analysis that could be read; paths and symbols under the plan's root (the
    analysis's, else the git work tree or folder that holds the plan)."""
    import os

    from compiler.api.editor_completion import Completion, complete
    from compiler.load.read import detect_format
    from compiler.repo.listing import repository_root

    root = good.result.root if good is not None and good.result is not None else (
        repository_root(None, os.path.dirname(path)) if os.path.isdir(os.path.dirname(path)) else None)
    fmt = detect_format(path, text)
    lines = text.split("\n")
    line, column = library_place(lines, position, encoding)
    found = complete(text, line, column, fmt=fmt, root=root, good=good)

    def filtered_by(one: Completion) -> str:  # what the editor matches the typed text against, from the range's start
        at = lines[one.range.line][one.range.column:one.range.column + 1] if one.range.line < len(lines) else ""
        return one.new_text if at in ("'", '"') else one.label

    # Paths are offered one folder at a time, filtered by what is typed: the editor asks again as it grows.
    return types.CompletionList(is_incomplete=any(one.kind in ("file", "folder") for one in found), items=[
        types.CompletionItem(label=one.label, kind=_COMPLETION_KINDS[one.kind], detail=one.detail,
                             sort_text=f"{n:05d}", filter_text=filtered_by(one),
                             text_edit=types.TextEdit(range=lsp_range(lines, one.range, encoding),
                                                      new_text=one.new_text))
        for n, one in enumerate(found)])
