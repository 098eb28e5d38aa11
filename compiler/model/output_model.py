"""The shape of evidence-plan.json, as pydantic models.

Used for two things only: generating schemas/evidence-plan.schema.json, and validating a compiled
file that ``render`` reads (it may have been edited by hand). emit.py builds the document as plain
dicts, and a test validates every document it produces against these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from compiler.core.codes import REASONS
from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.load.document import load
from compiler.load.limits import DEFAULT_LIMITS, Limits
from compiler.model import fields
from compiler.model.annotations import STRICT, BudgetOut, ClaimOut
from compiler.model.fields import FORMAT
from compiler.model.kinds import KIND_SPECS


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
    code: str = Field(pattern=r"^EP\d{3}$", description="stable code, documented in docs/reference/codes.md")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$",
                      description="the code's rule name (`no-plan`), as stable as the code")
    severity: Literal["error", "warning"]
    message: str
    item: str | None = Field(description="the item's id, or null for a plan-level problem")
    location: LocationOut | None
    related: list[RelatedOut] = Field(default_factory=list, description="secondary places, e.g. each edge of a cycle")
    hint: str | None = Field(default=None, description="how to fix it, where that is not plain from the message")


_CONFIG = STRICT
# The five commitments are always written; every other field only when the item gives it.
_COMMITMENTS = ("id", "change", "evidence", "depends_on", "proof")
# The models made so far, for the kinds whose type is one of them (the evidence list's EvidenceOut).
_MADE: dict[str, Any] = {}


class FlaggedOut(_Strict):
    item: str | None = Field(description="the item whose estimate is flagged, or null for a claim")
    claim: int | None = Field(description="the claim's place in `claims`, 1-based, or null for an item")
    reason: str = Field(description="the rule it breaks, with the figures (EP112)")


class EstimatesOut(_Strict):
    """Present when the plan gives an estimate or a claim."""

    grounded: bool = Field(description="true when no estimate and no claim is flagged (EP112)")
    max_spread: float = Field(description="the largest high / low that is not flagged")
    units: str = Field(description="how days and weeks are counted in hours")
    estimated: int = Field(ge=0, description="items with an estimate")
    missing: int = Field(ge=0, description="items without one")
    flagged: list[FlaggedOut]


class ScheduleOut(_Strict):
    """Present when the plan is ready and gives an estimate."""

    unit: Literal["hours"] = Field(description="the unit of every figure here")
    units: str = Field(description="how days and weeks are counted in hours")
    critical_path: list[str] = Field(description="the longest chain by median estimate (the geometric mean of"
                                                 " low and high); not `critical_path`, which counts items")
    median_hours: float = Field(ge=0, description="the sum of the medians along it")
    best_hours: float = Field(ge=0, description="the sum of the lows along it")
    worst_hours: float = Field(ge=0, description="the sum of the highs along it")
    estimated: int = Field(ge=0, description="items with a usable estimate")
    counted_as_zero: int = Field(ge=0, description="items without one (none, or low <= 0 or high < low), counted as"
                                                   " taking no time")
    done_as_zero: int | None = Field(default=None, ge=1, description="done items, counted as taking no time: the"
                                     " figures are of the work left; absent when none is done")
    partly_done: int | None = Field(default=None, ge=1, description="doing items whose estimate gives `left`,"
                                    " counted as that share of it; absent when none does")


class CriticalOut(_Strict):
    item: str
    share: float = Field(ge=0, le=1, description="the item's criticality index: the share of runs in which it lies"
                                                 " on a longest path")


class ByOut(_Strict):
    """`compile --start DATE --by DATE --hours-per-day N`."""

    start: str = Field(description="the first day of work, YYYY-MM-DD")
    by: str = Field(description="the last day, YYYY-MM-DD, included")
    hours_per_day: float = Field(gt=0, description="hours of work in a working day")
    working_days: int = Field(ge=0, description="Monday to Friday from start to by, both included (no holidays)")
    hours: float = Field(ge=0, description="working_days x hours_per_day")
    probability: float = Field(ge=0, le=1, description="the share of runs that take at most those hours")


class ForecastOut(_Strict):
    """Present when the plan is ready and an item has a usable estimate."""

    unit: Literal["hours"] = Field(description="the unit of every figure here")
    runs: int = Field(ge=1, description="Monte Carlo runs: 500, fewer past 2,000 items (at least 20)")
    runs_scaled: bool = Field(description="true when the plan was too large for the full number of runs")
    seed: int = Field(description="the seed of random.Random: the same plan gives the same forecast")
    counted_as_zero: int = Field(ge=0, description="items without a usable estimate, counted as taking no time")
    done_as_zero: int | None = Field(default=None, ge=1, description="done items, counted as taking no time: the"
                                     " figures are of the work left; absent when none is done")
    partly_done: int | None = Field(default=None, ge=1, description="doing items whose estimate gives `left`,"
                                    " counted as that share of it; absent when none does")
    p50_hours: float = Field(ge=0, description="the plan's duration in half of the runs")
    p80_hours: float = Field(ge=0, description="in 80% of them")
    p95_hours: float = Field(ge=0, description="in 95% of them")
    criticality: list[CriticalOut] = Field(description="each item on a longest path in some run, most critical"
                                           " first (then in wave order); the others' share is 0")
    by: ByOut | None = Field(default=None, description="the chance of finishing by a date; present with --by")


def _out(field: fields.Field, *, required: bool = False, described: bool = True) -> tuple[Any, Any]:
    """A field as the output writes it, by its kind (compiler/model/kinds.py): normalized (lines as
    START-END)."""
    output = KIND_SPECS[field.kind].output
    if output is None:
        raise ValueError(f"a field of kind {field.kind} is not written as it is (compiler/model/kinds.py says why)")
    annotation, keywords = output(field, _MADE)
    options: dict[str, Any] = {"description": field.description} if described else {}
    options.update(keywords)
    return annotation, (Field(**options) if required else Field(default=None, **options))


# Made from the field declarations (compiler/model/fields.py). The input's own fields are described in
# the plan file's schema; here only what the output adds is.
EvidenceOut: Any = create_model(  # type: ignore[call-overload]  # fields as keywords, from the declarations
    "EvidenceOut", __config__=_CONFIG,
    **{f.name: _out(f, described=False) for f in fields.EVIDENCE_FIELDS},
    **{f.name: _out(f) for f in fields.COMPILED_EVIDENCE_FIELDS},
)
_MADE["EvidenceOut"] = EvidenceOut
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


class ComplexityOut(_Strict):
    """How complex the plan is, by the repository's thresholds."""

    tier: Literal["simple", "medium", "complex"]
    why: list[str] = Field(description="each measure that reached the tier, with its threshold")
    items: int = Field(ge=0)
    irreversible: int = Field(ge=0, description="items marked irreversible")
    files: int = Field(ge=0, description="distinct files cited as evidence or listed in paths")
    waves: int | None = Field(default=None, ge=0, description="absent when the plan is blocked")
    widest_wave: int | None = Field(default=None, ge=0, description="absent when the plan is blocked")


