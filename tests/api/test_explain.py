"""The page of a diagnostic code (compiler/api/explain.py): who emits each code, read from the
rule registry and the stages, and the page built from it, which docs/codes/CODE.md is; and
`evidence-plan explain`, which prints it (compiler/commands/explain.py)."""

from __future__ import annotations

import inspect
import json
import re
import shlex
from pathlib import Path
from typing import get_args

import pytest
import test_cases
from support import CASES, DOCS, REPO, case_dirs, run

from compiler.api import explain
from compiler.core.advice import ADVICE
from compiler.core.codes import CODES, Stage


def test_every_code_has_an_owner_and_every_stage_a_function() -> None:
    """Each code one owner is tests/checks/test_registry.py's; here every code gets a page owner."""
    assert sorted(explain.owners()) == sorted(CODES)
    assert set(explain.STAGES) == set(get_args(Stage))


def test_a_rules_page_gives_its_name_severity_meaning_docstring_and_case() -> None:
    page = explain.page("EP101", explain.examples("EP101", CASES))
    assert page.startswith("# EP101 no-evidence\n\n" + CODES["EP101"].summary + "\n")
    assert "- **Severity:** error: the plan is blocked (exit 1)" in page
    assert "- **Emitted by:** the rule `no_evidence` in `compiler/checks/items.py`\n" in page
    assert "\nEP101: every item cites at least one repository fact.\n" in page
    plan = (CASES / "ep101-no-evidence" / "plan.yaml").read_text(encoding="utf-8")
    assert f"```yaml\n{plan}```\n" in page
    expected = (CASES / "ep101-no-evidence" / "expected.txt").read_text(encoding="utf-8").split("\n", 1)[1]
    assert "`evidence-plan check --format text --root . plan.yaml`, run in that folder, exits 1 and prints:\n\n" \
           f"```text\n{expected}```\n" in page


def test_a_stage_codes_page_names_the_stage_and_its_function() -> None:
    page = explain.page("EP002")
    assert "- **Emitted by:** `load` in `compiler/load/document.py`, reading the plan file, before anything" in page
    assert "error, an input error: the file is not a usable plan (exit 2)" in page
    assert (inspect.getdoc(explain.owners()["EP002"].function) or "?") in page


def test_a_code_without_a_case_folder_says_so() -> None:
    assert "No case folder of the corpus (`tests/cases/ep017-*`) shows EP017 yet." in explain.page("EP017")


def test_every_code_has_every_part_of_its_page() -> None:
    """What it means (compiler/core/codes.py), why it matters and how to fix it
    (compiler/core/advice.py), what emits it (a docstring), and at least one example (a case
    folder of tests/cases named for the code): a code missing one is named."""
    assert sorted(ADVICE) == sorted(CODES), "every code has its advice, and no advice is left of a gone code"
    missing = []
    for code, entry in CODES.items():
        parts = {"summary": entry.summary, "why": ADVICE[code].why, "fix": ADVICE[code].fix,
                 "what emits it": inspect.getdoc(explain.owners()[code].function),
                 f"example (tests/cases/{code.lower()}-*)": explain.shipped()[code]}
        missing += [f"{code} {name}" for name, part in parts.items() if not part]
    assert missing == []


def test_advice_is_whole_sentences() -> None:
    for code, advice in ADVICE.items():
        for part in advice:
            assert (part[0].isupper() or part[0] == "`") and part.endswith(".") and "  " not in part, (code, part)


def test_a_compile_case_shows_the_command_it_runs() -> None:
    (shown,) = explain.examples("EP403", CASES)
    assert shown.argv == ["compile", "-o", "out", "--root", ".", "plan.yaml"]
    assert shown.files == ["`app/mail.py`", "`out/evidence-plan.json`"]
    assert "error EP403 this compile would be revision 3" in shown.output


def test_every_case_of_a_code_is_shown_on_its_page() -> None:
    assert [e.case for e in explain.examples("EP107", CASES)] == [
        "ep107-compound-proof", "ep107-multiline-proof", "ep107-proof-list"]


def test_a_plan_that_is_not_utf8_is_shown_with_escapes() -> None:
    (shown,) = explain.examples("EP001", CASES)
    assert not shown.utf8 and "  - id: caf\\xe9\n" in shown.plan_text
    assert "(not UTF-8: the bytes that are not are shown as `\\xNN`)" in explain.page("EP001", [shown])


