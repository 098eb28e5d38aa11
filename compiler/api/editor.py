"""The library half of `evidence-plan lsp`: a plan's text, as an editor holds it, checked as `check`
checks the file, and the places in it that the editor's questions are about. No protocol here
(compiler/serve/lsp.py speaks it) and nothing printed.

Positions here are 0-based lines and 0-based columns counted in code points (Python's ``str``
indexes), ranges end-exclusive: the protocol's shape, in our unit. compiler/serve/positions.py
turns the columns into the client's units (UTF-16 by default) at the boundary, and back.

An ``Analysis`` is one text compiled: the diagnostics `check` gives for the file holding that text
(with their fixes' edits, as ``check --format json`` shows them), the document and the plan
(hover, completion and the rest read them), or the input error that stopped the reading. A
half-typed plan is the normal case: the server keeps the last analysis that could be read beside
the newest (``Analysis.readable``), and answers questions about places from it.
"""

from __future__ import annotations

import bisect
import os
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.diagnostics import Diagnostic, PlanInputError

if TYPE_CHECKING:
    from compiler.compile.pipeline import CompileResult
    from compiler.load.document import Document
    from compiler.load.sourcemap import Path


class Range(NamedTuple):
    """From (line, column) up to, not including, (end_line, end_column); 0-based, code points."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def on(cls, line: int, column: int, end_column: int) -> Range:
        """A range within one line."""
        return cls(line=line, column=column, end_line=line, end_column=end_column)

    @classmethod
    def between(cls, start: tuple[int, int], end: tuple[int, int]) -> Range:
        """From (line, column) ``start`` to ``end``."""
        return cls(line=start[0], column=start[1], end_line=end[0], end_column=end[1])

    def contains(self, line: int, column: int) -> bool:
        """Whether the place is inside, its end included (a cursor just after a word is on it)."""
        return (self.line, self.column) <= (line, column) <= (self.end_line, self.end_column)


class Analysis:
    """One text of a plan file, compiled. Read-only by convention; built by ``analyse``."""

    __slots__ = ("_nodes", "error", "lines", "name", "path", "result", "text")

    def __init__(self, *, path: str, name: str, text: str, result: CompileResult | None,
                 error: Diagnostic | None) -> None:
        self.path = path  # absolute
        self.name = name  # as messages name the file
        self.text = text
        self.lines = text.split("\n")  # lines end at \n only, as every location of ours counts them
        self.result = result  # None when the text could not be read as a plan
        self.error = error  # the input error that stopped it, when result is None
        self._nodes: list[Node] | None = None

    @property
    def readable(self) -> bool:
        return self.result is not None

    @property
    def document(self) -> Document:
        assert self.result is not None, "only an analysis that could be read has a document"
        return self.result.document

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        if self.result is not None:
            return self.result.diagnostics
        return (self.error,) if self.error is not None else ()


_SURROGATE = re.compile("[\ud800-\udfff]")


def looks_like_plan(data: Any) -> bool:
    """Whether parsed data has a plan's shape: an item list (``items:``, or the document itself)
    whose entries include a mapping with an ``id``. Decides which files not named as plans
    (compiler/repo/discover.py) the server checks; any file so named is checked whatever it holds."""
    items = data.get("items") if isinstance(data, dict) else data
    return isinstance(items, list) and any(isinstance(entry, dict) and "id" in entry for entry in items)


def analyse(path: str, text: str, *, name: str | None = None, planned: bool | None = None) -> Analysis | None:
    """The plan file at ``path`` (absolute), holding ``text`` rather than what is on disk, checked
    as `check --format json` checks it: the same diagnostics, with their fixes' edits. ``planned``:
    whether the file is a plan whatever it holds (default: its name says so); a file that is not
    is analysed only when its text reads as a plan (``looks_like_plan``), else None."""
    from compiler.compile.pipeline import compile_document
    from compiler.load.document import parse_text
    from compiler.load.limits import DEFAULT_LIMITS, too_large
    from compiler.load.read import detect_format
    from compiler.repo.discover import is_plan_file

    shown = name if name is not None else path
    if _SURROGATE.search(text):  # a JSON escape of the client's that no UTF-8 text holds
        text = _SURROGATE.sub("\ufffd", text)  # one code point for one: every column stays
    if planned is None:
        planned = is_plan_file(path.replace(os.sep, "/"))
    try:
        limit = DEFAULT_LIMITS.max_bytes
        if len(text) > limit or len(text.encode("utf-8")) > limit:
            raise too_large(shown, DEFAULT_LIMITS)
        doc = parse_text(text, shown, detect_format(path, text))
        if not planned and not looks_like_plan(doc.data):
            return None
        result = compile_document(doc, path, fixes=True)
    except PlanInputError as error:
        if not planned:
            return None
        return Analysis(path=path, name=shown, text=text, result=None, error=error.diagnostic)
    return Analysis(path=path, name=shown, text=text, result=result, error=None)


# --- ranges ---------------------------------------------------------------------------------------

_FLOW_END = ",]}"


def token_range(lines: list[str], line: int, column: int, flow: bool | None = None) -> Range:
    """The range of the scalar or key that starts at (line, column): a quoted one up to its
    closing quote, a plain one up to ``: ``, `` #``, the end of its line, or in a flow collection
    ``,``, ``]`` or ``}``; trailing blanks left out. A place that starts none (a list's ``[``, a
    ``-``) gives the rest of its line. Single-line: a block scalar's first line. ``flow``: whether
    the place is in a flow collection (None: when one opens earlier on its line)."""
    if not 0 <= line < len(lines):
        return Range.on(line, column, column)
    text = lines[line].rstrip("\r")
    column = min(column, len(text))
    if column == len(text):
        return Range.on(line, column, column)
    first = text[column]
    if first in "\"'":
        end = _closing_quote(text, column)
        return Range.on(line, column, end)
    if flow is None:
        flow = _in_flow(text, column)
    end = column
    while end < len(text):
        char = text[end]
        if char == ":" and (end + 1 == len(text) or text[end + 1] in " \t") and first not in "[{-":
            break
        if char == "#" and end > column and text[end - 1] in " \t":
            break
        if flow and char in _FLOW_END and end > column:
            break
        end += 1
    while end > column and text[end - 1] in " \t":
        end -= 1
    return Range.on(line, column, end)


def _closing_quote(text: str, start: int) -> int:
    """Just past the quote that closes the one at ``start`` (YAML's ``''`` and JSON's ``\\"``
    escapes skipped), or the end of the line when it is not closed there."""
    quote = text[start]
    at = start + 1
    while at < len(text):
        char = text[at]
        if quote == '"' and char == "\\":
            at += 2
            continue
        if char == quote:
            if quote == "'" and text.startswith("''", at):
                at += 2
                continue
            return at + 1
        at += 1
    return len(text)


def _in_flow(text: str, column: int) -> bool:
    """Whether ``column`` lies inside a ``[`` or ``{`` opened earlier on its line (quotes skipped)."""
    depth, at = 0, 0
    while at < column:
        char = text[at]
        if char in "\"'":
            at = _closing_quote(text, at)
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "#" and (at == 0 or text[at - 1] in " \t"):
            break
        at += 1
    return depth > 0


def diagnostic_range(analysis: Analysis, diagnostic: Diagnostic) -> Range:
    """Where the editor underlines a diagnostic: the scalar or key its location starts (the place
    `check` reports), the line's text when it has no column, the first line when it has none."""
    loc = diagnostic.location
    lines = analysis.lines
    if loc is None or loc.line is None or not 1 <= loc.line <= len(lines):
        return Range.on(0, 0, len(lines[0].rstrip("\r")) if lines else 0)
    line = loc.line - 1
    text = lines[line].rstrip("\r")
    if loc.column is None:
        start = len(text) - len(text.lstrip())
        return Range.on(line, start, len(text))
    found = token_range(lines, line, loc.column - 1)
    if found.end_column == found.column:  # at the end of a line: the character before it
        return Range.on(line, max(0, found.column - 1), found.column)
    return found


def edit_range(edit: Any) -> Range:
    """A fix's text edit (compiler/core/diagnostics.py ``TextEdit``: 1-based) as a range here."""
    return Range.between((edit.start_line - 1, edit.start_column - 1), (edit.end_line - 1, edit.end_column - 1))


# --- places ---------------------------------------------------------------------------------------


class Node(NamedTuple):
    """A scalar of the document, or a key: its path (compiler/load/sourcemap.py), its range, and
    its value (the key's text, for a key)."""

    path: Path
    range: Range
    key: bool
    value: Any


def nodes(analysis: Analysis) -> list[Node]:
    """Every scalar and key of a readable analysis, in document order (made once, on the first
    question: one walk of the source map)."""
    if analysis._nodes is not None:
        return analysis._nodes
    doc = analysis.document
    values, keys = doc.source_map.entries()
    lines = analysis.lines
    flow = doc.format == "json"

    def in_flow(path: Path) -> bool:  # its collection opened with [ or { (a list over several lines too)
        at = values.get(path[:-1])
        if flow or at is None or not 0 < at[0] <= len(lines):
            return flow
        return lines[at[0] - 1][at[1] - 1:at[1]] in ("[", "{")

    found: list[Node] = []
    for path, (line, column) in values.items():
        value = _value_at(doc.data, path)
        if not isinstance(value, dict | list):
            found.append(Node(path=path, range=token_range(lines, line - 1, column - 1, in_flow(path)),
                              key=False, value=value))
    for path, (line, column) in keys.items():
        if path:
            found.append(Node(path=path, range=token_range(lines, line - 1, column - 1, in_flow(path)),
                              key=True, value=path[-1]))
    found.sort(key=lambda node: (node.range.line, node.range.column))
    analysis._nodes = found
    return found


def _value_at(data: Any, path: Path) -> Any:
    for part in path:
        data = data[part]
    return data


def node_at(analysis: Analysis, line: int, column: int) -> Node | None:
    """The scalar or key under the place (its end counts: the cursor just after a word), or None."""
    found = nodes(analysis)
    at = bisect.bisect_right(found, (line, column), key=lambda node: (node.range.line, node.range.column))
    return next((node for node in reversed(found[max(0, at - 2):at]) if node.range.contains(line, column)), None)


def item_path(analysis: Analysis, index: int) -> Path:
    """The path of the item at ``index`` of the plan's list."""
    assert analysis.result is not None
    return (*analysis.result.plan.items_path, index)


def item_index(analysis: Analysis, path: Path) -> int | None:
    """The index of the item a path lies in, or None (a plan field)."""
    assert analysis.result is not None
    base = analysis.result.plan.items_path
    index = path[len(base)] if len(path) > len(base) and tuple(path[:len(base)]) == tuple(base) else None
    return index if isinstance(index, int) else None


def fixed_text(analysis: Analysis) -> str | None:
    """The text `evidence-plan fix` would write for this one (its safe fixes, in rounds), or None
    when it would write nothing or could not apply them."""
    from compiler.api.fix import FixError, fix_document
    from compiler.load.document import parse_text

    if analysis.result is None:
        return None
    try:
        doc = parse_text(analysis.text, analysis.name, analysis.document.format)
        fixed = fix_document(doc, analysis.text, analysis.path, dry_run=True).fixed
    except (FixError, PlanInputError):
        return None
    return None if fixed == analysis.text else fixed


def one_edit(before: str, after: str) -> tuple[Range, str]:
    """The one replacement that makes ``after`` of ``before``: what lies between their common
    beginning and their common end (so that an editor keeps its cursor and folds elsewhere)."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[len(before) - 1 - end] == after[len(after) - 1 - end]:
        end += 1

    def place(offset: int) -> tuple[int, int]:
        line = before.count("\n", 0, offset)
        return line, offset - (before.rfind("\n", 0, offset) + 1)

    return Range.between(place(start), place(len(before) - end)), after[start:len(after) - end]