_STATUS = fields.by_name(fields.ITEM_FIELDS)["status"]
ProgressOut: Any = create_model(  # type: ignore[call-overload]  # one count per status, from the declaration
    "ProgressOut", __config__=_CONFIG, __doc__="Items per status (items whose status could not be read are not"
    " counted).", **{choice: (int, Field(ge=0)) for choice in _STATUS.choices},
)


class RevisedOut(_Strict):
    id: str
    fields: list[str] = Field(description="the names of the fields that changed")


class RenamedOut(_Strict):
    old: str
    new: str


class EdgeOut(_Strict):
    item: str
    depends_on: str


class EdgesOut(_Strict):
    added: list[EdgeOut]
    removed: list[EdgeOut]


class MoveOut(_Strict):
    id: str
    old: int = Field(ge=1, description="its wave in the previous revision")
    new: int = Field(ge=1)


class MovesOut(_Strict):
    direct: list[MoveOut] = Field(description="items that moved to another wave because they were revised")
    indirect: list[MoveOut] = Field(description="items that moved because something they depend on changed")


class ChangesOut(_Strict):
    """What changed since the previous revision: what `diff` reports, compact."""

    added: list[str] = Field(description="ids of the items added")
    removed: list[str] = Field(description="ids of the items removed")
    revised: list[RevisedOut]
    renamed: list[RenamedOut] = Field(description="items that kept their content under a new id")
    edges: EdgesOut
    waves: MovesOut


class HistoryOut(_Strict):
    revision: int = Field(ge=1)
    status: Literal["ready", "blocked"] = Field(description="as its last compile left it")
    digest: str | None = Field(description="when it is blocked, the digest of its items (32 hex digits of"
                               " SHA-256, normalized as `diff` compares them): equal digests, the same items;"
                               " null when ready (only blocked revisions are compared)")


_REASONS = tuple(c.reason for c in REASONS if c.reason)


