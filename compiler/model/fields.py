"""The plan format's fields, each declared once: name, kind, default and description.

Everything else is derived from these declarations, never restated:

- the input model that validates an item or evidence entry that is not plainly valid
  (compiler/model/input_model.py builds its pydantic models from them), and so the JSON Schema of a
  plan file (``evidence-plan schema input``);
- the fast path's checks (compiler/model/plain.py: a field whose kind it does not know how to check
  sends the item to the input model, so a new field costs speed there, never correctness);
- the output model and its JSON Schema (compiler/model/output_model.py), with the output-only keys
  declared here too;
- the keys a compiled evidence-plan.json may hold when it is read back as a plan;
- did-you-mean for unknown fields, and the table of fields of docs/reference/plan-format.md
  (tests/regenerate.py);
- the property tests' generators and wrong-type values (tests/model/test_fields.py).

A field's *kind* says what its values are; each kind is one record (compiler/model/kinds.py:
KIND_SPECS) that all of those places read, and a test fails naming a kind and a part it lacks.
Adding an optional field of a known kind is one declaration here (and, for speed, nothing else:
the fast path learns it from here).

Plain data only: this module imports nothing, so that ``check`` of a valid plan stays free of
pydantic.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

# The version of evidence-plan.json. Within a major version a reader can rely on every key it
# knows keeping its meaning: new keys are added (an optional field, a new section), never
# renamed or given another meaning, and a reader ignores the keys it does not know. A change to
# what a key means, or a key removed, is a new major version (evidence-plan/2).
FORMAT = "evidence-plan/1"

Kind = Literal[
    "text",  # a string
    "optional-text",  # a string, or absent (null)
    "ids",  # a list of item ids
    "evidence",  # a list of evidence entries: reference strings or evidence objects
    "proof",  # one command, or a list of commands (read as joined by &&, with a warning)
    "optional-line",  # a whole number of at least 1, or absent
    "optional-lines",  # START-END as text, a whole number, or absent
    "items",  # the list of work items (the plan's own field)
    "choice",  # one of the field's ``choices`` (a word), or absent
    "flag",  # true or false
    "optional-estimate",  # an estimate object (ESTIMATE_PARTS), or absent
    "claims",  # a list of claim objects (CLAIM_PARTS): quantities the plan depends on
    "paths",  # a list of paths or globs relative to the root (compiler/core/globs.py's grammar)
    "budget",  # an object of BUDGET_PARTS, each a whole number of at least 1 and optional; or absent
]
KINDS: tuple[Kind, ...] = ("text", "optional-text", "ids", "evidence", "proof", "optional-line", "optional-lines",
                           "items", "choice", "flag", "optional-estimate", "claims", "paths", "budget")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()  # the default of a field that must be given


class Field(NamedTuple):
    name: str
    kind: Kind
    description: str
    default: Any = REQUIRED  # what an absent field means; lists are given as () and read as []
    alias: str | None = None  # another key for the same field (`dependencies` for `depends_on`)
    # JSON Schema keywords beyond what the kind says; {"x-grammar": NAME} stands for a grammar's
    # keywords (compiler/model/kinds.py: GRAMMARS, one its kind lists), stated beside the code that reads it.
    schema: dict[str, Any] | None = None
    # The checks block an item without it (EP101-EP103): a plan that is valid by the schema is
    # one the tool does not block on its form, so the schema requires it, and not blank.
    needed: bool = False
    # Keys that writers (people, and agents most of all) use for this field: an unknown key that
    # is one of them is answered with this field's name, before any spelling is compared.
    synonyms: tuple[str, ...] = ()
    # A choice field's values (the default is one of them, or None), and the words writers use for
    # them (``finished`` for ``done``): a wrong value is answered with the value meant, before any
    # spelling is compared.
    choices: tuple[str, ...] = ()
    meant: tuple[tuple[str, str], ...] = ()
    # An item field only: whether an approval's digest binds it (compiler/analysis/approvals.py), so that
    # changing it voids the approvals that cover the item. True for what changes what runs or in
    # what order; False, with the reason beside it, for the rest. Every item field states it (a
    # test fails on None), so a new field is a decision, never a silent hole in an approval.
    approved: bool | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").title()


# The words writers use for a status that is not one (``status: finished``), and the one meant.
STATUS_MEANT: tuple[tuple[str, str], ...] = (
    *((word, "done") for word in ("finished", "complete", "completed", "closed", "resolved", "merged", "shipped",
                                   "fixed")),
    *((word, "doing") for word in ("in-progress", "in_progress", "in progress", "wip", "started", "active",
                                    "ongoing", "working")),
    *((word, "todo") for word in ("to-do", "to do", "open", "pending", "planned", "new", "not-started")),
    *((word, "dropped") for word in ("cancelled", "canceled", "abandoned", "skipped", "wontfix", "won't do",
                                      "obsolete", "removed", "deleted")),
)

# The five commitments of a work item, in the order the output writes them, then the options.
ITEM_FIELDS: tuple[Field, ...] = (
    Field("id", "text", "stable reference, unique in the plan", schema={"x-grammar": "id"}, approved=True),
    Field("change", "text", "the smallest behaviour or contract change", default="", schema={"x-grammar": "not-blank"},
          needed=True, synonyms=("summary", "description", "title", "what"), approved=True),
    Field("evidence", "evidence", "repository facts that justify the change", default=(), schema={"minItems": 1},
          needed=True, approved=True),
    Field("depends_on", "ids", "ids that must be done first (alias: dependencies)", default=(),
          alias="dependencies", synonyms=("after", "requires", "needs", "blocked_by"), approved=True),
    Field("proof", "proof", "the one exact command that closes the item (a list is read as its commands joined"
          " by &&, with a warning: split the item instead)", default="",
          schema={"x-grammar": "command"}, needed=True, synonyms=("test", "verify", "check", "command", "validation"),
          approved=True),
    # Approval gates (compiler/analysis/approvals.py): an irreversible item needs an approval among what it
    # depends on (EP310); an approval's record binds it, by digest, to what it covers (EP111).
    Field("kind", "choice", "`task`, or `approval`: a checkpoint a person passes (`evidence-plan approve`"
          " records it)", default="task", choices=("task", "approval"), synonyms=("type",), approved=True),
    Field("irreversible", "flag", "cannot be undone (a migration, a deletion, a release): an approval must"
          " precede it among what it depends on (EP310)", default=False, synonyms=("destructive",), approved=True),
    # The record of an approval is not content: recording one approval never makes another stale. It is
    # whole or absent, and only on an approval (EP111): APPROVAL_RECORD, which the JSON Schema says too.
    Field("approved_by", "optional-text", "on an approval: who approved it, written by `evidence-plan approve`",
          default=None, approved=False),
    Field("approved_at", "optional-text", "on an approval: when, an ISO 8601 date-time with its offset"
          " (`2026-12-01T15:04:05Z`), written by `evidence-plan approve`", default=None,
          schema={"format": "date-time"}, approved=False),
    Field("approval_digest", "optional-text", "on an approval: the digest of what it covers when it was"
          " approved, written by `evidence-plan approve`: when that content changes, the approval is stale"
          " (EP111)", default=None, approved=False),
    # Progress (compiler/analysis/progress.py): what `next` reads, and the Markdown shows per wave. An approval
    # binds only whether a status is `dropped` (a dropped item does not run): progress, todo to
    # done, changes nothing that runs. A reason and an estimate are prose and time, not what runs.
    Field("status", "choice", "todo, doing, done or dropped; a dropped item leaves the graph (no wave), and no live"
          " item may depend on it (EP307)", default="todo", choices=("todo", "doing", "done", "dropped"),
          synonyms=("state", "progress"), meant=STATUS_MEANT, approved=True),
    Field("reason", "optional-text", "why the item has its status: required when it is dropped (EP019)",
          default=None, synonyms=("why", "note", "because"), approved=False),
    Field("estimate", "optional-estimate", "how long the item takes, as a 90% interval: `{low, high, unit,"
          " confidence, evidence}` (unit minutes, hours, days or weeks; 1 day = 8 hours, 1 week = 5 days); flagged"
          " when ungrounded (EP112)", default=None, synonyms=("effort", "duration", "time", "hours"), approved=False),
    # A phase groups items for people and orders phases (EP312); it changes neither what runs nor when.
    Field("phase", "optional-text", "the phase of the work the item belongs to (a name: `extract`, `switch`,"
          " `cleanup`); the plan's phases are in the order each first appears, and no item may depend on an item"
          " of a later phase (EP312). The pages and `graph` group items by phase; waves stay computed from"
          " `depends_on` alone; a blank one is none", default=None,
          synonyms=("stage", "milestone", "step"), approved=False),
    Field("paths", "paths", "files, folders or globs (relative to the root; `*` and `?` within a name, `**` any"
          " number of folders) that the item will write; they need not exist. Two items of one wave whose paths"
          " overlap are an error (EP305)", default=(), schema={"x-grammar": "paths"},
          synonyms=("files", "owns", "writes", "touches"), approved=True),
    # Locks change when proofs run beside each other, not what runs nor the order of the waves.
    Field("locks", "ids", "names of what the item's proof cannot share with another proof running at the same time"
          " (a database, a port, a build folder): `verify` never runs two items that name the same lock at once;"
          " waves are not affected", default=(), synonyms=("lock", "exclusive", "mutex"), approved=False),
)

# The object form of an evidence entry.
EVIDENCE_FIELDS: tuple[Field, ...] = (
    Field("path", "optional-text", "relative to the repository root", default=None,
          schema={"x-grammar": "not-blank"}, synonyms=("file",)),
    Field("line", "optional-line", "one line, 1-based", default=None, schema={"minimum": 1}),
    Field("lines", "optional-lines", "START-END (inclusive) or one line", default=None,
          schema={"x-grammar": "lines"}, synonyms=("line_range", "range")),
    Field("symbol", "optional-text", "a function, class or dotted name", default=None),
    Field("contains", "optional-text", "text that must appear in the cited lines", default=None,
          synonyms=("text", "quote", "snippet", "match")),
    Field("url", "optional-text", "external evidence (not verified)", default=None, schema={"x-grammar": "url"}),
    Field("pin", "optional-text", "the hash of the cited lines (with `line`, `lines` or `symbol`), written by"
          " `evidence-plan fix --pin`: when the lines change, the evidence is reported (EP211)", default=None,
          schema={"x-grammar": "pin"}),
)

# An approval's record: the fields `evidence-plan approve` writes, in its order (compiler/analysis/approvals.py).
APPROVAL_RECORD = ("approved_by", "approved_at", "approval_digest")

# The plan file's own fields.
PLAN_FIELDS: tuple[Field, ...] = (
    Field("plan", "optional-text", "the plan's name", default=None, synonyms=("title", "name")),
    Field("goal", "optional-text", "what the plan achieves", default=None, synonyms=("description", "objective")),
    Field("root", "optional-text", "repository root, relative to this file (no NUL character: EP006)", default=None,
          schema={"pattern": "^[^\\u0000]*$"}),
    Field("items", "items", "the work items"),
    Field("claims", "claims", "quantities the plan depends on, each `{description, low, high, unit, confidence,"
          " evidence}` (any unit, as text); checked by the estimates' rule (EP112)", default=(),
          synonyms=("assumptions", "quantities")),
    Field("budget", "budget", "limits on replanning, `{max_revisions, max_items}`: a compile whose revision would"
          " pass `max_revisions` is blocked (EP403), and so is a plan of more than `max_items` items (EP402)",
          default=None, synonyms=("limits", "budgets")),
)

# The parts of a plan's budget, each optional (what it limits: docs/reference/revisions.md): the plan-execute
# loop's failure modes, replanning without end and a plan that grows without end.
BUDGET_PARTS: tuple[tuple[str, str], ...] = (
    ("max_revisions", "the most revisions this plan may have (revision 1 is the first compile): a compile past it"
                      " is blocked (EP403)"),
    ("max_items", "the most items the plan may have: a plan of more is blocked (EP402)"),
)

# The parts of an estimate and of a claim: (name, required). An estimate's low and high are a 90%
# interval in its unit; a claim is the same with a description and a unit of its own (any text:
# requests per second, rows, MB), so that it is checked by the same rule.
_INTERVAL_PARTS: tuple[tuple[str, bool], ...] = (("low", True), ("high", True), ("unit", True),
                                                 ("confidence", False), ("evidence", False))
# An item's estimate may say how much of it is left (``left``: a share, 0 to 1) while it is doing:
# the schedule and the forecast count what is left (compiler/analysis/forecast.py: work_left).
ESTIMATE_PARTS: tuple[tuple[str, bool], ...] = (*_INTERVAL_PARTS, ("left", False))
CLAIM_PARTS: tuple[tuple[str, bool], ...] = (("description", True), *_INTERVAL_PARTS)
# An estimate's units, in hours: a working day of 8 hours, a working week of 5 days (stated in the
# output, beside the figures that use them).
UNIT_HOURS: dict[str, float] = {"minutes": 1 / 60, "hours": 1.0, "days": 8.0, "weeks": 40.0}
UNITS_STATED = "1 day = 8 hours, 1 week = 5 days"
CONFIDENCES = ("high", "medium", "low")
# An estimate whose high is more than this many times its low is not an estimate but a guess
# (EP112); `compile --max-spread N` and `check --max-spread N` change it.
MAX_SPREAD = 100

# What only a compiled evidence-plan.json holds (compiler/model/output_model.py describes the whole
# document): read past when it is read back as a plan.
COMPILED_PLAN_KEYS = ("format", "status", "reason", "source", "evidence_verified", "issues", "waves", "summary",
                      "complexity", "critical_path", "progress", "estimates", "schedule", "forecast", "revision",
                      "changes", "history")
COMPILED_ITEM_FIELDS: tuple[Field, ...] = (
    Field("wave", "optional-line", "1-based; absent when the plan is blocked, null for a dropped item (dropped"
          " items are in no wave)", default=None),
    Field("owners", "ids", "the owners of the item's paths by the repository's CODEOWNERS file (GitHub's rules:"
          " the last matching line decides), when it has one and evidence was verified", default=()),
    Field("owners_incomplete", "flag", "true when the owners of the item's paths could not all be decided within"
          " the bound on work (a CODEOWNERS file or paths made to be slow): `owners` may miss some; absent"
          " otherwise", default=False),
    Field("invalid", "ids", "the keys of this item, as the plan gives them, that could not be read (see the"
          " issues); absent when the item was read whole", default=()),
    Field("approval_state", "choice", "on an approval: `current` (its recorded digest matches what it covers),"
          " `stale` (it does not: EP111) or `unrecorded`", default=None, choices=("current", "stale", "unrecorded")),
    Field("approval_covers", "ids", "on an approval: what it covers, in the plan's order: the irreversible items"
          " that depend on it and everything they depend on", default=()),
    Field("approval_digest_now", "optional-text", "on an approval: the digest of what it covers as the plan"
          " stands (what `evidence-plan approve` would record)", default=None),
    Field("ungrounded", "ids", "why the item's estimate is flagged (EP112), one reason each; absent when it is"
          " grounded or the item has none", default=()),
)
COMPILED_EVIDENCE_FIELDS: tuple[Field, ...] = (
    Field("resolved_lines", "optional-lines", "the lines the entry covers, when evidence was verified: its lines,"
          " where its symbol was found, or the whole file (absent for a folder, a URL, a binary or empty file, or"
          " lines that could not be found)", default=None),
    Field("hash", "optional-text", "the pin of the resolved lines, as `fix --pin` would write it: compare it with"
          " `pin`, or with another compile's, to see which evidence changed", default=None),
)


def names(fields: tuple[Field, ...]) -> tuple[str, ...]:
    """The keys a mapping of these fields may hold: each name, and each alias."""
    return tuple(key for f in fields for key in ((f.name, f.alias) if f.alias else (f.name,)))


def synonym(key: str, fields: tuple[Field, ...]) -> str | None:
    """The field that writers often mean by ``key`` (``file`` for ``path``), or None."""
    for f in fields:
        if key in f.synonyms:
            return f.name
    return None


def aliases(fields: tuple[Field, ...]) -> dict[str, str]:
    """alias -> the field's name."""
    return {f.alias: f.name for f in fields if f.alias}