def test_a_cases_symlinks_are_named_with_their_targets() -> None:
    (shown,) = explain.examples("EP201", CASES)[:1]
    assert shown.files == ["`dangling.md` (a symlink to `missing.md`)", "`notes.md`"]


def test_the_command_a_page_shows_is_the_one_the_case_runs() -> None:
    for case in case_dirs():
        shown = explain.example(case)
        assert shown.argv == test_cases._arguments(case, shown.plan_name), case.name


def test_a_fence_is_longer_than_any_run_of_backticks_in_what_it_holds(tmp_path: Path) -> None:
    case = tmp_path / "ep101-backticks"
    case.mkdir()
    (case / "plan.yaml").write_text("items:\n  - id: a\n    change: '```'\n", encoding="utf-8")
    (case / "expected.txt").write_text("exit: 1\n", encoding="utf-8")
    page = explain.page("EP101", explain.examples("EP101", tmp_path))
    assert "````yaml\nitems:\n  - id: a\n    change: '```'\n````\n" in page
    assert "exits 1 and prints:\n\n```text\n(nothing)\n```\n" in page


# --- the examples the package ships ---------------------------------------------------------------


@pytest.mark.slow
def test_the_shipped_examples_are_the_case_folders() -> None:
    """explain/examples.json (what an installed package shows) is the corpus read now (also held
    by the staleness test of tests/test_generated.py)."""
    assert (REPO / "explain" / "examples.json").read_text(encoding="utf-8") == explain.corpus(CASES)
    assert explain.shipped() == {code: explain.examples(code, CASES) for code in CODES}


def test_the_featured_example_is_the_case_named_for_the_rule() -> None:
    assert explain.featured("EP201", explain.shipped()["EP201"]).case == "ep201-missing-file"
    assert explain.featured("EP107", explain.shipped()["EP107"]).case == "ep107-compound-proof"
    assert explain.featured("EP001", explain.shipped()["EP001"]).case == "ep001-not-utf8"  # none so named: the first
    assert explain.featured("EP001", []) is None


# --- finding a code --------------------------------------------------------------------------------


@pytest.mark.parametrize(("word", "code"), [
    ("EP201", "EP201"), ("ep201", "EP201"), (" Ep201 ", "EP201"), ("missing-file", "EP201"),
    ("MISSING-FILE", "EP201"), ("dependency-cycle", "EP303"), ("EP999", None), ("missing", None), ("", None)])
def test_a_code_is_found_by_itself_in_any_case_or_by_its_rule_name(word: str, code: str | None) -> None:
    assert explain.find(word) == code


@pytest.mark.parametrize(("word", "meant"), [
    ("missng-file", "missing-file"), ("dependancy-cycle", "dependency-cycle"), ("EP2O1", "EP201"),
    ("ep1l0", "EP110"), ("EP3O3", "EP303"), ("xyzzy", None)])
def test_a_word_that_names_no_code_gets_a_did_you_mean(word: str, meant: str | None) -> None:
    assert explain.suggest(word) == meant


# --- evidence-plan explain --------------------------------------------------------------------------


def test_explain_prints_the_page_for_a_terminal() -> None:
    result = run("explain", "ep102")
    assert result.exit_code == 0 and result.stderr == ""
    plan = (CASES / "ep102-no-proof" / "plan.yaml").read_text(encoding="utf-8")
    output = (CASES / "ep102-no-proof" / "expected.txt").read_text(encoding="utf-8").split("\n", 1)[1]
    indent = lambda text: "".join("    " + line for line in text.splitlines(keepends=True))  # noqa: E731
    assert result.stdout == (
        "EP102 no-proof (error)\n"
        "\n"
        "What it means:\n"
        "  `X has no proof command`: the proof is missing or blank\n"
        "\n"
        "Why it matters:\n"
        "  Without a proof nothing says when the item is done: it can be marked done without being checked,\n"
        "  and `verify` has nothing to run.\n"
        "\n"
        "How to fix it:\n"
        "  Give `proof:` the one exact command that passes once the change is made, such as `python -m pytest\n"
        "  tests/test_x.py::test_y`.\n"
        "\n"
        "Example (tests/cases/ep102-no-proof/plan.yaml):\n"
        f"{indent(plan)}\n"
        "  $ evidence-plan check --format text --root . plan.yaml    # exits 1\n"
        f"{indent(output)}\n"
        "Page: docs/codes/EP102.md (evidence-plan explain EP102 --format markdown)\n")


