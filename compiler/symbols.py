"""Where a file defines a name: Python through its ``ast`` (parsing as little as it can), any
other file through definition-looking lines and Markdown headings.

Every function here is linear in its input: the patterns applied to evidence files are anchored
or replaced by plain scans, because anyone can write the files a plan cites.
"""

from __future__ import annotations

import ast
import bisect
import re

_UNSURE = object()
_TOP_LEVEL_START = re.compile(r"[^\s#)\]}]")


# Strings and comments of Python source, so that a definition-looking line inside one is not
# taken for a definition. The spans are those that this regular expression finds, scanning left
# to right (triple-quoted strings first; escapes are skipped):
#
#     #[^\n]*  |  """(?:[^"\\]|\\.|"(?!""))*"""  |  '''...'''  |  "(?:[^"\\\n]|\\.)*"  |  '...'
#
# but the expression itself is quadratic on strings that never close (each escaped quote of
# `'\'\'\'...` starts a new scan to the end of the line, each `"""` after an unclosed one a scan
# to the end of the file). string_spans finds the same spans in linear time: each body is
# matched without backtracking, and a failed scan tells which later starts must fail too.
_STRING_START = re.compile(r"[#\"']")
_TRIPLE_BODY = {q: re.compile(rf"(?:[^{q}\\]++|\\.|{q}(?!{q}{q}))*+{q}{q}{q}", re.DOTALL) for q in "\"'"}
_SINGLE_BODY = {q: re.compile(rf"(?:[^{q}\\\n]++|\\.)*+", re.DOTALL) for q in "\"'"}


def string_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the string literals and comments of Python source, in order."""
    spans: list[tuple[int, int]] = []
    # A triple-quoted string that runs to the end unclosed means every later one of that quote
    # does too (their bodies fall into step with its body at once). A one-line string that fails
    # at offset f means every string of that quote starting before f fails there as well (its
    # quote was escaped in the first one's body, so the bodies are in step from the next character).
    triple_closes = {'"': True, "'": True}
    single_fails_before = {'"': -1, "'": -1}
    pos, size = 0, len(text)
    while (found := _STRING_START.search(text, pos)) is not None:
        start = found.start()
        quote = text[start]
        if quote == "#":
            end = text.find("\n", start)
            pos = end if end >= 0 else size
            spans.append((start, pos))
            continue
        if triple_closes[quote] and text.startswith(quote * 3, start):
            body = _TRIPLE_BODY[quote].match(text, start + 3)
            if body is not None:
                pos = body.end()
                spans.append((start, pos))
                continue
            triple_closes[quote] = False
        if start >= single_fails_before[quote]:
            body = _SINGLE_BODY[quote].match(text, start + 1)  # always matches, maybe empty
            stop = body.end() if body is not None else start + 1
            if stop < size and text[stop] == quote:
                pos = stop + 1
                spans.append((start, pos))
                continue
            single_fails_before[quote] = stop
        pos = start + 1
    return spans


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return i >= 0 and spans[i][0] < offset < spans[i][1]


def python_top_level(text: str, spans: list[tuple[int, int]], name: str) -> int | None:
    """The 0-based line of the first column-0 ``def``/``class``/assignment of ``name`` that is
    not inside a string or comment, found with plain string searches (no regex per name)."""
    best: int | None = None
    for prefix in ("def ", "async def ", "class ", ""):
        needle = f"{prefix}{name}"
        at = -1
        while True:
            at = text.find(needle, at + 1)
            if at < 0:
                break
            if at and text[at - 1] != "\n":
                continue
            after = text[at + len(needle): at + len(needle) + 64].lstrip(" \t")
            fits = after[:1] in ("(", ":", "[") if prefix else (after[:1] in ("=", ":") and not after.startswith("=="))
            if fits and not _inside(spans, at):
                break
        if at >= 0 and (best is None or at < best):
            best = at
    return None if best is None else text.count("\n", 0, best)


def python_symbol_fast(
    lines: list[str], text: str, spans: list[tuple[int, int]], name: str
) -> tuple[int, int] | object | None:
    """Find a dotted name by parsing only the top-level statement that defines its first part.

    Parsing a whole module costs ~50x more than parsing one definition, and plans cite many
    symbols. The statement starts at a column-0 ``def``/``class``/assignment (python_top_level)
    and runs to the next line that starts at column 0; a cut in the middle of
    a string or a bracket cannot parse, so any doubt returns ``_UNSURE`` and the caller parses
    the whole file.
    """
    top, *rest = name.split(".")
    first = python_top_level(text, spans, top)
    if first is None:
        return _UNSURE
    # Decorators above it, which may span lines: walk back over "@" lines and the indented or
    # closing-bracket lines between them; stop at any other column-0 line.
    start, k = first, first - 1
    while k >= 0 and (lines[k].startswith("@") or lines[k][:1] in (" ", "\t", ")", "]", "}")):
        if lines[k].startswith("@"):
            start = k
        k -= 1
    stop = first + 1
    while stop < len(lines) and not _TOP_LEVEL_START.match(lines[stop]):
        stop += 1
    try:
        tree = ast.parse("\n".join(lines[start:stop]))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _UNSURE
    if len(tree.body) != 1:
        return _UNSURE
    node: ast.stmt = tree.body[0]
    if _names(node) != [top]:
        return _UNSURE
    for part in rest:
        if not isinstance(node, ast.ClassDef):
            return _UNSURE
        inner = [n for n in node.body if part in _names(n)]
        if not inner:
            return _UNSURE
        node = inner[0]
    first_line = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first_line + start, (node.end_lineno or node.lineno) + start


def _names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def python_symbols(text: str) -> dict[str, tuple[int, int]] | None:
    """Functions, classes, methods and assignments of a Python module, with dotted names.
    None when the file does not parse (the heuristic takes over)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: dict[str, tuple[int, int]] = {}
    stack: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    while stack:  # iterative: deeply nested code does not recurse here
        prefix, body = stack.pop()
        for node in body:
            names = _names(node)
            if isinstance(node, ast.ClassDef):  # methods and class attributes; not locals
                stack.append((prefix + node.name + ".", node.body))
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            end = node.end_lineno or node.lineno
            for name in names:
                out.setdefault(prefix + name, (start, end))
    return out


