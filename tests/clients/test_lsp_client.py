"""`evidence-plan lsp` driven by a real Language Server Protocol client over stdio: pytest-lsp's
``LanguageClient`` (pygls's own client), which starts ``python -m compiler lsp`` and speaks to it as
an editor does, with the capabilities VS Code declares, and checks every answer against them.

Positions on the wire are UTF-16 code units (the protocol's default): the helpers here count them
independently of compiler/serve/positions.py.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from support import REPO, run, sloppy_repository

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]  # each test starts a server process

SERVER = [sys.executable, "-m", "compiler", "lsp"]
WAIT = 20.0  # seconds a test waits for a notification before it fails (a loaded machine is slow, never this slow)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env={"PYTHONPATH": str(REPO)}))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> Any:
    registered = lsp_client.registered = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:  # VS Code's capabilities say it accepts them
        registered.extend(params.registrations)

    params = types.InitializeParams(capabilities=client_capabilities("visual-studio-code"),
                                    root_uri=tmp_path.as_uri(),
                                    workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="repo")])
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env={"PYTHONPATH": str(REPO)}))
async def utf8_client(lsp_client: LanguageClient, tmp_path: Path) -> Any:
    """A client that counts columns in UTF-8 bytes, and says so first (the server takes its first choice)."""
    capabilities = client_capabilities("visual-studio-code")
    capabilities.general = types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf8,
                                                                               types.PositionEncodingKind.Utf16])
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities,
                                                                       root_uri=tmp_path.as_uri()))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


# --- helpers: what an editor does with the answers --------------------------------------------------


def utf16_offset(text: str, position: types.Position) -> int:
    """The offset in ``text`` (code points) of a protocol position (line, UTF-16 units)."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[:position.line])
    units = 0
    for index, char in enumerate(lines[position.line] if position.line < len(lines) else ""):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(lines[position.line]) if position.line < len(lines) else len(text)


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """The text with the edits made, as an editor makes them (all at once, from the last one back)."""
    spans = sorted(((utf16_offset(text, e.range.start), utf16_offset(text, e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def position_of(text: str, needle: str, after: int = 0) -> types.Position:
    """The protocol position (UTF-16) of the first ``needle`` in ``text``, ``after`` characters into it."""
    offset = text.index(needle) + after
    line = text.count("\n", 0, offset)
    column_text = text[text.rfind("\n", 0, offset) + 1:offset]
    return types.Position(line=line, character=sum(2 if ord(c) > 0xFFFF else 1 for c in column_text))


async def opened(client: LanguageClient, path: Path, text: str | None = None) -> list[types.Diagnostic]:
    """Open a plan as an editor does, and the diagnostics the server publishes for it."""
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="yaml", version=1, text=path.read_text(encoding="utf-8") if text is None else text)))
    return await published(client, uri)


async def published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    while True:
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT)
        if uri in client.diagnostics:
            return list(client.diagnostics.pop(uri))


def changed(client: LanguageClient, path: Path, version: int, edits: list[tuple[types.Range, str]]) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
        content_changes=[types.TextDocumentContentChangePartial(range=r, text=t) for r, t in edits]))


def check_json(plan: Path) -> list[dict[str, Any]]:
    """What `evidence-plan check --format json` says of the file."""
    listed: list[dict[str, Any]] = json.loads(run("check", "--format", "json", str(plan)).stdout)
    return listed


def as_rows(found: list[types.Diagnostic]) -> list[tuple[str, int, int, str]]:
    return sorted((str(d.code), d.range.start.line + 1, d.range.start.character + 1,
                   d.message.split("\nhint: ")[0].rsplit(" [", 1)[0]) for d in found)


# --- diagnostics --------------------------------------------------------------------------------------


