"""compiler/checks/estimates.py and compiler/analysis/estimates.py: grounded estimates (EP112), on items'
estimates and the plan's claims, in both artifacts; the field's wrong values (EP011, EP010, EP017)
on both validation paths are in tests/model/test_fields.py and the case ep011-estimate-wrong-type."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import compile_in, compile_yaml, rows

from compiler.analysis.estimates import flags, number
from compiler.api.convert import convert
from compiler.cli import main
from compiler.compile.emit import build_output
from compiler.model import fields

REPO = Path(__file__).resolve().parents[2]


def _plan(estimate: str, claims: str = "") -> str:
    return (f"{claims}items:\n  - id: a\n    change: c\n    evidence: [a.py]\n    proof: pytest\n"
            f"    estimate: {estimate}\n")


FLAGGED = [
    # (estimate, the reason's start, column of the part it is about, on line 6)
    ("{low: 1, high: 120, unit: hours, evidence: PR 12}", "high / low is 120x (120 / 1), over the limit of 100x", 30),
    ("{low: 0, high: 2, unit: days, evidence: PR 12}", "low is 0: a 90% interval starts above 0", 21),
    ("{low: -1, high: 2, unit: days, evidence: PR 12}", "low is -1: a 90% interval starts above 0", 21),
    ("{low: 3, high: 1.5, unit: days, evidence: PR 12}", "high 1.5 is below low 3 (the rule: low <= high)", 30),
    ("{low: 1, high: 2, unit: weeks, evidence: ''}", "no evidence for the range", 56),
    ("{low: 1, high: 2, unit: weeks}", "no evidence for the range", 15),  # absent: at the estimate
    ("{low: 1, high: 2, unit: weeks, evidence: PR 12, left: 1.5}", "left is 1.5: the share of the work still to do"
     " is between 0 and 1 (counted in full)", 69),
]


@pytest.mark.parametrize(("estimate", "reason", "column"), FLAGGED)
def test_an_ungrounded_estimate_is_a_warning_naming_the_rule_at_its_part(estimate: str, reason: str,
                                                                           column: int) -> None:
    result = compile_yaml(_plan(estimate))
    assert rows(result.diagnostics) == [("EP112", "a", 6, column)]
    (d,) = result.diagnostics
    assert d.severity == "warning" and d.message.startswith(f"a: estimate is ungrounded: {reason}"), d.message
    assert result.status == "ready"


def test_a_grounded_estimate_says_nothing() -> None:
    result = compile_yaml(_plan("{low: 2, high: 200, unit: hours, confidence: low, evidence: PR 12}"))
    assert result.diagnostics == ()  # 100x exactly is within the limit


def test_the_spread_limit_is_one_constant_and_an_option() -> None:
    wide = {"low": 1, "high": 150, "unit": "hours", "evidence": "PR 12"}
    assert [f.part for f in flags(wide)] == ["high"] and fields.MAX_SPREAD == 100
    assert list(flags(wide, max_spread=200)) == []
    assert number(2.0) == "2" and number(0.25) == "0.25" and number(5_000_000) == "5,000,000"
    assert (number(1e300), number(3e-7), number(float("inf")), number(0)) == ("1e+300", "3e-07", "more than 1e308", "0")


def test_a_claim_is_checked_by_the_same_rule_at_its_place(tmp_path: Path) -> None:
    claims = ("claims:\n  - description: rows\n    low: 10\n    high: 5000\n    unit: rows\n"
              "    evidence: the table's size today\n")
    result = compile_yaml(_plan("{low: 1, high: 2, unit: hours, evidence: PR 12}", claims))
    assert rows(result.diagnostics) == [("EP112", None, 4, 11)]
    assert result.diagnostics[0].message.startswith("claim 1 (rows) is ungrounded: high / low is 500x (5,000 / 10)")


def test_the_json_says_grounded_for_the_plan_and_why_for_each_flagged_item(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    result = compile_in(tmp_path, _plan("{low: 1, high: 120, unit: hours, evidence: PR 12}"))
    document = build_output(result, str(tmp_path))
    reason = document["items"][0]["ungrounded"][0]
    assert reason.startswith("high / low is 120x")
    assert document["estimates"] == {"grounded": False, "max_spread": 100, "units": "1 day = 8 hours, 1 week = 5 days",
                                     "estimated": 1, "missing": 0,
                                     "flagged": [{"item": "a", "claim": None, "reason": reason}]}
    grounded = build_output(compile_in(tmp_path, _plan("{low: 1, high: 3, unit: days, evidence: PR 12}")),
                            str(tmp_path))
    assert grounded["estimates"]["grounded"] is True and "ungrounded" not in grounded["items"][0]


def test_a_plan_without_estimates_has_no_estimates_section(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    document = build_output(compile_in(tmp_path, _plan("").replace("    estimate: \n", "")), str(tmp_path))
    assert "estimates" not in document and "claims" not in document


def _cli(tmp_path: Path, *argv: str) -> int:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(_plan("{low: 1, high: 120, unit: hours, evidence: PR 12}"), encoding="utf-8")
    return main([*argv, str(tmp_path / "plan.yaml")])


def test_a_120x_spread_is_flagged_and_does_not_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(tmp_path, "check", "--format", "text") == 0
    assert "plan.yaml:6:30: warning EP112 a: estimate is ungrounded: high / low is 120x" in capsys.readouterr().out
    assert _cli(tmp_path, "compile", "-o", str(tmp_path / "out")) == 0
    markdown = (tmp_path / "out" / "evidence-plan.md").read_text(encoding="utf-8")
    assert "- **Estimate:** 1–120 hours · evidence: PR 12 · **ungrounded:** high / low is 120x" in markdown
    assert "**Not grounded**: 1 item estimated, 0 without an estimate" in markdown


def test_strict_blocks_on_an_ungrounded_estimate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(tmp_path, "check", "--strict", "--format", "text") == 1
    assert "EP112" in capsys.readouterr().out


def test_max_spread_raises_the_limit_on_both_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(tmp_path, "check", "--strict", "--max-spread", "150", "--format", "text") == 0
    assert "EP112" not in capsys.readouterr().out
    assert _cli(tmp_path, "compile", "--max-spread", "150", "-o", str(tmp_path / "out")) == 0
    document = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["estimates"]["grounded"] is True and document["estimates"]["max_spread"] == 150
    assert _cli(tmp_path, "check", "--max-spread", "0.5") == 2  # a limit under 1 flags every estimate: refused


def test_convert_keeps_estimates_and_claims(tmp_path: Path) -> None:
    claims = "claims:\n  - {description: rows, low: 10, high: 50, unit: rows, confidence: high, evidence: today}\n"
    plan = tmp_path / "plan.yaml"
    plan.write_text(_plan("{unit: days, high: 3, low: 1.5, evidence: PR 12}", claims), encoding="utf-8")
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    converted = convert(str(plan), "json", str(tmp_path))
    assert converted.text is not None
    data = json.loads(converted.text)
    assert data["claims"] == [{"description": "rows", "low": 10, "high": 50, "unit": "rows", "confidence": "high",
                               "evidence": "today"}]
    assert data["items"][0]["estimate"] == {"low": 1.5, "high": 3, "unit": "days", "evidence": "PR 12"}
    again = tmp_path / "again.json"
    again.write_text(converted.text, encoding="utf-8")
    assert convert(str(again), "json", str(tmp_path)).text == converted.text


def test_check_of_a_plan_without_estimates_imports_no_estimate_code(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(_plan("").replace("    estimate: \n", ""), encoding="utf-8")
    script = ("import sys\nfrom compiler.cli import main\ncode = main(['check', sys.argv[1]])\n"
              "print(sorted(m for m in sys.modules if m == 'compiler.analysis.estimates'))\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "plan.yaml")], capture_output=True, text=True,
                          cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- the critical path by median estimate (compiler/analysis/forecast.py) ----------------------------------

CHAIN = """\
items:
  - id: design
    change: c
    evidence: [a.py]
    proof: pytest
    estimate: {low: 1, high: 4, unit: days, evidence: PR 12}
  - id: build
    change: c
    evidence: [a.py]
    depends_on: [design]
    proof: pytest
    estimate: {low: 2, high: 8, unit: hours, evidence: PR 13}
  - id: docs
    change: c
    evidence: [a.py]
    depends_on: [design]
    proof: pytest
    estimate: {low: 30, high: 120, unit: minutes, evidence: PR 14}
  - id: release
    change: c
    evidence: [a.py]
    depends_on: [docs, build]
    proof: pytest
