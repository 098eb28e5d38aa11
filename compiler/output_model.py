"""The shape of evidence-plan.json, as pydantic models.

Used for two things only: generating schemas/evidence-plan.schema.json, and validating a compiled
file that ``render`` reads (it may have been edited by hand). emit.py builds the document as plain
dicts, and a test validates every document it produces against these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from compiler.diagnostics import Diagnostic, Location, PlanInputError
from compiler.fields import FORMAT
from compiler.load import DEFAULT_LIMITS, Limits, load


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class LocationOut(_Strict):
    file: str = Field(description="POSIX path, relative to the folder of evidence-plan.json")
    line: int | None = Field(ge=1, description="1-based")
    column: int | None = Field(ge=1, description="1-based")


class RelatedOut(_Strict):
    message: str
    location: LocationOut | None


class IssueOut(_Strict):
    code: str = Field(pattern=r"^EP\d{3}$", description="stable code, listed in the README")
    severity: Literal["error", "warning"]
    message: str
    item: str | None = Field(description="the item's id, or null for a plan-level problem")
    location: LocationOut | None
    related: list[RelatedOut] = Field(default_factory=list, description="secondary places, e.g. each edge of a cycle")


class EvidenceOut(_Strict):
    path: str | None = None
    line: int | None = Field(default=None, ge=1)
    lines: str | None = Field(default=None, pattern=r"^\d+-\d+$")
    symbol: str | None = None
    resolved_lines: str | None = Field(default=None, pattern=r"^\d+-\d+$",
                                       description="where the symbol was found, when evidence was verified")
    contains: str | None = None
    url: str | None = None


class ItemOut(_Strict):
    id: str
    change: str
    evidence: list[EvidenceOut]
    depends_on: list[str]
    proof: str
    wave: int | None = Field(default=None, ge=1, description="1-based; absent when the plan is blocked")


class SummaryOut(_Strict):
    items: int = Field(ge=0)
    waves: int = Field(ge=0)
    widest_wave: int = Field(ge=0)
    errors: int = Field(ge=0)
    warnings: int = Field(ge=0)


class CompiledPlan(_Strict):
    """evidence-plan.json: the compiled plan, the machine contract."""

    model_config = ConfigDict(title="evidence-plan.json")

    format: Literal["evidence-plan/1"] = Field(description=f"format version, {FORMAT}")
    plan: str | None
    goal: str | None
    source: str = Field(description="the plan file, relative to the folder of this file")
    root: str = Field(description="the repository root, relative to the folder of this file")
    evidence_verified: bool = Field(description="false when compiled with --no-verify-evidence")
    status: Literal["ready", "blocked"]
    summary: SummaryOut
    issues: list[IssueOut]
    waves: list[list[str]] = Field(description="ids per wave, sorted; [] when blocked")
    critical_path: list[str] = Field(description="the longest dependency chain; [] when blocked")
    items: list[ItemOut] = Field(description="the valid items, in input order")


def read_compiled(path: str, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Read an evidence-plan.json for rendering. Anything else is an input error (EP004/EP011)."""
    doc = load(path, limits=limits)
    data: dict[str, Any] = doc.data
    compiled = isinstance(data, dict) and str(data.get("format", "")).startswith("evidence-plan")
    if doc.format != "json" or not compiled:
        pos = doc.source_map.value(())
        raise PlanInputError(Diagnostic(
            "EP004", "not a compiled evidence-plan.json", None,
            Location(doc.name, *pos) if pos else Location(doc.name),
            hint="render reads what compile writes: run evidence-plan compile PLAN first",
        ))
    try:
        CompiledPlan.model_validate(data)
    except ValidationError as err:
        first = err.errors(include_url=False, include_input=False)[0]
        path_ = tuple(first["loc"])
        pos = doc.source_map.value(path_)
        where = ".".join(str(p) for p in path_) or "document"
        raise PlanInputError(Diagnostic(
            "EP011", f"evidence-plan.json does not match its schema at {where}: {first['msg']}", None,
            Location(doc.name, *pos) if pos else Location(doc.name),
            hint="regenerate it with evidence-plan compile",
        )) from None
    return data
