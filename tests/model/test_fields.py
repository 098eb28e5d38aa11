"""The field declarations (compiler/model/fields.py) and everything derived from them.

- every kind is handled by the input model, the output model and the fast path;
- the fast path is held to the input model by a differential property test, with keys and
  values drawn from the declarations: every item it accepts, the input model accepts with the
  same result and no diagnostic;
- every declared field, given a value of the wrong type, gets a located EP011 in our words;
- a field added to the declarations, and nowhere else, is validated on both paths, written to
  the output, accepted by the output model and described by both schemas (in a fresh process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.core.diagnostics import Diagnostic
from compiler.load.document import parse_text
from compiler.model import fields, input_model, kinds, output_model, plain
from compiler.model.items import validate_item
from compiler.model.kinds import CLAIM_UNIT, plain_parts
from compiler.model.messages import Collector
from compiler.model.plain import PLAIN_KEYS, plain_item, plain_item_with_unknown_keys
from compiler.model.validate import build_plan

REPO = Path(__file__).resolve().parents[2]
# pydantic's own words, which must never reach a user.
PYDANTIC_WORDS = ("Input should", "input_value", "type=", "Field required", "valid string", "pydantic")


def _dummy(kind: fields.Kind) -> fields.Field:
    return fields.Field("x", kind, "a field of this kind", default=None)


@pytest.mark.parametrize("kind", fields.KINDS)
def test_every_kind_is_one_record_with_every_part_or_the_reason_it_has_none(kind: fields.Kind) -> None:
    """compiler/model/kinds.py: one record per kind, with the fast path's check, the input and
    output annotations and the hint, each there or said absent with a reason."""
    assert kind in kinds.KIND_SPECS, f"kind {kind}: no record in kinds.KIND_SPECS"
    spec = kinds.KIND_SPECS[kind]
    reasons = dict(spec.absent)
    missing = [part for part in kinds.PARTS if getattr(spec, part) is None and not reasons.get(part, "").strip()]
    assert not missing, f"kind {kind} has no {', '.join(missing)} and does not say why (absent=)"
    stale = [part for part in reasons if part not in kinds.PARTS or getattr(spec, part) is not None]
    assert not stale, f"kind {kind} says why it has no {', '.join(stale)}, but it has"
    assert set(spec.grammars) <= set(kinds.GRAMMARS), f"kind {kind} names a grammar GRAMMARS does not have"


def test_the_kinds_are_the_records_in_their_order() -> None:
    assert tuple(kinds.KIND_SPECS) == fields.KINDS


@pytest.mark.parametrize("field", [*fields.PLAN_FIELDS, *fields.ITEM_FIELDS, *fields.EVIDENCE_FIELDS],
                         ids=lambda f: f.name)
def test_a_fields_grammar_is_one_its_kind_takes(field: fields.Field) -> None:
    grammar = (field.schema or {}).get("x-grammar")
    assert grammar is None or grammar in kinds.KIND_SPECS[field.kind].grammars, (
        f"field {field.name} names grammar {grammar}, which its kind {field.kind} does not list (kinds.py)")


def test_importing_the_kinds_imports_no_pydantic() -> None:
    done = subprocess.run([sys.executable, "-c", "import sys, compiler.model.kinds, compiler.model.plain;"
                           " print('pydantic' in sys.modules)"], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO)}, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("kind", fields.KINDS)
def test_the_input_model_knows_every_kind(kind: fields.Kind) -> None:
    assert input_model._annotation(_dummy(kind)) is not None


@pytest.mark.parametrize("kind", [k for k in fields.KINDS if k != "items"])
def test_the_output_model_knows_every_kind_but_the_item_list(kind: fields.Kind) -> None:
    assert output_model._out(_dummy(kind)) is not None


def test_the_fast_path_decides_every_declared_item_field() -> None:
    """A field of a kind the fast path cannot check is read by the input model, correctly but
    slowly: this test says so when a declaration adds one (teach plain._PLAIN_OPTIONS)."""
    assert set(fields.names(fields.ITEM_FIELDS)) <= PLAIN_KEYS
    assert {f.name for f in fields.EVIDENCE_FIELDS} == set(plain._EVIDENCE_TYPES)


def test_the_output_model_holds_what_the_declarations_say() -> None:
    compiled = set(output_model.CompiledPlan.model_fields)
    assert compiled == {*fields.names(fields.PLAN_FIELDS), *fields.COMPILED_PLAN_KEYS}
    assert set(output_model.ItemOut.model_fields) == {*fields.names(fields.ITEM_FIELDS), *fields.COMPILED_ITEM_KEYS} - {
        f.alias for f in fields.ITEM_FIELDS if f.alias}
    assert set(output_model.EvidenceOut.model_fields) == {f.name for f in fields.EVIDENCE_FIELDS} | set(
        fields.COMPILED_EVIDENCE_KEYS)


# --- the differential test: the fast path against the input model -------------------------------

_TEXT = st.text(alphabet="ab -:./#_\n", max_size=8)
_REFERENCE = st.one_of(
    st.sampled_from(["a.py", "a.py:1", "a.py:2-3", "a.py::f", "https://e.org/x", "", " ", "a.py:0", "a.py:3-2",
                     "a.py:x", "::f", "a.py::"]),
    _TEXT,
)
_EVIDENCE_VALUES: dict[str, Any] = {
    "optional-text": st.one_of(st.none(), _TEXT, st.integers(0, 3), st.booleans()),
    "optional-line": st.one_of(st.none(), st.integers(-1, 5), st.booleans(), _TEXT),
    "optional-lines": st.one_of(st.none(), st.sampled_from(["1-2", "2", "3-1", "x", " 1 - 2 "]), st.integers(0, 3)),
}
_EVIDENCE_OBJECT = st.dictionaries(
    st.sampled_from([*(f.name for f in fields.EVIDENCE_FIELDS), "lien"]),
    st.one_of(*_EVIDENCE_VALUES.values()), max_size=4,
)
# An estimate's or a claim's parts: each drawn right most often, and wrong in the ways people write it.
_NUMBER = st.one_of(st.integers(-2, 300), st.floats(-1, 1e6, allow_nan=False, allow_infinity=False), st.booleans(),
                    _TEXT, st.none())
_PART_VALUES: dict[str, Any] = {
    "description": st.one_of(_TEXT, st.integers(0, 2), st.none()),
    "low": _NUMBER,
    "high": _NUMBER,
    "unit": st.one_of(st.sampled_from([*fields.UNIT_HOURS, "day", "rps", ""]), st.integers(0, 2), st.none()),
    "confidence": st.one_of(st.sampled_from([*fields.CONFIDENCES, "sure"]), st.integers(0, 2), st.none()),
    "evidence": st.one_of(_TEXT, st.lists(_TEXT, max_size=1), st.none()),
    "left": st.one_of(st.floats(-0.5, 1.5, allow_nan=False), _NUMBER),
}


@st.composite
def _parts(draw: st.DrawFn, parts: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
    names = [name for name, _ in parts]
    keys = draw(st.lists(st.sampled_from([*names, "lo", "estimate"]), unique=True, max_size=len(names) + 1))
    if draw(st.booleans()):  # most objects give their needed parts: draw those often too
        keys = [*dict.fromkeys([*(name for name, needed in parts if needed), *keys])]
    return {key: draw(_PART_VALUES.get(key, _NUMBER)) for key in draw(st.permutations(keys))}


_VALUES: dict[str, Any] = {
    "text": st.one_of(_TEXT, st.none(), st.integers(0, 3), st.booleans(), st.lists(_TEXT, max_size=1)),
    "optional-text": st.one_of(_TEXT, st.none(), st.integers(0, 3)),
    "ids": st.one_of(st.lists(st.one_of(_TEXT, st.integers(0, 2)), max_size=3), _TEXT, st.none()),
    "evidence": st.one_of(st.lists(st.one_of(_REFERENCE, _EVIDENCE_OBJECT, st.integers(0, 2)), max_size=3),
                          _TEXT, st.none()),
    "proof": st.one_of(_TEXT, st.lists(_TEXT, max_size=3), st.none(), st.integers(0, 3)),
    "optional-line": st.one_of(st.none(), st.integers(-1, 5), _TEXT),
    "optional-lines": st.one_of(st.none(), _TEXT, st.integers(0, 3)),
    # every choice of every choice field, near misses (case, spaces, synonyms) and other types
    "choice": st.one_of(st.sampled_from([*(c for f in fields.ITEM_FIELDS for c in f.choices), "Done", " done",
                                         "finished", "in progress", "", "gate", "Approval"]), _TEXT, st.none(),
                        st.integers(0, 3), st.booleans(), st.lists(_TEXT, max_size=1)),
    "flag": st.one_of(st.booleans(), st.none(), st.sampled_from(["yes please", "true", "no"]), st.integers(0, 1)),
    "optional-estimate": st.one_of(_parts(fields.ESTIMATE_PARTS), st.none(), _TEXT, st.integers(0, 3)),
    "claims": st.one_of(st.lists(st.one_of(_parts(fields.CLAIM_PARTS), st.integers(0, 2)), max_size=3), _TEXT,
                        st.none()),
    "budget": st.one_of(st.dictionaries(st.sampled_from([*(part for part, _ in fields.BUDGET_PARTS), "max_steps"]),
                                        st.one_of(st.integers(-1, 5), st.floats(0, 3), st.booleans(), _TEXT),
                                        max_size=3), st.none(), _TEXT, st.integers(0, 3)),
    "paths": st.one_of(st.lists(st.one_of(st.sampled_from(["app/", "app/*.py", "**/x", "/abs", "a/../b", "a//b",
                                                           "a\\b", "[ab]", "a**", "", ".", "x/."]),
                                          _TEXT, st.integers(0, 2)), max_size=3), _TEXT, st.none()),
}
# Every key an item may give (names and aliases), and a few it may not.
_KEYS = [*fields.names(fields.ITEM_FIELDS), "depend_on", "state", "wave"]
_KIND_OF_KEY = {**{f.name: f.kind for f in fields.ITEM_FIELDS},
                **{f.alias: f.kind for f in fields.ITEM_FIELDS if f.alias}}


@st.composite
def _raw_items(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(_KEYS), unique=True, max_size=len(_KEYS)))
    raw = {key: draw(_VALUES[_KIND_OF_KEY.get(key, "text")]) for key in keys}
    if draw(st.booleans()):  # most items are plainly valid: draw those often too
        raw.setdefault("id", draw(st.sampled_from(["a", "b-1", "x.y"])))
    return raw


def test_every_kind_has_a_generator() -> None:
    assert set(_VALUES) == set(fields.KINDS) - {"items"}
    assert set(_PART_VALUES) == {name for name, _ in fields.CLAIM_PARTS} | {name for name, _ in fields.ESTIMATE_PARTS}
    assert set(_EVIDENCE_VALUES) == {f.kind for f in fields.EVIDENCE_FIELDS}


def _reference_item(raw: dict[str, Any]) -> tuple[Any, list[Diagnostic]]:
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = Collector(doc)
    return validate_item(raw, 0, ("items", 0), col), col.out


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=1000, deadline=None)
@given(_raw_items())
def test_every_item_the_fast_path_accepts_the_input_model_accepts_alike(raw: dict[str, Any]) -> None:
    fast = plain_item(raw, 0)
    if fast is None:
        return  # not the fast path's to decide
    reference, diagnostics = _reference_item(raw)
    assert diagnostics == [], (raw, diagnostics)
    assert reference == fast, raw
    # The same bytes out, too: an object's parts in the same order on both paths.
    assert json.dumps(reference.to_dict()) == json.dumps(fast.to_dict()), raw


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=1000, deadline=None)
@given(_VALUES["claims"])
def test_every_claim_list_the_fast_path_accepts_the_input_model_accepts_alike(claims: Any) -> None:
    """A plan's claims are decided like items: plainly valid ones without pydantic, the others
    by the input model; where the fast path accepts, the input model gives the same claims."""
    data = {"claims": claims, "items": []}
    plan = build_plan(parse_text(json.dumps(data), "plan.json", "json"))
    fast = [plain_parts(claim, fields.CLAIM_PARTS, CLAIM_UNIT) for claim in claims or []] \
        if type(claims) is list else [None]
    if claims is None or any(claim is None for claim in fast):
        return  # not all the fast path's to decide
    model = input_model.PlanFile.model_validate(data)
    assert plan.diagnostics == ()
    assert json.dumps([c for _, c in plan.claims]) == json.dumps(model.claims) == json.dumps(fast)


@pytest.mark.slow
@given(_VALUES["budget"])
def test_every_budget_the_fast_path_accepts_the_input_model_accepts_alike(budget: Any) -> None:
    """A budget is decided like a claim: a plainly valid one without pydantic, any other by the
    input model (whose errors are EP010/EP011); where the fast path accepts, the model agrees."""
    from pydantic import TypeAdapter, ValidationError

    from compiler.model.input_model import Budget

    plan = build_plan(parse_text(json.dumps({"budget": budget, "items": []}), "plan.json", "json"))
    try:
        model = TypeAdapter(Budget).validate_python(budget) if budget is not None else None
    except ValidationError:
        model = None
        assert plan.budget is None and {d.code for d in plan.diagnostics} <= {"EP010", "EP011"}
        assert plan.diagnostics
    assert plan.budget == model
    if type(budget) is dict and budget and all(type(v) is int and v >= 1 for v in budget.values()) and \
            set(budget) <= {part for part, _ in fields.BUDGET_PARTS}:
        assert plan.budget == budget and not plan.diagnostics  # the fast path's own answer


def test_the_claims_differential_test_reaches_both_outcomes() -> None:
    plain = {"description": "rps", "low": 1, "high": 2.5, "unit": "requests/s"}
    assert plain_parts(plain, fields.CLAIM_PARTS, CLAIM_UNIT) == plain
    assert plain_parts({**plain, "low": True}, fields.CLAIM_PARTS, CLAIM_UNIT) is None
    assert plain_parts({**plain, "high": float("inf")}, fields.CLAIM_PARTS, CLAIM_UNIT) is None


_UNKNOWN_KEYS = st.lists(st.sampled_from(["depend_on", "depends", "summary", "file", "title", "state", "Id", "x"]),
                         unique=True, min_size=1, max_size=3)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=300, deadline=None)
@given(_raw_items(), _UNKNOWN_KEYS, st.data())
def test_unknown_keys_beside_a_plain_item_are_reported_alike_on_both_paths(raw: dict[str, Any], unknown: list[str],
                                                                           data: st.DataObject) -> None:
    """The fast path's one kind of diagnostic (EP010 for keys the format does not define) is the
    input model's, to the byte, and so is the item it returns."""
    for key in unknown:
        raw[key] = data.draw(_VALUES["text"])
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = Collector(doc)
    fast = plain_item_with_unknown_keys(raw, 0, ("items", 0), col)
    if fast is None:
        return  # the rest is not plainly valid: not the fast path's to decide
    reference, diagnostics = _reference_item(raw)
    assert col.out == diagnostics, raw
    assert fast == reference, raw


