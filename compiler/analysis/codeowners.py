"""Who owns the paths an item writes: the repository's CODEOWNERS file, read as GitHub reads it.

GitHub looks for ``.github/CODEOWNERS``, then ``CODEOWNERS``, then ``docs/CODEOWNERS`` and uses
the first it finds. Each line is a pattern and its owners (``@user``, ``@org/team``, an email);
``#`` starts a comment; blank lines are skipped; the last line that matches a file decides its
owners, and a line without owners leaves the file without any. Patterns follow gitignore's rules
with GitHub's exceptions (no ``!`` negation, no ``[ ]`` ranges, no ``\\#`` escape: those
characters are literal):

- a pattern with a ``/`` at its start or in its middle is anchored at the root (``/docs/``,
  ``docs/*``, ``build/logs``); one without (``*.js``, ``logs``, ``apps/``) matches at any depth;
- a final ``/`` names a folder, and a pattern whose last segment has no wildcard names a file or
  a folder: a folder covers everything below it (``apps/``, ``/build/logs/``, ``**/logs``);
- ``*`` and ``?`` stay within a name, so ``docs/*`` covers ``docs/a.md`` and not ``docs/x/a.md``;
  ``**`` between slashes is any number of folders; ``**`` inside a name is ``*``.

That is the segment grammar of compiler/core/globs.py, so a pattern becomes a Glob, and the question
"which lines can apply to this item's path" is the same exact overlap test as EP305's.

Bounded work: lines are put in buckets by their leading literal segments (``/app/models/`` by
``app/models``; a line that matches at any depth has none), and a path is tested only against the
lines that can match it (those whose literal part is a prefix of its own, or extends it). The
tests of one plan take at most globs.MAX_SEARCH steps in all, one pair of a path and a line at
most globs.MAX_STEPS: past either, that item's owners are marked incomplete (the lines after the
undecided one are listed; earlier ones are not), never guessed.

Only text is read, through the Repository (so never outside the root); git is never run.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from compiler.core import globs

if TYPE_CHECKING:
    from compiler.model.values import Item
    from compiler.repo.repository import Repository

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")  # GitHub's order: the first found


class Rule(NamedTuple):
    line: int  # 1-based, in the CODEOWNERS file
    pattern: str  # as written
    glob: globs.Glob
    owners: tuple[str, ...]  # empty: the files it matches have no owner


def pattern_glob(pattern: str) -> globs.Glob | None:
    """A CODEOWNERS pattern as a Glob over paths from the root, or None for one that names
    nothing (``/`` alone)."""
    folder = pattern.endswith("/")
    body = pattern.strip("/") if folder else pattern.lstrip("/")
    anchored = pattern.startswith("/") or "/" in body
    parts = [p for p in body.split("/") if p]  # gitignore reads a//b as a/b
    if not parts:
        return None
    segments: list[str] = [] if anchored else [globs.ANY]
    for part in parts:
        segment = part if part == globs.ANY else re.sub(r"\*+", "*", part)
        if segment == globs.ANY and segments and segments[-1] == globs.ANY:
            continue
        segments.append(segment)
    if (folder or not globs.has_wildcard(segments[-1])) and segments[-1] != globs.ANY:
        segments.append(globs.ANY)
    prefix = 0
    while prefix < len(segments) and not globs.has_wildcard(segments[prefix]):
        prefix += 1
    return globs.Glob(pattern, tuple(segments), tuple(segments[:prefix]))


def parse(text: str) -> list[Rule]:
    """The rules of a CODEOWNERS file, in its order. A ``#`` at the start of a line, or of a
    word after the pattern, starts a comment."""
    rules = []
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        owners: list[str] = []
        for word in words[1:]:
            if word.startswith("#"):
                break
            owners.append(word)
        glob = pattern_glob(words[0])
        if glob is not None:
            rules.append(Rule(line=n, pattern=words[0], glob=glob, owners=tuple(owners)))
    return rules


def find(repo: Repository) -> tuple[str, list[Rule]] | None:
    """The CODEOWNERS file GitHub would use, and its rules; None when there is none."""
    for path in LOCATIONS:
        if repo.facts(path).kind == "file":
            text = repo.text(path)
            return (path, parse(text)) if text is not None else None
    return None


def _contains(rule: globs.Glob, path: globs.Glob, search: Search) -> bool:
    """Whether every file ``path`` names is covered by ``rule``, which overlaps it (the caller
    found so): sound for the shapes rules usually have (never True when it is not so), else
    False, which only lets an earlier rule be listed as well."""
    r, p = rule.segments, path.segments
    if not any(globs.has_wildcard(s) for s in p):  # one file, which the rule overlaps: covered
        return True
    if r in ((globs.ANY,), (globs.ANY, "*")):  # everything: every path has a last name
        return True
    if r[-1] == globs.ANY and not any(globs.has_wildcard(s) for s in r[:-1]):  # a folder from the root
        return len(path.literal_prefix) >= len(r) - 1 and path.literal_prefix[:len(r) - 1] == r[:-1]
    literal = {s for s in p if not globs.has_wildcard(s)}
    if len(r) == 3 and r[0] == r[2] == globs.ANY and not globs.has_wildcard(r[1]):  # a folder at any depth
        return r[1] in literal
    if len(r) == 2 and r[0] == globs.ANY and p[-1] != globs.ANY:  # a name pattern at any depth
        last = p[-1]
        return r[1] == "*" or last == r[1] or (not globs.has_wildcard(last) and search.overlaps(
            globs.Glob(r[1], (r[1],)), globs.Glob(last, (last,))))
    return False


def as_files(text: str, repo: Repository) -> globs.Glob:
    """An item's path as the files it names, for ownership: a folder (a final ``/``, a path that
    ends in ``**``, or one that is a folder in the repository) is everything below it; any other
    path names exactly what it matches (``tests/test_new.py``, a file to be created)."""
    glob = globs.parse(text)
    folder = text.endswith("/") or text.endswith(globs.ANY) or repo.facts(text.rstrip("/")).kind == "folder"
    if folder or glob.segments[-1] != globs.ANY:
        return glob
    return glob._replace(segments=glob.segments[:-1])


class Index:
    """The rules of a CODEOWNERS file by their leading literal segments, so that a path meets only
    the rules that can match it."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.by_prefix: dict[tuple[str, ...], list[int]] = {}
        for k, rule in enumerate(rules):
            self.by_prefix.setdefault(rule.glob.literal_prefix, []).append(k)
        self.prefixes = sorted(self.by_prefix)

    def candidates(self, path: globs.Glob, search: Search | None = None) -> Iterator[int]:
        """The places of the rules that may match some file of ``path``, from the last line back:
        a rule whose literal segments and the path's differ at a place both have one matches
        none of its files. Each bucket that extends the path's literal part is a step of
        ``search`` (a path without one meets them all); the places are merged as they are read."""
        search = Search() if search is None else search
        prefix = path.literal_prefix
        lists: list[list[int]] = []
        for k in range(len(prefix)):  # the rules whose literal part is shorter: a prefix of the path's
            if (shorter := self.by_prefix.get(prefix[:k])) is not None:
                lists.append(shorter)
        at = bisect_left(self.prefixes, prefix)  # the rules whose literal part starts with the path's
        while at < len(self.prefixes) and self.prefixes[at][:len(prefix)] == prefix:
            search.take(1)
            lists.append(self.by_prefix[self.prefixes[at]])
            at += 1
        return heapq.merge(*(reversed(places) for places in lists), reverse=True)


