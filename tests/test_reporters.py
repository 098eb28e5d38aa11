"""Report formats: one diagnostic model, printed as text, JSON, GitHub annotations or SARIF."""

from __future__ import annotations

import json

import pytest

from compiler import __version__, reporters
from compiler.diagnostics import Diagnostic, Location, Note

CYCLE = Diagnostic(
    "EP303",
    "dependency cycle among: a, b (a -> b -> a)",
    "a",
    Location("plan.yaml", 4, 17),
    (Note("a depends on b", Location("plan.yaml", 4, 17)), Note("b depends on a", Location("plan.yaml", 9, 17))),
)
WARNING = Diagnostic("EP304", "a lists dependency b twice", "a", Location("dir,with:odd%chars/plan.yaml", 2, 3))
UNLOCATED = Diagnostic("EP001", "no such file", None, Location("gone.yaml"), hint="check the path")


def test_text_is_file_line_col_severity_code_message_with_notes_and_hints() -> None:
    assert reporters.text([CYCLE, UNLOCATED]) == (
        "plan.yaml:4:17: error EP303 dependency cycle among: a, b (a -> b -> a)\n"
        "  plan.yaml:4:17: note: a depends on b\n"
        "  plan.yaml:9:17: note: b depends on a\n"
        "gone.yaml: error EP001 no such file\n"
        "  hint: check the path\n"
    )


def test_json_is_a_list_of_diagnostic_objects() -> None:
    assert json.loads(reporters.as_json([CYCLE, UNLOCATED])) == [
        {
            "code": "EP303", "severity": "error", "message": "dependency cycle among: a, b (a -> b -> a)",
            "item": "a", "location": {"file": "plan.yaml", "line": 4, "column": 17},
            "related": [
                {"message": "a depends on b", "location": {"file": "plan.yaml", "line": 4, "column": 17}},
                {"message": "b depends on a", "location": {"file": "plan.yaml", "line": 9, "column": 17}},
            ],
        },
        {
            "code": "EP001", "severity": "error", "message": "no such file", "item": None,
            "location": {"file": "gone.yaml", "line": None, "column": None}, "hint": "check the path",
        },
    ]


def test_github_annotations_escape_properties_and_newlines() -> None:
    out = reporters.github([WARNING, CYCLE])
    first, second = out.splitlines()
    assert first == (
        "::warning file=dir%2Cwith%3Aodd%25chars/plan.yaml,line=2,col=3,"
        "title=EP304 duplicate-dependency::a lists dependency b twice"
    )
    assert second.startswith("::error file=plan.yaml,line=4,col=17,title=EP303 dependency-cycle::dependency cycle")
    assert "%0Aplan.yaml:9:17: b depends on a" in second


def test_sarif_lists_rules_results_and_related_locations() -> None:
    sarif = json.loads(reporters.sarif([WARNING, CYCLE, UNLOCATED], "9.9"))
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["version"] == "9.9"
    assert [r["id"] for r in driver["rules"]] == ["EP001", "EP303", "EP304"]
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["EP304", "EP303", "EP001"]
    assert [driver["rules"][r["ruleIndex"]]["id"] for r in results] == ["EP304", "EP303", "EP001"]
    assert results[0]["level"] == "warning"
    assert len(results[1]["relatedLocations"]) == 2
    assert results[2]["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "gone.yaml"}}}]


@pytest.mark.parametrize(
    ("fmt", "environ", "expected"),
    [
        ("auto", {"GITHUB_ACTIONS": "true"}, "github"),
        ("auto", {}, "text"),
        ("json", {"GITHUB_ACTIONS": "true"}, "json"),
    ],
)
def test_auto_format(fmt: str, environ: dict[str, str], expected: str) -> None:
    assert reporters.resolve_format(fmt, environ) == expected


def test_every_format_is_one_reporter_and_auto_resolves_to_one() -> None:
    assert reporters.FORMATS == ("auto", *reporters.REPORTERS)
    assert reporters.report("text", [CYCLE]) == reporters.text([CYCLE])
    assert reporters.report("json", [CYCLE]) == reporters.as_json([CYCLE])
    assert reporters.report("github", [CYCLE]) == reporters.github([CYCLE])
    assert json.loads(reporters.report("sarif", [CYCLE]))["runs"][0]["tool"]["driver"]["version"] == __version__
    for environ in ({}, {"GITHUB_ACTIONS": "true"}):
        assert reporters.resolve_format("auto", environ) in reporters.REPORTERS
