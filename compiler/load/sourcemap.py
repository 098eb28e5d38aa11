"""Where every node of a plan file came from: a path of keys and indexes -> (line, column).

Paths are tuples such as ``("items", 2, "depends_on", 0)``. Lines and columns are 1-based.
A lookup that misses falls back to the nearest ancestor that is known, so a diagnostic always
points somewhere useful (a missing field points at its item).
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Sequence
from typing import Any

Path = tuple[Any, ...]
Position = tuple[int, int]


class SourceMap:
    def __init__(
        self,
        values: dict[Path, Position] | None = None,
        keys: dict[Path, Position] | None = None,
        builder: Callable[[], tuple[dict[Path, Position], dict[Path, Position]]] | None = None,
    ) -> None:
        self._values = values
        self._keys = keys
        self._builder = builder  # lazy: JSON positions are computed only when a diagnostic asks

    def _ensure(self) -> tuple[dict[Path, Position], dict[Path, Position]]:
        if self._values is None or self._keys is None:
            if self._builder is None:
                self._values, self._keys = {}, {}
            else:
                self._values, self._keys = self._builder()
        return self._values, self._keys

    def value(self, path: Path) -> Position | None:
        """Position of the value at ``path``, or of its nearest known ancestor."""
        values, _ = self._ensure()
        while True:
            pos = values.get(path)
            if pos is not None or not path:
                return pos
            path = path[:-1]

    def has(self, path: Path) -> bool:
        """Whether ``path`` itself (not an ancestor) has a known position."""
        return path in self._ensure()[0]

    def key(self, path: Path) -> Position | None:
        """Position of the key that names ``path`` (its last element), else of the value."""
        _, keys = self._ensure()
        pos = keys.get(path)
        return pos if pos is not None else self.value(path)


    def entries(self) -> tuple[dict[Path, Position], dict[Path, Position]]:
        """Every known position: (values, keys), by path. For tests and differential checks."""
        values, keys = self._ensure()
        return dict(values), dict(keys)


# Past this many children, a container's child offsets are computed once and kept.
_INDEXED = 32
# A smaller container's are kept too once the children before the one asked for take this many
# places: a top-level mapping whose `issues` come before its `items` is walked once, not once per
# item (quadratic: 17 s for 3,000 items). A container below both is counted again each time, at
# most this much work, and costs no memory (an item's own fields).
_KEPT_PLACES = 256


class OrderedSourceMap(SourceMap):
    """The same answers, from positions kept in document order (two arrays of integers) instead of
    a dict from path to position: for a plan of a million items, the dicts were gigabytes (a tuple
    path and a position per node), the arrays are a hundred megabytes.

    A node's place in that order is found from the data itself: in a pre-order walk, a mapping's
    key comes just before its value, and a node's subtree spans as many places as it has nodes
    and keys. The data must be what was parsed (dicts in document order, no shared nodes: the
    readers that use this map refuse or defer on aliases and duplicate keys). ``builder`` returns
    the lines and columns, one per node and key in that order, and runs on the first question."""

    def __init__(self, data: Any, builder: Callable[[], tuple[Sequence[int], Sequence[int]]]) -> None:
        super().__init__({}, {})
        self._data = data
        self._position_builder = builder
        self._lines: Sequence[int] | None = None
        self._columns: Sequence[int] = ()
        # id(container) -> where each child starts, relative to the container (kept alive by _data)
        self._offsets: dict[int, Any] = {}

    def _position(self, ordinal: int) -> Position | None:
        if self._lines is None:
            self._lines, self._columns = self._position_builder()
        if ordinal >= len(self._lines):  # pragma: no cover - the builder read the same text
            return None
        return self._lines[ordinal], self._columns[ordinal]

    def _walk(self, path: Path) -> tuple[int, bool, int | None]:
        """(the place of the deepest node of ``path`` that exists, whether all of it exists, the
        place of its key when its last step is a mapping key)."""
        node, ordinal, key = self._data, 0, None
        for part in path:
            kind = type(node)
            if kind is dict and type(part) is str and part in node:
                key = ordinal + 1 + self._before(node, part)
                ordinal = key + 1
            elif kind is list and type(part) is int and 0 <= part < len(node):
                key = None
                ordinal = ordinal + 1 + self._before(node, part)
            else:
                return ordinal, False, None
            node = node[part]
        return ordinal, True, key

    def _before(self, container: Any, part: Any) -> int:
        """How many places the children before ``part`` take (keys included)."""
        offsets = self._offsets.get(id(container))
        if offsets is None:
            if len(container) <= _INDEXED:
                if type(container) is list:
                    total = sum(_size(child) for child in container[:part])
                else:
                    total = 0
                    for name, child in container.items():
                        if name == part:
                            break
                        total += 1 + _size(child)
                if total < _KEPT_PLACES:
                    return total
            offsets = self._offsets[id(container)] = _child_offsets(container)
        return int(offsets[part])

    def value(self, path: Path) -> Position | None:
        return self._position(self._walk(path)[0])

    def has(self, path: Path) -> bool:
        return self._walk(path)[1]

    def key(self, path: Path) -> Position | None:
        ordinal, whole, key = self._walk(path)
        return self._position(key if whole and key is not None else ordinal)

    def entries(self) -> tuple[dict[Path, Position], dict[Path, Position]]:
        values: dict[Path, Position] = {}
        keys: dict[Path, Position] = {}
        counter = 0
        stack: list[tuple[Path, Any, bool]] = [((), self._data, False)]
        while stack:  # pre-order, the order the positions were recorded in
            path, node, is_key = stack.pop()
            pos = self._position(counter)
            counter += 1
            if pos is None:  # pragma: no cover
                continue
            if is_key:
                keys[path] = pos
                continue
            values[path] = pos
            if type(node) is dict:
                for name, child in reversed(node.items()):
                    stack.append(((*path, name), child, False))
                    stack.append(((*path, name), name, True))
            elif type(node) is list:
                stack.extend(((*path, i), child, False) for i, child in reversed(list(enumerate(node))))
        return values, keys


def _size(value: Any) -> int:
    """The places a value's subtree takes in document order: one per node and per key."""
    if type(value) is not dict and type(value) is not list:
        return 1
    total = 0
    stack = [value]
    while stack:  # iterative: any depth
        node = stack.pop()
        total += 1
        if type(node) is dict:
            total += len(node)
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)
    return total


