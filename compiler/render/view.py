"""A compiled plan as every renderer sees it: the same facts, in the order a page shows them,
with nothing escaped (escaping belongs to each renderer: compiler/render/markdown.py with
compiler/core/markdown.py, compiler/render/mermaid.py, compiler/render/html.py).

The JSON is the source of truth: a view is made from the compiled document, never from the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain, groupby, repeat
from operator import contains, itemgetter
from typing import Any, NamedTuple, TypeVar

Phase = tuple[int, str] | None  # a phase's place (1-based) and name (compiler/analysis/phases.py); None: no phase
T = TypeVar("T")

# Past this many items, the critical path is shown by its ends: the first 8, then the last 3.
MAX_PATH_SHOWN = 12


class Graph(NamedTuple):
    """The dependency graph, by item id, in the document's own lists (nothing is copied: a large
    plan's graph is mostly folded, and its renderer reads only what it draws). Every item is in
    it, however large the plan: what can be drawn is the renderer's to decide (compiler/render/mermaid.py
    knows Mermaid's limits)."""

    ids: tuple[str, ...]  # each item's id, in the plan's order: node n is the n-th item
    waves: list[list[str]]  # the ids of each wave, in order; [] when blocked
    depends_on: tuple[list[str], ...]  # each item's dependencies, as the document gives them
    approvals: frozenset[str] = frozenset()  # the ids of the approval items (drawn distinctly)
    done: frozenset[str] = frozenset()  # the ids of the items that are done (compiler/analysis/progress.py)
    dropped: frozenset[str] = frozenset()  # and of those dropped: in no wave, drawn only in a blocked plan
    marked: frozenset[str] = frozenset()  # the ids on the critical path by median estimate (`schedule`)
    path: tuple[str, ...] = ()  # those ids in the path's order, first first (its edges: each id and the next)
    # Each node's phase (its place, 1-based, and name: compiler/analysis/phases.py), None for an
    # item of no phase; () when the plan gives none.
    phases: tuple[Phase, ...] = ()


class Section(NamedTuple):
    heading: str  # "Wave 3", "Dropped" (a ready plan's dropped items), or "Items" when the plan is blocked
    items: Iterator[dict[str, Any]]  # the compiled items, read once, as the page is made
    done: tuple[int, int] | None = None  # a wave's items done, and its items; None when progress is not shown
    # The phase (its place, 1-based, and its name: compiler/analysis/phases.py) whose items of the
    # wave this section holds, when the plan gives phases; None otherwise (and for the items of no phase).
    phase: Phase = None


def phase_groups(members: Iterable[T], phase_of: Callable[[T], Phase]) -> list[tuple[Phase, list[T]]]:
    """``members`` grouped by phase, the phases in order and the members of no phase last, each
    group in the members' order: how the pages' sections and the graphs' boxes group a plan that
    gives phases."""
    groups: dict[Phase, list[T]] = {}
    for member in members:
        groups.setdefault(phase_of(member), []).append(member)
    return sorted(groups.items(), key=lambda pair: (pair[0] is None, pair[0] or (0, "")))


def section_title(section: Section, escape: Callable[[str], str]) -> str:
    """A section's heading, its phase first when it has one (``Phase 2: switch · Wave 3``): the
    phase's name is the plan's text, shown through the renderer's ``escape``."""
    if section.phase is None:
        return section.heading
    number, name = section.phase
    return f"Phase {number}: {escape(name)} · {section.heading}"


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
    # Items per status (todo, doing, done, dropped), when the plan tracks progress (an item is
    # doing, done or dropped); None for a plan where nothing has started, which shows none.
    progress: dict[str, int] | None = None


def reference(ev: dict[str, Any]) -> str:
    """A compiled evidence entry's reference, as the plan would write it: ``path:18-23``,
    ``path::Name``, the URL, or the path alone (unescaped: each renderer escapes its own way)."""
    if "url" in ev:
        return str(ev["url"])
    path = str(ev.get("path", ""))
    for key, sep in (("line", ":"), ("lines", ":"), ("symbol", "::")):
        if key in ev:
            return f"{path}{sep}{ev[key]}"
    return path


def plan_view(document: dict[str, Any]) -> PlanView:
    items = document.get("items", [])
    index: dict[str, int] = {}
    for n, item in enumerate(items):
        index.setdefault(item["id"], n)
    waves = document.get("waves", [])
    progress = _progress(document)
    graph = _graph(items, waves, progress is not None)
    schedule = document.get("schedule")
    if isinstance(schedule, dict) and isinstance(schedule.get("critical_path"), list):
        path = tuple(i for i in schedule["critical_path"] if isinstance(i, str))
        graph = graph._replace(marked=frozenset(path), path=path)
    sections: Iterator[Section]
    if waves:
        counted = document.get("progress")
        maybe_dropped = not isinstance(counted, dict) or bool(counted.get("dropped"))  # a hand-written file: look
        done = graph.done if progress is not None else None
        if any(map(contains, items, repeat("phase"))):  # most plans give none: a look at each item's keys, in C
            sections = _phased(items, index, waves, graph.phases, done, maybe_dropped)
        else:
            sections = _waves(items, index, waves, done, maybe_dropped)
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
    return PlanView(document=document, title=_text(document.get("plan")) or "Plan", goal=_text(document.get("goal")),
                    counts=tuple(counts), item_count=len(items), graph=graph, critical_path=tuple(shown),
                    critical_path_length=len(path), sections=sections, progress=progress)