def test_explain_names_the_other_examples_of_the_page() -> None:
    out = run("explain", "EP201").stdout
    assert "Example (tests/cases/ep201-missing-file/plan.yaml):\n" in out
    assert "\nMore examples on the page: ep201-dangling-symlink, ep201-did-you-mean.\n" in out


def test_explain_by_rule_names_prints_each_page_once_in_the_order_given() -> None:
    result = run("explain", "dependency-cycle", "EP101", "ep303")
    assert result.exit_code == 0
    heads = re.findall(r"^(EP\d{3}) [\w-]+ \((?:error|warning)[^)]*\)$", result.stdout, re.M)
    assert heads == ["EP303", "EP101"]
    assert result.stdout == run("explain", "EP303").stdout + "\n" + run("explain", "EP101").stdout


def test_explain_markdown_is_the_page_of_the_docs_for_every_code() -> None:
    result = run("explain", "--all", "--format", "markdown")
    assert result.exit_code == 0
    assert result.stdout == "\n".join((DOCS / "codes" / f"{code}.md").read_text(encoding="utf-8") for code in CODES)


def test_explain_all_as_json_gives_every_part_of_every_code() -> None:
    result = run("explain", "--all", "--format", "json")
    assert result.exit_code == 0
    records = json.loads(result.stdout)
    assert [r["code"] for r in records] == list(CODES)
    for r in records:
        entry, advice = CODES[r["code"]], ADVICE[r["code"]]
        assert (r["name"], r["severity"], r["summary"], r["why"], r["fix"]) == (
            entry.name, entry.severity, entry.summary, advice.why, advice.fix)
        assert r["docs"] == f"docs/codes/{r['code']}.md" and (REPO / r["docs"]).is_file()
        assert r["examples"], r["code"]
        for shown in r["examples"]:
            case = CASES / shown["case"]
            assert shlex.split(shown["command"])[1:] == test_cases._arguments(case, shown["plan_name"])
            assert f"exit: {shown['exit_code']}\n{shown['output']}" == (case / "expected.txt").read_text(
                encoding="utf-8")
    ep001 = records[0]
    assert ep001["emitted_by"] == {"function": "load", "module": "compiler/load/document.py", "stage": "load"}
    assert ep001["input_error"] is True and ep001["reason"] is None and ep001["url"] is None
    assert next(r for r in records if r["code"] == "EP401")["reason"] == "no_plan"
    assert next(r for r in records if r["code"] == "EP101")["emitted_by"] == {
        "function": "no_evidence", "module": "compiler/checks/items.py", "stage": None}


def test_explain_json_of_one_code_is_a_list_of_one() -> None:
    records = json.loads(run("explain", "no-change", "--format", "json").stdout)
    assert [r["code"] for r in records] == ["EP103"]


@pytest.mark.parametrize(("args", "message"), [
    (["missng-file"], "Invalid value for CODE: missng-file names no diagnostic code or rule (did you mean"
                      " missing-file?); every code: evidence-plan explain --all"),
    (["EP201", "EP2O1"], "Invalid value for CODE: EP2O1 names no diagnostic code or rule (did you mean EP201?);"
                         " every code: evidence-plan explain --all"),
    (["xyzzy"], "Invalid value for CODE: xyzzy names no diagnostic code or rule; every code: evidence-plan"
                " explain --all"),
    (["a\x1b[2Jb\u202e"], "Invalid value for CODE: a\\x1b[2Jb\\u202e names no diagnostic code or rule; every"
                         " code: evidence-plan explain --all"),
    ([], "give a code or a rule name (EP201, missing-file), or --all"),
    (["--all", "EP201"], "give codes or --all, not both"),
])
def test_explain_refuses_a_word_that_names_no_code(args: list[str], message: str) -> None:
    result = run("explain", *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == f"Error: {message}"


def test_explain_escapes_what_a_page_shows_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case's plan is shown escaped (a plan of the corpus may hold anything a plan can)."""
    shown = explain.shipped()["EP101"][0]._replace(plan_text="items:\n  - id: \x1b[2Ja\u202e\n")
    monkeypatch.setattr(explain, "shipped", lambda: {"EP101": [shown]})
    for fmt in ("text", "markdown"):
        out = run("explain", "EP101", "--format", fmt).stdout
        assert "\x1b" not in out and "\u202e" not in out and "id: \\x1b[2Ja\\u202e" in out, fmt
    assert json.loads(run("explain", "EP101", "--format", "json").stdout)[0]["examples"][0]["plan"] == \
        "items:\n  - id: \x1b[2Ja\u202e\n"
