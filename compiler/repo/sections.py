"""Where a TOML file defines a table or a key, and where a Markdown section runs: the symbols of
files that are not code (``pyproject.toml::tool.pytest.ini_options``, ``README.md::Installation``).

A TOML file is read by the standard library's ``tomllib`` first: a file that is not TOML has no
symbols (the caller reports why), and a name is a symbol only when the parsed document has it.
``tomllib`` gives no positions, so lines come from one scan of the file that follows its strings
and brackets, so that a line inside a multi-line string or array is never taken for a header or a
key. Both scans are linear, bounded by the file, and recurse on nothing.
"""

from __future__ import annotations

import re
from typing import Any

from compiler.repo.symbols import heading, heuristic_symbols

TOML_SUFFIXES = (".toml",)
MARKDOWN_SUFFIXES = (".md", ".markdown")
MAX_KEY_PARTS = 64
"""Parts of a dotted TOML name that are named as symbols (``a.b.c`` has three): deeper tables and
keys are valid TOML but no symbols, so that a header of 10,000 parts costs no 10,000 names."""

# --- TOML ---------------------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_VALUE_SPECIAL = re.compile(r"[\"'#\[\]{}]")
_BASIC_END = re.compile(r'(?:[^"\\\n]++|\\.)*+"')  # the rest of a basic string, to its closing quote
_MULTI_BASIC_END = re.compile(r'(?:[^"\\]++|\\.|"(?!""))*+"""')  # ... of a multi-line one, to its first """


def toml_key(text: str, at: int = 0) -> tuple[tuple[str, ...], int] | None:
    """A dotted TOML key (``a."b.c".d``) read from ``text`` at ``at``: its parts and where it
    ends; None when it is no key. Quoted parts are taken as they are written but for their
    quotes and the common escapes (enough to name a table: tomllib has checked the file)."""
    parts: list[str] = []
    size = len(text)
    while True:
        while at < size and text[at] in " \t":
            at += 1
        if at < size and text[at] == '"':
            body = _BASIC_END.match(text, at + 1)
            if body is None:
                return None
            parts.append(text[at + 1:body.end() - 1].replace('\\"', '"').replace("\\\\", "\\"))
            at = body.end()
        elif at < size and text[at] == "'":
            end = text.find("'", at + 1)
            if end < 0:
                return None
            parts.append(text[at + 1:end])
            at = end + 1
        else:
            bare = _BARE_KEY.match(text, at)
            if bare is None:
                return None
            parts.append(bare.group())
            at = bare.end()
        while at < size and text[at] in " \t":
            at += 1
        if at < size and text[at] == ".":
            at += 1
            continue
        return tuple(parts), at


def symbol_key(name: str) -> tuple[str, ...]:
    """A cited TOML name as key parts: ``tool.pytest.ini_options``, or with quoted parts
    (``tool."evidence-plan"``); a name that is no TOML key is split at its dots."""
    read = toml_key(name)
    if read is not None and read[1] == len(name):
        return read[0]
    return tuple(name.split("."))


def _scan_value(line: str, at: int, depth: int) -> tuple[int, str | None]:
    """Follow a value from ``at`` to the end of its line: the bracket depth after it, and the
    multi-line string (``\"\"\"`` or ``'''``) still open there, if any."""
    size = len(line)
    while at < size:
        found = _VALUE_SPECIAL.search(line, at)
        if found is None:
            break
        at, char = found.start(), found.group()
        if char == "#":
            break
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif line.startswith(char * 3, at):
            end = _close_multiline(line, at + 3, char * 3)
            if end < 0:
                return depth, char * 3
            at = end
            continue
        elif char == '"':
            body = _BASIC_END.match(line, at + 1)
            at = body.end() if body is not None else size
            continue
        else:
            end = line.find("'", at + 1)
            at = end + 1 if end >= 0 else size
            continue
        at += 1
    return depth, None


def _close_multiline(line: str, at: int, quotes: str) -> int:
    """Where a multi-line string open at ``at`` closes on this line (after its quotes), or -1."""
    if quotes == "'''":
        end = line.find("'''", at)
        end = end + 3 if end >= 0 else -1
    else:
        body = _MULTI_BASIC_END.match(line, at)
        end = body.end() if body is not None else -1
    # The string may end with one or two quotes of its own before its closing three.
    extra = 0
    while end >= 0 and extra < 2 and line.startswith(quotes[0], end):
        end, extra = end + 1, extra + 1
    return end


