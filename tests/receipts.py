"""Receipts of `verify` built by hand, as /work/notes' format "evidence-plan-verify/1" lays them
out (docs/reference/verify.md): for the tests of what reads them (the JUnit report, the step
summary, --merge) without running a proof."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

FORMAT = "evidence-plan-verify/1"
STARTED = "2026-12-02T10:00:00Z"
RESULTS = ("passed", "approved", "cached", "flaky", "failed", "timed-out", "skipped", "unapproved")
PASSING = ("passed", "approved", "cached", "flaky")


def stream(text: str = "", *, size: int | None = None, tail: str = "") -> dict[str, Any]:
    """A captured stream: ``text`` its head, ``tail`` what was kept of its end, ``size`` its bytes."""
    size = size if size is not None else len((text + tail).encode("utf-8", "surrogatepass"))
    return {"head": text, "tail": tail, "size": size, "cut": size > len((text + tail).encode("utf-8", "surrogatepass"))}


def attempt(exit_code: int | None = 0, *, out: str = "", err: str = "", seconds: float = 0.5,
            started: str = STARTED, timed_out: bool = False, signal: str | None = None) -> dict[str, Any]:
    return {"exit_code": exit_code, "signal": signal, "timed_out": timed_out, "leftovers": None, "survivors": False,
            "started": started, "seconds": seconds, "stdout": stream(out), "stderr": stream(err)}


def item(ident: str, result: str = "passed", *, wave: int = 1, line: int | None = 3, reason: str | None = None,
         attempts: list[dict[str, Any]] | None = None, started: str | None = STARTED,
         command: str = "true") -> dict[str, Any]:
    """One item's receipt; a result that runs nothing (approved, cached, skipped, unapproved) has no attempt."""
    ran = result in ("passed", "flaky", "failed", "timed-out")
    if attempts is None:
        attempts = [attempt(0 if result == "passed" else 1, started=started or STARTED)] if ran else []
    return {"id": ident, "wave": wave, "line": line, "command": command, "result": result,
            "reason": reason if reason is not None else ("it exited 0" if result == "passed" else f"it was {result}"),
            "cache_key": "k" * 64 if ran else None, "started": started if attempts else None,
            "seconds": sum(a["seconds"] for a in attempts), "attempts": attempts}


def document(items: list[dict[str, Any]], *, digest: str = "d" * 64, started: str = STARTED,
             source: str = "plan.yaml", commit: str | None = "c" * 40) -> dict[str, Any]:
    """The receipts file of a run that made ``items``."""
    counts = dict.fromkeys(RESULTS, 0)
    for one in items:
        counts[one["result"]] += 1
    return {"format": FORMAT, "source": source, "plan_digest": digest, "revision": None, "commit": commit,
            "dirty": False, "started": started,
            "status": "passed" if all(i["result"] in PASSING for i in items) else "failed",
            "interrupted": False, "counts": counts, "items": items,
            "cache": {i["id"]: {"key": i["cache_key"], "result": i["result"], "started": i["started"], "parts": {}}
                      for i in items if i["cache_key"]}}


# --- JUnit XML, held to the published schemas (tests/junit/README.md) ------------------------------


@cache
def _schemas() -> tuple[Any, Any]:
    import xmlschema

    folder = Path(__file__).resolve().parent / "junit"
    return (xmlschema.XMLSchema10(str(folder / "junit-10.xsd")),
            xmlschema.XMLSchema10(str(folder / "surefire-test-report.xsd")))


def valid_junit(xml: str) -> ET.Element:
    """The report parsed (it is well-formed XML 1.0), once it is valid: the whole against Jenkins'
    junit-10.xsd, each suite against Maven Surefire's schema, the testcases' ``file`` and ``line``
    taken off first (neither schema has them: tests/junit/README.md)."""
    root = ET.fromstring(xml.encode("utf-8"))
    stripped = copy.deepcopy(root)
    for case in stripped.iter("testcase"):
        case.attrib.pop("file", None)
        case.attrib.pop("line", None)
    jenkins, surefire = _schemas()
    jenkins.validate(stripped)
    for suite in stripped.findall("testsuite"):
        surefire.validate(suite)
    return root
