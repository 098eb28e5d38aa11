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

That is the segment grammar of compiler/globs.py, so a pattern becomes a Glob, and the question
"which lines can apply to this item's path" is the same exact overlap test as EP305's.

Only text is read, through the Repository (so never outside the root); git is never run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from compiler import globs

if TYPE_CHECKING:
    from compiler.repository import Repository
    from compiler.values import Item

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
            rules.append(Rule(n, words[0], glob, tuple(owners)))
    return rules


def find(repo: Repository) -> tuple[str, list[Rule]] | None:
    """The CODEOWNERS file GitHub would use, and its rules; None when there is none."""
    for path in LOCATIONS:
        if repo.facts(path).kind == "file":
            text = repo.text(path)
            return (path, parse(text)) if text is not None else None
    return None


def _contains(rule: globs.Glob, path: globs.Glob) -> bool:
    """Whether every file ``path`` names is covered by ``rule``: sound for the shapes rules
    usually have (never True when it is not so), else False, which only lets an earlier rule be
    listed as well."""
    r, p = rule.segments, path.segments
    if not any(globs.has_wildcard(s) for s in p):  # one file
        return globs.witness(rule, path) is not None
    if r in ((globs.ANY,), (globs.ANY, "*")):  # everything: every path has a last name
        return True
    if r[-1] == globs.ANY and not any(globs.has_wildcard(s) for s in r[:-1]):  # a folder from the root
        return len(path.literal_prefix) >= len(r) - 1 and path.literal_prefix[:len(r) - 1] == r[:-1]
    literal = {s for s in p if not globs.has_wildcard(s)}
    if len(r) == 3 and r[0] == r[2] == globs.ANY and not globs.has_wildcard(r[1]):  # a folder at any depth
        return r[1] in literal
    if len(r) == 2 and r[0] == globs.ANY and p[-1] != globs.ANY:  # a name pattern at any depth
        last = p[-1]
        return r[1] == "*" or last == r[1] or (not globs.has_wildcard(last) and globs.witness(
            globs.Glob(r[1], (r[1],)), globs.Glob(last, (last,))) is not None)
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


def owners_of(path: globs.Glob, rules: list[Rule]) -> list[Rule]:
    """The rules that decide the owners of some file the path names: from the last line back, each
    that overlaps it, until one covers all of it (the lines before that one apply to none of its
    files). Returned in the file's order."""
    found = []
    for rule in reversed(rules):
        if globs.witness(rule.glob, path) is None:
            continue
        found.append(rule)
        if _contains(rule.glob, path):
            break
    found.reverse()
    return found


def item_owners(items: Iterable[Item], repo: Repository) -> dict[int, tuple[str, ...]]:
    """Item position -> the owners of its paths (each once, in the order found), for the items
    that give paths, when the repository has a CODEOWNERS file."""
    out: dict[int, tuple[str, ...]] = {}
    writing = [item for item in items if item.options and item.option("paths") and "paths" not in item.broken]
    if not writing:
        return out
    found = find(repo)
    if found is None:
        return out
    _, rules = found
    for item in writing:
        names: dict[str, None] = {}
        for text in item.option("paths"):
            for rule in owners_of(as_files(text, repo), rules):
                names.update(dict.fromkeys(rule.owners))
        out[item.position] = tuple(names)
    return out
