"""Where a file defines a name: Python through its ``ast`` (parsing as little as it can), any
other file through definition-looking lines and Markdown headings.

Every function here is linear in its input: the patterns applied to evidence files are anchored
or replaced by plain scans, because anyone can write the files a plan cites.
"""

from __future__ import annotations

import ast
import bisect
import re

MAX_PARSE_BYTES = 1 << 20
"""Python files up to this size are parsed whole when a symbol is not found more cheaply: ``ast``
takes 0.5-1.7 s and 60-180 MB of memory per MB of source on a two-core machine. A larger file is
searched only by its top-level statements (each parsed alone, and only when it is no larger)."""

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


# A column-0 definition of NAME: ``def NAME``, ``async def NAME`` or ``class NAME`` followed
# (after at most 63 spaces or tabs) by ``(``, ``:`` or ``[``; or ``NAME`` followed by ``=`` (not
# ``==``) or ``:``. NAME is anything up to a space or one of those characters: names that are no
# identifiers never parse as definitions, so they end in doubt either way.
_TOP_LEVEL_DEFINITION = re.compile(
    r"^(?:(?:async def |def |class )(?P<defined>[^\s(:\[=]+)[ \t]{0,63}[(:\[]"
    r"|(?P<assigned>[^\s(:\[=]+)(?:[ \t]{0,62}(?:=(?!=)|:)|[ \t]{63}[=:]))",
    re.MULTILINE,
)


def _fits(text: str, after: int, prefixed: bool) -> bool:
    """What may follow a definition's name (after at most 63 spaces or tabs)."""
    rest = text[after:after + 64].lstrip(" \t")
    return rest[:1] in ("(", ":", "[") if prefixed else (rest[:1] in ("=", ":") and not rest.startswith("=="))


def search_top_level(text: str, spans: list[tuple[int, int]], name: str, hits: int = 64) -> tuple[int, int] | object:
    """(0-based line, offset) of the first column-0 definition of ``name`` outside strings and
    comments, by four searches of the text; None if there is none, ``_UNSURE`` when more than
    ``hits`` lines start with the name without defining it (index the file instead)."""
    best: int | None = None
    for prefix in ("def ", "async def ", "class ", ""):
        needle = prefix + name
        at = 0 if text.startswith(needle) else text.find("\n" + needle) + 1
        while at > 0 or (at == 0 and text.startswith(needle)):
            if _fits(text, at + len(needle), bool(prefix)) and not _inside(spans, at):
                if best is None or at < best:
                    best = at
                break
            hits -= 1
            if hits < 0:
                return _UNSURE
            at = text.find("\n" + needle, at) + 1
            if at == 0:
                break
    return None if best is None else (text.count("\n", 0, best), best)


class TopLevel:
    """Where names are first defined at column 0 in one Python file: searched for name by name
    while few are asked (four C-speed searches each), then indexed in one pass for all."""

    SEARCHES = 4

    def __init__(self, text: str, spans: list[tuple[int, int]]) -> None:
        self.text, self.spans = text, spans
        self._searched = 0
        self._index: dict[str, tuple[int, int]] | None = None

    def find(self, name: str) -> tuple[int, int] | None:
        if self._index is None:
            if self._searched < self.SEARCHES:
                self._searched += 1
                found = search_top_level(self.text, self.spans, name)
                if found is None or isinstance(found, tuple):
                    return found
            self._index = top_level_definitions(self.text, self.spans)
        return self._index.get(name)


def top_level_definitions(text: str, spans: list[tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """Name -> (0-based line, offset) of its first column-0 ``def``/``class``/assignment that is
    not inside a string or comment: one pass over the file, however many names are asked."""
    out: dict[str, tuple[int, int]] = {}
    line, counted = 0, 0
    for m in _TOP_LEVEL_DEFINITION.finditer(text):
        name = m.group("defined") or m.group("assigned")
        at = m.start()
        if name not in out and not _inside(spans, at):
            line += text.count("\n", counted, at)  # counted forward from the last one: linear
            counted = at
            out[name] = (line, at)
    return out


def python_symbol_fast(
    lines: list[str], spans: list[tuple[int, int]], definitions: TopLevel, name: str, limit: int
) -> tuple[int, int] | object | None:
    """Find a dotted name by parsing only the top-level statement that defines its first part.

    Parsing a whole module costs ~50x more than parsing one definition, and plans cite many
    symbols. The statement starts at a column-0 ``def``/``class``/assignment (from
    ``definitions``) and runs to the next line that starts at column 0 outside a string; a cut in
    the middle of a bracket cannot parse, so any doubt returns ``_UNSURE`` and the caller parses
    the whole file. So does a statement of more than ``limit`` characters, never parsed here.
    """
    top, *rest = name.split(".")
    where = definitions.find(top)
    if where is None:
        return _UNSURE
    first, offset = where
    # Decorators above it, which may span lines: walk back over "@" lines and the indented or
    # closing-bracket lines between them; stop at any other column-0 line.
    start, k, walked = first, first - 1, 0
    while k >= 0 and (lines[k].startswith("@") or lines[k][:1] in (" ", "\t", ")", "]", "}")):
        walked += len(lines[k]) + 1
        if walked > limit:
            return _UNSURE
        if lines[k].startswith("@"):
            start = k
        k -= 1
    size = sum(len(line) + 1 for line in lines[start:first + 1])
    stop, at = first + 1, offset + len(lines[first]) + 1
    while stop < len(lines) and (not _TOP_LEVEL_START.match(lines[stop]) or _inside(spans, at)):
        size += len(lines[stop]) + 1
        if size > limit:
            return _UNSURE
        at += len(lines[stop]) + 1
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
