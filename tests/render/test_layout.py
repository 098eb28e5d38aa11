"""The picture's layout (compiler/render/layout.py): properties that hold for every plan, tested on
generated graphs without a browser (tests/render/test_html_browser.py checks the page in Chromium)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis.graph import plain_waves
from compiler.render import layout as L
from compiler.render.layout import Layout, crossings, layout, to_data
from compiler.render.view import Graph


class Node:
    def __init__(self, ident: str, depends_on: list[str]) -> None:
        self.id, self.depends_on = ident, depends_on


def make(n: int, edges: list[tuple[int, int]], ready: bool = True, **kwargs: object) -> Graph:
    """A Graph of items i0..i{n-1}; (a, b) makes item b depend on item a. Ready: its waves."""
    ids = tuple(f"i{k}" for k in range(n))
    deps: list[list[str]] = [[] for _ in range(n)]
    for a, b in edges:
        deps[b].append(ids[a])
    waves: list[list[str]] = []
    if ready:
        wave_of = plain_waves([Node(i, d) for i, d in zip(ids, deps, strict=True)])  # type: ignore[misc]
        assert len(wave_of) == n
        waves = [[] for _ in range(max(wave_of.values(), default=0))]
        for ident, w in wave_of.items():
            waves[w - 1].append(ident)
        waves = [sorted(w) for w in waves]
    return Graph(ids, waves, tuple(deps), **kwargs)  # type: ignore[arg-type]


@st.composite
def dags(draw: st.DrawFn, max_items: int = 40) -> Graph:
    n = draw(st.integers(1, max_items))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    return make(n, [(min(a, b), max(a, b)) for a, b in edges if a != b])


@st.composite
def blocked(draw: st.DrawFn, max_items: int = 30) -> Graph:
    n = draw(st.integers(1, max_items))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    return make(n, edges, ready=False)


def overlap(a: L.Box, b: L.Box) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def brute_crossings(lay: Layout) -> int:
    """Crossings by the definition (edges between the same two columns whose ends are in opposite
    vertical orders), pair by pair, from the boxes' coordinates."""
    def ends(e: L.Edge) -> tuple[tuple[int, int], int, int]:
        a, b = lay.boxes[e.depends_on], lay.boxes[e.item]
        if a.column > b.column:
            a, b = b, a
        return (a.column, b.column), a.y, b.y

    spans = [ends(e) for e in lay.edges if lay.boxes[e.depends_on].column != lay.boxes[e.item].column]
    return sum(1 for (c1, a1, b1), (c2, a2, b2) in combinations(spans, 2) if c1 == c2 and (a1 - a2) * (b1 - b2) < 0)


def check_invariants(graph: Graph, lay: Layout) -> None:
    # No two boxes overlap, and every box is inside the picture.
    for a, b in combinations(lay.boxes, 2):
        assert not overlap(a, b), (a, b)
    for box in lay.boxes:
        assert 0 <= box.x and box.x + box.w <= lay.width and 0 <= box.y and box.y + box.h <= lay.height
        assert box.w > 0 and box.h > 0
    # Every item has exactly one box, or is in exactly one list.
    seen = [0] * len(graph.ids)
    for b, box in enumerate(lay.boxes):
        for n in ((box.item,) if box.item is not None else box.members):
            seen[n] += 1
            assert lay.box_of[n] == b
    assert seen == [1] * len(graph.ids)
    # Each column's boxes are top down, at its x.
    for c, column in enumerate(lay.columns):
        tops = [lay.boxes[b].y for b in column.boxes]
        assert tops == sorted(tops)
        assert all(lay.boxes[b].column == c and lay.boxes[b].x == column.x for b in column.boxes)
    # Edges go from an item's box to its dependency's box: one per pair of distinct boxes.
    first = {}
    for n, ident in enumerate(graph.ids):
        first.setdefault(ident, n)
    wanted = {(lay.box_of[n], lay.box_of[first[d]]) for n, deps in enumerate(graph.depends_on) for d in deps
              if d in first and lay.box_of[n] != lay.box_of[first[d]]}
    if len(wanted) <= L.MAX_EDGES:
        assert {(e.item, e.depends_on) for e in lay.edges} == wanted
    for e in lay.edges:
        start, end = e.points[0], e.points[-1]
        dep, item = lay.boxes[e.depends_on], lay.boxes[e.item]
        assert start[0] in (dep.x, dep.x + dep.w) and dep.y <= start[1] <= dep.y + dep.h
        assert end[0] in (item.x, item.x + item.w) and item.y <= end[1] <= item.y + item.h
        # An edge that spans columns crosses each one between through a gap: behind no box.
        crossing = e.points[1:-1] if len(e.points) != 3 else []  # three points: a cycle's arc
        for (x1, y1), (x2, y2) in zip(crossing[::2], crossing[1::2], strict=True):
            assert y1 == y2 and x2 - x1 == L.BOX_W
            column = next(c for c in lay.columns if c.x == x1)
            assert not any(lay.boxes[b].y <= y1 <= lay.boxes[b].y + lay.boxes[b].h for b in column.boxes)
            assert 0 <= y1 <= lay.height
    assert lay.crossings == brute_crossings(lay)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(dags())
