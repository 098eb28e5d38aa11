"""compiler/checks/phases.py and compiler/analysis/phases.py: an item's optional `phase` groups it;
the plan's phases are in the order each first appears; no item may depend on an item of a later
phase (EP312, at that depends_on entry, with a note at the later item's phase). Waves stay computed
from the dependencies alone."""

from __future__ import annotations

from support import codes, compile_yaml, only, rows

from compiler.compile.emit import build_output
from compiler.render.markdown import render_markdown

MIGRATION = """
items:
  - id: extract
    phase: extract
    change: Pull the planner's node helpers out
    evidence: [a.py]
    proof: pytest tests/unit -q
  - id: extract-tests
    phase: extract
    change: Unit tests of the helpers
    evidence: [a.py]
    depends_on: [extract]
    proof: pytest tests/unit -q
  - id: switch
    phase: switch
    change: Call the helpers
    evidence: [b.py]
    depends_on: [extract-tests]
    proof: pytest tests/regression -q
  - id: cleanup
    phase: cleanup
    change: Remove the old code
    evidence: [b.py]
    depends_on: [switch]
    proof: pytest -q
"""


def test_a_plan_whose_phases_follow_its_dependencies_is_ready() -> None:
    result = compile_yaml(MIGRATION)
    assert codes(result) == [] and result.status == "ready"
    assert [list(w) for w in result.waves] == [["extract"], ["extract-tests"], ["switch"], ["cleanup"]]


def test_ep312_an_item_that_needs_a_later_phase_is_located_at_that_dependency() -> None:
    text = MIGRATION.replace("    depends_on: [extract]\n", "    depends_on: [extract, cleanup]\n").replace(
        "    depends_on: [switch]\n", "")
    d = only(compile_yaml(text), "EP312")
    assert rows([d]) == [("EP312", "extract-tests", 11, 27)]
    assert d.message == ("extract-tests (phase extract, 1 of 3) depends on cleanup, of the later phase cleanup"
                         " (3 of 3): the dependency runs backwards across phases")
    (note,) = d.notes
    assert note.message == "cleanup is in phase cleanup" and note.location and note.location.line == 20
    assert "move cleanup to phase extract or an earlier one" in (d.hint or "")


def test_phases_are_ordered_by_first_appearance_not_by_name() -> None:
    # `b-late` appears first, so it is phase 1: an item of `a-early` (phase 2) may depend on it.
    text = """
    items:
      - {id: one, phase: b-late, change: c, evidence: [a.py], proof: make one}
      - {id: two, phase: a-early, change: c, evidence: [a.py], proof: make two, depends_on: [one]}
      - {id: three, phase: b-late, change: c, evidence: [a.py], proof: make three, depends_on: [two]}
    """
    d = only(compile_yaml(text), "EP312")
    assert rows([d]) == [("EP312", "three", 4, 93)]


def test_items_without_a_phase_and_unknown_or_repeated_dependencies_are_left_to_other_rules() -> None:
    text = """
    items:
      - {id: one, phase: late, change: c, evidence: [a.py], proof: make one}
      - {id: two, change: c, evidence: [a.py], proof: make two, depends_on: [one]}
      - {id: zero, phase: early, change: c, evidence: [a.py], proof: make z, depends_on: [two, ghost, zero]}
      - {id: four, phase: early, change: c, evidence: [a.py], proof: make f, depends_on: [five, five]}
      - {id: five, phase: last, change: c, evidence: [a.py], proof: make five}
    """
    result = compile_yaml(text)
    found = [d for d in result.diagnostics if d.code == "EP312"]
    assert [(d.item, d.location.line if d.location else None) for d in found] == [("four", 5)]  # once, not twice
    assert {"EP301", "EP302", "EP304"} <= set(codes(result))  # ghost, zero on itself, five twice


def test_a_blank_phase_is_no_phase() -> None:
    result = compile_yaml("""
    items:
      - {id: one, phase: "  ", change: c, evidence: [a.py], proof: make one}
      - {id: two, phase: x, change: c, evidence: [a.py], proof: make two, depends_on: [one]}
    """)
    assert codes(result) == []
    page = render_markdown(build_output(result))
    assert "## Phase 1: x · Wave 2" in page and "## Wave 1 · no phase" in page


def test_the_markdown_groups_items_by_phase_then_wave() -> None:
    text = MIGRATION + """\
  - id: docs
    change: Document it
    evidence: [a.py]
    proof: make docs
"""
    result = compile_yaml(text)
    page = render_markdown(build_output(result))
    headings = [line for line in page.splitlines() if line.startswith("## ") and "Wave" in line]
    assert headings == ["## Phase 1: extract · Wave 1", "## Phase 1: extract · Wave 2", "## Phase 2: switch · Wave 3",
                        "## Phase 3: cleanup · Wave 4", "## Wave 1 · no phase"]


def test_a_phase_name_is_escaped_in_the_headings() -> None:
    result = compile_yaml("""
    items:
      - {id: one, phase: "*bold* <b>", change: c, evidence: [a.py], proof: make one}
    """)
    page = render_markdown(build_output(result))
    assert "## Phase 1: \\*bold\\* &lt;b&gt; · Wave 1" in page


def test_a_plan_without_phases_keeps_its_headings() -> None:
    page = render_markdown(build_output(compile_yaml(MIGRATION.replace("    phase: ", "    #phase: "))))
    assert "## Wave 1\n" in page and "Phase" not in page
