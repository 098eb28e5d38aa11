"""Repository facts behind evidence: is the file there, how long is it, what does it say.

Everything here is offline and read-only, and bounded:

- a path is checked for safety *before* anything is opened: absolute paths, ``..`` escapes and
  symlinks that resolve outside the root are refused, never read;
- only regular files are read (a FIFO or a device would block or never end), judged by fstat of
  the opened descriptor: files are opened without blocking and without following a final symlink,
  so one swapped between the look and the open is refused, not waited on or followed;
- each cited file is read at most once, however many items cite it; files larger than
  ``MAX_TEXT_BYTES`` are streamed, never held whole in memory;
- binary files (a NUL byte in the first 8 KiB) are valid evidence as a whole, not by line.
"""

from __future__ import annotations

import bisect
import errno
import mmap
import os
import posixpath
import stat
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from compiler.core.paths import is_absolute, leaves_root
from compiler.core.pins import MAX_SEARCH_BYTES as MAX_PIN_SEARCH_BYTES
from compiler.repo import sections
from compiler.repo import symbols as _symbols
from compiler.repo.discover import SKIPPED_FOLDERS  # the folders no walk of the tree enters
from compiler.repo.symbols import (
    _UNSURE,
    TopLevel,
    heuristic_symbols,
    lookup_symbol,
    python_symbol_fast,
    python_symbols,
    python_symbols_by_statement,
    string_spans,
)

if TYPE_CHECKING:
    from compiler.core.suggest import Budget, PathSuggester, Suggester

MAX_TEXT_BYTES = 16 * 1024 * 1024  # larger files are memory-mapped, never read whole
# A mapped file is indexed by the lines before each _CHUNK bytes: a query reads at most a chunk
# more than what it asks for (64 KiB: 16,000 entries per GiB).
_CHUNK = 1 << 16
_BINARY_SNIFF = 8192
# Folders never searched for did-you-mean suggestions (vendored or generated trees).
MAX_SUGGEST_ENTRIES = 20_000
"""Files and folders the did-you-mean walk may see: 0.15 s with a warm cache, up to 0.5 s cold here
(6-25 us an entry; the 200,000 files allowed before took 3-18 s, from ``/``). A repository larger
than that is searched in its shallower part only."""

Kind = Literal["file", "folder", "missing", "unsafe", "special", "unreadable"]

# Evidence is opened without blocking (a FIFO swapped in opens at once instead of waiting for a
# writer; a read that would wait raises), never as a controlling terminal, and without following
# a symlink at the end of a path that was already resolved.
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
_LINK_ERRNOS = {errno.ELOOP, errno.EMLINK}  # O_NOFOLLOW met a symlink (EMLINK on FreeBSD)


def _read_all(fd: int, size: int) -> bytes | None:
    """The bytes of an opened regular file, to its end; None if it grows past MAX_TEXT_BYTES
    meanwhile (a file of /proc says 0 bytes and has more: it is read to its end all the same)."""
    parts: list[bytes] = []
    total, cap = 0, max(size, MAX_TEXT_BYTES)
    while True:
        part = os.read(fd, max(size - total, _CHUNK))
        if not part:
            return b"".join(parts)
        parts.append(part)
        total += len(part)
        if total > cap:
            return None


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
    definitions: TopLevel | None = None  # Python: where its column-0 definitions are
    resolved: dict[str, tuple[int, int] | None] | None = None  # symbol -> where: symbol(), remembered
    mapped: mmap.mmap | None = None  # a large file, memory-mapped
    chunks: list[int] | None = None  # a large file: lines before each _CHUNK bytes
    symbols: dict[str, tuple[int, int]] | None = field(default=None)
    found: dict[str, tuple[int, list[int]]] | None = None  # needle -> (limit, lines): find, remembered
    parsed: bool = False  # symbols are exact names (Python's ast, TOML, Markdown), not the heuristic's
    not_parsed: str | None = None  # why a file of a structured kind (TOML) gave no symbols
    # pins: the lines as a pin reads them, and length -> pin -> where (find_pinned, remembered)
    pinned: tuple[list[bytes], dict[int, dict[str, list[int]]]] | None = None


def unsafe_reason(path: str) -> str | None:
    """Why a cited path may not be read, judged from its text alone (no file system access)."""
    if "\x00" in path:
        return "contains a NUL character"
    if is_absolute(path):
        return "is an absolute path; cite paths relative to the repository root"
    if leaves_root(path):
        return "leaves the repository root"
    return None


