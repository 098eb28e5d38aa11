"""The plan file's format as pydantic models, built from the field declarations
(compiler/model/fields.py): the validator of record for items that are not plainly valid, and the
source of schemas/plan.schema.json.

Imported only when needed (an item that needs checking field by field, `schema`): a valid plan
is read without importing pydantic at all (see compiler/model/plain.py), which keeps `check` quick.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from compiler.model import fields
from compiler.model.annotations import Budget as Budget  # their home, re-exported
from compiler.model.annotations import Claim as Claim
from compiler.model.annotations import Estimate as Estimate
from compiler.model.kinds import KIND_SPECS, schema_keywords

# The models made so far, for the kinds whose type is one of them (the item list's WorkItem).
_MADE: dict[str, Any] = {}


def _annotation(field: fields.Field) -> Any:
    """The pydantic type of a field, by its kind (compiler/model/kinds.py)."""
    return KIND_SPECS[field.kind].input(field, _MADE)


def _field(field: fields.Field) -> tuple[Any, Any]:
    options: dict[str, Any] = {}
    if KIND_SPECS[field.kind].described:
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
WorkItem = _MADE["WorkItem"] = _model("WorkItem", "WorkItem", "One work item: its five commitments.",
                                      fields.ITEM_FIELDS, populate_by_name=True)
PlanFile = _model("PlanFile", "Plan", "A plan file: a name, a goal, and the work items.", fields.PLAN_FIELDS)