async def test_an_open_plan_gets_the_diagnostics_check_gives(client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    found = await opened(client, plan)
    expected = check_json(plan)
    assert as_rows(found) == sorted((d["code"], d["location"]["line"], d["location"]["column"], d["message"])
                                    for d in expected)
    by_code = {str(d.code): d for d in found}
    typo = by_code["EP301"]
    assert typo.severity == types.DiagnosticSeverity.Error
    assert typo.source == "evidence-plan"
    assert typo.message.endswith("[unknown-dependency]")  # no hint: the rule's name ends it
    hinted = by_code["EP306"]  # a hint: on its own line, after the message and the rule's name
    assert hinted.message.endswith(" [redundant-dependency]\nhint: remove it (evidence-plan fix does): the order stays"
                                   " the same")
    assert typo.code_description is not None
    assert typo.code_description.href == (REPO / "docs" / "codes" / "EP301.md").as_uri()
    assert typo.range == types.Range(start=types.Position(line=23, character=17),
                                     end=types.Position(line=23, character=30))
    severities = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
    assert sorted((str(d.code), d.severity) for d in found) == sorted((d["code"], severities[d["severity"]])
                                                                     for d in expected)
    assert {d["severity"] for d in expected} == {"error", "warning"}


async def test_an_edit_is_checked_again_from_the_editor_text_not_the_file(client: LanguageClient,
                                                                          tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    await opened(client, plan)
    at = position_of(text, "implementaton")
    changed(client, plan, 2, [(types.Range(start=at, end=types.Position(line=at.line, character=at.character + 13)),
                               "implementation")])
    found = await published(client, plan.as_uri())
    assert "EP301" not in {str(d.code) for d in found}
    assert plan.read_text(encoding="utf-8") == text  # the file on disk is untouched, and was not what was checked


async def test_a_save_right_after_an_edit_checks_once(client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    await opened(client, plan)
    at = position_of(text, "implementaton")
    changed(client, plan, 2, [(types.Range(start=at, end=at), "x")])
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(
        uri=plan.as_uri())))  # within the debounce: the save's check is the edit's
    await published(client, plan.as_uri())
    await asyncio.sleep(0.5)  # past the debounce: no second check comes
    assert plan.as_uri() not in client.diagnostics


async def test_columns_are_utf16_units_on_the_wire(client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    text = plan.read_text(encoding="utf-8").replace("change: Release it", "change: Release it 🚀🚀")
    text = text.replace("depends_on: [implementaton]", "depends_on: [implementaton]  # 🚀")
    text = text.replace("  - id: release", "  - id: rélease🚀")
    plan.write_text(text, encoding="utf-8")
    found = await opened(client, plan)
    dep = next(d for d in found if str(d.code) == "EP301")
    assert dep.range.start == position_of(text, "implementaton")
    assert dep.range.end == position_of(text, "implementaton", after=13)


async def test_a_cited_file_saved_or_changed_on_disk_checks_the_plans_citing_it_again(client: LanguageClient,
                                                                                      tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    def rows(found: list[types.Diagnostic]) -> set[tuple[str, int]]:
        return {(str(d.code), d.range.start.line + 1) for d in found}

    before = rows(await opened(client, plan))
    assert ("EP201", 14) in before  # implementation cites app/acounts.py:12, which does not exist
    assert [r.method for r in client.registered] == [  # type: ignore[attr-defined]
        types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    cited = tmp_path / "app" / "acounts.py"
    cited.write_text("".join(f"line = {n}\n" for n in range(20)), encoding="utf-8")  # made and saved in the editor
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=cited.as_uri())))
    assert before - rows(await published(client, plan.as_uri())) == {("EP201", 14)}
    cited.unlink()  # removed on disk: the editor's file watcher says so, in two notifications (a checkout's burst)
    for event in (types.FileEvent(uri=cited.as_uri(), type=types.FileChangeType.Deleted),
                  types.FileEvent(uri=(tmp_path / "README.md").as_uri(), type=types.FileChangeType.Changed)):
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))
    assert rows(await published(client, plan.as_uri())) == before
    await asyncio.sleep(0.5)  # the burst was checked once
    assert plan.as_uri() not in client.diagnostics


