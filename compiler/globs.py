"""The paths an item writes (``paths:``): files, folders and globs relative to the root, matched
by path segment, and whether two of them can name the same file.

The grammar: segments separated by ``/``; a segment is ``**`` (any number of whole segments,
none included) or a pattern of literal characters, ``*`` (any characters but ``/``, none
included) and ``?`` (one character but ``/``). A path whose last segment has no wildcard, or
that ends with ``/``, is also a folder: it covers everything below it (``app`` and ``app/`` both
cover ``app/models/user.py``). A path whose last segment has a wildcard names what that segment
matches, at that level only (``app/*.py`` does not cover ``app/sub/x.py``), as CODEOWNERS'
``docs/*`` does. Character classes (``[abc]``) are refused: GitHub's CODEOWNERS does not have
them either, and a plan can list the files instead.

Overlap is decided, never sampled: the two paths' languages intersect iff the product of their
segment sequences (``**`` standing for any number of segments, each other segment a small regular
expression over characters) reaches the end of both, and the witness is read off the same search.
Iterative, and bounded by the product of the lengths of the two paths (a few segments each).

Plain Python, no imports beyond the standard library: ``check`` reads it.
"""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache
from typing import NamedTuple

from compiler.display import quoted

ANY = "**"  # the segment that stands for any number of whole segments
MAX_PATH = 4096  # characters in a path, and in a name (PATH_MAX and NAME_MAX of Linux, in bytes)
MAX_NAME = 255


class Glob(NamedTuple):
    """A parsed path: its segments, with a final ``**`` when it is also a folder."""

    text: str  # as the plan gives it
    segments: tuple[str, ...]
    # The leading segments without wildcards: two paths whose prefixes differ at a place both
    # have one cannot overlap (compiler/checks/paths.py buckets by it).
    literal_prefix: tuple[str, ...] = ()


# The grammar as a JSON Schema pattern (ECMA-262 and Python's re read it alike), held to
# ``problem`` by tests/test_globs.py: a segment is ** or a name without /, \\, [ ], control
# characters or ** inside it, and not . or .., at most 255 characters; an optional final /; not
# blank. (The schema adds maxLength for MAX_PATH.)
_SEGMENT = r"(?:\*\*|(?!\.\.?(?:/|$))(?:[^/\\\[\]*\x00-\x1f\x7f]|\*(?!\*)){1,255})"
SCHEMA_PATTERN = rf"^(?!\s*$){_SEGMENT}(?:/{_SEGMENT})*/?$"
_VALID = re.compile(SCHEMA_PATTERN).fullmatch  # fullmatch: $ would let a final newline through


def has_wildcard(segment: str) -> bool:
    return "*" in segment or "?" in segment


def problem(text: str) -> str | None:
    """Why ``text`` is not a path of the grammar, in our words, or None when it is one."""
    if len(text) <= MAX_PATH and _VALID(text):  # the common case, in one regular expression (the same grammar)
        return None
    if not text or text.isspace():
        return "a path is empty"
    if "\\" in text:
        return f"{quoted(text)} holds a backslash: write paths with /"
    if text.startswith("/"):
        return f"{quoted(text)} is absolute: paths are relative to the repository root"
    if "\x00" in text or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return f"{quoted(text)} holds a control character"
    if len(text) > MAX_PATH:
        return f"{quoted(text)} is longer than {MAX_PATH:,} characters"
    body = text[:-1] if text.endswith("/") else text
    for segment in body.split("/"):
        if len(segment) > MAX_NAME:
            return f"{quoted(text)} has a name longer than {MAX_NAME} characters"
        if segment == "":
            return f"{quoted(text)} has an empty segment (//)"
        if segment in (".", ".."):
            return f"{quoted(text)} has a {segment!r} segment: write the path from the root without it"
        if "[" in segment or "]" in segment:
            return (f"{quoted(text)} has a character class ([...]), which paths do not support: list the files,"
                    " or use * or ?")
        if "**" in segment and segment != ANY:
            return f"{quoted(text)} has ** inside a segment: ** stands alone between slashes (* within a name)"
    return None


