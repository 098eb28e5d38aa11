"""`fix`: repair what can be repaired mechanically, and nothing else.

Two repairs, both meaning-preserving, and one rewrite on request:

- an evidence entry whose ``contains`` text moved to exactly one other place in the file gets
  its ``line``/``lines`` shifted whole, so that it covers the same code: carried through the
  file's change since the plan's commit, as `git blame` carries lines (compiler/repo/history.py),
  when the plan is in git and unchanged since; a one-line entry moves to the text's line. Any
  other shift (``moved_range``: the smallest that covers the text) is a guess, applied only with
  ``unsafe`` (`fix --unsafe-fixes`) and otherwise listed as left;
- repeated entries in ``depends_on`` and ``evidence`` are removed (the first is kept), and so
  are dependencies already implied through another (EP306: a -> c when a -> b -> c);
- with ``to_symbols``, line evidence that covers exactly one definition becomes that definition,
  ``path::Name`` (compiler/api/fix_symbols.py).

The edits are made by compiler/api/edit.py, the editor fix shares with approve: a YAML plan keeps
every byte but the changed scalars and the removed entries' lines. The edited text is parsed again
and must give exactly the intended data, or nothing is written. JSON plans are rewritten in
convert's layout (one key per line).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compiler.api.edit import (
    REMOVE,
    Edit,
    EditError,
    OnDisk,
    Rename,
    apply_to_data,
    apply_to_yaml,
    same_key_order,
    shared_through_alias,
)
from compiler.compile.pipeline import CompileResult, compile_document
from compiler.core.display import clip, quoted
from compiler.load.document import Document, parse_text
from compiler.load.sourcemap import Path
from compiler.model.values import Evidence, Item
from compiler.repo.history import History
from compiler.repo.repository import Repository


@dataclass(kw_only=True)
class FixResult:
    name: str
    original: str
    fixed: str
    changes: list[str] = field(default_factory=list)  # one line per repair, for people
    result: CompileResult | None = None  # the plan compiled after the repairs
    left: list[str] = field(default_factory=list)  # repairs that could not be made safely, and why


FixError = EditError  # the repairs could not be applied safely; nothing was written


def plan_edits(result: CompileResult, *, pin: bool = False, to_symbols: bool = False,
               commit: Callable[[], str | None] | None = None,
               unsafe: bool = False) -> tuple[list[Edit], list[str], list[str]]:
    """The repairs a compiled plan allows, as edits to its document, their descriptions, and what
    was left (and why); with ``pin``, also a pin for every entry that cites lines or a symbol,
    holds, and has none; with ``to_symbols``, also the rewrites of line evidence into symbols.
    ``commit``: gives the plan's commit (compiler/repo/history.py: plan_commit), through whose
    change a moved range is carried exactly, asked only when one is to be carried (git runs only
    then); ``unsafe``: apply the guesses too."""
    from compiler.repo.repository import Repository

    if not result.evidence_verified:
        return _edits(result, None, pin, None, unsafe)
    with Repository(result.root) as repo:
        history = History(commit, result.root) if commit is not None else None
        edits, notes, left = _edits(result, repo, pin, history, unsafe)
        if to_symbols:
            from compiler.api.fix_symbols import symbol_edits

            more, more_notes, more_left = symbol_edits(result, repo)
            edits, notes, left = edits + more, notes + more_notes, left + more_left
        return edits, notes, left


def _edits(result: CompileResult, repo: Repository | None, pin: bool, history: History | None,
           unsafe: bool) -> tuple[list[Edit], list[str], list[str]]:
    from compiler.analysis.progress import live
    from compiler.checks.context import repeated
    from compiler.checks.dependencies import redundant
    from compiler.checks.evidence import covered_lines, verify
    from compiler.core.pins import pin_of

    plan, base = result.plan, result.plan.items_path
    edits: list[Edit] = []
    notes: list[str] = []
    left: list[str] = []
    raw_items = _at(result.document.data, base)
    shifts: dict[str, set[int]] = {}  # path -> how far the pinned lines found at one place moved
    several: list[tuple[Item, Evidence, Path, str, Any, tuple[int, ...]]] = []  # found at several places
    for r in redundant(live(plan.items)):  # as EP306 finds them: a dropped item implies nothing
        edits.append(((*base, r.item.position, r.item.depends_key, r.at), REMOVE))
        notes.append(f"{clip(r.item.id)}: removed dependency {clip(r.dep)}, implied through {clip(r.via)}")
    for item in plan.items:
        raw = raw_items[item.position]
        for j in repeated(item.depends_on):
            edits.append(((*base, item.position, item.depends_key, j), REMOVE))
            notes.append(f"{clip(item.id)}: removed repeated dependency {clip(item.depends_on[j])}")
        repeats = set(repeated(item.evidence))
        for j in sorted(repeats):
            edits.append(((*base, item.position, "evidence", item.evidence_index(j)), REMOVE))
            notes.append(f"{clip(item.id)}: removed repeated evidence {clip(item.evidence[j].ref())}")
        for j, ev in enumerate(item.evidence):
            if j in repeats or repo is None or (ev.start is None and ev.symbol is None):
                continue
            at = (*base, item.position, "evidence", item.evidence_index(j))
            finding = verify(ev, repo, item.id)
            if finding is None:
                if pin and ev.pin is None and (span := covered_lines(ev, repo)) is not None:
                    digest = pin_of(repo.text(ev.path or "", *span) or "")
                    edits.append(_pin_edit(at, raw["evidence"][item.evidence_index(j)], ev, digest))
                    notes.append(f"{clip(item.id)}: pinned {clip(ev.ref())} at {digest}")
                continue
            entry = raw["evidence"][item.evidence_index(j)]  # entries that could not be read are not in item.evidence
            if ev.start is None or ev.end is None or not isinstance(entry, dict):
                continue  # a symbol moves with its name; the string form has no contains or pin
            key = "line" if "line" in entry else "lines"
            if finding.moved_lines is not None:  # pinned lines found whole at one other place: exact
                start, end = finding.moved_lines
                shifts.setdefault(ev.path or "", set()).add(start - ev.start)
                edits.append(((*at, key), _lines_value(entry[key], key, start, end)))
                notes.append(f"{clip(item.id)}: {clip(ev.ref())} -> {clip(ev.path or '')}:{_span(start, end)}"
                             " (the pinned lines moved)")
                continue
            if finding.pinned_at:
                several.append((item, ev, at, key, entry[key], finding.pinned_at))
                continue
            if finding.moved_to is None:
                continue
            found = finding.moved_to
            path = ev.path or ""
            line_count = repo.facts(path).line_count
            several_lines = ev.end > ev.start
            carried = _carried(history, repo, path, ev.start, ev.end, line_count) if several_lines else None
            said = f"{clip(item.id)}: {clip(ev.ref())} -> {clip(path)}:"
            if history is not None and carried is not None and carried[0] <= found <= carried[1]:
                start, end = carried  # exact: the same lines, moved whole
                edits.append(((*at, key), _lines_value(entry[key], key, start, end)))
                notes.append(f"{said}{_span(start, end)} ({quoted(ev.contains or '')} moved: the cited lines, carried"
                             f" through the file's change since the plan's commit {(history.commit or '')[:12]})")
                continue
            moved = moved_range(ev.start, ev.end, found, line_count)
            if moved is None:
                continue
            start, end = moved
            if not several_lines:  # one line: where the text is, nothing to guess
                edits.append(((*at, key), _lines_value(entry[key], key, start, end)))
                notes.append(f"{said}{start} ({quoted(ev.contains or '')} moved)")
                continue
            why = ("the plan has no commit to compare with (not in git, or changed since it was committed)"
                   if history is None or history.commit is None else "the cited lines changed since the plan's commit")
            guess = (f"{said}{_span(start, end)} ({quoted(ev.contains or '')} moved to line {found}; the smallest shift"
                     f" that covers it, a guess: {why})")
            if unsafe:
                edits.append(((*at, key), _lines_value(entry[key], key, start, end)))
                notes.append(guess)
            else:
                left.append(f"{guess}: fix --unsafe-fixes applies it, or correct the lines by hand")
    # Pinned lines found at several places (a `return x`, a closing quote) move only where every
    # pinned entry of the same file that was found at one place moved by the same distance, and
    # that distance leads to one of the places: the file was shifted there, not rewritten.
    for item, ev, at, key, old, places in several:
        moves = shifts.get(ev.path or "", set())
        if len(moves) != 1 or ev.start is None or ev.end is None:
            continue
        delta = next(iter(moves))
        if ev.start + delta not in places:
            continue
        start, end = ev.start + delta, ev.end + delta
        edits.append(((*at, key), _lines_value(old, key, start, end)))
        notes.append(f"{clip(item.id)}: {clip(ev.ref())} -> {clip(ev.path or '')}:{_span(start, end)} (the pinned"
                     f" lines are found at {len(places)} places; this is the one {delta:+} lines away, as far as"
                     f" the file's other pinned entries moved)")
    return edits, notes, left


def _carried(history: History | None, repo: Repository, path: str, start: int, end: int,
             line_count: int) -> tuple[int, int] | None:
    """Lines ``start``-``end`` of ``path`` as the plan's commit has it, in the file now, when they
    are unchanged and moved whole (compiler/repo/history.py); None without history, or when not."""
    if history is None:
        return None
    old = history.lines(path)
    if old is None:
        return None
    from compiler.repo.history import map_range

    now = (repo.text(path, 1, line_count) or "").splitlines() if line_count else []
    return map_range(old, now, start, end)


def _span(start: int, end: int) -> str:
    return f"{start}" if start == end else f"{start}-{end}"


def _lines_value(old: Any, key: str, start: int, end: int) -> Any:
    """The new value of a ``line``/``lines`` key, in the type the plan gave: a number stays one."""
    if key == "line" or (isinstance(old, int) and start == end):
        return start
    return _span(start, end)


def _pin_edit(at: Path, entry: Any, ev: Evidence, digest: str) -> Edit:
    """The edit that pins one entry: a ``pin`` key added to the object form, or the string form
    replaced by the object form with its pin (a flow mapping in YAML, in the entry's place)."""
    if isinstance(entry, dict):
        return (*at, "pin"), digest
    return at, {**ev.to_dict(), "pin": digest}


def moved_range(start: int, end: int, found: int, line_count: int) -> tuple[int, int] | None:
    """The range ``start``-``end``, of its length, shifted as little as covers line ``found``
    (where its ``contains`` text is now, once): up until it starts at the text, or down until it
    ends at it. Without history, which line of the range held the text is recorded nowhere, so
    any shift of a range of several lines is a guess; the smallest one moves the range least onto
    other code. A one-line range moves to the text's line (nothing to guess). None when the file
    is shorter than the range."""
    length = end - start + 1
    if length > line_count:
        return None
    new_start = found if found < start else found - length + 1 if found > end else start
    new_start = max(1, min(new_start, line_count - length + 1))
    return new_start, new_start + length - 1


def _at(data: Any, path: Path) -> Any:
    for part in path:
        data = data[part]
    return data

def fix_document(doc: Document, text: str, path: str, *, root: str | None = None, dry_run: bool = False,
                 pin: bool = False, to_symbols: bool = False, unsafe: bool = False) -> FixResult:
    """The repairs of a plan (``doc``, read from ``text`` at ``path``), the text they make, and the
    plan compiled after them. Its diagnostics are located in the fixed text, the file as it will
    be; with ``dry_run``, which writes nothing, in ``text``, the file as it stays on disk. With
    ``to_symbols``, line evidence that covers exactly one definition is rewritten as it too. With
    ``pin``, entries that cite lines or a symbol and hold are pinned (compiler/core/pins.py), after the
    other repairs: an entry they moved or rewrote is pinned where, and as, they left it. With
    ``unsafe``, the repairs that are guesses are made too (each says so)."""
    commit = _commit_of(path)
    if pin:
        first = _fix_once(doc, text, path, root=root, to_symbols=to_symbols, commit=commit, unsafe=unsafe)
        if first.changes:
            doc = parse_text(first.fixed, doc.name, doc.format)
        # The first pass changed the plan: its ranges are now of today's files, not the commit's.
        second = _fix_once(doc, first.fixed, path, root=root, dry_run=dry_run, pin=True,
                           commit=None if first.changes else commit, unsafe=unsafe)
        return FixResult(name=doc.name, original=text, fixed=second.fixed, changes=first.changes + second.changes,
                         result=second.result, left=first.left + second.left)
    return _fix_once(doc, text, path, root=root, dry_run=dry_run, to_symbols=to_symbols, commit=commit, unsafe=unsafe)


def _commit_of(path: str) -> Callable[[], str | None]:
    """The plan's commit, found on the first call (git runs then, and only then) and kept."""
    import functools

    @functools.cache
    def commit() -> str | None:
        from compiler.repo.history import plan_commit

        try:
            with open(path, "rb") as handle:
                return plan_commit(path, handle.read())
        except OSError:
            return None

    return commit


def _fix_once(doc: Document, text: str, path: str, *, root: str | None = None, dry_run: bool = False,
              pin: bool = False, to_symbols: bool = False, commit: Callable[[], str | None] | None = None,
              unsafe: bool = False) -> FixResult:
    result = compile_document(doc, path, root=root)
    edits, notes, left = plan_edits(result, pin=pin, to_symbols=to_symbols, commit=commit, unsafe=unsafe)
    nodes = None  # the YAML nodes of the edits' paths, composed once for both uses
    if edits and doc.format == "yaml" and ("&" in text and "*" in text):
        from compiler.load.yaml_nodes import compose

        nodes = compose(text, [at for at, _ in edits])
        shared = set(shared_through_alias(text, edits, nodes=nodes))
        left += [f"it is used again through a YAML alias (&name, *name), so edit it by hand: {notes[n]}"
                 for n in sorted(shared)]
        edits = [e for n, e in enumerate(edits) if n not in shared]
        notes = [note for n, note in enumerate(notes) if n not in shared]
    if not edits:
        return FixResult(name=doc.name, original=text, fixed=text, changes=[], result=result, left=left)
    intended = apply_to_data(doc.data, edits)
    if doc.format == "json":
        from compiler.api.convert import dump_json

        fixed = dump_json(intended)  # the layout convert writes: one key per line
    else:
        fixed = apply_to_yaml(text, edits, nodes=nodes)
    again = parse_text(fixed, doc.name, doc.format)
    # The safety net: never write a file that means something else. Mappings compare equal in
    # any key order, so where a key was renamed the order is compared too.
    renames = any(isinstance(value, Rename) for _, value in edits)
    if again.data != intended or (renames and not same_key_order(again.data, intended)):
        raise FixError("the edited file would not read back as intended; nothing was written")
    if dry_run:
        again = doc._replace(data=intended, source_map=OnDisk(doc.source_map, edits))
    return FixResult(name=doc.name, original=text, fixed=fixed, changes=notes,
                     result=compile_document(again, path, root=root), left=left)
