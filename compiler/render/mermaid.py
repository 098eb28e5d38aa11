"""The plan's graph in Mermaid: one function for every page and command that draws it (the
Markdown today; a `graph` command and an HTML page later), from the view's Graph.

Nothing from the plan reaches Mermaid as syntax: labels are quoted and every character Mermaid
reads as its own is an entity (``%%{init: ...}%%`` inside a label is a directive to Mermaid,
wherever it stands). Checked against Mermaid 11 in Chromium.
"""

from __future__ import annotations

import math
from itertools import chain, pairwise, repeat

from compiler.core.display import ID_CHARACTERS, cut, escape
from compiler.render.view import Graph, phase_groups

# What Mermaid 11 draws by default, and a diagram cannot raise (GitHub keeps the defaults): past
# either, it shows an error instead of the graph.
MAX_EDGES = 500
MAX_TEXT = 50_000
# What stays legible in GitHub's column of about 980 pixels, measured with Mermaid 11 in Chromium
# (tests/clients/mermaid_render.mjs). Mermaid's layout spreads a graph drawn item by item as its
# dependencies cross or skip waves: 5 waves of 4 items each depending on two of the wave before
# were 1,060 pixels wide, 10 waves of 8 items 5,200, and a chain of single items whose
# dependencies skip waves 1,900. So item by item, with an arrow per dependency, is kept for a
# plan too small for the layout to spread (NARROW_*); any other plan's graph is a row per wave,
# a subgraph of its items side by side (wrapped onto more rows within ROW_WIDTH), joined by an
# arrow from each wave to the next, which is as wide as its widest row whatever the
# dependencies. A wave of more items than MAX_WAVE_ITEMS is one node ("Wave 3: 120 items").
NARROW_WAVES = 6  # item by item: at most this many waves,
NARROW_WAVE_ITEMS = 2  # of at most this many items each,
NARROW_WAVE_CHARACTERS = 32  # whose labels total at most this many characters, every dependency in the wave just before
MAX_WAVE_ITEMS = 8
# A node's width in pixels: BOX_PIXELS and CHARACTER_PIXELS a character of its label (measured:
# 26 characters of a typical id 260, of "x" 306; of "m" or "W" 470, which ids seldom are), and
# NODE_SPACING between two (Mermaid's default). A row holds what fits in ROW_WIDTH, with room
# for the subgraph's own margins within the column.
BOX_PIXELS = 60
CHARACTER_PIXELS = 10
NODE_SPACING = 50
ROW_WIDTH = 820
MAX_WAVES = 50  # drawn wave by wave,
MAX_ROWS = 60  # and in rows, at most this many (about 150 pixels each: 9,000 high)
# Past MAX_WAVES, or where folding wide waves still leaves more edges or text than Mermaid takes,
# consecutive waves are folded together ("Waves 1–40: 312 items") into at most this many nodes:
# edges run only forward, so n nodes have at most n(n-1)/2 of them, within MAX_EDGES.
MAX_GROUPS = (1 + math.isqrt(1 + 8 * MAX_EDGES)) // 2
# A blocked plan has no waves to fold its items into: they are drawn one under the other in the
# plan's order (side by side, 8 independent ones were 2,660 pixels wide; 50, 8,000), an arrow per
# dependency, and past a wave's worth of items its graph is left out.
MAX_BLOCKED_ITEMS = MAX_WAVE_ITEMS
# How an item on the critical path by median estimate is drawn (a node of its own; a folded wave is not marked).
CRITICAL_STYLE = "stroke-width:3px"

# Mermaid marks entities internally with "ﬂ°" and "¶ß" and decodes what looks like one, so those
# two become visible escapes first. Then "#": the entities themselves start with it. A backslash
# (Mermaid reads "\n" as a line break) and ":" (its `style ...:...#...;` pass eats a ";") too.
_ENTITIES = (("°", "\\u00b0"), ("¶", "\\u00b6"), ("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"),
             ("`", "#96;"), ("&", "#amp;"), ("%", "#37;"), ("\\", "#92;"), (":", "#58;"))


# Progress (compiler/analysis/progress.py): a done item's node is green with a check mark after its label,
# a dropped one's (drawn only in a blocked plan: dropped items are in no wave) grey and dashed.
# The class names and styles are ours, never plan text; a node takes one with ``:::``.
_CLASSES = {"done": "  classDef done fill:#dcfce7,stroke:#15803d,color:#14532d",
            "dropped": "  classDef dropped fill:#f3f4f6,stroke:#9ca3af,stroke-dasharray:4 3,color:#6b7280"}
