"""compiler/api/editor.py: a plan's text as an editor holds it, checked as `check` checks its file;
the ranges the editor underlines; the one edit that turns a text into another. And
compiler/serve/positions.py: columns between code points and the client's units."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import case_dirs, sloppy_repository

from compiler.api.check import check_plans
from compiler.api.editor import Range, analyse, diagnostic_range, fixed_text, looks_like_plan, node_at, one_edit
from compiler.serve.positions import ENCODINGS, from_units, to_units


def plan_of(case: Path) -> Path | None:
    return next((p for p in sorted(case.iterdir()) if p.name.startswith("plan.") or ".plan." in p.name), None)


def rows(found: tuple[object, ...] | list[object]) -> list[tuple[object, ...]]:
    return [(d.code, d.location, d.message, d.hint) for d in found]  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in case_dirs() if plan_of(c) is not None], ids=lambda c: c.name)
def test_the_editor_gets_the_diagnostics_check_gives_for_the_same_file(case: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        ) -> None:
    """The whole case corpus: what the editor shows for a file's text is what `check` says of the file."""
    plan = plan_of(case)
    assert plan is not None
    monkeypatch.chdir(case)
    raw = plan.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: an editor holds text, which this file is not")
    checked = check_plans([plan.name], fixes=True)
    analysis = analyse(os.path.abspath(plan.name), text, name=plan.name)
    assert analysis is not None
    assert rows(analysis.diagnostics) == rows(checked.diagnostics)
    assert [d.fix for d in analysis.diagnostics] == [d.fix for d in checked.diagnostics]


def test_a_file_not_named_as_a_plan_is_one_only_with_a_plans_shape(tmp_path: Path) -> None:
    assert looks_like_plan({"items": [{"id": "a"}]}) and looks_like_plan([{"id": "a", "change": "x"}])
    assert not looks_like_plan({"services": {"web": {}}}) and not looks_like_plan({"items": ["a"]})
    compose = str(tmp_path / "compose.yaml")
    assert analyse(compose, "services:\n  web:\n    image: x\n") is None
    assert analyse(compose, "services: [\n") is None  # half-typed, not named a plan: nothing said
    found = analyse(str(tmp_path / "plan.yaml"), "items: [\n")  # named a plan: its input error
    assert found is not None and [d.code for d in found.diagnostics] == ["EP002"] and not found.readable
    assert analyse(compose, "items:\n  - id: a\n    change: x\n") is not None


def test_ranges_cover_the_scalar_or_key_a_diagnostic_starts(tmp_path: Path) -> None:
    root = sloppy_repository(tmp_path)
    text = (root / "plan.yaml").read_text(encoding="utf-8")
    analysis = analyse(str(root / "plan.yaml"), text, name="plan.yaml")
    assert analysis is not None
    shown = {d.code: analysis.lines[r.line][r.column:r.end_column]
             for d in analysis.diagnostics for r in [diagnostic_range(analysis, d)]}
    assert shown["EP201"] == "app/acounts.py:12"
    assert shown["EP301"] == "implementaton"
    assert shown["EP102"] == "id"  # the item's first key, where it is reported
    quoted = text.replace("contains: \"def create_account\"", "contains: \"def x, ]\"  # a comment")
    found = analyse(str(root / "plan.yaml"), quoted, name="plan.yaml")
    assert found is not None
    ep203 = next(d for d in found.diagnostics if d.code == "EP203")
    r = diagnostic_range(found, ep203)
    assert found.lines[r.line][r.column:r.end_column] == '"def x, ]"'


def test_the_node_under_a_place_counts_its_end_and_not_beyond(tmp_path: Path) -> None:
    root = sloppy_repository(tmp_path)
    analysis = analyse(str(root / "plan.yaml"), (root / "plan.yaml").read_text(encoding="utf-8"), name="plan.yaml")
    assert analysis is not None
    line = analysis.lines.index("  - id: contract")
    assert node_at(analysis, line, 8) == node_at(analysis, line, 16)  # its first and just past its last
    found = node_at(analysis, line, 8)
    assert found is not None and (found.path, found.value, found.key) == (("items", 0, "id"), "contract", False)
    assert node_at(analysis, line, 7) is None  # the blank between the key's colon and the value
    key = node_at(analysis, line, 4)
    assert key is not None and key.key and key.value == "id"


def test_fixed_text_is_what_fix_writes(tmp_path: Path) -> None:
    from support import run

    root = sloppy_repository(tmp_path)
    text = (root / "plan.yaml").read_text(encoding="utf-8")
    analysis = analyse(str(root / "plan.yaml"), text, name="plan.yaml")
    assert analysis is not None
    fixed = fixed_text(analysis)
    assert run("fix", str(root / "plan.yaml")).exit_code in (0, 1)
    assert fixed == (root / "plan.yaml").read_text(encoding="utf-8") != text
    done = analyse(str(root / "plan.yaml"), fixed, name="plan.yaml")
    assert done is not None and fixed_text(done) is None  # nothing left that fix would write


@given(st.text(alphabet="ab\n😀é", max_size=12), st.text(alphabet="ab\n😀é", max_size=12))
def test_one_edit_makes_the_after_text(before: str, after: str) -> None:
    at, new = one_edit(before, after)
    lines = before.split("\n")
    start = sum(len(line) + 1 for line in lines[:at.line]) + at.column
    end = sum(len(line) + 1 for line in lines[:at.end_line]) + at.end_column
    assert before[:start] + new + before[end:] == after
    assert at == Range.between((at.line, at.column), (at.end_line, at.end_column))


@given(st.text(alphabet="a\t😀é\u2028\U0010ffff", max_size=10), st.integers(0, 12))
def test_columns_go_to_the_clients_units_and_back(line: str, column: int) -> None:
    for encoding in ENCODINGS:
        units = to_units(line, column, encoding)
        assert from_units(line, units, encoding) == min(column, len(line))
    assert to_units("😀a", 1, "utf-16") == 2 and to_units("😀a", 1, "utf-8") == 4 and to_units("😀a", 1, "utf-32") == 1
    assert from_units("😀a", 1, "utf-16") == 0  # inside the pair: the character's start
    assert from_units("😀a", 99, "utf-16") == 2  # past the end: the end
