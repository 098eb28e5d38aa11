"""The shape of evidence-plan.json, as pydantic models.

Used for two things only: generating schemas/evidence-plan.schema.json, and validating a compiled
file that ``render`` reads (it may have been edited by hand). emit.py builds the document as plain
dicts, and a test validates every document it produces against these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from compiler import fields
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
    hint: str | None = Field(default=None, description="how to fix it, where that is not plain from the message")


_CONFIG = ConfigDict(extra="forbid", strict=True)
# The five commitments are always written; every other field only when the item gives it.
_COMMITMENTS = ("id", "change", "evidence", "depends_on", "proof")
_OUT_KINDS: dict[str, Any] = {"text": str, "optional-text": str | None, "ids": list[str], "proof": str,
                              "paths": list[str]}


def _out(field: fields.Field, *, required: bool = False, described: bool = True) -> tuple[Any, Any]:
    """A field as the output writes it, by its kind: normalized (lines as START-END)."""
    options: dict[str, Any] = {"description": field.description} if described else {}
    if field.kind == "optional-line":
        annotation: Any = int | None
        options["ge"] = 1
    elif field.kind == "optional-lines":
        annotation = str | None
        options["pattern"] = r"^\d+-\d+$"
    else:
        annotation = _OUT_KINDS[field.kind]
    return annotation, (Field(**options) if required else Field(default=None, **options))


# Made from the field declarations (compiler/fields.py). The input's own fields are described in
# the plan file's schema; here only what the output adds is.
EvidenceOut: Any = create_model(  # type: ignore[call-overload]  # fields as keywords, from the declarations
    "EvidenceOut", __config__=_CONFIG,
    **{f.name: _out(f, described=False) for f in fields.EVIDENCE_FIELDS},
    **{f.name: _out(f) for f in fields.COMPILED_EVIDENCE_FIELDS},
)
_OUT_KINDS["evidence"] = list[EvidenceOut]
ItemOut: Any = create_model(  # type: ignore[call-overload]  # fields as keywords, from the declarations
    "ItemOut", __config__=_CONFIG,
    **{f.name: _out(f, required=f.name in _COMMITMENTS, described=f.name not in _COMMITMENTS)
       for f in fields.ITEM_FIELDS},
    **{f.name: _out(f) for f in fields.COMPILED_ITEM_FIELDS},
)


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
        # Keys this version does not know are a later version's additions: read past them (the
        # format's versioning rule, compiler/fields.py). Anything else is refused, in our words.
        errors = [e for e in err.errors(include_url=False, include_input=False) if e["type"] != "extra_forbidden"]
        if errors:
            raise _not_compiled(doc, errors[0]) from None
    return data


def _not_compiled(doc: Any, error: Any) -> PlanInputError:
    from compiler.display import kind_of
    from compiler.validate import expected_words, value_at

    path = tuple(error["loc"])
    pos = doc.source_map.value(path)
    where = ".".join(str(p) for p in path) or "document"
    problem = ("is missing" if error["type"] == "missing" else
               f"must be {expected_words(dict(error))}, not {kind_of(value_at(doc.data, path))}")
    return PlanInputError(Diagnostic(
        "EP011", f"evidence-plan.json does not match its schema at {where}: {problem}", None,
        Location(doc.name, *pos) if pos else Location(doc.name),
        hint="regenerate it with evidence-plan compile",
    ))

