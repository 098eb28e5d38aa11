"""The plan file's format as pydantic models: the validator of record for items that are not
plainly valid, and the source of schemas/plan.schema.json.

Imported only when needed (an item that needs checking field by field, `schema`): a valid plan
is read without importing pydantic at all (see model._plain_item), which keeps `check` quick.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

_EVIDENCE_STRING = {
    "type": "string",
    "minLength": 1,
    "description": "path, path:LINE, path:START-END, path::symbol, or an https:// link",
    "examples": ["tests/test_accounts.py:44", "app/accounts.py:18-24", "app/accounts.py::create_account"],
}


class EvidenceObject(BaseModel):
    """The object form of an evidence entry."""

    model_config = ConfigDict(extra="forbid", strict=True, title="Evidence")

    path: str | None = Field(default=None, description="relative to the repository root")
    line: int | None = Field(default=None, description="one line, 1-based", json_schema_extra={"minimum": 1})
    lines: str | int | None = Field(default=None, description="START-END (inclusive) or one line")
    symbol: str | None = Field(default=None, description="a function, class or dotted name")
    contains: str | None = Field(default=None, description="text that must appear in the cited lines")
    url: str | None = Field(default=None, description="external evidence (not verified)")


_EVIDENCE_LIST_SCHEMA = {
    "type": "array",
    "description": "repository facts that justify the change",
    # schema.py replaces this placeholder with a $ref to the EvidenceObject definition.
    "items": {"anyOf": [_EVIDENCE_STRING, {"x-evidence-object": True}]},
}


_PROOF_SCHEMA = {
    "description": "the one exact command that closes the item (a list is read as its commands joined"
                   " by &&, with a warning: split the item instead)",
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
}


class WorkItem(BaseModel):
    """One work item: its five commitments."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, title="WorkItem")

    id: str = Field(description="stable reference, unique in the plan")
    change: str = Field(default="", description="the smallest behaviour or contract change")
    evidence: Annotated[list[Any], WithJsonSchema(_EVIDENCE_LIST_SCHEMA)] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list, description="ids that must be done first (alias: dependencies)")
    proof: Annotated[str, WithJsonSchema(_PROOF_SCHEMA)] = Field(default="")


class PlanFile(BaseModel):
    """A plan file: a name, a goal, and the work items."""

    model_config = ConfigDict(extra="forbid", strict=True, title="Plan")

    plan: str | None = Field(default=None, description="the plan's name")
    goal: str | None = Field(default=None, description="what the plan achieves")
    root: str | None = Field(default=None, description="repository root, relative to this file")
    items: list[WorkItem]
