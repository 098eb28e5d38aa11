"""Repository facts behind evidence: is the file there, how long is it, what does it say.

Everything here is offline and read-only, and bounded:

- a path is checked for safety *before* anything is opened: absolute paths, ``..`` escapes and
  symlinks that resolve outside the root are refused, never read;
- only regular files are opened (a FIFO or a device would block or never end);
- each cited file is read at most once, however many items cite it; files larger than
  ``MAX_TEXT_BYTES`` are streamed, never held whole in memory;
- binary files (a NUL byte in the first 8 KiB) are valid evidence as a whole, not by line.
"""

from __future__ import annotations

import ast
import bisect
import mmap
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

MAX_TEXT_BYTES = 16 * 1024 * 1024  # larger files are memory-mapped, never read whole
# A mapped file is indexed by the lines before each _CHUNK bytes: a query reads at most a chunk
# more than what it asks for (64 KiB: 16,000 entries per GiB).
_CHUNK = 1 << 16
_BINARY_SNIFF = 8192
# Folders never searched for did-you-mean suggestions (vendored or generated trees).
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"}
MAX_SUGGEST_FILES = 200_000

Kind = Literal["file", "folder", "missing", "unsafe", "special", "unreadable"]


@dataclass(slots=True)
class FileFacts:
    kind: Kind
    problem: str | None = None  # why it is unsafe or unreadable
    size: int = 0
    binary: bool = False
    line_count: int = 0
    lines: list[str] | None = None  # the text, split on \n (None when streamed or binary)
    real: str | None = None  # the resolved path that was read
    text: str | None = None  # the lines joined again, made on first use
    spans: list[tuple[int, int]] | None = None  # Python: where its strings and comments are
    mapped: mmap.mmap | None = None  # a large file, memory-mapped
    chunks: list[int] | None = None  # a large file: lines before each _CHUNK bytes
    symbols: dict[str, tuple[int, int]] | None = field(default=None)
    found: dict[str, tuple[int, list[int]]] | None = None  # needle -> (limit, lines): find, remembered
    parsed: bool = False  # symbols came from Python's ast (else from the heuristic)


def is_absolute(path: str) -> bool:
    return path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", path) is not None