def test_ready_layout_has_no_overlap_a_box_per_item_and_edges_between_boxes(graph: Graph) -> None:
    lay = layout(graph)
    check_invariants(graph, lay)
    # Columns follow waves, left to right.
    wave_of = {ident: w for w, wave in enumerate(graph.waves) for ident in wave}
    for n, ident in enumerate(graph.ids):
        box = lay.boxes[lay.box_of[n]]
        assert box.column == wave_of[ident] and box.wave == wave_of[ident] + 1
    assert [c.x for c in lay.columns] == sorted(c.x for c in lay.columns)


@settings(max_examples=100, deadline=None)
@given(blocked())
def test_blocked_layout_orders_what_it_can_and_puts_the_rest_in_one_column(graph: Graph) -> None:
    lay = layout(graph, flagged=graph.ids[:1])
    check_invariants(graph, lay)
    ordered = plain_waves([Node(i, d) for i, d in zip(graph.ids, graph.depends_on, strict=True)])  # type: ignore[misc]
    for n, ident in enumerate(graph.ids):
        box = lay.boxes[lay.box_of[n]]
        if ident in ordered:
            assert box.column == ordered[ident] - 1
        else:
            assert lay.columns[box.column].title == "Not ordered"
    assert lay.boxes[lay.box_of[0]].flagged


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.one_of(dags(), blocked()))
def test_sweeps_never_increase_crossings_over_the_plan_order(graph: Graph) -> None:
    swept, plain = layout(graph), layout(graph, sweeps=0)
    assert brute_crossings(swept) <= brute_crossings(plain)


@settings(max_examples=50, deadline=None)
@given(dags())
def test_layout_is_deterministic(graph: Graph) -> None:
    assert to_data(layout(graph), graph) == to_data(layout(graph), graph)


def test_sweeps_untangle_a_crossed_pair() -> None:
    # a -> d and b -> c, with c before d in the plan: the plan's order crosses once.
    graph = make(4, [(0, 3), (1, 2)])
    assert layout(graph, sweeps=0).crossings == 1
    assert layout(graph).crossings == 0


def test_crossings_counts_strict_inversions_only() -> None:
    column_of = [0, 0, 1, 1]
    rank = [0, 1, 0, 1]
    assert crossings(column_of, rank, [(2, 0), (3, 1)]) == 0  # parallel
    assert crossings(column_of, rank, [(3, 0), (2, 1)]) == 1  # crossed
    assert crossings(column_of, rank, [(2, 0), (3, 0)]) == 0  # from one box


