"""Pins: a short hash of the lines an evidence entry cites, so that evidence whose code changed
under it cannot go on "holding" silently.

A pin is the first ``DIGITS`` hex digits of the SHA-256 of the cited lines, normalised so that
only what a reader sees counts: each line without its trailing whitespace, lines joined by
``\\n`` (so CRLF and LF files give the same pin), no final line break. ``fix --pin`` writes
them; checking compares them (EP211), and ``index`` finds pinned lines that moved (compiler/repo/repository.py:
``find_pinned`` keeps one index per file and length, under one budget a run).

Nothing here reads files: callers give the text (compiler/repo/files.py reads it, bounded).
hashlib is imported on first use: a plan without pins, checked, never needs it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

DIGITS = 12  # 48 bits: a changed range is missed once in 2**48, and the pin stays short to read
PATTERN = re.compile(rf"[0-9a-f]{{{DIGITS}}}")
# The same rule as a JSON Schema pattern (see compiler/model/references.py for why not $).
SCHEMA_PATTERN = rf"^[0-9a-f]{{{DIGITS}}}(?![\s\S])"
# Looking for moved lines hashes every window of the cited length in the file (once per file
# and length, however many entries ask): at most this many bytes in all, per check of a plan
# (a 1 MiB file searched for a 60-line range costs 60 MiB; the common 2,000-line file, a few
# hundred KiB). Past it the search is not made, and the message says so.
MAX_SEARCH_BYTES = 256 << 20


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()[:DIGITS]


def _normal(line: str) -> bytes:
    return line.rstrip().encode("utf-8", "surrogatepass")


def pin_of(text: str) -> str:
    """The pin of some lines, given as text joined by ``\\n``."""
    return _digest(b"\n".join(_normal(line) for line in text.split("\n")))


def normal_lines(lines: Sequence[str]) -> list[bytes]:
    """Each line as a pin reads it (once per file: every window is hashed from these)."""
    return [_normal(line) for line in lines]


def search_cost(normal: Sequence[bytes], length: int) -> int:
    """About how many bytes ``index`` hashes: every line, once per window that holds it."""
    return (sum(map(len, normal)) + len(normal)) * min(length, len(normal))


def index(normal: Sequence[bytes], length: int) -> dict[str, list[int]]:
    """pin -> the 1-based first lines of the ranges of ``length`` lines that have it."""
    from hashlib import sha256  # the loop is the cost of a search: no call per window besides the hash

    join = b"\n".join
    out: dict[str, list[int]] = {}
    for start in range(len(normal) - length + 1):
        out.setdefault(sha256(join(normal[start:start + length])).hexdigest()[:DIGITS], []).append(start + 1)
    return out


def valid(pin: str) -> bool:
    return PATTERN.fullmatch(pin) is not None
