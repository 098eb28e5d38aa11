"""Each kind of field value (compiler/model/fields.py: ``Kind``) as one record: everything the tool
does with a value of that kind, side by side.

- ``plain``: the fast path's check (compiler/model/plain.py): the value, exactly of its type, is
  valid as it stands; anything else goes to the input model, the validator of record and the
  source of every message. ``remade``: the value as the input model makes it, when it differs.
  ``plain_type``: the evidence object's fast path takes a value of this type as it stands
  (parse_object then judges it, as it does on the input model's path).
- ``input``: the pydantic annotation of the plan file's model (compiler/model/input_model.py);
  ``described``: whether the field's description goes beside it (a kind whose JSON Schema is its
  own carries the description itself).
- ``output``: the annotation in evidence-plan.json's model (compiler/model/output_model.py), and the
  pydantic ``Field`` keywords it adds.
- ``grammars``: the grammars (``GRAMMARS``, below) that a field of the kind may name with
  ``schema={"x-grammar": NAME}``.
- ``hint``: the fix for a wrong value people often write (one string where a list is meant): what
  the message says, and the value meant, which `fix` writes (``Hint``).

A part that a kind has not is None, and ``absent`` says why; a test fails naming the kind and the
part when a part is None without a reason (tests/test_fields.py). Registry of the kinds:
``KIND_SPECS``, one record per kind of ``fields.KINDS``, with no default.

The annotations are built when a model is made (``input`` and ``output`` are functions that
import pydantic's types then, compiler/model/annotations.py): importing this module imports no
pydantic, so that ``check`` of a valid plan stays free of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, cast

from compiler.core import globs, ids, pins
from compiler.core.diagnostics import Applicability
from compiler.core.display import clip
from compiler.model import fields, references
from compiler.model.fields import Kind

# The models made so far, by name, for the kinds whose type is one of them (the item list's
# WorkItem, the evidence list's EvidenceOut): the model modules pass them in.
Made = Mapping[str, Any]


class Hint(NamedTuple):
    """The fix for a wrong value: what the message says (``write [a]``), the value meant, and how
    sure that is (compiler/core/diagnostics.py ``Applicability``)."""

    text: str
    meant: Any
    applicability: Applicability = "safe"


class KindSpec(NamedTuple):
    plain: Callable[[Any], bool] | None
    input: Callable[[fields.Field, Made], Any]
    output: Callable[[fields.Field, Made], tuple[Any, dict[str, Any]]] | None
    hint: Callable[[Any], Hint | None] | None
    grammars: tuple[str, ...] = ()
    described: bool = True
    remade: Callable[[Any], Any] | None = None
    plain_type: type | tuple[type, ...] | None = None
    absent: tuple[tuple[str, str], ...] = ()  # (part, why the kind has none)


# The parts a record must have, or say why not (``absent``).
PARTS = ("plain", "input", "output", "hint")


def _annotations() -> Any:
    from compiler.model import annotations

    return annotations


# --- the fast path's checks ------------------------------------------------------------------------


def _plain_number(value: Any) -> bool:
    return (type(value) is int or type(value) is float) and value - value == 0  # finite: inf - inf is nan


_PLAIN_PARTS: dict[str, Callable[[Any], bool]] = {
    "description": lambda value: type(value) is str,
    "low": _plain_number,
    "high": _plain_number,
    "unit": lambda value: type(value) is str and value in fields.UNIT_HOURS,
    "confidence": lambda value: type(value) is str and value in fields.CONFIDENCES,
    "evidence": lambda value: type(value) is str,
    "left": _plain_number,
}
CLAIM_UNIT = {"unit": lambda value: type(value) is str}  # a claim's unit is any text


def plain_parts(value: Any, parts: tuple[tuple[str, bool], ...],
                checks: dict[str, Callable[[Any], bool]] = _PLAIN_PARTS) -> dict[str, Any] | None:
    """An estimate's or a claim's mapping, when every part is exactly of its type and the needed
    ones are there: the same dict, parts in their declared order, as the input model makes. Else None."""
    if type(value) is not dict:
        return None
    out = {}
    for name, needed in parts:
        if name in value:
            part = value[name]
            if not checks.get(name, _PLAIN_PARTS[name])(part):
                return None
            out[name] = part
        elif needed:
            return None
    return out if len(out) == len(value) else None


_BUDGET_NAMES = frozenset(part for part, _ in fields.BUDGET_PARTS)


def _plain_claims(value: Any) -> bool:
    return type(value) is list and all(plain_parts(claim, fields.CLAIM_PARTS, CLAIM_UNIT) is not None
                                       for claim in value)


def _plain_budget(value: Any) -> bool:
    """Known parts, each a whole number of at least 1."""
    return type(value) is dict and all(key in _BUDGET_NAMES and type(part) is int and part >= 1
                                       for key, part in value.items())


# --- the hints --------------------------------------------------------------------------------------


def _a_list(value: Any) -> Hint | None:
    """Text where a list is meant: the list of it (``a`` is ``[a]``); text with commas is read as
    the list it spells (``a, b`` is ``[a, b]``), a guess."""
    if not isinstance(value, str):
        return None
    text = f"a list, even of one: write [{clip(value, 60)}]"
    parts = [part.strip() for part in value.split(",")]
    if len(parts) > 1 and all(parts):
        return Hint(text, parts, "unsafe")
    return Hint(text, [value])


def _a_range(value: Any) -> Hint | None:
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value):
        return Hint(f"a range is text: write lines: {value[0]}-{value[1]}", f"{value[0]}-{value[1]}")
    return None


_NO_SHAPE = "no shape of its value is a common mistake with a fix to name"

# The JSON Schema keywords of a grammar that a field names ({"x-grammar": "id"}): the grammar is
# stated once, beside the code that reads it (ids.py, references.py, pins.py, globs.py).
GRAMMARS: dict[str, dict[str, Any]] = {
    "id": {"pattern": ids.SCHEMA_PATTERN, "maxLength": ids.MAX_LENGTH},
    "lines": {"pattern": references.LINES_PATTERN, "minimum": 1, "maximum": references.MAX_LINES_NUMBER},
    "url": {"pattern": references.URL_PATTERN},
    "pin": {"pattern": pins.SCHEMA_PATTERN},
    "not-blank": {"pattern": references.NOT_BLANK},
    "paths": {"items": {"type": "string", "pattern": globs.SCHEMA_PATTERN, "maxLength": globs.MAX_PATH}},
    # pattern constrains the text form, contains the list form (each keyword applies to its type).
    "command": {"pattern": references.NOT_BLANK, "contains": {"type": "string", "pattern": references.NOT_BLANK}},
}


KIND_SPECS: dict[Kind, KindSpec] = {
    "text": KindSpec(
        plain=lambda value: type(value) is str,
        input=lambda field, made: str,
        output=lambda field, made: (str, {}),
        hint=None, absent=(("hint", _NO_SHAPE),),
        grammars=("id", "not-blank"),
    ),
    "optional-text": KindSpec(
        plain=lambda value: type(value) is str,
        input=lambda field, made: str | None,
        output=lambda field, made: (str | None, {}),
        hint=None, absent=(("hint", _NO_SHAPE),),
        grammars=("not-blank", "url", "pin"),
        plain_type=str,
    ),
    "ids": KindSpec(
        plain=lambda value: type(value) is list and all(type(v) is str for v in value),
        input=lambda field, made: list[str],
        output=lambda field, made: (list[str], {}),
        hint=_a_list,
    ),
    "evidence": KindSpec(
        plain=None,
        input=lambda field, made: _annotations().evidence_list(field),
        output=lambda field, made: (cast(Any, list)[made["EvidenceOut"]], {}),  # a model made at run time
        hint=_a_list,
        described=False,
        absent=(("plain", "the fast path reads the evidence itself, entry by entry (plain_item): it is a"
                          " commitment, not an option"),),
    ),
    "proof": KindSpec(
        plain=None,
        input=lambda field, made: _annotations().proof(field),
        output=lambda field, made: (str, {}),
        hint=None,
        grammars=("command",),
        described=False,
        absent=(("plain", "the fast path reads the proof itself (plain_item): a list of commands is the"
                          " input model's, joined with a warning"), ("hint", _NO_SHAPE)),
    ),
    "optional-line": KindSpec(
        plain=lambda value: type(value) is int and value >= 1,
        input=lambda field, made: _annotations().WholeNumber | None,
        output=lambda field, made: (int | None, {"ge": 1}),
        hint=None, absent=(("hint", _NO_SHAPE),),
        plain_type=int,
    ),
    "optional-lines": KindSpec(
        plain=None,
        input=lambda field, made: str | _annotations().WholeNumber | None,
        output=lambda field, made: (str | None, {"pattern": r"^\d+-\d+$"}),
        hint=_a_range,
        grammars=("lines",),
        plain_type=(str, int),
        absent=(("plain", "only evidence objects have lines, and parse_object reads them (plain_type)"),),
    ),
    "items": KindSpec(
        plain=None,
        input=lambda field, made: cast(Any, list)[made["WorkItem"]],  # a model made at run time
        output=None,
        hint=None,
        described=False,
        absent=(("plain", "the plan's item list: each item is read by the fast path or the input model"),
                ("output", "the output model's item list is its own (CompiledPlan.items, of ItemOut)"),
                ("hint", _NO_SHAPE)),
    ),
    "choice": KindSpec(
        plain=lambda value: type(value) is str,  # and one of the field's words: plain._plain_check
        input=lambda field, made: _annotations().choice(field),
        output=lambda field, made: (_annotations().choice(field) | None, {}),
        hint=None, absent=(("hint", "a wrong word is answered with the word meant (messages.choice_hint)"),),
    ),
    "flag": KindSpec(
        plain=lambda value: type(value) is bool,
        input=lambda field, made: bool,
        output=lambda field, made: (bool | None, {}),
        hint=None, absent=(("hint", "a word for true or false is answered by messages (write true or false)"),),
    ),
    "optional-estimate": KindSpec(
        plain=lambda value: plain_parts(value, fields.ESTIMATE_PARTS) is not None,
        remade=lambda value: plain_parts(value, fields.ESTIMATE_PARTS),
        # absent is its default (and a blank `estimate:` is absent: items.py drops it)
        input=lambda field, made: _annotations().Estimate,
        output=lambda field, made: (_annotations().EstimateOut | None, {}),
        hint=None, absent=(("hint", _NO_SHAPE),),
    ),
    "claims": KindSpec(
        plain=_plain_claims,
        remade=lambda value: [plain_parts(claim, fields.CLAIM_PARTS, CLAIM_UNIT) for claim in value],
        input=lambda field, made: cast(Any, list)[_annotations().Claim] | None,  # blank is none
        output=lambda field, made: (cast(Any, list)[_annotations().ClaimOut] | None, {}),
        hint=None, absent=(("hint", _NO_SHAPE),),
    ),
    "paths": KindSpec(
        plain=lambda value: type(value) is list and all(type(v) is str and globs.problem(v) is None for v in value),
        input=lambda field, made: list[str],
        output=lambda field, made: (list[str], {}),
        hint=_a_list,
        grammars=("paths",),
    ),
    "budget": KindSpec(
        plain=_plain_budget,
        input=lambda field, made: _annotations().Budget | None,  # blank is none
        output=lambda field, made: (_annotations().BudgetOut | None, {}),
        hint=None, absent=(("hint", _NO_SHAPE),),
    ),
}


def spec(kind: Kind) -> KindSpec:
    return KIND_SPECS[kind]


def hint_for(key: Any, value: Any, declared: tuple[fields.Field, ...]) -> Hint | None:
    """The fix for a wrong ``value`` of the field named ``key`` (its name or alias), by its kind."""
    for field in declared:
        if key == field.name or (field.alias is not None and key == field.alias):
            hint = KIND_SPECS[field.kind].hint
            return hint(value) if hint is not None else None
    return None


def schema_keywords(field: fields.Field) -> dict[str, Any]:
    """The JSON Schema keywords a field adds to what its kind says, grammars spelled out."""
    keywords = dict(field.schema or {})
    grammar = keywords.pop("x-grammar", None)
    return {**GRAMMARS[grammar], **keywords} if grammar else keywords