def test_the_unknown_key_path_reaches_its_outcome() -> None:
    raw = {"id": "a", "change": "c", "evidence": ["a.py"], "depend_on": ["b"], "proof": "p"}
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = Collector(doc)
    item = plain_item_with_unknown_keys(raw, 0, ("items", 0), col)
    assert item is not None and item.broken == ("depend_on",) and item.depends_on == ()
    assert [(d.code, d.message) for d in col.out] == [("EP010", "a has unknown field 'depend_on' (did you mean"
                                                                " depends_on?)")]


def test_the_differential_test_reaches_both_outcomes() -> None:
    """Not a test that passes by deferring: plainly valid items are read by the fast path."""
    assert plain_item({"id": "a", "change": "c", "evidence": ["a.py:1", {"path": "a.py", "line": 2}],
                       "dependencies": ["b"], "proof": "p"}, 0) is not None
    gate = plain_item({"id": "a", "kind": "approval", "irreversible": False, "approved_by": "ana"}, 0)
    assert gate is not None and gate.options == (("kind", "approval"), ("irreversible", False), ("approved_by", "ana"))
    assert plain_item({"id": "a", "kind": "gate"}, 0) is None  # not one of its words: the model's to word
    assert plain_item({"id": "a", "irreversible": "yes please"}, 0) is None
    assert plain_item({"id": "a", "proof": ["p", "q"]}, 0) is None  # a list of commands: the model's


