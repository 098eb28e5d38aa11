"""Issue 23's promises on a real repository nobody here wrote: excerpts of black 26.10.1
(tests/repo/black/README.md), where the tool once said ready on wrong citations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import applied, run

BLACK = Path(__file__).resolve().parent / "black"


@pytest.fixture
def black(tmp_path: Path) -> Path:
    repo = tmp_path / "black"
    shutil.copytree(BLACK, repo)
    (repo / ".git").mkdir()  # the repository's root
    return repo


def _check(repo: Path, *entries: str, proof: str = "python -m pytest tests -q") -> list[str]:
    items = "".join(f"  - id: item-{n}\n    change: c\n    evidence: ['{entry}']\n    proof: {proof}\n"
                    for n, entry in enumerate(entries, 1))
    (repo / "plan.yaml").write_text("items:\n" + items, encoding="utf-8")
    result = run("check", str(repo / "plan.yaml"))
    return [line for line in result.stdout.splitlines() if " error " in line]


def test_a_wrapped_bullet_and_a_line_of_fenced_code_are_no_markdown_symbols(black: Path) -> None:
    # CHANGES.md line 83 is "  type parameters (#5429)", a bullet's second line; "preview" is a
    # word of the_basics.md's prose and code, never a heading of its own ("`--preview`" is).
    errors = _check(black, "CHANGES.md::parameters", "docs/usage_and_configuration/the_basics.md::preview")
    assert [e.split(" error ")[1].split(" ")[0] for e in errors] == ["EP206", "EP206"]
    assert "did you mean `--preview`?" in errors[1]
    assert _check(black, "docs/usage_and_configuration/the_basics.md::`--preview`") == []


def test_a_heading_under_every_release_is_ambiguous_until_qualified(black: Path) -> None:
    (error,) = _check(black, "CHANGES.md::Output")
    assert " error EP212 item-1 cites CHANGES.md::Output" in error
    assert _check(black, "CHANGES.md::Version 26.10.0.Output") == []


def test_a_misspelt_test_of_a_case_whose_base_the_repository_defines_is_caught(black: Path) -> None:
    # BlackTestCase(BlackBaseTestCase), imported from tests.util: its tests are known.
    assert _check(black, "tests/util.py", proof="python -m pytest tests/test_black.py::BlackTestCase::test_piping") \
        == []
    (error,) = _check(black, "tests/util.py",
                      proof="python -m pytest tests/test_black.py::BlackTestCase::test_pipng")
    assert " error EP210 " in error and "did you mean BlackTestCase::test_piping?" in error
    # A method of the base class is the subclass's too.
    assert _check(black, "tests/util.py",
                  proof="python -m pytest tests/test_black.py::BlackTestCase::assertFormatEqual") == []


# Issue 25's sloppy plan: a first draft as a coding agent writes it, 18 errors. Before fixes carried
# their safety, `fix` repaired 1 of them although 13 messages spell out their exact repair.
SLOPPY = """\
# A first draft, as a coding agent wrote it: show the cache file in black's verbose report.
plan: black-verbose-cache
goal: Say which cache file a run of black used, in its verbose report
items:
  - id: baseline
    change: Pin down today's verbose report
    evidence:
      - src/black/report.py::Report.don
      - src/black/__init.py
      - CHANGES.md::Output
    proof: python -m pytest tests/test_black.py::BlackTestCase::test_pipng -q

  - id: mode-option
    change: Add a preview option for the cache path
    evidence:
      - src/black/mode.py#L73-L239
      - path: src/black/mode.py
        lines: 230-240
        contains: "class Preview(Enum):"
      - path: src/black/mode.py
        line: 290
        contains: "class Mode:"
    depends_on: baseline
    files: [src/black/mode.py]
    proof: python -m pytest tests/test_black.py -q
    estimate: {low: 1, high: 2, unit: day}

  - id: report-cache
    change: Print the cache file in verbose mode
    evidence:
      - path: src/black/report.py
        lines: [24, 60]
      - src/black/report.py:400
      - src/black/report.py:35
      - src/black/report.py:35
    depends_on: [mode_option, baseline, baseline]
    proof: python -m pytest tests/test_black.py::BlackTestCase::test_piping
    status: finished
    type: task

  - id: docs
    change: Document the cache file in the verbose report
    evidence: docs/usage_and_configuration/the_basics.md
    depends_on: [report-cache, mode-option]
    proof: python -m pytest tests -q
    phase: docs
    status: todo
    estimate: {low: 2, high: 1, unit: hours}

  - id: docs
    change: Release note
    evidence: [CHANGES.md]
    proof: ""
