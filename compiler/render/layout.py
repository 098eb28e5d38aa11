"""The plan's graph laid out as a picture: a column per wave, a box per item, an edge per
dependency. A pure function from the view's Graph (compiler/render/view.py) to plain coordinates, which
every picture draws (compiler/render/svg.py, the HTML page, `graph --format json`); nothing here is
escaped or drawn.

- Columns follow the compiler's own waves, left to right (a plan of more than MAX_COLUMNS waves
  puts consecutive waves together in a column); items in no wave (a ready plan's dropped
  items) come last, under "Dropped". A blocked plan has no waves: its items are ordered by a
  plain topological order (compiler/analysis/graph.py plain_waves) as far as it goes, and those on or
  after a cycle (and repeated ids) stand in one last column, "Not ordered".
- Within a column, boxes start in the plan's order and are reordered by a few barycenter sweeps
  (down, then up), each a sort per column: O(V log V + E) a sweep, no recursion. The order kept
  is the one of fewest crossings among the plan's own and each sweep's, so the sweeps never
  make it worse.
- An edge that spans columns crosses each column between through the gap nearest to its line,
  never behind a box.
- A very wide wave is one list box ("Wave 3: 1,200 items" and its first ids); past an edge
  budget edges are left out; ``notes`` says what was folded or left out.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any, NamedTuple, cast

if TYPE_CHECKING:
    from compiler.model.values import Item
    from compiler.render.view import Graph

# A wave of more items than this is one list box. 100 boxes make a column about 6,600 pixels
# high, six or seven screens: past that a reader scrolls more than reads, and cannot follow an
# edge from one end of the column to the other. Its items are all in the list below the graph.
MAX_WAVE_BOXES = 100
# Items drawn as boxes of their own, at most, in the whole picture: past it, the widest waves
# are folded first. 2,000 boxes with their titles are about 1.5 MB of SVG, which Chromium lays
# out in well under a second; the page's list shows every item whatever is folded.
MAX_DRAWN = 2_000
# Columns at most: 100 are about 31,000 pixels wide. A plan of more waves (a long chain) puts
# consecutive waves together, an equal share a column, each column one list box.
MAX_COLUMNS = 100
# Edges drawn at most (after those between the same two boxes are made one): past it, only the
# critical path's are drawn. 5,000 curves are a tangle nobody follows, and megabytes of SVG.
MAX_EDGES = 5_000
# Barycenter sweeps: down, up, down, up. Most of the gain is in the first two.
SWEEPS = 4
# The ids a list box names before "… N more".
LIST_SHOWN = 8

# Geometry, in pixels (CSS pixels of the SVG's user space).
BOX_W = 220  # an item box: its id and its change, each on a line (compiler/render/svg.py cuts them to fit)
BOX_H = 52
GAP_X = 100  # between columns: room for the edges' curves
GAP_Y = 14
MARGIN = 16
HEADER = 30  # a column's title ("Wave 3") above its boxes
LINE = 16  # a list box's line
LIST_H = 2 * LINE + 14  # a list box's title line and its "… N more" line, with padding


class Box(NamedTuple):
    x: int
    y: int
    w: int
    h: int
    column: int  # 0-based
    wave: int | None  # the wave (1-based) when the column is one wave; None for grouped waves, "Dropped", "Not ordered"
    item: int | None  # an item box's item: its place in graph.ids; None for a list box
    members: tuple[int, ...]  # a list box's items (places in graph.ids), in the column's order; () for an item box
    title: str  # a list box's title ("Wave 3: 1,200 items"); "" for an item box
    flagged: bool  # holds an item that has an issue (a blocked plan's offending items)
    critical: bool  # an item box on the critical path (graph.marked)


class Edge(NamedTuple):
    item: int  # the box of the item that depends (index into Layout.boxes)
    depends_on: int  # the box of its dependency
    points: tuple[tuple[int, int], ...]  # from the dependency's box to the item's box
    dependencies: int  # the dependencies it stands for (more than one where a list box gathers them)
    critical: bool  # an edge of the critical path (both ends on it, one right after the other)


class Column(NamedTuple):
    title: str  # "Wave 3", "Waves 1–40", "Dropped", "Not ordered"
    x: int
    wave: int | None  # its wave, when it is one
    boxes: tuple[int, ...]  # its boxes, top down (indexes into Layout.boxes)


class Layout(NamedTuple):
    width: int
    height: int
    columns: tuple[Column, ...]
    boxes: tuple[Box, ...]
    edges: tuple[Edge, ...]
    box_of: tuple[int, ...]  # each item's box (index into boxes), by the item's place in graph.ids
    crossings: int  # of the order kept (see crossings())
    edges_total: int  # edges between distinct boxes, drawn or not
    notes: tuple[str, ...]  # what was folded or left out, as sentences' ends


class _Node(NamedTuple):  # what compiler.analysis.graph.plain_waves reads of an item
    id: str
    depends_on: tuple[str, ...] | list[str]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _columns(graph: Graph) -> tuple[list[tuple[str, int | None, list[int]]], list[str], bool]:
    """Each column's title, wave and items (places in graph.ids), in the plan's order; notes; and
    whether consecutive waves were put together (more than MAX_COLUMNS)."""
    first: dict[str, int] = {}
    for n, ident in enumerate(graph.ids):
        first.setdefault(ident, n)
    notes: list[str] = []
    if graph.waves:
        waves = [[first[i] for i in wave if i in first] for wave in graph.waves]
        rest_title = "Dropped"
    else:  # blocked: as far as a plain topological order goes
        from compiler.analysis.graph import plain_waves

        nodes = [_Node(ident, graph.depends_on[n]) for ident, n in first.items()]
        wave_of = plain_waves(cast("list[Item]", nodes))
        count = max(wave_of.values(), default=0)
        waves = [[] for _ in range(count)]
        for ident, w in wave_of.items():
            waves[w - 1].append(first[ident])
        rest_title = "Not ordered"
    placed = bytearray(len(graph.ids))
    for n in chain.from_iterable(waves):
        placed[n] = 1
    rest = [n for n in range(len(graph.ids)) if not placed[n]]
    for wave in waves:
        wave.sort()  # the plan's order
    columns: list[tuple[str, int | None, list[int]]]
    if len(waves) > MAX_COLUMNS:
        columns = []
        count = len(waves)
        for g in range(MAX_COLUMNS):
            a, b = g * count // MAX_COLUMNS, (g + 1) * count // MAX_COLUMNS  # waves a+1 .. b
            title = f"Wave {a + 1:,}" if b == a + 1 else f"Waves {a + 1:,}–{b:,}"
            columns.append((title, a + 1 if b == a + 1 else None, sorted(chain.from_iterable(waves[a:b]))))
        notes.append(f"{count:,} waves are drawn in {MAX_COLUMNS} columns")
    else:
        columns = [(f"Wave {w:,}", w, wave) for w, wave in enumerate(waves, 1)]
    if rest:
        if not graph.waves:
            notes.append(f"{_plural(len(rest), 'item')} on or after a dependency cycle (or repeating an id) "
                         "cannot be ordered: they stand in the last column")
        columns.append((rest_title, None, rest))
    return columns, notes, len(waves) > MAX_COLUMNS


def _folded(columns: list[tuple[str, int | None, list[int]]], grouped: bool) -> tuple[set[int], list[str]]:
    """Which columns are one list box: those wider than MAX_WAVE_BOXES, then the widest while
    more than MAX_DRAWN items would be drawn (every column, when waves are grouped)."""
    if grouped:
        return set(range(len(columns))), []
    folded = {c for c, (_, _, items) in enumerate(columns) if len(items) > MAX_WAVE_BOXES}
    notes = [f"a wave of more than {MAX_WAVE_BOXES} items is drawn as a list"] if folded else []
    drawn = sum(len(items) for c, (_, _, items) in enumerate(columns) if c not in folded)
    if drawn > MAX_DRAWN:
        for c in sorted((c for c in range(len(columns)) if c not in folded), key=lambda c: (-len(columns[c][2]), -c)):
            if drawn <= MAX_DRAWN or len(columns[c][2]) <= 1:
                break
            folded.add(c)
            drawn -= len(columns[c][2])
        notes.append(f"past {MAX_DRAWN:,} items, the widest waves (the later of equals) are drawn as lists")
    return folded, notes


def layout(graph: Graph, flagged: Iterable[str] = (), *, sweeps: int = SWEEPS) -> Layout:
    """The picture's layout (see the module's docstring). ``flagged``: the ids of items that
    have an issue, marked on their boxes. ``sweeps=0`` keeps the plan's order (for tests)."""
    columns, notes, grouped = _columns(graph)
    folded, more = _folded(columns, grouped)
    notes += more
    marks = frozenset(flagged)
    ids = graph.ids
    # Boxes, column by column, in the plan's order: (column, item or None, members, title).
    column_of: list[int] = []
    item_of: list[int | None] = []
    members_of: list[tuple[int, ...]] = []
    titles: list[str] = []
    box_of = [0] * len(ids)
    order: list[list[int]] = []
    for c, (title, _, items) in enumerate(columns):
        if c in folded:
            b = len(column_of)
            column_of.append(c)
            item_of.append(None)
            members_of.append(tuple(items))
            titles.append(f"{title}: {_plural(len(items), 'item')}")
            for n in items:
                box_of[n] = b
            order.append([b])
            continue
        start = len(column_of)
        for n in items:
            box_of[n] = len(column_of)
            column_of.append(c)
            item_of.append(n)
            members_of.append(())
            titles.append("")
        order.append(list(range(start, len(column_of))))
    # Edges between boxes: one per pair of boxes, counting the dependencies it stands for.
    first: dict[str, int] = {}
    for n, ident in enumerate(ids):
        first.setdefault(ident, n)
    pairs: dict[tuple[int, int], int] = {}
    for n, deps in enumerate(graph.depends_on):
        b = box_of[n]
        for dep in deps:
            d = first.get(dep)
            if d is None:
                continue
            bd = box_of[d]
            if bd != b:
                pairs[(b, bd)] = pairs.get((b, bd), 0) + 1
    marked = graph.marked
    critical_box = [n is not None and ids[n] in marked for n in item_of]
    # The path's own edges (each id and the next): an edge between two of its items that skips
    # along it is no edge of the path. A graph marked without its order marks both ends' edges.
    steps = set(pairwise(graph.path)) if graph.path else None
    kept = pairs
    if len(pairs) > MAX_EDGES:
        kept = {p: k for p, k in pairs.items() if critical_box[p[0]] and critical_box[p[1]]}
        notes.append(f"the plan's {len(pairs):,} edges are left out (more than {MAX_EDGES:,})"
                     + (", but for the critical path's" if kept else ""))
    heights = [_height(members) for members in members_of]
    rank, crossed = _order(order, column_of, kept, heights, sweeps)
    for col in order:
        col.sort(key=rank.__getitem__)
    # Coordinates.
    xs = [MARGIN + c * (BOX_W + GAP_X) for c in range(len(columns))]
    ys = [0] * len(item_of)
    bottom = MARGIN + HEADER
    for col in order:
        y = MARGIN + HEADER
        for b in col:
            ys[b] = y
            y += heights[b] + GAP_Y
        bottom = max(bottom, y - GAP_Y)
    boxes = tuple(
        Box(x=xs[column_of[b]], y=ys[b], w=BOX_W, h=heights[b], column=column_of[b], wave=columns[column_of[b]][1],
            item=item_of[b], members=members_of[b], title=titles[b],
            flagged=_flagged(ids, item_of[b], members_of[b], marks), critical=critical_box[b])
        for b in range(len(item_of)))
    gaps = [_gaps([boxes[b] for b in col]) for col in order]
    lanes: dict[tuple[int, int], int] = {}
    edges = tuple(
        Edge(item=b, depends_on=d, points=_points(boxes[d], boxes[b], xs, gaps, lanes), dependencies=k,
             critical=critical_box[b] and critical_box[d] and (
                 steps is None or (ids[cast(int, item_of[d])], ids[cast(int, item_of[b])]) in steps))
        for (b, d), k in sorted(kept.items(), key=lambda p: (column_of[p[0][1]], rank[p[0][1]], column_of[p[0][0]],
                                                               rank[p[0][0]])))
    width = MARGIN * 2 + len(columns) * BOX_W + max(len(columns) - 1, 0) * GAP_X
    if any(len(e.points) == 3 and boxes[e.item].column == len(columns) - 1 for e in edges):
        width += GAP_X  # the arcs of the last column's cycle
    cols = tuple(Column(title=title, x=xs[c], wave=wave, boxes=tuple(order[c]))
                 for c, (title, wave, _) in enumerate(columns))
    return Layout(width=width if columns else 2 * MARGIN, height=bottom + MARGIN, columns=cols, boxes=boxes,
                  edges=edges, box_of=tuple(box_of), crossings=crossed, edges_total=len(pairs), notes=tuple(notes))


