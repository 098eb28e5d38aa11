"""Where a text occurs in a repository, each hit as the evidence entries that would cite it: the
line, the enclosing definition (path::Symbol, with its lines) and a contains form. The library
half of `evidence-plan where`.

Files are those of the repository tree as compiler/repo/discover.py walks it (symlinks never followed;
.git, node_modules, virtual environments and tool caches skipped; git's index is not read), or
the files and folders given; each is read as evidence checking reads it (compiler/repo/files.py:
inside the root only, without blocking, binary files skipped), its bytes first: a file whose bytes
do not hold the text is never decoded, and nothing of it is kept (``Repository.search``). Read-only
and bounded: at most ``max_hits`` hits, and the walk's own limit."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.core.display import clip
from compiler.repo.listing import Symbol, cited_path, repository_root

MAX_HITS = 200


class Hit(NamedTuple):
    path: str  # relative to the root, as evidence cites it
    line: int
    definition: Symbol | None  # the smallest definition whose lines hold the hit


class Found(NamedTuple):
    root: str
    hits: tuple[Hit, ...]
    files: int  # files searched
    more: bool  # stopped at max_hits


def enclosing(symbols: dict[str, tuple[int, int]], line: int) -> Symbol | None:
    """The smallest definition that holds ``line`` (the first in the file among equals)."""
    best: Symbol | None = None
    for name, (first, last) in symbols.items():
        if first <= line <= last and (best is None or last - first < best.last - best.first):
            best = Symbol(name, first, last)
    return best


def where(text: str, root: str | None = None, within: Sequence[str] = (), max_hits: int = MAX_HITS) -> Found:
    """Every place ``text`` occurs (its first line, once per line), under ``root`` (default: the
    git work tree of the working folder, else that folder), in ``within`` (files or folders; default
    the whole tree). Raises ``PlanInputError`` for an empty text, a root that is not a folder, or a
    path of ``within`` that is missing or outside the root."""
    from compiler.repo.discover import tree_files
    from compiler.repo.repository import Repository

    if not text.strip() or "\n" in text:
        raise PlanInputError(Diagnostic("EP014", "give one line of text to look for, not an empty one",
                                        location=Location("<text>")))
    base = repository_root(root, os.getcwd())
    paths: list[str] = []
    for given in within or [base]:
        rel = cited_path(given, base)
        if os.path.isdir(given):
            folder = os.path.join(base, rel) if rel != "." else base
            found = tree_files(folder, purpose="searched", hint="give a smaller folder with --in")
            if isinstance(found, Diagnostic):
                raise PlanInputError(found)
            cut = len(folder.rstrip("/" + os.sep)) + 1  # each starts with the folder as given: keep the rest
            lead = "" if rel == "." else rel + "/"
            paths += [lead + p[cut:] for p in found]
        elif os.path.lexists(given):
            paths.append(rel)
        else:
            raise PlanInputError(Diagnostic("EP201", f"{clip(given)} does not exist", location=Location(given)))
    repo = Repository(base)
    hits: list[Hit] = []
    more = False
    try:
        for path in dict.fromkeys(paths):
            lines = repo.search(path, text, limit=max_hits - len(hits) + 1)  # bytes first: see search
            if not lines:
                repo.forget(path)  # only the files that hold the text are kept
                continue
            symbols = repo.symbols(path)
            for line in lines:
                if len(hits) == max_hits:
                    more = True
                    break
                hits.append(Hit(path, line, enclosing(symbols, line)))
            if more:
                break
    finally:
        repo.close()
    return Found(root=base, hits=tuple(hits), files=len(paths), more=more)


def rows(found: Found, text: str) -> list[dict[str, Any]]:
    """Each hit as the evidence entries that would cite it: `where --format json` (and the agent
    server's find_evidence)."""
    out: list[dict[str, Any]] = []
    for hit in found.hits:
        span = (hit.definition.first, hit.definition.last) if hit.definition else (hit.line, hit.line)
        lines = f"{span[0]}-{span[1]}" if span[0] != span[1] else str(span[0])
        out.append({
            "reference": f"{hit.path}:{hit.line}",
            "path": hit.path,
            "line": hit.line,
            "symbol": None if hit.definition is None else {
                "evidence": f"{hit.path}::{hit.definition.name}", "lines": f"{span[0]}-{span[1]}"},
            "contains": {"path": hit.path, "lines": lines, "contains": text},
        })
    return out
