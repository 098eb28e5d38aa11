"""The library half of `evidence-plan mcp`: what each of its tools does, as plain functions of a
workspace and keyword arguments, each returning the JSON object the tool answers with. No SDK
here (compiler/serve/mcp.py speaks the protocol) and nothing printed.

Each answer is the object the matching command prints with ``--format json``, made by the same
code: a check's diagnostics are ``check --format json``'s list (compiler/report/reporters.py),
``next_items`` is ``next --format json``, ``diff_plans`` is ``diff --format json``, and
``find_evidence`` holds the rows of ``where`` and of ``symbols``. A plan is named by its path under
the workspace's root or given as its text, which is compiled where it is and written nowhere.
Nothing here runs a proof, and nothing reads or writes outside the root (compiler/api/workspace.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from compiler.api.workspace import Refused, Workspace
from compiler.core.diagnostics import PlanInputError

if TYPE_CHECKING:
    from compiler.analysis.revisions import Side
    from compiler.compile.pipeline import CompileResult
    from compiler.core.diagnostics import Diagnostic
    from compiler.load.document import Document
    from compiler.report.reporters import Status

TEXT_NAME = "<text>"  # what diagnostics name a plan given as its text (no file holds it)


class Plan:
    """A plan as a tool was given it: read (a file under the root) or parsed (its text)."""

    __slots__ = ("doc", "path", "text")

    def __init__(self, doc: Document, path: str, text: str) -> None:
        self.doc = doc
        self.path = path  # what the pipeline is told: the file's path, or "-" for text
        self.text = text


def read_plan(ws: Workspace, *, path: str | None = None, text: str | None = None, format: str | None = None,
              rev: str | None = None, name: str = TEXT_NAME) -> Plan:
    """The plan ``path`` names under the root (with ``rev``: as it was at that git revision), or
    the plan ``text`` in ``format`` (yaml or json; by default JSON when it starts with ``{`` or
    ``[``). Refused unless exactly one of them is given; PlanInputError when it is not a plan."""
    from compiler.load.document import load_with_text, parse_text
    from compiler.load.limits import DEFAULT_LIMITS, too_large
    from compiler.load.read import STDIN, detect_format

    if (path is None) == (text is None):
        raise Refused("give the plan's path (under the root) or its text, one of them")
    if text is not None:
        if rev is not None:
            raise Refused("rev reads a path at a git revision: give path with it, not text")
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:
            raise Refused("the text holds a lone surrogate (an escape such as \\ud800): it is not UTF-8") from None
        if size > DEFAULT_LIMITS.max_bytes:
            raise too_large(name, DEFAULT_LIMITS)
        fmt = format or detect_format(STDIN, text)
        return Plan(parse_text(text, name, "json" if fmt == "json" else "yaml"), STDIN, text)
    assert path is not None
    if rev is not None:
        from compiler.load.arguments import load_revision
        from compiler.load.gitshow import at_revision, revision_problem

        problem = revision_problem(rev)  # git would read "-x" as an option of its own
        if problem is not None:
            raise Refused(problem)
        doc = load_revision(at_revision(rev, ws.revision_path(path)), DEFAULT_LIMITS)
        return Plan(doc, STDIN, doc.text)
    where = ws.path(path)
    doc, read = load_with_text(where, limits=DEFAULT_LIMITS)
    return Plan(doc, where, read)


def _compile(ws: Workspace, plan: Plan, *, order: bool = True, fixes: bool = False) -> CompileResult:
    """The plan compiled against the root (its evidence read there and nowhere else); with
    ``fixes``, each diagnostic's fix is given its text edits, as `check --format json` shows them."""
    from compiler.compile.pipeline import compile_document

    return compile_document(plan.doc, plan.path, root=ws.root, order=order, fixes=fixes)


def diagnostics_json(name: str, status: Status, found: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """The diagnostics of one plan exactly as ``check --format json`` lists them."""
    from compiler.report.reporters import PlanReport, as_json

    diagnostics = tuple(found)
    listed: list[dict[str, Any]] = json.loads(as_json(diagnostics, (PlanReport(name, status, diagnostics),)))
    return listed


def _checked(name: str, result: CompileResult) -> dict[str, Any]:
    from compiler.api.check import plan_status

    status = plan_status(result)
    return {"plan": name, "status": status, "waves": [list(wave) for wave in result.waves],
            "errors": result.count("error"), "warnings": result.count("warning"),
            "diagnostics": diagnostics_json(name, status, result.diagnostics)}


def check_plan(ws: Workspace, *, path: str | None = None, text: str | None = None,
               format: str | None = None) -> dict[str, Any]:
    """The plan checked as `check` checks it, and ordered: its status (ready, blocked, or
    unreadable when it is not a plan at all), its waves when ready, and every diagnostic with its
    location (and, where the repair is mechanical, its fix)."""
    try:
        plan = read_plan(ws, path=path, text=text, format=format)
        return _checked(plan.doc.name, _compile(ws, plan, fixes=True))
    except PlanInputError as error:  # read, or found not to be a plan (EP004) or past a limit
        name = error.diagnostic.location.file if error.diagnostic.location is not None else (path or TEXT_NAME)
        return {"plan": name, "status": "unreadable", "waves": [], "errors": 1, "warnings": 0,
                "diagnostics": diagnostics_json(name, "unreadable", (error.diagnostic,))}


def fix_plan(ws: Workspace, *, path: str | None = None, text: str | None = None, format: str | None = None,
             unsafe: bool = False, write: bool = False) -> dict[str, Any]:
    """The plan repaired as `fix` repairs it (``unsafe``: as `fix --unsafe-fixes`): the edited
    text, the edits that make it from the original, what was repaired and what was left, and the
    plan's check after the repairs. The file is rewritten only with ``write`` (a path, never a
    text), and only if it still holds what was read."""
    from compiler.api.fix import FixError, fix_document

    if write and path is None:
        raise Refused("write rewrites the plan file: give its path, not its text")
    plan = read_plan(ws, path=path, text=text, format=format)
    try:
        outcome = fix_document(plan.doc, plan.text, plan.path, root=ws.root, unsafe=unsafe)
    except FixError as error:
        raise Refused(f"{plan.doc.name}: {error}") from None
    written = False
    if write and outcome.changes:
        from compiler.core.targets import WriteError
        from compiler.core.write import rewrite

        try:
            rewrite(plan.path, outcome.fixed, plan.text)
        except WriteError as error:
            raise Refused(f"{error.path}: {error.message} ({error.hint})") from None
        written = True
    after = outcome.result
    assert after is not None  # fix_document always compiles the outcome
    return {**_checked(plan.doc.name, after), "changed": outcome.fixed != plan.text, "written": written,
            "applied": list(outcome.changes), "left": list(outcome.left), "edits": text_edits(plan.text, outcome.fixed),
            "text": outcome.fixed}


def text_edits(before: str, after: str) -> list[dict[str, Any]]:
    """The edits that make ``after`` from ``before``: whole lines replaced, each range 1-based,
    ``end`` exclusive (line and column of the first character kept after it), applied together
    to ``before``. Lines end at ``\\n``, as YAML and JSON read them."""
    from difflib import SequenceMatcher

    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    edits = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        edits.append({"start": _position(old, i1), "end": _position(old, i2), "new_text": "".join(new[j1:j2])})
    return edits


def _position(lines: list[str], index: int) -> dict[str, int]:
    """Where line ``index`` (0-based) of ``lines`` starts; past the last line, the text's end."""
    if index < len(lines) or not lines:
        return {"line": index + 1, "column": 1}
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return {"line": len(lines) + 1, "column": 1}
    return {"line": len(lines), "column": len(last) + 1}


def next_items(ws: Workspace, *, path: str | None = None, text: str | None = None,
               format: str | None = None) -> dict[str, Any]:
    """What can be done now, as `next --format json` says it (a blocked plan has no next item)."""
    from compiler.api.next import as_json, next_of

    plan = read_plan(ws, path=path, text=text, format=format)
    return as_json(next_of(_compile(ws, plan, order=False)))


def diff_plans(ws: Workspace, *, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``old`` to ``new`` (each a path, a path at a git revision, or a text), as
    `diff --format json` says it. Their evidence is not checked, as `diff` does without --root."""
    from compiler.analysis.revisions import compare
    from compiler.report.diff import as_json

    change = compare(_side(ws, old, "<old>"), _side(ws, new, "<new>"))
    answer: dict[str, Any] = json.loads(as_json(change))
    return answer


def _side(ws: Workspace, given: dict[str, Any], name: str) -> Side:
    from compiler.api.plans import side_of

    plan = read_plan(ws, path=given.get("path"), text=given.get("text"), format=given.get("format"),
                     rev=given.get("rev"), name=name)
    return side_of(plan.doc, plan.path)


def find_evidence(ws: Workspace, *, text: str | None = None, paths: Sequence[str] = (),
                  within: Sequence[str] = (), max_hits: int = 50) -> dict[str, Any]:
    """Evidence to cite: where ``text`` occurs (each hit as the entries that would cite it, as
    `where --format json`), searched in ``within`` (default: the whole root), and the symbols of
    the files ``paths`` (as `symbols --format json`)."""
    from compiler.api.where import rows, where
    from compiler.repo.listing import list_symbols

    if text is None and not paths:
        raise Refused("give text to look for, or paths of files to list the symbols of (or both)")
    answer: dict[str, Any] = {"hits": [], "more": False, "symbols": [], "notes": []}
    if text is not None:
        found = where(text, ws.root, [ws.path(p) for p in within], max_hits)
        answer["hits"], answer["more"] = rows(found, text), found.more
    for given in paths:
        listing = list_symbols(ws.path(given), ws.root)
        answer["symbols"] += listing.rows()
        if listing.note is not None:
            answer["notes"].append(f"{listing.path}: {listing.note}")
    return answer


def explain(ws: Workspace, *, code: str) -> dict[str, Any]:
    """What a diagnostic code (or rule name) means: the object `explain --format json` gives for it
    (why it matters, how to fix it, its worked examples), and its page as Markdown."""
    from compiler.api.explain import find, page, record, shipped, suggest

    found = find(code)
    if found is None:
        close = suggest(code)
        hint = f" (did you mean {close}?)" if close is not None else ""
        raise Refused(f"no code or rule is named {code.strip()!r}{hint}: codes are EP001 to EP999, rules have names"
                      " such as missing-file")
    shown = shipped().get(found, [])
    return {**record(found, shown), "page": page(found, shown)}
