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

from compiler.repo.symbols import heading

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


_MISSING = object()


def _value(data: Any, parts: tuple[str, ...]) -> Any:
    """What the parsed document holds at ``parts`` (an array of tables: its first table), or
    ``_MISSING``."""
    for part in parts:
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data = data[0]
        if not isinstance(data, dict) or part not in data:
            return _MISSING
        data = data[part]
    return data


def _has(data: Any, parts: tuple[str, ...]) -> bool:
    """Whether the parsed document holds ``parts`` (an array of tables: its first table)."""
    return _value(data, parts) is not _MISSING


def _inline_keys(value: Any, parts: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The keys inside an inline table (``options = { debug_level = "0" }``: ``options.debug_level``),
    nested ones too, in order; none past MAX_KEY_PARTS parts. Iterative, and each key of the file
    is visited once."""
    out: list[tuple[str, ...]] = []
    stack = [(parts, value)]
    while stack:
        prefix, table = stack.pop()
        if prefix != parts:
            out.append(prefix)
        if isinstance(table, dict) and len(prefix) < MAX_KEY_PARTS:
            stack.extend(((*prefix, key), inner) for key, inner in reversed(table.items()))
    return out


def toml_symbols(text: str) -> dict[str, tuple[int, int]] | str:
    """Tables (``[a.b]``, the first ``[[a.b]]``), tables made only of their sub-tables (``tool``:
    the run of ``[tool.*]`` headers that starts at its first), keys (``project.name``, to the end
    of the value) and the keys of an inline table (``tool.x.options.debug_level`` of ``options = {
    debug_level = "0" }``, on the lines of the key that holds it), each by its dotted name; or why
    the file is not TOML."""
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
        value = _value(data, parts[:MAX_KEY_PARTS])
        if value is _MISSING:
            continue  # what tomllib does not see there (the scan missed): no symbol
        if len(parts) <= MAX_KEY_PARTS:
            out.setdefault(".".join(parts), (first, last))
            if not is_header and isinstance(value, dict):  # an inline table: its keys are on its lines
                for inner in _inline_keys(value, parts):
                    out.setdefault(".".join(inner), (first, last))
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
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*")
# A line that starts a list item, a block quote, an HTML block or a table row: its text is no
# paragraph that an underline could make a heading of.
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:[-+*][ \t]|[-+*]$|\d{1,9}[.)](?:[ \t]|$)|>|<|\|)")

Span = tuple[int, int]


def _indent(line: str) -> int:
    """The columns of a line's leading spaces and tabs (a tab to the next multiple of 4)."""
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _front_matter(lines: list[str]) -> int:
    """Lines of YAML front matter at the top (``---`` ... ``---`` or ``...``), or 0."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for n in range(1, min(len(lines), 1000)):
        if lines[n].rstrip() in ("---", "..."):
            return n + 1
    return 0


def _headings(lines: list[str]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Every heading of a Markdown file, ATX (``## Text``, up to three spaces before it) and setext
    (a paragraph underlined with ``===`` or ``---``), as (first line, last line, the texts of its
    parent headings and its own), in the file's order. Nothing in fenced or indented code, in
    list items, quotes or prose is a heading. A section runs to the line before the next heading
    of the same or a higher level, without the blank lines at its end."""
    out: list[tuple[int, int, tuple[str, ...]]] = []
    open_sections: list[tuple[int, str, int, int]] = []  # (level, text, first line, index in out)
    fence: str | None = None
    paragraph: list[str] = []  # the lines of the open paragraph
    paragraph_first, paragraph_ok, before_paragraph = 0, False, 0
    last_text = 0  # the last line that is not blank

    def open_heading(level: int, text: str, first: int, last_before: int) -> None:
        while open_sections and open_sections[-1][0] >= level:
            closed = open_sections.pop()
            out[closed[3]] = (closed[2], max(closed[2], last_before), out[closed[3]][2])
        chain = (*(s[1] for s in open_sections), text)
        open_sections.append((level, text, first, len(out)))
        out.append((first, first, chain))

    for n, line in enumerate(lines[_front_matter(lines):], _front_matter(lines) + 1):
        marker = _FENCE.match(line)
        if fence is not None:
            if marker is not None and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) \
                    and not line[marker.end():].strip():
                fence = None
        elif not line.strip():
            paragraph = []
        elif _indent(line) >= 4 and not paragraph:
            pass  # indented code
        elif marker is not None and not (marker.group(1)[0] == "`" and "`" in line[marker.end():]):
            fence, paragraph = marker.group(1), []
        elif _indent(line) < 4 and line.lstrip(" ").startswith("#") and (text := heading(line.lstrip(" "))) is not None:
            stripped = line.lstrip(" ")
            open_heading(len(stripped) - len(stripped.lstrip("#")), text, n, last_text)
            paragraph = []
        elif paragraph and paragraph_ok and _SETEXT.fullmatch(line):
            open_heading(1 if "=" in line else 2, " ".join(paragraph), paragraph_first, before_paragraph)
            paragraph = []
        elif paragraph and _NOT_PARAGRAPH.match(line) is None:
            paragraph.append(line.strip())
        else:
            paragraph, paragraph_first, before_paragraph = [line.strip()], n, last_text
            paragraph_ok = _NOT_PARAGRAPH.match(line) is None and _SETEXT.fullmatch(line) is None
        if line.strip():
            last_text = n
    for _, _, first, index in open_sections:
        out[index] = (first, max(first, last_text), out[index][2])
    return out


MAX_QUALIFIED_CHARS = 4_000_000
"""Characters of the qualified names (``26.10.0.Output``) of a Markdown file's headings, all
together. Each heading's names repeat its parents' texts; a file built to multiply them (long
headings, thousands of sub-headings under each) would take gigabytes. Past this, the file's
headings answer to their own texts only: none to a qualified name, so that none is taken for
unique when another heading's name was left unbuilt."""


def markdown_sections(lines: list[str]) -> tuple[dict[str, Span], dict[str, list[Span]]]:
    """A Markdown file's sections: (each heading under its shortest unique name, in the file's
    order; every name a heading answers to -> the sections that answer to it). A heading answers to
    its text (``Output``) and to its text qualified by its parents' (``26.10.0.Output``, ``Change
    Log.26.10.0.Output``), joined with dots (up to MAX_QUALIFIED_CHARS); a name that more than one
    section answers to is ambiguous, and a heading none of whose names is unique is listed under
    none."""
    found = _headings(lines)
    aliases: list[list[str]] = []
    budget = MAX_QUALIFIED_CHARS
    for _, _, chain in found:
        own = [chain[-1]]
        for k in range(2, len(chain) + 1):
            own.append(chain[-k] + "." + own[-1])
            budget -= len(own[-1])
        aliases.append(own)
        if budget < 0:
            aliases = [[chain[-1]] for _, _, chain in found]
            break
    names: dict[str, list[Span]] = {}
    for (first, last, _), own in zip(found, aliases, strict=True):
        for name in own:
            names.setdefault(name, []).append((first, last))
    listing: dict[str, Span] = {}
    for (first, last, _), own in zip(found, aliases, strict=True):
        for name in own:
            if len(names[name]) == 1:
                listing.setdefault(name, (first, last))
                break
    return listing, names


def markdown_symbols(lines: list[str]) -> dict[str, Span]:
    """Each Markdown heading under its shortest unique name -> its section (markdown_sections)."""
    return markdown_sections(lines)[0]
