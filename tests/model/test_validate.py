"""Stage 2: compiler.model.validate.build_plan on loaded documents: the field validation codes
EP010-EP014 (unknown fields, wrong types, missing ids, conflicting fields, bad evidence), the
items it makes (``to_input``, ``to_dict``), the shapes of plan files, and one bad item never
hiding the others.

Every diagnostic is asserted with its exact code, item and line (and column where the place is
unambiguous). Elsewhere: how evidence references parse into ``Evidence`` values is
tests/model/test_references.py; a document that is no plan at all (EP004, compiler.load.document.plan_shape)
tests/load/test_load.py; the checks that run on validated items tests/checks/.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from support import rows

from compiler.compile.emit import build_output
from compiler.compile.pipeline import compile_document, compile_plan
from compiler.core.diagnostics import Diagnostic
from compiler.load.document import Document, parse_text
from compiler.model.output_model import CompiledPlan
from compiler.model.references import item_input
from compiler.model.validate import build_plan
from compiler.model.values import Evidence, Item, Plan
from compiler.render.markdown import render_markdown


def doc(text: str, name: str = "plan.yaml") -> Document:
    fmt = "json" if name.endswith(".json") else "yaml"
    return parse_text(textwrap.dedent(text).lstrip("\n"), name, fmt)  # type: ignore[arg-type]


def plan(text: str, name: str = "plan.yaml") -> Plan:
    return build_plan(doc(text, name))


def only(p: Plan) -> Diagnostic:
    assert len(p.diagnostics) == 1, [d.message for d in p.diagnostics]
    return p.diagnostics[0]


GOOD = """
plan: demo
goal: Show the model
root: .
items:
  - id: contract
    change: Define the behaviour
    evidence:
      - tests/test_x.py:44
    proof: python -m pytest tests/test_x.py
  - id: implementation
    change: Implement it
    evidence:
      - path: app/x.py
        lines: 18-24
        contains: "def create"
    depends_on: [contract]
    proof: python -m pytest
