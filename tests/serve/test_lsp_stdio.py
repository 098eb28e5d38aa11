"""`evidence-plan lsp` as a process, fed bytes no client should send: a header that is not one, a
body that is not JSON, JSON that is not a message, a method it does not know, params of the wrong
shape, a plan that is not UTF-8. After each, it answers the next request: nothing stops it.
Without its SDK, either server says what to install.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO, lsp_messages, run, sloppy_repository

from compiler.serve import missing


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(ident: int | None, method: str, params: Any = None) -> bytes:
    found: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if ident is not None:
        found["id"] = ident
    if params is not None:
        found["params"] = params
    return frame(json.dumps(found).encode("utf-8"))


@pytest.mark.slow
def test_garbage_on_the_wire_is_answered_or_dropped_and_the_server_goes_on(tmp_path: Path) -> None:
    plan = sloppy_repository(tmp_path) / "plan.yaml"
    uri = plan.as_uri()
    hover = {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 9}}
    session = b"".join([
        message(1, "initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}),
        message(None, "initialized", {}),
        b"this is no header\r\n\r\n",  # no Content-Length: skipped
        frame(b"{not json"),  # a body that is not JSON
        frame(b"[1, 2, 3]"),  # JSON, not a message
        message(2, "textDocument/nonsense", {}),  # an unknown method: MethodNotFound
        message(3, "textDocument/hover", {"textDocument": 7}),  # params of the wrong shape
        message(None, "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                                "text": "items:\n  - id: \udcff\n"}}),
        message(None, "textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 2, "text": plan.read_text(encoding="utf-8")}}),
        message(4, "textDocument/hover", hover),
        message(5, "shutdown"),
        message(None, "exit"),
    ])
    done = subprocess.run([sys.executable, "-m", "compiler", "lsp"], input=session, capture_output=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120,
                          check=False)
    answers = {m["id"]: m for m in lsp_messages(done.stdout) if "id" in m and "method" not in m}
    assert sorted(answers) == [1, 2, 3, 4, 5], done.stderr[-3000:]
    assert answers[2]["error"]["code"] == -32601  # MethodNotFound
    assert "error" in answers[3]
    assert "tests/test_accounts.py" in answers[4]["result"]["contents"]["value"]  # still answering, from the plan
    assert answers[5]["result"] is None
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr, done.stderr[-3000:]
    published = [m["params"] for m in lsp_messages(done.stdout)
                 if m.get("method") == "textDocument/publishDiagnostics"]
    assert [p["version"] for p in published] == [1, 2]


@pytest.mark.parametrize(("command", "needs", "install", "old"), [
    ("mcp", "the MCP SDK 2.x", "pip install 'mcp>=2,<3'", "1.27.0"),
    ("lsp", "pygls 2.x", "pip install 'pygls>=2,<3'", "1.3.1"),
])
def test_without_its_sdk_a_server_says_what_to_install(command: str, needs: str, install: str, old: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    def absent(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    how = f"{install} (or install evidence-plan with its extra: evidence-plan[{command}])"
    monkeypatch.setattr(importlib.metadata, "version", absent)
    result = run(command)
    assert (result.exit_code, result.stderr) == (2, f"evidence-plan {command} needs {needs}, which is not"
                                                    f" installed: {how}\n")
    monkeypatch.setattr(importlib.metadata, "version", lambda name: old)
    assert missing(command) == f"evidence-plan {command} needs {needs}, and {old} is installed: {how}"
