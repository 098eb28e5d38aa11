"""The JSON Schemas (schemas/, `evidence-plan schema`) say what the tool enforces, checked with a
real validator (jsonschema, the dialect the schemas declare), both ways:

- a plan document is valid by schemas/plan.schema.json exactly when the tool finds no problem with
  its form: no EP004 and EP010-EP017, and none of EP101-EP103 (the checks that block an item
  without a change, evidence or proof: a schema-valid plan is one the tool does not block on its
  form), on the whole corpus, item by item, and on mutations of a valid item;
- every document compile writes is valid by schemas/evidence-plan.schema.json, and render reads it.

What JSON Schema cannot say is listed with its reason and a case that shows it: in one item, GAPS;
across items or in the text, CANNOT_SAY. Facts of the repository (a root that is not a folder,
EP006; evidence that is not there, EP2xx) are not the plan's form and no schema's to say.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support import compile_yaml, only

from compiler.analysis import approvals
from compiler.checks import budget as budget_checks
from compiler.checks import items as item_checks
from compiler.checks import status as status_checks
from compiler.checks.context import CheckContext
from compiler.compile.emit import build_output, dumps
from compiler.compile.pipeline import compile_plan
from compiler.core import ids
from compiler.core.diagnostics import PlanInputError
from compiler.load.document import load, parse_text, plan_shape
from compiler.model import references
from compiler.model.output_model import read_compiled
from compiler.model.validate import build_plan

REPO = Path(__file__).resolve().parents[2]
# The codes of a plan's form: the shape of the document, of an item and of its fields, and the
# commitments the checks block on. EP016 (confusable ids) compares ids: not the schema's to say.
# EP006 and EP111 in part only: a root that holds a NUL (a root that is not a folder is the repository's
# fact), and an approval record that is incomplete or not on an approval (a stale digest is the
# repository's and the plan's relation; an approved_at that is no date-time is `format`, which JSON
# Schema 2020-12 makes an annotation).
FORM = {"EP004", "EP006", "EP010", "EP011", "EP012", "EP013", "EP014", "EP015", "EP017", "EP018", "EP019",
        "EP101", "EP102", "EP103", "EP111", "EP401"}
_RECORD_FORM = ("it is not kind: approval", "its record has no ")
# File-level refusals: no document for a schema to see (unreadable, not YAML or JSON, a key given
# twice, which the data model of JSON loses, YAML-only constructs, sizes and counts past a limit).
FILE_LEVEL = {"EP001", "EP002", "EP003", "EP005", "EP007", "EP008"}


@cache
def schema(kind: str) -> dict[str, Any]:
    name = {"input": "plan.schema.json", "output": "evidence-plan.schema.json"}[kind]
    loaded: dict[str, Any] = json.loads((REPO / "schemas" / name).read_text(encoding="utf-8"))
    return loaded


@cache
def validator(kind: str) -> jsonschema.protocols.Validator:
    # The class the declared $schema names, not a default: a validator of another draft would
    # read keywords (items, if/then/else, $defs) differently.
    cls = jsonschema.validators.validator_for(schema(kind), default=None)
    assert cls is jsonschema.Draft202012Validator
    return cls(schema(kind))


def schema_accepts(data: Any) -> bool:
    return bool(validator("input").is_valid(data))


def form_codes(doc: Any) -> set[str]:
    """The tool's problems with the form of a loaded document (codes in FORM)."""
    try:
        plan = build_plan(doc)
    except PlanInputError as err:
        return {err.diagnostic.code} & FORM
    found = {d.code for d in plan.diagnostics}
    if plan.root is not None and "\x00" in plan.root:  # compile_document refuses it before any check
        found.add("EP006")
    if any(p.reason.startswith(_RECORD_FORM) for item in plan.items for p in approvals.problems(item, None)):
        found.add("EP111")
    ctx = CheckContext(plan, doc)
    for check in (item_checks.no_evidence, item_checks.no_proof, item_checks.no_change, item_checks.id_grammar,
                  status_checks.missing_reason, budget_checks.no_plan):
        found |= {d.code for d in check(ctx)}
    return found & FORM


def tool_accepts(data: Any) -> bool:
    return not form_codes(parse_text(json.dumps(data), "plan.json", "json"))


# --- what JSON Schema cannot say ----------------------------------------------------------------

def _reversed(text: Any) -> bool:
    m = re.search(r"(\d+)\s*-\s*(\d+)\s*$", text) if isinstance(text, str) else None
    return m is not None and int(m.group(2)) < int(m.group(1))


