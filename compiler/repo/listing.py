"""What a file offers as symbol evidence: every name that ``path::Name`` resolves in it, with
its lines, found exactly as evidence checking finds them (compiler/repo/repository.py and
compiler/repo/symbols.py). The library half of `evidence-plan symbols`; read-only and bounded like
evidence checking."""

from __future__ import annotations

import os
from typing import NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.core.display import clip
from compiler.core.paths import leaves_root, relative_posix, work_tree


class Symbol(NamedTuple):
    name: str
    first: int
    last: int


class Listing(NamedTuple):
    path: str  # relative to the root, as evidence cites it
    symbols: tuple[Symbol, ...]  # in the file's order
    note: str | None = None  # why some or all names are missing (not parsed, too large)

    def evidence(self, symbol: Symbol) -> str:
        return f"{self.path}::{symbol.name}"

    def rows(self) -> list[dict[str, str]]:
        """Each symbol as `symbols --format json` (and the agent server's find_evidence) gives it."""
        return [{"evidence": self.evidence(s), "path": self.path, "symbol": s.name, "lines": f"{s.first}-{s.last}"}
                for s in self.symbols]


def repository_root(root: str | None, near: str) -> str:
    """The root the commands that look into a repository cite from: ``root`` (--root), else the
    git work tree that holds ``near``, else ``near`` itself. EP006 when it is not a folder."""
    base = os.path.abspath(root) if root is not None else (work_tree(near) or near)
    if not os.path.isdir(base):
        raise PlanInputError(Diagnostic("EP006", f"the repository root {clip(root or base)} is not a folder",
                                        location=Location(root or base), hint="fix --root"))
    return base


def cited_path(path: str, base: str) -> str:
    """``path`` as evidence cites it: POSIX, relative to ``base``. EP204 when it leaves the root."""
    rel = relative_posix(os.path.abspath(path), base)
    if leaves_root(rel):
        raise PlanInputError(Diagnostic("EP204", f"{clip(path)} is outside the repository root {clip(base)}",
                                        location=Location(path), hint="give --root the repository that holds it"))
    return rel


def list_symbols(path: str, root: str | None = None) -> Listing:
    """The symbols of the file at ``path``, cited from ``root`` (default: the git work tree that
    holds the file, else its folder). Raises ``PlanInputError`` for a file that is missing, not a
    file, unreadable, or outside the root."""
    from compiler.repo.repository import Repository

    where = Location(path)
    base = repository_root(root, os.path.dirname(os.path.abspath(path)))
    rel = cited_path(path, base)
    repo = Repository(base)
    facts = repo.facts(rel)
    problem = {
        "missing": "does not exist",
        "folder": "is a folder: give a file",
        "unsafe": f"{facts.problem}; it was not read",
        "special": f"cannot be read: {facts.problem}",
        "unreadable": f"cannot be read: {facts.problem}",
    }.get(facts.kind)
    if problem is None and facts.binary:
        problem = "is a binary file: it has no symbols"
    if problem is not None:
        code = {"missing": "EP201", "folder": "EP205", "unsafe": "EP204"}.get(facts.kind, "EP207")
        raise PlanInputError(Diagnostic(code, f"{clip(path)} {problem}", location=where))
    found = repo.symbols(rel)
    note = repo.not_parsed(rel)
    if note is None and repo.too_large_to_parse(rel):
        note = "too large to parse whole: only its definition-looking lines are listed"
    if note is None and facts.names is not None:  # Markdown: headings no name tells apart
        named = set(found.values())
        unnamed = sorted({span for spans in facts.names.values() for span in spans} - named)
        if unnamed:
            shown = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in unnamed[:5])
            shown += ", ..." if len(unnamed) > 5 else ""
            note = (f"{len(unnamed):,} heading{'s' if len(unnamed) > 1 else ''} of the same text under the same"
                    f" parents have no unique name: cite {'their' if len(unnamed) > 1 else 'its'} lines ({shown})")
    symbols = sorted((Symbol(name, first, last) for name, (first, last) in found.items()),
                     key=lambda s: (s.first, -s.last, s.name))
    return Listing(rel, tuple(symbols), note)
