"""The pydantic types of the kinds' values that are more than a Python type: an estimate's and a
claim's parts, a budget, the evidence list and the proof as their JSON Schemas say them, and the
same objects as evidence-plan.json writes them.

Imported only by the kinds' records when a model is built (compiler/model/kinds.py), and so
only when pydantic is needed: a valid plan is read without it.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, NotRequired, Required, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, WithJsonSchema, create_model
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict  # pydantic reads a TypedDict of typing's only from Python 3.12

from compiler.model import fields, references

# --- the plan file (the input model) -------------------------------------------------------------------

EVIDENCE_STRING = {
    "type": "string",
    "pattern": references.REFERENCE_PATTERN,
    "description": "path, path:LINE, path:START-END, path::symbol, or an https:// link",
    "examples": ["tests/test_accounts.py:44", "app/accounts.py:18-24", "app/accounts.py::create_account"],
}


def evidence_list(field: fields.Field) -> Any:
    """The evidence list: strings and objects, its JSON Schema carrying the field's description
    (json_schema.py replaces the evidence object's placeholder)."""
    return Annotated[list[Any], WithJsonSchema({
        "type": "array",
        "description": field.description,
        "items": {"anyOf": [EVIDENCE_STRING, {"x-evidence-object": True}]},
    })]


def proof(field: fields.Field) -> Any:
    """One command, or a list of them (read as joined by &&, with a warning)."""
    return Annotated[str, WithJsonSchema({
        "description": field.description,
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
    })]


def choice(field: fields.Field) -> Any:
    """One of the field's words (a field declared without any takes any text)."""
    return cast(Any, Literal)[field.choices] if field.choices else str


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
    "left": _Number,
}
_PART_DESCRIPTIONS = {
    "description": "what the quantity is",
    "low": "the low end of a 90% interval (more than 0)",
    "high": "the high end of a 90% interval (at least low, at most max-spread times it: 100)",
    "unit": "minutes, hours, days (8 hours) or weeks (5 days)",
    "confidence": "high, medium or low",
    "evidence": "what justifies the range: text or a repository reference (empty: flagged)",
    "left": "while the item is doing: the share of it still to do, 0 to 1 (0.25: a quarter left); the schedule"
            " and the forecast count that share of the range (a done item counts 0)",
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


WholeNumber = Annotated[int, BeforeValidator(_whole)]
# A plan's budget (compiler/model/fields.py: BUDGET_PARTS): each part optional, a whole number of at least 1.
Budget: Any = cast(Any, TypedDict)("Budget", {
    part: NotRequired[Annotated[int, Field(ge=1, description=words), BeforeValidator(_whole)]]  # ge before: "minimum"
    for part, words in fields.BUDGET_PARTS
}, total=False)
Budget.__pydantic_config__ = ConfigDict(extra="forbid", strict=True)


# --- evidence-plan.json (the output model) ---------------------------------------------------------------


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


STRICT = ConfigDict(extra="forbid", strict=True)
_UNIT = Literal[tuple(fields.UNIT_HOURS)]  # type: ignore[valid-type]  # from the declarations
_CONFIDENCE = Literal[fields.CONFIDENCES]  # type: ignore[valid-type]


class EstimateOut(Strict):
    low: float
    high: float
    unit: _UNIT  # type: ignore[valid-type]
    confidence: _CONFIDENCE | None = None
    evidence: str | None = None


class ClaimOut(Strict):
    description: str
    low: float
    high: float
    unit: str
    confidence: _CONFIDENCE | None = None
    evidence: str | None = None


BudgetOut: Any = create_model(  # type: ignore[call-overload]  # the parts, from the declaration
    "BudgetOut", __config__=STRICT, __doc__="The plan's budget, as it gives it.",
    **{part: (int | None, Field(default=None, ge=1, description=words)) for part, words in fields.BUDGET_PARTS},
)