class _Compiled(_Strict):
    """evidence-plan.json: the compiled plan, the machine contract."""

    model_config = ConfigDict(title="evidence-plan.json")

    format: Literal["evidence-plan/1"] = Field(description=f"format version, {FORMAT}")
    plan: str | None
    goal: str | None
    source: str = Field(description="the plan file, relative to the folder of this file")
    root: str = Field(description="the repository root, relative to the folder of this file")
    evidence_verified: bool = Field(description="false when compiled with --no-verify-evidence")
    status: Literal["ready", "blocked"]
    reason: Literal[_REASONS] | None = Field(  # type: ignore[valid-type]  # the words, from compiler/core/codes.py
        default=None, description="when the plan is blocked by one of the plan-execute loop's failures, its word"
        f" ({', '.join(_REASONS)}: the first that applies, in that order); absent otherwise")
    revision: int | None = Field(default=None, ge=1, description="1 for the first compile to this folder; one more"
                                 " each time the items change (absent in a file from before revisions)")
    changes: ChangesOut | None = Field(default=None, description="what changed since the previous revision; absent"
                                       " in the first")
    history: list[HistoryOut] | None = Field(default=None, description="every revision compiled to this folder, the"
                                             " last one this; a revision that repeats a blocked one is EP404")
    summary: SummaryOut
    progress: ProgressOut | None = Field(default=None, description="items per status (todo, doing, done, dropped);"
                                         " written by every compile since progress was added")
    issues: list[IssueOut]
    waves: list[list[str]] = Field(description="ids per wave, sorted; [] when blocked")
    critical_path: list[str] = Field(description="the longest dependency chain; [] when blocked")
    complexity: ComplexityOut | None = Field(default=None, description="the plan's complexity tier and why")
    claims: list[ClaimOut] | None = Field(default=None, description="the plan's claims, when it gives some")
    budget: BudgetOut | None = Field(default=None, description="the plan's budget, when it gives one (EP402, EP403)")
    estimates: EstimatesOut | None = Field(default=None, description="whether the estimates and claims are"
                                           " grounded (EP112); present when the plan gives one")
    schedule: ScheduleOut | None = Field(default=None, description="the critical path by median estimate; present"
                                         " when the plan is ready and gives an estimate")
    forecast: ForecastOut | None = Field(default=None, description="the seeded Monte Carlo forecast; present when"
                                         " the plan is ready and an item has a usable estimate")
    items: list[ItemOut] = Field(description="the valid items, in input order")


# The plan's own fields that _Compiled does not place (with the words the output has for them) are
# made from their declarations, as the items' are: the kind's output annotation, written when the
# plan gives it (compiler/compile/emit.py), after the others.
CompiledPlan: Any = create_model(  # type: ignore[call-overload]  # fields as keywords, from the declarations
    "CompiledPlan", __base__=_Compiled, __doc__=_Compiled.__doc__,
    **{f.name: _out(f) for f in fields.PLAN_FIELDS if f.name not in _Compiled.model_fields},
)


def read_compiled(path: str, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Read an evidence-plan.json for rendering. Anything else is an input error (EP004/EP011)."""
    doc = load(path, limits=limits)
    data: dict[str, Any] = doc.data
    compiled = isinstance(data, dict) and str(data.get("format", "")).startswith("evidence-plan")
    if doc.format != "json" or not compiled:
        pos = doc.source_map.value(())
        raise PlanInputError(Diagnostic(
            "EP004", "not a compiled evidence-plan.json",
            location=Location(doc.name, *pos) if pos else Location(doc.name),
            hint="render reads what compile writes: run evidence-plan compile PLAN first",
        ))
    try:
        CompiledPlan.model_validate(data)
    except ValidationError as err:
        # Keys this version does not know are a later version's additions: read past them (the
        # format's versioning rule, compiler/model/fields.py). Anything else is refused, in our words.
        errors = [e for e in err.errors(include_url=False, include_input=False) if e["type"] != "extra_forbidden"]
        if errors:
            raise _not_compiled(doc, errors[0]) from None
    return data


def _not_compiled(doc: Any, error: Any) -> PlanInputError:
    from compiler.core.display import kind_of
    from compiler.model.messages import expected_words, value_at

    path = tuple(error["loc"])
    pos = doc.source_map.value(path)
    where = ".".join(str(p) for p in path) or "document"
    problem = ("is missing" if error["type"] == "missing" else
               f"must be {expected_words(dict(error))}, not {kind_of(value_at(doc.data, path))}")
    return PlanInputError(Diagnostic(
        "EP011", f"evidence-plan.json does not match its schema at {where}: {problem}",
        location=Location(doc.name, *pos) if pos else Location(doc.name),
        hint="regenerate it with evidence-plan compile",
    ))