def _is_text(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # the surrogates Python gives the raw bytes of such a name
        return False
    return True


class Repository:
    """The files under one root, read lazily and at most once each."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.realpath(root))
        self._root = str(self.root)
        self._facts: dict[str, FileFacts] = {}
        self._dirs: dict[str, str | None] = {}  # folder -> its real path, None when it leaves the root
        self._all_files: list[str] | None = None
        self._paths: PathSuggester | None = None
        self._folders: Suggester | None = None
        self._symbol_suggesters: dict[str, Suggester] = {}
        self._budget: Budget | None = None
        self._mapped: list[mmap.mmap] = []
        self._pin_budget = MAX_PIN_SEARCH_BYTES  # bytes the search for moved pinned lines may still hash

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

    def forget(self, path: str) -> None:
        """Drop what was read of a file (a search through a whole tree keeps only its hits)."""
        facts = self._facts.pop(posixpath.normpath(path.replace("\\", "/")), None)
        if facts is not None and facts.mapped is not None:
            facts.mapped.close()

    def facts(self, path: str) -> FileFacts:
        key = posixpath.normpath(path.replace("\\", "/"))
        cached = self._facts.get(key)
        if cached is None:
            cached = self._facts[key] = self._read(key)
        return cached

    def _read(self, path: str) -> FileFacts:
        got = self._read_bytes(path)
        return got if isinstance(got, FileFacts) else self._text_facts(*got)

    def _read_bytes(self, path: str) -> FileFacts | tuple[bytes, str]:
        """The bytes of a file held in memory and the real path they were read from; or its facts
        when there are no such bytes (missing, unsafe, special, unreadable, a folder, or a large
        file, which is memory-mapped instead)."""
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
        # The file may be swapped (for a FIFO, a device, a symlink) between that look and the
        # open: open without blocking and without following a link, then judge what was opened.
        try:
            fd = os.open(full, _OPEN_FLAGS)
        except OSError as err:
            if err.errno in _LINK_ERRNOS:
                return FileFacts("unsafe", "was replaced by a symlink while it was being checked")
            return FileFacts("unreadable", err.strerror or str(err))
        try:
            opened = os.fstat(fd)
            if stat.S_ISDIR(opened.st_mode):
                return FileFacts("folder")
            if not stat.S_ISREG(opened.st_mode):
                return FileFacts("special", "is not a regular file")
            if opened.st_size > MAX_TEXT_BYTES and opened.st_size > 0:
                return self._stream_facts(fd, full)
            raw = _read_all(fd, opened.st_size)
        except BlockingIOError:  # a "regular" file whose read waits for data (/proc/kmsg)
            return FileFacts("unreadable", "reading it would block")
        except (OSError, ValueError) as err:  # ValueError: mmap of a file emptied meanwhile
            return FileFacts("unreadable", getattr(err, "strerror", None) or str(err))
        finally:
            os.close(fd)
        if raw is None:
            return FileFacts("unreadable", f"it grew past {MAX_TEXT_BYTES >> 20} MiB while it was being read")
        return raw, full

    @staticmethod
    def _text_facts(raw: bytes, full: str) -> FileFacts:
        """A file held in memory: binary, or its text as lines (undecodable bytes as U+FFFD, CRLF
        as LF)."""
        if b"\x00" in raw[:_BINARY_SNIFF]:
            return FileFacts("file", size=len(raw), binary=True)
        text = raw.decode("utf-8", errors="replace")
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # a final newline ends the last line; it does not start another
        return FileFacts("file", size=len(raw), line_count=len(lines), lines=lines, real=full)

    def _stream_facts(self, fd: int, path: str) -> FileFacts:
        """A large file is memory-mapped once: counted chunk by chunk now, and later queries read
        only the part they need (the operating system pages it in), never the whole file."""
        mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        size = len(mapped)
        if b"\x00" in mapped[:_BINARY_SNIFF]:
            mapped.close()
            return FileFacts("file", size=size, binary=True, real=path)
        self._mapped.append(mapped)
        before: list[int] = []  # lines before each chunk
        count = 0
        for offset in range(0, size, _CHUNK):
            before.append(count)
            count += mapped[offset:offset + _CHUNK].count(b"\n")
        if size and mapped[size - 1:size] != b"\n":
            count += 1
        return FileFacts("file", size=size, line_count=count, real=path, mapped=mapped, chunks=before)

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

    def search(self, path: str, needle: str, limit: int = 1000) -> list[int]:
        """What ``find`` answers, for a search through many files that mostly do not hold the
        needle (`where`): the file's bytes are looked at first, and a file whose bytes do not hold
        the needle's UTF-8 is answered at once, and nothing of it is kept: it is never decoded or
        split into lines. Sound because a needle without U+FFFD can occur in the text only where
        its UTF-8 occurs in the bytes (decoding maps valid UTF-8 to itself and everything else to
        U+FFFD; CRLF as LF only drops a CR before a line's end, and a needle never holds a LF);
        any other needle, a file already read, and a large (memory-mapped) file go to ``find``.
        tests/test_repository.py holds the two equal."""
        key = posixpath.normpath(path.replace("\\", "/"))
        if key in self._facts or not needle or limit < 1 or "\ufffd" in needle:
            return self.find(key, needle, limit)
        try:
            pattern = needle.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a name's raw bytes): find says where
            return self.find(key, needle, limit)
        got = self._read_bytes(key)
        if isinstance(got, FileFacts):
            self._facts[key] = got
            return self.find(key, needle, limit)
        if pattern not in got[0]:
            return []
        self._facts[key] = self._text_facts(*got)
        return self.find(key, needle, limit)

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

    def find_pinned(self, path: str, length: int, pin: str) -> list[int] | None:
        """The first lines of the ranges of ``length`` lines of a file whose pin is ``pin`` (the
        first six), or None when the file is too large to search that way: over MAX_TEXT_BYTES,
        or past what is left of the run's MAX_PIN_SEARCH_BYTES. Each file and length is hashed
        once, however many entries ask."""
        from compiler.core import pins

        facts = self.facts(path)
        if facts.lines is None:
            return None
        if facts.pinned is None:
            facts.pinned = (pins.normal_lines(facts.lines), {})
        normal, indexes = facts.pinned
        found = indexes.get(length)
        if found is None:
            cost = pins.search_cost(normal, length)
            if cost > self._pin_budget:
                return None
            self._pin_budget -= cost
            found = indexes[length] = pins.index(normal, length)
        return found.get(pin, [])[:6]

    def symbol(self, path: str, name: str) -> tuple[int, int] | None:
        """Where ``name`` (dotted) is defined in a file: (first line, last line), or None (not
        found, or a Python file too large to parse whole: see ``too_large_to_parse``)."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary:
            return None
        if facts.resolved is None:
            facts.resolved = {}
        if name not in facts.resolved:  # checks and compile both ask: the answer is kept
            facts.resolved[name] = self._symbol(facts, path, name)
        return facts.resolved[name]

    def _symbol(self, facts: FileFacts, path: str, name: str) -> tuple[int, int] | None:
        python = path.endswith((".py", ".pyi"))
        if python and facts.lines is not None:
            if facts.spans is None or facts.definitions is None:
                text = self._whole_text(facts)
                facts.spans = string_spans(text)
                facts.definitions = TopLevel(text, facts.spans)
            found = python_symbol_fast(facts.lines, facts.spans, facts.definitions, name, _symbols.MAX_PARSE_BYTES)
            if found is not _UNSURE:
                return found  # type: ignore[return-value]
            if self.too_large_to_parse(path):
                return None
        table = self.symbols(path)
        if path.endswith(sections.TOML_SUFFIXES):  # tool."evidence-plan" is tool.evidence-plan
            name = ".".join(sections.symbol_key(name))
        return lookup_symbol(table, name, facts.parsed)

    def too_large_to_parse(self, path: str) -> bool:
        """A Python or TOML file held in memory but over MAX_PARSE_BYTES: Python's symbols only
        from its top-level statements, never from a parse of the whole file; TOML's none."""
        facts = self.facts(path)
        return (facts.kind == "file" and facts.lines is not None
                and path.endswith((".py", ".pyi", *sections.TOML_SUFFIXES)) and facts.size > _symbols.MAX_PARSE_BYTES)

    def not_parsed(self, path: str) -> str | None:
        """Why a file whose symbols come from its syntax alone has none: not valid TOML."""
        self.symbols(path)
        return self.facts(path).not_parsed

    def symbols(self, path: str) -> dict[str, tuple[int, int]]:
        """Definitions in a file: dotted name -> (first line, last line). A Python file too large to
        parse whole gets the definition-looking lines that any other file gets."""
        facts = self.facts(path)
        if facts.symbols is None:
            text = self._whole_text(facts) if facts.lines is not None else ""
            lines = facts.lines or []
            found: dict[str, tuple[int, int]] | None = None
            if self.too_large_to_parse(path):
                found = {} if path.endswith(sections.TOML_SUFFIXES) else None
            elif path.endswith((".py", ".pyi")):
                found = python_symbols(text)
                if found is None and facts.lines is not None:  # does not parse: statement by statement
                    facts.spans = facts.spans if facts.spans is not None else string_spans(text)
                    facts.symbols = python_symbols_by_statement(lines, facts.spans)
                    return facts.symbols  # not parsed: a dotted name may still fall back to its last part
            elif path.endswith(sections.TOML_SUFFIXES):
                table = sections.toml_symbols(text)
                if isinstance(table, str):
                    facts.not_parsed, table = f"it is not valid TOML ({table})", {}
                found = table
            elif path.lower().endswith(sections.MARKDOWN_SUFFIXES):
                found = sections.markdown_symbols(lines)
            facts.parsed = found is not None
            facts.symbols = found if found is not None else heuristic_symbols(lines)
        return facts.symbols

    # --- the whole tree, for suggestions ------------------------------------------------------------

    def all_files(self) -> list[str]:
        """Relative POSIX paths of files under the root, in ``os.walk`` order (folders sorted, a
        folder's files before its subfolders), skipping VCS and vendored trees and never following
        symlinked folders. Bounded: the walk goes breadth first and stops before the folder that
        would take it past MAX_SUGGEST_ENTRIES files and folders seen, so a huge tree (or ``/``)
        gives its shallower part, the same on every run."""
        if self._all_files is None:
            found: list[tuple[tuple[str, ...], str]] = []
            queue: deque[tuple[str, ...]] = deque([()])
            seen = 0
            while queue:
                parts = queue.popleft()
                entries: list[os.DirEntry[str]] = []
                try:
                    with os.scandir(os.path.join(self._root, *parts)) as listing:
                        for entry in listing:
                            entries.append(entry)
                            if seen + len(entries) > MAX_SUGGEST_ENTRIES:
                                break
                except OSError:
                    continue  # as os.walk: a folder that cannot be listed is passed over
                seen += len(entries)
                if seen > MAX_SUGGEST_ENTRIES:
                    break
                for entry in sorted(entries, key=lambda e: e.name):
                    if not _is_text(entry.name):
                        continue  # a name that is not UTF-8: no plan can cite it, and no output hold it
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        found.append((parts, entry.name))
                    elif entry.name not in SKIPPED_FOLDERS and not entry.is_symlink():
                        queue.append((*parts, entry.name))
            found.sort()  # breadth-first order to os.walk's: (folder parts, name)
            self._all_files = ["/".join((*parts, name)) for parts, name in found]
        return self._all_files

    def suggest(self, path: str) -> str | None:
        """A likely intended path for a missing one: case differences, the same name elsewhere,
        or a close spelling (see compiler/core/suggest.py; bounded, like every suggestion)."""
        if self._paths is None:
            from compiler.core.suggest import PathSuggester

            self._paths = PathSuggester(self.all_files(), budget=self._suggestion_budget())
        return self._paths.suggest(path)

    def suggest_folder(self, path: str) -> str | None:
        """The folder closest to a missing one (a test folder a proof names), among the folders
        that hold the files ``all_files`` lists, for a did-you-mean."""
        if self._folders is None:
            from compiler.core.suggest import Suggester

            folders: set[str] = set()
            for name in self.all_files():
                folder = posixpath.dirname(name)
                while folder and folder not in folders:  # each folder and its parents, once
                    folders.add(folder)
                    folder = posixpath.dirname(folder)
            self._folders = Suggester(folders, budget=self._suggestion_budget())
        return self._folders.closest(posixpath.normpath(path.replace("\\", "/")))

    def suggest_symbol(self, path: str, name: str) -> str | None:
        """The symbol of a file closest to ``name``, for a did-you-mean."""
        key = posixpath.normpath(path.replace("\\", "/"))
        suggester = self._symbol_suggesters.get(key)
        if suggester is None:
            from compiler.core.suggest import Suggester

            suggester = Suggester(self.symbols(path), budget=self._suggestion_budget())
            self._symbol_suggesters[key] = suggester
        return suggester.closest(name)

    def _suggestion_budget(self) -> Budget:
        """One budget for all suggestions about this repository (paths and symbols alike)."""
        if self._budget is None:
            from compiler.core.suggest import Budget

            self._budget = Budget()
        return self._budget
