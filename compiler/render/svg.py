"""The layout (compiler/render/layout.py) drawn: a standalone SVG for `graph --format svg`, and the
edges that the HTML page (compiler/render/html.py) draws under its boxes.

Every text from the plan is shown with control characters as visible escapes
(compiler/core/display.py) and then XML-escaped, in text and in attributes alike (``&<>"'``), so no
id or change can end an element, an attribute or the document (``]]>`` is only text here).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape as _xml
from typing import Any

from compiler.core.display import ID_CHARACTERS, clip, cut, escape
from compiler.core.ids import MAX_LENGTH
from compiler.render.layout import GAP_X, LINE, LIST_SHOWN, MARGIN, Box, Edge, Layout
from compiler.render.view import Graph

# What a box shows of its change, in characters (of its id: ID_CHARACTERS, as every picture);
# longer text is cut with an ellipsis, and shown in the box's <title> (on hover).
CHANGE_CHARACTERS = 32
# What a box's <title> shows of each evidence entry and of the proof, in characters.
DETAIL_CHARACTERS = 300

# The picture's colours, shared by the SVG's own style and the HTML page's (compiler/render/html.py).
STYLE = """\
.edge{fill:none;stroke:#94a3b8;stroke-width:1.3}
.edge.critical{stroke:#b45309;stroke-width:2.6}
.box rect{fill:#fff;stroke:#64748b;stroke-width:1.2}
.box.done rect{fill:#dcfce7;stroke:#15803d}
.box.doing rect{fill:#dbeafe;stroke:#1d4ed8}
.box.dropped rect{fill:#f3f4f6;stroke:#9ca3af;stroke-dasharray:4 3}
.box.approval rect{stroke:#7c3aed;stroke-width:2.4;stroke-dasharray:8 3}
.box.critical rect{stroke:#b45309;stroke-width:3}
.box.flagged rect{fill:#fef2f2;stroke:#dc2626;stroke-width:3}
.box.list rect{fill:#f8fafc}
.box text{font:13px sans-serif;fill:#0f172a}
.box text.id{font:bold 13px ui-monospace,monospace}
.box text.more{fill:#475569}
.column{font:bold 13px sans-serif;fill:#334155}
"""


def attr(text: object) -> str:
    """Plan text for an XML or HTML attribute or element: escaped, quotes included."""
    return _xml(escape(str(text)), quote=True)


def state(item: dict[str, Any] | None) -> str:
    status = item.get("status") if item is not None else None
    return status if status in ("doing", "done", "dropped") else ""


def classes(box: Box, item: dict[str, Any] | None) -> str:
    parts = ["box", "item" if box.item is not None else "list"]
    if box.item is not None:
        if s := state(item):
            parts.append(s)
        if item is not None and item.get("kind") == "approval":
            parts.append("approval")
    if box.critical:
        parts.append("critical")
    if box.flagged:
        parts.append("flagged")
    return " ".join(parts)


def edge_path(lay: Layout, edge: Edge) -> str:
    """An edge as an SVG path: a curve with level ends, from the dependency to the item."""
    points = edge.points
    (x1, y1), (x2, y2) = points[0], points[-1]
    if len(points) == 3:  # an arc on the right of one column
        reach = x1 + (points[1][0] - x1) * 4 // 3  # the curve's apex reaches the middle point
        return f"M{x1} {y1}C{reach} {y1} {reach} {y2} {x2} {y2}"
    path = [f"M{x1} {y1}"]
    for n in range(1, len(points)):  # a curve with level ends between columns, a line across one
        (ax, ay), (bx, by) = points[n - 1], points[n]
        if n % 2 == 0 and n < len(points) - 1:  # across a column between the ends, through its gap
            path.append(f"L{bx} {by}")
            continue
        bend = max(abs(bx - ax) // 2, GAP_X // 3)
        sign = 1 if bx >= ax else -1
        path.append(f"C{ax + sign * bend} {ay} {bx - sign * bend} {by} {bx} {by}")
    return "".join(path)


def edge_title(lay: Layout, edge: Edge, graph: Graph) -> str:
    item, dep = lay.boxes[edge.item], lay.boxes[edge.depends_on]
    if item.item is not None and dep.item is not None and edge.dependencies == 1:
        return f"{graph.ids[item.item]} depends on {graph.ids[dep.item]}"
    return f"{edge.dependencies:,} dependencies"


def edges_svg(lay: Layout, graph: Graph) -> Iterator[str]:
    """The edges, each a path with its title, and the arrowhead they share."""
    yield ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9"'
           ' markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#64748b"/>'
           "</marker></defs>")
    for edge in lay.edges:
        kind = "edge critical" if edge.critical else "edge"
        yield (f'<path class="{kind}" d="{edge_path(lay, edge)}" marker-end="url(#arrow)">'
               f"<title>{attr(cut(edge_title(lay, edge, graph), DETAIL_CHARACTERS))}</title></path>\n")


def details(item: dict[str, Any]) -> list[str]:
    """An item's lines for a tooltip: its change, evidence and proof (each cut, shown safely)."""
    lines = [f"{item.get('id', '')}: {item.get('change') or '(no change)'}"]
    for ev in item.get("evidence") or []:
        lines.append("evidence: " + evidence_text(ev))
    proof = item.get("proof")
    lines.append(f"proof: {proof}" if isinstance(proof, str) and proof.strip() else "proof: (none)")
    return [cut(line, DETAIL_CHARACTERS) for line in lines]


def evidence_text(ev: Any) -> str:
    """An evidence entry as the plan would write it: ``path:18-23 contains 'text'``."""
    if not isinstance(ev, dict):
        return str(ev)
    from compiler.render.view import reference

    contains = ev.get("contains")
    return reference(ev) if contains is None else f"{reference(ev)} contains {contains!r}"


def svg_pieces(lay: Layout, graph: Graph, items: Sequence[dict[str, Any]]) -> Iterator[str]:
    """The standalone SVG of the layout: column titles, edges, then boxes (each with a <title>
    holding its change, evidence and proof, which viewers show on hover)."""
    yield ('<?xml version="1.0" encoding="UTF-8"?>\n'
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{lay.width}" height="{lay.height}"'
           f' viewBox="0 0 {lay.width} {lay.height}">\n<style>{STYLE}</style>\n')
    for column in lay.columns:
        yield f'<text class="column" x="{column.x}" y="{MARGIN + 18}">{attr(column.title)}</text>\n'
    yield from edges_svg(lay, graph)
    for box in lay.boxes:
        yield box_svg(box, graph, items)
    yield "</svg>\n"


def box_svg(box: Box, graph: Graph, items: Sequence[dict[str, Any]]) -> str:
    x, y = box.x, box.y
    if box.item is not None:
        item = items[box.item] if box.item < len(items) else {"id": graph.ids[box.item]}
        ident = graph.ids[box.item]
        change = item.get("change") or ""
        title = "\n".join(_xml(line) for line in details(item))  # each line shown safely: a line break of ours
        whole = clip(escape(ident), MAX_LENGTH)  # the id as written, as long as an id may be (an error past it)
        return (f'<g class="{classes(box, item)}" data-id="{attr(whole)}"><title>{title}</title>'
                f'<rect x="{x}" y="{y}" width="{box.w}" height="{box.h}" rx="6"/>'
                f'<text class="id" x="{x + 10}" y="{y + 20}">{attr(cut(ident, ID_CHARACTERS))}</text>'
                f'<text x="{x + 10}" y="{y + 39}">{attr(cut(change, CHANGE_CHARACTERS))}</text></g>\n')
    shown = [graph.ids[n] for n in box.members[:LIST_SHOWN]]
    lines = [f'<text class="id" x="{x + 10}" y="{y + 20}">{attr(box.title)}</text>']
    lines += [f'<text x="{x + 10}" y="{y + 20 + LINE * (k + 1)}">{attr(cut(ident, ID_CHARACTERS + 4))}</text>'
              for k, ident in enumerate(shown)]
    if len(box.members) > len(shown):
        more = f"… {len(box.members) - len(shown):,} more"
        lines.append(f'<text class="more" x="{x + 10}" y="{y + 20 + LINE * (len(shown) + 1)}">{more}</text>')
    return (f'<g class="{classes(box, None)}"><title>{attr(box.title)}</title>'
            f'<rect x="{x}" y="{y}" width="{box.w}" height="{box.h}" rx="6"/>{"".join(lines)}</g>\n')
