"""The field declarations (compiler/fields.py) and everything derived from them.

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
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import fields, input_model, output_model, validate
from compiler.diagnostics import Diagnostic
from compiler.load import parse_text
from compiler.validate import PLAIN_KEYS, build_plan, plain_item

REPO = Path(__file__).resolve().parent.parent
# pydantic's own words, which must never reach a user.
PYDANTIC_WORDS = ("Input should", "input_value", "type=", "Field required", "valid string", "pydantic")


def _dummy(kind: fields.Kind) -> fields.Field:
    return fields.Field("x", kind, "a field of this kind", default=None)


@pytest.mark.parametrize("kind", fields.KINDS)
def test_the_input_model_knows_every_kind(kind: fields.Kind) -> None:
    assert input_model._annotation(_dummy(kind)) is not None


@pytest.mark.parametrize("kind", [k for k in fields.KINDS if k != "items"])
def test_the_output_model_knows_every_kind_but_the_item_list(kind: fields.Kind) -> None:
    assert output_model._out(_dummy(kind)) is not None


def test_the_fast_path_decides_every_declared_item_field() -> None:
    """A field of a kind the fast path cannot check is read by the input model, correctly but
    slowly: this test says so when a declaration adds one (teach validate._PLAIN_OPTIONS)."""
    assert set(fields.names(fields.ITEM_FIELDS)) <= PLAIN_KEYS
    assert {f.name for f in fields.EVIDENCE_FIELDS} == set(validate._EVIDENCE_TYPES)


def test_the_output_model_holds_what_the_declarations_say() -> None:
    compiled = set(output_model.CompiledPlan.model_fields)
    assert compiled == {"plan", "goal", "root", "items", *fields.COMPILED_PLAN_KEYS}
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
_VALUES: dict[str, Any] = {
    "text": st.one_of(_TEXT, st.none(), st.integers(0, 3), st.booleans(), st.lists(_TEXT, max_size=1)),
    "optional-text": st.one_of(_TEXT, st.none(), st.integers(0, 3)),
    "ids": st.one_of(st.lists(st.one_of(_TEXT, st.integers(0, 2)), max_size=3), _TEXT, st.none()),
    "evidence": st.one_of(st.lists(st.one_of(_REFERENCE, _EVIDENCE_OBJECT, st.integers(0, 2)), max_size=3),
                          _TEXT, st.none()),
    "proof": st.one_of(_TEXT, st.lists(_TEXT, max_size=3), st.none(), st.integers(0, 3)),
    "optional-line": st.one_of(st.none(), st.integers(-1, 5), _TEXT),
    "optional-lines": st.one_of(st.none(), _TEXT, st.integers(0, 3)),
    "paths": st.one_of(st.lists(st.one_of(st.sampled_from(["app/", "app/*.py", "**/x", "/abs", "a/../b", "a//b",
                                                           "a\\b", "[ab]", "a**", "", ".", "x/."]),
                                          _TEXT, st.integers(0, 2)), max_size=3), _TEXT, st.none()),
}
# Every key an item may give (names and aliases), and a few it may not.
_KEYS = [*fields.names(fields.ITEM_FIELDS), "depend_on", "status", "wave"]
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
    assert set(_EVIDENCE_VALUES) == {f.kind for f in fields.EVIDENCE_FIELDS}


def _reference_item(raw: dict[str, Any]) -> tuple[Any, list[Diagnostic]]:
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = validate._Collector(doc)
    return validate._item(raw, 0, ("items", 0), col), col.out


@settings(max_examples=1000, deadline=None)
@given(_raw_items())
def test_every_item_the_fast_path_accepts_the_input_model_accepts_alike(raw: dict[str, Any]) -> None:
    fast = plain_item(raw, 0)
    if fast is None:
        return  # not the fast path's to decide
    reference, diagnostics = _reference_item(raw)
    assert diagnostics == [], (raw, diagnostics)
    assert reference == fast, raw


_UNKNOWN_KEYS = st.lists(st.sampled_from(["depend_on", "depends", "summary", "file", "title", "status", "Id", "x"]),
                         unique=True, min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(_raw_items(), _UNKNOWN_KEYS, st.data())
def test_unknown_keys_beside_a_plain_item_are_reported_alike_on_both_paths(raw: dict[str, Any], unknown: list[str],
                                                                           data: st.DataObject) -> None:
    """The fast path's one kind of diagnostic (EP010 for keys the format does not define) is the
    input model's, to the byte, and so is the item it returns."""
    for key in unknown:
        raw[key] = data.draw(_VALUES["text"])
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = validate._Collector(doc)
    fast = validate.plain_item_with_unknown_keys(raw, 0, ("items", 0), col)
    if fast is None:
        return  # the rest is not plainly valid: not the fast path's to decide
    reference, diagnostics = _reference_item(raw)
    assert col.out == diagnostics, raw
    assert fast == reference, raw


