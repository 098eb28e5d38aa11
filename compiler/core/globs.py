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
Iterative, and bounded twice: by the product of the lengths of the two paths (a few segments
each), and by a budget of steps (``MAX_STEPS`` for one pair, a step being one state of either
search) past which the pair is left undecided (``Undecided``), never guessed: two paths of 2,000
characters full of wildcards would otherwise take half a minute.

Plain Python, no imports beyond the standard library: ``check`` reads it.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import NamedTuple

from compiler.core.display import quoted
from compiler.core.lazy import lazy

ANY = "**"  # the segment that stands for any number of whole segments
# Steps of the overlap search for one pair of paths at most (a step: one state visited, in the
# search over their segments or over the characters of two names; one row of a name matched
# against a pattern). Real pairs take tens; two names of 255 characters full of wildcards take
# up to about 30,000 (a few tenths of a second), and are still decided.
MAX_STEPS = 50_000
# Steps of one plan's searches in all, for each use: EP305's comparisons (compiler/checks/paths.py),
# the owners of the items' paths (compiler/analysis/codeowners.py). Real pairs take tens of steps each (a
# path that starts with ** against another, 18): this is reached by paths made to be slow, or by
# some 100,000 pairs of paths that start with a wildcard. A few seconds at most.
MAX_SEARCH = 40 * MAX_STEPS
MAX_PATH = 4096  # characters in a path, and in a name (PATH_MAX and NAME_MAX of Linux, in bytes)
MAX_NAME = 255


class Undecided(Exception):
    """The overlap search of one pair ran out of its steps: the pair may or may not overlap."""


