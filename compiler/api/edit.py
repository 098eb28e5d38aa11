"""The editor that `fix` and `approve` share: edits of a plan's document, applied to its data and
to its YAML text *in place*. Only the characters of the changed scalars (and of a replaced key),
and the lines of removed entries, change; comments, key order, quoting and layout stay byte for
byte. Positions come from the composed nodes on the edits' paths (compiler/load/yaml_nodes.py:
libyaml's events, or ruamel.yaml's composer where the fast reader would defer). What to edit is
decided elsewhere (compiler/api/fix.py, fix_symbols.py, approve.py); the callers parse the
edited text again and compare it with ``apply_to_data``'s result before anything is written.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, NamedTuple

from compiler.core.display import UNSAFE
from compiler.load.sourcemap import Path, Position, SourceMap

Edit = tuple[Path, Any]  # (path in the document, new value), (path, REMOVE) or (path, Rename(...))
REMOVE = object()


class Rename(NamedTuple):
    """An edit's value that replaces the key at the end of its path as well: the mapping keeps
    its order, with ``key: value`` where the old key and its value were."""

    key: str
    value: Any



class EditError(Exception):
    """The edits could not be applied safely (a path that is not in the text); nothing was written."""


def apply_to_data(data: Any, edits: list[Edit]) -> Any:
    """The same edits on a copy of plain data; removals last-first so indexes hold. Only the
    containers on an edited path are copied (shallowly, without recursion): the rest is shared,
    so any depth of nesting elsewhere costs nothing."""
    owned: set[int] = set()  # ids of the copies made so far

    def own(container: Any) -> Any:
        if id(container) in owned:
            return container
        copy = container.copy()
        owned.add(id(copy))
        return copy

    out = own(data)
    for path, value in sorted(edits, key=lambda e: e[0], reverse=True):
        parent = out
        for part in path[:-1]:
            child = own(parent[part])
            parent[part] = child
            parent = child
        if value is REMOVE:
            del parent[path[-1]]
        elif isinstance(value, Rename):  # in place: the keys after it stay after it
            pairs = list(parent.items())
            parent.clear()
            parent.update((value if k == path[-1] else (k, v)) for k, v in pairs)
        else:
            parent[path[-1]] = value
    return out


def apply_to_yaml(text: str, edits: list[Edit], *, nodes: tuple[Any, bool] | None = None) -> str:
    """Edit the YAML text itself: scalars are replaced in place (keeping their quotes), a renamed
    key and its value likewise, a scalar replaced by a mapping becomes a flow mapping in its
    place, a key new to a mapping is added after its last entry (a line of its own in block
    style, ``, key: value`` in flow style), and removed sequence entries take their lines (block
    style) or their ', item' (flow style) with them. The positions come from one reading of the
    text (compiler/load/yaml_nodes.py), whatever the number of edits, or from ``nodes``, what its
    ``compose`` gave for paths that include the edits'; raises EditError for a path that is not in
    the text."""
    from compiler.load.yaml_nodes import compose

    root, _ = nodes if nodes is not None else compose(text, [path for path, _ in edits])
    removed: dict[Path, set[int]] = {}  # a sequence's path -> the indexes removed from it
    for path, value in edits:
        if value is REMOVE:
            removed.setdefault(path[:-1], set()).add(path[-1])
    first_kept = {seq: next(i for i in itertools.count() if i not in indexes) for seq, indexes in removed.items()}
    spans: list[tuple[int, int, str]] = []
    for path, value in edits:
        node, parent = _node_at(root, path)
        if node is None:
            spans.append(_added_key(text, parent, path[-1], value))
        elif value is REMOVE:
            spans.append(_removal(text, parent, path[-1], first_kept[path[:-1]]))
        elif isinstance(value, Rename):
            key = next(k for k, _ in parent.value if k.value == path[-1])
            spans.append(_replacement(text, key, value.key))
            spans.append(_replacement(text, node, value.value))
        elif isinstance(value, dict):
            spans.append((node.start_mark.index, node.end_mark.index, _flow_mapping(value)))
        elif node.start_mark.index == node.end_mark.index and isinstance(path[-1], str):
            spans.append(_filled(text, parent, path[-1], value))
        else:
            spans.append(_replacement(text, node, value))
    pieces: list[str] = []  # the text between the spans and their replacements, in order: one join
    end = len(text)
    for start, stop, new in sorted(spans, reverse=True):
        pieces += (text[stop:end], new)
        end = start
    pieces.append(text[:end])
    return "".join(reversed(pieces))


def _child(node: Any, part: Any) -> Any:
    """The child of a composed node at one step of a path (an index, a key), or None."""
    kind = type(node).__name__
    if kind == "SequenceNode" and type(part) is int:
        return node.value[part] if 0 <= part < len(node.value) else None
    if kind == "MappingNode" and type(part) is str:
        return next((v for k, v in node.value if k.value == part), None)
    return None


def _node_at(root: Any, path: Path) -> tuple[Any, Any]:
    """The node at ``path`` and its parent; (None, the mapping) when the last step is a key the
    mapping does not have yet (an edit that adds it). Raises EditError when the path is not in
    the text."""
    node, parent = root, None
    for n, part in enumerate(path):
        parent, node = node, _child(node, part)
        if node is None:
            if n == len(path) - 1 and type(parent).__name__ == "MappingNode" and type(part) is str:
                return None, parent
            raise EditError("the edited file would not read back as intended; nothing was written")
    return node, parent


# Text that reads back as itself, written plain, in YAML 1.2 and 1.1 alike, in block and flow
# context: a line range (11-12), a name or path (app/x.py::Account.create) that is no
# boolean, null, number (.5) or .inf/.nan and does not end in a colon, or lowercase hex with a
# letter (a pin) that is no float (12e4) or binary number (0b101). Anything else is quoted.
_PLAIN = re.compile(r"[0-9]+-[0-9]+|(?![.][0-9_]|[.]$)[A-Za-z_$./][\w$./:-]*(?<!:)"
                    r"|(?![0-9]+e[0-9]+$|0b[01]+$)[0-9a-f]*[a-f][0-9a-f]*")
_NOT_TEXT = re.compile(r"y|n|yes|no|on|off|true|false|null|\.inf|\.nan", re.IGNORECASE)


def _replacement(text: str, node: Any, value: Any) -> tuple[int, int, str]:
    """The span of a scalar node and what replaces it: ``value`` in the node's quotes, escaped
    for them; for a plain node, plain when that reads back as the same text, else quoted. A
    block scalar (``|``, ``>``) becomes a quoted one, keeping the line break it ends with."""
    start, end = node.start_mark.index, node.end_mark.index
    if text[start] in "|>":
        body = text[start:end]
        return start, end, _scalar_text("'", value) + body[len(body.rstrip()):]
    return start, end, _scalar_text(text[start] if text[start] in "'\"" else "", value)


def _filled(text: str, mapping: Any, key: str, value: Any) -> tuple[int, int, str]:
    """A key left blank (``approved_by:`` with nothing after it) given a value: written after its
    colon (an empty scalar's marks point past it, at whatever follows)."""
    node = next(k for k, _ in mapping.value if k.value == key)
    colon = text.index(":", node.end_mark.index)
    return colon + 1, colon + 1, " " + _scalar_text("", value)


# What a single-quoted scalar cannot hold as itself, nor should a plan show raw: what YAML does
# not allow in a file (C0 controls but tab and line breaks, DEL, C1 but NEL, surrogates, U+FFFE,
# U+FFFF), line breaks (folded to a space inside quotes: \n, \r, NEL, U+2028, U+2029) and
# compiler/core/display.py's unsafe characters (bidirectional and invisible controls, the byte-order
# mark, tabs). Such text is written double-quoted, each of these characters as an escape.
_ESCAPED = re.compile(f"{UNSAFE.pattern[:-1]}\ufffe\uffff]")
_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\0"}
_DOUBLE_QUOTED = re.compile(f'[\\\\"{_ESCAPED.pattern[1:-1]}]')


def _yaml_escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _scalar_text(quote: str, value: Any) -> str:
    """``value`` as a YAML scalar that reads back as itself, in both readers: plain where the node
    was plain and that is safe, else in the node's quotes where they can hold it, else
    double-quoted with escapes."""
    if not isinstance(value, str):
        return f"{quote}{value}{quote}"
    if quote != '"' and _ESCAPED.search(value) is None:
        if quote == "" and _PLAIN.fullmatch(value) and not _NOT_TEXT.fullmatch(value):
            return value
        return "'" + value.replace("'", "''") + "'"
    return '"' + _DOUBLE_QUOTED.sub(_yaml_escape, value) + '"'


# A plain scalar that reads back as itself in a block sequence (``- VALUE``) and, with ``flow``, in
# a flow mapping: a letter, ``_``, ``/`` or ``$`` first (no indicator, no number, date or ``.inf``),
# no ": " or " #", no ":" last, no space at either end, nothing YAML escapes, and not a word YAML
# reads as no text (``yes``, ``null``).
_FLOW = frozenset(",[]{}")


def yaml_scalar(value: str, flow: bool = False) -> str:
    """``value`` as a YAML scalar that reads back as itself: plain when that is sure (spaces
    allowed: ``docs/guide.md::Int and Float Ranges``), else quoted. What `symbols` and `where`
    print, so that a line pasted into a plan's evidence list is the entry it was."""
    if (value and (value[0].isalpha() or value[0] in "_/$") and value == value.strip() and ": " not in value
            and " #" not in value and "\t" not in value and not value.endswith(":")
            and _ESCAPED.search(value) is None and not _NOT_TEXT.fullmatch(value)
            and not (flow and _FLOW.intersection(value))):
        return value
    return _scalar_text("'", value)


def _flow_mapping(value: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{key}: {_scalar_text('', v)}" for key, v in value.items()) + "}"


def _added_key(text: str, mapping: Any, key: str, value: Any) -> tuple[int, int, str]:
    """The insertion that adds ``key: value`` to a mapping node, after its last entry."""
    last = mapping.value[-1][1]
    end = last.end_mark.index
    entry = f"{key}: {_scalar_text('', value)}"
    if mapping.flow_style:
        return end, end, f", {entry}"
    indent = " " * mapping.value[0][0].start_mark.column
    eol = "\r\n" if "\r\n" in text else "\n"  # the file's own line ending
    if last.end_mark.column == 0:  # a block value ends at the start of the line after it
        return end, end, f"{indent}{entry}{eol}"
    newline = text.find("\n", end)  # after the rest of the line: a comment there stays with its value
    if newline < 0:
        return len(text), len(text), f"{eol}{indent}{entry}"
    return newline + 1, newline + 1, f"{indent}{entry}{eol}"


def same_key_order(a: Any, b: Any) -> bool:
    """Whether two equal documents also give every mapping's keys in the same order (iterative:
    any depth of nesting)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            stack.extend(zip(x, y, strict=False))
    return True


def _removal(text: str, seq: Any, index: int, first_kept: int) -> tuple[int, int, str]:
    """The span that removing entry ``index`` of a sequence takes, ``first_kept`` being the first
    entry that stays: the spans of several removals never overlap, and together leave the entries
    kept with their separators (``[a, b, c]`` without a and b is ``[c]``)."""
    entries = seq.value
    node = entries[index]
    if seq.flow_style:
        if index > first_kept:  # after a kept entry: its ', item' goes
            return entries[index - 1].end_mark.index, node.end_mark.index, ""
        if index + 1 < len(entries):  # in the leading run of removed entries: 'item, ' goes
            return node.start_mark.index, entries[index + 1].start_mark.index, ""
        return node.start_mark.index, node.end_mark.index, ""  # the last of all: the list is left empty
    # Block style: from the start of the line holding this entry's dash to the start of the
    # line after the entry.
    dash = text.rfind("-", 0, node.start_mark.index)
    line_start = text.rfind("\n", 0, dash) + 1
    end = node.end_mark.index
    if node.end_mark.column != 0 or end == node.start_mark.index:
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    if index + 1 < len(entries):
        next_dash = text.rfind("-", 0, entries[index + 1].start_mark.index)
        end = min(end, text.rfind("\n", 0, next_dash) + 1)
    return line_start, end, ""


def shared_through_alias(text: str, edits: list[Edit], *, nodes: tuple[Any, bool] | None = None) -> list[int]:
    """Indexes of the edits that would change a YAML node written once and used again through an
    alias (``&name`` ... ``*name``): edited in place, it would change every use at once, so such
    edits are left to a person. An edit that adds a key changes the mapping it adds it to. A
    text without aliases costs one pass of libyaml (compiler/load/yaml_nodes.py defers on them);
    ``nodes`` as for ``apply_to_yaml``."""
    from compiler.load.yaml_nodes import compose

    root, reference = nodes if nodes is not None else compose(text, [path for path, _ in edits])
    if not reference:  # composed from libyaml's events, which hold no alias
        return []
    uses: dict[int, int] = {}
    stack = [root]
    while stack:  # iterative, and each shared node walked once
        node = stack.pop()
        uses[id(node)] = uses.get(id(node), 0) + 1
        if uses[id(node)] > 1 or type(node).__name__ == "ScalarNode":
            continue
        if type(node).__name__ == "SequenceNode":
            stack.extend(node.value)
        else:
            for key, value in node.value:
                stack.extend((key, value))
    shared = []
    for n, (path, _) in enumerate(edits):
        node = root
        for part in path:
            child = _child(node, part) if uses.get(id(node), 0) <= 1 else None
            if child is None:  # shared, or a key the edit adds: this node decides
                break
            node = child
        if uses.get(id(node), 0) > 1:
            shared.append(n)
    return shared


class OnDisk(SourceMap):
    """The positions of the file as it is on disk, for the plan as fix would make it: a path of
    the edited data is read as the path of the same node in the original, which differs only
    where repeated entries were removed (an index past a removed entry counts it back in).
    Replaced values keep their place: they start where the old ones did."""

    def __init__(self, original: SourceMap, edits: list[Edit]) -> None:
        super().__init__({}, {})
        self._original = original
        self._removed: dict[Path, list[int]] = {}  # parent path (original indexes) -> removed indexes
        self._renamed: dict[Path, Any] = {}  # path of a renamed key (its new name) -> the old name
        for edit_path, value in edits:
            if value is REMOVE:
                self._removed.setdefault(edit_path[:-1], []).append(edit_path[-1])
            elif isinstance(value, Rename):
                self._renamed[(*edit_path[:-1], value.key)] = edit_path[-1]
        for indexes in self._removed.values():
            indexes.sort()

    def _original_path(self, path: Path) -> Path:
        out: list[Any] = []
        for part in path:
            step = part
            removed = self._removed.get(tuple(out)) if type(part) is int else None
            for index in removed or ():  # ascending: each removed entry at or before it shifts it on
                if index > step:
                    break
                step += 1
            out.append(step)
        original = tuple(out)
        if original in self._renamed:  # a renamed key is where the old one is
            return (*original[:-1], self._renamed[original])
        return original

    def value(self, path: Path) -> Position | None:
        return self._original.value(self._original_path(path))

    def has(self, path: Path) -> bool:
        return self._original.has(self._original_path(path))

    def key(self, path: Path) -> Position | None:
        return self._original.key(self._original_path(path))