# --- wrong types, in our words ------------------------------------------------------------------------

_WRONG: dict[str, Any] = {
    "text": 12, "optional-text": ["a list"], "ids": "one id", "evidence": "a.py", "proof": {"a": 1},
    "optional-line": "three", "optional-lines": 1.5, "choice": 12, "flag": "yes please",
    "optional-estimate": "two days", "claims": 12, "paths": {"app": 1}, "budget": 12,
}
_WRONG_WORDS = {"optional-text": "text", "claims": "a list", "budget": "a mapping with max_revisions, max_items"}


def _check(data: dict[str, Any]) -> list[Diagnostic]:
    return list(build_plan(parse_text(json.dumps(data), "plan.json", "json")).diagnostics)


@pytest.mark.parametrize("field", fields.ITEM_FIELDS, ids=lambda f: f.name)
def test_a_wrong_type_in_any_item_field_is_ep011_in_our_words(field: fields.Field) -> None:
    item = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p", field.name: _WRONG[field.kind]}
    (d,) = _check({"items": [item]})
    where = d.location.line if d.location else None
    assert (d.code, d.item, where) == ("EP011", "a" if field.name != "id" else None, 1)
    assert f"{field.name} must be " in d.message
    assert not any(words in d.message for words in PYDANTIC_WORDS), d.message