async def test_columns_are_in_the_units_the_client_chose(utf8_client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    text = plan.read_text(encoding="utf-8").replace("  - id: docs", "  - id: dócs").replace(
        "depends_on: [implementaton]", "depends_on: [dócs, implementaton]")
    found = await opened(utf8_client, plan, text)
    dep = next(d for d in found if str(d.code) == "EP301")
    line = text.split("\n")[dep.range.start.line].encode("utf-8")
    assert line[dep.range.start.character:dep.range.end.character] == b"implementaton"  # after ó, 2 bytes


# --- code actions -------------------------------------------------------------------------------------


async def test_code_actions_are_the_fixes_and_fix_all_writes_what_fix_writes(client: LanguageClient,
                                                                              tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    found = await opened(client, plan)
    everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(text.split("\n")),
                                                                                           character=0))
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=plan.as_uri()), range=everything,
        context=types.CodeActionContext(diagnostics=found)))
    assert actions is not None
    quick = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix]
    fixes = {d["code"]: d["fix"] for d in check_json(plan) if "fix" in d}
    assert sorted(str(a.diagnostics[0].code) for a in quick if a.diagnostics) == sorted(fixes)
    for action in quick:  # safe fixes preferred; the others say they are not, in their titles too
        fix = fixes[str(action.diagnostics[0].code)]
        assert action.is_preferred is (fix["applicability"] == "safe")
        assert action.title == fix["message"] + ("" if fix["applicability"] == "safe" else
                                                 " [unsafe: only fix --unsafe-fixes applies it]")
    assert {f["applicability"] for f in fixes.values()} == {"safe", "unsafe"}
    fix_all = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == "source.fixAll.evidence-plan"]
    # VS Code resolves an action's edit when it is chosen: offered without one, made on resolve
    assert len(fix_all) == 1 and fix_all[0].edit is None
    chosen = await client.code_action_resolve_async(fix_all[0])
    assert chosen.edit is not None and chosen.edit.document_changes
    edit = chosen.edit.document_changes[0]
    assert isinstance(edit, types.TextDocumentEdit) and edit.text_document.version == 1
    in_editor = apply_edits(text, list(edit.edits))  # type: ignore[arg-type]
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path, copy, ignore=shutil.ignore_patterns("copy", ".git"))
    assert run("fix", str(copy / "plan.yaml")).exit_code in (0, 1)
    assert in_editor == (copy / "plan.yaml").read_text(encoding="utf-8") != text
    # once the text changed, the action offered for the old one resolves to no edit
    changed(client, plan, 2, [(types.Range(start=types.Position(line=0, character=0),
                                           end=types.Position(line=0, character=0)), "# a comment\n")])
    await published(client, plan.as_uri())
    assert (await client.code_action_resolve_async(fix_all[0])).edit is None


# --- bad input ----------------------------------------------------------------------------------------


async def test_garbage_does_not_stop_the_server(client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    # not a plan: a half-typed one, then binary-looking text, then a huge line
    for n, text in enumerate(["items:\n  - id: [\n", "\x00\x01\ufffd: : :\n", "items: " + "[" * 5000 + "\n"], 1):
        if n == 1:
            found = await opened(client, plan, text)
        else:
            changed(client, plan, n, [(types.Range(start=types.Position(line=0, character=0),
                                                   end=types.Position(line=99, character=0)), text)])
            found = await published(client, plan.as_uri())
        assert found and all(d.severity == types.DiagnosticSeverity.Error for d in found)
    # positions nowhere near the text, and a document never opened
    for uri, line in ((plan.as_uri(), 10_000), ((tmp_path / "nope.plan.yaml").as_uri(), 0)):
        await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=99),
                              end=types.Position(line=line, character=999)),
            context=types.CodeActionContext(diagnostics=[])))
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=9999, character=0))
    changed(client, plan, 9, [(whole, (tmp_path / "plan.yaml").read_text(encoding="utf-8"))])
    assert await published(client, plan.as_uri())  # still checking


# --- places -------------------------------------------------------------------------------------------


def _at(plan: Path, position: types.Position) -> dict[str, Any]:
    return {"text_document": types.TextDocumentIdentifier(uri=plan.as_uri()), "position": position}


async def test_hover_on_evidence_shows_the_cited_lines_and_on_an_id_its_item(client: LanguageClient,
                                                                           tmp_path: Path) -> None:
    root = sloppy_repository(tmp_path)
    plan = root / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    await opened(client, plan)
    found = await client.text_document_hover_async(types.HoverParams(
        **_at(plan, position_of(text, "tests/test_accounts.py:4"))))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.kind == types.MarkupKind.Markdown
    cited = (root / "tests" / "test_accounts.py").read_text(encoding="utf-8").split("\n")[3]
    assert f"```python\n{cited}\n```" in found.contents.value
    assert found.range is not None and found.range.start == position_of(text, "tests/test_accounts.py:4")
    on_id = await client.text_document_hover_async(types.HoverParams(**_at(plan, position_of(text, "id: docs", 5))))
    assert on_id is not None and isinstance(on_id.contents, types.MarkupContent)
    assert "Document it" in on_id.contents.value and "implementation" in on_id.contents.value