"""


def test_a_good_plan_has_no_diagnostics() -> None:
    p = plan(GOOD)
    assert p.diagnostics == ()
    assert (p.name, p.goal, p.root, p.item_count, p.items_path) == ("demo", "Show the model", ".", 2, ("items",))
    assert p.known_ids == {"contract", "implementation"}
    assert p.items[0] == Item(
        "contract", "Define the behaviour", (Evidence(path="tests/test_x.py", start=44, end=44),), (),
        "python -m pytest tests/test_x.py", 0,
    )
    assert p.items[1].depends_on == ("contract",)
    assert p.items[1].evidence == (Evidence(path="app/x.py", start=18, end=24, contains="def create"),)
    assert p.items[1].position == 1
    assert p.items[1].depends_key == "depends_on"


def test_optional_fields_default_to_empty() -> None:
    p = plan("items:\n  - id: a\n")
    assert p.diagnostics == ()
    assert p.items == (Item("a", "", (), (), "", 0),)
    assert (p.name, p.goal, p.root) == (None, None, None)


# --- EP010: unknown fields ----------------------------------------------------------------------

EP010 = [
    # (text, message, item, line, column): located at the key
    (
        """
        items:
          - id: a
            change: x
            depend_on: [b]
        """,
        "a has unknown field 'depend_on' (did you mean depends_on?)", "a", 4, 5,
    ),
    (
        """
        items:
          - id: a
            prof: make test
        """,
        "a has unknown field 'prof' (did you mean proof?)", "a", 3, 5,
    ),
    (
        """
        items:
          - id: a
            owner: me
        """,
        "a has unknown field 'owner'", "a", 3, 5,
    ),
    (
        """
        items:
          - id: a
            evidence:
              - {pth: a.py}
        """,
        "a evidence 1 has unknown field 'pth' (did you mean path?)", "a", 4, 10,
    ),
    (
        """
        plan: x
        item: []
        items: []
        """,
        "unknown plan field 'item' (did you mean items?)", None, 2, 1,
    ),
    (
        """
        items: []
        status: ready
        """,
        "unknown plan field 'status'", None, 2, 1,
    ),
]


@pytest.mark.parametrize(("text", "message", "item", "line", "column"), EP010)
def test_ep010_unknown_field(text: str, message: str, item: str | None, line: int, column: int) -> None:
    d = only(plan(text))
    assert rows([d]) == [("EP010", item, line, column)]
    assert d.message == message
    assert d.severity == "error"


def test_ep010_item_without_id_missing_id_too() -> None:
    # `wave` is unknown outside a compiled plan, and the id is missing: both are said.
    p = plan("items:\n  - change: x\n    wave: 2\n")
    assert sorted(rows(p.diagnostics)) == [("EP010", None, 3, 5), ("EP012", None, 2, 5)]


# --- EP011: wrong types -------------------------------------------------------------------------

EP011 = [
    ("items:\n  - id: 12\n", "item 1: id must be text, not the number 12", None, 2, 9),
    ("items:\n  - id: a\n    proof: [python, 3]\n", "a: proof must be text, not a list", "a", 3, 12),
    ("items:\n  - id: a\n    proof: {run: pytest}\n", "a: proof must be text, not a mapping", "a", 3, 12),
    ("items:\n  - id: a\n    change: true\n", "a: change must be text, not true/false", "a", 3, 13),
    ("items:\n  - just a string\n",
     "item 1 must be a mapping with id, change, evidence, depends_on and proof, not text", None, 2, 5),
    ("items:\n  - 42\n",
     "item 1 must be a mapping with id, change, evidence, depends_on and proof, not the number 42", None, 2, 5),
    ("items:\n  - [id, a]\n",
     "item 1 must be a mapping with id, change, evidence, depends_on and proof, not a list", None, 2, 5),
    ("items:\n  - id: a\n    evidence: [a.py, 7]\n",
     "a: evidence[1] must be text or a mapping, not the number 7", "a", 3, 22),
    ("items:\n  - id: a\n    evidence: a.py\n", "a: evidence must be a list, not text", "a", 3, 15),
    ("items:\n  - id: a\n    depends_on: b\n", "a: depends_on must be a list, not text", "a", 3, 17),
    ("items:\n  - id: a\n    dependencies: b\n", "a: dependencies must be a list, not text", "a", 3, 19),
    ("items:\n  - id: a\n    depends_on: [b, 4]\n", "a: depends_on[1] must be text, not the number 4", "a", 3, 21),
    ("items:\n  - id: a\n    evidence:\n      - {path: a.py, line: '3'}\n",
     "a evidence 1: line must be a whole number, not text", "a", 4, 28),
    ("goal: 3\nitems: []\n", "plan field goal must be text, not the number 3", None, 1, 7),
    ("plan: [x]\nitems: []\n", "plan field plan must be text, not a list", None, 1, 7),
    ("root: 5\nitems: []\n", "plan field root must be text, not the number 5", None, 1, 7),
]


@pytest.mark.parametrize(("text", "message", "item", "line", "column"), EP011)
def test_ep011_wrong_type(text: str, message: str, item: str | None, line: int, column: int) -> None:
    d = only(plan(text))
    assert rows([d]) == [("EP011", item, line, column)]
    assert d.message == message


def test_ep011_in_json() -> None:
    p = plan('{"items": [\n  {"id": "a", "proof": [1]},\n  {"id": 7}\n]}', "plan.json")
    assert rows(p.diagnostics) == [("EP011", "a", 2, 24), ("EP011", None, 3, 10)]


# --- EP012: missing or empty id ------------------------------------------------------------------

EP012 = [
    ("items:\n  - change: x\n    proof: p\n", "item 1 has no id", 2, 5),
    ("items:\n  - {change: x}\n", "item 1 has no id", 2, 5),
    ('items:\n  - id: ""\n', "item 1 has an empty id", 2, 9),
    ("items:\n  - id: a\n  - id: '   '\n", "item 2 has an empty id", 3, 9),
]


@pytest.mark.parametrize(("text", "message", "line", "column"), EP012)
def test_ep012_missing_or_empty_id(text: str, message: str, line: int, column: int) -> None:
    d = only(plan(text))
    assert rows([d]) == [("EP012", None, line, column)]
    assert d.message == message


# --- EP013: depends_on and dependencies ----------------------------------------------------------


def test_ep013_both_depends_on_and_dependencies_points_at_dependencies() -> None:
    p = plan("""
        items:
          - id: a
          - id: b
            depends_on: [a]
            change: x
            dependencies: [a]
    """)
    d = only(p)
    assert rows([d]) == [("EP013", "b", 6, 5)]
    assert d.message == "b gives both depends_on and dependencies (an alias): keep one"
    assert [(i.id, i.broken) for i in p.items] == [("a", ()), ("b", ("dependencies",))]


def test_dependencies_alias_is_accepted() -> None:
    p = plan("items:\n  - id: a\n  - id: b\n    dependencies: [a]\n")
    assert p.diagnostics == ()
    assert p.items[1].depends_on == ("a",)
    assert p.items[1].depends_key == "dependencies"
    assert p.items[1].to_dict()["depends_on"] == ["a"]


# --- EP014: bad evidence -------------------------------------------------------------------------

EP014 = [
    # (evidence entry as YAML, message, column of the place): the entry is on line 4
    ("a.py:0", "a: evidence 'a.py:0': line numbers start at 1", 9),
    ("a.py:20-10", "a: evidence 'a.py:20-10': the range 20-10 is reversed", 9),
    ("a.py:0-3", "a: evidence 'a.py:0-3': line numbers start at 1", 9),
    ("'::sym'", "a: evidence '::sym' needs both a path and a symbol (path::symbol)", 9),
    ("'a.py::'", "a: evidence 'a.py::' needs both a path and a symbol (path::symbol)", 9),
    ("':12'", "a: evidence ':12' has no path", 9),
    ("'  '", "a: evidence is empty", 9),
    ("{path: a.py, line: 3, lines: 4-5}", "a: give either line or lines, not both", 38),
    ("{line: 3}", "a: evidence needs a path (or a url)", 9),
    ("{path: '', line: 3}", "a: evidence needs a path (or a url)", 16),
    ("{path: a.py, lines: 9-2}", "a: the range 9-2 is reversed", 29),
    ("{path: a.py, lines: 0}", "a: line numbers start at 1", 29),
    ("{path: a.py, lines: x-y}", "a: lines 'x-y' must be START-END, e.g. 18-24", 29),
    ("{path: a.py, symbol: f, line: 3}", "a: give either a symbol or lines, not both", 30),
    ("{url: nope}", "a: 'nope' is not a URL", 15),
    ("{url: 'https://x.org', path: a.py}", "a: evidence with a url takes no path, line, lines or symbol", 15),
]


@pytest.mark.parametrize(("entry", "message", "column"), EP014)
def test_ep014_bad_evidence(entry: str, message: str, column: int) -> None:
    p = plan(f"items:\n  - id: a\n    evidence:\n      - {entry}\n    proof: p\n")
    d = only(p)
    assert rows([d]) == [("EP014", "a", 4, column)]
    assert d.message == message
    # The item is still checked by what could be read of it; the entry is left out, and the rule
    # about items without evidence (EP101) leaves it alone: only() saw one diagnostic.
    assert [(i.id, i.evidence, i.broken) for i in p.items] == [("a", (), ("evidence",))]


def test_ep014_object_line_zero() -> None:
    d = only(plan("items:\n  - id: a\n    evidence:\n      - {path: a.py, line: 0}\n"))
    assert rows([d]) == [("EP014", "a", 4, 28)]


def test_several_bad_evidence_entries_are_all_reported() -> None:
    p = plan("""
        items:
          - id: a
            evidence:
              - a.py:0
              - ok.py
              - {line: 2}
              - 5
    """)
    assert rows(p.diagnostics) == [("EP014", "a", 4, 9), ("EP014", "a", 6, 9), ("EP011", "a", 7, 9)]


# --- Items as values --------------------------------------------------------------------------------


def test_item_to_input_and_to_dict() -> None:
    item = plan(GOOD).items[1]
    assert item.to_dict() == {
        "id": "implementation",
        "change": "Implement it",
        "evidence": [{"path": "app/x.py", "lines": "18-24", "contains": "def create"}],
        "depends_on": ["contract"],
        "proof": "python -m pytest",
    }
    assert item_input(plan(GOOD).items[0])["evidence"] == ["tests/test_x.py:44"]


# --- Shapes of plan files -------------------------------------------------------------------------


def test_top_level_list_of_items() -> None:
    p = plan("""
        - id: a
          change: x
        - id: b
          depend_on: [a]
    """)
    assert p.items_path == ()
    assert [(i.id, i.broken) for i in p.items] == [("a", ()), ("b", ("depend_on",))]
    assert p.item_count == 2
    assert rows(p.diagnostics) == [("EP010", "b", 4, 3)]


def test_compiled_evidence_plan_json_is_read_back(repo: Path) -> None:
    text = (repo / "outputs" / "evidence-plan.json").read_text(encoding="utf-8")
    compiled = json.loads(text)
    assert "wave" in compiled["items"][0] and "status" in compiled
    p = build_plan(parse_text(text, "evidence-plan.json", "json"))
    assert p.diagnostics == ()
    assert [i.id for i in p.items] == [i["id"] for i in compiled["items"]]
    # The output-only keys (wave, and each entry's resolved lines and hash) are read past.
    output_only = ("resolved_lines", "hash")
    written = [{**{k: v for k, v in i.items() if k != "wave"},
                "evidence": [{k: v for k, v in ev.items() if k not in output_only} for ev in i["evidence"]]}
               for i in compiled["items"]]
    assert all("hash" in ev for i in compiled["items"] for ev in i["evidence"])
    assert [i.to_dict() for i in p.items] == written
    assert (p.name, p.goal) == (compiled["plan"], compiled["goal"])


def test_compiled_keys_need_the_compiled_format() -> None:
    # Without `format: evidence-plan/...`, compiled keys and `wave` are unknown fields.
    p = plan("""
        status: ready
        waves: [[a]]
        items:
          - id: a
            wave: 1
    """)
    assert rows(p.diagnostics) == [("EP010", None, 1, 1), ("EP010", None, 2, 1), ("EP010", "a", 5, 5)]


def test_compiled_plan_still_rejects_other_unknown_fields() -> None:
    p = plan("""
        format: evidence-plan/1
        status: blocked
        issues: []
        summary: {items: 1}
        owner: me
        items:
          - {id: a, wave: 1, colour: red}
    """)
    assert rows(p.diagnostics) == [("EP010", None, 5, 1), ("EP010", "a", 7, 22)]


# --- One bad item never hides the others -----------------------------------------------------------


def test_two_bad_items_are_both_reported() -> None:
    p = plan("""
        items:
          - id: a
            change: x
            depend_on: [b]
          - id: b
            change: x
          - id: c
            proof: [1]
    """)
    assert rows(p.diagnostics) == [("EP010", "a", 4, 5), ("EP011", "c", 8, 12)]  # no EP102 for c's proof
    assert [(i.id, i.broken) for i in p.items] == [("a", ("depend_on",)), ("b", ()), ("c", ("proof",))]
    assert p.item_count == 3


def test_several_problems_in_one_item_are_all_reported() -> None:
    p = plan("""
        items:
          - id: a
            change: 1
            proof: 2
            colour: red
    """)
    assert sorted(rows(p.diagnostics)) == [("EP010", "a", 5, 5), ("EP011", "a", 3, 13), ("EP011", "a", 4, 12)]


def test_invalid_items_ids_are_known_no_cascading_ep301() -> None:
    d = doc("""
        items:
          - id: a
            change: Do a
            evidence: [a.py]
            proof: make a
            depend_on: []
          - id: b
            change: Do b
            evidence: [b.py]
            depends_on: [a, zz]
            proof: make b
    """)
    assert build_plan(d).known_ids == {"a", "b"}
    result = compile_document(d, "plan.yaml", verify_evidence=False)
    assert rows(result.diagnostics) == [("EP010", "a", 6, 5), ("EP301", "b", 10, 21)]
    assert result.diagnostics[1].message == "b depends on unknown items: zz"
    assert result.status == "blocked"
    assert result.waves == ()


# --- every problem of an item in one run (issue 11) ---------------------------------------------


def test_a_misspelt_key_does_not_hide_the_items_missing_evidence(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("a\nb\nc\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(
        "items:\n"
        "  - id: one\n"
        "    change: Do one\n"
        "    evidence: [missing.py:1, a.py:9]\n"
        "    depends: [two]\n"
        "    proof: pytest\n", encoding="utf-8")
    result = compile_plan(str(tmp_path / "plan.yaml"))
    assert rows(result.diagnostics) == [("EP201", "one", 4, 16), ("EP202", "one", 4, 30), ("EP010", "one", 5, 5)]
    assert [(i.id, i.broken) for i in result.plan.items] == [("one", ("depends",))]


def test_one_bad_evidence_entry_does_not_hide_the_others_and_they_keep_their_lines(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("a\nb\nc\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(
        "items:\n"
        "  - id: two\n"
        "    change: Do two\n"
        "    evidence:\n"
        "      - {path: a.py, line: 0}\n"
        "      - a.py:7\n"
        "      - {path: a.py, lines: 5-9}\n"
        "    proof: pytest\n", encoding="utf-8")
    result = compile_plan(str(tmp_path / "plan.yaml"))
    # Each at its own entry: the first entry, left out, does not shift the others' places.
    assert rows(result.diagnostics) == [("EP014", "two", 5, 28), ("EP202", "two", 6, 9), ("EP202", "two", 7, 29)]
    item = result.plan.items[0]
    assert [e.ref() for e in item.evidence] == ["a.py:7", "a.py:5-9"] and item.evidence_at == (1, 2)


def test_a_blocked_report_lists_every_item_and_flags_the_ones_not_read_whole(tmp_path: Path) -> None:
    (tmp_path / "plan.yaml").write_text(
        "items:\n"
        "  - {id: a, change: x, evidence: [a.py], proof: p}\n"
        "  - {id: b, change: x, evidence: [a.py], depend_on: [a], proof: p}\n"
        "  - just a string\n"
        "  - {change: no id, evidence: [a.py], proof: p}\n"
        "  - {id: e, change: x, evidence: [a.py, 'a.py:0'], proof: 7}\n", encoding="utf-8")
    document = build_output(compile_plan(str(tmp_path / "plan.yaml"), verify_evidence=False), str(tmp_path))
    assert [(i["id"], i.get("invalid")) for i in document["items"]] == [
        ("a", None), ("b", ["depend_on"]), ("", ["id"]), ("", ["id"]), ("e", ["proof", "evidence"])]
    assert document["summary"]["items"] == 5
    assert document["items"][3]["change"] == "no id"
    assert document["items"][4]["evidence"] == [{"path": "a.py"}]
    CompiledPlan.model_validate(document)
    markdown = render_markdown(document, base=".")
    assert "### `b` · not read: `depend_on`" in markdown
    assert markdown.count("### _no id_ · not read: `id`") == 2


def test_fix_edits_the_entry_meant_when_an_earlier_entry_could_not_be_read(tmp_path: Path) -> None:
    from compiler.cli import main

    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("one\ntwo\nthree\nfour\n", encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "items:\n"
        "  - id: a\n"
        "    change: c\n"
        "    evidence:\n"
        "      - {path: a.py, line: 0}\n"
        "      - {path: a.py, line: 1, contains: four}\n"
        "    proof: p\n", encoding="utf-8")
    assert main(["fix", str(plan)]) == 1  # the unreadable entry is left for the writer
    assert plan.read_text(encoding="utf-8").splitlines()[4:6] == [
        "      - {path: a.py, line: 0}", "      - {path: a.py, line: 4, contains: four}"]


@pytest.mark.parametrize(("text", "line", "column", "message"), [
    ("title: P\nitems: []\n", 1, 1, "unknown plan field 'title' (did you mean plan?)"),
    ("description: G\nitems: []\n", 1, 1, "unknown plan field 'description' (did you mean goal?)"),
    ("items:\n  - id: a\n    summary: x\n", 3, 5, "a has unknown field 'summary' (did you mean change?)"),
    ("items:\n  - id: a\n    evidence:\n      - {file: a.py}\n", 4, 10,
     "a evidence 1 has unknown field 'file' (did you mean path?)"),
    ("items:\n  - id: a\n    evidence:\n      - {path: a.py, line_range: 1-2}\n", 4, 22,
     "a evidence 1 has unknown field 'line_range' (did you mean lines?)"),
    ("items:\n  - id: a\n    evidence:\n      - {path: a.py, text: x}\n", 4, 22,
     "a evidence 1 has unknown field 'text' (did you mean contains?)"),
])
def test_the_synonyms_writers_use_suggest_the_field_they_mean(text: str, line: int, column: int,
                                                               message: str) -> None:
    d = next(d for d in plan(text).diagnostics if d.code == "EP010")
    assert (d.location.line, d.location.column, d.message) == (line, column, message)  # type: ignore[union-attr]


@pytest.mark.parametrize(("entry", "message"), [
    ("src/a.py#L10-L20", "a: evidence 'src/a.py#L10-L20' is written as a GitHub anchor: write 'src/a.py:10-20'"),
    ("src/a.py#L10", "a: evidence 'src/a.py#L10' is written as a GitHub anchor: write 'src/a.py:10'"),
    ("src/a.py:L10", "a: evidence 'src/a.py:L10' is written as an L before the line number: write 'src/a.py:10'"),
    ("src/a.py:L5-L9", "a: evidence 'src/a.py:L5-L9' is written as an L before the line number: write 'src/a.py:5-9'"),
    ("src/a.py:511:7", "a: evidence 'src/a.py:511:7' is written as LINE:COLUMN: write 'src/a.py:511'"),
])
def test_line_notations_of_other_tools_are_answered_with_the_reference_they_mean(entry: str, message: str) -> None:
    d = only(plan(f"items:\n  - id: a\n    evidence:\n      - {entry}\n"))
    assert (d.code, d.item, d.location.line, d.location.column, d.message) == (  # type: ignore[union-attr]
        "EP014", "a", 4, 9, message)


@pytest.mark.parametrize(("field", "text", "hint"), [
    ("depends_on", "depends_on: b", "a list, even of one: write [b]"),
    ("evidence", "evidence: src/a.py:1", "a list, even of one: write [src/a.py:1]"),
    ("lines", "evidence: [{path: a.py, lines: [511, 579]}]", "a range is text: write lines: 511-579"),
])
def test_shapes_people_write_get_one_message_with_the_fix(field: str, text: str, hint: str) -> None:
    d = only(plan(f"items:\n  - id: a\n    {text}\n  - id: b\n"))
    assert (d.code, d.item, d.location.line, d.hint) == ("EP011", "a", 3, hint)  # type: ignore[union-attr]
    assert field in d.message and "null" not in d.message and ".int" not in d.message