@pytest.mark.parametrize("field", fields.EVIDENCE_FIELDS, ids=lambda f: f.name)
def test_a_wrong_type_in_any_evidence_field_is_ep011_in_our_words(field: fields.Field) -> None:
    entry = {"path": "a.py", field.name: _WRONG[field.kind]} if field.name != "path" else {"path": 12}
    (d,) = _check({"items": [{"id": "a", "change": "c", "evidence": [entry], "proof": "p"}]})
    assert (d.code, d.item) == ("EP011", "a")
    assert d.message.startswith(f"a evidence 1: {field.name} must be "), d.message
    assert not any(words in d.message for words in PYDANTIC_WORDS), d.message


@pytest.mark.parametrize("field", [f for f in fields.PLAN_FIELDS if f.kind != "items"], ids=lambda f: f.name)
def test_a_wrong_type_in_any_plan_field_is_ep011_in_our_words(field: fields.Field) -> None:
    (d,) = _check({field.name: 12, "items": [{"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p"}]})
    assert (d.code, d.message) == ("EP011", f"plan field {field.name} must be {_WRONG_WORDS[field.kind]}, not the"
                                            f" number 12")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("kind", 12, "a: kind must be 'task' or 'approval', not the number 12"),
    ("kind", "gate", "a: kind must be 'task' or 'approval', not 'gate'"),
    ("irreversible", "yes please", "a: irreversible must be true or false, not 'yes please'"),
    ("irreversible", 1, "a: irreversible must be true or false, not the number 1"),
], ids=["kind-number", "kind-word", "irreversible-text", "irreversible-number"])
def test_a_wrong_gate_value_is_located_in_our_words_on_both_paths(field: str, value: Any, message: str) -> None:
    """`kind: 12`, `irreversible: "yes please"`: EP011 at the value, named, from the YAML reader
    that the fast path takes and from the input model alike (the item goes to the model)."""
    text = f"items:\n  - id: a\n    change: c\n    evidence: [a.py]\n    proof: p\n    {field}: {json.dumps(value)}\n"
    (d,) = build_plan(parse_text(text, "plan.yaml", "yaml")).diagnostics
    assert (d.code, d.message, d.item) == ("EP011", message, "a")
    assert d.location is not None and (d.location.line, d.location.column) == (6, len(field) + 7)
    raw = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p", field: value}
    assert plain_item(raw, 0) is None
    assert [x.message for x in _reference_item(raw)[1]] == [message]