def parse(text: str) -> Glob:
    """A path of the grammar (``problem(text)`` is None) as segments."""
    folder = text.endswith("/")
    parts = (text[:-1] if folder else text).split("/")
    segments: list[str] = []
    for part in parts:
        if part == ANY and segments and segments[-1] == ANY:
            continue  # **/** is **
        segments.append(part)
    if (folder or not has_wildcard(segments[-1])) and segments[-1] != ANY:
        segments.append(ANY)
    prefix = 0
    while prefix < len(segments) and not has_wildcard(segments[prefix]):
        prefix += 1
    return Glob(text, tuple(segments), tuple(segments[:prefix]))


# --- one segment against another: a small regular-expression intersection ------------------------

@lru_cache(maxsize=4096)  # plans repeat their names (`*.py` against `models.py`, ...)
def _segment_witness(a: str, b: str) -> str | None:
    """A name (no ``/``, not empty, not ``.`` or ``..``) that both segment patterns match, or
    None when there is none.

    Breadth-first over (place in a, place in b, what the name read so far is: empty, ".", ".."
    or anything else). From a state, the characters that matter are the literals at the places
    it may read next, "." and one character that neither pattern names: every other character
    behaves as that one under ``*``, ``?`` and literals, so a name exists iff one exists over
    these. At most (len(a) + 1) x (len(b) + 1) x 4 states (names are at most 255 characters), a
    few steps each; two names whose literal starts or ends disagree, and ``*`` against any
    pattern, are answered before it."""
    if _ends_differ(a, b):
        return None  # the commonest way two names are disjoint (*.py, *.md), decided at once
    for x, y in ((a, b), (b, a)):
        if x == "*":  # any name: one of the other's, made directly (a `**` against a name asks this)
            made = y.replace("*", "").replace("?", "x")
            if made not in ("", ".", ".."):
                return made
    literals = set(a.replace("*", "").replace("?", "")) | set(b.replace("*", "").replace("?", ""))
    fresh = next(c for c in "xyzabcdefghijklmnopqrstuvw0123456789_-" + "".join(map(chr, range(0x100, 0x200)))
                 if c not in literals)

    closures = {pattern: [_closure(i, pattern) for i in range(len(pattern) + 1)] for pattern in (a, b)}

    def closure(i: int, pattern: str) -> list[int]:
        return closures[pattern][i]

    def steps(i: int, pattern: str, c: str) -> list[int]:
        out = []
        for p in closure(i, pattern):
            if p < len(pattern):
                token = pattern[p]
                if token == "*":
                    out.append(p)  # * reads c and stays
                elif token == "?" or token == c:
                    out.append(p + 1)
        return out

    def alphabet(i: int, j: int) -> list[str]:
        chars = {".", fresh}
        for p in closure(i, a):
            if p < len(a) and a[p] not in "*?":
                chars.add(a[p])
        for q in closure(j, b):
            if q < len(b) and b[q] not in "*?":
                chars.add(b[q])
        return sorted(chars)

    def shape(state: int, c: str) -> int:  # 0 empty, 1 ".", 2 "..", 3 anything else
        return {(0, "."): 1, (1, "."): 2}.get((state, c), 3)

    start = (0, 0, 0)
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], str] | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        i, j, state = node
        if state == 3 and len(a) in closure(i, a) and len(b) in closure(j, b):
            name = []
            at: tuple[int, int, int] | None = node
            while at is not None and parent[at] is not None:
                back = parent[at]
                assert back is not None
                at, c = back
                name.append(c)
            return "".join(reversed(name))
        for c in alphabet(i, j):
            for p in steps(i, a, c):
                for q in steps(j, b, c):
                    nxt = (p, q, shape(state, c))
                    if nxt not in parent:
                        parent[nxt] = (node, c)
                        queue.append(nxt)
    return None


def _closure(i: int, pattern: str) -> list[int]:
    """The places a pattern may be at from place i without reading: past any run of stars."""
    out = [i]
    while i < len(pattern) and pattern[i] == "*":
        i += 1
        out.append(i)
    return out


