"""`fix`: apply the fixes that the diagnostics carry, and nothing else.

Every repair is a fix of a diagnostic (compiler/core/diagnostics.py ``Fix``): made by the rule that
reports the problem, with its applicability and its exact text edits, the very ones that `check
--format json` and SARIF show. `fix` applies the ``safe`` ones, and with ``unsafe`` (`fix
--unsafe-fixes`) the ``unsafe`` ones too; ``display-only`` ones are never applied. The rules that
make them are listed in docs/reference/fix.md; compiler/checks/repairs.py makes those of evidence.

Two rewrites are made on request, as fixes of the same kind (safe) applied the same way:

- with ``to_symbols``, line evidence that covers exactly one definition becomes that definition,
  ``path::Name`` (compiler/api/fix_symbols.py);
- with ``pin``, every entry that cites lines or a symbol, holds, and has no pin gets one, once
  the other fixes are made (an entry they moved is pinned where they left it).

The fixes are applied in rounds: all those whose edits do not overlap at once, then the plan is
checked again, until a round has nothing left to apply (at most ``MAX_ROUNDS``). The edited text
is parsed again after each round and must give exactly the data the fixes' changes make, or
nothing is written (FixError). Edits apply to the plan's own file only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compiler.compile.pipeline import CompileResult, compile_document
from compiler.core.diagnostics import Fix
from compiler.core.display import clip
from compiler.core.edits import EditError, Rename, apply_text_edits, apply_to_data, line_starts, offset, overlaps
from compiler.core.edits import same_key_order as _same_key_order
from compiler.load.document import Document, parse_text

if TYPE_CHECKING:
    from compiler.load.sourcemap import SourceMap
    from compiler.repo.repository import Repository

MAX_ROUNDS = 10  # a fix that makes room for another (two removals side by side in a flow list) waits a round


@dataclass(kw_only=True)
class FixResult:
    name: str
    original: str
    fixed: str
    changes: list[str] = field(default_factory=list)  # one line per fix applied, for people
    result: CompileResult | None = None  # the plan compiled after the fixes
    left: list[str] = field(default_factory=list)  # fixes not applied, and other repairs not made, and why
    applied: list[Fix] = field(default_factory=list)  # in order; a later round's edits are of the text the earlier made
    unapplied: list[Fix] = field(default_factory=list)  # the unsafe fixes (without ``unsafe``) and display-only ones


FixError = EditError  # the fixes could not be applied safely; nothing was written


def applies(fix: Fix, unsafe: bool) -> bool:
    """Whether `fix` applies ``fix``: safe ones always, unsafe ones with ``unsafe``, display-only never."""
    return fix.applicability == "safe" or (unsafe and fix.applicability == "unsafe")


def left_because(fix: Fix) -> str:
    """Why a fix was not applied, after its message."""
    if fix.applicability == "unsafe":
        return f"{fix.message}: fix --unsafe-fixes applies it"
    return f"{fix.message}: shown only, never applied"


def fix_document(doc: Document, text: str, path: str, *, root: str | None = None, dry_run: bool = False,
                 pin: bool = False, to_symbols: bool = False, unsafe: bool = False) -> FixResult:
    """The fixes of a plan (``doc``, read from ``text`` at ``path``) applied, the text they make,
    and the plan compiled after them. Its diagnostics are located in the fixed text, the file as
    it will be; with ``dry_run``, which writes nothing, in ``text``, the file as it stays on disk.
    With ``to_symbols``, line evidence that covers exactly one definition is rewritten as it too.
    With ``pin``, entries that cite lines or a symbol and hold are pinned, after the other fixes.
    With ``unsafe``, the fixes that are guesses are applied too (each says so)."""
    original, first_doc = text, doc
    notes: list[str] = []
    applied: list[Fix] = []
    rounds: list[list[tuple[tuple[object, ...], object]]] = []  # each round's changes, for dry-run's positions
    result = compile_document(doc, path, root=root, fixes=True)
    for _ in range(MAX_ROUNDS):
        wanted = [d.fix for d in result.diagnostics if d.fix is not None and d.fix.edits and applies(d.fix, unsafe)]
        requested, extra_left = _requested(result, text, to_symbols, pin and not wanted)
        chosen = _non_overlapping(text, [*wanted, *(f for f in requested if applies(f, unsafe))])
        if not chosen:
            break
        text, doc = _apply(doc, text, chosen)
        notes += [f.message for f in chosen]
        applied += chosen
        rounds.append([change for f in chosen for change in f.changes])
        # The text is the fixes' now, not the committed file's: no history carries its ranges.
        result = compile_document(doc, path, root=root, fixes=True, history=False)
    else:  # the rounds ran out: what is left is said of the plan as they left it
        requested, extra_left = _requested(result, text, to_symbols, False)
    unapplied = [d.fix for d in result.diagnostics if d.fix is not None and d.fix.edits and not applies(d.fix, unsafe)]
    unapplied += [f for f in requested if not applies(f, unsafe) and f.applicability != "safe"]
    if dry_run and rounds:
        result = _on_disk(first_doc, doc, path, root, rounds)
    return FixResult(name=doc.name, original=original, fixed=text, changes=notes, result=result,
                     left=[left_because(f) for f in unapplied] + extra_left, applied=applied, unapplied=unapplied)


def _requested(result: CompileResult, text: str, to_symbols: bool, pin: bool) -> tuple[list[Fix], list[str]]:
    """The rewrites asked for (``to_symbols``, ``pin``) as fixes with their text edits, and the
    entries left, and why."""
    if not (to_symbols or pin) or not result.evidence_verified:
        return [], []
    from compiler.load.spans import make_edits
    from compiler.repo.repository import Repository

    fixes: list[Fix] = []
    left: list[str] = []
    with Repository(result.root) as repo:
        if to_symbols:
            from compiler.api.fix_symbols import symbol_edits

            edits, said, left = symbol_edits(result, repo)
            fixes += [Fix(message=note, applicability="safe", changes=(edit,)) for edit, note in zip(edits, said,
                                                                                                 strict=True)]
        if pin:
            fixes += _pins(result, repo)
    doc = result.document
    return [f for f in make_edits(text, doc.format, doc.name, fixes) if f is not None], left


def _pins(result: CompileResult, repo: Repository) -> list[Fix]:
    """A pin for every entry that cites lines or a symbol, holds, and has none: a ``pin`` key added
    to the object form, or the string form replaced by the object form with its pin (a flow
    mapping in YAML, in the entry's place). A repeated entry is left to EP105's fix."""
    from compiler.checks.context import repeated
    from compiler.checks.evidence import covered_lines, verify
    from compiler.core.pins import pin_of

    plan, base = result.plan, result.plan.items_path
    data = result.document.data
    for part in base:
        data = data[part]
    out = []
    for item in plan.items:
        repeats = set(repeated(item.evidence))
        for j, ev in enumerate(item.evidence):
            if j in repeats or ev.pin is not None or (ev.start is None and ev.symbol is None):
                continue
            if verify(ev, repo, item.id) is not None or (span := covered_lines(ev, repo)) is None:
                continue
            digest = pin_of(repo.text(ev.path or "", *span) or "")
            at = (*base, item.position, "evidence", item.evidence_index(j))
            entry = data[item.position]["evidence"][item.evidence_index(j)]
            change = ((*at, "pin"), digest) if isinstance(entry, dict) else (at, {**ev.to_dict(), "pin": digest})
            out.append(Fix(message=f"{clip(item.id)}: pinned {clip(ev.ref())} at {digest}", applicability="safe",
                           changes=(change,)))
    return out


def _non_overlapping(text: str, fixes: list[Fix]) -> list[Fix]:
    """The fixes to apply in one round: in order, each whose edits overlap none taken before (the
    rest wait for the next round, made again from the text this one leaves); a fix whose edits are
    those of one taken already is the same repair, made once."""
    import bisect

    starts = line_starts(text)
    taken: list[tuple[int, int]] = []  # the spans taken so far, which never overlap, in order
    seen: set[tuple[object, ...]] = set()
    out = []
    for fix in fixes:
        if fix.edits in seen:
            continue
        spans = [(offset(starts, text, e.start_line, e.start_column), offset(starts, text, e.end_line, e.end_column))
                 for e in fix.edits]
        # Disjoint and in order: a span overlaps one of them only if it overlaps one beside its place.
        if any(overlaps([span], taken[max(0, at - 1):at + 1]) for span in spans
               for at in (bisect.bisect_left(taken, span),)):
            continue
        seen.add(fix.edits)
        for span in spans:
            bisect.insort(taken, span)
        out.append(fix)
    return out


def _apply(doc: Document, text: str, fixes: list[Fix]) -> tuple[str, Document]:
    """The text with the fixes' edits, and its document; refused (FixError) unless it reads back
    as exactly the data their changes make (key order too, where a key was renamed)."""
    fixed = apply_text_edits(text, [edit for fix in fixes for edit in fix.edits], doc.name)
    changes = [change for fix in fixes for change in fix.changes]
    intended = apply_to_data(doc.data, changes)
    try:
        again = parse_text(fixed, doc.name, doc.format)
    except Exception as error:  # any reader's refusal (PlanInputError): the edit went wrong, nothing is written
        raise FixError("the edited file would not read back as intended; nothing was written") from error
    renames = any(isinstance(value, Rename) for _, value in changes)
    if again.data != intended or (renames and not _same_key_order(again.data, intended)):
        raise FixError("the edited file would not read back as intended; nothing was written")
    return fixed, again


def _on_disk(first: Document, last: Document, path: str, root: str | None,
             rounds: list[list[tuple[tuple[object, ...], object]]]) -> CompileResult:
    """The plan as fixed, compiled with the positions of the file as it is on disk (a dry run
    writes nothing): each round's changes mapped back, round by round. Its fixes are dropped:
    their edits would be of a text that was not written."""
    from compiler.api.edit import OnDisk

    source_map: SourceMap = first.source_map
    for changes in rounds:
        source_map = OnDisk(source_map, changes)
    result = compile_document(last._replace(source_map=source_map), path, root=root, history=False)
    result.diagnostics = tuple(d._replace(fix=None) for d in result.diagnostics)
    return result
