"""`evidence-plan lsp`: plans in the editor, over the Language Server Protocol (stdio), on pygls 2.x
and its lsprotocol types, which only this module, lsp_wire.py, lsp_answers.py and lsp_stdio.py
import. What it answers is compiler/api/editor.py and the modules beside it (no protocol there),
turned into the protocol's types: here the open plans, their checks and the registered features;
lsp_stdio.py runs the server over the process's streams.

- Each open plan is checked as `check` checks its file, from the text in the editor: on open at
  once, after an edit once the typing pauses (``DEBOUNCE``), on save, and when a file it cites
  (or any file under its root, which may now be cited or not) is saved or changes on disk.
- Questions about places (hover, definition, references, completion, rename, the outline) are
  answered from the newest analysis that could be read: a half-typed plan keeps the last good one.
- Code actions are the diagnostics' own fixes, with their applicability: safe ones preferred,
  unsafe ones said to be guesses, display-only ones shown disabled; "fix all" is exactly what
  `evidence-plan fix` would write.
- Every column crosses the boundary through compiler/serve/positions.py, in the position encoding
  agreed at initialize (UTF-16 unless the client offers another).

Nothing here runs a proof; nothing is read outside a plan's repository root (the library's rules,
the same as `check`'s); a bad message, a bad plan or a bug in a handler never stops the server (a
bug's traceback goes to stderr, the log every client keeps).
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification
from pygls.uris import from_fs_path, to_fs_path

from compiler.api.editor import Analysis, analyse, nodes
from compiler.core.display import clip
from compiler.core.version import __version__
from compiler.serve import lsp_answers as answers
from compiler.serve.lsp_wire import FIX_ALL, NAME, lsp_diagnostic
from compiler.serve.positions import ENCODINGS, Encoding

DEBOUNCE = 0.075  # seconds without an edit before a changed plan is checked again
TRIGGERS = ("/", ":", "[", ",", '"')  # characters after which an editor asks for completion unprompted

_F = TypeVar("_F", bound=Callable[..., Any])


class Open:
    """An open plan: the newest analysis of its text, and the newest that could be read."""

    __slots__ = ("good", "latest", "pending", "planned")

    def __init__(self) -> None:
        self.latest: Analysis | None = None
        self.good: Analysis | None = None
        self.pending: asyncio.TimerHandle | None = None
        self.planned: bool | None = None  # a file not named as a plan, once it read as one, stays one


IGNORED = f"$/{NAME}/ignored"  # what a message whose params do not fit its method becomes, once answered


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, but for two things. A message whose params do not fit its method is
    answered as JSON-RPC wants (a request: InvalidParams) or dropped (a notification), said in one
    line of the log; pygls would answer nothing and log a traceback. And without pygls 2.1's leak: a
    notification whose handler is a generator (the built-in didOpen, didChange and didClose, which
    then call ours) or a coroutine leaves its future in ``_request_futures`` for good, where only a
    request's is taken out once answered: about 2 kB a keystroke, 3 MB over 1,000 edits
    (benchmarks/run.py lsp). Each is taken out once done."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        method = data.get("method") if "jsonrpc" in data and "error" not in data else None
        kind = self.get_message_type(method) if isinstance(method, str) else None
        if kind is None or not isinstance(method, str):
            return super().structure_message(data)
        try:
            return self._converter.structure(data, kind)
        except Exception:  # noqa: BLE001 - cattrs' errors, of any kind: the params do not fit
            ident = data.get("id")
            _log(f"{clip(method)}: its params do not fit the method; " + ("answered InvalidParams" if ident is not None
                                                                       else "dropped"))
            if isinstance(ident, int | str):
                self._send_response(ident, error=types.ResponseError(
                    code=JsonRpcInvalidParams.CODE, message=f"the params do not fit {clip(method)}"))
            return JsonRPCNotification(method=IGNORED, jsonrpc="2.0", params=None)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        futures = self._request_futures
        before = set(futures)  # the requests in flight: a few at most
        super()._handle_notification(method_name, params)
        for key in futures.keys() - before:
            futures[key].add_done_callback(functools.partial(_forget, futures, key))  # at once when done


def _forget(futures: dict[Any, Any], key: Any, _done: Any) -> None:
    futures.pop(key, None)


class PlanServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=_Protocol)
        self.plans: dict[str, Open] = {}

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message that could not be read or answered: said in the client's log, never a pop-up."""
        _log(f"{type(error).__name__}: {error}")

    @property
    def encoding(self) -> Encoding:
        agreed = self.workspace.position_encoding  # an enum member (its str() is its name), or a str
        chosen = getattr(agreed, "value", agreed) or "utf-16"
        return next((known for known in ENCODINGS if known == chosen), "utf-16")


