"""`fix --to-symbols`: line evidence that covers exactly one definition, rewritten as that
definition (``app/x.py:10-24`` -> ``app/x.py::Name``), which still holds when code above it moves.

The rewrite is meaning-preserving, judged by the finder that checks evidence (compiler/repo/repository.py):
a name is used only when ``repo.symbol(path, name)`` -- what ``check`` resolves for
``path::Name`` -- gives exactly the cited lines, and the rewritten entry verifies with its
``contains``. So a decorated function's range starts at its first decorator, a range that takes
in one more line (a blank line after the function, the line before it) is left alone, and so is
anything that does not verify now. A name that is not unique in its file (a Markdown heading
written twice, EP212) is never written: ``repo.symbol`` resolves it to nothing, and the heading's
parent-qualified name (``26.10.0.Output``) is offered instead. Where several names share the
lines, the most specific is used when they are nested in one another (``tool.pytest.ini_options``,
not ``tool.pytest`` or ``tool``; ``A.x`` of ``class A: x = 1``): it is the one a later addition
leaves in place. Else the outermost, when every other is nested in it (``A`` of ``class A: x = y
= 1``); names side by side (``a = b = 1``) are ambiguous and left, with the reason. URL, folder,
whole-file and symbol evidence is left as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.api.edit import Edit, Rename
from compiler.core.display import clip
from compiler.model.values import Evidence

if TYPE_CHECKING:
    from compiler.compile.pipeline import CompileResult
    from compiler.repo.repository import Repository

Spans = dict[tuple[int, int], list[str]]  # (first, last line) -> the names defined on exactly those lines


def _spans(repo: Repository, path: str) -> Spans:
    out: Spans = {}
    for name, span in repo.symbols(path).items():
        out.setdefault(span, []).append(name)
    return out


def most_specific(names: list[str]) -> str | None:
    """The name of ``names`` nested in every other (``tool.pytest.ini_options`` of ``tool``,
    ``tool.pytest`` and it), else the one every other is nested in (``outermost``), else None."""
    deepest = max(names, key=lambda n: (n.count("."), len(n)))
    if all(n == deepest or deepest.startswith(n + ".") for n in names):
        return deepest
    return outermost(names)


def outermost(names: list[str]) -> str | None:
    """The one name that every other of ``names`` is nested in (``A`` of ``A``, ``A.x``,
    ``A.y``), or None when there is none (``a``, ``b``)."""
    shortest = min(names, key=lambda n: (n.count("."), len(n)))
    if all(n == shortest or n.startswith(shortest + ".") for n in names):
        return shortest
    return None


def symbol_edits(result: CompileResult, repo: Repository) -> tuple[list[Edit], list[str], list[str]]:
    """The rewrites of line evidence into symbol evidence that a compiled plan allows: (edits,
    one description per edit, the entries that cover a definition but were left, and why)."""
    from compiler.checks.context import repeated
    from compiler.checks.evidence import verify
    from compiler.model.references import parse_reference

    plan, base = result.plan, result.plan.items_path
    edits: list[Edit] = []
    notes: list[str] = []
    left: list[str] = []
    spans: dict[str, Spans] = {}  # per file, built once however many entries cite it
    raw_items = result.document.data
    for part in base:
        raw_items = raw_items[part]
    for item in plan.items:
        entries = raw_items[item.position].get("evidence") if isinstance(raw_items[item.position], dict) else None
        if not isinstance(entries, list):
            continue
        repeats = set(repeated(item.evidence))  # removed by fix: the first of them is the one kept
        cited = {ev for j, ev in enumerate(item.evidence) if j not in repeats}
        for j, ev in enumerate(item.evidence):
            path = ev.path
            if j in repeats or path is None or ev.start is None or ev.end is None or ev.symbol is not None:
                continue
            facts = repo.facts(path)
            if facts.kind != "file" or facts.binary or facts.lines is None:  # a large file has no symbols
                continue
            if verify(ev, repo, item.id) is not None:  # drifted, moved, past the end: what it means is in doubt
                continue
            if path not in spans:
                spans[path] = _spans(repo, path)
            # What check resolves each name to must be these very lines (the first of two
            # definitions of a name is the one `path::name` means).
            names = [n for n in spans[path].get((ev.start, ev.end), ()) if repo.symbol(path, n) == (ev.start, ev.end)]
            if not names:
                continue
            label, ref = clip(item.id), clip(ev.ref())
            name = most_specific(names)
            if name is None:
                ordered = sorted(names)
                shown = ", ".join(ordered[:-1][:4]) + (", ..." if len(ordered) > 5 else "") + f" and {ordered[-1]}"
                left.append(f"{label}: {ref} covers {clip(shown)} alike (each is defined on exactly those lines):"
                            f" cite the one meant as {clip(path)}::NAME by hand")
                continue
            new = Evidence(path=path, symbol=name, contains=ev.contains)
            if not name.isprintable() or name != name.strip() or verify(new, repo, item.id) is not None:
                continue  # a name no plan could spell as it is, or that does not hold with the contains
            if new in cited:
                left.append(f"{label}: {ref} is {clip(new.ref())}, which {label} cites already: remove one by hand")
                continue
            where = (*base, item.position, "evidence", item.evidence_index(j))
            entry = entries[item.evidence_index(j)]
            if isinstance(entry, str):
                text = f"{path}::{name}"
                if parse_reference(text)[0] != new:  # a path that reads differently before "::"
                    continue
                edits.append((where, text))
            elif isinstance(entry, dict) and ("line" in entry) != ("lines" in entry):
                edits.append(((*where, "line" if "line" in entry else "lines"), Rename("symbol", name)))
            else:
                continue
            cited.add(new)
            notes.append(f"{label}: {ref} -> {clip(new.ref())}")
    return edits, notes, left
