"""A diagnostic's fix in the JSON and SARIF reports: valid SARIF 2.1.0 (``fixes``, with non-empty
``artifactChanges``), columns in Unicode code points in both, what a hostile plan holds written so
that it reads back as itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import run
from test_reporters import assert_valid_sarif

from compiler.core.diagnostics import Diagnostic, Fix, Location, TextEdit
from compiler.core.edits import apply_text_edits
from compiler.report import reporters

# An id of a letter outside the Basic Multilingual Plane (U+20000, a CJK ideograph): one code
# point, two UTF-16 code units. Before the edit on its line, it shifts every column past it.
ASTRAL = "\U00020000x"
PLAN = f"""\
items:
  - id: {ASTRAL}
    change: café
    evidence: [app.py]
    proof: make test
  - id: b
    change: c
    evidence: [app.py]
    depends_on: [{ASTRAL}, {ASTRAL}]
    proof: make test
"""


@pytest.fixture
def plan(write: Callable[..., Path]) -> Path:
    write("app.py", "x = 1\n")
    return write("plan.yaml", PLAN)


def test_json_edits_count_code_points_on_a_line_that_holds_an_astral_character(plan: Path) -> None:
    report = json.loads(run("check", "--format", "json", str(plan)).stdout)
    (found,) = [d for d in report if d["code"] == "EP304"]
    (edit,) = found["fix"]["edits"]
    line = PLAN.splitlines()[8]  # "    depends_on: [\U00020000x, \U00020000x]"
    start = line.index(", ")  # the removed ", \U00020000x": code point indexes, 1-based columns
    assert (edit["start"], edit["end"]) == ({"line": 9, "column": start + 1}, {"line": 9, "column": len(line)})
    assert len(line.encode("utf-16-le")) // 2 == len(line) + 2  # in UTF-16 units the columns would differ
    fixed = apply_text_edits(PLAN, [TextEdit(file=str(plan), start_line=9, start_column=edit["start"]["column"],
                                             end_line=9, end_column=edit["end"]["column"], new_text="")], str(plan))
    assert f"depends_on: [{ASTRAL}]\n" in fixed


def test_sarif_fixes_are_valid_sarif_with_the_same_code_point_columns(plan: Path) -> None:
    result = run("check", "--format", "sarif", str(plan))
    document = assert_valid_sarif(result.stdout)
    run_ = document["runs"][0]
    assert run_["columnKind"] == "unicodeCodePoints"
    (found,) = [r for r in run_["results"] if r["ruleId"] == "EP304"]
    (fix,) = found["fixes"]
    assert fix["description"] == {"text": "b: removed repeated dependency \U00020000x"}
    assert fix["properties"] == {"applicability": "safe"}
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"].endswith("plan.yaml")
    line = PLAN.splitlines()[8]
    assert change["replacements"] == [{
        "deletedRegion": {"startLine": 9, "startColumn": line.index(", ") + 1, "endLine": 9, "endColumn": len(line)},
        "insertedContent": {"text": ""}}]


def test_the_sarif_schema_refuses_a_fix_without_artifact_changes(plan: Path) -> None:
    """The validator checks the fixes too: an empty artifactChanges is not SARIF."""
    from test_reporters import SARIF_VALIDATOR

    document = json.loads(run("check", "--format", "sarif", str(plan)).stdout)
    document["runs"][0]["results"][0]["fixes"][0]["artifactChanges"] = []
    assert not SARIF_VALIDATOR.is_valid(document)


def test_an_insertion_is_an_empty_region_in_sarif() -> None:
    edit = TextEdit(file="plan.yaml", start_line=3, start_column=7, end_line=3, end_column=7, new_text=", pin: x")
    d = Diagnostic("EP105", "a cites x twice", item="a", location=Location("plan.yaml", 3, 7),
                   fix=Fix(message="m", applicability="safe", edits=(edit,)))
    document = assert_valid_sarif(reporters.sarif([d], "1"))
    (replacement,) = document["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacement["deletedRegion"] == {"startLine": 3, "startColumn": 7, "endLine": 3, "endColumn": 7}


def test_a_diagnostic_with_a_fix_not_made_yet_shows_none() -> None:
    """A fix whose rule gave only its changes has no edits until a compile makes them: not shown."""
    d = Diagnostic("EP105", "a cites x twice", fix=Fix(message="m", applicability="safe", changes=((("items",), 1),)))
    assert "fix" not in d.to_dict()
    assert "fixes" not in json.loads(reporters.sarif([d], "1"))["runs"][0]["results"][0]


HOSTILE = [
    "notes: #1.md",  # a key, a comment
    "it's \"quoted\".md",  # both quotes
    "line\nbreak.md",  # a line break
    "bidi\u202eevil.md",  # a bidirectional control
    "- [dash] {brace}.md",  # indicators
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_guessed_name_from_a_hostile_repository_reads_back_as_itself(write: Callable[..., Path], name: str) -> None:
    """EP201's guess is a file name of the repository, which anyone may choose: the fix writes it
    so that the plan reads back with exactly that name, nothing more (no new key, no comment)."""
    write(name, "x\n")
    cited = name.replace(".md", "s.md")  # one letter off: the did-you-mean is the real name
    plan = write("plan.yaml", f"items:\n  - id: a\n    change: c\n    evidence: [{json.dumps(cited)}]\n"
                              "    proof: make test\n")
    report: list[dict[str, Any]] = json.loads(run("check", "--format", "json", str(plan)).stdout)
    (found,) = [d for d in report if d["code"] == "EP201"]
    assert found["fix"]["applicability"] == "unsafe"
    result = run("fix", "--unsafe-fixes", str(plan))
    assert result.exit_code == 0, result.output
    import yaml

    assert yaml.safe_load(plan.read_text(encoding="utf-8"))["items"][0]["evidence"] == [name]
    assert len(plan.read_text(encoding="utf-8").split("\n")) == 6  # the entry on one line, as it was
