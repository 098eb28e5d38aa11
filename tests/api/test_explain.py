"""The page of a diagnostic code (compiler/api/explain.py): who emits each code, read from the
rule registry and the stages, and the page built from it, which docs/codes/CODE.md is."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import get_args

import test_cases
from support import CASES, case_dirs

from compiler.api import explain
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
    assert explain.examples("EP017", CASES) == []
    assert "No case folder of the corpus (`tests/cases/ep017-*`) shows EP017 yet." in explain.page("EP017")


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
