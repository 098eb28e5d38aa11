"""`evidence-plan lsp`'s protocol (compiler/serve/lsp.py: ``_Protocol``): pygls 2.1 keeps the future
of every notification that a generator handles (its built-in didOpen, didChange and didClose, which
then call ours) in ``_request_futures`` for good, where a request's is taken out once answered: a
couple of kB a keystroke. The server takes each out once done; `benchmarks/run.py lsp` measures the
memory over 1,000 edits and tests/clients/test_lsp_bench.py holds it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install -e '.[lsp]'")
pytestmark = pytest.mark.slow  # importing pygls and lsprotocol costs about 0.4 s of CPU


def test_notifications_leave_no_future_behind(tmp_path: Path) -> None:
    from lsprotocol import types

    from compiler.serve.lsp import make_server

    server = make_server()
    protocol = server.protocol
    sent = io.BytesIO()
    protocol.set_writer(sent)
    protocol._handle_request(1, types.INITIALIZE, types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                                         root_uri=tmp_path.as_uri()))
    uri = (tmp_path / "notes.yaml").as_uri()
    for version in range(1, 4):
        protocol._handle_notification(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=version, text="a: 1\n")))
        protocol._handle_notification(types.TEXT_DOCUMENT_DID_CLOSE, types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
    assert sent.getvalue().count(b'"method": "textDocument/publishDiagnostics"') == 6  # each was handled
    assert protocol._request_futures == {}
