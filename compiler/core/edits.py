"""Edits of a plan, in its two forms: edits of the parsed data (``(path, new value)``, what a rule
says a repair is) and text edits (compiler/core/diagnostics.py ``TextEdit``, what the JSON and SARIF
reports carry and `fix` applies). compiler/load/spans.py makes the second of the first; `fix` holds
them to each other: the edited text, read back, must give exactly the edited data.

Standard library only: an agent's tool, a test or an editor applies the text edits of a report
with ``apply_text_edits`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any, NamedTuple

from compiler.core.diagnostics import TextEdit

Path = tuple[Any, ...]  # keys and indexes from the document's root: ("items", 2, "depends_on", 0)
Change = tuple[Path, Any]  # (path, new value), (path, REMOVE) or (path, Rename(...))


class _Remove:
    """The value of a change that removes the entry at its path (a sequence's entry)."""

    def __repr__(self) -> str:
        return "REMOVE"


REMOVE: Any = _Remove()
KEEP: Any = object()  # a Rename's value that keeps the value as it is (only the key changes)


class _SourceText:
    """The value of a change that makes a scalar text, spelled as the file spells it (``12``
    becomes ``'12'``, ``1e3`` becomes ``'1e3'``): what it is, the text says, so compiler/load/spans.py
    reads it there."""

    def __repr__(self) -> str:
        return "SOURCE_TEXT"


SOURCE_TEXT: Any = _SourceText()


class Rename(NamedTuple):
    """A change's value that replaces the key at the end of its path as well: the mapping keeps
    its order, with ``key: value`` where the old key and its value were (``value`` KEEP: the old
    value, untouched)."""

    key: str
    value: Any = KEEP


class EditError(Exception):
    """The edits could not be applied safely (a path that is not in the text, edits that overlap
    or leave the file); nothing was written."""


def apply_to_data(data: Any, changes: Iterable[Change]) -> Any:
    """The same changes on a copy of plain data; removals last-first so indexes hold. Only the
    containers on a changed path are copied (shallowly, without recursion): the rest is shared,
    so any depth of nesting elsewhere costs nothing."""
    owned: set[int] = set()  # ids of the copies made so far

    def own(container: Any) -> Any:
        if id(container) in owned:
            return container
        copy = container.copy()
        owned.add(id(copy))
        return copy

    out = own(data)
    for path, value in sorted(changes, key=lambda e: e[0], reverse=True):
        parent = out
        for part in path[:-1]:
            child = own(parent[part])
            parent[part] = child
            parent = child
        if value is REMOVE:
            del parent[path[-1]]
        elif isinstance(value, Rename):  # in place: the keys after it stay after it
            pairs = list(parent.items())
            parent.clear()
            parent.update(((value.key, v if value.value is KEEP else value.value) if k == path[-1] else (k, v))
                          for k, v in pairs)
        else:
            parent[path[-1]] = value
    return out


def same_key_order(a: Any, b: Any) -> bool:
    """Whether two equal documents also give every mapping's keys in the same order (iterative:
    any depth of nesting)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            stack.extend(zip(x, y, strict=False))
    return True


def line_starts(text: str) -> list[int]:
    """The offset at which each line of ``text`` starts (lines end at ``\\n``)."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def offset(starts: Sequence[int], text: str, line: int, column: int) -> int:
    """The offset of a 1-based (line, column) of ``text``; raises EditError for a place that is
    not in it (a column past the end of its line, a line past the end of the text)."""
    if not 1 <= line <= len(starts) or column < 1:
        raise EditError(f"an edit names line {line}, column {column}, which the file does not have")
    begin = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(text)  # the line's \n, or the end of the text
    if begin + column - 1 > end:
        raise EditError(f"an edit names line {line}, column {column}, which the file does not have")
    return begin + column - 1


def apply_text_edits(text: str, edits: Iterable[TextEdit], file: str) -> str:
    """``text`` (the file ``file``) with ``edits`` applied, all at once: each names places of the
    text as it is. Refused (EditError) when an edit names another file or a place the text does
    not have, or when two edits overlap (an insertion at the start of a replaced span comes
    before it; two insertions at one place are refused: their order would be a guess). The
    same edit given twice is made once."""
    starts = line_starts(text)
    spans = set()
    for edit in edits:
        if edit.file != file:
            raise EditError(f"an edit is of another file than the plan ({edit.file!r}): nothing is written outside it")
        start = offset(starts, text, edit.start_line, edit.start_column)
        end = offset(starts, text, edit.end_line, edit.end_column)
        if end < start:
            raise EditError("an edit ends before it starts")
        spans.add((start, end, edit.new_text))
    ordered = sorted(spans)
    for (start, end, _), (next_start, next_end, _) in pairwise(ordered):
        if next_start < end or next_start == next_end == start == end:
            raise EditError("two edits overlap: nothing is written (apply one, check again, then the other)")
    pieces: list[str] = []
    last = 0
    for start, end, new in ordered:
        pieces += (text[last:start], new)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def overlaps(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> bool:
    """Whether any span of ``a`` overlaps any of ``b`` (offsets, end excluded), as
    ``apply_text_edits`` judges them: sharing a character, or an insertion at the same place as
    another edit's start."""
    return any((s < e2 and s2 < e) or s == s2 for s, e in a for s2, e2 in b)
