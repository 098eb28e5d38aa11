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
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

MAX_TEXT_BYTES = 16 * 1024 * 1024  # larger files are streamed for line counts and text searches
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
    symbols: dict[str, tuple[int, int]] | None = field(default=None)


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
        self._facts: dict[str, FileFacts] = {}
        self._all_files: list[str] | None = None

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
        full = self.root / path
        try:
            resolved = Path(os.path.realpath(full))
        except (OSError, ValueError) as err:
            return FileFacts("unreadable", str(err))
        if resolved != self.root and self.root not in resolved.parents:
            return FileFacts("unsafe", "is a symlink that leads outside the repository root")
        try:
            info = os.stat(resolved)
        except FileNotFoundError:
            return FileFacts("missing")
        except NotADirectoryError:
            return FileFacts("missing")
        except OSError as err:
            return FileFacts("unreadable", err.strerror or str(err))
        if stat.S_ISDIR(info.st_mode):
            return FileFacts("folder")
        if not stat.S_ISREG(info.st_mode):
            return FileFacts("special", "is not a regular file")
        try:
            if info.st_size > MAX_TEXT_BYTES:
                return self._stream_facts(resolved, info.st_size)
            with open(resolved, "rb") as handle:
                raw = handle.read()
        except OSError as err:
            return FileFacts("unreadable", err.strerror or str(err))
        if b"\x00" in raw[:_BINARY_SNIFF]:
            return FileFacts("file", size=len(raw), binary=True)
        text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # a final newline ends the last line; it does not start another
        return FileFacts("file", size=len(raw), line_count=len(lines), lines=lines)

    @staticmethod
    def _stream_facts(path: Path, size: int) -> FileFacts:
        count = 0
        last = b"\n"
        with open(path, "rb") as handle:
            head = handle.read(_BINARY_SNIFF)
            if b"\x00" in head:
                return FileFacts("file", size=size, binary=True)
            chunk = head
            while chunk:
                count += chunk.count(b"\n")
                last = chunk[-1:]
                chunk = handle.read(1 << 20)
        if last != b"\n":
            count += 1
        return FileFacts("file", size=size, line_count=count)

    def text(self, path: str, start: int | None = None, end: int | None = None) -> str | None:
        """The text of lines start..end (1-based, inclusive), or the whole file; None if not text."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary:
            return None
        first = (start or 1) - 1
        last = end if end is not None else facts.line_count
        if facts.lines is not None:
            return "\n".join(facts.lines[first:last])
        parts = []
        with open(self.root / path, "rb") as handle:  # a large file: stream the lines wanted
            for n, raw in enumerate(handle):
                if n >= last:
                    break
                if n >= first:
                    parts.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        return "\n".join(parts)

    def find(self, path: str, needle: str) -> list[int]:
        """1-based line numbers where ``needle`` starts (it may span lines)."""
        text = self.text(path)
        if text is None or not needle:
            return []
        starts = [m.start() for m in re.finditer(re.escape(needle), text)]
        if not starts:
            return []
        lines, out, offset = text.split("\n"), [], 0
        n = 0
        for pos in starts:  # walk line offsets forward once: linear in the file
            while n < len(lines) and offset + len(lines[n]) < pos:
                offset += len(lines[n]) + 1
                n += 1
            out.append(n + 1)
        return out

    # --- symbols ------------------------------------------------------------------------------

    def symbols(self, path: str) -> dict[str, tuple[int, int]]:
        """Definitions in a file: dotted name -> (first line, last line)."""
        facts = self.facts(path)
        if facts.symbols is None:
            text = self.text(path) or ""
            found = python_symbols(text) if path.endswith((".py", ".pyi")) else None
            facts.symbols = found if found is not None else heuristic_symbols(text)
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

        files = self.all_files()
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
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
                if isinstance(node, ast.ClassDef):  # methods and class attributes; not locals
                    stack.append((prefix + node.name + ".", node.body))
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
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
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def heuristic_symbols(text: str) -> dict[str, tuple[int, int]]:
    """Definition-looking lines in any language: ``def|class|function|fn|func|struct|... NAME``,
    ``NAME = ...`` at any indent, and Markdown headings. Each maps to its one line."""
    out: dict[str, tuple[int, int]] = {}
    for n, line in enumerate(text.split("\n"), 1):
        for pattern in (_DEFINITION, _HEADING, _ASSIGNMENT):
            m = pattern.match(line)
            if m:
                out.setdefault(m.group(1), (n, n))
                break
    return out


def lookup_symbol(symbols: dict[str, tuple[int, int]], name: str, python: bool) -> tuple[int, int] | None:
    if name in symbols:
        return symbols[name]
    if not python and "." in name:  # the heuristic has no nesting: Accounts.create -> create
        return symbols.get(name.rsplit(".", 1)[1])
    return None
