"""Diagnostics as text, JSON, GitHub annotations or SARIF. Pure functions: strings in, string out.

``text`` is for people (``file:line:col: severity CODE message``, like compilers and linters);
``json`` is a versioned contract (a list of diagnostic objects); ``github`` makes workflow
annotations that show on the pull request; ``sarif`` is SARIF 2.1.0 for code-scanning tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from compiler.codes import CODES
from compiler.diagnostics import Diagnostic

Style = Callable[[str, str], str]  # (text, severity) -> text, maybe coloured


def _plain(text: str, severity: str) -> str:
    return text


EXCERPT_WIDTH = 100


def excerpt_lines(line_no: int, column: int | None, text: str) -> list[str]:
    """The source line and a caret under the column, like compilers print; a long line is cut
    to a window around the column."""
    col = max(1, column or 1)
    start = 0
    if len(text) > EXCERPT_WIDTH:
        start = max(0, min(col - 1 - EXCERPT_WIDTH // 2, len(text) - EXCERPT_WIDTH))
    # Control characters (a NUL, an escape) are shown as their Unicode pictures, never sent raw.
    shown = "".join(chr(0x2400 + ord(c)) if ord(c) < 32 and c != "\t" else c for c in text[start:start + EXCERPT_WIDTH])
    lead = "..." if start else ""
    tail = "..." if start + EXCERPT_WIDTH < len(text) else ""
    # Keep tabs under tabs so that the caret lines up in a terminal.
    pad = "".join(c if c == "\t" else " " for c in shown[: col - 1 - start])
    gutter = str(line_no)
    return [f" {gutter} | {lead}{shown}{tail}", f" {' ' * len(gutter)} | {' ' * len(lead)}{pad}^"]


def text_line(d: Diagnostic, style: Style = _plain) -> str:
    where = f"{d.location}: " if d.location else ""
    lines = [f"{where}{style(d.severity, d.severity)} {d.code} {d.message}"]
    if d.excerpt is not None and d.location is not None and d.location.line is not None:
        lines += excerpt_lines(d.location.line, d.location.column, d.excerpt)
    for note in d.notes:
        nwhere = f"{note.location}: " if note.location else ""
        lines.append(f"  {nwhere}note: {note.message}")
    if d.hint:
        lines.append(f"  hint: {d.hint}")
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
            props.append(f"file={_gh_escape(d.location.file, prop=True)}")
            if d.location.line:
                props.append(f"line={d.location.line}")
            if d.location.column:
                props.append(f"col={d.location.column}")
        props.append(f"title={_gh_escape(d.code + ' ' + CODES[d.code].name, prop=True)}")
        message = d.message + "".join(f"\n{n.location}: {n.message}" for n in d.notes)
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


FORMATS = ("auto", "text", "json", "github", "sarif")


def resolve_format(fmt: str, environ: dict[str, str]) -> str:
    """``auto`` is ``github`` under GitHub Actions, else ``text``."""
    if fmt != "auto":
        return fmt
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