def _flagged(ids: tuple[str, ...], item: int | None, members: tuple[int, ...], flagged: frozenset[str]) -> bool:
    if not flagged:
        return False
    return ids[item] in flagged if item is not None else any(ids[m] in flagged for m in members)


def _height(members: tuple[int, ...]) -> int:
    if not members:
        return BOX_H
    return LIST_H + LINE * min(len(members), LIST_SHOWN)


def _order(order: list[list[int]], column_of: list[int], pairs: dict[tuple[int, int], int], heights: list[int],
           sweeps: int) -> tuple[list[int], int]:
    """Each box's rank within its column after the barycenter sweeps, and the crossings of that
    order: the plan's order, or a sweep's, whichever crosses least (the first of equals)."""
    size = len(column_of)
    rank = [0] * size
    for col in order:
        for r, b in enumerate(col):
            rank[b] = r
    # Neighbours in earlier columns (for the down sweeps) and in later ones (for the up sweeps).
    before: list[list[int]] = [[] for _ in range(size)]
    after: list[list[int]] = [[] for _ in range(size)]
    for b, d in pairs:
        cb, cd = column_of[b], column_of[d]
        if cd < cb:
            before[b].append(d)
            after[d].append(b)
        elif cd > cb:
            before[d].append(b)
            after[b].append(d)
    center = [0.0] * size

    def stack(col: list[int]) -> None:
        y = 0.0
        for b in col:
            center[b] = y + heights[b] / 2
            y += heights[b] + GAP_Y

    for col in order:
        stack(col)
    best_rank = rank[:]
    best = crossings(column_of, rank, pairs)
    current = [col[:] for col in order]
    for sweep in range(sweeps):
        down = sweep % 2 == 0
        sequence = current if down else current[::-1]
        neighbours = before if down else after
        for col in sequence:
            if len(col) < 2:
                continue
            keys = {}
            for b in col:  # the mean height of its neighbours on that side; where it is, without any
                near = neighbours[b]
                keys[b] = (sum([center[n] for n in near]) / len(near) if near else center[b], rank[b])
            col.sort(key=keys.__getitem__)
            for r, b in enumerate(col):
                rank[b] = r
            stack(col)
        crossed = crossings(column_of, rank, pairs)
        if crossed < best:
            best, best_rank = crossed, rank[:]
    return best_rank, best