def test_a_missing_field_beyond_the_id_is_ep017_at_its_object() -> None:
    """A model with a required part shows the message and where it points (the declared
    estimate's is below)."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    class Bounds(BaseModel):
        model_config = ConfigDict(strict=True, extra="forbid")
        low: int
        high: int

    class Holder(BaseModel):
        model_config = ConfigDict(strict=True, extra="forbid")
        estimate: Bounds

    raw = {"estimate": {"low": 1}}
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = Collector(doc)
    with pytest.raises(ValidationError) as err:
        Holder.model_validate(raw)
    col.pydantic(err.value, raw, ("items", 0), "a", "a", ("estimate",))
    (d,) = col.out
    assert (d.code, d.message, d.item) == ("EP017", "a has no estimate.high", "a")
    assert d.location is not None and (d.location.line, d.location.column) == (1, 25)  # the estimate's mapping


# --- a newcomer's field: one declaration ------------------------------------------------------------

NEWCOMER = textwrap.dedent("""
    import json, sys
    from compiler.model import fields
    fields.ITEM_FIELDS = (*fields.ITEM_FIELDS, fields.Field("owner", "optional-text", "who does it", default=None))
    from compiler.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _newcomer(tmp_path: Path, *argv: str, forced: bool = False) -> subprocess.CompletedProcess[str]:
    script = NEWCOMER if not forced else NEWCOMER.replace(
        "from compiler.cli import main", "import compiler.load.fastyaml as f; f.parse = lambda *a, **k: None\n"
        "from compiler.cli import main")
    return subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(REPO), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, check=False)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