def _child_offsets(container: Any) -> Any:
    """Where each child of a large container starts, relative to the container's first child:
    an array for a list, a dict of key -> offset (to the key) for a mapping."""
    if type(container) is list:
        offsets = array("q", bytes(8 * len(container)))
        total = 0
        for i, child in enumerate(container):
            offsets[i] = total
            total += _size(child)
        return offsets
    out: dict[str, int] = {}
    total = 0
    for name, child in container.items():
        out[name] = total
        total += 1 + _size(child)
    return out


def positions_array(text: str) -> Any:
    """An empty array for lines or columns of ``text``: four bytes an entry when that is enough."""
    return array("I" if len(text) < 2**32 else "q")


class LineIndex:
    """Offset -> (line, column), both 1-based."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> Position:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def scan_json(text: str) -> tuple[dict[Path, Position], dict[Path, Position], tuple[str, Position, Position] | None]:
    """Positions of every value and key of a JSON text, in one linear pass, no recursion.

    Also returns the first duplicate key as ``(key, first, second)``, or None. The text is
    assumed to be well-formed (json parsed it first); on anything odd it just stops.
    """
    import json  # here, not at the top: a YAML plan's positions need none

    lines = LineIndex(text)
    values: dict[Path, Position] = {}
    keys: dict[Path, Position] = {}
    duplicate: tuple[str, Position, Position] | None = None
    # Frame: [is_object, path, index_or_key, expecting_key, seen_keys]
    stack: list[list[Any]] = []
    for match in JSON_TOKEN.finditer(text):
        tok = match.group()
        if tok in ",:":
            if tok == "," and stack:
                frame = stack[-1]
                if frame[0]:
                    frame[3] = True
                else:
                    frame[2] += 1
            continue
        if tok in "}]":
            if stack:
                stack.pop()
            continue
        if stack and stack[-1][0] and stack[-1][3]:
            frame = stack[-1]
            try:
                key = json.loads(tok)
            except ValueError:  # not a key after all: the text is not JSON from here on
                break
            pos = lines.position(match.start())
            if key in frame[4]:
                if duplicate is None:
                    duplicate = (key, frame[4][key], pos)
            else:
                frame[4][key] = pos
            frame[2] = key
            frame[3] = False
            keys[(*frame[1], key)] = pos
            continue
        if stack:
            path = (*stack[-1][1], stack[-1][2])
        else:
            path = ()
        values[path] = lines.position(match.start())
        if tok == "{":
            stack.append([True, path, None, True, {}])
        elif tok == "[":
            stack.append([False, path, 0, False, None])
    return values, keys, duplicate


def scan_json_ordered(text: str) -> tuple[Any, Any]:
    """The line and column of every value and key of a JSON text, in document order (for
    OrderedSourceMap): every token but ``, : ] }`` starts a node or is a key. One linear pass;
    lines are counted forward from the last token, not looked up."""
    lines, columns = positions_array(text), positions_array(text)
    line, line_start, last = 1, 0, 0
    for match in JSON_TOKEN.finditer(text):
        start = match.start()
        if text[start] in ",:]}":
            continue
        newlines = text.count("\n", last, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", last, start) + 1
        last = start
        lines.append(line)
        columns.append(start - line_start + 1)
    return lines, columns