_MARKS = {"done": " ✓", "dropped": " (dropped)"}
_FOLDED = ('[["', '"]]')  # a folded wave's (or group's) node shape


def _state(graph: Graph, ident: str) -> str | None:
    return "done" if ident in graph.done else "dropped" if ident in graph.dropped else None


def _node(name: str, text: str, state: str | None, shape: tuple[str, str] = ('["', '"]')) -> str:
    """A node: its name, its label (escaped here), and its progress class, if any."""
    if state is None:
        return f"{name}{shape[0]}{label(text)}{shape[1]}"
    return f"{name}{shape[0]}{label(text)}{_MARKS[state]}{shape[1]}:::{state}"


def _class_lines(lines: list[str]) -> list[str]:
    """The classDef lines of the classes the nodes use, after ``flowchart TD``."""
    used = [line for name, line in _CLASSES.items() if any(node.endswith(f":::{name}") for node in lines)]
    return [lines[0], *used, *lines[1:]] if used else lines


def label(text: object) -> str:
    """A quoted Mermaid label's text: control characters escaped, Mermaid's syntax as entities."""
    s = escape(str(text))
    for char, entity in _ENTITIES:
        s = s.replace(char, entity)
    return s


def shown(ident: str, n: int) -> str:
    """An item's label text: its id cut as every picture cuts it (ID_CHARACTERS, with an
    ellipsis), or, for an item without a usable id (none, or one YAML read as a number: the
    compiled id is ""), its place in the plan: Mermaid 10 and 11 refuse an empty label, and
    then draw an error instead of the whole graph."""
    if not ident.strip():
        return f"item {n:,} (no id)"
    return cut(ident, ID_CHARACTERS)


def item_node(name: str, ident: str, graph: Graph, n: int) -> str:
    """An item's node: a box, or for an approval a hexagon (a gate a person passes), with its
    progress class (done, dropped) when it has one. Its label is shown(ident, n), the item's
    n-th place in the plan (1-based) naming an item without an id: the node's name, not its
    label, carries the edges."""
    shape = ('{{"', '"}}') if ident in graph.approvals else ('["', '"]')
    return _node(name, shown(ident, n), _state(graph, ident), shape)


def box_width(text: str) -> int:
    """A node's width in pixels, as Mermaid draws it for a label of ``text`` (see CHARACTER_PIXELS)."""
    return BOX_PIXELS + CHARACTER_PIXELS * len(text)


def _wave_pairs(graph: Graph) -> set[tuple[int, int]]:
    """Each (dependency's wave, item's wave) that some dependency joins, among items in waves (an
    item in no wave, a dropped one, is not drawn, nor are its edges). One zip over every
    dependency of the plan, at C speed: a large plan has few distinct pairs."""
    wave_of = dict(zip(chain.from_iterable(graph.waves), chain.from_iterable(
        map(repeat, range(1, len(graph.waves) + 1), map(len, graph.waves))), strict=True))
    heads = map(wave_of.get, chain.from_iterable(graph.depends_on))
    tails = chain.from_iterable(map(repeat, map(wave_of.get, graph.ids), map(len, graph.depends_on)))
    return {(a, b) for a, b in set(zip(heads, tails, strict=True)) if a is not None and b is not None}


def _narrow(graph: Graph) -> bool:
    """Whether Mermaid's layout of the graph item by item is sure to stay within the column:
    few, small waves (NARROW_*); the caller checks that each dependency is in the wave just before."""
    return len(graph.waves) <= NARROW_WAVES and all(
        len(wave) <= NARROW_WAVE_ITEMS and sum(len(cut(i, ID_CHARACTERS)) for i in wave) <= NARROW_WAVE_CHARACTERS
        for wave in graph.waves)