"""
# What check --format json says of each problem it has a fix for: (code, item, line, applicability,
# [(start line, start column, end line, end column, new text)]).
SLOPPY_FIXES = [
    ("EP206", "baseline", 8, "unsafe", [(8, 9, 8, 40, "src/black/report.py::Report.done")]),
    ("EP201", "baseline", 9, "unsafe", [(9, 9, 9, 28, "src/black/__init__.py")]),
    ("EP210", "baseline", 11, "unsafe",
     [(11, 12, 11, 78, "python -m pytest tests/test_black.py::BlackTestCase::test_piping -q")]),
    ("EP014", "mode-option", 16, "safe", [(16, 9, 16, 35, "src/black/mode.py:73-239")]),
    ("EP203", "mode-option", 19, "unsafe", [(18, 16, 18, 23, "239-249")]),  # "class Preview(Enum):" is at 249
    ("EP203", "mode-option", 22, "safe", [(21, 15, 21, 18, "291")]),  # "class Mode:" is at 291
    ("EP011", "mode-option", 23, "safe", [(23, 17, 23, 25, "[baseline]")]),
    ("EP010", "mode-option", 24, "unsafe", [(24, 5, 24, 10, "paths")]),
    ("EP011", "mode-option", 26, "unsafe", [(26, 39, 26, 42, "days")]),
    ("EP011", "report-cache", 32, "safe", [(32, 16, 32, 24, "24-60")]),
    ("EP105", "report-cache", 35, "safe", [(35, 1, 36, 1, "")]),
    ("EP301", "report-cache", 36, "unsafe", [(36, 18, 36, 29, "mode-option")]),
    ("EP304", "report-cache", 36, "safe", [(36, 39, 36, 49, "")]),
    ("EP011", "report-cache", 38, "unsafe", [(38, 13, 38, 21, "done")]),
    ("EP010", "report-cache", 39, "unsafe", [(39, 5, 39, 9, "kind")]),
    ("EP011", "docs", 43, "safe", [(43, 15, 43, 57, "[docs/usage_and_configuration/the_basics.md]")]),
]


def _errors(plan: Path) -> list[str]:
    return sorted(d["code"] for d in json.loads(run("check", "--format", "json", str(plan)).stdout)
                  if d["severity"] == "error")


@pytest.mark.slow  # four runs of check or fix on a repository of 3,000 lines
def test_a_sloppy_first_draft_gets_a_fix_for_every_message_that_spells_out_its_repair(black: Path) -> None:
    plan = black / "plan.yaml"
    plan.write_text(SLOPPY, encoding="utf-8")
    report = json.loads(run("check", "--format", "json", str(plan)).stdout)
    assert len([d for d in report if d["severity"] == "error"]) == 18
    assert [(d["code"], d["item"], d["location"]["line"], d["fix"]["applicability"],
             [(e["start"]["line"], e["start"]["column"], e["end"]["line"], e["end"]["column"], e["new_text"])
              for e in d["fix"]["edits"]]) for d in report if "fix" in d] == SLOPPY_FIXES
    # fix applies the safe ones, the very edits shown: 5 errors repaired (and 2 warnings), 13 left, 9 of
    # them with a guess.
    safe = [e for d in report if d.get("fix", {}).get("applicability") == "safe" for e in d["fix"]["edits"]]
    result = run("fix", str(plan))
    assert result.exit_code == 1
    assert plan.read_text(encoding="utf-8") == applied(SLOPPY, safe)
    assert f"{plan}: fixed 7; left 9 fixes: 9 guesses (fix --unsafe-fixes applies them)" in result.stderr
    assert len(_errors(plan)) == 13
    # With the guesses, 14 repaired: the 4 left need a person (which Output, which line, which docs, what proof).
    assert run("fix", "--unsafe-fixes", str(plan)).exit_code == 1
    assert _errors(plan) == ["EP102", "EP104", "EP202", "EP212"]