def test_a_field_declared_once_is_validated_written_and_read_back(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text("items:\n  - id: a\n    change: c\n    evidence: [a.py]\n    proof: p\n    owner: ana\n",
                    encoding="utf-8")
    done = _newcomer(tmp_path, "compile", "plan.yaml", "-o", "out")
    assert done.returncode == 0, done.stderr
    document = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["items"][0]["owner"] == "ana"
    rendered = _newcomer(tmp_path, "render", "out/evidence-plan.json")  # the output model accepts it
    assert rendered.returncode == 0, rendered.stderr
    # `schema` prints the committed files: the schemas made from the declarations say it too.
    generated = subprocess.run(
        [sys.executable, "-c", NEWCOMER.split("from compiler.cli")[0]
         + "from compiler.model.json_schema import generate\nprint(generate('input'))\nprint(generate('output'))"],
        capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(REPO)}, check=True).stdout
    # The plan's item, its twin in a compiled evidence-plan.json read as a plan, the output's item.
    assert generated.count('"owner"') == 3 and "who does it" in generated
    for forced in (False, True):
        plan.write_text(plan.read_text(encoding="utf-8").replace("owner: ana", "owner: 12"), encoding="utf-8")
        wrong = _newcomer(tmp_path, "check", "--format", "text", "plan.yaml", forced=forced)
        assert wrong.returncode == 1, wrong.stderr
        assert "plan.yaml:6:12: error EP011 a: owner must be text, not the number 12" in wrong.stdout, wrong.stdout


# --- a choice field: status (compiler/analysis/progress.py) ------------------------------------------------------

_ITEM = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p"}


def test_a_plainly_valid_choice_is_read_by_the_fast_path() -> None:
    item = plain_item({**_ITEM, "status": "done", "reason": "merged"}, 0)
    assert item is not None and item.options == (("status", "done"), ("reason", "merged"))
    assert plain_item({**_ITEM, "status": "finished"}, 0) is None  # not the fast path's to word