def flowchart(graph: Graph) -> tuple[str | None, str | None]:
    """The flowchart, top down, a subgraph per wave (when there are waves): item by item with an
    edge per dependency where that layout stays narrow, else a row per wave joined wave to wave;
    folded where Mermaid would refuse it or the page could not show it legibly; and a sentence
    that says what was folded. Or None and why the graph is left out (a blocked plan, which has
    no waves, past MAX_BLOCKED_ITEMS items or Mermaid's limits).

    Linear, and at C speed where the plan is large: the folded graphs of a 100,000-item plan
    read each dependency once, through maps and zips, never one item at a time."""
    if not graph.waves:
        if len(graph.ids) > MAX_BLOCKED_ITEMS:
            return None, (f"a blocked plan has no waves to fold its {len(graph.ids):,} items into "
                          f"(it is drawn up to {MAX_BLOCKED_ITEMS})")
        text = _items(graph)
        if len(text) > MAX_TEXT:
            return None, f"its text would be longer than Mermaid reads ({MAX_TEXT:,} characters)"
        return text, None
    if len(graph.waves) <= MAX_WAVES:
        wide = {w for w, wave in enumerate(graph.waves, 1) if len(wave) > MAX_WAVE_ITEMS}
        pairs = _wave_pairs(graph)
        consecutive = all(a == b - 1 for a, b in pairs)  # every dependency in the wave just before its item
        arrows = not wide and consecutive and _narrow(graph)
        drawn = _by_wave(graph, wide, arrows)
        if drawn is not None:
            # the arrows wave to wave are the dependencies themselves where each dependency joins
            # consecutive waves drawn as one node each (an item, or a folded wave)
            one = [w in wide or len(wave) == 1 for w, wave in enumerate(graph.waves, 1)]
            exact = consecutive and all(one[a - 1] and one[b - 1] for a, b in pairs)
            notes = [] if arrows or exact else [
                "the arrows join each wave to the next, each wave a row of its items (each item lists its "
                "dependencies below)"]
            if wide:
                notes.append(f"a wave of more than {MAX_WAVE_ITEMS} items is drawn as one node")
            return drawn, "; ".join(notes) or None
    return _by_group(graph), (f"{len(graph.waves):,} waves are drawn as {min(len(graph.waves), MAX_GROUPS)} nodes "
                              f"(Mermaid draws at most {MAX_EDGES} edges; a page shows about {MAX_WAVES} waves, "
                              f"{MAX_ROWS} rows of items)")


def _items_count(n: int) -> str:
    return f"{n:,} item" if n == 1 else f"{n:,} items"


def _items(graph: Graph) -> str:
    """A blocked plan, item by item (at most MAX_BLOCKED_ITEMS: one loop is cheap)."""
    index: dict[str, int] = {}
    for n, ident in enumerate(graph.ids, 1):
        index.setdefault(ident, n)
    edges = sorted({(index[dep], n) for n, deps in enumerate(graph.depends_on, 1)
                    for dep in deps if dep in index and dep != graph.ids[n - 1]})
    lines = ["flowchart TD"]
    lines += [f"  {item_node(f'n{n}', text, graph, n)}" for n, text in enumerate(graph.ids, 1)]
    lines = _class_lines(lines)
    # Top down in the plan's order, held there by invisible links: items with no edge between them
    # stood side by side (8 of 26 characters, 2,660 pixels; 4 pairs 1,320), one under the other they are 300.
    if len(graph.ids) > 1:
        lines.append("  " + " ~~~ ".join(f"n{n}" for n in range(1, len(graph.ids) + 1)))
    lines += [f"  n{a} --> n{b}" for a, b in edges]
    return "\n".join(lines) + "\n"


def rows(labels: list[str]) -> list[list[int]]:
    """A wave's nodes (by their labels) in rows, each as wide as fits ROW_WIDTH (one node at least)."""
    out: list[list[int]] = []
    width = 0
    for k, text in enumerate(labels):
        w = box_width(text)
        if out and width + NODE_SPACING + w <= ROW_WIDTH:
            out[-1].append(k)
            width += NODE_SPACING + w
        else:
            out.append([k])
            width = w
    return out


def _grid(names: list[str], grid: list[list[int]]) -> list[str]:
    """A wave's rows held one under the other: an invisible link (``~~~``) from each node of a
    row to the node below it (or the last of the row below, which is shorter), and to each node
    of the row below from the one above it, so that every node of two rows is linked (Mermaid
    places an unlinked node of a row anywhere down the wave)."""
    links: list[str] = []
    for above, below in pairwise(grid):
        pairs = {(above[min(k, len(above) - 1)], below[min(k, len(below) - 1)])
                 for k in range(max(len(above), len(below)))}
        links += [f"    {names[a]} ~~~ {names[b]}" for a, b in sorted(pairs)]
    return links


