"""Where the cursor is in a plan's text as the editor holds it: the keys that lead to it, whether a
key or a value is being typed there, what is typed of it so far, and what the text around it
gives (the other keys of its mapping, the other entries of its list, the id of its item).

Read from the text around the cursor, never from a parse: a half-typed plan is the normal case,
and the line being typed seldom parses. In YAML's block style the indentation says it: the lines
above with less of it are the cursor's ancestors (a key whose value is the block below, a ``-``
whose entry holds it), the lines beside at the same indentation its siblings. In JSON, and in a
YAML flow collection on the cursor's line (``depends_on: [a, b``), the brackets and quotes before
the cursor say it, read as tokens; the tokens after it, up to the end of the item, give the keys
and entries written after the cursor. Columns are code points, 0-based (compiler/api/editor.py).
What the plan format makes of the keys is compiler/api/editor_completion.py's business.
"""

from __future__ import annotations

import json
import re
from itertools import chain
from typing import Literal, NamedTuple

from compiler.model import fields

Role = Literal["key", "value", "entry"]
ENTRY = "-"  # in a path: an entry of a list (its index is not read)
ID = "id"  # the key of an item's id (compiler/model/fields.py ITEM_FIELDS' first)
ITEMS = next(f.name for f in fields.PLAN_FIELDS if f.kind == "items")  # the plan's item list


class Place(NamedTuple):
    """The cursor's place. ``role``: ``key``, a key of the mapping at ``path`` is typed; ``value``,
    the scalar at ``path`` (its last part a key, or ENTRY); ``entry``, after a block list's ``-``:
    an entry's scalar, or the first key of an entry that is a mapping (the format decides)."""

    line: int
    path: tuple[str, ...]  # the keys from the document's root, ENTRY for a list's entry
    role: Role
    start: int  # the column where the typed word starts, after its opening quote
    typed: str  # what is typed of it, from start up to the cursor, as written (escapes and all)
    quote: str  # the word's opening quote: "" (plain, or nothing typed yet), "'" or '"'
    flow: bool  # inside a flow collection or JSON, where YAML's plain scalars may hold less
    rest: str  # the line after the cursor
    siblings: dict[str, str | None]  # the other keys of the mapping the place is in, with their scalars
    listed: tuple[str, ...]  # the other entries of the list the place is an entry of
    item: str | None  # the id of the item the place is in, when the text gives one


def place_at(text: str, line: int, column: int, fmt: str) -> Place | None:
    """The place of the cursor at (line, column) in ``text`` (``fmt``: ``yaml`` or ``json``), or
    None where nothing can be typed that the plan format knows (a comment, a closed quote, a
    block scalar, text that is neither)."""
    lines = [part.rstrip("\r") for part in text.split("\n")]
    if not 0 <= line < len(lines) or column < 0:
        return None
    column = min(column, len(lines[line]))  # past the end of its line: its end
    first = next((part.lstrip() for part in lines if not _blank(part)), "")
    if fmt == "json" or first[:1] in ("{", "["):  # JSON, or YAML written in flow style (as JSON is)
        offset = sum(len(part) + 1 for part in text.split("\n")[:line]) + column
        tokens = _JSON_TOKENS if fmt == "json" else _YAML_TOKENS
        return _flow_place(text, 0, offset, line, offset - column, lines, (), tokens, None)
    return _block_place(lines, line, column)


# --- YAML's block style ---------------------------------------------------------------------------


class _Line(NamedTuple):
    """How a line of block YAML starts: its ``-`` entries, then the key of a mapping, if any."""

    indent: int
    dashes: tuple[int, ...]  # the columns of its entries' dashes
    content: int  # where what follows the dashes starts (the line's length when nothing does)
    key: str | None  # the key starting at content
    value: int  # where the key's value starts, after ": " and blanks (content when no key)


class _Frame(NamedTuple):
    """An ancestor of the cursor: a key whose value holds it, or a list's entry (ENTRY)."""

    name: str
    line: int
    column: int  # the key's, or the dash's
    content: int  # an entry's: where its content starts; a key's: its column


def _read_line(text: str) -> _Line:
    at = indent = len(text) - len(text.lstrip(" "))
    dashes = []
    while at < len(text) and text[at] == "-" and (at + 1 == len(text) or text[at + 1] in " \t"):
        dashes.append(at)
        at += 1
        while at < len(text) and text[at] in " \t":
            at += 1
    key, value = _key_at(text, at)
    return _Line(indent=indent, dashes=tuple(dashes), content=at, key=key, value=value)


