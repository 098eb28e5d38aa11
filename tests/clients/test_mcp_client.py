"""`evidence-plan mcp` driven by the official MCP SDK's own client, which spawns the real server
(``python -m compiler mcp --root ROOT``) and speaks to it over stdio, as an agent's host does:
every tool and resource, paths outside the root, malformed plans and requests, the hostile corpus,
1,000 calls in a row without memory growth, and an agent's bounded loop on a sloppy plan.

The client checks every structured answer against its tool's output schema (the SDK does, on
every call), so an answer that strays from its schema fails here too.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from support import REPO, SLOPPY_PLAN, git_commit, sloppy_repository

from compiler.api.agent_tools import RESOURCES, TOOLS
from compiler.api.workspace import Workspace
from compiler.serve.mcp import tool_list_json

pytestmark = pytest.mark.slow  # each test starts a server process and its SDK

TOKENS = 3000  # the bound on the tool list an agent receives, in tokens of about 4 bytes
# Growth of the server's resident memory over 1,000 calls, after 100 calls to warm it up (caches,
# lazy imports): 0.3 MB measured (5.6 MB before the server kept Python's thresholds of the garbage collector);
# a few kB a call, kept, would be megabytes.
GROWTH_MB = 2.0


class Raw(types.Request[dict[str, Any] | None, str]):
    """A request as a client may get it wrong: any method, any params."""

    method: str
    params: dict[str, Any] | None = None


def serve(root: Path, session: Callable[[Client], Awaitable[None]]) -> None:
    """Run ``session`` with the SDK's client connected to a server of ``root`` over stdio."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "compiler", "mcp", "--root", str(root)],
                                   cwd=str(REPO), env={"PYTHONPATH": str(REPO)})

    async def main() -> None:
        async with Client(params) as client:
            await session(client)

    anyio.run(main)


def answer(result: types.CallToolResult) -> dict[str, Any]:
    """A tool's answer: structured, and the same JSON as text."""
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == result.structured_content
    return result.structured_content


def refusal(result: types.CallToolResult) -> str:
    assert result.is_error is True and result.structured_content is None
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    return text.text


@pytest.fixture
def sloppy(tmp_path: Path) -> Path:
    root = sloppy_repository(tmp_path / "repo")
    (root / ".git").rmdir()
    return git_commit(root)


def library(root: Path, name: str, **arguments: Any) -> dict[str, Any]:
    """What the library answers for the same call (tests/api/test_agent.py holds it to the commands)."""
    here = os.getcwd()
    os.chdir(root)
    try:
        return TOOLS[name].run(Workspace.at(str(root)), **arguments)
    finally:
        os.chdir(here)


def test_every_tool_and_resource_over_stdio(sloppy: Path) -> None:
    (sloppy / "new.yaml").write_text(SLOPPY_PLAN.replace("Release it", "Release it, twice"), encoding="utf-8")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("check_plan", {"path": "plan.yaml"}),
        ("check_plan", {"text": SLOPPY_PLAN}),
        ("fix_plan", {"path": "plan.yaml"}),
        ("next_items", {"path": "new.yaml"}),
        ("diff_plans", {"old": {"path": "plan.yaml", "rev": "HEAD"}, "new": {"path": "new.yaml"}}),
        ("find_evidence", {"text": "def create_account", "paths": ["app/accounts.py"]}),
        ("explain", {"code": "missing-file"}),
    ]
    received: dict[str, Any] = {}

    async def session(client: Client) -> None:
        listed = await client.list_tools()
        received["tools"] = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]
        received["answers"] = [answer(await client.call_tool(name, arguments)) for name, arguments in calls]
        resources = await client.list_resources()
        received["resources"] = {str(r.uri): (await client.read_resource(str(r.uri))).contents[0]
                                 for r in resources.resources}

    serve(sloppy, session)
    tools = json.dumps(received["tools"], ensure_ascii=False, separators=(",", ":"))
    size = len(tools.encode("utf-8"))
    print(f"the tool list as the client received it: {size:,} bytes, about {size // 4:,} tokens")
    assert tools == tool_list_json() and size / 4 < TOKENS
    assert {t["name"]: t["annotations"]["readOnlyHint"] for t in received["tools"]} == {
        name: tool.read_only for name, tool in TOOLS.items()}
    for (name, arguments), got in zip(calls, received["answers"], strict=True):
        assert got == library(sloppy, name, **arguments), name
    assert received["answers"][0]["status"] == "blocked" and received["answers"][4]["revised"][0]["id"] == "release"
    assert (sloppy / "plan.yaml").read_text(encoding="utf-8") == SLOPPY_PLAN  # fix_plan wrote nothing
    for uri, contents in received["resources"].items():
        assert isinstance(contents, types.TextResourceContents)
        assert (contents.text, contents.mime_type) == (RESOURCES[uri].read(), RESOURCES[uri].mime_type)
    assert sorted(received["resources"]) == sorted(RESOURCES)