def test_the_unknown_key_path_reaches_its_outcome() -> None:
    raw = {"id": "a", "change": "c", "evidence": ["a.py"], "depend_on": ["b"], "proof": "p"}
    doc = parse_text(json.dumps({"items": [raw]}), "plan.json", "json")
    col = validate._Collector(doc)
    item = validate.plain_item_with_unknown_keys(raw, 0, ("items", 0), col)
    assert item is not None and item.broken == ("depend_on",) and item.depends_on == ()
    assert [(d.code, d.message) for d in col.out] == [("EP010", "a has unknown field 'depend_on' (did you mean"
                                                                " depends_on?)")]


def test_the_differential_test_reaches_both_outcomes() -> None:
    """Not a test that passes by deferring: plainly valid items are read by the fast path."""
    assert plain_item({"id": "a", "change": "c", "evidence": ["a.py:1", {"path": "a.py", "line": 2}],
                       "dependencies": ["b"], "proof": "p"}, 0) is not None
    assert plain_item({"id": "a", "proof": ["p", "q"]}, 0) is None  # a list of commands: the model's


# --- wrong types, in our words ------------------------------------------------------------------------

_WRONG: dict[str, Any] = {
    "text": 12, "optional-text": ["a list"], "ids": "one id", "evidence": "a.py", "proof": {"a": 1},
    "optional-line": "three", "optional-lines": 1.5, "paths": {"app": 1},
}


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
    assert (d.code, d.message) == ("EP011", f"plan field {field.name} must be text, not the number 12")


def test_a_missing_field_beyond_the_id_is_ep017_at_its_object() -> None:
    """No declared field has a required part yet; a model that has one shows the message and
    where it points (an estimate without its high bound will be this)."""
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
    col = validate._Collector(doc)
    with pytest.raises(ValidationError) as err:
        Holder.model_validate(raw)
    col.pydantic(err.value, raw, ("items", 0), "a", "a", ("estimate",))
    (d,) = col.out
    assert (d.code, d.message, d.item) == ("EP017", "a has no estimate.high", "a")
    assert d.location is not None and (d.location.line, d.location.column) == (1, 25)  # the estimate's mapping


# --- a newcomer's field: one declaration ------------------------------------------------------------

NEWCOMER = textwrap.dedent("""
    import json, sys
    from compiler import fields
    fields.ITEM_FIELDS = (*fields.ITEM_FIELDS, fields.Field("owner", "optional-text", "who does it", default=None))
    from compiler.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _newcomer(tmp_path: Path, *argv: str, forced: bool = False) -> subprocess.CompletedProcess[str]:
    script = NEWCOMER if not forced else NEWCOMER.replace(
        "from compiler.cli import main", "import compiler.fastyaml as f; f.parse = lambda *a, **k: None\n"
        "from compiler.cli import main")
    return subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(REPO), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, check=False)


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
         + "from compiler.json_schema import generate\nprint(generate('input'))\nprint(generate('output'))"],
        capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(REPO)}, check=True).stdout
    # The plan's item, its twin in a compiled evidence-plan.json read as a plan, the output's item.
    assert generated.count('"owner"') == 3 and "who does it" in generated
    for forced in (False, True):
        plan.write_text(plan.read_text(encoding="utf-8").replace("owner: ana", "owner: 12"), encoding="utf-8")
        wrong = _newcomer(tmp_path, "check", "--format", "text", "plan.yaml", forced=forced)
        assert wrong.returncode == 1, wrong.stderr
        assert "plan.yaml:6:12: error EP011 a: owner must be text, not the number 12" in wrong.stdout, wrong.stdout