def _key_at(text: str, at: int) -> tuple[str | None, int]:
    """The key of a mapping entry starting at ``at`` and where its value starts, or (None, at)."""
    if at >= len(text) or text[at] in "[{#|>&*!%@`":
        return None, at
    if text[at] in "\"'":
        end = _quoted_end(text, at)
        if end is None:
            return None, at
        colon = len(text) - len(text[end:].lstrip(" \t"))
        key = _unquote(text[at:end], True)
    else:
        colon = at
        while colon < len(text) and not (text[colon] == ":" and text[colon + 1:colon + 2] in ("", " ", "\t")
                                          and text[colon - 1] != ":"):  # path::Name is no key, typed so far
            if text[colon] == "#" and text[colon - 1] in " \t":
                return None, at
            colon += 1
        key = text[at:colon].rstrip(" \t")
    if colon >= len(text) or text[colon] != ":" or text[colon + 1:colon + 2] not in ("", " ", "\t"):
        return None, at
    value = colon + 1
    while value < len(text) and text[value] in " \t":
        value += 1
    return key, value


def _quoted_end(text: str, start: int) -> int | None:
    """Just past the quote that closes the one at ``start``, or None when the line does not."""
    quote, at = text[start], start + 1
    while at < len(text):
        if quote == '"' and text[at] == "\\":
            at += 2
            continue
        if text[at] == quote:
            if quote == "'" and text.startswith("''", at):
                at += 2
                continue
            return at + 1
        at += 1
    return None


def _unquote(token: str, closed: bool) -> str:
    """A quoted scalar's text: '' in single quotes, escapes in double."""
    quote, inner = token[0], token[1:-1] if closed else token[1:]
    if quote == "'":
        return inner.replace("''", "'")
    if "\\" not in inner:
        return inner
    try:
        decoded = json.loads(f'"{inner}"')  # YAML's escapes that JSON shares; the rest as written
    except ValueError:
        return inner
    return decoded if isinstance(decoded, str) else inner


def _scalar(text: str, at: int) -> str | None:
    """The scalar written at ``at`` of a line, when it is one on that line alone."""
    rest = text[at:]
    if not rest or rest[0] in "[{#|>&*!%@`":
        return None
    if rest[0] in "\"'":
        end = _quoted_end(rest, 0)
        return _unquote(rest[:end], True) if end is not None else None
    cut = re.search(r"[ \t]#", rest)
    return (rest[:cut.start()] if cut else rest).strip() or None


def _blank(text: str) -> bool:
    stripped = text.strip(" \t")
    return not stripped or stripped.startswith("#")


def _block_place(lines: list[str], line: int, column: int) -> Place | None:
    before = lines[line][:column]
    head = _read_line(before)
    if before[head.content:head.content + 1] == "#":
        return None
    here = [_Frame(name=ENTRY, line=line, column=dash, content=(*head.dashes, head.content)[i + 1])
            for i, dash in enumerate(head.dashes)]
    role: Role
    if head.key is not None:
        if head.value >= len(before) and before.endswith(":"):
            return None  # right after the key's colon: the value needs a blank first
        here.append(_Frame(name=head.key, line=line, column=head.content, content=head.content))
        at, role = head.value, "value"
    else:
        at, role = head.content, "key"
        if head.dashes:
            role = "entry"
    frames = _ancestors(lines, line, head, here)
    if frames is None:
        return None
    base = tuple(frame.name for frame in frames)
    if at < column and before[at] in "[{":
        return _flow_place(lines[line], at, column, line, 0, lines, base, _YAML_TOKENS, frames)
    quote, start = "", at
    if at < column:
        if before[at] in "\"'":
            if _quoted_end(before, at) is not None:
                return None  # after a closed quote
            quote, start = before[at], at + 1
        elif before[at] in "|>&*!%@`" or re.search(r"[ \t]#", before[at:]):
            return None
    own = len(frames) - 1 if role == "value" else len(frames)  # the depth of the place's mapping
    siblings = _block_keys(lines, frames, own, line)
    depth = _item_depth(base)
    item = None
    if depth is not None:
        item = (siblings if depth == own else _block_keys(lines, frames, depth, line)).get(ID)
    listed = _block_entries(lines, frames, line) if role == "entry" else ()
    return Place(line=line, path=base, role=role, start=start, typed=before[start:], quote=quote, flow=False,
                 rest=lines[line][column:], siblings=siblings, listed=listed, item=item)