def by_name(fields: tuple[Field, ...]) -> dict[str, Field]:
    return {f.name: f for f in fields}


def markdown_table() -> str:
    """The table of fields (docs/reference/plan-format.md), generated so that it cannot go stale."""
    lines = ["| where | field | default | meaning |", "|---|---|---|---|"]
    for where, fields in (("plan", PLAN_FIELDS), ("item", ITEM_FIELDS), ("evidence object", EVIDENCE_FIELDS)):
        for f in fields:
            name = f"`{f.name}`" + (f" (or `{f.alias}`)" if f.alias else "")
            default = "required" if f.required else "`[]`" if f.default == () else (
                "none" if f.default is None else f"`{str(f.default).lower()}`" if isinstance(f.default, bool)
                else f"`{f.default}`" if f.choices else f"`{f.default!r}`" if f.default != "" else "empty")
            lines.append(f"| {where} | {name} | {default} | {f.description} |")
    return "\n".join(lines) + "\n"


COMPILED_ITEM_KEYS = names(COMPILED_ITEM_FIELDS)
COMPILED_EVIDENCE_KEYS = names(COMPILED_EVIDENCE_FIELDS)

# The five commitments are the Item's own attributes; any other declared item field is an option
# (derived where it is used, from ITEM_FIELDS as it stands then: a test adds a field at run time).
COMMITMENTS = ("id", "change", "evidence", "depends_on", "proof")