def unsafe_reason(path: str) -> str | None:
    """Why a cited path may not be read, judged from its text alone (no file system access)."""
    if "\x00" in path:
        return "contains a NUL character"
    if is_absolute(path):
        return "is an absolute path; cite paths relative to the repository root"
    normal = posixpath.normpath(path.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        return "leaves the repository root"
    return None


class Repository:
    """The files under one root, read lazily and at most once each."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.realpath(root))
        self._root = str(self.root)
        self._facts: dict[str, FileFacts] = {}
        self._dirs: dict[str, str | None] = {}  # folder -> its real path, None when it leaves the root
        self._all_files: list[str] | None = None
        self._mapped: list[mmap.mmap] = []

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _inside(self, real: str) -> bool:
        return real == self._root or real.startswith(self._root.rstrip(os.sep) + os.sep)

    def _real_dir(self, folder: str) -> str | None:
        """The real path of a folder under the root (cached: many files share few folders)."""
        real = self._dirs.get(folder, "")
        if real == "":
            real = os.path.realpath(os.path.join(self._root, folder)) if folder else self._root
            real = real if self._inside(real) else None
            self._dirs[folder] = real
        return real

    # --- one file -----------------------------------------------------------------------------

    def facts(self, path: str) -> FileFacts:
        key = posixpath.normpath(path.replace("\\", "/"))
        cached = self._facts.get(key)
        if cached is None:
            cached = self._facts[key] = self._read(key)
        return cached

    def _read(self, path: str) -> FileFacts:
        reason = unsafe_reason(path)
        if reason:
            return FileFacts("unsafe", reason)
        folder, name = posixpath.split(path)
        try:
            real_folder = self._real_dir(folder)
            if real_folder is None:
                return FileFacts("unsafe", "is in a symlinked folder that leads outside the repository root")
            full = os.path.join(real_folder, name) if name not in ("", ".") else real_folder
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):  # resolve the link before anything is opened
                full = os.path.realpath(full)
                if not self._inside(full):
                    return FileFacts("unsafe", "is a symlink that leads outside the repository root")
                info = os.stat(full)
        except (FileNotFoundError, NotADirectoryError):
            return FileFacts("missing")
        except (OSError, ValueError) as err:
            return FileFacts("unreadable", getattr(err, "strerror", None) or str(err))
        if stat.S_ISDIR(info.st_mode):
            return FileFacts("folder")
        if not stat.S_ISREG(info.st_mode):
            return FileFacts("special", "is not a regular file")
        try:
            if info.st_size > MAX_TEXT_BYTES and info.st_size > 0:
                return self._stream_facts(Path(full), info.st_size)
            with open(full, "rb") as handle:
                raw = handle.read()
        except OSError as err:
            return FileFacts("unreadable", err.strerror or str(err))
        if b"\x00" in raw[:_BINARY_SNIFF]:
            return FileFacts("file", size=len(raw), binary=True)
        text = raw.decode("utf-8", errors="replace")
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # a final newline ends the last line; it does not start another
        return FileFacts("file", size=len(raw), line_count=len(lines), lines=lines, real=full)

    def _stream_facts(self, path: Path, size: int) -> FileFacts:
        """A large file is memory-mapped once: counted chunk by chunk now, and later queries read
        only the part they need (the operating system pages it in), never the whole file."""
        with open(path, "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        if b"\x00" in mapped[:_BINARY_SNIFF]:
            mapped.close()
            return FileFacts("file", size=size, binary=True, real=str(path))
        self._mapped.append(mapped)
        before: list[int] = []  # lines before each chunk
        count = 0
        for offset in range(0, size, _CHUNK):
            before.append(count)
            count += mapped[offset:offset + _CHUNK].count(b"\n")
        if size and mapped[size - 1:size] != b"\n":
            count += 1
        return FileFacts("file", size=size, line_count=count, real=str(path), mapped=mapped, chunks=before)

    def close(self) -> None:
        """Release the memory maps of large files."""
        for mapped in self._mapped:
            mapped.close()
        self._mapped.clear()

    @staticmethod
    def _line_offset(facts: FileFacts, line: int) -> int:
        """Byte offset where 0-based ``line`` starts in a mapped file (len when past the end),
        found in the one chunk that holds the line-th newline (by halving, with C-speed counts)."""
        assert facts.mapped is not None and facts.chunks is not None
        if line <= 0:
            return 0
        chunk = bisect.bisect_left(facts.chunks, line) - 1  # the last chunk with fewer newlines before it
        base = chunk * _CHUNK
        data = facts.mapped[base:base + _CHUNK]
        wanted = line - facts.chunks[chunk]  # the wanted-th newline of this chunk ends the line before
        if data.count(b"\n") < wanted:
            return facts.size
        low, high = 0, len(data) - 1
        while low < high:  # the first position whose prefix holds `wanted` newlines
            middle = (low + high) // 2
            if data.count(b"\n", 0, middle + 1) >= wanted:
                high = middle
            else:
                low = middle + 1
        return base + low + 1

    def _whole_text(self, facts: FileFacts) -> str:
        """The lines of a file held in memory, joined once (later queries reuse the text)."""
        assert facts.lines is not None
        if facts.text is None:
            facts.text = "\n".join(facts.lines)
        return facts.text

    def text(self, path: str, start: int | None = None, end: int | None = None) -> str | None:
        """The text of lines start..end (1-based, inclusive), or the whole file; None if not text."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary:
            return None
        first = (start or 1) - 1
        last = end if end is not None else facts.line_count
        if facts.lines is not None:
            if first == 0 and last >= facts.line_count:
                return self._whole_text(facts)
            return "\n".join(facts.lines[first:last])
        if facts.mapped is None:
            return None
        data = facts.mapped[self._line_offset(facts, first):self._line_offset(facts, last)]
        return data.decode("utf-8", errors="replace").replace("\r\n", "\n").removesuffix("\n")

    def find(self, path: str, needle: str, limit: int = 1000) -> list[int]:
        """1-based line numbers where ``needle`` starts (it may span lines), the first ``limit``.
        Each search reads the file up to the limit-th line found (or to its end), once per
        needle: plans cite the same text many times."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary or not needle or limit < 1:
            return []
        if facts.found is None:
            facts.found = {}
        known = facts.found.get(needle)
        if known is not None and (known[0] >= limit or len(known[1]) < known[0]):
            return known[1][:limit]
        out = self._find(facts, needle, limit)
        facts.found[needle] = (limit, out)
        return out

    def _find(self, facts: FileFacts, needle: str, limit: int) -> list[int]:
        if facts.mapped is not None:
            return self._find_mapped(facts, needle.encode("utf-8"), limit)
        if facts.lines is None:
            return []
        text = self._whole_text(facts)
        out: list[int] = []
        line, offset = 1, 0
        at = text.find(needle)
        while at >= 0:  # count newlines forward from the last hit: linear
            line += text.count("\n", offset, at)
            offset = at
            out.append(line)
            end = text.find("\n", at)  # twice on one line is one line: go on from the next
            if end < 0 or len(out) >= limit:
                break
            at = text.find(needle, end + 1)
        return out

    @staticmethod
    def _find_mapped(facts: FileFacts, needle: bytes, limit: int) -> list[int]:
        assert facts.mapped is not None and facts.chunks is not None
        out: list[int] = []
        at = facts.mapped.find(needle)
        while at >= 0:
            chunk = at // _CHUNK
            out.append(facts.chunks[chunk] + facts.mapped[chunk * _CHUNK:at].count(b"\n") + 1)
            end = facts.mapped.find(b"\n", at)
            if end < 0 or len(out) >= limit:
                break
            at = facts.mapped.find(needle, end + 1)
        return out

    # --- symbols ------------------------------------------------------------------------------

    def symbol(self, path: str, name: str) -> tuple[int, int] | None:
        """Where ``name`` (dotted) is defined in a file: (first line, last line), or None."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary:
            return None
        python = path.endswith((".py", ".pyi"))
        if python and facts.lines is not None:
            text = self._whole_text(facts)
            if facts.spans is None:
                facts.spans = string_spans(text)
            found = python_symbol_fast(facts.lines, text, facts.spans, name)
            if found is not _UNSURE:
                return found  # type: ignore[return-value]
        table = self.symbols(path)
        return lookup_symbol(table, name, python and facts.parsed)

    def symbols(self, path: str) -> dict[str, tuple[int, int]]:
        """Definitions in a file: dotted name -> (first line, last line)."""
        facts = self.facts(path)
        if facts.symbols is None:
            text = self._whole_text(facts) if facts.lines is not None else ""
            found = python_symbols(text) if path.endswith((".py", ".pyi")) else None
            facts.parsed = found is not None
            facts.symbols = found if found is not None else heuristic_symbols(facts.lines or [])
        return facts.symbols

    # --- the whole tree, for suggestions ------------------------------------------------------------

    def all_files(self) -> list[str]:
        """Relative POSIX paths of files under the root (bounded; skips VCS and vendored trees)."""
        if self._all_files is None:
            out: list[str] = []
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                rel = os.path.relpath(folder, self.root)
                for name in sorted(files):
                    out.append(name if rel == "." else f"{Path(rel).as_posix()}/{name}")
                if len(out) >= MAX_SUGGEST_FILES:
                    break
            self._all_files = out
        return self._all_files

    def suggest(self, path: str) -> str | None:
        """A likely intended path for a missing one: case differences, the same name elsewhere,
        or a close spelling."""
        import difflib

        files = [f for f in self.all_files() if f != posixpath.normpath(path)]  # never the path itself
        lowered = path.lower()
        for candidate in files:
            if candidate.lower() == lowered:
                return candidate
        name = posixpath.basename(lowered)
        same_name = [c for c in files if posixpath.basename(c).lower() == name]
        if same_name:
            return max(same_name, key=lambda c: difflib.SequenceMatcher(None, c, path).ratio())
        close = difflib.get_close_matches(path, files, n=1, cutoff=0.75)
        return close[0] if close else None


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
