"""`verify --junit FILE`: the receipts as JUnit XML, the test report that GitLab, Jenkins and
GitHub's JUnit report actions read.

One ``testsuite`` per wave (``name`` the plan and the wave), under one ``testsuites``; one
``testcase`` per item: ``classname`` its wave (``wave 2``), ``name`` its id, ``file`` the plan and
``line`` the item's line there (what GitLab and the GitHub actions link to), ``time`` its proof's
seconds. Each result is one kind of testcase (``CASES``):

- passed: a testcase alone; approved and cached say so, and why, in its ``system-out``, which
  Jenkins and GitLab show beside a passing test (a testcase has no ``properties`` in any schema).
- failed, timed-out, unapproved: a ``failure`` (``message`` the reason, ``type`` the result, its
  text the end of what the proof wrote, ``TAIL_BYTES`` of each stream); an earlier attempt that
  failed too (``--retries``) is a ``rerunFailure``, as Maven Surefire writes a test it ran again.
- skipped: ``skipped``, its ``message`` the reason.
- flaky: a passing testcase with a ``flakyFailure`` for each attempt that failed before one
  passed (Surefire's own format: ``message``, ``type``, a ``stackTrace`` that says how it ended,
  and that attempt's ``system-out`` and ``system-err``).

The counts of each suite and of the whole (``tests``, ``failures``, ``errors``, ``skipped``,
``time``) are those of its testcases; ``time`` is in seconds, to the millisecond, a suite's the
sum of its testcases' (their proofs' time, not the wave's: proofs of a wave run at once).

The XML is well formed whatever a proof printed: ElementTree escapes ``<``, ``&`` and ``]]>``; a
character XML 1.0 forbids (a control character, a lone surrogate, U+FFFE, U+FFFF) is written as a
visible escape, as every report shows plan text (compiler/core/display.py), and so are the
bidirectional controls. Validated in the tests against Maven Surefire's and Jenkins' published
schemas (tests/junit/README.md says which, and why ``file`` and ``line`` are taken out first).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree as ET

from compiler.core.display import escape, escape_lines
from compiler.report.receipts import attempt_passed, attempt_reason, stream_tail

# What XML 1.0 admits (its production Char) less what compiler.core.display already escapes.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(text: Any) -> str:
    """Text of many lines for the XML: line breaks kept, anything unsafe written as an escape."""
    return _NOT_XML.sub(_visible, escape_lines(str(text)))


def _line(text: Any) -> str:
    """A one-line value (an attribute): every unsafe character, a line break too, an escape."""
    return _NOT_XML.sub(_visible, escape(str(text)))


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _millis(seconds: Any) -> int:
    return round(seconds * 1000) if isinstance(seconds, (int, float)) and seconds > 0 else 0


def _seconds(millis: int) -> str:
    return f"{millis // 1000}.{millis % 1000:03d}"


def _output(attempt: dict[str, Any]) -> str:
    """The end of what one attempt wrote, each stream under a line naming it, and how its group ended."""
    parts = []
    for name in ("stdout", "stderr"):
        text, cut = stream_tail(attempt.get(name))
        if text:
            size = attempt[name].get("size")
            said = f" (its end: {size:,} bytes in all)" if cut and isinstance(size, int) else ""
            parts.append(f"--- {name}{said} ---\n{text}{'' if text.endswith(chr(10)) else chr(10)}")
    if attempt.get("leftovers"):
        parts.append(f"what it left running was ended ({attempt['leftovers']})\n")
    if attempt.get("survivors"):
        parts.append("a process of its group survived SIGKILL\n")
    return _text("".join(parts))


def _rerun(case: ET.Element, tag: str, attempt: dict[str, Any], number: int, of: int) -> None:
    """An attempt that failed, as Surefire writes one it ran again: ``rerunFailure`` or ``flakyFailure``."""
    how = attempt_reason(attempt)
    element = ET.SubElement(case, tag, message=_line(f"attempt {number} of {of}: {how}"),
                            type="timed-out" if attempt.get("timed_out") else "failed")
    ET.SubElement(element, "stackTrace").text = _line(how)
    for name, child in (("stdout", "system-out"), ("stderr", "system-err")):
        text, _ = stream_tail(attempt.get(name))
        if text:
            ET.SubElement(element, child).text = _text(text)


def _attempts(item: dict[str, Any]) -> list[dict[str, Any]]:
    found = item.get("attempts")
    return [a for a in found if isinstance(a, dict)] if isinstance(found, list) else []


def _passed(case: ET.Element, item: dict[str, Any]) -> None:
    pass


def _noted(case: ET.Element, item: dict[str, Any]) -> None:
    ET.SubElement(case, "system-out").text = _line(f"{item['result']}: {item.get('reason', '')}")


def _failure(case: ET.Element, item: dict[str, Any]) -> None:
    attempts = _attempts(item)
    failure = ET.SubElement(case, "failure", message=_line(item.get("reason", "")), type=item["result"])
    if attempts:
        failure.text = _output(attempts[-1])
    for number, attempt in enumerate(attempts[:-1], 1):
        _rerun(case, "rerunFailure", attempt, number, len(attempts))


def _skipped(case: ET.Element, item: dict[str, Any]) -> None:
    ET.SubElement(case, "skipped", message=_line(item.get("reason", "")))


def _flaky(case: ET.Element, item: dict[str, Any]) -> None:
    attempts = _attempts(item)
    for number, attempt in enumerate(attempts, 1):
        if not attempt_passed(attempt):
            _rerun(case, "flakyFailure", attempt, number, len(attempts))
    _noted(case, item)


# Each result, the testcase it makes (tests/report/test_junit.py: one for every result of the receipts).
CASES: dict[str, Callable[[ET.Element, dict[str, Any]], None]] = {
    "passed": _passed, "approved": _noted, "cached": _noted, "flaky": _flaky,
    "failed": _failure, "timed-out": _failure, "skipped": _skipped, "unapproved": _failure,
}


def _against(case: ET.Element, item: dict[str, Any]) -> None:
    """``--against REV``: what the proof did without the change, a line of ``system-out``."""
    against = item.get("against")
    if not isinstance(against, dict):
        return
    line = (f"against {against.get('rev')} ({str(against.get('commit') or '')[:12]}):"
            f" {against.get('result')}")
    out = case.find("system-out")
    if out is None:
        ET.SubElement(case, "system-out").text = _line(line)
    else:
        out.text = f"{out.text}\n{_line(line)}"


def _count(suite: ET.Element, items: list[dict[str, Any]], cases: list[ET.Element]) -> dict[str, int]:
    """A suite's counts, from its testcases (and its items' time, as each testcase shows it)."""
    counts = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases), "errors": 0,
              "skipped": sum(c.find("skipped") is not None for c in cases),
              "millis": sum(_millis(i.get("seconds")) for i in items)}
    for name in ("tests", "failures", "errors", "skipped"):
        suite.set(name, str(counts[name]))
    suite.set("time", _seconds(counts["millis"]))
    return counts


def junit_xml(document: dict[str, Any], *, plan_file: str | None) -> str:
    """The receipts ``document`` as JUnit XML (see the module's docstring). ``plan_file``: the
    plan as the readers of the report resolve it (relative to the repository's root, or the
    workspace), the ``file`` of every testcase; None leaves it out (a plan read from stdin)."""
    plan = plan_file if plan_file is not None else str(document.get("source", "-"))
    root = ET.Element("testsuites", name=_line(f"evidence-plan verify {plan}"))
    waves: dict[int, list[dict[str, Any]]] = {}
    for item in document.get("items", []):
        waves.setdefault(int(item["wave"]), []).append(item)
    totals = dict.fromkeys(("tests", "failures", "errors", "millis"), 0)
    for wave in sorted(waves):
        items = waves[wave]
        started = min((str(i["started"]) for i in items if i.get("started")), default=document.get("started"))
        suite = ET.SubElement(root, "testsuite", name=_line(f"{plan} wave {wave}"))
        if started:  # when the wave's first proof started (else the run), which Surefire's schema has
            suite.set("timestamp", _line(started))
        _properties(suite, plan, document)
        cases = [_testcase(suite, item, plan_file) for item in items]
        counts = _count(suite, items, cases)
        for name in totals:
            totals[name] += counts[name]
    for name in ("tests", "failures", "errors"):
        root.set(name, str(totals[name]))
    root.set("time", _seconds(totals["millis"]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _properties(suite: ET.Element, plan: str, document: dict[str, Any]) -> None:
    """What names the run: the plan, its items' digest, the commit and whether the tree was dirty."""
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="plan", value=_line(plan))
    for name in ("plan_digest", "revision", "commit", "dirty", "started"):
        value = document.get(name)
        if value is not None:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            ET.SubElement(properties, "property", name=name, value=_line(shown))


def _testcase(suite: ET.Element, item: dict[str, Any], plan_file: str | None) -> ET.Element:
    case = ET.SubElement(suite, "testcase", name=_line(item["id"]), classname=f"wave {item['wave']}",
                         time=_seconds(_millis(item.get("seconds"))))
    if plan_file is not None:
        case.set("file", _line(plan_file))
        if isinstance(item.get("line"), int):
            case.set("line", str(item["line"]))
    CASES[item["result"]](case, item)
    _against(case, item)
    return case