def _ancestors(lines: list[str], line: int, head: _Line, here: list[_Frame]) -> list[_Frame] | None:
    """The cursor's ancestors, from the root (the frames on its own line last): the lines above with
    less indentation. None when the cursor continues a scalar or a flow collection of a line above."""
    groups = [here]
    threshold = head.dashes[0] if head.dashes else head.content
    dash_first = bool(head.dashes)  # whether what starts at the threshold column is a list's entry
    for number in range(line - 1, -1, -1):
        text = lines[number]
        if _blank(text):
            continue
        indent = len(text) - len(text.lstrip(" "))
        if indent > threshold:
            continue
        if indent == 0 and text.startswith(("---", "...")):
            break
        parsed = _read_line(text)
        if indent == threshold:
            if dash_first and not parsed.dashes and parsed.key is not None and _blank(text[parsed.value:]):
                # `key:` over its `- ` entries at its own indentation
                groups.append([_Frame(name=parsed.key, line=number, column=indent, content=indent)])
                dash_first = False
            continue
        found = [_Frame(name=ENTRY, line=number, column=dash, content=(*parsed.dashes, parsed.content)[i + 1])
                 for i, dash in enumerate(parsed.dashes) if dash < threshold]
        if parsed.key is not None and parsed.content < threshold:
            if not _blank(text[parsed.value:]):
                return None  # below a key whose value is on its line: a scalar or flow that goes on
            found.append(_Frame(name=parsed.key, line=number, column=parsed.content, content=parsed.content))
        elif parsed.key is None and not _blank(text[parsed.content:]):
            return None  # below an entry's scalar: its continuation
        groups.append(found)
        threshold, dash_first = indent, bool(parsed.dashes)
        if threshold == 0 and not dash_first:
            break
    return [frame for group in reversed(groups) for frame in group]


def _block_keys(lines: list[str], frames: list[_Frame], depth: int, skip: int) -> dict[str, str | None]:
    """The keys of the block mapping that ``frames[:depth]`` lead to, with their scalars, but for
    those on line ``skip`` (the cursor's)."""
    if depth < 0:
        return {}
    begin, column = 0, None
    if depth > 0:
        owner = frames[depth - 1]
        if owner.name == ENTRY and (owner.line == skip or not _blank(lines[owner.line][owner.content:])):
            begin, column = owner.line, owner.content
        else:
            begin = owner.line + 1
    if column is None:
        column = next((len(text) - len(text.lstrip(" ")) for text in lines[begin:] if not _blank(text)), None)
        if column is None or (depth > 0 and column <= frames[depth - 1].column):
            return {}
    found: dict[str, str | None] = {}
    for number in range(begin, len(lines)):
        text = lines[number]
        if _blank(text):
            continue
        indent = len(text) - len(text.lstrip(" "))
        if number > begin and (indent < column or (indent == 0 and text.startswith(("---", "...")))):
            break
        if number == skip or (number > begin and indent > column):
            continue
        parsed = _read_line(text)
        if parsed.content == column and parsed.key is not None:
            found.setdefault(parsed.key, _scalar(text, parsed.value))
    return found


def _block_entries(lines: list[str], frames: list[_Frame], skip: int) -> tuple[str, ...]:
    """The scalars of the block list the cursor's entry is in (a key's value), but the cursor's."""
    if len(frames) < 2 or frames[-2].name == ENTRY:
        return ()
    owner, dash = frames[-2], frames[-1].column
    found = []
    for number in range(owner.line + 1, len(lines)):
        text = lines[number]
        if _blank(text):
            continue
        indent = len(text) - len(text.lstrip(" "))
        if indent < dash:
            break
        parsed = _read_line(text)
        if indent == dash and not parsed.dashes:
            break
        if number != skip and parsed.dashes == (dash,) and parsed.key is None:
            value = _scalar(text, parsed.content)
            if value is not None:
                found.append(value)
    return tuple(found)


def _item_depth(path: tuple[str, ...]) -> int | None:
    """How many parts of ``path`` lead to the item it is in: a top-level list's entry, or an
    entry of the plan's item list."""
    if path[:1] == (ENTRY,):
        return 1
    if path[:2] == (ITEMS, ENTRY):
        return 2
    return None


# --- flow: JSON, and YAML's [ ] and { } --------------------------------------------------------------

_JSON_TOKENS = re.compile(r'(?P<dq>"[^"\\\n]*(?:\\.[^"\\\n]*)*(?P<dqc>"?))|(?P<pu>[\[\]{},:])|(?P<pl>[^\s\[\]{},:"]+)')
_YAML_TOKENS = re.compile(
    r'(?P<dq>"[^"\\\n]*(?:\\.[^"\\\n]*)*(?P<dqc>"?))|(?P<sq>\'[^\'\n]*(?:\'\'[^\'\n]*)*(?P<sqc>\'?))'
    r'|(?P<pu>[\[\]{},]|:(?=[\s,\[\]{}]|$))|(?P<cm>#.*)'
    r'|(?P<pl>[^\s,\[\]{}](?:[^,\[\]{}:#\n]|:(?![\s,\[\]{}]|$)|(?<=:):|(?<=\S)#)*)',  # path:: typed so far
    re.MULTILINE)