def crossings(column_of: list[int] | tuple[int, ...], rank: list[int], pairs: Iterable[tuple[int, int]]) -> int:
    """Pairs of edges that cross, among edges between the same two columns: two edges from
    column i to column j cross when their ends are in opposite orders (edges that share a box
    do not). Every item of a wave has a dependency in the wave before, so the edges between
    neighbouring columns, the most and the ones the sweeps order, are all counted; edges within
    one column (a cycle's) are not. Strict inversions, counted with a Fenwick tree:
    O(E log V)."""
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for b, d in pairs:
        cb, cd = column_of[b], column_of[d]
        if cb == cd:
            continue
        if cd < cb:
            groups.setdefault((cd, cb), []).append((rank[d], rank[b]))
        else:
            groups.setdefault((cb, cd), []).append((rank[b], rank[d]))
    total = 0
    for ends in groups.values():
        if len(ends) < 2:
            continue
        ends.sort()
        top = max(e for _, e in ends) + 2
        tree = [0] * (top + 1)
        seen = 0
        i = 0
        while i < len(ends):  # edges from one box are added together: they never cross each other
            j = i
            while j < len(ends) and ends[j][0] == ends[i][0]:
                # count earlier edges (from boxes above) that end below this one's end
                k, at_most = ends[j][1] + 1, 0
                while k > 0:
                    at_most += tree[k]
                    k -= k & -k
                total += seen - at_most
                j += 1
            for m in range(i, j):
                k = ends[m][1] + 1
                while k <= top:
                    tree[k] += 1
                    k += k & -k
            seen += j - i
            i = j
    return total