def _progress(document: dict[str, Any]) -> dict[str, int] | None:
    """The document's items per status, when anything has started (or was dropped)."""
    progress = document.get("progress")
    if not isinstance(progress, dict):
        return None
    counts = {key: value for key, value in progress.items() if type(value) is int}
    return counts if any(counts.get(key) for key in ("doing", "done", "dropped")) else None


def _waves(items: list[dict[str, Any]], index: dict[str, int], waves: list[list[str]],
           done: frozenset[str] | None, maybe_dropped: bool) -> Iterator[Section]:
    """A section per wave (with its items done, when progress is shown), then the dropped items,
    which are in no wave (looked for only when the document counts some, or counts none)."""
    for n, wave in enumerate(waves, 1):
        shown = [items[index[i]] for i in wave if i in index]
        yield Section(heading=f"Wave {n}", items=iter(shown),
                      done=None if done is None else (len(done.intersection(wave)), len(shown)))
    dropped = [item for item in items if item.get("status") == "dropped"] if maybe_dropped else []
    if dropped:
        placed = set(chain.from_iterable(waves))  # a hand-written file may place one in a wave
        dropped = [item for item in dropped if item["id"] not in placed]
    if dropped:
        yield Section("Dropped", iter(dropped))


def _phased(items: list[dict[str, Any]], index: dict[str, int], waves: list[list[str]], phases: tuple[Phase, ...],
            done: frozenset[str] | None, maybe_dropped: bool) -> Iterator[Section]:
    """The sections of a plan that gives phases (``phases``: each item's, Graph.phases): phase by
    phase, each phase's items by wave (a section per wave the phase has items in), then the items
    of no phase by wave, then the dropped ones. No item needs one of a later phase (EP312), so
    reading the sections in order is an order the work can be done in."""
    named = any(phases)
    placed = [(n, index[i]) for n, wave in enumerate(waves, 1) for i in wave if i in index]
    for phase, members in phase_groups(placed, lambda pair: phases[pair[1]]):
        for n, run in groupby(members, key=itemgetter(0)):
            shown = [items[k] for _, k in run]
            counted = None if done is None else (sum(1 for item in shown if item["id"] in done), len(shown))
            heading = f"Wave {n}" + (" · no phase" if phase is None and named else "")
            yield Section(heading=heading, items=iter(shown), done=counted, phase=phase)
    yield from _waves(items, index, [], done, maybe_dropped)


def _text(value: Any) -> str | None:
    """A text field as shown: None when missing or blank (only whitespace), as the checks read it."""
    return None if value is None or not str(value) or str(value).isspace() else str(value)


def _graph(items: list[dict[str, Any]], waves: list[list[str]], tracked: bool = False) -> Graph:
    ids = tuple(map(itemgetter("id"), items))
    known = set(ids)
    if not known.issuperset(chain.from_iterable(waves)):  # a hand-written document: only its items
        waves = [[i for i in wave if i in known] for wave in waves]
    try:  # a compiled item always has its list
        depends_on = tuple(map(itemgetter("depends_on"), items))
    except KeyError:
        depends_on = tuple([item.get("depends_on") or [] for item in items])
    approvals = frozenset([item["id"] for item in items if item.get("kind") == "approval"])
    phases = _phases(items) if any(map(contains, items, repeat("phase"))) else ()
    if not tracked:
        return Graph(ids=ids, waves=waves, depends_on=depends_on, approvals=approvals, phases=phases)
    done = frozenset([item["id"] for item in items if item.get("status") == "done"])
    dropped = frozenset([item["id"] for item in items if item.get("status") == "dropped"])
    return Graph(ids=ids, waves=waves, depends_on=depends_on, approvals=approvals, done=done, dropped=dropped,
                 phases=phases)


def _phases(items: list[dict[str, Any]]) -> tuple[Phase, ...]:
    """Each item's phase, numbered in order of first appearance (a blank one is none)."""
    order: dict[str, int] = {}
    out: list[Phase] = []
    for item in items:
        name = item.get("phase")
        if isinstance(name, str) and name.strip():
            out.append((order.setdefault(name, len(order) + 1), name))
        else:
            out.append(None)
    return tuple(out)