class Search:
    """The steps left for the owners of one plan (globs.MAX_SEARCH), spent pair by pair."""

    def __init__(self, steps: int | None = None) -> None:
        self.left = globs.MAX_SEARCH if steps is None else steps

    def take(self, n: int) -> None:
        """Spend ``n`` steps; raises globs.Undecided when fewer are left."""
        if n > self.left:
            self.left = 0
            raise globs.Undecided
        self.left -= n

    def overlaps(self, a: globs.Glob, b: globs.Glob) -> bool:
        """globs.overlaps within the steps of one pair and those left; raises globs.Undecided."""
        steps = globs.Steps(min(globs.MAX_STEPS, self.left))
        try:
            return globs.overlaps(a, b, steps)
        finally:
            self.left -= min(steps.used, steps.limit)


def deciding(path: globs.Glob, index: Index, search: Search) -> tuple[list[Rule], bool]:
    """The rules that decide the owners of some file the path names, in the file's order: from the
    last line back, each that overlaps it, until one covers all of it (the lines before that one
    apply to none of its files). And whether that is all of them: False when a line could not be
    decided within the steps, where the search stopped."""
    found: list[Rule] = []
    complete = True
    try:
        candidates = index.candidates(path, search)
    except globs.Undecided:
        return found, False
    for k in candidates:
        rule = index.rules[k]
        try:
            if not search.overlaps(rule.glob, path):
                continue
        except globs.Undecided:
            complete = False
            break
        found.append(rule)
        try:
            if _contains(rule.glob, path, search):
                break
        except globs.Undecided:  # it may or may not cover all of it: the lines before are listed too
            pass
    found.reverse()
    return found, complete


def owners_of(path: globs.Glob, rules: list[Rule]) -> list[Rule]:
    """The rules that decide the owners of some file the path names (``deciding``), within a
    plan's steps."""
    return deciding(path, Index(rules), Search())[0]


class ItemOwners(NamedTuple):
    owners: dict[int, tuple[str, ...]]  # item position -> the owners of its paths
    incomplete: frozenset[int]  # the items whose owners could not all be decided within the steps


def item_owners(items: Iterable[Item], repo: Repository) -> ItemOwners:
    """Item position -> the owners of its paths (each once, in the order found), for the items
    that give paths, when the repository has a CODEOWNERS file; and the items whose owners are
    incomplete."""
    out: dict[int, tuple[str, ...]] = {}
    incomplete: set[int] = set()
    writing = [item for item in items if item.options and item.option("paths") and "paths" not in item.broken]
    if not writing:
        return ItemOwners(out, frozenset())
    found = find(repo)
    if found is None:
        return ItemOwners(out, frozenset())
    index = Index(found[1])
    search = Search()
    for item in writing:
        names: dict[str, None] = {}
        for text in item.option("paths"):
            rules, complete = deciding(as_files(text, repo), index, search)
            for rule in rules:
                names.update(dict.fromkeys(rule.owners))
            if not complete:
                incomplete.add(item.position)
        out[item.position] = tuple(names)
    return ItemOwners(out, frozenset(incomplete))