def test_paths_outside_the_root_are_tool_errors_and_the_server_goes_on(sloppy: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.yaml").write_text("items: []\n", encoding="utf-8")
    (sloppy / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("check_plan", {"path": "../secret.yaml"}),
        ("check_plan", {"path": str(tmp_path / "secret.yaml")}),
        ("check_plan", {"path": "link.yaml"}),
        ("fix_plan", {"path": "link.yaml", "write": True}),
        ("next_items", {"path": "/etc/passwd"}),
        ("diff_plans", {"old": {"path": "../secret.yaml", "rev": "HEAD"}, "new": {"path": "plan.yaml"}}),
        ("find_evidence", {"text": "items", "within": [str(tmp_path)]}),
        ("find_evidence", {"paths": ["../secret.yaml"]}),
    ]
    said: list[str] = []

    async def session(client: Client) -> None:
        said.extend([refusal(await client.call_tool(name, arguments)) for name, arguments in calls])
        said.append(answer(await client.call_tool("check_plan", {"path": "plan.yaml"}))["status"])

    serve(sloppy, session)
    root = os.path.realpath(sloppy)
    leads = f" (it leads to {os.path.realpath(tmp_path / 'secret.yaml')})"
    tail = f" is outside the root {root}"
    assert said == [
        f"../secret.yaml{tail}: this server reads and writes only under it; give a path relative to the root",
        f"{tmp_path / 'secret.yaml'}{tail}: this server reads and writes only under it; give a path relative to the"
        " root",
        f"link.yaml{tail}{leads}: this server reads and writes only under it; give a path relative to the root",
        f"link.yaml{tail}{leads}: this server reads and writes only under it; give a path relative to the root",
        f"/etc/passwd{tail}: this server reads and writes only under it; give a path relative to the root",
        f"../secret.yaml{tail}: this server reads only under it",
        f"{tmp_path}{tail}: this server reads and writes only under it; give a path relative to the root",
        f"../secret.yaml{tail}: this server reads and writes only under it; give a path relative to the root",
        "blocked",
    ]
    assert (tmp_path / "secret.yaml").read_text(encoding="utf-8") == "items: []\n"


def test_malformed_plans_and_requests(sloppy: Path) -> None:
    """A plan that is not one is an answer (unreadable, located) or a tool error; a request the
    protocol does not allow is a protocol error; the server answers the next call all the same."""
    requests = [Raw(method="tools/call", params={"arguments": {}}),  # no tool named
                Raw(method="tools/call", params={"name": "check_plan", "arguments": "plan.yaml"}),
                Raw(method="tools/call", params={"name": "no_such_tool", "arguments": {}}),
                Raw(method="tools/frobnicate", params={}),
                Raw(method="resources/read", params={"uri": "evidence-plan://nothing"})]
    got: dict[str, Any] = {}

    async def session(client: Client) -> None:
        got["unreadable"] = answer(await client.call_tool("check_plan", {"text": "items: [", "format": "yaml"}))
        got["not a plan"] = answer(await client.call_tool("check_plan", {"text": "[1, 2]"}))
        got["next"] = refusal(await client.call_tool("next_items", {"text": "{"}))
        got["arguments"] = refusal(await client.call_tool("fix_plan", {"path": "plan.yaml", "write": "yes"}))
        errors = []
        for request in requests:
            with pytest.raises(MCPError) as raised:
                await client.session.send_request(request, types.EmptyResult)
            errors.append((raised.value.error.code, raised.value.error.message))
        got["errors"] = errors
        got["after"] = answer(await client.call_tool("check_plan", {"path": "plan.yaml"}))["errors"]

    serve(sloppy, session)
    (unreadable,) = got["unreadable"]["diagnostics"]
    assert (got["unreadable"]["status"], unreadable["code"], unreadable["location"]) == (
        "unreadable", "EP002", {"file": "<text>", "line": 1, "column": 9})
    assert (got["not a plan"]["status"], got["not a plan"]["diagnostics"][0]["code"]) == ("unreadable", "EP004")
    assert got["next"].startswith("<text>:1:1: error EP002 invalid JSON: the { opened here is never closed\n 1 | {\n")
    assert got["arguments"] == "invalid arguments for fix_plan: 'yes' is not of type 'boolean' (at write)"
    assert got["errors"] == [
        (-32602, "Invalid request parameters"),
        (-32602, "Invalid request parameters"),
        (-32602, "unknown tool 'no_such_tool'; the tools are check_plan, fix_plan, next_items, diff_plans,"
                 " find_evidence, explain"),
        (-32601, "Method not found"),
        (-32602, "unknown resource 'evidence-plan://nothing'; the resources are evidence-plan://plan-format,"
                 " evidence-plan://schema/input, evidence-plan://schema/output"),
    ]
    assert got["after"] == 4


@pytest.mark.hostile
def test_the_server_answers_every_input_of_the_hostile_corpus_and_goes_on(tmp_path: Path) -> None:
    """Each hostile file as a path under the root and as text, checked and fixed: an answer or a
    tool error each time, never a protocol error, an internal error or a dead server."""
    corpus = sorted(p for p in (REPO / "tests" / "hostile").iterdir() if p.suffix in (".yaml", ".yml", ".json"))
    root = tmp_path / "root"
    root.mkdir()
    for path in corpus:
        (root / path.name).write_bytes(path.read_bytes())
    outcomes: dict[str, list[str]] = {}

    async def session(client: Client) -> None:
        for path in corpus:
            calls: list[tuple[str, dict[str, Any]]] = [("check_plan", {"path": path.name}),
                                                       ("fix_plan", {"path": path.name})]
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None and len(text) < 200_000:
                calls.append(("check_plan", {"text": text, "format": "json" if path.suffix == ".json" else "yaml"}))
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                shown = result.content[0].text if isinstance(result.content[0], types.TextContent) else ""
                assert "internal error" not in shown, (path.name, name, shown[:500])
                outcomes.setdefault(path.name, []).append("error" if result.is_error else "answer")
        outcomes["last"] = [answer(await client.call_tool("check_plan", {"text": SLOPPY_PLAN}))["status"]]

    serve(root, session)
    assert outcomes["last"] == ["blocked"]
    assert len(outcomes) == len(corpus) + 1
    assert all(outcome[0] == "answer" for name, outcome in outcomes.items() if name != "last")  # check_plan answers


def _server_pid() -> int:
    """The server: this process's child running ``compiler mcp``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text(encoding="utf-8")
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"compiler" in command and b"mcp" in command:
            return int(entry)
    raise AssertionError("no server process found")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.performance
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
def test_a_thousand_calls_in_a_row_do_not_grow_the_server(sloppy: Path) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("check_plan", {"path": "plan.yaml"}),
        ("check_plan", {"text": SLOPPY_PLAN}),
        ("fix_plan", {"text": SLOPPY_PLAN}),
        ("next_items", {"path": "plan.yaml"}),
        ("find_evidence", {"text": "create_account", "paths": ["app/accounts.py"]}),
        ("check_plan", {"path": "../outside.yaml"}),  # refused
    ]
    measured: list[float] = []

    async def session(client: Client) -> None:
        pid = _server_pid()
        for n in range(1100):
            if n == 100:
                measured.append(_rss_mb(pid))
            name, arguments = calls[n % len(calls)]
            await client.call_tool(name, arguments)
        measured.append(_rss_mb(pid))

    serve(sloppy, session)
    before, after = measured
    print(f"server memory: {before:.1f} MB after 100 calls, {after:.1f} MB after 1,000 more")
    assert after - before < GROWTH_MB


def test_an_agent_loop_on_a_sloppy_plan_ends_in_two_rounds_at_the_fewest_errors(sloppy: Path) -> None:
    """check, apply the safe fixes, check again, at most twice: as few errors as the safe repairs
    can reach (their fixed point, asked of the library), and what is left is for a person."""
    log: list[tuple[str, int]] = []

    async def session(client: Client) -> None:
        checked = answer(await client.call_tool("check_plan", {"path": "plan.yaml"}))
        log.append(("check", checked["errors"]))
        for _ in range(2):
            fixed = answer(await client.call_tool("fix_plan", {"path": "plan.yaml", "write": True}))
            log.append(("fix", len(fixed["applied"])))
            if not fixed["changed"]:
                break
            checked = answer(await client.call_tool("check_plan", {"path": "plan.yaml"}))
            log.append(("check", checked["errors"]))
        log.append(("left", len([d for d in checked["diagnostics"] if d["severity"] == "error"])))

    serve(sloppy, session)
    text = SLOPPY_PLAN
    while (fixed := library(sloppy, "fix_plan", text=text))["changed"]:
        text = fixed["text"]
    assert log == [("check", 4), ("fix", 4), ("check", fixed["errors"]), ("fix", 0), ("left", fixed["errors"])]
    assert (sloppy / "plan.yaml").read_text(encoding="utf-8") == text