_DEFINITION = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:def|class|function|fn|func|struct|enum|interface|trait|type|module|impl|const|let|var|val"
    r"|object|record|protocol|macro|sub|procedure)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)
_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=(?!=)")


def heading(line: str) -> str | None:
    """The text of a Markdown ATX heading (1-6 ``#``, a space, the text, optional closing ``#``s),
    exactly as ``^#{1,6}\\s+(.+?)\\s*#*\\s*$`` matches it, by plain string operations: that
    expression backtracks cubically over a long run of spaces inside a heading."""
    hashes = len(line) - len(line.lstrip("#"))
    if not 1 <= hashes <= 6 or hashes == len(line) or not line[hashes].isspace():
        return None
    rest = line[hashes:]
    text = rest.lstrip()
    if not text:  # only spaces after the #s: the expression gives the last one to the text
        return rest[-1] if len(rest) > 1 else None
    core = text.rstrip().rstrip("#").rstrip()  # the text, less closing #s and the spaces around them
    return text[:max(len(core), 1)]


def heuristic_symbols(text: str | list[str]) -> dict[str, tuple[int, int]]:
    """Definition-looking lines in any language: ``def|class|function|fn|func|struct|... NAME``,
    ``NAME = ...`` at any indent, and Markdown headings. Each maps to its one line."""
    out: dict[str, tuple[int, int]] = {}
    lines = text.split("\n") if isinstance(text, str) else text
    for n, line in enumerate(lines, 1):
        m = _DEFINITION.match(line)
        name = m.group(1) if m else heading(line) if line.startswith("#") else None
        if name is None:
            m = _ASSIGNMENT.match(line)
            name = m.group(1) if m else None
        if name is not None:
            out.setdefault(name, (n, n))
    return out


def lookup_symbol(symbols: dict[str, tuple[int, int]], name: str, python: bool) -> tuple[int, int] | None:
    if name in symbols:
        return symbols[name]
    if not python and "." in name:  # the heuristic has no nesting: Accounts.create -> create
        return symbols.get(name.rsplit(".", 1)[1])
    return None