def _ends_differ(a: str, b: str) -> bool:
    """Whether two patterns' literal starts (before their first ``*``), or their literal ends
    (after their last), disagree at a character that both fix: then no name matches both."""
    for x, y in ((a.split("*", 1)[0], b.split("*", 1)[0]), (a.rsplit("*", 1)[-1][::-1], b.rsplit("*", 1)[-1][::-1])):
        for c, d in zip(x, y, strict=False):  # the shorter one decides; ? fixes no character
            if c != d and c != "?" and d != "?":
                return True
    without_star = [p for p in (a, b) if "*" not in p]  # a pattern without * has one length
    return bool(without_star) and len(without_star[0]) < max(len(p.replace("*", "")) for p in (a, b))


def _name_matches(pattern: str, name: str) -> bool:
    """Whether a name matches one segment pattern (``*`` and ``?``), by dynamic programming over
    prefixes: no backtracking, at most len(pattern) x len(name) steps. A name is never . or .."""
    if not has_wildcard(pattern):
        return pattern == name
    if name in (".", ".."):
        return False
    row = [True] + [False] * len(name)
    for token in pattern:
        if token == "*":
            for k in range(1, len(row)):
                row[k] = row[k] or row[k - 1]
        else:
            row = [False] + [row[k] and (token == "?" or token == name[k]) for k in range(len(name))]
    return row[-1]


def witness(a: Glob, b: Glob) -> str | None:
    """A path that both globs cover, or None when they are disjoint (decided exactly).

    The product of the two segment sequences, breadth-first over (place in a, place in b,
    whether a segment was read: a path has at least one): a ``**`` may be passed by (reading
    nothing) or read one segment and stay; two patterns read one segment that both match
    (``_segment_witness``). The end of both, after a segment, is a path both cover; the path read
    there is the witness."""
    sa, sb = a.segments, b.segments
    cache: dict[tuple[str, str], str | None] = {}

    def name(x: str, y: str) -> str | None:
        if (x, y) not in cache:
            if not has_wildcard(x) or not has_wildcard(y):  # a name against a pattern: does it match?
                literal, pattern = (x, y) if not has_wildcard(x) else (y, x)
                cache[x, y] = literal if literal not in (".", "..") and _name_matches(pattern, literal) else None
            else:
                cache[x, y] = _segment_witness(x, y)
        return cache[x, y]

    State = tuple[int, int, int]
    start: State = (0, 0, 0)
    parent: dict[State, tuple[State, str | None] | None] = {start: None}
    queue: deque[State] = deque([start])
    while queue:
        node = queue.popleft()
        i, j, read = node
        if i == len(sa) and j == len(sb) and read:
            parts: list[str] = []
            at = node
            while (back := parent[at]) is not None:
                at, segment = back
                if segment is not None:
                    parts.append(segment)
            return "/".join(reversed(parts))
        x = sa[i] if i < len(sa) else None
        y = sb[j] if j < len(sb) else None
        moves: list[tuple[State, str | None]] = []
        if x == ANY:
            moves.append(((i + 1, j, read), None))  # ** reads no more
        if y == ANY:
            moves.append(((i, j + 1, read), None))
        if x is not None and y is not None:
            # One segment read by both: a ** reads it and stays, a pattern reads it and moves on.
            found = name("*" if x == ANY else x, "*" if y == ANY else y)
            if found is not None:
                moves.append(((i + (x != ANY), j + (y != ANY), 1), found))
        for nxt, segment in moves:
            if nxt not in parent:
                parent[nxt] = (node, segment)
                queue.append(nxt)
    return None


def matches(glob: Glob, path: str) -> bool:
    """Whether the glob covers a concrete path (segments of names, no wildcards), by the same
    product search: a path is a glob of literal segments."""
    segments = tuple(path.split("/"))
    if any(has_wildcard(s) for s in segments):
        raise ValueError(f"not a concrete path: {path!r}")
    return witness(glob, Glob(path, segments)) is not None
