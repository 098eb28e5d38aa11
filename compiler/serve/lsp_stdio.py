"""`evidence-plan lsp`'s process: standard input and output as the protocol's byte streams, its
log a line a record on stderr, and the server of compiler/serve/lsp.py run over them."""

from __future__ import annotations

import gc
import logging
import sys
from typing import Any

from compiler.serve import SERVER_GC
from compiler.serve.lsp import make_server


class OneLine(logging.Formatter):
    """pygls's log, a line a record: what it could not read is the client's mistake, said by
    ``report_server_error`` in a sentence, not a traceback that reads as our crash (our own bugs'
    tracebacks are ``_guarded``'s)."""

    def formatException(self, ei: Any) -> str:
        return ""


class Framed:
    """Standard output as pygls writes the protocol to it, one framed message a write: each body
    made safe for a CI log that shows it (compiler/core/cilog.py ``json_safe``: the same data, no
    ``##[`` in its bytes), its length counted again; closing it only flushes (the process's own
    stream stays open)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        from compiler.core.cilog import json_safe

        header, blank, body = data.partition(b"\r\n\r\n")
        if blank and b"##[" in body:
            body = json_safe(body.decode("utf-8")).encode("utf-8")
            header = b"\r\n".join(b"Content-Length: %d" % len(body) if line.startswith(b"Content-Length:") else line
                                   for line in header.split(b"\r\n"))
        written: int = self._stream.write(header + blank + body)
        return written

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self._stream.flush()


def serve() -> None:
    """Serve over stdio until the client exits; Refused (compiler/api/workspace.py) when standard
    input or output is closed or not a byte stream. While it serves, ``sys.stdout`` is stderr (a
    stray print cannot reach the protocol) and Python's own garbage-collector thresholds apply."""
    said = logging.StreamHandler(sys.stderr)
    said.setFormatter(OneLine("evidence-plan lsp: %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[said])
    from compiler.api.workspace import Refused
    from compiler.core.cilog import Guard

    out, thresholds = sys.stdout, gc.get_threshold()
    stdin = getattr(sys.stdin, "buffer", None)
    raw = getattr(out.stream if isinstance(out, Guard) else out, "buffer", None)
    if stdin is None or raw is None:
        raise Refused("standard input and output must be open (the client speaks to the server there, in bytes)")
    stdout = Framed(raw)  # framed bytes, not a log's lines
    server = make_server()
    sys.stdout = sys.stderr
    gc.set_threshold(*SERVER_GC)
    try:
        server.start_io(stdin, stdout)  # type: ignore[arg-type]
    finally:
        sys.stdout = out
        gc.set_threshold(*thresholds)
