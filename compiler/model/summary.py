"""The plan format in a page short enough to give a coding agent: made from the input JSON Schema
(``evidence-plan schema input``), so that it names every field the tool reads, in its words, and
none it does not. The MCP server serves it as a resource, and docs/guide/agents.md shows it
(tests/regenerate.py writes it there; a test holds it under 1,500 tokens, at about 4 bytes each).
"""

from __future__ import annotations

import json
from typing import Any

# A plan of the canonical shape (the schema's own examples are of single values): a test compiles
# it, so that what the page shows an agent is a plan the tool accepts.
EXAMPLE = """\
plan: duplicate-email
goal: Reject duplicate emails at signup
items:
  - id: contract
    change: Define duplicate-email behavior
    evidence:
      - tests/test_accounts.py:44
    proof: python3 -m unittest tests.test_accounts.DuplicateEmail
  - id: implementation
    change: Reject normalized duplicates
    evidence:
      - path: app/accounts.py
        lines: 18-24
        contains: "def create_account"
    depends_on: [contract]
    proof: python3 -m unittest tests.test_accounts
"""

# What the description of a field the tool writes says (`approve`, `fix --pin`): the page names
# those fields, and leaves them (and the rules about them) out: an agent never writes them.
WRITTEN = "written by `evidence-plan "
# The parts of the schema the page walks, each under its heading, in this order.
PARTS = (("PlanFile", "The plan (top level)"), ("WorkItem", "Each item"),
         ("Evidence", "An evidence entry in its object form"))


def _type(schema: dict[str, Any]) -> str:
    """A JSON Schema's type in a few words: ``text``, ``list of text``, ``todo|doing``, ``Estimate``."""
    if "enum" in schema:
        return "|".join(str(value) for value in schema["enum"])
    if "$ref" in schema:
        return str(schema["$ref"]).rpartition("/")[2]
    if "anyOf" in schema:
        kinds = [_type(option) for option in schema["anyOf"] if option.get("type") != "null"]
        return " or ".join(dict.fromkeys(kinds))
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    words = {"string": "text", "integer": "whole number", "number": "number", "boolean": "true|false",
             "object": "object"}
    return words.get(str(kind), "any")


def _evidence_strings(work_item: dict[str, Any]) -> tuple[str, list[str]]:
    """The string form of an evidence entry: its description and the schema's examples."""
    options = work_item["properties"]["evidence"]["items"]["anyOf"]
    string = next(option for option in options if option.get("type") == "string")
    return str(string["description"]), [str(example) for example in string.get("examples", [])]


def plan_summary(schema: dict[str, Any] | None = None) -> str:
    """The page (Markdown), from ``schema`` (default: the committed input schema)."""
    if schema is None:
        from compiler.model.json_schema import committed

        schema = json.loads(committed("input"))
    defs = schema["$defs"]
    described, examples = _evidence_strings(defs["WorkItem"])
    lines = [
        "# The plan format",
        "",
        "A plan is a YAML or JSON file (`.yaml`, `.yml`, `.json`). It lists work items; each item has a reason "
        "(evidence: facts of the repository, which the tool reads and checks) and one exact proof (the "
        "command that closes it). Items depend on items; the tool orders them into waves.",
        "",
        "```yaml",
        EXAMPLE.rstrip("\n"),
        "```",
        "",
        f"An evidence entry is a string, {described} ({', '.join(f'`{e}`' for e in examples)}), "
        "or an object (below). Paths are relative to the repository root.",
    ]
    written = []  # fields the tool writes (an approval's record, a pin): named, not described
    for name, heading in PARTS:
        part = defs[name]
        required = set(part.get("required", ()))
        lines += ["", f"## {heading}", ""]
        for field, spec in part["properties"].items():
            said = str(spec.get("description") or "")
            if WRITTEN in said:
                written.append(field)
                continue
            if field == "items":
                said = "the work items, at least one"
            need = "required" if field in required else "optional"
            lines.append(f"- `{field}` ({_type(spec)}, {need}): {said}")
        for rule in part.get("allOf", ()):
            said = str(rule.get("description") or "")
            if said and not any(field in said for field in written):
                lines.append(f"- {said}")
    lines += [
        "",
        f"Written by the tool, never by hand: {', '.join(f'`{field}`' for field in written)}.",
        "Unknown fields are errors (with a did-you-mean). Every problem is reported at once, located "
        "(`file:line:column`), with a stable code (`explain CODE` says what it means and how to fix it).",
    ]
    return "\n".join(lines) + "\n"


def markdown_block() -> str:
    """The page as docs/guide/agents.md shows it, the text to give an agent, fenced (its example
    has a fence of its own; tests/regenerate.py writes it there)."""
    return "````markdown\n" + plan_summary() + "````\n"
