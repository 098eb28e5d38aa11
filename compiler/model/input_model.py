"""The plan file's format as pydantic models, built from the field declarations
(compiler/model/fields.py): the validator of record for items that are not plainly valid, and the
source of schemas/plan.schema.json.

Imported only when needed (an item that needs checking field by field, `schema`): a valid plan
is read without importing pydantic at all (see compiler/model/plain.py), which keeps `check` quick.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, NotRequired, Required, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, WithJsonSchema, create_model
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict  # pydantic reads a TypedDict of typing's only from Python 3.12

from compiler.core import globs, ids, pins
from compiler.model import fields, references
from compiler.model.fields import Kind

_EVIDENCE_STRING = {
    "type": "string",
    "pattern": references.REFERENCE_PATTERN,
    "description": "path, path:LINE, path:START-END, path::symbol, or an https:// link",
    "examples": ["tests/test_accounts.py:44", "app/accounts.py:18-24", "app/accounts.py::create_account"],
}


def _annotation(field: fields.Field) -> Any:
    """The pydantic type of a field, by its kind. Kinds whose JSON Schema is not pydantic's own
    carry it, description included (json_schema.py replaces the evidence object's placeholder)."""
    kind: Kind = field.kind
    if kind == "evidence":
        return Annotated[list[Any], WithJsonSchema({
            "type": "array",
            "description": field.description,
            "items": {"anyOf": [_EVIDENCE_STRING, {"x-evidence-object": True}]},
        })]
    if kind == "proof":
        return Annotated[str, WithJsonSchema({
            "description": field.description,
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        })]
    if kind == "items":
        return cast(Any, list)[WorkItem]  # the model is made at run time: a type to pydantic, a value to mypy
    if kind == "choice":  # one of the field's words (a field declared without any takes any text)
        return cast(Any, Literal)[field.choices] if field.choices else str
    if kind == "optional-estimate":
        return Estimate  # absent is its default (and a blank `estimate:` is absent: items.py drops it)
    if kind == "claims":
        return list[Claim] | None  # type: ignore[valid-type]  # made from the declaration; blank is none
    if kind == "budget":
        return Budget | None  # made from the declaration; blank is none
    return _ANNOTATIONS[kind]


def _number(value: Any) -> Any:
    """An estimate's bound: a whole number or a decimal as written (2 stays 2, 2.5 stays 2.5, so
    both paths write the same bytes); true, text and infinities are refused."""
    if type(value) is not int and type(value) is not float:
        raise PydanticCustomError("number_type", "a number")
    if not math.isfinite(value):
        raise PydanticCustomError("finite_number", "a finite number")
    return value


_Number = Annotated[float, PlainValidator(_number), WithJsonSchema({"type": "number"})]
_PART_TYPES: dict[str, Any] = {
    "description": str,
    "low": _Number,
    "high": _Number,
    "unit": Literal[tuple(fields.UNIT_HOURS)],  # made from the declaration
    "confidence": Literal[fields.CONFIDENCES],
    "evidence": str,
}
_PART_DESCRIPTIONS = {
    "description": "what the quantity is",
    "low": "the low end of a 90% interval (more than 0)",
    "high": "the high end of a 90% interval (at least low, at most max-spread times it: 100)",
    "unit": "minutes, hours, days (8 hours) or weeks (5 days)",
    "confidence": "high, medium or low",
    "evidence": "what justifies the range: text or a repository reference (empty: flagged)",
}

_CLAIM_UNIT = "the quantity's unit, any text (requests per second, rows, MB)"


def _parts(name: str, parts: tuple[tuple[str, bool], ...], units: Any) -> Any:
    """A TypedDict of an estimate's or a claim's parts: pydantic validates it into a plain dict,
    the value the fast path keeps, in the declaration's order."""
    types = {**_PART_TYPES, "unit": units}
    words = {**_PART_DESCRIPTIONS, **({} if units is _PART_TYPES["unit"] else {"unit": _CLAIM_UNIT})}
    annotated = {part: Annotated[types[part], Field(description=words[part])] for part, _ in parts}
    typed = cast(Any, TypedDict)(name, {part: (Required if needed else NotRequired)[annotated[part]]
                                        for part, needed in parts}, total=False)
    typed.__pydantic_config__ = ConfigDict(extra="forbid", strict=True)
    return typed


Estimate = _parts("Estimate", fields.ESTIMATE_PARTS, _PART_TYPES["unit"])
Claim = _parts("Claim", fields.CLAIM_PARTS, str)


def _whole(value: Any) -> Any:
    """A number with no fraction is that whole number: 1.0 is 1, as JSON Schema's integer says
    (a schema cannot tell them apart, so neither does the tool). 1.5, true and "1" stay refused."""
    return int(value) if type(value) is float and value.is_integer() else value


_WholeNumber = Annotated[int, BeforeValidator(_whole)]
# A plan's budget (compiler/model/fields.py: BUDGET_PARTS): each part optional, a whole number of at least 1.
Budget: Any = cast(Any, TypedDict)("Budget", {
    part: NotRequired[Annotated[int, Field(ge=1, description=words), BeforeValidator(_whole)]]  # ge before: "minimum"
    for part, words in fields.BUDGET_PARTS
}, total=False)
Budget.__pydantic_config__ = ConfigDict(extra="forbid", strict=True)
_ANNOTATIONS: dict[Kind, Any] = {
    "text": str,
    "optional-text": str | None,
    "ids": list[str],
    "optional-line": _WholeNumber | None,
    "optional-lines": str | _WholeNumber | None,
    "flag": bool,
    "paths": list[str],
}

# The JSON Schema keywords of a grammar that compiler/model/fields.py names ({"x-grammar": "id"}): the
# grammar is stated once, beside the code that reads it (ids.py, references.py).
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


def schema_keywords(field: fields.Field) -> dict[str, Any]:
    """The JSON Schema keywords a field adds to what its kind says, grammars spelled out."""
    keywords = dict(field.schema or {})
    grammar = keywords.pop("x-grammar", None)
    return {**GRAMMARS[grammar], **keywords} if grammar else keywords
# Kinds whose description lives in their own JSON Schema (above), not in the field's.
_SELF_DESCRIBED = frozenset(("evidence", "proof"))


def _field(field: fields.Field) -> tuple[Any, Any]:
    options: dict[str, Any] = {}
    if field.kind not in _SELF_DESCRIBED and field.kind != "items":
        options["description"] = field.description
    if field.schema:
        options["json_schema_extra"] = schema_keywords(field)
    if field.required:
        return _annotation(field), Field(**options)
    if field.default == ():
        return _annotation(field), Field(default_factory=list, **options)
    return _annotation(field), Field(default=field.default, **options)


def _model(name: str, title: str, doc: str, declared: tuple[fields.Field, ...], *,
           populate_by_name: bool = False) -> type[BaseModel]:
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        name,
        __config__=ConfigDict(extra="forbid", strict=True, title=title, populate_by_name=populate_by_name),
        __doc__=doc,
        **{f.name: _field(f) for f in declared},
    )
    return model


EvidenceObject = _model("EvidenceObject", "Evidence", "The object form of an evidence entry.", fields.EVIDENCE_FIELDS)
WorkItem = _model("WorkItem", "WorkItem", "One work item: its five commitments.", fields.ITEM_FIELDS,
                  populate_by_name=True)
PlanFile = _model("PlanFile", "Plan", "A plan file: a name, a goal, and the work items.", fields.PLAN_FIELDS)
