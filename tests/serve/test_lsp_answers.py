"""compiler/serve/lsp_answers.py's code actions, on the library's analysis: each fix as the editor
offers it (safe ones preferred, unsafe ones said so, display-only ones disabled with why), the
client's ``only`` honoured, and nothing offered for a range no diagnostic touches."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from support import analysed, git_repo

from compiler.serve.lsp_answers import code_actions
from compiler.serve.lsp_wire import FIX_ALL

PLAN = """\
items:
  - id: a
    change: c
    evidence: &ev [app.py#L1-L2]
    proof: make test
  - id: b
    change: c
    evidence: *ev
    proof: make test
  - id: c
    change: c
    evidence: [app.py]
    depends_on: [a, a]
    proof: make test
"""


def asked(root: Path, line: int, only: list[str] | None = None) -> list[types.CodeAction]:
    analysis = analysed(root, PLAN)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=(root / "plan.yaml").as_uri()),
        range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=99)),
        context=types.CodeActionContext(diagnostics=[], only=only))
    return code_actions(analysis, 3, "utf-16", params)


def test_a_fix_through_an_alias_is_shown_disabled_and_a_safe_one_preferred(tmp_path: Path) -> None:
    root = git_repo(tmp_path, {"app.py": "one\ntwo\n"})
    aliased = asked(root, 3, [types.CodeActionKind.QuickFix])
    # a's, and b's through *ev: both at the anchor, neither with an edit
    assert [(a.is_preferred, a.edit, a.disabled) for a in aliased] == [(None, None, types.CodeActionDisabled(
        reason="shown only: evidence-plan fix never applies it"))] * 2
    repeated = asked(root, 12, [types.CodeActionKind.QuickFix])
    assert [(a.title, a.is_preferred) for a in repeated] == [("c: removed repeated dependency a", True)]
    assert repeated[0].edit is not None and repeated[0].edit.document_changes is not None
    change = repeated[0].edit.document_changes[0]
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 3
    assert [(e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in change.edits] == [
        (12, 18, 21, "")]


def test_only_the_kinds_the_client_asks_for(tmp_path: Path) -> None:
    root = git_repo(tmp_path, {"app.py": "one\ntwo\n"})
    assert [a.kind for a in asked(root, 12, [FIX_ALL])] == [FIX_ALL]  # the whole plan's safe fixes, at once
    assert [a.kind for a in asked(root, 12, ["source"])] == [FIX_ALL]  # a parent kind admits it
    assert [a.kind for a in asked(root, 12)] == [types.CodeActionKind.QuickFix, FIX_ALL]
    eager = asked(root, 12, [FIX_ALL])[0]  # for a client that does not resolve edits: made at once
    assert eager.edit is not None and eager.data is None
    assert asked(root, 1, [types.CodeActionKind.QuickFix]) == []  # no diagnostic there