def layered(n: int, width: int, seed: int = 1234) -> Graph:
    rnd = random.Random(seed)
    edges = [(d, k) for k in range(width, n)
             for d in rnd.sample(range((k // width - 1) * width, k // width * width), 2)]
    return make(n, edges)


def test_a_wave_wider_than_the_limit_is_one_list_box() -> None:
    n = L.MAX_WAVE_BOXES + 1
    graph = make(n + 1, [(0, k) for k in range(1, n + 1)])
    lay = layout(graph)
    check_invariants(graph, lay)
    (listed,) = [b for b in lay.boxes if b.item is None]
    assert listed.title == f"Wave 2: {n} items" and len(listed.members) == n
    assert any("drawn as a list" in note for note in lay.notes)
    (edge,) = lay.edges
    assert edge.dependencies == n  # one edge gathers the wave's dependencies


def test_5000_items_draw_at_most_the_budget_of_boxes() -> None:
    graph = layered(5000, 100)
    lay = layout(graph)
    drawn = sum(1 for b in lay.boxes if b.item is not None)
    assert 0 < drawn <= L.MAX_DRAWN
    assert sum(len(b.members) for b in lay.boxes) + drawn == 5000
    assert any("widest waves" in note for note in lay.notes)


def test_a_long_chain_is_grouped_into_the_most_columns() -> None:
    graph = make(1000, [(k, k + 1) for k in range(999)])
    lay = layout(graph)
    check_invariants(graph, lay)
    assert len(lay.columns) == L.MAX_COLUMNS and lay.columns[0].title == "Waves 1–10"
    assert all(b.item is None for b in lay.boxes)
    assert len(lay.edges) == L.MAX_COLUMNS - 1


def test_a_long_blocked_chain_is_grouped_like_a_ready_one() -> None:
    graph = make(1002, [(k, k + 1) for k in range(999)] + [(1000, 1001), (1001, 1000)], ready=False)
    lay = layout(graph)
    check_invariants(graph, lay)
    assert len(lay.columns) == L.MAX_COLUMNS + 1 and lay.columns[-1].title == "Not ordered"
    assert all(b.item is None for b in lay.boxes[:L.MAX_COLUMNS])  # every grouped column is one list


def test_past_the_edge_budget_edges_are_left_out_and_the_layout_says_so(monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    mp.setattr(L, "MAX_EDGES", 3)
    try:
        graph = make(5, [(0, 1), (0, 2), (1, 3), (2, 4)], marked=frozenset({"i0", "i1"}))
        lay = layout(graph)
    finally:
        mp.undo()
    assert [(lay.boxes[e.depends_on].item, lay.boxes[e.item].item) for e in lay.edges] == [(0, 1)]
    assert lay.edges[0].critical and lay.edges_total == 4
    assert any("edges are left out" in note for note in lay.notes)


def test_a_blocked_cycle_stands_in_the_last_column_with_arcs() -> None:
    graph = make(3, [(1, 2), (2, 1), (0, 1)], ready=False)
    lay = layout(graph, flagged=["i1", "i2"])
    assert [c.title for c in lay.columns] == ["Wave 1", "Not ordered"]
    assert [lay.boxes[b].item for b in lay.columns[1].boxes] == [1, 2]
    assert all(lay.boxes[b].flagged for b in lay.columns[1].boxes)
    arcs = [e for e in lay.edges if len(e.points) == 3]
    assert len(arcs) == 2
    assert any("cannot be ordered" in note for note in lay.notes)


def test_dropped_items_of_a_ready_plan_come_last() -> None:
    graph = make(3, [(0, 1)])
    graph = graph._replace(waves=[["i0"], ["i1"]], dropped=frozenset({"i2"}))
    lay = layout(graph)
    check_invariants(graph, lay)
    assert lay.columns[-1].title == "Dropped" and lay.boxes[lay.box_of[2]].column == 2


def test_an_empty_plan_has_an_empty_layout() -> None:
    lay = layout(Graph((), [], ()))
    assert lay.boxes == () and lay.width > 0 and lay.height > 0


def test_an_edge_that_spans_columns_goes_around_the_boxes_between() -> None:
    """The worked example's shape: i0 -> i1 -> i2, and i3 (wave 1) -> i2 (wave 3) past i1's
    column, whose boxes (i1, i4) stand where a straight line would run."""
    graph = make(5, [(0, 1), (1, 2), (3, 2), (0, 4), (3, 4)])
    lay = layout(graph)
    check_invariants(graph, lay)
    (long,) = [e for e in lay.edges if len(e.points) > 2]
    assert (lay.box_of[2], lay.box_of[3]) == (long.item, long.depends_on)
    (x1, y), (x2, _) = long.points[1:3]
    middle = lay.columns[1]
    assert x1 == middle.x and x2 == middle.x + L.BOX_W
    assert not any(lay.boxes[b].y <= y <= lay.boxes[b].y + lay.boxes[b].h for b in middle.boxes)


def test_only_the_critical_paths_own_edges_are_critical() -> None:
    """i0 -> i1 -> i2 is the path; i2 also depends on i0 directly: both ends are on the path, but
    that edge skips along it and is no edge of the path."""
    graph = make(3, [(0, 1), (1, 2), (0, 2)])._replace(marked=frozenset(["i0", "i1", "i2"]), path=("i0", "i1", "i2"))
    lay = layout(graph)
    critical = {(lay.boxes[e.depends_on].item, lay.boxes[e.item].item) for e in lay.edges if e.critical}
    assert critical == {(0, 1), (1, 2)}


def test_edges_through_one_gap_run_side_by_side() -> None:
    """Two edges that cross a column through the same gap take lanes LANE pixels apart, not one
    line drawn twice; past LANES they share them."""
    def box(column: int, y: int) -> L.Box:
        return L.Box(L.MARGIN + column * (L.BOX_W + L.GAP_X), y, L.BOX_W, L.BOX_H, column, column + 1, column, (),
                     "", False, False)

    dep, item = box(0, 100), box(2, 100)
    xs = [L.MARGIN + c * (L.BOX_W + L.GAP_X) for c in range(3)]
    gaps = [[], [93, 200], []]
    used: dict[tuple[int, int], int] = {}
    ys = [L._points(dep, item, xs, gaps, used)[1][1] for _ in range(L.LANES + 1)]
    assert ys[1] - ys[0] == L.LANE and len(set(ys[:L.LANES])) == L.LANES and ys[L.LANES] == ys[0]
    assert max(abs(y - 93) for y in ys) <= L.GAP_Y // 2 - 2  # clear of the boxes on either side
