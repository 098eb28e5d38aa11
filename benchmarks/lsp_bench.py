"""`evidence-plan lsp` measured as an editor meets it: the real server process (``python -m compiler
lsp``, from the checkout) driven over stdio by pygls's own ``LanguageClient``, on the benchmark's
plan of ``items`` items in its own repository (run.py: ``small_repository``).

- **Diagnostics after an edit**: a one-character edit (a letter added to an item's id, which breaks
  every ``depends_on`` naming it; then taken away again) sent as ``didChange``, timed until the
  ``publishDiagnostics`` of that document version arrives. Each edit is sent ``SPACING`` after the
  one before was published (beyond the debounce, and the work the server does after publishing:
  the places hover and the rest look up), so each is checked alone, after the server's debounce
  (compiler/serve/lsp.py: ``DEBOUNCE``), which is part of the time an editor waits and so part of
  the figure. Its floor:
  the debounce plus the same analysis (compiler/api/editor.py: ``analyse``) of the same text in
  the benchmark's process, run after every tenth edit while the server idles. With ``save``, each
  edit is also saved (``didSave`` checks at once, without the debounce): the many edits of the
  memory test take seconds, not minutes.
- **Requests**: ``textDocument/hover`` on an evidence entry and ``textDocument/completion`` in a
  ``depends_on`` list, each in turn with the floor: a request for a method no server has, which the
  server answers at once with MethodNotFound (the protocol's round trip, and nothing else). A method
  the server answers with MethodNotFound is reported as not served.
- **Memory**: the server's resident set (``VmRSS``, /proc/PID/status) after ``warmup`` edits and
  again after ``edits`` more: the growth.

Run through run.py (``python benchmarks/run.py lsp``); the smoke tests run it small
(tests/clients/test_lsp_bench.py).
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from pathlib import Path
from typing import Any

LATENCY_TARGET = 0.150  # issue 26: diagnostics for a 200-item plan within 150 ms of an edit
REQUEST_TARGET = 0.050  # issue 26: hover and completion under 50 ms
GROWTH_TARGET_MB = 2.0  # "memory steady over 1,000 edits": as tests/clients/test_mcp_client.py's GROWTH_MB
PING = "evidence-plan/no-such-method"  # the floor of a request: answered MethodNotFound, no work done
SPACING = 0.1  # seconds from an edit's diagnostics to the next edit: beyond the debounce, as typing pauses
WAIT = 30.0  # seconds to wait for one answer before the bench gives up (a loaded machine is slow, never this slow)


def p90(values: list[float]) -> float:
    """The 90th percentile, nearest rank: a value that was measured."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/PID/status")