def _evidence_of(item: Any) -> list[Any]:
    evidence = item.get("evidence") if isinstance(item, dict) else None
    return evidence if isinstance(evidence, list) else []


def _has_reversed_range(item: Any) -> bool:
    return any(_reversed(e) or (isinstance(e, dict) and _reversed(e.get("lines"))) for e in _evidence_of(item))


def _non_ascii_id_refused(item: Any) -> bool:
    """An id with a visible non-ASCII character that is not a letter, digit or mark, or that
    starts with a mark."""
    ident = item.get("id") if isinstance(item, dict) else None
    if not isinstance(ident, str) or not ident or ident.isascii():
        return False
    return unicodedata.category(ident[0])[0] == "M" or any(
        not ch.isascii() and unicodedata.category(ch)[0] not in "LNMCZ" for ch in ident)


def _other_digits(item: Any) -> bool:
    """A string reference whose last colon is followed by digits of another script (a.py:٠)."""
    return any(isinstance(e, str) and ":" in e and any(ch.isdigit() and not ch.isascii() for ch in e.rsplit(":", 1)[1])
               for e in _evidence_of(item))


# Each gap: why JSON Schema cannot say it, and whether an item shows it. Items only: ids unique
# and unlike each other (EP104, EP016) and dependencies on ids the plan defines (EP301-EP303) are
# facts about several items, never codes in FORM; duplicate keys and YAML-only constructs are
# file-level (FILE_LEVEL).
GAPS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "reversed range": ("a pattern cannot compare two numbers: `a.py:5-3` and `lines: 5-3` pass the schema,"
                       " EP014 refuses them", _has_reversed_range),
    "non-ASCII id": ("the id grammar's 'letters and digits of any script' needs ECMA-262's \\p{L}, which"
                     " Python's jsonschema (re) cannot read: beyond ASCII the schema refuses only invisible"
                     " characters (ids.INVISIBLE); EP015 refuses the rest (`a€`, a leading combining mark)",
                     _non_ascii_id_refused),
    "other scripts' digits": ("the code's \\d reads a.py:٠ as line 0 (and a.py:٣ as line 3), where a pattern's"
                              " \\d is ASCII in ECMA-262: the schema reads [0-9], so a.py:٠ is a path to it",
                              _other_digits),
}


# Beyond one item: what the tool refuses that a schema cannot see, each with a plan that shows it
# (valid by the schema) and the code the tool gives. JSON Schema validates each value on its own
# (uniqueItems compares whole items, never one key of them), and sees JSON data, not the text.
def _plan(*items: tuple[str, list[str]]) -> str:
    return json.dumps([{"id": ident, "change": "c", "evidence": ["a.py"], "depends_on": deps, "proof": "p"}
                       for ident, deps in items])


CANNOT_SAY: dict[str, tuple[str, str, str]] = {
    "duplicate ids": ("no keyword compares one key across the items of a list", _plan(("a", []), ("a", [])),
                      "EP104"),
    "confusable ids": ("looking alike is a relation between ids, and a fact of Unicode's data",
                       _plan(("contract", []), ("c\u043entract", [])), "EP016"),
    "ids of mixed scripts": ("a pattern would need each letter's Unicode script (\\p{Script=...}, u flag only)",
                             _plan(("\u0430dd", [])), "EP016"),
    "unknown dependencies": ("a dependency names another item's id: a schema has no reference by value",
                             _plan(("a", ["b"])), "EP301"),
    "self-dependencies": ("the same: a value compared with another key of its item", _plan(("a", ["a"])), "EP302"),
    "dependency cycles": ("a property of the graph of items", _plan(("a", ["b"]), ("b", ["a"])), "EP303"),
    "a key given twice": ("JSON's data model keeps one of them: the schema sees the last",
                          '{"items": [{"id": "a"}],'
                          ' "items": [{"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p"}]}', "EP003"),
    "YAML-only constructs": ("merge keys, tags and aliases are gone once the YAML is data",
                             "items:\n  - &x {id: a, change: c, evidence: [a.py], proof: p}\n  - {<<: *x, id: b}\n",
                             "EP005"),
}


def explained(item: Any) -> list[str]:
    return [name for name, (_, shows) in GAPS.items() if shows(item)]


# --- the corpus ----------------------------------------------------------------------------------

def _corpus() -> list[Path]:
    files = [*REPO.glob("examples/*/plan.*"), *REPO.glob("tests/cases/*/plan.*"), *REPO.glob("tests/golden/*.yaml")]
    files += [p for p in (REPO / "tests" / "hostile").iterdir() if p.suffix in (".yaml", ".yml", ".json")]
    return sorted(files)


