"""The model of a change between two plans (`evidence-plan diff OLD NEW`; `compile` records its
``changes`` with the same model: compiler/compile/history.py): plain functions over plain data.

Items are compared by id (the first item of each id, as the waves take them):

- ``added`` and ``removed``: ids only one side has, less the renamed ones;
- ``renamed``: a removed item and an added one whose *content* is identical. The content is every
  field of compiler/model/fields.py's ITEM_FIELDS but ``id`` and ``depends_on``: the id is what changed,
  and the dependencies are ids themselves (an item whose dependency was renamed too would never
  pair), so they are compared as edges, after the renames are mapped. Pairs are made by content,
  in the plans' order, each item at most once;
- ``revised``: an id both sides have, with each field that changed, old and new value. Evidence is
  compared in its normalized form (``a.py:3`` is ``{path: a.py, line: 3}``), an absent optional
  field as its default (no ``status`` is ``status: todo``), ``depends_on`` after the renames;
- ``edges``: dependency edges (item -> dependency) added and removed, old ids mapped through the
  renames;
- ``waves``: the items of both plans (renamed ones under their new id) whose wave changed,
  ``direct`` when the item itself was revised, ``indirect`` when it was not (it moved because
  something it depends on changed);
- ``status`` of each plan and the issues NEW has that OLD has not (``issues.added``), and the
  reverse (``issues.resolved``), by code and item;
- ``timing``: each ready plan's critical path by median estimate, its best and worst case, and the
  forecast's P50, P80 and P95 (compiler/analysis/forecast.py, seeded: the same plans, the same figures);
  null for a side that is blocked or gives no estimate, and null as a whole when both are;
- ``approvals.voided``: the approvals whose record held in OLD and is stale in NEW: the revision
  changed what they cover (compiler/analysis/approvals.py), so they must be passed again.

Linear: each step is one pass over the items (dicts keyed by id or by content).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.model import fields
from compiler.model.values import field_value

if TYPE_CHECKING:
    from compiler.load.document import Document, Limits
    from compiler.model.values import Item, Plan

# The fields compared (every item field), and the ones a rename may not change (all but id, depends_on).
COMPARED = tuple(f for f in fields.ITEM_FIELDS if f.name != "id")
CONTENT = tuple(f for f in COMPARED if f.name != "depends_on")


class Side(NamedTuple):
    """One plan of a comparison, as read and checked."""

    name: str  # as messages name it: the path, <stdin>, or REV:path
    plan: Plan
    doc: Document  # for the items' lines (its source map)
    status: str  # ready or blocked
    diagnostics: tuple[Diagnostic, ...]


# Arguments that are always a file, whatever else they look like: a path spelled from here or from /.
_FILE_PREFIXES = ("./", "../", "/", *((".\\", "..\\", "\\") if os.sep == "\\" else ()))


def revision_form(arg: str) -> bool:
    """Whether ``arg`` is shaped as ``REV:path``: a ``:`` with text on both sides, a revision that
    does not start with ``-`` (``--output=x:y`` would be an option of git's), no Windows drive
    (``C:\\x``, ``C:/x``), no NUL or line break, and no explicit path (``./x:y``, ``/x:y``: a file)."""
    if arg == "-" or any(c in arg for c in "\x00\n\r") or arg.startswith(_FILE_PREFIXES):
        return False
    rev, sep, path = arg.partition(":")
    if not sep or not rev or not path or rev.startswith("-"):  # git would read "-..." as an option
        return False
    return not (len(rev) == 1 and rev.isalpha() and path[:1] in ("\\", "/"))


def is_revision(arg: str) -> bool:
    """Whether ``arg`` names a file of git history (``REV:path``) rather than a file: shaped so,
    and no file of that name exists (when one does, ``load_plan_argument`` reads the file, or
    refuses the name as ambiguous when git history has it too)."""
    return revision_form(arg) and not os.path.lexists(arg)


def load_revision(spec: str, limits: Limits) -> Document:
    """The plan ``spec`` (``REV:path``) names in the local repository's history (compiler/load/gitshow.py)."""
    from compiler.load.document import decode, detect_format, parse_text
    from compiler.load.gitshow import read_blob

    text = decode(read_blob(spec, limits), spec)
    return parse_text(text, spec, detect_format(spec.partition(":")[2], text), limits=limits)


def load_plan_argument(arg: str, *, stdin: Any = None, limits: Limits, rev: str | None = None) -> tuple[Document, str]:
    """The document a command's plan argument names, and the path its relative paths start from:
    a file (or a compiled evidence-plan.json), ``-`` (standard input), or ``REV:path`` from git
    history, whose relative paths start from the working folder, as standard input's do. With
    ``rev`` (`diff --base`, `graph --rev`), ``arg`` is a path from the working folder, read as it
    was at that revision (``REV:./arg``).

    A name that is both a file and a ``REV:path`` git history has is refused (EP001): a pull
    request could add a file ``origin/main:plan.yaml`` to stand for the base branch's plan."""
    from compiler.load.document import STDIN, load

    if rev is not None:
        from compiler.load.gitshow import at_revision

        return load_revision(at_revision(rev, arg), limits), STDIN
    if revision_form(arg):
        if not os.path.lexists(arg):
            return load_revision(arg, limits), STDIN
        from compiler.load.gitshow import in_history

        known = in_history(arg)
        if known is not False:  # git has it, or the clone has not the trees to say it has not
            raise _ambiguous(arg, known)
    return load(arg, stdin=stdin, limits=limits), arg


def _ambiguous(arg: str, known: bool | None) -> PlanInputError:
    """EP001 for a name that is a file and a file of git history (``known``; None: may be, the
    clone has not the trees to tell): how to write each."""
    from compiler.load.gitshow import from_working_folder

    rev, _, path = arg.partition(":")
    here = from_working_folder(path)
    has = "has" if known else "may have (the clone has not fetched the trees to tell)"
    return PlanInputError(Diagnostic(
        "EP001", f"ambiguous: a file of this name exists, and git history {has} {path} at {rev}; neither is read",
        None, Location(arg),
        hint=f"for the file, write ./{arg}; for git history, give the revision by option: --base {rev} {here} "
             f"(diff: OLD as it was at that revision) or --rev {rev} {here} (graph)"))


def read_side(arg: str, *, stdin: Any = None, root: str | None = None, verify_evidence: bool = False,
              limits: Limits | None = None, rev: str | None = None) -> Side:
    """Read and check one plan: a plan file or a compiled evidence-plan.json, ``-`` (standard
    input) or ``REV:path``; with ``rev``, the file ``arg`` as it was at that revision. Raises
    PlanInputError when it is not a usable plan."""
    from compiler.compile.pipeline import compile_document
    from compiler.load.document import DEFAULT_LIMITS

    doc, path = load_plan_argument(arg, stdin=stdin, limits=limits or DEFAULT_LIMITS, rev=rev)
    result = compile_document(doc, path, root=root, verify_evidence=verify_evidence, order=False)
    return Side(doc.name, result.plan, doc, result.status, result.diagnostics)


def content_key(item: Item) -> str:
    """The item's content (every field but id and depends_on) as one canonical text: equal
    texts, equal content."""
    return json.dumps([field_value(item, f) for f in CONTENT], sort_keys=True, ensure_ascii=False, default=str)


def _first(items: tuple[Item, ...]) -> dict[str, Item]:
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    return first


def compare(old: Side, new: Side, *, consequences: bool = True) -> dict[str, Any]:
    """The change from ``old`` to ``new``: plain JSON data, its keys documented in the README.
    ``consequences=False`` leaves out what follows from the items' change, ``timing`` (a forecast
    of each side) and the voided approvals: what `compile` records needs neither."""
    from compiler.analysis.progress import wave_numbers

    before, after = _first(old.plan.items), _first(new.plan.items)
    gone = [ident for ident in before if ident not in after]
    came = [ident for ident in after if ident not in before]
    # Renames: a removed item whose content an added one has, each at most once, in order.
    by_content: dict[str, list[str]] = {}
    for ident in came:
        by_content.setdefault(content_key(after[ident]), []).append(ident)
    for waiting in by_content.values():
        waiting.reverse()  # pop() takes the first in the plan's order
    renamed: dict[str, str] = {}
    for ident in gone:
        pair = by_content.get(content_key(before[ident]))
        if pair:
            renamed[ident] = pair.pop()
    was = {b: a for a, b in renamed.items()}  # new id -> old id

    def mapped(ident: str) -> str:
        return renamed.get(ident, ident)

    revised = []
    for ident, item in after.items():
        prior = before.get(ident)
        if prior is None:
            continue
        if (prior.change == item.change and prior.proof == item.proof and prior.evidence == item.evidence
                and prior.options == item.options and prior.depends_on == item.depends_on
                and not (renamed and any(d in renamed for d in item.depends_on))):
            continue  # most items: the same, without a field-by-field look
        changed: dict[str, dict[str, Any]] = {}
        for f in COMPARED:
            a, b = field_value(prior, f), field_value(item, f)
            if f.name == "depends_on":
                if [mapped(d) for d in a] != b:
                    changed[f.name] = {"old": a, "new": b}
            elif a != b:
                changed[f.name] = {"old": a, "new": b}
        if changed:
            revised.append({"id": ident, "fields": changed})
    old_edges = ({(mapped(i), mapped(d)) for i, item in before.items() for d in item.depends_on} if renamed else
                 {(i, d) for i, item in before.items() for d in item.depends_on})  # most revisions rename nothing
    new_edges = {(i, d) for i, item in after.items() for d in item.depends_on}
    old_waves, new_waves = wave_numbers(old.plan.items), wave_numbers(new.plan.items)
    edited = {r["id"] for r in revised}
    moved: dict[str, list[dict[str, Any]]] = {"direct": [], "indirect": []}
    for ident in after:
        a, b = old_waves.get(was.get(ident, ident)), new_waves.get(ident)
        if a is not None and b is not None and a != b:
            moved["direct" if ident in edited else "indirect"].append({"id": ident, "old": a, "new": b})
    issues = _issues(old.diagnostics, new.diagnostics, mapped)
    timing: dict[str, Any] = {"old": _timing(old, old_waves) if consequences else None}
    # The same items, estimates, statuses and edges, both ready: the same schedule and forecast
    # (seeded), so it is not run twice (a forecast of 100,000 items takes seconds).
    same_shape = (not came and not gone and not (new_edges ^ old_edges) and old.status == new.status
                  and not any({"estimate", "status"} & set(r["fields"]) for r in revised))
    timing["new"] = timing["old"] if same_shape or not consequences else _timing(new, new_waves)
    out: dict[str, Any] = {
        "revision": {"old": old.name, "new": new.name},
        "added": [_brief(after[i], new_waves) for i in came if i not in was],
        "removed": [_brief(before[i], old_waves) for i in gone if i not in renamed],
        "revised": revised,
        "renamed": [{"old": a, "new": b} for a, b in renamed.items()],
        "edges": {"added": [_edge(e) for e in sorted(new_edges - old_edges)],
                  "removed": [_edge(e) for e in sorted(old_edges - new_edges)]},
        "waves": moved,
        "status": {"old": old.status, "new": new.status},
        "issues": issues,
        "timing": timing if timing["old"] is not None or timing["new"] is not None else None,
        "approvals": {"voided": _voided(old.plan.items, new.plan.items, mapped) if consequences else []},
    }
    out["same"] = not differs(out)
    return out


def _timing(side: Side, wave_of: dict[str, int]) -> dict[str, Any] | None:
    """A ready plan's critical path by median estimate and its forecast (compiler/analysis/forecast.py, as
    compile computes them: the same waves, ids sorted in each), when an item gives an estimate."""
    items = side.plan.items
    if side.status != "ready" or not any(item.options and item.option("estimate") is not None for item in items):
        return None
    from compiler.analysis.forecast import monte_carlo, schedule

    waves: list[list[str]] = [[] for _ in range(max(wave_of.values(), default=0))]
    for ident, n in wave_of.items():
        waves[n - 1].append(ident)
    for wave in waves:
        wave.sort()
    planned, forecast = schedule(items, waves), monte_carlo(items, waves)
    if planned is None:
        return None
    out = {key: planned[key] for key in ("critical_path", "median_hours", "best_hours", "worst_hours")}
    if forecast is not None:
        out.update({key: forecast[key] for key in ("p50_hours", "p80_hours", "p95_hours")})
    return out


def _voided(old: tuple[Item, ...], new: tuple[Item, ...], mapped: Any) -> list[dict[str, Any]]:
    """The approvals that held in OLD and do not in NEW: exactly those whose record `check` would
    call stale in NEW (EP111) and not in OLD, by compiler/analysis/approvals.py's one judgement; each with
    why and what it covers now."""
    from compiler.analysis.approvals import RECORD, states

    if not any(item.option(key) is not None for item in new if item.options for key in RECORD):
        return []
    held = {mapped(ident) for ident, state in states(old).items() if state.state == "current"}
    return [{"id": ident, "covers": list(state.coverage.covers) if state.coverage else [],
             "reason": "; ".join(state.reasons)}
            for ident, state in states(new).items() if state.state == "stale" and ident in held]


def _brief(item: Item, waves: dict[str, int]) -> dict[str, Any]:
    return {"id": item.id, "change": item.change, "wave": waves.get(item.id)}


def _edge(edge: tuple[str, str]) -> dict[str, str]:
    return {"item": edge[0], "depends_on": edge[1]}


def _issues(old: tuple[Diagnostic, ...], new: tuple[Diagnostic, ...], mapped: Any) -> dict[str, list[dict[str, Any]]]:
    """The issues (errors and warnings) NEW has that OLD has not, and the reverse, by code and item
    (old items under their new ids): lines move with every edit, messages with every rename."""
    before = {(d.code, mapped(d.item) if d.item else d.item) for d in old}
    after = {(d.code, d.item) for d in new}
    return {"added": [d.to_dict() for d in new if (d.code, d.item) not in before],
            "resolved": [d.to_dict() for d in old if (d.code, mapped(d.item) if d.item else d.item) not in after]}


def differs(change: dict[str, Any]) -> bool:
    """Whether the comparison found any difference."""
    return bool(change["added"] or change["removed"] or change["revised"] or change["renamed"]
                or change["edges"]["added"] or change["edges"]["removed"]
                or change["status"]["old"] != change["status"]["new"]
                or change["issues"]["added"] or change["issues"]["resolved"])


def item_lines(side: Side) -> Callable[[str], int | None]:
    """The line of an item of ``side``'s file by its id, from its source map (the first item of
    the id; None for an id it has not). The items are indexed once, for every row that asks."""
    first = _first(side.plan.items)

    def line(ident: str) -> int | None:
        item = first.get(ident)
        if item is None:
            return None
        pos = side.doc.source_map.value((*side.plan.items_path, item.position))
        return pos[0] if pos else None

    return line
