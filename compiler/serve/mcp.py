"""`evidence-plan mcp`: the tools and resources of compiler/api/agent_tools.py served over stdio,
on the official Python SDK (PyPI ``mcp``, 2.x). The only module that imports the SDK.

The SDK's low-level ``Server`` (``on_*`` handlers), not ``MCPServer``: MCPServer makes each tool's
schemas from a Python signature through pydantic (a title on every property, ``$defs``), which
would restate the schemas declared once in compiler/api/agent_tools.py, larger, in every agent's
context. Here the list is those schemas as they are, and every call is checked against its tool's
input schema before anything runs.

How each outcome reaches the client:

- an answer: ``structuredContent``, the tool's JSON object, and the same JSON as text (for clients
  that read only text);
- a call the server will not carry out (a path outside the root, arguments that do not fit the
  schema, a plan file that cannot be read): a tool error (``isError``), its text one sentence an
  agent can act on;
- a malformed request (an unknown tool or resource, params of the wrong shape): a JSON-RPC error,
  from the SDK or from here;
- a bug: a tool error that says so; the traceback goes to stderr, and the server keeps serving.

Tools run one at a time, in the order asked, in the thread that serves (the library is not made
for threads, and a call's work is bounded as every command's is); the answers come out in that
order. The working folder is the root, so that messages name files as the repository does.
"""

from __future__ import annotations

import gc
import io
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any, TextIO, cast

import anyio
import jsonschema
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from compiler.api.agent_tools import INSTRUCTIONS, RESOURCES, TOOLS, Tool
from compiler.api.workspace import Refused, Workspace
from compiler.core.cilog import Guard, json_safe
from compiler.core.diagnostics import PlanInputError
from compiler.core.version import __version__
from compiler.serve import SERVER_GC

_VALIDATORS = {name: jsonschema.Draft202012Validator(tool.input_schema) for name, tool in TOOLS.items()}


def tool_list() -> list[types.Tool]:
    """The tools as the client lists them."""
    return [types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema,
                       output_schema=tool.output_schema, annotations=_annotations(tool)) for tool in TOOLS.values()]


def tool_list_json() -> str:
    """The tool list as a client receives it: the ``tools`` of the ``tools/list`` result, as
    compact JSON. What every agent that connects pays for in its context, before any work
    (docs/guide/agents.md says how much; tests/clients/test_mcp_client.py measures what arrives)."""
    tools = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tool_list()]
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def markdown_table() -> str:
    """The tools as docs/guide/agents.md lists them, and what their list costs an agent
    (tests/regenerate.py writes it there)."""
    size = len(tool_list_json().encode("utf-8"))
    rows = ["| tool | reads or writes | what it answers |", "|---|---|---|"]
    for tool in TOOLS.values():
        access = "reads" if tool.read_only else "writes only with `write`"
        rows.append(f"| `{tool.name}` | {access} | {tool.description} |")
    rows += ["", f"The tool list, as a client receives it (the `tools` of `tools/list`, compact JSON), is"
                 f" {size:,} bytes: about {size // 4:,} tokens at 4 bytes a token."]
    return "\n".join(rows) + "\n"


def _annotations(tool: Tool) -> types.ToolAnnotations:
    if tool.read_only:
        return types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    # fix_plan: writes the plan file, when told to; the same call again changes nothing more.
    return types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                 open_world_hint=False)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _invalid(name: str, arguments: dict[str, Any]) -> str | None:
    """Why ``arguments`` do not fit the tool's input schema, in one sentence, or None."""
    error = jsonschema.exceptions.best_match(_VALIDATORS[name].iter_errors(arguments))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"invalid arguments for {name}: {error.message}" + (f" (at {where})" if where else "")


def _input_error(error: PlanInputError) -> str:
    """A plan that cannot be read, as `check` reports it: located, with its excerpt and hint."""
    from compiler.report.reporters import text

    return text([error.diagnostic]).rstrip("\n")


def call(ws: Workspace, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """One call of a tool that exists, whatever its arguments: an answer or a tool error."""
    problem = _invalid(name, arguments)
    if problem is not None:
        return _error(problem)
    try:
        answer = TOOLS[name].run(ws, **arguments)
    except Refused as refused:
        return _error(str(refused))
    except PlanInputError as error:
        return _error(_input_error(error))
    except Exception as bug:  # noqa: BLE001 - the server's one place for bugs: said, and it keeps serving
        import traceback

        traceback.print_exc(file=sys.stderr)
        return _error(f"internal error: {type(bug).__name__}: {bug}. This is a bug in evidence-plan {__version__}:"
                      " please report it with the call that caused it")
    text = json.dumps(answer, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=answer)


def make_server(ws: Workspace) -> Server[Any]:
    """The server of the workspace's tools and resources."""
    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name!r}; the tools are "
                                                              + ", ".join(TOOLS))
        return call(ws, params.name, dict(params.arguments or {}))

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in RESOURCES.values()])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        resource = RESOURCES.get(str(params.uri))
        if resource is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown resource {str(params.uri)!r}; the resources"
                                                              " are " + ", ".join(RESOURCES))
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=resource.uri, mime_type=resource.mime_type, text=resource.read())])

    return Server("evidence-plan", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool, on_list_resources=list_resources, on_read_resource=read_resource)


