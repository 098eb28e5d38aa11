"""The plan's graph in Mermaid: one function for every page and command that draws it (the
Markdown today; a `graph` command and an HTML page later), from the view's Graph.

Nothing from the plan reaches Mermaid as syntax: labels are quoted and every character Mermaid
reads as its own is an entity (``%%{init: ...}%%`` inside a label is a directive to Mermaid,
wherever it stands). Checked against Mermaid 11 in Chromium.
"""

from __future__ import annotations

import math
from itertools import chain, repeat

from compiler.core.display import ID_CHARACTERS, cut, escape
from compiler.render.view import Graph

# What Mermaid 11 draws by default, and a diagram cannot raise (GitHub keeps the defaults): past
# either, it shows an error instead of the graph.
MAX_EDGES = 500
MAX_TEXT = 50_000
# What stays legible on a page about 1,000 pixels wide, measured with Mermaid 11 in Chromium: the
# graph runs top down, a wave to a row (about 150 pixels high), its items side by side (about
# 60 pixels each, and 11 more per character of its label: the id, cut past ID_CHARACTERS). A wave
# of more items, or of longer labels together, is one node ("Wave 3: 120 items"); a wave of one
# item is always drawn.
MAX_WAVE_ITEMS = 8
MAX_WAVE_CHARACTERS = 64  # the labels of a wave drawn item by item, together: about 1,200 pixels at most
MAX_WAVES = 50  # drawn wave by wave: about 7,500 pixels high
# Past MAX_WAVES, or where folding wide waves still leaves more edges or text than Mermaid takes,
# consecutive waves are folded together ("Waves 1–40: 312 items") into at most this many nodes:
# edges run only forward, so n nodes have at most n(n-1)/2 of them, within MAX_EDGES.
MAX_GROUPS = (1 + math.isqrt(1 + 8 * MAX_EDGES)) // 2
# A blocked plan has no waves to fold its items into, and Mermaid puts its independent items side
# by side (50 are 8,000 pixels wide): past a wave's worth of items, its graph is left out.
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


def item_node(name: str, ident: str, graph: Graph) -> str:
    """An item's node: a box, or for an approval a hexagon (a gate a person passes), with its
    progress class (done, dropped) when it has one. Its label is the id cut as every picture cuts
    it (ID_CHARACTERS, with an ellipsis): the node's name, not its label, carries the edges."""
    shape = ('{{"', '"}}') if ident in graph.approvals else ('["', '"]')
    return _node(name, cut(ident, ID_CHARACTERS), _state(graph, ident), shape)


def _shown(wave: list[str]) -> int:
    """The characters of a wave's labels together, as drawn (each id cut)."""
    return sum(len(cut(ident, ID_CHARACTERS)) for ident in wave)


def flowchart(graph: Graph) -> tuple[str | None, str | None]:
    """The flowchart, top down, a subgraph per wave (when there are waves) and an edge per
    dependency, folded where Mermaid would refuse it or the page could not show it legibly; and
    a sentence that says what was folded. Or None and why the graph is left out (a blocked
    plan, which has no waves, past MAX_BLOCKED_ITEMS items or Mermaid's limits).

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
        wide = {w for w, wave in enumerate(graph.waves, 1)
                if len(wave) > MAX_WAVE_ITEMS or (len(wave) > 1 and _shown(wave) > MAX_WAVE_CHARACTERS)}
        drawn = _by_wave(graph, wide)
        if drawn is not None:
            if not wide:
                return drawn, None
            return drawn, (f"a wave of more than {MAX_WAVE_ITEMS} items (or {MAX_WAVE_CHARACTERS} characters of ids) "
                          "is drawn as one node")
    return _by_group(graph), (f"{len(graph.waves):,} waves are drawn as {min(len(graph.waves), MAX_GROUPS)} nodes "
                              f"(Mermaid draws at most {MAX_EDGES} edges; a page shows about {MAX_WAVES} waves)")


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
    lines += [f"  {item_node(f'n{n}', text, graph)}" for n, text in enumerate(graph.ids, 1)]
    lines = _class_lines(lines)
    lines += [f"  n{a} --> n{b}" for a, b in edges]
    return "\n".join(lines) + "\n"


def _by_wave(graph: Graph, folded: set[int]) -> str | None:
    """Each wave a subgraph of its items, but those in ``folded``, one node each; None when that
    is more edges or text than Mermaid takes."""
    # each id's item (the first, should a hand-written document repeat one)
    position = dict(zip(reversed(graph.ids), range(len(graph.ids), 0, -1), strict=True))
    node: dict[str, str] = {}  # each item's node: its own, or its wave's
    order: dict[str, int] = {}  # each node's place: its item's, or its wave's first item's
    lines = ["flowchart TD"]
    for w, wave in enumerate(graph.waves, 1):
        if w in folded:
            name = f"w{w}"
            node.update(dict.fromkeys(wave, name))
            order[name] = min(map(position.__getitem__, wave))
            state = "done" if graph.done and graph.done.issuperset(wave) else None  # a wave all done
            lines.append(f"  {_node(name, f'Wave {w}: {_items_count(len(wave))}', state, _FOLDED)}")
            continue
        lines.append(f'  subgraph wave{w}["Wave {w}"]')
        for ident in wave:
            n = position[ident]
            node[ident] = order_name = f"n{n}"
            order[order_name] = n
            lines.append(f"    {item_node(order_name, ident, graph)}")
        lines.append("  end")
    edges = _edges(graph, node, order)
    if edges is None:
        return None
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
