"""The tools of `evidence-plan mcp`, declared once: name, what it does (for the agent, in a
sentence or two), the JSON Schema of its arguments and of its answer, whether it only reads, and
the function of compiler/api/agent.py that answers. The server lists exactly these and checks every
call against them (compiler/serve/mcp.py); the tests hold every answer to its schema.

Everything an agent is told here is paid for in its context on every turn, so the list is short:
six tools, plain schemas (no ``$ref``, no titles), and descriptions that say what a tool returns
rather than how. tests/clients/test_mcp_client.py measures the list as a client receives it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from compiler.api import agent


class Tool(NamedTuple):
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    read_only: bool
    run: Callable[..., dict[str, Any]]  # (workspace, **arguments) -> the answer


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def _closed(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An input schema: an unknown argument is refused, not ignored."""
    return {**_object(properties, required), "additionalProperties": False}


_TEXT: dict[str, Any] = {"type": "string"}
_TEXTS: dict[str, Any] = {"type": "array", "items": _TEXT}
_FLAG: dict[str, Any] = {"type": "boolean"}
_COUNT: dict[str, Any] = {"type": "integer"}

# A plan, named by its file or given as its text.
PLAN: dict[str, Any] = {
    "path": {"type": "string", "description": "plan file, relative to the root"},
    "text": {"type": "string", "description": "the plan itself, instead of path"},
    "format": {"enum": ["yaml", "json"], "description": "of text (default: json if it starts with { or [)"},
}
SIDE = _closed({**PLAN, "rev": {"type": "string", "description": "read path as at this git revision"}})

DIAGNOSTIC = _object({"code": _TEXT, "severity": {"enum": ["error", "warning"]}, "message": _TEXT,
                      "location": {"type": ["object", "null"]}}, ("code", "severity", "message"))
CHECKED = {"plan": _TEXT, "status": {"enum": ["ready", "blocked", "unreadable"]},
           "waves": {"type": "array", "items": _TEXTS}, "errors": _COUNT, "warnings": _COUNT,
           "diagnostics": {"type": "array", "items": DIAGNOSTIC}}
POSITION = _object({"line": _COUNT, "column": _COUNT}, ("line", "column"))
EDIT = _object({"start": POSITION, "end": POSITION, "new_text": _TEXT}, ("start", "end", "new_text"))
FIXED = {"changed": _FLAG, "written": _FLAG, "applied": _TEXTS, "left": _TEXTS,
         "edits": {"type": "array", "items": EDIT}, "text": _TEXT}
NEXT = _object({"id": _TEXT, "wave": _COUNT, "change": _TEXT, "proof": _TEXT, "depends_on": _TEXTS},
               ("id", "proof"))
HIT = _object({"reference": _TEXT, "path": _TEXT, "line": _COUNT, "symbol": {"type": ["object", "null"]},
               "contains": {"type": "object"}}, ("reference", "path", "line"))
SYMBOL = _object({"evidence": _TEXT, "path": _TEXT, "symbol": _TEXT, "lines": _TEXT}, ("evidence", "lines"))

TOOLS: dict[str, Tool] = {tool.name: tool for tool in (
    Tool(name="check_plan",
         description="Check a plan: status (ready, blocked, unreadable), waves when ready, and every diagnostic"
                     " with its code, location and, where the repair is mechanical, its fix.",
         input_schema=_closed(PLAN), output_schema=_object(CHECKED, tuple(CHECKED)), read_only=True,
         run=agent.check_plan),
    Tool(name="fix_plan",
         description="Apply a plan's mechanical repairs (safe ones; unsafe: guesses too): the edited text, the"
                     " edits, what was fixed and left, and the check after. Writes the file only if write.",
         input_schema=_closed({**PLAN, "unsafe": _FLAG, "write": {"type": "boolean",
                                                                   "description": "rewrite the file at path"}}),
         output_schema=_object({**CHECKED, **FIXED}, (*CHECKED, *FIXED)), read_only=False, run=agent.fix_plan),
    Tool(name="next_items",
         description="The items that can be done now, each with its proof command; none while the plan is blocked.",
         input_schema=_closed(PLAN),
         output_schema=_object({"status": _TEXT, "remaining": _COUNT, "all_done": _FLAG,
                                "next": {"type": "array", "items": NEXT},
                                "issues": {"type": "array", "items": DIAGNOSTIC}},
                               ("status", "remaining", "all_done", "next", "issues")),
         read_only=True, run=agent.next_items),
    Tool(name="diff_plans",
         description="What changed from old to new: items added, removed, revised, renamed, dependencies, waves,"
                     " and the issues new has that old had not.",
         input_schema=_closed({"old": SIDE, "new": SIDE}, ("old", "new")),
         output_schema=_object({"same": _FLAG, "added": {"type": "array"}, "removed": {"type": "array"},
                                "revised": {"type": "array"}}, ("same", "added", "removed", "revised")),
         read_only=True, run=agent.diff_plans),
    Tool(name="find_evidence",
         description="Evidence to cite: where a line of text occurs (each hit as path:LINE, path::Symbol and a"
                     " contains form), and the symbols of files (path::Name and their lines).",
         input_schema=_closed({"text": _TEXT, "within": {"type": "array", "items": _TEXT,
                                                         "description": "files or folders to search (default: all)"},
                               "max_hits": {"type": "integer", "minimum": 1, "maximum": 200},
                               "paths": {"type": "array", "items": _TEXT,
                                         "description": "files to list the symbols of"}}),
         output_schema=_object({"hits": {"type": "array", "items": HIT}, "more": _FLAG,
                                "symbols": {"type": "array", "items": SYMBOL}, "notes": _TEXTS},
                               ("hits", "more", "symbols", "notes")),
         read_only=True, run=agent.find_evidence),
    Tool(name="explain",
         description="What a diagnostic code (EP201) or rule name means, and how to fix it.",
         input_schema=_closed({"code": _TEXT}, ("code",)),
         output_schema=_object({"code": _TEXT, "name": _TEXT, "severity": _TEXT, "summary": _TEXT},
                               ("code", "name", "severity", "summary")),
         read_only=True, run=agent.explain),
)}


class Resource(NamedTuple):
    uri: str
    name: str
    description: str
    mime_type: str
    read: Callable[[], str]


def _schema(kind: str) -> Callable[[], str]:
    def read() -> str:
        from compiler.model.json_schema import committed

        return committed(kind)

    return read


def _summary() -> str:
    from compiler.model.summary import plan_summary

    return plan_summary()


RESOURCES: dict[str, Resource] = {resource.uri: resource for resource in (
    Resource(uri="evidence-plan://plan-format", name="plan-format", mime_type="text/markdown",
             description="The plan format in short: read it before writing a plan.", read=_summary),
    Resource(uri="evidence-plan://schema/input", name="plan.schema.json", mime_type="application/schema+json",
             description="JSON Schema of a plan file (evidence-plan schema input).", read=_schema("input")),
    Resource(uri="evidence-plan://schema/output", name="evidence-plan.schema.json",
             mime_type="application/schema+json",
             description="JSON Schema of evidence-plan.json (evidence-plan schema output).", read=_schema("output")),
)}

# What the server tells an agent when it connects: the loop it is for, bounded.
INSTRUCTIONS = (
    "Check a plan with check_plan; apply its safe repairs with fix_plan (write: true); check again. Stop after"
    " two rounds: what is left needs a person (or you, by hand, one diagnostic at a time; explain CODE says how)."
    " The plan format: the resource evidence-plan://plan-format. Nothing here runs a proof."
)