def _by_wave(graph: Graph, folded: set[int], arrows: bool) -> str | None:
    """Each wave a subgraph of its items, but those in ``folded``, one node each; with an edge
    per dependency (``arrows``), or in rows, the waves joined in order; None when that is more
    edges or text than Mermaid takes, or more rows than MAX_ROWS."""
    # each id's item (the first, should a hand-written document repeat one)
    position = dict(zip(reversed(graph.ids), range(len(graph.ids), 0, -1), strict=True))
    node: dict[str, str] = {}  # each item's node: its own, or its wave's
    order: dict[str, int] = {}  # each node's place: its item's, or its wave's first item's
    lines = ["flowchart TD"]
    waves: list[str] = []  # each wave's subgraph or node, in order
    height = 0  # rows drawn so far
    for w, wave in enumerate(graph.waves, 1):
        height += 1
        if w in folded:
            name = f"w{w}"
            waves.append(name)
            node.update(dict.fromkeys(wave, name))
            order[name] = min(map(position.__getitem__, wave))
            state = "done" if graph.done and graph.done.issuperset(wave) else None  # a wave all done
            lines.append(f"  {_node(name, f'Wave {w}: {_items_count(len(wave))}', state, _FOLDED)}")
            continue
        waves.append(f"wave{w}")
        lines.append(f'  subgraph wave{w}["Wave {w}"]')
        if not arrows:  # its own layout, top down: items with no edge between them side by side
            lines.append("    direction TB")
        names = []
        groups = phase_groups(wave, lambda i: graph.phases[position[i] - 1]) if graph.phases else [(None, wave)]
        for group, members in groups:
            if group is not None:  # a plan that gives phases: each phase's items of the wave, boxed and named
                title = label(f"Phase {group[0]}: {cut(group[1], ID_CHARACTERS)}")
                lines.append(f'    subgraph w{w}p{group[0]}["{title}"]')
            for ident in members:
                n = position[ident]
                node[ident] = name = f"n{n}"
                order[name] = n
                names.append(name)
                lines.append(f"    {item_node(name, ident, graph, n)}")
            if group is not None:
                lines.append("    end")
        if not arrows:
            labels = [shown(i, position[i]) + (_MARKS[s] if (s := _state(graph, i)) else "") for i in wave]
            grid = rows(labels)
            height += len(grid) - 1
            if height > MAX_ROWS:
                return None
            lines += _grid(names, grid)
        lines.append("  end")
    if arrows:
        edges = _edges(graph, node, order)
        if edges is None:
            return None
    else:
        edges = [f"  {a} --> {b}" for a, b in pairwise(waves)]
    marked = sorted({node[i] for i in graph.marked if i in node and node[i][0] == "n"}, key=order.__getitem__)
    if marked:  # the critical path by median estimate: its items drawn bold (node names only: nothing to escape)
        edges += [f"  classDef critical {CRITICAL_STYLE}", f"  class {','.join(marked)} critical"]
    text = "\n".join(_class_lines(lines) + edges) + "\n"
    return text if len(text) <= MAX_TEXT else None


def _edges(graph: Graph, node: dict[str, str], order: dict[str, int]) -> list[str] | None:
    """The edges between the nodes that hold each item and each of its dependencies, once each,
    in the order of ``order``; None past MAX_EDGES. One zip over every dependency of the plan."""
    heads = map(node.get, chain.from_iterable(graph.depends_on))
    tails = chain.from_iterable(map(repeat, map(node.get, graph.ids), map(len, graph.depends_on)))
    pairs: set[tuple[str, str]] = {(a, b) for a, b in set(zip(heads, tails, strict=True))
                                   if a is not None and b is not None and a != b}  # unknown, self, same node
    if len(pairs) > MAX_EDGES:
        return None
    return [f"  {a} --> {b}" for a, b in sorted(pairs, key=lambda p: (order[p[0]], order[p[1]]))]


def _by_group(graph: Graph) -> str:
    """Consecutive waves folded into at most MAX_GROUPS nodes, each an equal share of the waves."""
    count = len(graph.waves)
    groups = min(count, MAX_GROUPS)
    node: dict[str, str] = {}
    order: dict[str, int] = {}
    lines = ["flowchart TD"]
    for g in range(1, groups + 1):
        first, last = (g - 1) * count // groups, g * count // groups  # waves first+1 .. last
        name = f"g{g}"
        order[name] = g
        share = graph.waves[first:last]
        items = sum(map(len, share))
        node.update(dict.fromkeys(chain.from_iterable(share), name))
        waves = f"Wave {first + 1:,}" if last == first + 1 else f"Waves {first + 1:,}–{last:,}"
        state = "done" if graph.done and all(map(graph.done.issuperset, share)) else None  # all done
        lines.append(f"  {_node(name, f'{waves}: {_items_count(items)}', state, _FOLDED)}")
    edges = _edges(graph, node, order)
    assert edges is not None  # forward edges among MAX_GROUPS nodes: at most MAX_EDGES
    return "\n".join(_class_lines(lines) + edges) + "\n"