CORPUS = _corpus()


def _loaded(path: Path) -> Any:
    """The document, or None when the tool refuses the file before it is one (FILE_LEVEL)."""
    try:
        return load(str(path))
    except PlanInputError as err:
        assert err.diagnostic.code in FILE_LEVEL, err.diagnostic
        return None


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(REPO)))
def test_the_plan_schema_accepts_a_corpus_file_exactly_when_the_tool_finds_its_form_right(path: Path) -> None:
    doc = _loaded(path)
    if doc is None:
        return
    codes = form_codes(doc)
    errors = [e.message[:200] for e in validator("input").iter_errors(doc.data)]
    if codes and not errors:  # every item the schema passes that the tool refuses must be a known gap
        _, raw_items, _ = plan_shape(doc)
        unexplained = [i for i in raw_items if not tool_accepts([i]) and schema_accepts([i]) and not explained(i)]
        assert not unexplained, (codes, unexplained)
        assert any(explained(i) for i in raw_items), codes
        return
    assert bool(codes) == bool(errors), (sorted(codes), errors[:3])


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(REPO)))
def test_the_item_schema_agrees_with_the_tool_on_each_item_of_the_corpus(path: Path) -> None:
    doc = _loaded(path)
    data = doc.data if doc is not None else None
    raw_items = data if isinstance(data, list) else data.get("items") if isinstance(data, dict) else None
    if not isinstance(raw_items, list):
        return  # no items: the test above holds the document to the schema
    compiled = isinstance(data, dict) and "format" in data
    for index, item in enumerate(raw_items):
        try:
            json.dumps(item, allow_nan=False)
        except (TypeError, ValueError):
            continue  # not JSON data (a YAML .nan): the document test covers it
        document: Any = {**data, "items": [item]} if compiled else [item]
        tool, schema_says = tool_accepts(document), schema_accepts(document)
        if tool != schema_says:
            assert not tool and explained(item), (index, item, tool, schema_says)


@pytest.mark.hostile
def test_the_corpus_holds_plans_of_each_kind() -> None:
    """The agreement tests above mean something: they see valid and invalid plans of each form."""
    seen = {"valid": 0, "invalid": 0}
    for path in CORPUS:
        try:
            doc = load(str(path))
        except PlanInputError:
            continue
        seen["invalid" if form_codes(doc) else "valid"] += 1
    assert seen["valid"] >= 20 and seen["invalid"] >= 20, seen


# --- mutations of a valid item -------------------------------------------------------------------

VALID = {"id": "a", "change": "c", "evidence": ["app.py:3"], "depends_on": [], "proof": "pytest"}


def _with(**changes: Any) -> dict[str, Any]:
    item = {**VALID, **changes}
    return {k: v for k, v in item.items() if v is not _DROP}


