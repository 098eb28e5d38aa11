"""The plan file's format as pydantic models, built from the field declarations
(compiler/fields.py): the validator of record for items that are not plainly valid, and the
source of schemas/plan.schema.json.

Imported only when needed (an item that needs checking field by field, `schema`): a valid plan
is read without importing pydantic at all (see compiler/validate.py), which keeps `check` quick.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, create_model

from compiler import fields, globs, ids, pins, references
from compiler.fields import Kind

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
    return _ANNOTATIONS[kind]


def _whole(value: Any) -> Any:
    """A number with no fraction is that whole number: 1.0 is 1, as JSON Schema's integer says
    (a schema cannot tell them apart, so neither does the tool). 1.5, true and "1" stay refused."""
    return int(value) if type(value) is float and value.is_integer() else value


_WholeNumber = Annotated[int, BeforeValidator(_whole)]
_ANNOTATIONS: dict[Kind, Any] = {
    "text": str,
    "optional-text": str | None,
    "ids": list[str],
    "optional-line": _WholeNumber | None,
    "optional-lines": str | _WholeNumber | None,
    "paths": list[str],
}

# The JSON Schema keywords of a grammar that compiler/fields.py names ({"x-grammar": "id"}): the
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
