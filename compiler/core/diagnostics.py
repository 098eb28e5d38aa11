"""One diagnostic model for every problem: code, severity, item, message, location.

The value types here (and the project's other small records) are NamedTuples rather than frozen
dataclasses: each frozen dataclass costs about 1 ms to define at import, and `check` of a small
plan, run by pre-commit on every commit, defined a dozen of them (a tenth of its run).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, NamedTuple

from compiler.core.codes import CODES, Severity

# How far a fix may be trusted (ruff's words): ``safe`` keeps the plan's meaning exactly (another
# notation of the same reference, a repeat removed, lines that moved whole); ``unsafe`` is
# probably right but a guess (a did-you-mean, a range shifted without history), applied only by
# `fix --unsafe-fixes`; ``display-only`` is shown, never applied (an edit that would change every
# use of a YAML alias at once).
Applicability = Literal["safe", "unsafe", "display-only"]
APPLICABILITIES: tuple[Applicability, ...] = ("safe", "unsafe", "display-only")


class Location(NamedTuple):
    """A place in a file; line and column are 1-based, None when unknown."""

    file: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        parts = [self.file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column}


class Note(NamedTuple):
    """A secondary place that explains a diagnostic (e.g. each edge of a cycle)."""

    message: str
    location: Location | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "location": self.location.to_dict() if self.location else None,
        }


class TextEdit(NamedTuple):
    """Replace the text of ``file`` from ``start`` up to, not including, ``end`` with ``new_text``
    (``start == end``: an insertion). Lines and columns are 1-based, as a Location's; a column
    counts Unicode code points (Python's ``str`` indexes, what SARIF calls ``unicodeCodePoints``),
    and lines end at ``\\n`` (a ``\\r`` before it is the line's last character). Applied by
    compiler/core/edits.py ``apply_text_edits``."""

    file: str
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    new_text: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "start": {"line": self.start_line, "column": self.start_column},
                "end": {"line": self.end_line, "column": self.end_column}, "new_text": self.new_text}


class Fix(NamedTuple):
    """A diagnostic's repair: what it does, how far it may be trusted, and its exact text edits,
    the ones `fix` applies. A rule gives ``changes``, the same repair as edits of the parsed data
    (``(path, new value)``, compiler/core/edits.py); compiler/load/spans.py makes the text edits of
    them once a compile is done (a fix without edits is not made yet, and not shown), and `fix`
    holds the file it writes to them: read back, it must give exactly the changed data."""

    message: str
    applicability: Applicability
    edits: tuple[TextEdit, ...] = ()
    changes: tuple[tuple[tuple[Any, ...], Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "applicability": self.applicability,
                "edits": [e.to_dict() for e in self.edits]}


class Diagnostic(NamedTuple):
    code: str
    message: str
    item: str | None = None
    location: Location | None = None
    notes: tuple[Note, ...] = ()
    hint: str | None = None  # how to fix it, when that is not obvious from the message
    excerpt: str | None = None  # the source line, for input errors (shown with a caret)
    fix: Fix | None = None  # the mechanical repair, when there is one (its code is ``fixable``)

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    @property
    def input_error(self) -> bool:
        return CODES[self.code].input_error

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        if loc is None:
            return ("", 0, 0, self.code, self.message)
        return (loc.file, loc.line or 0, loc.column or 0, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "name": CODES[self.code].name,
            "severity": self.severity,
            "message": self.message,
            "item": self.item,
            "location": self.location.to_dict() if self.location else None,
        }
        if self.notes:
            out["related"] = [n.to_dict() for n in self.notes]
        if self.hint:
            out["hint"] = self.hint
        if self.excerpt is not None:
            out["excerpt"] = self.excerpt
        if self.fix is not None and self.fix.edits:
            out["fix"] = self.fix.to_dict()
        return out


def sort_diagnostics(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    return tuple(sorted(diagnostics, key=Diagnostic.sort_key))


class PlanInputError(Exception):
    """The input is not a usable plan (exit 2). Carries the diagnostic that says why and where."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic.location) + ": " + diagnostic.message)
        self.diagnostic = diagnostic


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word``, if one is close enough to be a likely typo. For many
    words against the same candidates, build one ``compiler.core.suggest.Suggester`` instead."""
    from compiler.core.suggest import Suggester

    return Suggester(candidates).closest(word)


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """' (did you mean X?)' for the closest candidate, or ''."""
    match = closest(word, candidates)
    return f" (did you mean {match}?)" if match else ""