_DROP: Any = object()
_E = "evidence"
# (what it shows, the item, whether the tool and the schema accept it)
MUTATIONS: list[tuple[str, dict[str, Any], bool]] = [
    ("valid", _with(), True),
    ("id with a space", _with(id="two words"), False),
    ("id starting with -", _with(id="-a"), False),
    ("id of 128 characters", _with(id="a" * 128), True),
    ("id of 129 characters", _with(id="a" * 129), False),
    ("id of 129 letters beyond ASCII", _with(id="é" * 129), False),
    ("empty id", _with(id=""), False),
    ("id with a line break at its end", _with(id="a\n"), False),
    ("id with a bidi override", _with(id="a\u202eb"), False),
    ("id with a zero-width space", _with(id="a\u200bb"), False),
    ("id with a no-break space", _with(id="a\u00a0b"), False),
    ("id in Cyrillic", _with(id="задача-1"), True),
    ("id with an astral letter", _with(id="x\U0001d400"), True),
    ("id with all the punctuation", _with(id="a-b_c.d/e:f"), True),
    ("no id", _with(id=_DROP), False),
    ("null id", _with(id=None), False),
    ("id a number", _with(id=12), False),
    ("no change", _with(change=_DROP), False),
    ("blank change", _with(change="  "), False),
    ("null change", _with(change=None), False),
    ("no evidence", _with(evidence=_DROP), False),
    ("empty evidence", _with(evidence=[]), False),
    ("no proof", _with(proof=_DROP), False),
    ("blank proof", _with(proof=" "), False),
    ("proof a list of blanks", _with(proof=["", " "]), False),
    ("proof a list", _with(proof=["make a", "make b"]), True),
    ("blank depends_on", _with(depends_on=None), True),
    ("dependencies", _with(depends_on=_DROP, dependencies=["b"]), True),
    ("depends_on and dependencies", _with(dependencies=["b"]), False),
    ("depends_on and a blank dependencies", _with(dependencies=None), True),
    ("unknown field", _with(depend_on=["b"]), False),
    ("a compiled item's wave, in a plain plan", _with(wave=1), False),
    ("line 0", _with(evidence=["app.py:0"]), False),
    ("line -1", _with(evidence=["app.py:-1"]), False),
    ("range from 0", _with(evidence=["app.py:0-3"]), False),
    ("range of ten digits", _with(evidence=["app.py:1-1234567890"]), False),
    ("no path before a line", _with(evidence=[":5"]), False),
    ("empty evidence string", _with(evidence=[""]), False),
    ("blank evidence string", _with(evidence=["  "]), False),
    ("symbol without a path", _with(evidence=["::handler"]), False),
    ("path without a symbol", _with(evidence=["app.py::"]), False),
    ("path::symbol", _with(evidence=["app.py::Accounts.create"]), True),
    ("a URL", _with(evidence=["https://example.com/a::"]), True),
    ("a colon in a path", _with(evidence=["a:b.py"]), True),
    ("reversed range", _with(evidence=["app.py:5-3"]), False),
    ("line 0 in Arabic-Indic digits", _with(evidence=["app.py:\u0660"]), False),
    ("evidence of only spaces beyond ASCII", _with(evidence=["\u3000\x1c"]), False),
    ("change of a byte-order mark", _with(change="\ufeff"), True),
    ("change of U+001C", _with(change="\x1c"), False),
    ("object: line", _with(evidence=[{"path": "app.py", "line": 3}]), True),
    ("object: line 0", _with(evidence=[{"path": "app.py", "line": 0}]), False),
    ("object: line 1.0, a whole number", _with(evidence=[{"path": "app.py", "line": 1.0}]), True),
    ("object: line 1.5", _with(evidence=[{"path": "app.py", "line": 1.5}]), False),
    ("object: line true", _with(evidence=[{"path": "app.py", "line": True}]), False),
    ("object: line as text", _with(evidence=[{"path": "app.py", "line": "3"}]), False),
    ("object: lines 3-4", _with(evidence=[{"path": "app.py", "lines": "3-4"}]), True),
    ("object: lines a number", _with(evidence=[{"path": "app.py", "lines": 3}]), True),
    ("object: lines 2.0", _with(evidence=[{"path": "app.py", "lines": 2.0}]), True),
    ("object: lines 0", _with(evidence=[{"path": "app.py", "lines": 0}]), False),
    ("object: lines of ten digits", _with(evidence=[{"path": "app.py", "lines": 1234567890}]), False),
    ("object: lines 0-4", _with(evidence=[{"path": "app.py", "lines": "0-4"}]), False),
    ("object: lines not a range", _with(evidence=[{"path": "app.py", "lines": "three"}]), False),
    ("object: lines reversed", _with(evidence=[{"path": "app.py", "lines": "5-3"}]), False),
    ("object: line and lines", _with(evidence=[{"path": "app.py", "line": 3, "lines": "3-4"}]), False),
    ("object: line and a blank lines", _with(evidence=[{"path": "app.py", "line": 3, "lines": None}]), True),
    ("object: symbol and line", _with(evidence=[{"path": "app.py", "symbol": "f", "line": 3}]), False),
    ("object: symbol and lines", _with(evidence=[{"path": "app.py", "symbol": "f", "lines": "3-4"}]), False),
    ("object: symbol", _with(evidence=[{"path": "app.py", "symbol": "f", "contains": "def"}]), True),
    ("object: no path", _with(evidence=[{"lines": "5-6"}]), False),
    ("object: blank path", _with(evidence=[{"path": " "}]), False),
    ("object: url", _with(evidence=[{"url": "https://example.com", "contains": "x"}]), True),
    ("object: url and path", _with(evidence=[{"url": "https://example.com", "path": "app.py"}]), False),
    ("object: url and a blank path", _with(evidence=[{"url": "https://example.com", "path": None}]), True),
    ("object: url that is not one", _with(evidence=[{"url": "example.com"}]), False),
    ("object: unknown field", _with(evidence=[{"path": "app.py", "file": "x"}]), False),
    ("object: a compiled entry's resolved_lines, in a plain plan",
     _with(evidence=[{"path": "a", "resolved_lines": "1-2"}]), False),
    ("evidence entry null", _with(evidence=[None]), False),
    ("kind approval", _with(kind="approval"), True),
    ("kind task", _with(kind="task"), True),
    ("kind not one of its words", _with(kind="gate"), False),
    ("kind a number", _with(kind=12), False),
    ("irreversible", _with(irreversible=True), True),
    ("irreversible as text", _with(irreversible="yes please"), False),
    ("irreversible a number", _with(irreversible=1), False),
    ("an approval record", _with(kind="approval", approved_by="ana", approved_at="2026-12-01T15:04:05Z",
                                 approval_digest="0123456789ab"), True),
    ("approved_by a number", _with(approved_by=7), False),
    # An approval record is whole, and only on an approval (EP111); a blank key is no part of it.
    ("an approval record without its digest", _with(kind="approval", approved_by="ana",
                                                    approved_at="2026-12-01T15:04:05Z"), False),
    ("an approval record of approved_by only", _with(kind="approval", approved_by="ana"), False),
    ("an approval record of its digest only", _with(kind="approval", approval_digest="0" * 32), False),
    ("an approval record with a blank approved_at", _with(kind="approval", approved_by="ana", approved_at=None,
                                                          approval_digest="0" * 32), False),
    ("a blank approval record", _with(kind="approval", approved_by=None, approved_at=None, approval_digest=None),
     True),
    ("an approval record on a task", _with(approved_by="ana", approved_at="2026-12-01T15:04:05Z",
                                           approval_digest="0" * 32), False),
    ("an approval record on kind: task", _with(kind="task", approved_by="ana", approved_at="2026-12-01T15:04:05Z",
                                               approval_digest="0" * 32), False),
    ("a compiled approval's state, in a plain plan", _with(kind="approval", approval_state="current"), False),
]