def _gaps(column: list[Box]) -> list[int]:
    """The heights at which an edge may cross a column without touching a box, top down: the
    middle of each gap between two boxes, and just above the first and below the last."""
    if not column:
        return [MARGIN + HEADER]
    out = [column[0].y - GAP_Y // 2]
    out += [(a.y + a.h + b.y) // 2 for a, b in pairwise(column)]
    out.append(column[-1].y + column[-1].h + GAP_Y // 2)
    return out


# Edges that cross a column through the same gap run side by side, this many pixels apart, up to
# LANES of them (then they share lanes): within a gap between two boxes (GAP_Y) they stay clear of both.
LANE = 2
LANES = 5


def _points(dep: Box, item: Box, xs: list[int], gaps: list[list[int]],
            used: dict[tuple[int, int], int] | None = None) -> tuple[tuple[int, int], ...]:
    """An edge's points, from its dependency's box to its item's: right side to left side, or
    an arc on the right between two boxes of one column (a cycle's, in a blocked plan: the only
    edges of three points). An edge that spans columns crosses each column between it through
    the gap nearest to its straight line (two points a column, at the column's sides), so that
    it never runs behind a box; ``used`` counts the edges through each gap so far, each taking
    the next lane of it."""
    dy, iy = dep.y + dep.h // 2, item.y + item.h // 2
    if dep.column < item.column:
        points = [(dep.x + dep.w, dy)]
        span = item.column - dep.column
        for step, c in enumerate(range(dep.column + 1, item.column), 1):
            level = gaps[c]
            want = dy + (iy - dy) * step // span
            at = bisect_left(level, want)
            g = min(range(max(at - 1, 0), min(at + 1, len(level))), key=lambda k: abs(level[k] - want))
            lane = 0
            if used is not None:
                lane = used.get((c, g), 0)
                used[(c, g)] = lane + 1
            y = level[g] + (lane % LANES - LANES // 2) * LANE
            points += [(xs[c], y), (xs[c] + BOX_W, y)]
        points.append((item.x, iy))
        return tuple(points)
    if dep.column > item.column:  # an item depending on one in a later column (a dropped one)
        return (dep.x, dy), (item.x + item.w, iy)
    bulge = min(GAP_X * 3 // 4, 24 + abs(iy - dy) // 4)
    return (dep.x + dep.w, dy), (dep.x + dep.w + bulge, (dy + iy) // 2), (item.x + item.w, iy)


def to_data(lay: Layout, graph: Graph) -> dict[str, Any]:
    """The layout as plain JSON data (``graph --format json``): every box with its coordinates
    and the ids it stands for, every edge with its points."""
    ids = graph.ids
    boxes = []
    for box in lay.boxes:
        entry: dict[str, Any] = {"x": box.x, "y": box.y, "w": box.w, "h": box.h, "column": box.column,
                                 "wave": box.wave}
        if box.item is not None:
            entry["kind"] = "item"
            entry["id"] = ids[box.item]
        else:
            entry["kind"] = "list"
            entry["title"] = box.title
            entry["items"] = [ids[n] for n in box.members]
        entry["flagged"] = box.flagged
        entry["critical"] = box.critical
        boxes.append(entry)
    return {
        "width": lay.width,
        "height": lay.height,
        "columns": [{"title": c.title, "x": c.x, "wave": c.wave, "boxes": list(c.boxes)} for c in lay.columns],
        "boxes": boxes,
        "edges": [{"item": e.item, "depends_on": e.depends_on, "points": [list(p) for p in e.points],
                   "dependencies": e.dependencies, "critical": e.critical} for e in lay.edges],
        "edges_total": lay.edges_total,
        "crossings": lay.crossings,
        "notes": list(lay.notes),
    }
