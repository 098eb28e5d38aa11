"""Stage 4: the dependency graph with networkx: cycles, waves, critical path.

Edges point from a dependency to its dependent (``contract -> implementation``), so topological
generations are the waves. Every function here is linear in items + edges and iterative: a chain
of a million items must not recurse.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

    from compiler.model.values import Item


def build_graph(items: tuple[Item, ...]) -> nx.DiGraph:
    """One node per id (the first item that has it), one edge per known, non-self dependency.

    The edges go in first, as one list: adding an edge adds its two nodes, so only the items
    that no edge touches are added as nodes afterwards (adding every node first costs networkx
    a second pass over each). Node order means nothing here: waves and cycles are sorted."""
    import networkx as nx

    first = {item.id: item for item in reversed(items)}  # the first item of each id
    graph = nx.DiGraph()
    graph.add_edges_from([
        (dep, ident)
        for ident, item in first.items()
        for dep in item.depends_on
        if dep != ident and dep in first
    ])
    nodes = graph.nodes
    graph.add_nodes_from([ident for ident in first if ident not in nodes])
    return graph


def plain_waves(items: Iterable[Item]) -> dict[str, int]:
    """Each item's wave (1-based) in plain Python: one more than the latest wave of its
    dependencies, as ``waves`` makes them with networkx (topological generations). The first
    item of each id; known, non-self dependencies only. Items on or after a cycle are left out
    (fewer entries than ids: a cycle). The dict's order is a topological order. One pass when
    the plan is written in order, else Kahn's algorithm, iterative and linear.

    The one plain ordering the rules share (`check` imports no networkx): progress and `next`,
    the path conflicts' waves, the approval gates' order and the redundant dependencies."""
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    in_order = _waves_in_order(first)
    if in_order is not None:
        return in_order
    # Kahn's algorithm over item numbers: lists of integers (a dependency's dependents laid out
    # side by side, as a compressed sparse row), which stay compact where dicts of ids do not.
    ids = list(first)
    number = {ident: n for n, ident in enumerate(ids)}
    waiting = [0] * len(ids)
    edges: list[tuple[int, int]] = []
    for n, item in enumerate(first.values()):
        for dep in item.depends_on:  # a repeated one counts twice and is released twice
            d = number.get(dep)
            if d is not None and d != n:
                waiting[n] += 1
                edges.append((d, n))
    start = [0] * (len(ids) + 1)
    for d, _ in edges:
        start[d + 1] += 1
    for n in range(len(ids)):
        start[n + 1] += start[n]
    filled = start[:-1]
    dependents = [0] * len(edges)
    for d, n in edges:
        dependents[filled[d]] = n
        filled[d] += 1
    wave = [1] * len(ids)
    ready = [n for n, count in enumerate(waiting) if count == 0]
    order = []  # as the items become ready: a topological order
    while ready:
        n = ready.pop()
        order.append(n)
        below = wave[n] + 1
        for m in dependents[start[n]:start[n + 1]]:
            if wave[m] < below:
                wave[m] = below
            waiting[m] -= 1
            if waiting[m] == 0:
                ready.append(m)
    return {ids[n]: wave[n] for n in order}


def _waves_in_order(first: dict[str, Item]) -> dict[str, int] | None:
    """The waves in one pass, when every dependency is on an item listed earlier (plans are mostly
    written in order); None as soon as one is not."""
    wave: dict[str, int] = {}
    get = wave.get
    for ident, item in first.items():
        ds = item.depends_on
        if len(ds) == 1 and (known := get(ds[0])) is not None:  # the commonest case, without a loop
            wave[ident] = known + 1
            continue
        below = 0
        for dep in ds:
            known = get(dep)
            if known is None:
                if dep in first and dep != ident:
                    return None  # a dependency listed later: Kahn's algorithm decides
                continue
            if known > below:
                below = known
        wave[ident] = below + 1
    return wave


def acyclic(items: tuple[Item, ...]) -> bool:
    """Whether the dependency graph has no cycle, by Kahn's algorithm in plain Python.

    Most plans have no cycle, and `check` needs no waves: this answers for them without
    importing networkx (a third of `check`'s start-up). Only a plan with a cycle builds the
    networkx graph, to report each cycle with its path. (`compile` of a plan that is otherwise
    ready builds that graph anyway, for the waves, and skips this.)

    Plans are mostly written in order, each item after what it depends on: then one pass with a
    set says so (an edge back to a later item is the only way a cycle can start), and Kahn's
    algorithm runs only for a plan that is not in order."""
    if _in_order(items):
        return True
    return len(plain_waves(items)) == len({item.id for item in items})  # a cycle holds some back


def _in_order(items: tuple[Item, ...]) -> bool:
    """Whether every dependency (on a known item, not itself) is on an item listed earlier: a
    topological order as written, so no cycle. Only the first item of an id is in the graph."""
    known = {item.id for item in items}
    seen: set[str] = set()
    for item in items:
        ident = item.id
        if ident in seen:
            continue
        for dep in item.depends_on:
            if dep not in seen and dep != ident and dep in known:
                return False
        seen.add(ident)
    return True


def find_cycles(graph: nx.DiGraph) -> list[list[str]]:
    """One cycle per strongly connected component with more than one node.

    Each cycle is given in "depends on" order starting from the smallest id, closed:
    ``[a, b, c, a]`` means a depends on b, b on c, c on a. Deterministic, linear per component.
    """
    import networkx as nx

    cycles = []
    for component in nx.strongly_connected_components(graph):
        if len(component) < 2:
            continue
        start = min(component)
        cycles.append(_shortest_cycle(graph, start, component))
    cycles.sort()
    return cycles


def _shortest_cycle(graph: nx.DiGraph, start: str, component: set[str]) -> list[str]:
    """Breadth-first along "depends on" edges (predecessors) from start back to start."""
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for dep in sorted(graph.predecessors(node)):
            if dep not in component:
                continue
            if dep == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                path.reverse()
                return [*path, start]
            if dep not in parent:
                parent[dep] = node
                queue.append(dep)
    raise AssertionError("a strongly connected component always has a cycle through each node")


def waves(graph: nx.DiGraph) -> list[list[str]]:
    """Wave k holds the items whose dependencies all lie in earlier waves; ids sorted.

    Raises ``networkx.NetworkXUnfeasible`` when the graph has a cycle: compile orders a plan
    without checking for cycles first, and reports them only when this says there are some."""
    import networkx as nx

    return [sorted(generation) for generation in nx.topological_generations(graph)]


def critical_path(graph: nx.DiGraph, generations: list[list[str]]) -> list[str]:
    """The longest chain of dependencies (each item counting one), first item first.

    Read off the waves: an item of wave k has a dependency in wave k-1 (else it would be in an
    earlier wave), so walking back from the last wave, always to the smallest such id, gives a
    longest chain in one linear pass; the choice of smallest ids keeps it deterministic. The
    smallest is found by a plain loop: a chain of n items takes n steps, and a generator per
    step (``min(d for d in ...)``) was half the cost."""
    if not generations:
        return []
    wave_of = {ident: n for n, wave in enumerate(generations) for ident in wave}
    predecessors = graph.predecessors
    node = generations[-1][0]
    path = [node]
    for n in range(len(generations) - 2, -1, -1):
        best = None
        for dep in predecessors(node):
            if wave_of[dep] == n and (best is None or dep < best):
                best = dep
        assert best is not None, "an item of a later wave has a dependency in the wave before"
        node = best
        path.append(node)
    path.reverse()
    return path
