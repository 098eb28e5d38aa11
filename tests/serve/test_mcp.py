"""compiler/serve/mcp.py and `evidence-plan mcp`: the tools over the protocol, in-process (the
real client over stdio is tests/clients/test_mcp_client.py). Every outcome of a call is an
answer, a tool error or a protocol error, and the server answers every request it read, even
after its input ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import SLOPPY_PLAN, mcp_replies, mcp_session, run, sloppy_repository

from compiler.api.agent_tools import TOOLS
from compiler.api.workspace import Workspace
from compiler.serve.mcp import call, tool_list, tool_list_json

TOKEN_BUDGET = 3000  # tokens, at about 4 bytes each, for the whole tool list


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    root = sloppy_repository(tmp_path / "repo")
    monkeypatch.chdir(root)
    return Workspace.at(str(root))


def test_the_tool_list_is_small_and_says_which_tools_only_read() -> None:
    size = len(tool_list_json().encode("utf-8"))
    assert size / 4 < TOKEN_BUDGET, f"{size} bytes, about {size // 4} tokens"
    listed = json.loads(tool_list_json())
    assert [t["name"] for t in listed] == list(TOOLS)
    for tool in listed:
        assert tool["inputSchema"] == TOOLS[tool["name"]].input_schema
        assert tool["outputSchema"] == TOOLS[tool["name"]].output_schema
        read_only = tool["name"] != "fix_plan"
        assert tool["annotations"]["readOnlyHint"] is read_only and tool["annotations"]["openWorldHint"] is False
        if not read_only:
            assert tool["annotations"] == {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True,
                                           "openWorldHint": False}
    assert [t.name for t in tool_list()] == list(TOOLS)


def test_an_answer_is_structured_and_the_same_json_as_text(ws: Workspace) -> None:
    result = call(ws, "check_plan", {"path": "plan.yaml"})
    assert result.is_error is False
    assert result.structured_content == TOOLS["check_plan"].run(ws, path="plan.yaml")
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]


@pytest.mark.parametrize(("arguments", "said"), [
    ({"pth": "plan.yaml"}, "invalid arguments for check_plan: Additional properties are not allowed ('pth' was"
                           " unexpected)"),
    ({"path": 3}, "invalid arguments for check_plan: 3 is not of type 'string' (at path)"),
    ({"text": "x", "format": "toml"}, "invalid arguments for check_plan: 'toml' is not one of ['yaml', 'json'] (at"
                                      " format)"),
    ({"path": "../../etc/passwd"}, "../../etc/passwd is outside the root "),
])
def test_a_call_the_server_will_not_make_is_a_tool_error_that_says_why(ws: Workspace, arguments: dict[str, Any],
                                                                       said: str) -> None:
    result = call(ws, "check_plan", arguments)
    assert result.is_error is True and result.structured_content is None
    assert result.content[0].text.startswith(said)  # type: ignore[union-attr]


def test_a_plan_that_cannot_be_read_is_a_located_tool_error_but_for_check_plan(ws: Workspace) -> None:
    result = call(ws, "next_items", {"text": "items: [", "format": "yaml"})
    assert result.is_error is True
    assert result.content[0].text.startswith(  # type: ignore[union-attr]
        "<text>:1:9: error EP002 invalid YAML: expected the node content, but found '<stream end>'")
    assert " 1 | items: [\n" in result.content[0].text  # type: ignore[union-attr]
    assert call(ws, "check_plan", {"text": "items: [", "format": "yaml"}).structured_content["status"] == "unreadable"  # type: ignore[index]


def test_a_bug_is_a_tool_error_that_says_so_and_the_traceback_goes_to_stderr(
        ws: Workspace, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise KeyError("boom")

    monkeypatch.setitem(TOOLS, "explain", TOOLS["explain"]._replace(run=broken))
    result = call(ws, "explain", {"code": "EP201"})
    assert result.is_error is True
    assert result.content[0].text.startswith("internal error: KeyError: 'boom'. This is a bug in evidence-plan ")  # type: ignore[union-attr]
    assert "Traceback" in capsys.readouterr().err


def test_a_session_on_stdin_is_answered_whole_even_after_its_input_ends(ws: Workspace) -> None:
    """Requests written and the input closed at once: every one answered, in any order; a line
    that is no JSON-RPC skipped, a malformed request answered with a protocol error, and the
    server goes on; a plan's "##[" written as "##\\u005b" (no CI log reads a command in it)."""
    session = mcp_session([
        ("tools/list", {}),
        ("tools/call", {"name": "check_plan", "arguments": {"path": "plan.yaml"}}),
        "this line is not JSON",
        ("tools/call", {"arguments": {}}),  # no tool named
        ("tools/call", {"name": "no_such_tool", "arguments": {}}),
        ("tools/frobnicate", {}),
        ("resources/read", {"uri": "evidence-plan://plan-format"}),
        ("tools/call", {"name": "check_plan", "arguments": {"text": "items: [{id: '##[error]x'}]"}}),
        ("tools/call", {"name": "fix_plan", "arguments": {"text": SLOPPY_PLAN}}),
    ])
    result = run("mcp", "--root", ".", input=session)
    assert result.exit_code == 0, result.stderr
    assert "##[" not in result.stdout and "##\\u005berror]x" in result.stdout
    replies = mcp_replies(result.stdout)
    assert sorted(replies) == list(range(1, 10))  # 1 is initialize; every request after it, answered
    assert [t["name"] for t in replies[2]["result"]["tools"]] == list(TOOLS)
    assert replies[3]["result"]["structuredContent"]["errors"] == 4
    assert replies[4]["error"]["code"] == -32602
    assert replies[5]["error"] == {"code": -32602, "message": "unknown tool 'no_such_tool'; the tools are check_plan,"
                                   " fix_plan, next_items, diff_plans, find_evidence, explain"}
    assert replies[6]["error"]["code"] == -32601
    assert replies[7]["result"]["contents"][0]["text"].startswith("# The plan format\n")
    assert replies[8]["result"]["structuredContent"]["diagnostics"][0]["item"] == "##[error]x"
    assert replies[9]["result"]["structuredContent"]["errors"] == 3
    assert (Path(ws.root) / "plan.yaml").read_text(encoding="utf-8") == SLOPPY_PLAN


def test_a_root_that_is_not_a_folder_is_an_input_error(tmp_path: Path) -> None:
    result = run("mcp", "--root", str(tmp_path / "nowhere"), input="")
    assert result.exit_code == 2
    assert result.stderr == f"evidence-plan mcp: the root {tmp_path / 'nowhere'} is not a folder\n"


def test_every_client_configuration_of_the_guide_starts_this_server(tmp_path: Path) -> None:
    """The JSON snippets of docs/guide/agents.md: each starts `evidence-plan mcp` with arguments it
    takes (the root a client fills in, a real folder here), and serves."""
    import re

    from support import docs_page

    blocks = re.findall(r"^```json\n(.*?)^```", docs_page("guide/agents.md"), re.S | re.M)
    assert len(blocks) == 4
    for block in blocks:
        config = json.loads(block)
        (server,) = (config.get("mcpServers") or config["servers"]).values()
        assert server["command"] == "evidence-plan" and server["args"][0] == "mcp"
        args = [str(tmp_path) if a in ("${workspaceFolder}", "/path/to/your/repository") else a
                for a in server["args"]]
        session = mcp_session([("tools/call", {"name": "explain", "arguments": {"code": "EP201"}})])
        result = run(*args, input=session)
        assert result.exit_code == 0, (block, result.stderr)
        assert mcp_replies(result.stdout)[2]["result"]["structuredContent"]["code"] == "EP201"