@pytest.mark.parametrize(("value", "shown", "hint"), [
    (12, "the number 12", None),
    ("finished", "'finished'", "did you mean done?"),
    ("complete", "'complete'", "did you mean done?"),
    ("Done", "'Done'", "did you mean done?"),
    ("in progress", "'in progress'", "did you mean doing?"),
    ("droped", "'droped'", "did you mean dropped?"),
    ("whatever", "'whatever'", None),
    (True, "true/false", None),
])
def test_a_wrong_status_is_ep011_located_with_the_value_meant_on_both_paths(value: Any, shown: str,
                                                                            hint: str | None) -> None:
    """The fast path declines the item (and the item with an unknown key beside it), and the input
    model words it: at the status's value, in our words, with the value meant where one is close."""
    raw = {**_ITEM, "status": value}
    assert plain_item(raw, 0) is None
    doc = parse_text(json.dumps({"items": [raw, {**raw, "id": "b", "x": 1}]}, indent=1), "plan.json", "json")
    col = Collector(doc)
    assert plain_item_with_unknown_keys({**raw, "x": 1}, 1, ("items", 1), col) is None and col.out == []
    diagnostics = build_plan(doc).diagnostics
    expected = f"status must be 'todo', 'doing', 'done' or 'dropped', not {shown}"
    assert [(d.code, d.item, d.message, d.hint) for d in diagnostics] == [
        ("EP011", "a", f"a: {expected}", hint), ("EP011", "b", f"b: {expected}", hint),
        ("EP010", "b", "b has unknown field 'x'", None)]
    at = [(d.location.line, d.location.column) for d in diagnostics if d.location]
    text = doc.text.splitlines()
    assert all(text[line - 1][column - 1:].startswith(json.dumps(value)) for line, column in at[:2])
    assert not any(words in d.message for d in diagnostics for words in PYDANTIC_WORDS)


def test_a_blank_status_is_the_default() -> None:
    (item,) = build_plan(parse_text('items:\n  - {id: a, change: c, evidence: [a.py], proof: p, status: }\n',
                                    "plan.yaml", "yaml")).items
    assert item.options == ()


def test_an_estimate_without_its_high_bound_is_ep017_at_the_estimate() -> None:
    item = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p", "estimate": {"low": 1, "unit": "days"}}
    (d,) = _check({"items": [item]})
    assert (d.code, d.message, d.item) == ("EP017", "a has no estimate.high", "a")


def test_the_fast_path_reads_a_plain_estimate_in_its_declared_order() -> None:
    raw = {"id": "a", "estimate": {"evidence": "PR 12", "unit": "days", "high": 3, "low": 1.5}}
    item = plain_item(raw, 0)
    assert item is not None
    assert list(item.option("estimate")) == ["low", "high", "unit", "evidence"]
    assert plain_item({"id": "a", "estimate": {"low": 1, "high": float("inf"), "unit": "days"}}, 0) is None
    assert plain_item({"id": "a", "estimate": {"low": True, "high": 2, "unit": "days"}}, 0) is None


# --- plan-level fields: declared once, they reach every output ---------------------------------------

# A valid value of each kind, as a plan gives it (the items' list is the plan's own).
_VALID: dict[str, Any] = {
    "text": "x", "optional-text": "ana", "ids": ["a"], "evidence": ["a.py"], "proof": "p", "optional-line": 2,
    "optional-lines": "1-2", "choice": None, "flag": True,
    "optional-estimate": {"low": 1, "high": 2, "unit": "days"},
    "claims": [{"description": "rps", "low": 1, "high": 2, "unit": "requests/s"}],
    "paths": ["app/"], "budget": {"max_revisions": 3},
}


def test_every_kind_has_a_valid_value() -> None:
    assert set(_VALID) == set(fields.KINDS) - {"items"}