@pytest.mark.parametrize(("what", "item", "valid"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_the_schema_and_the_tool_agree_on_a_mutation(what: str, item: dict[str, Any], valid: bool) -> None:
    gaps = explained(item)
    assert tool_accepts([item]) is valid, what
    assert schema_accepts([item]) is (valid or bool(gaps)), (what, gaps)


# Mutations of a valid plan's own fields: (what it shows, the plan's fields, whether both accept it).
PLAN_MUTATIONS: list[tuple[str, dict[str, Any], bool]] = [
    ("a root", {"root": "sub/dir"}, True),
    ("a blank root", {"root": None}, True),
    ("a root with a NUL", {"root": "sub\x00dir"}, False),
    ("a root of a NUL only", {"root": "\x00"}, False),
]


@pytest.mark.parametrize(("what", "fields", "valid"), PLAN_MUTATIONS, ids=[m[0] for m in PLAN_MUTATIONS])
def test_the_schema_and_the_tool_agree_on_a_plan_field_mutation(what: str, fields: dict[str, Any], valid: bool,
                                                               ) -> None:
    """Issue 23: the schema accepted a NUL in `root`, which the tool refuses (EP006)."""
    plan = {**fields, "items": [VALID]}
    assert tool_accepts(plan) is valid, what
    assert schema_accepts(plan) is valid, what


def test_the_tool_refuses_a_root_with_a_nul_and_the_schema_says_so(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"root": "a\x00b", "items": [VALID]}), encoding="utf-8")
    with pytest.raises(PlanInputError) as refused:
        compile_plan(str(plan))
    assert refused.value.diagnostic.code == "EP006"
    assert not schema_accepts({"root": "a\x00b", "items": [VALID]})
    assert schema_accepts({"root": "a b", "items": [VALID]})


def test_the_tool_blocks_an_incomplete_approval_record_with_ep111_and_the_schema_refuses_it() -> None:
    item = _with(kind="approval", approved_by="ana")
    result = compile_yaml(f"items: {json.dumps([item])}\n")
    assert [d.code for d in result.diagnostics if d.code == "EP111"] == ["EP111"]
    assert "approval record has no approved_at or approval_digest" in only(result, "EP111").message
    assert not schema_accepts([item])


def _validate_stage_cases() -> list[Path]:
    return sorted(p for p in (REPO / "tests" / "cases").glob("*/plan.*"))


def test_the_schema_refuses_every_plan_the_tool_refuses_at_the_validate_stage_and_accepts_the_ready_ones() -> None:
    """A corpus (the case folders, the examples): each plan the validate stage refuses (EP010-EP014,
    EP017, EP018), the schema refuses too; each ready plan, compiled as it is, the schema accepts."""
    from compiler.model.readback import VALIDATE_CODES

    refused = ready = 0
    for path in [*_validate_stage_cases(), *sorted(REPO.glob("examples/*/plan.*"))]:
        doc = _loaded(path)
        if doc is None:
            continue
        try:
            plan = build_plan(doc)
        except PlanInputError:  # not a plan (EP004): the corpus test holds the schema to those
            continue
        if {d.code for d in plan.diagnostics} & VALIDATE_CODES:
            assert not validator("input").is_valid(doc.data), path
            refused += 1
        elif path.parent.parent.name == "examples" or path.parent.name.startswith("ready"):
            result = compile_plan(str(path), root=str(path.parent))
            if result.status == "ready":
                assert validator("input").is_valid(doc.data), path
                ready += 1
    assert refused >= 8 and ready >= 3, (refused, ready)


