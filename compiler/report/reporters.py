"""Diagnostics as text, JSON, GitHub annotations or SARIF. Pure functions: strings in, string out.

``text`` is for people (``file:line:col: severity CODE message``, like compilers and linters);
``json`` is a versioned contract (a list of diagnostic objects; ``check`` adds to each the plan it
belongs to and that plan's status, fields that readers of the list may ignore); ``github`` makes
workflow annotations that show on the pull request, and ``step_summary`` the Markdown table of
every problem for the job's summary page; ``sarif`` is SARIF 2.1.0 for code-scanning tools.

GitHub and SARIF consumers resolve a relative file name against the repository (the workspace of
the job), so those two formats name each file relative to a ``base`` folder (``base_folder``: the
workspace, or the working folder outside Actions); a file outside it is named by its absolute path.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from compiler.core.cilog import Commands, command, json_safe
from compiler.core.codes import CODES
from compiler.core.diagnostics import Diagnostic, Fix
from compiler.core.display import UNSAFE, clip, escape, escape_surrogates

Style = Callable[[str, str], str]  # (text, severity) -> text, maybe coloured
Status = Literal["ready", "blocked", "unreadable"]
STDIN_NAME = "<stdin>"  # compiler.load.read's name for standard input: no file to point at


class PlanReport(NamedTuple):
    """One plan's part of a ``check`` report: the plan as the command line names it, its status
    (``blocked`` also for warnings under ``--strict``) and its diagnostics."""

    plan: str
    status: Status
    diagnostics: tuple[Diagnostic, ...]


def _plain(text: str, severity: str) -> str:
    return text


EXCERPT_WIDTH = 100


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 32:
        return chr(0x2400 + code)  # the control pictures: NUL is \u2400, a tab \u2409, ESC \u241b
    return "\u2421" if code == 0x7F else "\ufffd"


# One screen per message, whatever a plan holds: messages cut their values where they are made
# (compiler.core.display), and this is the last guard.
MAX_MESSAGE = 1000
MAX_NOTES = 10  # notes shown per diagnostic in text (a cycle of 10,000 items has 10,000)


def excerpt_lines(line_no: int, column: int | None, text: str) -> list[str]:
    """The source line and a caret under the column, like compilers print; a long line is cut
    to a window around the column."""
    col = max(1, column or 1)
    start = 0
    if len(text) > EXCERPT_WIDTH:
        start = max(0, min(col - 1 - EXCERPT_WIDTH // 2, len(text) - EXCERPT_WIDTH))
    # Control characters (a tab, a NUL, an escape) are shown as their Unicode pictures, never
    # sent raw, one character for one so that the caret stays under its column.
    shown = UNSAFE.sub(_picture, text[start:start + EXCERPT_WIDTH])
    lead = "..." if start else ""
    tail = "..." if start + EXCERPT_WIDTH < len(text) else ""
    pad = " " * len(shown[: col - 1 - start])
    gutter = str(line_no)
    return [f" {gutter} | {lead}{shown}{tail}", f" {' ' * len(gutter)} | {' ' * len(lead)}{pad}^"]


def _shown(text: str) -> str:
    return escape(clip(text, MAX_MESSAGE))


def text_line(d: Diagnostic, style: Style = _plain) -> str:
    """One diagnostic for people: its line, the excerpt, notes and hint. Nothing from the plan
    (names, messages, file names) reaches the output raw: see compiler.core.display."""
    where = f"{_shown(str(d.location))}: " if d.location else ""
    lines = [f"{where}{style(d.severity, d.severity)} {d.code} {_shown(d.message)}"]
    if d.excerpt is not None and d.location is not None and d.location.line is not None:
        lines += excerpt_lines(d.location.line, d.location.column, d.excerpt)
    for note in d.notes[:MAX_NOTES]:
        nwhere = f"{_shown(str(note.location))}: " if note.location else ""
        lines.append(f"  {nwhere}note: {_shown(note.message)}")
    if len(d.notes) > MAX_NOTES:
        lines.append(f"  note: ... and {len(d.notes) - MAX_NOTES:,} more (all are in the JSON reports)")
    if d.hint:
        lines.append(f"  hint: {_shown(d.hint)}")
    return "\n".join(lines)


def text(diagnostics: Sequence[Diagnostic], style: Style = _plain) -> str:
    return "".join(text_line(d, style) + "\n" for d in diagnostics)


def as_json(diagnostics: Sequence[Diagnostic], plans: Sequence[PlanReport] = ()) -> str:
    """The list of diagnostic objects. With ``plans`` (``check``), each object also says which
    plan it belongs to (``plan``, as named on the command line) and that plan's ``plan_status``;
    a plan that no object names had nothing to report, so it is ready."""
    owner = {id(d): p for p in plans for d in p.diagnostics}
    out = []
    for d in diagnostics:
        obj = d.to_dict()
        plan = owner.get(id(d))
        if plan is not None:
            obj["plan"] = escape_surrogates(plan.plan)  # as location.file: a name that is not UTF-8
            obj["plan_status"] = plan.status
        out.append(obj)
    import json  # on first use: the text report (check's default) needs none

    return json_safe(json.dumps(out, indent=2, ensure_ascii=False)) + "\n"


def base_folder(environ: Mapping[str, str], cwd: str) -> str:
    """The folder that GitHub resolves annotation and SARIF file names against: the job's
    workspace (``GITHUB_WORKSPACE``, the repository's checkout) when the working folder is inside
    it (a step's ``working-directory`` moves the working folder, not the workspace), else the
    working folder."""
    workspace = environ.get("GITHUB_WORKSPACE")
    if workspace and os.path.isabs(workspace):
        workspace = posixpath.normpath(workspace)
        if cwd == workspace or cwd.startswith(workspace.rstrip("/") + "/"):
            return workspace
    return cwd


def workspace_path(file: str, cwd: str, base: str) -> tuple[str, bool]:
    """``file`` (relative to ``cwd``, or absolute) as a POSIX path relative to ``base`` and True,
    or its normalised absolute path and False when it lies outside ``base``. Judged from the text
    alone: ``./plans/x.yaml`` and ``/work/repo/plans/x.yaml`` (base ``/work/repo``) are both
    ``plans/x.yaml``."""
    file = file.replace(os.sep, "/")
    if not (posixpath.isabs(cwd) and posixpath.isabs(base)):  # folders unknown: the name as given
        normal = posixpath.normpath(file)
        return normal, not (posixpath.isabs(normal) or normal == ".." or normal.startswith("../"))
    absolute = posixpath.normpath(posixpath.join(cwd, file))
    relative = posixpath.relpath(absolute, base)
    if relative == ".." or relative.startswith("../"):
        return absolute, False
    return relative, True


def working_folder() -> str:
    """The working folder, or ``.`` when it is gone (deleted under us): names stay as given."""
    try:
        return os.getcwd()
    except OSError:
        return "."


def _shown_location(loc: Any, cwd: str, base: str) -> str:
    if loc.file == STDIN_NAME:
        return _shown(str(loc))
    return _shown(str(loc._replace(file=workspace_path(loc.file, cwd, base)[0])))


def github(diagnostics: Sequence[Diagnostic], *, cwd: str = ".", base: str = ".") -> Commands:
    """One workflow command per diagnostic (``::error file=F,line=L,col=C,title=T::message``),
    its notes and hint on the lines of the message (compiler.core.cilog.command: escaped, and no line
    of it a command). ``file`` is relative to ``base``, the folder GitHub resolves it against
    (``base_folder``); the working folder ``cwd`` places relative names.
    """
    out = []
    for d in diagnostics:
        props = []
        if d.location and d.location.file != STDIN_NAME:
            props.append(("file", escape(workspace_path(d.location.file, cwd, base)[0])))
            if d.location.line:
                props.append(("line", str(d.location.line)))
            if d.location.column:
                props.append(("col", str(d.location.column)))
        props.append(("title", f"{d.code} {CODES[d.code].name}"))
        # The plan's own line breaks are shown escaped; the ones between notes are ours.
        message = _shown(d.message) + "".join(
            f"\n{_shown_location(n.location, cwd, base) + ': ' if n.location else ''}{_shown(n.message)}"
            for n in d.notes[:MAX_NOTES])
        if len(d.notes) > MAX_NOTES:
            message += f"\n... and {len(d.notes) - MAX_NOTES:,} more"
        if d.hint:
            message += f"\nhint: {_shown(d.hint)}"
        out.append(command(d.severity, props, message))
    return Commands("".join(out))


# GitHub refuses a step summary over 1 MiB (and shows an error instead): the table stops short.
SUMMARY_BYTES = 900 * 1024


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def step_summary(plans: Sequence[PlanReport], diagnostics: Sequence[Diagnostic], *, cwd: str = ".",
                 base: str = ".") -> str:
    """The whole ``check`` report as Markdown for ``$GITHUB_STEP_SUMMARY``: a line per plan and a
    table of every problem with its notes and hint (GitHub shows only 10 error annotations of a
    step). Plan text is escaped for Markdown (compiler.core.markdown) and cut as everywhere."""
    from compiler.core.markdown import HARD_BREAK, cell, code, md, one_line

    def where(loc: Any) -> str:
        return cell(code(_shown_location(loc, cwd, base))) if loc is not None else ""

    lines = ["## evidence-plan check", "", "| plan | status | errors | warnings |", "|---|---|---|---|"]
    for p in plans:
        errors = sum(1 for d in p.diagnostics if d.severity == "error")
        plan = p.plan if p.plan == "-" else workspace_path(p.plan, cwd, base)[0]
        lines.append(f"| {cell(code(_shown(plan)))} | {p.status} | {errors:,} | {len(p.diagnostics) - errors:,} |")
    lines.append("")
    if not diagnostics:
        lines += ["No problems.", ""]
        return "\n".join(lines)
    lines += ["| where | severity | code | problem | hint |", "|---|---|---|---|---|"]
    size = sum(len(line) + 1 for line in lines)
    for shown, d in enumerate(diagnostics):
        notes = [f"{where(n.location)} {md(_shown(n.message))}".lstrip() for n in d.notes[:MAX_NOTES]]
        if len(d.notes) > MAX_NOTES:
            notes.append(f"... and {len(d.notes) - MAX_NOTES:,} more")
        # md() escapes every pipe already; cell() is for code spans only (a second escape would
        # leave an escaped backslash and a bare pipe, which splits the cell). A cell holds one line:
        # the message and its notes are joined, and their line breaks shown, by SHOWN_BREAK, not by a
        # `<br>`, which a renderer with raw HTML off drops or shows as text.
        problem = one_line(HARD_BREAK.join([md(_shown(d.message)), *notes]))
        hint = one_line(md(_shown(d.hint))) if d.hint else ""
        row = f"| {where(d.location)} | {d.severity} | {d.code} {CODES[d.code].name} | {problem} | {hint} |"
        size += len(row.encode("utf-8", "surrogateescape")) + 1
        if size > SUMMARY_BYTES:
            lines.append("")
            lines.append(f"... and {_plural(len(diagnostics) - shown, 'more problem')}: see the job's log.")
            break
        lines.append(row)
    lines.append("")
    return "\n".join(lines) + "\n"


def artifact_location(file: str, cwd: str, base: str) -> dict[str, str]:
    """A SARIF ``artifactLocation``: an RFC 3986 URI reference, relative to ``%SRCROOT%`` (the
    folder ``base``, the repository's checkout under Actions) for a file inside it, else a
    ``file:///`` URI. Every character outside the unreserved set is percent-encoded as UTF-8
    (spaces, ``%``, ``#``, ``?``, ``:``, non-ASCII); the raw bytes of a name that is not UTF-8
    (surrogates here) are encoded as themselves."""
    from urllib.parse import quote

    path, inside = workspace_path(file, cwd, base)
    uri = quote(path, safe="/", errors="surrogateescape")
    if inside:
        return {"uri": uri, "uriBaseId": SRCROOT}
    if posixpath.isabs(path):
        return {"uri": "file://" + uri}
    return {"uri": uri}  # outside a folder that is unknown: a relative reference, as given


SRCROOT = "%SRCROOT%"


# A plan read from standard input is no file of the repository: its results name it as the text
# report does, `<stdin>` (percent-encoded, with no uriBaseId: it resolves against no folder), and
# say so in the location's description. GitHub code scanning refuses a result without a location.
STDIN_ARTIFACT = {"uri": "%3Cstdin%3E", "description": {"text": "standard input (the plan argument `-`)"}}


def _sarif_location(loc: Any, cwd: str, base: str) -> dict[str, Any]:
    # GitHub code scanning needs a region with a startLine for every location (SARIF itself makes
    # region optional): a problem of the whole file (EP001, EP006, EP007) is shown on its line 1.
    region: dict[str, int] = {"startLine": loc.line or 1}
    if loc.line and loc.column:
        region["startColumn"] = loc.column
    artifact = dict(STDIN_ARTIFACT) if loc.file == STDIN_NAME else artifact_location(loc.file, cwd, base)
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _sarif_fix(fix: Fix, cwd: str, base: str) -> dict[str, Any]:
    """A SARIF ``fix``: its description, one ``artifactChange`` per file (the plan's) with a
    ``replacement`` per edit (``deletedRegion``, empty for an insertion, and ``insertedContent``),
    and its applicability in the fix's ``properties`` (SARIF has no word for it). Regions count
    columns as the run's ``columnKind`` says: Unicode code points, as the edits do."""
    changes: dict[str, list[dict[str, Any]]] = {}
    for edit in fix.edits:
        changes.setdefault(edit.file, []).append({
            "deletedRegion": {"startLine": edit.start_line, "startColumn": edit.start_column,
                              "endLine": edit.end_line, "endColumn": edit.end_column},
            "insertedContent": {"text": edit.new_text}})
    return {
        "description": {"text": fix.message},
        "artifactChanges": [{"artifactLocation": dict(STDIN_ARTIFACT) if file == STDIN_NAME
                             else artifact_location(file, cwd, base), "replacements": replacements}
                            for file, replacements in changes.items()],
        "properties": {"applicability": fix.applicability},
    }


def project_urls() -> dict[str, str]:
    """The project's URLs as pyproject.toml's ``[project.urls]`` declares them (the installed
    package's metadata), by label in lower case: ``homepage`` is the SARIF driver's
    ``informationUri``, ``documentation`` the site whose ``codes/CODE/`` pages are each rule's
    ``helpUri``. None declared: neither is written (SARIF makes both optional)."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        entries = metadata("evidence-plan").get_all("Project-URL") or []
    except PackageNotFoundError:
        return {}
    urls = {}
    for entry in entries:
        label, _, url = str(entry).partition(",")
        if url.strip().startswith("https://"):
            urls[label.strip().lower()] = url.strip()
    return urls


def _rule(code: str, docs: str | None) -> dict[str, Any]:
    c = CODES[code]
    if c.input_error:
        effect = "The file is not a usable plan: nothing else is checked (exit 2)."
    elif c.severity == "error":
        effect = "An error: the plan is blocked (exit 1)."
    else:
        effect = "A warning: it blocks the plan only under `check --strict`."
    summary = c.summary[0].upper() + c.summary[1:]
    return {
        "id": code,
        "name": c.name,
        "shortDescription": {"text": c.summary},
        "fullDescription": {"text": f"{summary}. {effect}"},
        "help": {
            "text": f"{code} {c.name}: {summary}. {effect}",
            "markdown": f"**{code} {c.name}**: {summary}. {effect}",
        },
        "defaultConfiguration": {"level": c.severity},
        **({"helpUri": f"{docs.rstrip('/')}/codes/{code}/"} if docs else {}),
    }


def sarif(diagnostics: Sequence[Diagnostic], version: str, *, cwd: str = ".", base: str = ".") -> str:
    """A SARIF 2.1.0 log of one run. Columns count Unicode code points (as Python's ``str`` and
    the source map do), which ``columnKind`` says; files are named as ``artifact_location`` says."""
    used = sorted({d.code for d in diagnostics})
    index = {code: n for n, code in enumerate(used)}
    urls = project_urls()
    results = []
    for d in diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": d.severity,
            "message": {"text": d.message + (f"\nhint: {d.hint}" if d.hint else "")},
        }
        if d.location is not None:
            result["locations"] = [_sarif_location(d.location, cwd, base)]
        related = [
            {"id": n, **_sarif_location(note.location, cwd, base), "message": {"text": note.message}}
            for n, note in enumerate(d.notes)
            if note.location is not None
        ]
        if related:
            result["relatedLocations"] = related
        if d.fix is not None and d.fix.edits:
            result["fixes"] = [_sarif_fix(d.fix, cwd, base)]
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "evidence-plan", "version": version,
                                    **({"informationUri": urls["homepage"]} if "homepage" in urls else {}),
                                    "rules": [_rule(code, urls.get("documentation")) for code in used]}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    import json

    return json_safe(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


class Context(NamedTuple):
    """What a report needs beyond the diagnostics: the plans of a ``check`` (for JSON), the
    working folder (absolute) and the folder GitHub resolves file names against."""

    plans: Sequence[PlanReport] = ()
    cwd: str = "."
    base: str = "."


def _sarif(diagnostics: Sequence[Diagnostic], style: Style, context: Context) -> str:
    from compiler.core.version import __version__

    return sarif(diagnostics, __version__, cwd=context.cwd, base=context.base)


# The report formats, each one function of the same shape: diagnostics, a style (which only text
# uses) and the context in, the report out. `check --format` offers these and ``auto``.
REPORTERS: dict[str, Callable[[Sequence[Diagnostic], Style, Context], str]] = {
    "text": lambda diagnostics, style, context: text(diagnostics, style),
    "json": lambda diagnostics, style, context: as_json(diagnostics, context.plans),
    "github": lambda diagnostics, style, context: github(diagnostics, cwd=context.cwd, base=context.base),
    "sarif": _sarif,
}
FORMATS = ("auto", *REPORTERS)
SHOWS_FIXES = frozenset(("json", "sarif"))  # the formats that carry each diagnostic's fix: `check` makes their edits


NO_CONTEXT = Context()


def report(fmt: str, diagnostics: Sequence[Diagnostic], style: Style = _plain, context: Context = NO_CONTEXT) -> str:
    """The diagnostics in the report format ``fmt`` (a name of REPORTERS)."""
    return REPORTERS[fmt](diagnostics, style, context)


def resolve_format(fmt: str, environ: dict[str, str]) -> str:
    """``auto`` is ``github`` under GitHub Actions, else ``text``."""
    if fmt != "auto":
        return fmt
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