class Steps:
    """A budget of steps for ``witness``, spent as it searches; ``used`` counts them."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_STEPS if limit is None else limit
        self.used = 0

    def spend(self, n: int) -> None:
        """Count ``n`` steps about to be taken; raises Undecided past the limit."""
        self.used += n
        if self.used > self.limit:
            raise Undecided


class Glob(NamedTuple):
    """A parsed path: its segments, with a final ``**`` when it is also a folder."""

    text: str  # as the plan gives it
    segments: tuple[str, ...]
    # The leading segments without wildcards: two paths whose prefixes differ at a place both
    # have one cannot overlap (compiler/checks/paths.py buckets by it).
    literal_prefix: tuple[str, ...] = ()


# The grammar as a JSON Schema pattern (ECMA-262 and Python's re read it alike), held to
# ``problem`` by tests/core/test_globs.py: a segment is ** or a name without /, \\, [ ], control
# characters or ** inside it, and not . or .., at most 255 characters; an optional final /; not
# blank. (The schema adds maxLength for MAX_PATH.)
_SEGMENT = r"(?:\*\*|(?!\.\.?(?:/|$))(?:[^/\\\[\]*\x00-\x1f\x7f]|\*(?!\*)){1,255})"
SCHEMA_PATTERN = rf"^(?!\s*$){_SEGMENT}(?:/{_SEGMENT})*/?$"
_VALID = lazy(SCHEMA_PATTERN)  # fullmatch: $ would let a final newline through; compiled for a plan that gives paths


def has_wildcard(segment: str) -> bool:
    return "*" in segment or "?" in segment


def problem(text: str) -> str | None:
    """Why ``text`` is not a path of the grammar, in our words, or None when it is one."""
    if len(text) <= MAX_PATH and _VALID().fullmatch(text):  # the common case: one regular expression
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


def repaired(text: str) -> str | None:
    """The path that ``problem``'s message spells out, when there is one (EP018's fix): a
    backslash written ``/``, and ``.``, ``..`` and empty segments taken out as a path is
    normalised (``./src\\a//b/../c.py`` is ``src/a/c.py``); None when that leaves the root, or is
    no path of the grammar either (a character class, a control character)."""
    import posixpath

    fixed = text.replace("\\", "/")
    normal = posixpath.normpath(fixed) + ("/" if fixed.endswith("/") and fixed.strip("/") else "")
    if normal in (".", "./", "..", "../") or normal.startswith(("../", "/")) or normal == text:
        return None
    return normal if problem(normal) is None else None


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
def _segment_witness(a: str, b: str) -> tuple[str | None, int]:
    """A name (no ``/``, not empty, not ``.`` or ``..``) that both segment patterns match, or
    None when there is none; and the steps it took (states visited, at least 1). Past MAX_STEPS
    it stops: the steps are then MAX_STEPS + 1 and the name None, undecided. The steps are part
    of what is cached, so that a name found once costs the same every time (the budget of a
    pair does not depend on what was asked before).

    Breadth-first over (place in a, place in b, what the name read so far is: empty, ".", ".."
    or anything else). From a state, the characters that matter are the literals at the places
    it may read next, "." and one character that neither pattern names: every other character
    behaves as that one under ``*``, ``?`` and literals, so a name exists iff one exists over
    these. At most (len(a) + 1) x (len(b) + 1) x 4 states (names are at most 255 characters), a
    few steps each; two names whose literal starts or ends disagree, and ``*`` against any
    pattern, are answered before it."""
    if _ends_differ(a, b):
        return None, 1  # the commonest way two names are disjoint (*.py, *.md), decided at once
    for x, y in ((a, b), (b, a)):
        if x == "*":  # any name: one of the other's, made directly (a `**` against a name asks this)
            made = y.replace("*", "").replace("?", "x")
            if made not in ("", ".", ".."):
                return made, 1
    literals = set(a.replace("*", "").replace("?", "")) | set(b.replace("*", "").replace("?", ""))
    fresh = next(c for c in "xyzabcdefghijklmnopqrstuvw0123456789_-" + "".join(map(chr, range(0x100, 0x200)))
                 if c not in literals)
    ends_a, lits_a, moves_a, other_a = _places(a)
    ends_b, lits_b, moves_b, other_b = _places(b)
    start = (0, 0, 0)
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], str] | None] = {start: None}
    queue = deque([start])
    taken = 0
    while queue:
        taken += 1
        if taken > MAX_STEPS:
            return None, taken
        node = queue.popleft()
        i, j, state = node
        if state == 3 and ends_a[i] and ends_b[j]:
            name = []
            at: tuple[int, int, int] | None = node
            while at is not None and parent[at] is not None:
                back = parent[at]
                assert back is not None
                at, c = back
                name.append(c)
            return "".join(reversed(name)), taken
        named = lits_a[i] | lits_b[j]
        # Every character that neither names reads as `fresh` does, so one of them is enough; "."
        # is also tried while it is the whole name so far (a name is never . or ..).
        chars = sorted(named | {"."}) if state < 3 else sorted(named) if named else []
        chars.append(fresh)
        for c in chars:
            # 0 empty, 1 ".", 2 "..", 3 anything else
            after = state + 1 if c == "." and state < 2 else 3
            for p in moves_a[i].get(c, other_a[i]):
                for q in moves_b[j].get(c, other_b[j]):
                    nxt = (p, q, after)
                    if nxt not in parent:
                        parent[nxt] = (node, c)
                        queue.append(nxt)
    return None, max(taken, 1)


_Places = tuple[tuple[bool, ...], tuple[frozenset[str], ...], tuple[dict[str, tuple[int, ...]], ...],
                tuple[tuple[int, ...], ...]]


@lru_cache(maxsize=1024)  # a name pattern is met again in the next pair
def _places(pattern: str) -> _Places:
    """For each place i in a name pattern (0 to its length): whether it may end there, the
    literals it may read next, where each of them leads, and where any other character leads
    (under ``*`` and ``?``), each in the order of the places read from."""
    ends: list[bool] = []
    lits: list[frozenset[str]] = []
    moves: list[dict[str, tuple[int, ...]]] = []
    other: list[tuple[int, ...]] = []
    for i in range(len(pattern) + 1):
        places = _closure(i, pattern)
        ends.append(len(pattern) in places)
        tokens = [(p, pattern[p]) for p in places if p < len(pattern)]
        chars = frozenset(t for _, t in tokens if t not in "*?")

        def step(c: str, tokens: list[tuple[int, str]] = tokens) -> tuple[int, ...]:
            return tuple(p if t == "*" else p + 1 for p, t in tokens if t in "*?" or t == c)

        lits.append(chars)
        moves.append({c: step(c) for c in chars})
        other.append(step(""))
    return tuple(ends), tuple(lits), tuple(moves), tuple(other)


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


def witness(a: Glob, b: Glob, steps: Steps | None = None) -> str | None:
    """A path that both globs cover, or None when they are disjoint (decided exactly), within
    ``steps`` (by default a budget of MAX_STEPS); raises Undecided when they run out.

    The product of the two segment sequences, breadth-first over (place in a, place in b,
    whether a segment was read: a path has at least one): a ``**`` may be passed by (reading
    nothing) or read one segment and stay; two patterns read one segment that both match
    (``_segment_witness``). The end of both, after a segment, is a path both cover; the path read
    there is the witness. Each state visited is a step, and so is each state of the searches
    over two names (once per pair of names)."""
    if steps is None:
        steps = Steps()
    sa, sb = a.segments, b.segments
    cache: dict[tuple[str, str], str | None] = {}

    def name(x: str, y: str) -> str | None:
        if (x, y) not in cache:
            if not has_wildcard(x) or not has_wildcard(y):  # a name against a pattern: does it match?
                literal, pattern = (x, y) if not has_wildcard(x) else (y, x)
                steps.spend(len(pattern) if has_wildcard(pattern) else 1)  # a row per character of the pattern
                cache[x, y] = literal if literal not in (".", "..") and _name_matches(pattern, literal) else None
            else:
                # In one order, whichever way round it is asked: the same pair costs the same.
                found, taken = _segment_witness(x, y) if x <= y else _segment_witness(y, x)
                steps.spend(taken)
                if taken > MAX_STEPS:
                    raise Undecided
                cache[x, y] = found
        return cache[x, y]

    State = tuple[int, int, int]
    start: State = (0, 0, 0)
    parent: dict[State, tuple[State, str | None] | None] = {start: None}
    queue: deque[State] = deque([start])
    while queue:
        steps.spend(1)
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


def overlaps(a: Glob, b: Glob, steps: Steps | None = None) -> bool:
    """Whether some path is covered by both (``witness(a, b)`` is not None), answered in one step
    for the shapes that CODEOWNERS asks most, else by the search within ``steps``:

    - a path that ends with ``**`` (a folder) and one that starts with it (a pattern at any
      depth) always overlap: the first's names, then the second's, is a path both cover;
    - a pattern at any depth with no other ``**`` (``**/*.js``, ``**/docs/*.md``) against a path
      of names only is matched against its last names."""
    steps = Steps() if steps is None else steps
    for x, y in ((a, b), (b, a)):
        if x.segments[-1] == ANY and y.segments[0] == ANY and _nameable(x) and _nameable(y):
            steps.spend(1)
            return True
    for x, y in ((a, b), (b, a)):
        rest = x.segments[1:]
        if x.segments[0] == ANY and ANY not in rest and not any(has_wildcard(s) for s in y.segments):
            steps.spend(1 + sum(len(s) for s in rest))  # a row per character of each pattern
            names = y.segments[len(y.segments) - len(rest):]
            return len(rest) <= len(y.segments) and all(
                n not in (".", "..") and _name_matches(p, n) for p, n in zip(rest, names, strict=True))
    return witness(a, b, steps) is not None


def _nameable(glob: Glob) -> bool:
    """Whether each segment matches some name (only ``.`` and ``..`` match none)."""
    return not any(s in (".", "..") for s in glob.segments)


def matches(glob: Glob, path: str) -> bool:
    """Whether ``glob`` covers the file ``path`` (a relative POSIX path): ``**`` any number of
    whole segments, each other segment a name pattern. By dynamic programming over the segments,
    no backtracking: at most len(glob.segments) x len(parts) steps (`verify`'s cache expands
    ``paths:`` with it)."""
    parts = path.split("/")
    row = [True] + [False] * len(parts)  # row[k]: the segments so far match parts[:k]
    for segment in glob.segments:
        if segment == ANY:
            for k in range(1, len(row)):
                row[k] = row[k] or row[k - 1]
        else:
            row = [False] + [row[k] and _name_matches(segment, parts[k]) for k in range(len(parts))]
    return row[-1]