def test_every_gap_is_shown_by_a_mutation_where_the_schema_and_the_tool_disagree() -> None:
    """GAPS stays small and true: each one is a real disagreement, not a leftover."""
    for name in GAPS:
        shown = [item for _, item, _ in MUTATIONS if name in explained(item)]
        if name == "non-ASCII id":
            shown = [_with(id="a€"), _with(id="\u0301a")]
            assert not any(tool_accepts([i]) for i in shown)
        assert shown, name
        assert all(schema_accepts([i]) and not tool_accepts([i]) for i in shown), name


def test_a_compiled_evidence_plan_json_is_a_valid_plan(repo: Path) -> None:
    document = json.loads((repo / "outputs" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert tool_accepts(document)
    assert schema_accepts(document)
    # Its output-only keys are read past only when `format` says it is one.
    del document["format"]
    assert not tool_accepts(document)
    assert not schema_accepts(document)


def test_a_blank_depends_on_is_valid(tmp_path: Path) -> None:
    doc = parse_text("items:\n  - id: a\n    change: c\n    evidence: [a.py]\n    depends_on:\n    proof: p\n",
                     "plan.yaml", "yaml")
    assert doc.data["items"][0]["depends_on"] is None
    assert not form_codes(doc)
    assert schema_accepts(doc.data)


# --- the grammars' patterns, against the code they mirror ---------------------------------------

_REFERENCE_TEXT = st.text(alphabet=":-0123456789a. \t\n/", max_size=14) | st.sampled_from(
    ["https://x y", "http://a::", " ::b", "a:: ", "a:::", "x:1:2", "x:1-2-3", "a:" + "9" * 10, "a:00", "a:-0"])


@given(_REFERENCE_TEXT)
# Found by hypothesis: the code strips the space and reads the path ':0', line 1; the pattern took
# the space for the path of a LINE:COLUMN notation.
@example(" :0:1")
@example(" \t:0:1 ")
# And a line break in the path: the other notations' patterns did not read one (no DOTALL), so the
# code took "0\n:0:1" for the path "0\n:0", line 1, where the pattern saw LINE:COLUMN.
@example("0\n:0:1")
def test_the_reference_pattern_accepts_what_parse_reference_accepts(text: str) -> None:
    tool = references.parse_reference(text)[1] is None
    pattern = re.search(references.REFERENCE_PATTERN, text) is not None
    assert tool == pattern or (pattern and _reversed(text)), (text, tool, pattern)


@given(st.text(alphabet="-0123456789 \n", max_size=12) | st.integers(min_value=-3, max_value=10**10))
def test_the_lines_keywords_accept_what_parse_object_accepts(lines: str | int) -> None:
    item = _with(evidence=[{"path": "a", "lines": lines}])
    tool = tool_accepts([item])
    assert tool == schema_accepts([item]) or (not tool and _reversed(str(lines))), lines


@given(st.text(alphabet="aZ09-_./: \t\n!é€\u200b\u0301", min_size=0, max_size=6))
def test_the_id_pattern_accepts_what_the_id_grammar_accepts(ident: str) -> None:
    tool = ids.grammar_problem(ident) is None and bool(ident.strip())
    pattern = re.search(ids.SCHEMA_PATTERN, ident) is not None
    if ident.isascii():
        assert tool == pattern, ident
    else:
        assert pattern or not tool, ident  # beyond ASCII the pattern is wider (GAPS), never narrower


@pytest.mark.slow
def test_a_space_to_the_patterns_is_what_str_strip_removes() -> None:
    space = re.compile(references.SPACE)
    for cp in range(0x110000):
        assert (space.fullmatch(chr(cp)) is not None) is chr(cp).isspace(), hex(cp)


def test_the_invisible_characters_are_every_control_format_and_space_character_of_the_bmp() -> None:
    pattern = re.compile(ids.SCHEMA_PATTERN)
    for cp in range(0x80, 0x10000):
        ch = chr(cp)
        if unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            assert pattern.search("a" + ch) is None and pattern.search(ch + "a") is None, hex(cp)
            assert ids.grammar_problem("a" + ch) is not None, hex(cp)


@pytest.mark.skipif(shutil.which("node") is None, reason="no ECMA-262 engine (node) on this machine")
def test_the_patterns_read_the_same_in_ecma_262_with_and_without_the_u_flag() -> None:
    """The schemas' patterns are ECMA-262 regexes to most validators, Python's re to jsonschema:
    each pattern gives the same answers in both, with and without the u flag."""
    samples = [m[1]["id"] for m in MUTATIONS if isinstance(m[1].get("id"), str)] + [
        "a€", "x\U0001d400", "\U0001d400", "a\n", "a\u2028", "été"]
    refs = ["\ufeff", "\x1c", "a.py:3\x85", "\u3000a.py:0", "https://a\x1cb",
            "app.py:0", "a.py:5-7", "::x", "a::", "a:::", "https://x::", ":5", "", " ", "a.py:1--2", "a:1-2-3",
            "a\n", "x::y:0", "a.py:00", "a.py:" + "1" * 10]
    lines = ["5\x1c", "\ufeff5", "5", "0", "05", "1-0", "1234567890", " 1 - 2 ", "5\n", "a"]
    cases = [(ids.SCHEMA_PATTERN, samples), (references.REFERENCE_PATTERN, refs),
             (references.LINES_PATTERN, lines), (references.URL_PATTERN, ["https://a", " http://a ", "a.b", "h://"]),
             (references.NOT_BLANK, ["\ufeff", "\x1c", " ", "a", "\u3000"])]
    script = ("const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(cases.map(([p, xs]) => xs.map(x => ["
              "new RegExp(p).test(x), new RegExp(p, 'u').test(x)]))));")
    done = subprocess.run(["node", "-e", script], input=json.dumps(cases), capture_output=True, text=True,
                          check=True, timeout=60)
    for (pattern, texts), answers in zip(cases, json.loads(done.stdout), strict=True):
        for text, (plain, unicode) in zip(texts, answers, strict=True):
            python = re.search(pattern, text) is not None
            assert plain == unicode == python, (pattern[:30], text)


# --- the output schema ---------------------------------------------------------------------------

def _outputs() -> list[Path]:
    return sorted([REPO / "outputs" / "evidence-plan.json", *REPO.glob("tests/golden/*.json"),
                   *REPO.glob("tests/cases/*/expected.json")])


@pytest.mark.parametrize("path", _outputs(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_committed_output_is_valid_by_the_output_schema_and_render_reads_it(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    errors = [e.message for e in validator("output").iter_errors(document)]
    assert not errors, errors[:3]
    assert read_compiled(str(path)) == document


@pytest.mark.slow
@pytest.mark.parametrize("plan", sorted([*REPO.glob("examples/*/plan.*"), *REPO.glob("tests/cases/*/plan.*")]),
                         ids=lambda p: str(p.parent.relative_to(REPO)))
def test_every_document_compile_writes_is_valid_by_the_output_schema(plan: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    monkeypatch.chdir(plan.parent)
    try:
        result = compile_plan(plan.name, verify_evidence=plan.parent.name != "ready-no-verify-evidence")
    except PlanInputError as err:
        assert err.diagnostic.code in {*FILE_LEVEL, "EP004", "EP006"}
        return  # an input error: compile writes no document
    document = build_output(result, ".")
    errors = [e.message for e in validator("output").iter_errors(document)]
    assert not errors, errors[:3]
    written = tmp_path / "evidence-plan.json"
    written.write_text(dumps(document), encoding="utf-8")
    assert read_compiled(str(written)) == document  # and render reads it


def test_the_output_schema_accepts_an_issue_with_a_hint() -> None:
    doc = parse_text("items:\n  - id: аdd\n    change: c\n    evidence: [a.py]\n    proof: p\n", "plan.yaml", "yaml")
    from compiler.compile.pipeline import compile_document

    document = build_output(compile_document(doc, "plan.yaml", verify_evidence=False), ".")
    assert any(issue.get("hint") for issue in document["issues"]), document["issues"]
    assert validator("output").is_valid(document)


@pytest.mark.slow
def test_both_schemas_are_valid_schemas_of_the_dialect_they_declare() -> None:
    for kind in ("input", "output"):
        assert schema(kind)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(schema(kind))


# --- whole numbers written with a fraction ---------------------------------------------------------

def test_a_line_written_as_1_0_is_line_1_as_json_schema_reads_it() -> None:
    result = compile_yaml("""
        items:
          - id: a
            change: c
            evidence: [{path: a.py, line: 1.0}, {path: a.py, lines: 2.0}]
            proof: p
    """)
    assert not result.diagnostics
    evidence = build_output(result, ".")["items"][0]["evidence"]
    assert evidence == [{"path": "a.py", "line": 1}, {"path": "a.py", "line": 2}]
    assert type(evidence[0]["line"]) is int


def test_a_line_with_a_fraction_is_refused_at_its_place() -> None:
    result = compile_yaml("""
        items:
          - id: a
            change: c
            evidence:
              - {path: a.py, line: 1.5}
            proof: p
    """)
    found = only(result, "EP011")
    assert (found.item, found.location.line, found.location.column) == ("a", 5, 28)
    assert "line must be a whole number, not the number 1.5" in found.message


# --- generated items -------------------------------------------------------------------------------

_TEXT = st.sampled_from(["a", "b", "", " ", "two words", "-a", "é", "a€", 1, 1.0, True, None, ["a"]])
_REF = st.sampled_from(["a.py", "a.py:3", "a.py:0", "a.py:5-3", "a.py:2-4", "::x", "a::f", "", "https://x", ":1"])
_VALID_OBJECT = {"path": "a.py"}
_OBJECT = st.fixed_dictionaries({}, optional={
    "path": st.sampled_from(["a.py", " ", None, 3]), "line": st.sampled_from([None, 0, 1, 2.0, 1.5, True, "3"]),
    "lines": st.sampled_from([None, "1-2", "0-1", 3, 3.0, 0, "x", 10**10, True]),
    "symbol": st.sampled_from(["f", None]), "contains": st.sampled_from(["x", None, 1]),
    "url": st.sampled_from(["https://x", "x", None]), "resolved_lines": st.just("1-2"),
}).map(lambda changes: {**_VALID_OBJECT, **changes})
# A valid item with a few fields changed, added or dropped: most are near the boundary.
_CHANGES = st.dictionaries(st.sampled_from(["id", "change", "proof", "evidence", "depends_on", "dependencies",
                                            "wave", "owner", "status", "reason"]), st.just(None), max_size=4)


@st.composite
def _items(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = dict(VALID)
    for key in draw(_CHANGES):
        if key == "evidence":
            value: Any = draw(st.lists(_REF | _OBJECT | st.sampled_from([None, 3]), max_size=2) | st.none())
        elif key == "proof":
            value = draw(_TEXT | st.lists(_TEXT, max_size=2))
        elif key in ("depends_on", "dependencies"):
            value = draw(st.none() | st.lists(_TEXT, max_size=2))
        elif key in ("wave", "owner"):
            value = "x"
        elif key == "status":
            value = draw(st.sampled_from(["todo", "doing", "done", "dropped", "dropped", "finished", 1, None]))
        else:
            value = draw(_TEXT)
        if draw(st.booleans()) and key in item:
            del item[key]
        else:
            item[key] = value
    return item


@pytest.mark.slow
@given(_items())
def test_the_schema_and_the_tool_agree_on_generated_items(item: dict[str, Any]) -> None:
    tool, schema_says = tool_accepts([item]), schema_accepts([item])
    assert tool == schema_says or (schema_says and not tool and explained(item)), (item, tool, schema_says)


@pytest.mark.parametrize("name", CANNOT_SAY)
def test_what_a_schema_cannot_say_the_tool_still_refuses(name: str) -> None:
    _, text, code = CANNOT_SAY[name]
    fmt = "yaml" if text.startswith("items:") else "json"
    try:
        doc = parse_text(text, f"plan.{fmt}", fmt)  # type: ignore[arg-type]
    except PlanInputError as err:
        assert err.diagnostic.code == code
        import yaml

        data = json.loads(text) if fmt == "json" else yaml.safe_load(text)  # what a validator would see
    else:
        from compiler.compile.pipeline import compile_document

        data = doc.data
        assert code in {d.code for d in compile_document(doc, "plan.json", verify_evidence=False).diagnostics}
    assert schema_accepts(data), name


@pytest.mark.parametrize("name", ["input", "output"])
def test_a_schema_says_what_a_key_means_not_where_in_our_code_it_is_made(name: str) -> None:
    """The schemas are user text (editors show their descriptions): they name no module of
    compiler/, which a refactoring would move; so do the codes' summaries, which SARIF shows."""
    from compiler.core.codes import CODES
    from compiler.model.json_schema import generate

    module = re.compile(r"compiler[/.][a-z_]+")
    assert module.findall(generate(name)) == []
    assert {code: module.findall(entry.summary) for code, entry in CODES.items() if module.search(entry.summary)} == {}
