"""Fixes carry their safety: every code that declares a fix (compiler/core/codes.py ``fix``) shows
it in `check --format json` as exact text edits, and `fix` writes exactly what applying those edits
gives, YAML and JSON alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml
from support import applied, run

from compiler.core.codes import CODES, FIXABLE
from compiler.core.pins import pin_of

SOURCE = "".join(f"# filler line {n}\n" for n in range(1, 11)) + "def create_account(email):\n    return email\n"
FILES = {
    "app.py": SOURCE,
    "sub/b.py": "x = 1\n",
    "tests/test_app.py": "class TestApp:\n    def test_create(self):\n        pass\n",
    "tools/check.sh": "#!/bin/sh\n",
}
PIN = pin_of("def create_account(email):\n    return email")  # lines 11-12 of app.py, as they are read


class Case(NamedTuple):
    plan: str  # the items, after "items:\n"
    item: str  # the item the code's diagnostic names
    line: int  # its line in the YAML plan
    applicability: str
    edits: list[tuple[int, int, int, int, str]]  # (start line, column, end line, column, new text) in the YAML


def item(ident: str, *lines: str, evidence: str = "[app.py]", proof: str = "make test") -> str:
    body = "".join(f"    {line}\n" for line in lines)
    return f"  - id: {ident}\n    change: c\n    evidence: {evidence}\n    proof: {proof}\n{body}"


# One case per code that declares a fix: the plan (every other line of it valid), the diagnostic's
# item and line, the fix's applicability and its edits.
CASES: dict[str, list[Case]] = {
    "EP010": [Case(item("a", "files: [app.py]"), "a", 6, "unsafe", [(6, 5, 6, 10, "paths")])],
    "EP011": [
        Case(item("a") + item("b", "depends_on: a"), "b", 10, "safe", [(10, 17, 10, 18, "[a]")]),
        Case(item("a", evidence="[{path: app.py, lines: [11, 12]}]"), "a", 4, "safe", [(4, 38, 4, 46, "11-12")]),
        Case(item("a", "status: Done"), "a", 6, "safe", [(6, 13, 6, 17, "done")]),
        Case(item("a", "status: finished"), "a", 6, "unsafe", [(6, 13, 6, 21, "done")]),
        Case(item("a", "irreversible: 'false'"), "a", 6, "safe", [(6, 19, 6, 26, "false")]),
        Case(item("a", "phase: 2024"), "a", 6, "safe", [(6, 12, 6, 16, "'2024'")]),
        Case(item("a", "estimate: {low: 1, high: 2, unit: day, evidence: app.py}"), "a", 6, "unsafe",
             [(6, 39, 6, 42, "days")]),
    ],
    "EP014": [Case(item("a", evidence="[app.py#L11-L12]"), "a", 4, "safe", [(4, 16, 4, 30, "app.py:11-12")])],
    "EP018": [Case(item("a", "paths: ['./src\\out.py']"), "a", 6, "safe", [(6, 13, 6, 27, "'src/out.py'")])],
    "EP105": [Case(item("a", evidence="[app.py:1, app.py:2, app.py:1]"), "a", 4, "safe", [(4, 34, 4, 44, "")])],
    "EP109": [Case(item("a", evidence="['sub\\b.py']"), "a", 4, "safe", [(4, 16, 4, 26, "'sub/b.py'")])],
    "EP201": [Case(item("a", evidence="[ap.py:11]"), "a", 4, "unsafe", [(4, 16, 4, 24, "app.py:11")])],
    "EP203": [Case(item("a", evidence="[{path: app.py, line: 5, contains: return email}]"), "a", 4, "safe",
                   [(4, 37, 4, 38, "12")]),
              Case(item("a", evidence="[{path: app.py, lines: 1-3, contains: return email}]"), "a", 4, "unsafe",
                   [(4, 38, 4, 41, "10-12")])],
    "EP206": [Case(item("a", evidence="[app.py::create_acount]"), "a", 4, "unsafe",
                   [(4, 16, 4, 37, "app.py::create_account")])],
    "EP209": [Case(item("a", proof="./tools/chek.sh --all"), "a", 5, "unsafe",
                   [(5, 12, 5, 33, "./tools/check.sh --all")])],
    "EP210": [Case(item("a", proof="python -m pytest tests/test_app.py::TestApp::test_creat -q"), "a", 5, "unsafe",
                   [(5, 12, 5, 70, "python -m pytest tests/test_app.py::TestApp::test_create -q")])],
    "EP211": [Case(item("a", evidence=f"[{{path: app.py, lines: 1-2, pin: {PIN}}}]"), "a", 4, "safe",
                   [(4, 38, 4, 41, "11-12")])],
    "EP301": [Case(item("contract") + item("impl", "depends_on: [contrat]"), "impl", 10, "unsafe",
                   [(10, 18, 10, 25, "contract")])],
    "EP304": [Case(item("a") + item("b", "depends_on: [a, a]"), "b", 10, "safe", [(10, 19, 10, 22, "")])],
    "EP306": [Case(item("a") + item("b", "depends_on: [a]") + item("c", "depends_on: [a, b]"), "c", 15, "safe",
                   [(15, 18, 15, 21, "")])],
}


def _plan(case: Case, fmt: str) -> str:
    text = "items:\n" + case.plan
    return text if fmt == "yaml" else json.dumps(yaml.safe_load(text), indent=2, ensure_ascii=False) + "\n"


def _report(plan: Path) -> list[dict[str, Any]]:
    result = run("check", "--format", "json", str(plan))
    assert result.exit_code in (0, 1), result.output
    return list(json.loads(result.stdout))


@pytest.fixture
def repo(write: Callable[..., Path]) -> Callable[[str, str], Path]:
    for name, text in FILES.items():
        write(name, text)
    return lambda text, name: write(name, text)


def test_every_code_that_declares_a_fix_has_a_case_and_only_those() -> None:
    assert set(CASES) == set(FIXABLE)
    assert all(CODES[code].fix for code in FIXABLE)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize(("code", "n"), [(code, n) for code, cases in CASES.items() for n in range(len(cases))])
def test_fix_writes_what_applying_the_json_edits_gives(code: str, n: int, fmt: str,
                                                       repo: Callable[[str, str], Path]) -> None:
    case = CASES[code][n]
    plan = repo(_plan(case, fmt), f"plan.{fmt}")
    text = plan.read_text(encoding="utf-8")
    report = _report(plan)
    (found,) = [d for d in report if d["code"] == code]
    assert found["item"] == case.item
    fix = found["fix"]
    assert fix["applicability"] == case.applicability
    assert fix["edits"] and all(e["file"] == str(plan) for e in fix["edits"])
    if fmt == "yaml":
        assert found["location"]["line"] == case.line
        assert [(e["start"]["line"], e["start"]["column"], e["end"]["line"], e["end"]["column"], e["new_text"])
                for e in fix["edits"]] == case.edits
    # Every fix fix applies (the safe ones; with --unsafe-fixes the guesses too), made at once.
    unsafe = case.applicability == "unsafe"
    wanted = [e for d in report if "fix" in d and d["fix"]["applicability"] in ("safe", "unsafe" if unsafe else "safe")
              for e in d["fix"]["edits"]]
    expected = applied(text, wanted)
    assert expected != text
    result = run("fix", *(["--unsafe-fixes"] if unsafe else []), str(plan))
    assert result.exit_code in (0, 1), result.output
    assert plan.read_text(encoding="utf-8") == expected
    assert f"fixed: {fix['message']}" in result.stderr
    # And the fixed plan no longer has the problem.
    assert code not in [d["code"] for d in _report(plan)]


def test_a_guess_is_left_without_unsafe_fixes_and_the_summary_says_why(repo: Callable[[str, str], Path]) -> None:
    plan = repo("items:\n" + item("a", "files: [app.py]", evidence="[app.py#L11-L12]"), "plan.yaml")
    result = run("fix", str(plan))
    assert result.exit_code == 1
    assert "evidence: [app.py:11-12]" in plan.read_text(encoding="utf-8")  # the safe fix is made
    assert "files: [app.py]" in plan.read_text(encoding="utf-8")  # the guess is not
    assert "not fixed: a: 'files' -> paths: fix --unsafe-fixes applies it" in result.stderr
    assert f"{plan}: fixed 1; left 1 fix: 1 guess (fix --unsafe-fixes applies them)" in result.stderr
    assert f"{plan}: 1 problem left" in result.stderr


def test_two_removals_side_by_side_in_a_flow_list_take_two_rounds(repo: Callable[[str, str], Path]) -> None:
    # c depends on a through b (EP306, the first a) and lists a twice (EP304, the second): their
    # edits in [a, a, b] overlap (the comma between them), so fix makes one, checks again, then the other.
    plan = repo("items:\n" + item("a") + item("b", "depends_on: [a]") + item("c", "depends_on: [a, a, b]"),
                "plan.yaml")
    fixes = [d["fix"] for d in _report(plan) if "fix" in d]
    assert [f["message"] for f in fixes] == ["c: removed dependency a, implied through b",
                                             "c: removed repeated dependency a"]
    result = run("fix", str(plan))
    assert result.exit_code == 0, result.output
    assert "    depends_on: [b]\n" in plan.read_text(encoding="utf-8")
    assert result.stderr.count("fixed: ") == 2


def test_an_edit_of_a_value_used_again_through_an_alias_is_display_only(repo: Callable[[str, str], Path]) -> None:
    plan = repo("items:\n" + item("a", evidence="&ev [app.py#L11-L12]") + item("b", evidence="*ev"), "plan.yaml")
    before = plan.read_text(encoding="utf-8")
    fixes = [d["fix"] for d in _report(plan) if "fix" in d]
    assert [f["applicability"] for f in fixes] == ["display-only", "display-only"]  # a's, and b's through *ev
    assert fixes[0]["message"].endswith("(it is used again through a YAML alias (&name, *name), so edit it by hand)")
    result = run("fix", "--unsafe-fixes", str(plan))
    assert plan.read_text(encoding="utf-8") == before
    assert f"{plan}: fixed 0; left 2 fixes: 2 shown only (display-only)" in result.stderr


def test_the_evidence_plan_json_carries_no_fix(repo: Callable[[str, str], Path], tmp_path: Path) -> None:
    plan = repo("items:\n" + item("a", evidence="[app.py#L11-L12]"), "plan.yaml")
    assert run("compile", str(plan), "-o", str(tmp_path / "out")).exit_code == 1
    issues = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))["issues"]
    assert [i["code"] for i in issues] == ["EP014"] and "fix" not in issues[0]


def test_a_guessed_script_that_the_shell_would_split_is_no_fix(repo: Callable[[str, str], Path],
                                                                write: Callable[..., Path]) -> None:
    """A file of the repository may be named anything: a guess with a space or a `;` would change
    what the proof runs, not only which file: the did-you-mean is said, no fix is offered."""
    write("scripts/run me.sh", "#!/bin/sh\n")
    plan = repo("items:\n" + item("a", proof="./scripts/run_me.sh"), "plan.yaml")
    (found,) = [d for d in _report(plan) if d["code"] == "EP209"]
    assert "did you mean scripts/run me.sh?" in found["message"]
    assert "fix" not in found