class _Open:
    """A collection open at the cursor, as the tokens before it (and after it) leave it."""

    __slots__ = ("entries", "key", "keys", "name", "seq", "state")

    def __init__(self, name: str, seq: bool) -> None:
        self.name, self.seq = name, seq  # the key it is the value of, or ENTRY
        self.keys: dict[str, str | None] = {}
        self.entries: list[str] = []
        self.key: str | None = None  # the key whose value comes next
        self.state = "entry" if seq else "key"  # then "colon", "value", "done"


def _flow_place(text: str, begin: int, cursor: int, line: int, line_start: int, lines: list[str],
                base: tuple[str, ...], tokens_re: re.Pattern[str], frames: list[_Frame] | None) -> Place | None:
    """The place of ``cursor`` (an offset into ``text``) inside the flow collection (or JSON
    document) that starts at ``begin``; ``base``: the path to that collection."""
    stack: list[_Open] = []
    tokens = tokens_re.finditer(text, begin)
    after: list[re.Match[str]] = []  # the token after the cursor when it is not in one
    start, quote = cursor, ""
    for match in tokens:
        first, end = match.span()
        kind = match.lastgroup
        if first >= cursor:
            after.append(match)
            break
        if kind in ("dq", "sq"):
            closed = bool(match.group(f"{kind}c"))
            if cursor < end or (cursor == end and not closed):
                start, quote = first + 1, match.group()[0]
                break
        elif kind == "pl" and cursor <= end:
            start = first
            break
        elif kind == "cm":
            if cursor <= end:
                return None  # in a comment
            continue
        _apply(stack, match)
        if not stack:
            return None  # the outermost collection closed before the cursor
    if not stack:
        return None
    top = stack[-1]
    names = tuple(frame.name for frame in stack[1:])
    role: Role = "value"
    if top.seq and top.state == "entry":
        path = (*base, *names, ENTRY)
    elif not top.seq and top.state == "key":
        path, role = (*base, *names), "key"
    elif not top.seq and top.state == "value":
        path = (*base, *names, top.key or "")
    else:
        return None
    own = len(stack) - 1
    opened = list(stack)
    depth = _item_depth(path)
    floor = min(own, depth - len(base)) if depth is not None and depth >= len(base) else own
    for match in chain(after, tokens):  # what follows the cursor, to the end of its item
        if match.lastgroup != "cm":
            _apply(stack, match)
        if len(stack) <= floor:
            break
    item = None
    if depth is not None and depth <= len(path):
        if depth >= len(base):
            item = opened[depth - len(base)].keys.get(ID) if depth - len(base) < len(opened) else None
        elif frames is not None:
            item = _block_keys(lines, frames, depth, line).get(ID)
    column = start - line_start
    return Place(line=line, path=path, role=role, start=column, typed=lines[line][column:cursor - line_start],
                 quote=quote, flow=True, rest=lines[line][cursor - line_start:],
                 siblings={key: value for key, value in top.keys.items() if role == "key" or key != top.key},
                 listed=tuple(top.entries),
                 item=item)


def _apply(stack: list[_Open], match: re.Match[str]) -> None:
    """One token read into the open collections."""
    token, kind = match.group(), match.lastgroup
    top = stack[-1] if stack else None
    if kind == "pu" and token in "[{":
        name = "" if top is None else ENTRY if top.seq else (top.key or "") if top.state == "value" else ""
        if top is not None:
            top.state = "done"
        stack.append(_Open(name, token == "["))
    elif kind == "pu" and token in "]}":
        if stack:
            stack.pop()
    elif top is None:
        return
    elif kind == "pu" and token == ",":
        top.state, top.key = ("entry", None) if top.seq else ("key", None)
    elif kind == "pu" and token == ":":
        if not top.seq and top.state in ("key", "colon"):
            top.state = "value"
    elif kind in ("dq", "sq", "pl"):
        value = _unquote(token, bool(match.group(f"{kind}c"))) if kind != "pl" else token.strip()
        if top.seq:
            if top.state == "entry":
                top.entries.append(value)
                top.state = "done"
        elif top.state == "key":
            top.key, top.state = value, "colon"
            top.keys.setdefault(value, None)
        elif top.state == "value":
            if top.key is not None and top.keys.get(top.key) is None:
                top.keys[top.key] = value
            top.state = "done"