def _log(message: str) -> None:
    print(f"evidence-plan lsp: {message}", file=sys.stderr, flush=True)


def _guarded(fallback: Any) -> Callable[[_F], _F]:
    """A handler that cannot stop the server: a bug answers ``fallback`` and its traceback goes to stderr."""
    def wrap(handler: _F) -> _F:
        @functools.wraps(handler)  # pygls reads the handler's signature (does it take the server?)
        def guarded(*args: Any) -> Any:
            try:
                return handler(*args)
            except RequestFailed:
                raise
            except Exception:  # noqa: BLE001 - the server's one place for bugs: said, and it keeps serving
                _log(f"{handler.__name__} failed (a bug):\n{traceback.format_exc()}")
                return fallback
        return guarded  # type: ignore[return-value]
    return wrap


class RequestFailed(JsonRpcException):
    """A request the server will not carry out, in a sentence: the protocol's RequestFailed."""

    CODE = -32803


def publish(server: PlanServer, uri: str, analysis: Analysis | None, version: int | None) -> None:
    found = [] if analysis is None else [lsp_diagnostic(analysis, d, server.encoding, uri)
                                         for d in analysis.diagnostics]
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=found,
                                                                            version=version))


@_guarded(None)
def check(server: PlanServer, uri: str) -> None:
    """Check the open plan's text now, and publish what was found."""
    state = server.plans.get(uri)
    if state is None:
        return
    if state.pending is not None:  # a save or a file's change came before the typing's check: this one is it
        state.pending.cancel()
        state.pending = None
    path = to_fs_path(uri)
    if path is None:
        return
    document = server.workspace.get_text_document(uri)
    analysis = analyse(path, document.source, name=_name(path), planned=state.planned)
    if analysis is not None and analysis.readable and state.planned is None:
        state.planned = True
    state.latest = analysis
    if analysis is not None and analysis.readable:
        state.good = analysis
    publish(server, uri, analysis, document.version)
    if analysis is not None and analysis.readable:
        nodes(analysis)  # the places hover and the rest look up, made now (after publishing), not on the first question


def _name(path: str) -> str:
    """How messages name a plan: relative to the working folder when under it (as `check` run
    there names it), else its absolute path."""
    here = os.getcwd()
    relative = os.path.relpath(path, here)
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _current(ls: PlanServer, uri: str) -> tuple[Analysis, int | None] | None:
    """The newest analysis of the open plan, when it could be read and is of the text the
    editor holds now (edits made of another text would land in the wrong places), and the version."""
    state = ls.plans.get(uri)
    if state is None or state.latest is None or not state.latest.readable:
        return None
    document = ls.workspace.get_text_document(uri)
    if document.source != state.latest.text:
        return None
    return state.latest, document.version


def _resolves_edits(ls: PlanServer) -> bool:
    """Whether the client resolves a code action's edit once it is chosen."""
    text = ls.client_capabilities.text_document
    found = text.code_action if text is not None else None
    return bool(found and found.resolve_support and "edit" in found.resolve_support.properties)


def _good(ls: PlanServer, uri: str) -> Analysis | None:
    """The newest analysis of the open plan that could be read (a half-typed plan keeps the last)."""
    state = ls.plans.get(uri)
    return None if state is None else state.good


def schedule(server: PlanServer, uri: str, delay: float) -> None:
    state = server.plans.setdefault(uri, Open())
    if state.pending is not None:
        state.pending.cancel()
    state.pending = asyncio.get_running_loop().call_later(delay, check, server, uri)


def cited_by(analysis: Analysis | None, path: str) -> bool:
    """Whether a plan's check may change when the file at ``path`` (absolute) does: it lies under the
    plan's root (a file there may be cited, or be a test a proof names, or have become one)."""
    if analysis is None or analysis.result is None or os.path.abspath(path) == analysis.path:
        return False
    root = analysis.result.root
    return os.path.commonpath([root, os.path.abspath(path)]) == root


def files_changed(server: PlanServer, paths: Sequence[str]) -> None:
    """Check again every open plan whose check a change of these files may change, once the
    changes pause (a checkout or a build changes many files, in many notifications)."""
    for uri, state in server.plans.items():
        if any(cited_by(state.good, path) for path in paths):
            schedule(server, uri, DEBOUNCE)


# --- the server -----------------------------------------------------------------------------------


