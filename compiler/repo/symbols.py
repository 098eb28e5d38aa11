"""Where a file defines a name: Python through its ``ast`` (parsing as little as it can; a module
that does not parse, statement by statement), any other file through definition-looking lines and
``#`` headings (TOML tables and Markdown sections are compiler/repo/sections.py's).

Every function here is linear in its input: the patterns applied to evidence files are anchored
or replaced by plain scans, because anyone can write the files a plan cites.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections.abc import Iterator

from compiler.core.lazy import lazy

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
    top = name.split(".", 1)[0]
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
    if len(tree.body) != 1 or _names(tree.body[0]) != [top]:
        return _UNSURE
    # What the whole module's walk would give, for the names this statement defines: the first
    # direct definition of a module wins over any other (see python_symbols), unless it is an
    # overload stub, whose implementation comes in a later statement.
    best: dict[str, tuple[int, int, int]] = {}
    _walk(tree.body, start, best)
    found = best.get(name)
    if found is None or best[top][0] != _DIRECT:
        return _UNSURE
    return found[1], found[2]


def _names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


# How a name is defined, the better first: a definition directly in its module's or class's body;
# a function or class inside an if/elif/else, try/except/else/finally or with block of it (``if
# TYPE_CHECKING:``, ``try: import x except ImportError: def x(): ...``); an assignment in such a
# block (``except ImportError: x = None`` stands in for the function); an ``@overload`` stub (its
# implementation, when one follows, is the better answer); a re-export ``import x as x`` or ``from m
# import x as y`` (at the import: imports are not followed into other files). Among equals, the
# first in the file.
_DIRECT, _IN_BLOCK, _ASSIGNED_IN_BLOCK, _OVERLOAD, _IMPORTED = range(5)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _block_bodies(node: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(node, ast.If):  # an elif is an If in the orelse
        return [node.body, node.orelse]
    if isinstance(node, (ast.Try, ast.TryStar)):
        return [node.body, *(handler.body for handler in node.handlers), node.orelse, node.finalbody]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [node.body]
    return []


def _is_overload(node: ast.stmt) -> bool:
    """``@overload``, ``@typing.overload``, ``@typing_extensions.overload`` (any ``x.overload``)."""
    return isinstance(node, _FUNCTIONS) and any(
        (isinstance(d, ast.Name) and d.id == "overload") or (isinstance(d, ast.Attribute) and d.attr == "overload")
        for d in node.decorator_list)


def _walk(body: list[ast.stmt], offset: int, best: dict[str, tuple[int, int, int]]) -> None:
    """Offer every name that ``body`` defines to ``best`` (name -> (rank, first, last line)), in
    source order: functions, classes and methods (dotted, ``Class.method``, ``outer.inner``),
    module and class assignments (not a function's locals), definitions in blocks, ``as`` imports.
    Iterative: deeply nested code does not recurse here."""
    # (prefix, inside a function, inside a block, the statements left)
    stack: list[tuple[str, bool, bool, Iterator[ast.stmt]]] = [("", False, False, iter(body))]
    while stack:
        prefix, local, blocked, nodes = stack[-1]
        node = next(nodes, None)
        if node is None:
            stack.pop()
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if not local:
                for alias in node.names:  # `import x as x`, `from m import a as b`; not `import numpy as np`
                    reexport = isinstance(node, ast.ImportFrom) or alias.name.rsplit(".", 1)[-1] == alias.asname
                    if alias.asname and reexport:
                        _offer(best, prefix + alias.asname, _IMPORTED, alias.lineno + offset,
                               (alias.end_lineno or alias.lineno) + offset)
            continue
        bodies = _block_bodies(node)
        if bodies:
            stack.append((prefix, local, True, itertools.chain.from_iterable(bodies)))
            continue
        names = _names(node)
        defines = isinstance(node, (*_FUNCTIONS, ast.ClassDef))
        if not names or (local and not defines):
            continue
        rank = (_OVERLOAD if _is_overload(node) else _DIRECT if not blocked
                else _IN_BLOCK if defines else _ASSIGNED_IN_BLOCK)
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) + offset
        last = (node.end_lineno or node.lineno) + offset
        for name in names:
            _offer(best, prefix + name, rank, first, last)
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):  # methods, nested functions and classes
            stack.append((prefix + node.name + ".", not isinstance(node, ast.ClassDef), False, iter(node.body)))


def _offer(best: dict[str, tuple[int, int, int]], name: str, rank: int, first: int, last: int) -> None:
    known = best.get(name)
    if known is None or rank < known[0]:
        best[name] = (rank, first, last)


def python_symbols(text: str) -> dict[str, tuple[int, int]] | None:
    """Functions, classes, methods, nested functions, assignments and ``as`` imports of a Python
    module, with dotted names. None when the file does not parse (see python_symbols_by_statement)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    best: dict[str, tuple[int, int, int]] = {}
    _walk(tree.body, 0, best)
    return {name: (first, last) for name, (_, first, last) in best.items()}


# A column-0 line that goes on the statement before it rather than starting one.
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")


def python_symbols_by_statement(lines: list[str], spans: list[tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """The symbols of a module that does not parse: each top-level statement (from a column-0 line
    outside strings to the next; decorators, ``elif``/``else``/``except``/``finally`` go with theirs)
    parsed alone, so one broken function loses only its own ranges; a statement that does not
    parse gives its definition-looking lines (heuristic_symbols), after all that parsed."""
    starts: list[int] = []
    offset, decorating = 0, False
    for n, line in enumerate(lines):
        if _TOP_LEVEL_START.match(line) and not _inside(spans, offset) and not _CONTINUES.match(line):
            if not decorating:  # the definition after decorators is their statement
                starts.append(n)
            decorating = line.startswith("@")
        offset += len(line) + 1
    best: dict[str, tuple[int, int, int]] = {}
    broken: list[tuple[int, int]] = []
    for k, first in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        try:
            tree = ast.parse("\n".join(lines[first:stop]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            broken.append((first, stop))
            continue
        _walk(tree.body, first, best)
    out = {name: (first, last) for name, (_, first, last) in best.items()}
    if starts and starts[0] > 0:
        broken.insert(0, (0, starts[0]))
    for first, stop in broken:
        for name, (a, b) in heuristic_symbols(lines[first:stop]).items():
            out.setdefault(name, (a + first, b + first))
    return out


_DEFINITION = lazy(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:def|class|function|fn|func|struct|enum|interface|trait|type|module|impl|const|let|var|val"
    r"|object|record|protocol|macro|sub|procedure)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)
_ASSIGNMENT = lazy(r"^\s*([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=(?!=)")


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
    definition, assignment = _DEFINITION().match, _ASSIGNMENT().match
    for n, line in enumerate(lines, 1):
        m = definition(line)
        name = m.group(1) if m else heading(line) if line.startswith("#") else None
        if name is None:
            m = assignment(line)
            name = m.group(1) if m else None
        if name is not None:
            out.setdefault(name, (n, n))
    return out


def imported_names(text: str) -> dict[str, tuple[int, str, str]]:
    """Where a module's ``from M import name`` (at its top level, or in an if/try/with block there)
    takes each name from: name as the module binds it -> (the import's level of dots, ``M``, the
    name there); the first import of a name; empty when the module does not parse. For a
    did-you-mean: such a name is no definition of the module, but the module it comes from may
    define it."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, tuple[int, str, str]] = {}
    stack = [iter(tree.body)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                out.setdefault(alias.asname or alias.name, (node.level, node.module, alias.name))
        stack.extend(iter(body) for body in reversed(_block_bodies(node)))
    return out


def lookup_symbol(symbols: dict[str, tuple[int, int]], name: str, exact: bool) -> tuple[int, int] | None:
    """``name`` in a file's symbols; unless they are ``exact`` (Python that parsed, TOML, Markdown),
    a dotted name not there is its last part (``Accounts.create`` -> ``create``)."""
    if name in symbols:
        return symbols[name]
    if not exact and "." in name:  # the heuristic has no nesting: Accounts.create -> create
        return symbols.get(name.rsplit(".", 1)[1])
    return None
