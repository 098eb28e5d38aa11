"""A compiled plan as every renderer sees it: the same facts, in the order a page shows them,
with nothing escaped (escaping belongs to each renderer: compiler/markdown.py, compiler/mermaid.py,
and an HTML page later).

The JSON is the source of truth: a view is made from the compiled document, never from the plan.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

# Mermaid (and GitHub's renderer) give up on large graphs: past this many items the graph is
# left out, with a sentence that says so (compiler/mermaid.py knows Mermaid's own limits).
MAX_GRAPH_ITEMS = 300
# Past this many items, the critical path is shown by its ends: the first 8, then the last 3.
MAX_PATH_SHOWN = 12


class Graph(NamedTuple):
    """The dependency graph: node n (1-based) is the n-th item of the plan."""

    labels: tuple[str, ...]  # each node's label: its item's id
    waves: tuple[tuple[int, ...], ...]  # the nodes of each wave, in order; () when blocked
    edges: tuple[tuple[int, int], ...]  # (dependency, dependent), sorted


class Section(NamedTuple):
    heading: str  # "Wave 3", or "Items" when the plan is blocked
    items: Iterator[dict[str, Any]]  # the compiled items, read once, as the page is made


class PlanView(NamedTuple):
    document: dict[str, Any]  # the compiled document (status, source, issues, summary, ...)
    title: str  # the plan's name, or "Plan"
    goal: str | None  # None when there is none (a blank one is none)
    counts: tuple[tuple[int, str], ...]  # (count, noun) for the headline: items, waves, errors, warnings
    item_count: int
    graph: Graph | None  # None: left out, and why is in graph_left_out
    graph_left_out: str | None
    critical_path: tuple[str | None, ...]  # the path's ids; None where the middle of a long one is left out
    critical_path_length: int
    sections: Iterator[Section]  # read once


def plan_view(document: dict[str, Any]) -> PlanView:
    items = document.get("items", [])
    index: dict[str, int] = {}
    for n, item in enumerate(items):
        index.setdefault(item["id"], n)
    waves = document.get("waves", [])
    graph, left_out = _graph(items, index, waves)
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
                    len(items), graph, left_out, tuple(shown), len(path), sections)


def _text(value: Any) -> str | None:
    """A text field as shown: None when missing or blank (only whitespace), as the checks read it."""
    return None if value is None or not str(value) or str(value).isspace() else str(value)


def _graph(items: list[dict[str, Any]], index: dict[str, int],
           waves: list[list[str]]) -> tuple[Graph | None, str | None]:
    if len(items) > MAX_GRAPH_ITEMS:
        return None, f"{len(items):,} items are more than Mermaid draws ({MAX_GRAPH_ITEMS})"
    edges: set[tuple[int, int]] = set()
    for n, item in enumerate(items):
        for dep in item.get("depends_on", []):
            if dep in index and dep != item["id"]:
                edges.add((index[dep] + 1, n + 1))
    grouped = tuple(tuple(index[i] + 1 for i in wave if i in index) for wave in waves)
    return Graph(tuple(item["id"] for item in items), grouped, tuple(sorted(edges))), None
