"""The plan format's fields, each declared once: name, kind, default and description.

Everything else is derived from these declarations, never restated:

- the input model that validates an item or evidence entry that is not plainly valid
  (compiler/input_model.py builds its pydantic models from them), and so the JSON Schema of a
  plan file (``evidence-plan schema input``);
- the fast path's checks (compiler/validate.py: a field whose kind it does not know how to check
  sends the item to the input model, so a new field costs speed there, never correctness);
- the output model and its JSON Schema (compiler/output_model.py), with the output-only keys
  declared here too;
- the keys a compiled evidence-plan.json may hold when it is read back as a plan;
- did-you-mean for unknown fields, and the README's table of fields (tests/regenerate.py);
- the property tests' generators and wrong-type values (tests/test_fields.py).

A field's *kind* says what its values are; each kind is handled once in each of those places,
and a test fails when a kind is missing from one of them. Adding an optional field of a known
kind is one declaration here (and, for speed, nothing else: the fast path learns it from here).

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
    "paths",  # a list of paths or globs relative to the root (compiler/globs.py's grammar)
]
KINDS: tuple[Kind, ...] = ("text", "optional-text", "ids", "evidence", "proof", "optional-line", "optional-lines",
                           "items", "paths")


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
    # keywords (compiler/input_model.py: GRAMMARS), stated beside the code that reads it.
    schema: dict[str, Any] | None = None
    # The checks block an item without it (EP101-EP103): a plan that is valid by the schema is
    # one the tool does not block on its form, so the schema requires it, and not blank.
    needed: bool = False
    # Keys that writers (people, and agents most of all) use for this field: an unknown key that
    # is one of them is answered with this field's name, before any spelling is compared.
    synonyms: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").title()


# The five commitments of a work item, in the order the output writes them.
ITEM_FIELDS: tuple[Field, ...] = (
    Field("id", "text", "stable reference, unique in the plan", schema={"x-grammar": "id"}),
    Field("change", "text", "the smallest behaviour or contract change", default="", schema={"x-grammar": "not-blank"},
          needed=True, synonyms=("summary", "description", "title", "what")),
    Field("evidence", "evidence", "repository facts that justify the change", default=(), schema={"minItems": 1},
          needed=True),
    Field("depends_on", "ids", "ids that must be done first (alias: dependencies)", default=(),
          alias="dependencies", synonyms=("after", "requires", "needs", "blocked_by")),
    Field("proof", "proof", "the one exact command that closes the item (a list is read as its commands joined"
          " by &&, with a warning: split the item instead)", default="",
          schema={"x-grammar": "command"}, needed=True, synonyms=("test", "verify", "check", "command", "validation")),
    Field("paths", "paths", "files, folders or globs (relative to the root; `*` and `?` within a name, `**` any"
          " number of folders) that the item will write; they need not exist. Two items of one wave whose paths"
          " overlap are an error (EP305)", default=(), schema={"x-grammar": "paths"},
          synonyms=("files", "owns", "writes", "touches")),
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

# The plan file's own fields.
PLAN_FIELDS: tuple[Field, ...] = (
    Field("plan", "optional-text", "the plan's name", default=None, synonyms=("title", "name")),
    Field("goal", "optional-text", "what the plan achieves", default=None, synonyms=("description", "objective")),
    Field("root", "optional-text", "repository root, relative to this file", default=None),
    Field("items", "items", "the work items"),
)

# What only a compiled evidence-plan.json holds (compiler/output_model.py describes the whole
# document): read past when it is read back as a plan.
COMPILED_PLAN_KEYS = ("format", "status", "source", "evidence_verified", "issues", "waves", "summary",
                      "critical_path")
COMPILED_ITEM_FIELDS: tuple[Field, ...] = (
    Field("wave", "optional-line", "1-based; absent when the plan is blocked", default=None),
    Field("owners", "ids", "the owners of the item's paths by the repository's CODEOWNERS file (GitHub's rules:"
          " the last matching line decides), when it has one and evidence was verified", default=()),
    Field("invalid", "ids", "the keys of this item, as the plan gives them, that could not be read (see the"
          " issues); absent when the item was read whole", default=()),
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
    """The README's table of fields, generated so that it cannot go stale (a test compares it)."""
    lines = ["| where | field | default | meaning |", "|---|---|---|---|"]
    for where, fields in (("plan", PLAN_FIELDS), ("item", ITEM_FIELDS), ("evidence object", EVIDENCE_FIELDS)):
        for f in fields:
            name = f"`{f.name}`" + (f" (or `{f.alias}`)" if f.alias else "")
            default = "required" if f.required else "`[]`" if f.default == () else (
                "none" if f.default is None else f"`{f.default!r}`" if f.default != "" else "empty")
            lines.append(f"| {where} | {name} | {default} | {f.description} |")
    return "\n".join(lines) + "\n"


COMPILED_ITEM_KEYS = names(COMPILED_ITEM_FIELDS)
COMPILED_EVIDENCE_KEYS = names(COMPILED_EVIDENCE_FIELDS)