async def test_definition_references_and_rename_of_an_item_id(client: LanguageClient, tmp_path: Path) -> None:
    root = sloppy_repository(tmp_path)
    plan = root / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    await opened(client, plan)
    # from a depends_on entry to the item; from evidence to the cited file and line
    to_item = await client.text_document_definition_async(types.DefinitionParams(
        **_at(plan, position_of(text, "depends_on: [contract, implementation]", 14))))
    assert isinstance(to_item, list) and [(d.uri, d.range.start) for d in to_item] == [
        (plan.as_uri(), position_of(text, "id: contract", 4))]
    to_file = await client.text_document_definition_async(types.DefinitionParams(
        **_at(plan, position_of(text, "tests/test_accounts.py:4"))))
    assert isinstance(to_file, list) and [(d.uri, d.range.start.line) for d in to_file] == [
        ((root / "tests" / "test_accounts.py").as_uri(), 3)]
    # every depends_on that names it, and the id itself
    found = await client.text_document_references_async(types.ReferenceParams(
        **_at(plan, position_of(text, "id: contract", 4)), context=types.ReferenceContext(include_declaration=True)))
    assert found is not None
    assert sorted((r.range.start.line, r.range.start.character) for r in found) == [
        (2, 8), (14, 17), (14, 27), (19, 17)]
    # renamed everywhere, in the text the editor holds, and the plan still compiles to the same graph
    edit = await client.text_document_rename_async(types.RenameParams(
        **_at(plan, position_of(text, "id: contract", 4)), new_name="spec"))
    assert edit is not None and edit.document_changes
    change = edit.document_changes[0]
    assert isinstance(change, types.TextDocumentEdit)
    renamed = apply_edits(text, list(change.edits))  # type: ignore[arg-type]
    assert renamed == text.replace("id: contract", "id: spec").replace("[contract, contract]", "[spec, spec]").replace(
        "[contract, implementation]", "[spec, implementation]")
    with pytest.raises(Exception, match="implementation"):  # an id another item has: refused, in a sentence
        await client.text_document_rename_async(types.RenameParams(
            **_at(plan, position_of(text, "id: contract", 4)), new_name="implementation"))


async def test_the_outline_lists_the_items(client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    await opened(client, plan)
    found = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=plan.as_uri())))
    assert found is not None
    # blocked, so in no waves: the items in their order, each selecting its id
    assert [(s.name, s.kind, s.selection_range.start.line) for s in found if isinstance(s, types.DocumentSymbol)] == [
        ("contract", types.SymbolKind.Object, 2), ("implementation", types.SymbolKind.Object, 11),
        ("docs", types.SymbolKind.Object, 16), ("release", types.SymbolKind.Object, 20)]


async def test_completion_of_an_id_and_a_symbol_in_half_typed_text(client: LanguageClient, tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    await opened(client, plan)
    # a new item typed at the end: the text no longer reads as a plan (the ids come from the last that did)
    typed = text + "  - id: audit\n    depends_on: [rel"
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=99, character=0))
    changed(client, plan, 2, [(whole, typed)])
    await published(client, plan.as_uri())
    end = position_of(typed, "[rel", 4)
    found = await client.text_document_completion_async(types.CompletionParams(**_at(plan, end)))
    assert isinstance(found, types.CompletionList)
    # every id the plan has (the editor filters them by what is typed), the range what is typed
    assert [(i.label, i.kind) for i in found.items] == [(ident, types.CompletionItemKind.Reference) for ident in
                                                         ("contract", "implementation", "docs", "release")]
    edit = found.items[3].text_edit
    assert isinstance(edit, types.TextEdit)
    assert apply_edits(typed, [edit]).endswith("depends_on: [release")
    # a symbol after :: (what `symbols` lists for the file)
    typed = text.replace("evidence: [README.md]\n    depends_on: [implementaton]",
                         "evidence: [app/accounts.py::]\n    depends_on: [implementaton]")
    changed(client, plan, 3, [(whole, typed)])
    await published(client, plan.as_uri())
    found = await client.text_document_completion_async(types.CompletionParams(
        **_at(plan, position_of(typed, "app/accounts.py::", 17))))
    assert isinstance(found, types.CompletionList)
    symbols = json.loads(run("symbols", "--format", "json", "--root", str(tmp_path),
                             str(tmp_path / "app" / "accounts.py")).stdout)
    assert [i.label for i in found.items] == [row["symbol"] for row in symbols] != []
    assert {i.kind for i in found.items} == {types.CompletionItemKind.Function}
