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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.diagnostics import Diagnostic
from compiler.model import fields
from compiler.model.values import field_value

if TYPE_CHECKING:
    from compiler.load.document import Document
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
    """The change from ``old`` to ``new``: plain JSON data, its keys documented in docs/reference/revisions.md.
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
    if side.status != "ready" or not side.plan.gives("estimate"):
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