def make_server() -> PlanServer:
    """The server, with every feature registered."""
    server = PlanServer()

    @server.feature(IGNORED)
    def ignored(ls: PlanServer, params: None) -> None:
        """A message dropped in reading (``_Protocol``): nothing to do."""

    @server.feature(types.INITIALIZED)
    def initialized(ls: PlanServer, params: types.InitializedParams) -> None:
        watch = ls.client_capabilities.workspace
        dynamic = watch is not None and watch.did_change_watched_files is not None and bool(
            watch.did_change_watched_files.dynamic_registration)
        if dynamic:  # files changed on disk (a checkout, another editor) check the plans under them again
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/*")])
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id=f"{NAME}-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @_guarded(None)
    def did_open(ls: PlanServer, params: types.DidOpenTextDocumentParams) -> None:
        if to_fs_path(params.text_document.uri) is None:
            return
        ls.plans.setdefault(params.text_document.uri, Open())
        check(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @_guarded(None)
    def did_change(ls: PlanServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.plans:
            schedule(ls, params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @_guarded(None)
    def did_save(ls: PlanServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in ls.plans:
            check(ls, uri)
        path = to_fs_path(uri)
        if path is not None:
            files_changed(ls, [path])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @_guarded(None)
    def did_close(ls: PlanServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.plans.pop(params.text_document.uri, None)
        if state is not None:
            if state.pending is not None:
                state.pending.cancel()
            publish(ls, params.text_document.uri, None, None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guarded(None)
    def did_change_files(ls: PlanServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [path for change in params.changes if (path := to_fs_path(change.uri)) is not None]
        open_uris = set(ls.plans)
        files_changed(ls, [p for p in paths if from_fs_path(p) not in open_uris])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))
    @_guarded([])
    def code_action(ls: PlanServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        current = _current(ls, params.text_document.uri)
        return [] if current is None else answers.code_actions(*current, ls.encoding, params,
                                                               lazy=_resolves_edits(ls))

    @server.feature(types.CODE_ACTION_RESOLVE)
    @_guarded(None)
    def code_action_resolve(ls: PlanServer, action: types.CodeAction) -> types.CodeAction:
        """The whole plan's fix, its edit made now that it is chosen (for the text it was offered
        for: an action of an older text comes back without one)."""
        data = action.data if isinstance(action.data, dict) else {}
        uri, version = data.get("uri"), data.get("version")
        current = _current(ls, uri) if isinstance(uri, str) else None
        if action.kind == FIX_ALL and current is not None and current[1] == version and isinstance(uri, str):
            action.edit = answers.fix_all(*current, ls.encoding, uri)
        return action

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @_guarded(None)
    def hover(ls: PlanServer, params: types.HoverParams) -> types.Hover | None:
        good = _good(ls, params.text_document.uri)
        return None if good is None else answers.hover(good, ls.encoding, params.position)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @_guarded(None)
    def definition(ls: PlanServer, params: types.DefinitionParams) -> list[types.Location] | None:
        good = _good(ls, params.text_document.uri)
        return None if good is None else answers.definition(good, ls.encoding, params.text_document.uri,
                                                             params.position)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @_guarded(None)
    def references(ls: PlanServer, params: types.ReferenceParams) -> list[types.Location] | None:
        good = _good(ls, params.text_document.uri)
        return None if good is None else answers.references(good, ls.encoding, params.text_document.uri, params)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_guarded(None)
    def outline(ls: PlanServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        good = _good(ls, params.text_document.uri)
        return None if good is None else answers.outline(good, ls.encoding)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @_guarded(None)
    def prepare_rename(ls: PlanServer, params: types.PrepareRenameParams) -> types.Range | None:
        current = _current(ls, params.text_document.uri)
        return None if current is None else answers.prepare_rename(current[0], ls.encoding, params.position)

    @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    @_guarded(None)
    def rename(ls: PlanServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        from compiler.api.editor_places import RenameRefused

        current = _current(ls, params.text_document.uri)
        if current is None:
            raise RequestFailed("the plan does not read as a plan as it is now: rename once it does")
        try:
            return answers.rename(*current, ls.encoding, params)
        except RenameRefused as refused:
            raise RequestFailed(str(refused)) from None

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=list(TRIGGERS)))
    @_guarded(None)
    def completion(ls: PlanServer, params: types.CompletionParams) -> types.CompletionList | None:
        uri = params.text_document.uri
        state, path = ls.plans.get(uri), to_fs_path(uri)
        if state is None or path is None:
            return None
        return answers.completion(ls.workspace.get_text_document(uri).source, path, state.good, ls.encoding,
                                  params.position)

    return server
