"""Diagnostics as text, JSON, GitHub annotations or SARIF. Pure functions: strings in, string out.

``text`` is for people (``file:line:col: severity CODE message``, like compilers and linters);
``json`` is a versioned contract (a list of diagnostic objects); ``github`` makes workflow
annotations that show on the pull request; ``sarif`` is SARIF 2.1.0 for code-scanning tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from compiler.codes import CODES
from compiler.diagnostics import Diagnostic
from compiler.display import UNSAFE, clip, escape

Style = Callable[[str, str], str]  # (text, severity) -> text, maybe coloured


def _plain(text: str, severity: str) -> str:
    return text


EXCERPT_WIDTH = 100


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 32:
        return chr(0x2400 + code)  # the control pictures: NUL is \u2400, a tab \u2409, ESC \u241b
    return "\u2421" if code == 0x7F else "\ufffd"


# One screen per message, whatever a plan holds: messages cut their values where they are made
# (compiler.display), and this is the last guard.
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
    (names, messages, file names) reaches the output raw: see compiler.display."""
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


def as_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github(diagnostics: Sequence[Diagnostic]) -> str:
    out = []
    for d in diagnostics:
        props = []
        if d.location:
            props.append(f"file={_gh_escape(escape(d.location.file), prop=True)}")
            if d.location.line:
                props.append(f"line={d.location.line}")
            if d.location.column:
                props.append(f"col={d.location.column}")
        props.append(f"title={_gh_escape(d.code + ' ' + CODES[d.code].name, prop=True)}")
        # The plan's own line breaks are shown escaped; the ones between notes are ours.
        message = _shown(d.message) + "".join(
            f"\n{_shown(str(n.location)) + ': ' if n.location else ''}{_shown(n.message)}" for n in d.notes[:MAX_NOTES])
        if len(d.notes) > MAX_NOTES:
            message += f"\n... and {len(d.notes) - MAX_NOTES:,} more"
        out.append(f"::{d.severity} {','.join(props)}::{_gh_escape(message)}\n")
    return "".join(out)


def _sarif_location(loc: Any) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": loc.file}}
    if loc.line:
        region = {"startLine": loc.line}
        if loc.column:
            region["startColumn"] = loc.column
        physical["region"] = region
    return {"physicalLocation": physical}


def sarif(diagnostics: Sequence[Diagnostic], version: str) -> str:
    used = sorted({d.code for d in diagnostics})
    rules = [
        {
            "id": code,
            "name": CODES[code].name,
            "shortDescription": {"text": CODES[code].summary},
            "defaultConfiguration": {"level": CODES[code].severity},
        }
        for code in used
    ]
    results = []
    for d in diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": used.index(d.code),
            "level": d.severity,
            "message": {"text": d.message},
        }
        if d.location:
            result["locations"] = [_sarif_location(d.location)]
        related = [
            {"id": n, **_sarif_location(note.location), "message": {"text": note.message}}
            for n, note in enumerate(d.notes)
            if note.location
        ]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "evidence-plan", "version": version, "rules": rules}},
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _sarif(diagnostics: Sequence[Diagnostic], style: Style) -> str:
    from compiler import __version__

    return sarif(diagnostics, __version__)


# The report formats, each one function of the same shape: diagnostics (and a style, which only
# text uses) in, the report out. `check --format` offers these and ``auto``.
REPORTERS: dict[str, Callable[[Sequence[Diagnostic], Style], str]] = {
    "text": text,
    "json": lambda diagnostics, style: as_json(diagnostics),
    "github": lambda diagnostics, style: github(diagnostics),
    "sarif": _sarif,
}
FORMATS = ("auto", *REPORTERS)


def report(fmt: str, diagnostics: Sequence[Diagnostic], style: Style = _plain) -> str:
    """The diagnostics in the report format ``fmt`` (a name of REPORTERS)."""
    return REPORTERS[fmt](diagnostics, style)


def resolve_format(fmt: str, environ: dict[str, str]) -> str:
    """``auto`` is ``github`` under GitHub Actions, else ``text``."""
    if fmt != "auto":
        return fmt
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