"""


def test_the_critical_path_by_median_converts_units(tmp_path: Path) -> None:
    """design is 1-4 days (8-32 hours, median 16), build 2-8 hours (median 4), docs 30-120 minutes
    (median 1 hour): design, build, then release (no estimate: counted as zero)."""
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    result = compile_in(tmp_path, CHAIN)
    assert result.schedule == {"unit": "hours", "units": "1 day = 8 hours, 1 week = 5 days",
                               "critical_path": ["design", "build", "release"], "median_hours": 20.0,
                               "best_hours": 10.0, "worst_hours": 40.0, "estimated": 3, "counted_as_zero": 1}
    document = build_output(result, str(tmp_path))
    assert document["schedule"] == result.schedule
    assert document["critical_path"] == ["design", "build", "release"]  # the count-based key keeps its meaning
    from compiler.render.markdown import render_markdown

    page = render_markdown(document)
    assert ("Critical path by median estimate (3 items, marked in the graph): `design` → `build` → `release`:"
            " median 20 hours, best case 10 hours, worst case 40 hours (1 item without a usable estimate counted"
            " as 0).") in page
    assert "  classDef critical stroke-width:3px\n  class n1,n2,n4 critical\n" in page


def test_a_longer_chain_by_count_is_not_the_critical_path_by_median(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    text = CHAIN.replace("{low: 30, high: 120, unit: minutes, evidence: PR 14}", "{low: 1, high: 4, unit: weeks,"
                         " evidence: PR 14}").replace("depends_on: [docs, build]", "depends_on: [build]")
    result = compile_in(tmp_path, text)
    assert result.critical_path == ("design", "build", "release")
    assert result.schedule is not None and result.schedule["critical_path"] == ["design", "docs"]
    assert result.schedule["median_hours"] == 16.0 + 80.0  # sqrt(8 * 32) + sqrt(40 * 160)


def test_no_schedule_without_an_estimate_or_when_blocked(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    assert compile_in(tmp_path, _plan("").replace("    estimate: \n", "")).schedule is None
    blocked = compile_in(tmp_path, CHAIN.replace("[docs, build]", "[docs, build, nowhere]"))
    assert blocked.status == "blocked" and blocked.schedule is None
    assert "schedule" not in build_output(blocked, str(tmp_path))


def test_bounds_at_a_float_s_limits_are_flagged_and_left_out_of_the_forecast(tmp_path: Path) -> None:
    """1e-300 to 1e300 weeks: a ratio past what a float holds is said in words, and an estimate
    past a billion hours or a spread of a million counts as zero in the schedule and the forecast
    (every figure stays finite, so the JSON stays JSON)."""
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    text = _plan("{low: 1e-300, high: 1e300, unit: weeks, evidence: PR 12}") + (
        "  - id: b\n    change: c\n    evidence: [a.py]\n    depends_on: [a]\n    proof: pytest\n"
        "    estimate: {low: 1, high: 2, unit: hours, evidence: PR 13}\n")
    result = compile_in(tmp_path, text)
    (d,) = result.diagnostics
    assert d.message.startswith("a: estimate is ungrounded: high / low is more than 1e308x (1e+300 / 1e-300)")
    assert result.schedule is not None and result.schedule["counted_as_zero"] == 1
    assert result.forecast is not None and result.forecast["counted_as_zero"] == 1
    json.dumps(build_output(result, str(tmp_path)), allow_nan=False)


def test_a_number_option_that_is_not_finite_is_a_usage_error(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    for option in (["--max-spread", "nan"], ["--max-spread", "inf"]):
        assert _cli(tmp_path, "check", *option) == 2
        assert "is not a finite number" in capsys.readouterr().err
    assert _cli(tmp_path, "compile", "--start", "2026-12-01", "--by", "2026-12-02", "--hours-per-day", "nan") == 2


# --- estimate evidence that is a repository reference -----------------------------------------


def test_estimate_evidence_that_is_a_repository_reference_is_checked(tmp_path: Path) -> None:
    """A missing file is EP201 at the estimate's evidence; a line past the end EP202; a file that is
    there, words, a URL and a bare name pass."""
    from support import git_repo

    root = git_repo(tmp_path, {"a.py": "x = 1\n", "docs/history.md": "# History\n"})
    plan = (
        "claims:\n"
        "  - {description: throughput, low: 1, high: 2, unit: rps, evidence: bench/results.csv}\n"
        "items:\n"
        + "".join(f"  - {{id: i{n}, change: c, evidence: [a.py], proof: pytest,"
                  f" estimate: {{low: 1, high: 2, unit: hours, evidence: '{evidence}'}}}}\n"
                  for n, evidence in enumerate([
                      "docs/histroy.md", "a.py:7", "docs/history.md:1", "PR 12: a similar change took 2 hours",
                      "https://example.com/pr/12", "node.js", "a.py::x"])))
    result = compile_in(root, plan)
    assert rows(result.diagnostics) == [("EP201", None, 2, 69), ("EP201", "i0", 4, 109), ("EP202", "i1", 5, 109)]
    assert [d.message for d in result.diagnostics] == [
        "claim 1 cites bench/results.csv, but bench/results.csv does not exist",
        "i0's estimate cites docs/histroy.md, but docs/histroy.md does not exist (did you mean docs/history.md?)",
        "i1's estimate cites a.py:7, but a.py has 1 line",
    ]
    assert compile_in(root, plan, verify_evidence=False).diagnostics == ()


def test_estimate_words_are_free_text() -> None:
    from compiler.model.references import repository_reference

    for words in ("PR 12", "similar to app/x.py", "v1.2", "node.js", "e.g.", "", None, 3, "https://x.org/a/b",
                  "n/a", "CI/CD", "3/4", "w/o", "src/black", "/etc/hosts", "~/notes.md"):
        assert repository_reference(words) is None, words
    for reference in ("app/x.py", "README.md:3", "app/x.py::f", "docs/"):
        assert repository_reference(reference) is not None, reference
