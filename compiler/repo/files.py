"""The files under one root, read safely and at most once each: what each is, its lines, where a
text occurs in it.

Everything here is offline and read-only, and bounded:

- a path is checked for safety *before* anything is opened: absolute paths, ``..`` escapes and
  symlinks that resolve outside the root are refused, never read;
- only regular files are read (a FIFO or a device would block or never end), judged by fstat of
  the opened descriptor: files are opened without blocking and without following a final symlink,
  so one swapped between the look and the open is refused, not waited on or followed;
- each cited file is read at most once, however many items cite it; files larger than
  ``MAX_TEXT_BYTES`` are memory-mapped, never held whole in memory;
- binary files (a NUL byte in the first 8 KiB) are valid evidence as a whole, not by line.

What a file defines and what a missing name probably meant are compiler/repo/repository.py's.
"""

from __future__ import annotations

import bisect
import errno
import mmap
import os
import posixpath
import stat
from typing import TYPE_CHECKING, Literal, Self

from compiler.core.paths import READ_FLAGS, is_absolute, leaves_root, open_flag

if TYPE_CHECKING:
    from compiler.repo.symbols import TopLevel

MAX_TEXT_BYTES = 16 * 1024 * 1024  # larger files are memory-mapped, never read whole
# A mapped file is indexed by the lines before each _CHUNK bytes: a query reads at most a chunk
# more than what it asks for (64 KiB: 16,000 entries per GiB).
_CHUNK = 1 << 16
_BINARY_SNIFF = 8192

Kind = Literal["file", "folder", "missing", "unsafe", "special", "unreadable"]

# Evidence is opened as every file read is (core/paths.py: READ_FLAGS), and without following a
# symlink at the end of a path that was already resolved.
_OPEN_FLAGS = READ_FLAGS | open_flag("O_NOFOLLOW")
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


class FileFacts:
    """What is known of one file, filled in as it is asked for: a kind, and for a file its size,
    lines or mapping. A plain class with class-level defaults rather than a dataclass: making a
    dataclass costs about 1.4 ms at every start of `check`, for a record built in one place."""

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
    symbols: dict[str, tuple[int, int]] | None = None
    names: dict[str, list[tuple[int, int]]] | None = None  # Markdown: every name a section answers to
    found: dict[str, tuple[int, list[int]]] | None = None  # needle -> (limit, lines): find, remembered
    parsed: bool = False  # symbols are exact names (Python's ast, TOML, Markdown), not the heuristic's
    not_parsed: str | None = None  # why a file of a structured kind (TOML) gave no symbols
    # pins: the lines as a pin reads them, and length -> pin -> where (find_pinned, remembered)
    pinned: tuple[list[bytes], dict[int, dict[str, list[int]]]] | None = None

    def __init__(self, kind: Kind, problem: str | None = None, *, size: int = 0, binary: bool = False,
                 line_count: int = 0, lines: list[str] | None = None, real: str | None = None,
                 mapped: mmap.mmap | None = None, chunks: list[int] | None = None) -> None:
        self.kind = kind
        self.problem, self.size, self.binary, self.line_count = problem, size, binary, line_count
        self.lines, self.real, self.mapped, self.chunks = lines, real, mapped, chunks


def unsafe_reason(path: str) -> str | None:
    """Why a cited path may not be read, judged from its text alone (no file system access)."""
    if "\x00" in path:
        return "contains a NUL character"
    if is_absolute(path):
        return "is an absolute path; cite paths relative to the repository root"
    if leaves_root(path):
        return "leaves the repository root"
    return None


class Files:
    """The files under one root, read lazily and at most once each."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.realpath(root)
        self._facts: dict[str, FileFacts] = {}
        self._dirs: dict[str, str | None] = {}  # folder -> its real path, None when it leaves the root
        self._mapped: list[mmap.mmap] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)

    def _real_dir(self, folder: str) -> str | None:
        """The real path of a folder under the root (cached: many files share few folders)."""
        real = self._dirs.get(folder, "")
        if real == "":
            real = os.path.realpath(os.path.join(self.root, folder)) if folder else self.root
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
        tests/repo/test_repository.py holds the two equal."""
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