class Document:
    """The open plan as the client holds it, and the one-character edits made to it: edit ``n``
    adds ``x`` to the id of an item (even ``n``) and takes it away again (odd ``n``)."""

    def __init__(self, path: Path) -> None:
        self.uri = path.as_uri()
        self.text = path.read_text(encoding="utf-8")
        self.lines = self.text.split("\n")
        self.version = 1
        self.ids = [n for n, line in enumerate(self.lines) if line.startswith("  - id: ")]

    def edit(self, n: int) -> tuple[Any, str]:
        """The range (lsprotocol) and text of edit ``n``, made to ``self.text``."""
        from lsprotocol import types

        line = self.ids[(n // 2) * 7 % len(self.ids)]  # spread over the plan: 7 is prime to 200 and 20
        end = len(self.lines[line])
        if n % 2 == 0:
            at, new = types.Range(start=types.Position(line=line, character=end),
                                  end=types.Position(line=line, character=end)), "x"
            self.lines[line] += "x"
        else:
            at, new = types.Range(start=types.Position(line=line, character=end - 1),
                                  end=types.Position(line=line, character=end)), ""
            self.lines[line] = self.lines[line][:-1]
        self.text = "\n".join(self.lines)
        self.version += 1
        return at, new

    def place(self, prefix: str, after: str) -> tuple[int, int]:
        """(line, column) just after ``after`` in the first line from the middle of the plan on
        that starts with ``prefix`` (all ASCII: UTF-16 units are characters)."""
        middle = len(self.lines) // 2
        for n in (*range(middle, len(self.lines)), *range(middle)):
            line = self.lines[n]
            if line.startswith(prefix) and after in line:
                return n, line.index(after) + len(after)
        raise RuntimeError(f"no line starting {prefix!r} holds {after!r}")


async def session(command: list[str], cwd: Path, env: dict[str, str], plan: Path, *, warmup: int, edits: int,
                  requests: int, save: bool = False) -> dict[str, Any]:
    """Drive the server once: open the plan, ``warmup`` edits, memory, ``edits`` timed edits,
    memory, then ``requests`` rounds of hover, completion and the floor. Raw figures, in seconds."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcMethodNotFound
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("evidence-plan-benchmark", "1")
    published: dict[int, asyncio.Future[int]] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        waiting = published.get(params.version if params.version is not None else -1)
        if waiting is not None and not waiting.done():
            waiting.set_result(len(params.diagnostics))

    await client.start_io(*command, cwd=str(cwd), env=env)
    server = client._server  # pygls keeps the process it started here; its pid is the server's
    assert server is not None and server.stderr is not None
    log = bytearray()

    async def drain() -> None:  # the server's log (stderr): read, or a full pipe would stop it
        assert server is not None and server.stderr is not None
        while chunk := await server.stderr.read(65536):
            log.extend(chunk)
            del log[:-8192]

    draining = asyncio.create_task(drain())
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            completion=types.CompletionClientCapabilities()))
    result = await client.initialize_async(types.InitializeParams(
        capabilities=capabilities, root_uri=plan.parent.as_uri(), process_id=None))
    client.initialized(types.InitializedParams())
    doc = Document(plan)
    loop = asyncio.get_running_loop()

    async def check_of(version: int) -> int:
        """The diagnostics' count the server publishes for ``version``, once it does."""
        future = published[version]
        try:
            return await asyncio.wait_for(future, WAIT)
        except TimeoutError:
            raise RuntimeError(f"no diagnostics for version {version} in {WAIT:.0f} s; the server's log:\n"
                               + log.decode("utf-8", "replace")) from None
        finally:
            del published[version]

    published[doc.version] = loop.create_future()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=doc.uri, language_id="yaml", version=doc.version, text=doc.text)))
    found = [await check_of(doc.version)]

    async def edit(n: int) -> float:
        at, new = doc.edit(n)
        published[doc.version] = loop.create_future()
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
            content_changes=[types.TextDocumentContentChangePartial(range=at, text=new)]))
        if save:
            client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=doc.uri)))
        found.append(await check_of(doc.version))
        took = time.perf_counter() - start
        if not save:
            await asyncio.sleep(SPACING)
        return took

    for n in range(warmup):
        await edit(n)
    before = rss_mb(server.pid)
    latencies, floor, memory = [], [], [(0, before)]
    for n in range(edits):
        latencies.append(await edit(warmup + n))
        if n % 10 == 0:  # the floor, side by side: the same text analysed here, while the server idles
            floor.append(_analysis_seconds(plan, doc.text))
        if (n + 1) % 100 == 0:
            memory.append((n + 1, rss_mb(server.pid)))
    after = rss_mb(server.pid)

    answers: dict[str, int] = {}  # the size of each method's last answer: a hover's characters, completion's items

    async def request(method: str, line: int, column: int) -> float | None:
        """Seconds of one round trip, or None when the server does not serve ``method``."""
        position = types.TextDocumentPositionParams(text_document=types.TextDocumentIdentifier(uri=doc.uri),
                                                    position=types.Position(line=line, character=column))
        start = time.perf_counter()
        try:
            if method == types.TEXT_DOCUMENT_HOVER:
                hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
                    text_document=position.text_document, position=position.position)), WAIT)
                took = time.perf_counter() - start
                shown = hover.contents if hover is not None else ""
                answers[method] = len(shown.value if isinstance(shown, types.MarkupContent) else str(shown))
            elif method == types.TEXT_DOCUMENT_COMPLETION:
                listed = await asyncio.wait_for(client.text_document_completion_async(types.CompletionParams(
                    text_document=position.text_document, position=position.position)), WAIT)
                took = time.perf_counter() - start
                answers[method] = len(listed.items if isinstance(listed, types.CompletionList) else listed or [])
            else:
                await asyncio.wait_for(client.protocol.send_request_async(method, None), WAIT)
        except JsonRpcMethodNotFound:
            if method != PING:
                return None
            took = time.perf_counter() - start
        return took

    asked = {types.TEXT_DOCUMENT_HOVER: doc.place("      - src/", "- src/mod"),  # an evidence entry, on its path
             types.TEXT_DOCUMENT_COMPLETION: doc.place("    depends_on: [item-", "[item-"),  # an id begun
             PING: (0, 0)}
    times: dict[str, list[float] | None] = {method: [] for method in asked}
    for round_ in range(requests + 1):  # the first round warms each up, untimed
        for method, (line, column) in asked.items():
            took = await request(method, line, column)
            got = times[method]
            if took is None or got is None:
                times[method] = None
            elif round_:
                got.append(took)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.wait_for(client.stop(), WAIT)
    await draining
    served = {method: bool(getattr(result.capabilities, key, None))
              for method, key in ((types.TEXT_DOCUMENT_HOVER, "hover_provider"),
                                  (types.TEXT_DOCUMENT_COMPLETION, "completion_provider"))}
    return {"latencies": latencies, "diagnostics": found, "rss_before_mb": before, "rss_after_mb": after,
            "memory": memory, "requests": times, "answers": answers, "declared": served, "analyse": floor}


def _analysis_seconds(plan: Path, text: str) -> float:
    """The library's analysis of ``text`` as the plan's, in this process (compiler/api/editor.py)."""
    from compiler.api.editor import analyse

    start = time.perf_counter()
    analyse(str(plan), text)
    return time.perf_counter() - start


def summarise(raw: dict[str, Any], debounce: float) -> dict[str, Any]:
    """The figures run.py prints and saves, from one session's raw ones."""
    latencies = raw["latencies"]
    floor = statistics.median(raw["analyse"][1:] or raw["analyse"])  # the first warms this process's imports up
    out: dict[str, Any] = {
        "edits": len(latencies), "median": statistics.median(latencies), "p90": p90(latencies),
        "debounce": debounce, "analyse": floor,
        "diagnostics": sorted(set(raw["diagnostics"])),  # the counts published: 0 ready, more with an id broken
        "rss_before_mb": raw["rss_before_mb"], "rss_after_mb": raw["rss_after_mb"],
        "growth_mb": raw["rss_after_mb"] - raw["rss_before_mb"], "memory": raw["memory"]}
    out["over_floor"] = out["median"] / (debounce + floor)
    requests: dict[str, Any] = {}
    floor_times = raw["requests"][PING]
    for method, times in raw["requests"].items():
        if method == PING:
            continue
        if times is None:
            requests[method] = {"served": False, "declared": raw["declared"][method]}
            continue
        requests[method] = {"served": True, "declared": raw["declared"][method], "median": statistics.median(times),
                            "p90": p90(times), "over_floor": statistics.median(times) / statistics.median(floor_times),
                            "answer": raw["answers"][method]}
    out["requests"] = requests
    out["floor_request"] = statistics.median(floor_times)
    return out