def _reached(document: dict[str, Any], converted: dict[str, dict[str, Any]], schemas: dict[str, dict[str, Any]],
             name: str, value: Any) -> list[str]:
    """Where a plan field given ``value`` did not arrive: evidence-plan.json, each convert, each schema."""
    missing = []
    if document.get(name, "absent") != value:
        missing.append(f"evidence-plan.json (got {document.get(name, 'no key')!r})")
    for target, data in converted.items():
        if data.get(name, "absent") != value:
            missing.append(f"convert --to {target} (got {data.get(name, 'no key')!r})")
    if name not in schemas["input"]["$defs"]["PlanFile"]["properties"]:
        missing.append("the input schema's PlanFile")
    if name not in schemas["output"]["properties"]:
        missing.append("the output schema")
    return missing


def _every_output(tmp_path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    from ruamel.yaml import YAML

    from compiler.api.convert import convert
    from compiler.compile.emit import build_output
    from compiler.compile.pipeline import compile_plan

    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(data), encoding="utf-8")
    result = compile_plan(str(plan), verify_evidence=False)
    assert result.status == "ready", result.diagnostics
    document = build_output(result, str(tmp_path))
    converted = {}
    for target in ("yaml", "json"):
        text = convert(str(plan), target, str(tmp_path), verify_evidence=False).text
        assert text is not None
        converted[target] = json.loads(text) if target == "json" else YAML(typ="safe").load(text)
    return document, converted


@pytest.mark.parametrize("field", [f for f in fields.PLAN_FIELDS if f.kind != "items"], ids=lambda f: f.name)
def test_every_plan_field_a_plan_gives_reaches_both_artifacts_convert_and_both_schemas(
        tmp_path: Path, field: fields.Field) -> None:
    """Each declared plan field, given a valid value, is in evidence-plan.json, in what `convert`
    writes (YAML and JSON), and described by both schemas: the test names what is missing."""
    from compiler.model.json_schema import generate

    value = "." if field.name == "root" else field.choices[0] if field.choices else _VALID[field.kind]
    item = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p"}
    document, converted = _every_output(tmp_path, {field.name: value, "items": [item]})
    schemas = {kind: json.loads(generate(kind)) for kind in ("input", "output")}
    if field.name == "root":  # the compiled root is where the plan's leads, from the output's folder
        value = document["root"]
    missing = _reached(document, converted, schemas, field.name, value)
    assert not missing, f"plan field {field.name} did not reach: {'; '.join(missing)}"


NEWCOMER_PLAN_FIELD = textwrap.dedent("""
    import json, sys
    from compiler.model import fields
    fields.PLAN_FIELDS = (*fields.PLAN_FIELDS, fields.Field("owner", "optional-text", "who owns the plan",
                                                            default=None))
    sys.path.insert(0, sys.argv[1])
    from test_fields import _every_output, _reached
    from compiler.model.json_schema import generate
    from pathlib import Path
    item = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p"}
    document, converted = _every_output(Path(sys.argv[2]), {"owner": "ana", "items": [item]})
    schemas = {kind: json.loads(generate(kind)) for kind in ("input", "output")}
    print(json.dumps(_reached(document, converted, schemas, "owner", "ana")))
""")


def test_a_plan_field_declared_once_reaches_both_artifacts_convert_and_both_schemas(tmp_path: Path) -> None:
    """A plan-level field added to PLAN_FIELDS, and nowhere else (in a fresh process, so that every
    module derives from the declarations as they are then), is written to evidence-plan.json and
    by `convert`, and described by both schemas."""
    paths = os.pathsep.join((str(REPO), str(REPO / "tests")))  # this checkout, and tests/support.py
    done = subprocess.run([sys.executable, "-c", NEWCOMER_PLAN_FIELD, str(Path(__file__).parent), str(tmp_path)],
                          capture_output=True, text=True, env={"PYTHONPATH": paths, "PATH": "/usr/bin:/bin"},
                          check=False)
    assert done.returncode == 0, done.stderr
    missing = json.loads(done.stdout)
    assert not missing, f"a plan field 'owner' declared in PLAN_FIELDS did not reach: {'; '.join(missing)}"
