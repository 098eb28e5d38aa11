"""A compiled plan as every renderer sees it: the same facts, in the order a page shows them,
with nothing escaped (escaping belongs to each renderer: compiler/markdown.py, compiler/mermaid.py,
and an HTML page later).

The JSON is the source of truth: a view is made from the compiled document, never from the plan.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple

# Past this many items, the critical path is shown by its ends: the first 8, then the last 3.
MAX_PATH_SHOWN = 12


class Graph(NamedTuple):
    """The dependency graph, by item id, in the document's own lists (nothing is copied: a large
    plan's graph is mostly folded, and its renderer reads only what it draws). Every item is in
    it, however large the plan: what can be drawn is the renderer's to decide (compiler/mermaid.py
    knows Mermaid's limits)."""

    ids: tuple[str, ...]  # each item's id, in the plan's order: node n is the n-th item
    waves: list[list[str]]  # the ids of each wave, in order; [] when blocked
    depends_on: tuple[list[str], ...]  # each item's dependencies, as the document gives them
    marked: frozenset[str] = frozenset()  # the ids on the critical path by median estimate (`schedule`)


class Section(NamedTuple):
    heading: str  # "Wave 3", or "Items" when the plan is blocked
    items: Iterator[dict[str, Any]]  # the compiled items, read once, as the page is made


class PlanView(NamedTuple):
    document: dict[str, Any]  # the compiled document (status, source, issues, summary, ...)
    title: str  # the plan's name, or "Plan"
    goal: str | None  # None when there is none (a blank one is none)
    counts: tuple[tuple[int, str], ...]  # (count, noun) for the headline: items, waves, errors, warnings
    item_count: int
    graph: Graph
    critical_path: tuple[str | None, ...]  # the path's ids; None where the middle of a long one is left out
    critical_path_length: int
    sections: Iterator[Section]  # read once


def plan_view(document: dict[str, Any]) -> PlanView:
    items = document.get("items", [])
    index: dict[str, int] = {}
    for n, item in enumerate(items):
        index.setdefault(item["id"], n)
    waves = document.get("waves", [])
    graph = _graph(items, waves)
    schedule = document.get("schedule")
    if isinstance(schedule, dict) and isinstance(schedule.get("critical_path"), list):
        graph = graph._replace(marked=frozenset(i for i in schedule["critical_path"] if isinstance(i, str)))
    sections: Iterator[Section]
    if waves:
        sections = (Section(f"Wave {n}", iter([items[index[i]] for i in wave if i in index]))
                    for n, wave in enumerate(waves, 1))
    else:
        sections = iter([Section("Items", iter(items))] if items else [])
    summary = document.get("summary", {})
    ready = document.get("status") == "ready"
    counts = [(summary.get("items", 0), "item")]
    if ready:
        counts.append((summary.get("waves", 0), "wave"))
    counts += [(summary.get("errors", 0), "error"), (summary.get("warnings", 0), "warning")]
    path = document.get("critical_path", [])
    shown: list[str | None] = list(path) if len(path) <= MAX_PATH_SHOWN else [*path[:8], None, *path[-3:]]
    return PlanView(document, _text(document.get("plan")) or "Plan", _text(document.get("goal")), tuple(counts),
                    len(items), graph, tuple(shown), len(path), sections)


def _text(value: Any) -> str | None:
    """A text field as shown: None when missing or blank (only whitespace), as the checks read it."""
    return None if value is None or not str(value) or str(value).isspace() else str(value)


def _graph(items: list[dict[str, Any]], waves: list[list[str]]) -> Graph:
    ids = tuple(map(itemgetter("id"), items))
    known = set(ids)
    if not known.issuperset(chain.from_iterable(waves)):  # a hand-written document: only its items
        waves = [[i for i in wave if i in known] for wave in waves]
    try:  # a compiled item always has its list
        depends_on = tuple(map(itemgetter("depends_on"), items))
    except KeyError:
        depends_on = tuple([item.get("depends_on") or [] for item in items])
    return Graph(ids, waves, depends_on)