def _entries(lines: list[str]) -> list[tuple[bool, tuple[str, ...], int, int]]:
    """Each table header and each key of a TOML file, in order: (is a header, full dotted key
    parts, first line, last line, 1-based). A table runs from its header to its last key (not to
    blank lines or comments after it, which belong to what follows); a key to its value's end."""
    out: list[tuple[bool, tuple[str, ...], int, int]] = []
    table: tuple[str, ...] = ()
    header = -1  # the index in out of the open table's header
    depth, open_string = 0, None
    for n, line in enumerate(lines, 1):
        at = 0
        if open_string is not None:
            at = _close_multiline(line, 0, open_string)
            if at < 0:
                continue
            open_string = None
        elif depth == 0:
            stripped = line.lstrip(" \t")
            if not stripped or stripped.startswith("#"):
                continue
            at = len(line) - len(stripped)
            if stripped.startswith("["):
                array = stripped.startswith("[[")
                read = toml_key(line, at + (2 if array else 1))
                if read is not None:
                    if header >= 0:
                        out[header] = (*out[header][:3], _last_line(out, header))
                    table = read[0]
                    header = len(out)
                    out.append((True, table, n, n))
                continue
            read = toml_key(line, at)
            if read is None or not line.startswith("=", read[1]):
                continue
            out.append((False, table + read[0], n, n))
            at = read[1] + 1
        else:
            at = 0
        depth, open_string = _scan_value(line, at, depth)
        if out and not out[-1][0]:  # the open key's value goes on to this line
            out[-1] = (*out[-1][:3], n)
    if header >= 0:
        out[header] = (*out[header][:3], _last_line(out, header))
    return out


def _last_line(out: list[tuple[bool, tuple[str, ...], int, int]], header: int) -> int:
    return out[-1][3] if len(out) > header + 1 else out[header][2]


def _has(data: Any, parts: tuple[str, ...]) -> bool:
    """Whether the parsed document holds ``parts`` (an array of tables: its first table)."""
    for part in parts:
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data = data[0]
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def toml_symbols(text: str) -> dict[str, tuple[int, int]] | str:
    """Tables (``[a.b]``, the first ``[[a.b]]``), tables made only of their sub-tables (``tool``:
    the run of ``[tool.*]`` headers that starts at its first), and keys (``project.name``, to the
    end of the value), each by its dotted name; or why the file is not TOML."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        return str(err)
    except RecursionError:  # tomllib reads nested arrays and inline tables by recursion
        return "its arrays or inline tables are nested too deeply to read"
    except MemoryError:
        return "it is too large to read"
    out: dict[str, tuple[int, int]] = {}
    implicit: dict[str, list[int]] = {}  # a table named only by its sub-tables' headers
    ended: set[str] = set()  # such tables whose first run of sub-tables has ended
    last_header: tuple[str, ...] = ()
    entries = _entries(text.split("\n"))
    for is_header, parts, first, last in entries:
        if len(parts) > MAX_KEY_PARTS and not is_header:
            continue
        if not _has(data, parts[:MAX_KEY_PARTS]):
            continue  # what tomllib does not see there (the scan missed): no symbol
        if len(parts) <= MAX_KEY_PARTS:
            out.setdefault(".".join(parts), (first, last))
        if is_header:
            for k in range(1, min(len(last_header), MAX_KEY_PARTS)):
                if last_header[:k] != parts[:k]:
                    ended.add(".".join(last_header[:k]))
            for k in range(1, min(len(parts), MAX_KEY_PARTS)):
                prefix = ".".join(parts[:k])
                run = implicit.get(prefix)
                if run is None:
                    implicit[prefix] = [first, last]
                elif prefix not in ended:
                    run[1] = last
            last_header = parts
    for prefix, (first, last) in implicit.items():
        out.setdefault(prefix, (first, last))
    return out


# --- Markdown ---------------------------------------------------------------------------------------

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def markdown_symbols(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Each ATX heading's text (``## Installation``) -> its section: from the heading to the line
    before the next heading of the same or a higher level (``#`` is higher than ``##``), without
    the blank lines at its end; lines in fenced code blocks are no headings. Then, as in any other
    file, definition-looking lines (heuristic_symbols), where no heading has the name."""
    sections: list[tuple[int, int, str]] = []  # (first line, last line, text), as they close
    open_sections: list[tuple[int, str, int]] = []  # (level, text, first line), levels increasing
    fence: str | None = None
    fenced: list[int] = []  # lines in code blocks that start with #: no headings, not even to the heuristic
    last_text = 0  # the last line that is not blank
    for n, line in enumerate(lines, 1):
        marker = _FENCE.match(line)
        if fence is not None:
            if line.startswith("#"):
                fenced.append(n - 1)
            if marker is not None and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) \
                    and not line[marker.end():].strip():
                fence = None
        elif marker is not None and not (marker.group(1)[0] == "`" and "`" in line[marker.end():]):
            fence = marker.group(1)
        elif line.startswith("#") and (text := heading(line)) is not None:
            level = len(line) - len(line.lstrip("#"))
            while open_sections and open_sections[-1][0] >= level:
                _, closed, first = open_sections.pop()
                sections.append((first, max(first, last_text), closed))
            open_sections.append((level, text, n))
        if line.strip():
            last_text = n
    while open_sections:
        _, closed, first = open_sections.pop()
        sections.append((first, max(first, last_text), closed))
    # Sections close innermost first; the first heading of a text wins, as in the file.
    firsts: dict[str, tuple[int, int]] = {}
    for first, last, name in sorted(sections):
        firsts.setdefault(name, (first, last))
    if fenced:
        lines = list(lines)
        for k in fenced:
            lines[k] = ""
    for name, where in heuristic_symbols(lines).items():
        firsts.setdefault(name, where)
    return firsts
