"""Columns between our unit and the client's: the one place they are converted.

Every column of the library counts code points (compiler/core/diagnostics.py ``TextEdit``, and
compiler/api/editor.py); the Language Server Protocol counts a column in the code units of the
position encoding the client and server agreed on at initialize: UTF-16 unless both say otherwise
(a character outside the Basic Multilingual Plane, an emoji, is two UTF-16 units and one code
point). Nothing of the protocol's SDK is imported here.
"""

from __future__ import annotations

from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]
ENCODINGS: tuple[Encoding, ...] = ("utf-16", "utf-8", "utf-32")  # the server's preference: the protocol's default first


def _units(char: str, encoding: Encoding) -> int:
    code = ord(char)
    if encoding == "utf-16":
        return 2 if code > 0xFFFF else 1
    if encoding == "utf-8":
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 1


def to_units(line: str, column: int, encoding: Encoding) -> int:
    """The column (code points into ``line``) in the client's units; past the line's end, the
    end of the line."""
    if encoding == "utf-32":
        return min(column, len(line))
    return sum(_units(char, encoding) for char in line[:column])


def from_units(line: str, units: int, encoding: Encoding) -> int:
    """The code point that ``units`` of the client's count reach in ``line``: a place inside a
    character (half of a surrogate pair) is taken as that character's start; past the end of the
    line, its end."""
    if encoding == "utf-32":
        return max(0, min(units, len(line)))
    counted = 0
    for index, char in enumerate(line):
        width = _units(char, encoding)
        if counted + width > units:
            return index
        counted += width
    return len(line)