class _Lines:
    """The protocol over the process's stdin and stdout, a JSON-RPC message a line, as the SDK's
    stdio transport reads and writes it (``readline``; ``write`` and ``flush``), with two things
    added:

    - every line written goes through ``json_safe`` (the same data, and no ``##[`` in its bytes),
      so that nothing a plan holds becomes a CI log's command wherever this output is shown (the
      CLI's guard, compiler/core/cilog.py, would change the strings the JSON carries);
    - at the end of the input, the requests read are answered before the server stops: a client
      that writes its requests and closes its end (``evidence-plan mcp < requests.jsonl``) gets
      every answer, where the SDK alone would cancel what is still running."""

    def __init__(self, incoming: TextIO, outgoing: TextIO) -> None:
        self._in, self._out = incoming, outgoing
        self._open: set[str | int] = set()  # the ids of the requests read and not answered yet
        self._written: list[str | int] = []  # the ids answered by what was written since the last flush
        self._answered = threading.Condition()

    def readline(self) -> str:
        line = self._in.readline()
        if line:
            ident = _request_id(line)
            if ident is not None:
                with self._answered:
                    self._open.add(ident)
            return line
        with self._answered:
            self._answered.wait_for(lambda: not self._open)
        return ""

    def write(self, text: str) -> int:
        self._out.write(json_safe(text))
        ident = _response_id(text)
        if ident is not None:
            self._written.append(ident)
        return len(text)

    def flush(self) -> None:
        self._out.flush()
        with self._answered:
            self._open.difference_update(self._written)
            self._written.clear()
            self._answered.notify_all()


def _request_id(line: str) -> str | int | None:
    """The id of the request a line holds, read as the SDK reads it (None: not a request, or not
    one the SDK reads: it answers none of those)."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return None
    return message.id if isinstance(message, types.JSONRPCRequest) else None


def _response_id(line: str) -> str | int | None:
    """The id of the request a line written answers (None: a notification, or a request of the server's)."""
    message = json.loads(line)
    if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
        ident = message.get("id")
        return ident if isinstance(ident, (str, int)) else None
    return None


@contextmanager
def _protocol() -> Iterator[_Lines]:
    """The process's stdin and stdout as the protocol's lines, in UTF-8 whatever the locale's
    encoding (stdout as it is under the CLI's guard). While the server runs, ``sys.stdout`` is
    stderr: a stray print of Python's cannot reach the protocol."""
    out, given = sys.stdout, sys.stdin
    if given is None:
        raise Refused("standard input is closed: the client speaks to the server there")
    stream = out.stream if isinstance(out, Guard) else out
    ours: list[io.TextIOWrapper] = []

    def utf8(text: TextIO, errors: str) -> TextIO:
        buffer = getattr(text, "buffer", None)
        if buffer is None:
            return text
        ours.append(io.TextIOWrapper(buffer, encoding="utf-8", errors=errors, newline="\n", write_through=True))
        return ours[-1]

    lines = _Lines(utf8(given, "replace"), utf8(stream, "strict"))
    sys.stdout = sys.stderr
    try:
        yield lines
    finally:
        sys.stdout = out
        for wrapper in ours:
            with suppress(OSError, ValueError):
                wrapper.flush()
            wrapper.detach()  # the process's own streams stay open


def serve(root: str) -> None:
    """Serve the tools over stdio until the client closes the connection. Refused when ``root``
    is not a folder."""
    ws = Workspace.at(root)
    server = make_server(ws)
    before = os.getcwd()
    with _protocol() as lines:
        # No process the server starts reads its stdin (git is given none), so the SDK need not
        # move file descriptor 0 aside; a print of Python's goes to stderr (``_protocol``).
        stream = anyio.wrap_file(cast("IO[str]", lines))

        async def run() -> None:
            async with stdio_server(stdin=stream, stdout=stream) as (read, write):
                await server.run(read, write, server.create_initialization_options())

        moved = os.path.realpath(before) != ws.root
        if moved:
            os.chdir(ws.root)
        # While it serves, Python's own thresholds of garbage collection (compiler/serve/__init__.py:
        # SERVER_GC), for the SDK's tasks and contexts made at every request.
        thresholds = gc.get_threshold()
        gc.set_threshold(*SERVER_GC)
        try:
            anyio.run(run)
        finally:
            gc.set_threshold(*thresholds)
            if moved:
                os.chdir(before)
