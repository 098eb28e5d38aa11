"""Where every node of a plan file came from: a path of keys and indexes -> (line, column).

Paths are tuples such as ``("items", 2, "depends_on", 0)``. Lines and columns are 1-based.
A lookup that misses falls back to the nearest ancestor that is known, so a diagnostic always
points somewhere useful (a missing field points at its item).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
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
            key = json.loads(tok)
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
