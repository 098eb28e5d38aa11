"""`verify --junit FILE` and `verify --summary FILE` on real runs: the report of what real proofs
did (whatever they printed), valid against the published JUnit schemas, and the summary page."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from receipts import valid_junit
from support import run

pytestmark = pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")

# A proof that prints what would break XML, or a page, if it were not escaped.
LOUD = r"printf '<b>]]></b> & <![CDATA[x]]>\n\033[31mred\001\n'; echo '::error::x' >&2; exit 3"


def _plan(folder: Path) -> Path:
    (folder / ".git").mkdir()
    (folder / "x.py").write_text("x = 1\n", encoding="utf-8")
    plan = folder / "plan.yaml"
    plan.write_text("items:\n"
                    "  - id: ok\n    change: c\n    evidence: [x.py]\n    proof: echo fine\n"
                    f"  - id: loud\n    change: c\n    evidence: [x.py]\n    proof: {json.dumps(LOUD)}\n"
                    "  - id: after\n    change: c\n    evidence: [x.py]\n    depends_on: [loud]\n    proof: 'true'\n",
                    encoding="utf-8")
    return plan


def test_junit_of_a_real_run_is_valid_and_holds_what_the_proofs_printed(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    plan = _plan(tmp_path)
    report = tmp_path / "reports" / "verify.xml"
    result = run("verify", str(plan), "--junit", str(report), "--summary", str(tmp_path / "summary.md"))
    assert result.exit_code == 1, result.output
    root = valid_junit(report.read_text(encoding="utf-8"))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert [(c.get("classname"), c.get("name"), c.get("file"), c.get("line")) for c in root.iter("testcase")] == [
        ("wave 1", "loud", str(plan), "6"), ("wave 1", "ok", str(plan), "2"), ("wave 2", "after", str(plan), "10")]
    failure = cases["loud"].find("failure")
    assert failure is not None and failure.attrib == {"message": "it exited 3", "type": "failed"}
    # A file is written through the CI-log guard (compiler/core/cilog.py), as every page is: a word
    # joiner inside the "::" that starts a line.
    assert failure.text == ("--- stdout ---\n<b>]]></b> & <![CDATA[x]]>\n\\x1b[31mred\\x01\n"
                            "--- stderr ---\n:\u2060:error::x\n")
    skipped = cases["after"].find("skipped")
    assert skipped is not None and skipped.get("message") == (
        "the run stopped after wave 1, where loud did not pass (--keep-going runs on)")
    assert (root.get("tests"), root.get("failures")) == ("3", "1")
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith(f"## evidence-plan verify `{plan}`\n\n**failed**: 1 passed, 1 failed, 1 skipped")
    assert "| failed | 1 | `loud` |" in summary and "\n````\n" not in summary


def test_without_summary_the_page_is_appended_to_the_github_step_summary(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    plan = _plan(tmp_path)
    step = tmp_path / "step.md"
    step.write_text("# earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    assert run("verify", str(plan), "ok").exit_code == 0
    assert step.read_text(encoding="utf-8").startswith(f"# earlier step\n## evidence-plan verify `{plan}`\n\n"
                                                       "**passed**: 1 passed")


def test_a_junit_file_that_leads_out_of_the_repository_is_refused_before_anything_runs(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.xml"
    outside.write_text("keep\n", encoding="utf-8")
    (tmp_path / "verify.xml").symlink_to(outside)
    result = run("verify", str(plan), "--junit", str(tmp_path / "verify.xml"))
    assert result.exit_code == 2 and "which is outside the git work tree" in result.stderr
    assert outside.read_text(encoding="utf-8") == "keep\n" and not (tmp_path / "evidence-plan.verify.json").exists()


def test_junit_of_real_flaky_and_cached_proofs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / ".git").mkdir()
    (tmp_path / "x.py").write_text("x = 1\n", encoding="utf-8")
    shaky = "echo try >> tries; test $(wc -l < tries) -ge 2 || { echo 'not yet <&>' >&2; exit 1; }"
    plan = tmp_path / "plan.yaml"
    plan.write_text("items:\n  - id: ok\n    change: c\n    evidence: [x.py]\n    proof: echo fine\n"
                    f"  - id: shaky\n    change: c\n    evidence: [x.py]\n    proof: {json.dumps(shaky)}\n",
                    encoding="utf-8")
    report = tmp_path / "verify.xml"
    assert run("verify", str(plan), "--retries", "1", "--junit", str(report)).exit_code == 0
    cases = {c.get("name"): c for c in valid_junit(report.read_text(encoding="utf-8")).iter("testcase")}
    flaky = cases["shaky"].findall("flakyFailure")
    assert [(f.get("message"), f.findtext("stackTrace"), f.findtext("system-err")) for f in flaky] == [
        ("attempt 1 of 2: it exited 1", "it exited 1", "not yet <&>\n")]
    assert cases["shaky"].find("failure") is None and cases["ok"].find("failure") is None
    assert run("verify", str(plan), "--junit", str(report)).exit_code == 0  # nothing changed: cached
    cases = {c.get("name"): c for c in valid_junit(report.read_text(encoding="utf-8")).iter("testcase")}
    assert re.fullmatch(r"cached: up to date: it passed at \S+Z with the same inputs",
                        cases["ok"].findtext("system-out") or "")
