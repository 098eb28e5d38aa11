"""`verify --junit`: the receipts as JUnit XML (compiler/report/junit.py), built from receipts
made by hand in the format of evidence-plan.verify.json, and validated against Maven Surefire's
and Jenkins' published schemas (tests/junit/README.md says why `file` and `line` are taken off
first)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest
from receipts import RESULTS, attempt, document, item, stream, valid_junit

from compiler.report import receipts as report_receipts
from compiler.report.junit import CASES, junit_xml


def _cases(root: ET.Element) -> dict[str, ET.Element]:
    return {case.get("name", ""): case for case in root.iter("testcase")}


def _children(case: ET.Element) -> list[str]:
    return [child.tag for child in case]


def test_every_result_of_the_receipts_makes_a_testcase() -> None:
    assert tuple(CASES) == tuple(report_receipts.RESULTS) == RESULTS  # the format, as docs/reference/verify.md says


def test_each_result_is_the_testcase_readers_know_and_the_report_is_valid() -> None:
    items = [item("ok", line=3), item("sign-off", "approved", reason="the plan records a current approval", line=7),
             item("same", "cached", reason="up to date: passed at 2026-12-01T09:00:00Z", line=11),
             item("bad", "failed", reason="it exited 3", attempts=[attempt(3, out="out\n", err="oops\n")], line=15),
             item("slow", "timed-out", reason="it ran past 60 s", attempts=[attempt(None, timed_out=True,
                                                                                     signal="SIGTERM")], line=19),
             item("gate", "unapproved", reason="its approval is stale", wave=2, line=23),
             item("after", "skipped", reason="depends on bad, which failed", wave=2, line=27)]
    root = valid_junit(junit_xml(document(items), plan_file="plans/plan.yaml"))
    cases = _cases(root)
    assert [(c.get("classname"), c.get("name"), c.get("file"), c.get("line")) for c in root.iter("testcase")] == [
        ("wave 1", "ok", "plans/plan.yaml", "3"), ("wave 1", "sign-off", "plans/plan.yaml", "7"),
        ("wave 1", "same", "plans/plan.yaml", "11"), ("wave 1", "bad", "plans/plan.yaml", "15"),
        ("wave 1", "slow", "plans/plan.yaml", "19"), ("wave 2", "gate", "plans/plan.yaml", "23"),
        ("wave 2", "after", "plans/plan.yaml", "27")]
    assert _children(cases["ok"]) == []
    assert cases["sign-off"].findtext("system-out") == "approved: the plan records a current approval"
    assert cases["same"].findtext("system-out") == "cached: up to date: passed at 2026-12-01T09:00:00Z"
    failure = cases["bad"].find("failure")
    assert failure is not None and failure.attrib == {"message": "it exited 3", "type": "failed"}
    assert failure.text == "--- stdout ---\nout\n--- stderr ---\noops\n"
    timed_out = cases["slow"].find("failure")
    assert timed_out is not None and timed_out.attrib == {"message": "it ran past 60 s", "type": "timed-out"}
    unapproved = cases["gate"].find("failure")
    assert unapproved is not None and unapproved.attrib == {"message": "its approval is stale", "type": "unapproved"}
    assert not unapproved.text
    skipped = cases["after"].find("skipped")
    assert skipped is not None and skipped.attrib == {"message": "depends on bad, which failed"}


def test_a_flaky_proof_passes_with_a_surefire_flaky_failure_for_each_attempt_that_failed() -> None:
    tries = [attempt(1, err="boom\n", seconds=1.25), attempt(None, timed_out=True, signal="SIGKILL", out="late\n"),
             attempt(0, out="fine\n", seconds=0.25)]
    root = valid_junit(junit_xml(document([item("shaky", "flaky", reason="passed on attempt 3 of 3",
                                                  attempts=tries)]), plan_file="plan.yaml"))
    case = _cases(root)["shaky"]
    assert _children(case) == ["flakyFailure", "flakyFailure", "system-out"]
    first, second = case.findall("flakyFailure")
    assert first.attrib == {"message": "attempt 1 of 3: it exited 1", "type": "failed"}
    assert [(c.tag, c.text) for c in first] == [("stackTrace", "it exited 1"), ("system-err", "boom\n")]
    assert second.attrib == {"message": "attempt 2 of 3: it ran past its timeout", "type": "timed-out"}
    assert [(c.tag, c.text) for c in second] == [("stackTrace", "it ran past its timeout"), ("system-out", "late\n")]
    assert case.findtext("system-out") == "flaky: passed on attempt 3 of 3"
    assert case.get("time") == "2.000"
    suite = root.find("testsuite")
    assert suite is not None and (suite.get("failures"), suite.get("tests")) == ("0", "1")  # it passed


def test_a_proof_that_failed_each_retry_has_its_earlier_attempts_as_rerun_failures() -> None:
    tries = [attempt(1, err="first\n"), attempt(2, err="second\n")]
    root = valid_junit(junit_xml(document([item("bad", "failed", reason="it exited 2", attempts=tries)]),
                                 plan_file="plan.yaml"))
    case = _cases(root)["bad"]
    assert _children(case) == ["failure", "rerunFailure"]
    assert case.findtext("failure") == "--- stderr ---\nsecond\n"  # the last attempt, which the reason is of
    rerun = case.find("rerunFailure")
    assert rerun is not None and rerun.get("message") == "attempt 1 of 2: it exited 1"
    assert rerun.findtext("system-err") == "first\n"


def test_the_counts_and_times_of_each_suite_and_of_the_whole_are_its_testcases() -> None:
    items = [item("a", attempts=[attempt(seconds=0.0004)]), item("b", "failed", attempts=[attempt(1, seconds=1.0006)]),
             item("c", "skipped"), item("d", "flaky", attempts=[attempt(1, seconds=0.1), attempt(0, seconds=0.2)]),
             item("e", "unapproved", wave=2), item("f", "cached", wave=2),
             item("g", "timed-out", wave=3, attempts=[attempt(None, timed_out=True, seconds=60)])]
    root = valid_junit(junit_xml(document(items), plan_file="plan.yaml"))
    suites = root.findall("testsuite")
    got = [{k: s.get(k) for k in ("name", "tests", "failures", "errors", "skipped", "time")} for s in suites]
    assert got == [
        {"name": "plan.yaml wave 1", "tests": "4", "failures": "1", "errors": "0", "skipped": "1", "time": "1.301"},
        {"name": "plan.yaml wave 2", "tests": "2", "failures": "1", "errors": "0", "skipped": "0", "time": "0.000"},
        {"name": "plan.yaml wave 3", "tests": "1", "failures": "1", "errors": "0", "skipped": "0", "time": "60.000"}]
    for suite in suites:
        cases = suite.findall("testcase")
        assert int(suite.get("tests", "")) == len(cases)
        assert int(suite.get("failures", "")) == sum(c.find("failure") is not None for c in cases)
        assert int(suite.get("skipped", "")) == sum(c.find("skipped") is not None for c in cases)
        assert _millis(suite.get("time")) == sum(_millis(c.get("time")) for c in cases)
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "time")} == {
        "tests": "7", "failures": "3", "errors": "0", "time": "61.301"}


def _millis(seconds: str | None) -> int:
    whole, _, part = (seconds or "").partition(".")
    return int(whole) * 1000 + int(part)


def test_the_suites_say_which_run_of_which_plan_they_are() -> None:
    root = valid_junit(junit_xml(document([item("a", started="2026-12-02T10:00:05Z")]), plan_file="p/plan.yaml"))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("timestamp") == "2026-12-02T10:00:05Z"
    assert {p.get("name"): p.get("value") for p in suite.iter("property")} == {
        "plan": "p/plan.yaml", "plan_digest": "d" * 64, "commit": "c" * 40, "dirty": "false",
        "started": "2026-12-02T10:00:00Z"}
    assert root.get("name") == "evidence-plan verify p/plan.yaml"


def test_a_plan_read_from_standard_input_has_no_file_to_link() -> None:
    root = valid_junit(junit_xml(document([item("a")], source="-"), plan_file=None))
    case = _cases(root)["a"]
    assert "file" not in case.attrib and "line" not in case.attrib


HOSTILE = ("<script>alert(1)</script> & ]]> <![CDATA[ x ]]> \x00\x07\x1b[31mred\x7f \ud800 \udc80 \ufffe \uffff "
           "\u202e evil \U0001f600 \r\n")


def test_whatever_a_proof_printed_the_report_is_well_formed_and_shows_it_escaped() -> None:
    tries = [attempt(1, out=HOSTILE, err="]]>"), attempt(1, out=HOSTILE)]
    items = [item("bad\x1b<&>", "failed", reason=f"it exited 1 {HOSTILE}", attempts=tries, command=HOSTILE),
             item("shaky", "flaky", attempts=[attempt(1, out=HOSTILE, err=HOSTILE), attempt(0)]),
             item("skip", "skipped", reason=HOSTILE)]
    xml = junit_xml(document(items), plan_file="plan\x1b<.yaml")
    assert "\x00" not in xml and "\ufffe" not in xml and "\ud800" not in xml and "\u202e" not in xml
    xml.encode("utf-8")  # no lone surrogate
    root = valid_junit(xml)
    failure = root.find(".//failure")
    assert failure is not None
    body = failure.text or ""
    assert "<script>alert(1)</script> & ]]> <![CDATA[ x ]]>" in body  # the text, not markup
    assert "\\x00\\x07\\x1b[31mred\\x7f \\ud800 \\x80 \\ufffe \\uffff \\u202e evil \U0001f600 \\r\n" in body
    assert failure.get("message", "").startswith("it exited 1 <script>")
    assert "\n" not in failure.get("message", "")  # an attribute: one line, its breaks escaped
    assert _cases(root)["bad\\x1b<&>"].get("file") == "plan\\x1b<.yaml"
    assert "]]&gt;" in xml and "<script>" not in xml


def test_the_output_in_the_report_is_the_end_of_each_stream_bounded() -> None:
    head, tail = "H" * 32_768, "0123456789" * 3276 + "T\n"
    big = {"head": head, "tail": tail, "size": 5_000_000, "cut": True}
    tries = [attempt(1)]
    tries[0]["stdout"] = big
    tries[0]["stderr"] = stream("é" * 9000)  # 18,000 bytes, each character two
    root = valid_junit(junit_xml(document([item("loud", "failed", attempts=tries)]), plan_file="plan.yaml"))
    body = root.findtext(".//failure") or ""
    out, err = body.split("--- stderr (its end: 18,000 bytes in all) ---\n")
    assert out.startswith("--- stdout (its end: 5,000,000 bytes in all) ---\n")
    assert out.endswith("0123456789T\n") and "H" not in out
    assert len(out.encode("utf-8")) - len("--- stdout (its end: 5,000,000 bytes in all) ---\n") == \
        report_receipts.TAIL_BYTES
    assert err == "é" * 4096 + "\n"  # whole characters: 8 KiB of them, and a line break to end the stream's part
    assert len(body.encode("utf-8")) < 2 * report_receipts.TAIL_BYTES + 200


def test_a_stream_whose_middle_the_receipts_left_out_says_so_where_it_is_missing() -> None:
    text, cut = report_receipts.stream_tail({"head": "first\n", "tail": "last\n", "size": 1000, "cut": True})
    assert (text, cut) == ("first\n\n[... 989 bytes not kept ...]\nlast\n", True)
    assert report_receipts.stream_tail({"head": "all\n", "tail": "", "size": 4, "cut": False}) == ("all\n", False)


@pytest.mark.parametrize("result", RESULTS)
def test_a_report_of_each_result_alone_is_valid(result: str) -> None:
    valid_junit(junit_xml(document([item("one", result)]), plan_file="plan.yaml"))


def test_an_empty_run_is_a_valid_report_of_no_tests() -> None:
    root = valid_junit(junit_xml(document([]), plan_file="plan.yaml"))
    assert (root.get("tests"), root.findall("testsuite")) == ("0", [])


def test_what_a_proof_did_against_rev_is_a_line_of_its_system_out() -> None:
    control = {"rev": "origin/main", "commit": "b" * 40, "result": "passed", "exit_code": 0, "seconds": 0.1}
    items = [{**item("always"), "against": control},
             {**item("same", "cached", reason="up to date"), "against": {**control, "result": "failed"}}]
    cases = _cases(valid_junit(junit_xml(document(items), plan_file="plan.yaml")))
    assert cases["always"].findtext("system-out") == "against origin/main (bbbbbbbbbbbb): passed"
    assert cases["same"].findtext("system-out") == "cached: up to date\nagainst origin/main (bbbbbbbbbbbb): failed"
