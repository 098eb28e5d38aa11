"""The plan's picture, in every format `graph` writes and the HTML page shows: the compiled
document's graph (compiler/render/view.py) laid out (compiler/render/layout.py), with its critical path and
its items in error marked, then drawn as Mermaid, DOT, SVG or the layout's own JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from compiler.render.layout import Layout, layout
from compiler.render.view import Graph, plan_view

GRAPH_FORMAT = "evidence-plan-graph/1"  # the JSON's version


class Picture(NamedTuple):
    graph: Graph
    layout: Layout
    items: list[dict[str, Any]]  # the document's items: item n is graph.ids[n]


def marked_graph(graph: Graph, document: dict[str, Any]) -> Graph:
    """The view's graph with its critical path marked: by median estimate when the plan gives
    estimates (as the Markdown marks it), else the compiler's longest chain of waves."""
    if graph.marked:
        return graph
    path = document.get("critical_path")
    if isinstance(path, list) and len(path) > 1:
        ids = tuple(i for i in path if isinstance(i, str))
        return graph._replace(marked=frozenset(ids), path=ids)
    return graph


def flagged_ids(document: dict[str, Any]) -> frozenset[str]:
    """The items that have an error: their boxes are marked."""
    return frozenset(issue["item"] for issue in document.get("issues", []) if isinstance(issue, dict)
                     and issue.get("severity") == "error" and isinstance(issue.get("item"), str))


def picture(document: dict[str, Any]) -> Picture:
    graph = marked_graph(plan_view(document).graph, document)
    return Picture(graph, layout(graph, flagged_ids(document)), document.get("items", []))


def _mermaid(document: dict[str, Any]) -> Iterator[str]:
    """The Markdown page's flowchart (compiler/render/mermaid.py)."""
    from compiler.render.mermaid import flowchart

    text, note = flowchart(plan_view(document).graph)
    if text is None:
        yield f"flowchart TD\n  %% the graph is left out: {note}\n"
        return
    yield text
    if note:
        yield f"%% folded to stay legible: {note}\n"


def _dot(document: dict[str, Any]) -> Iterator[str]:
    """The laid-out picture as Graphviz DOT."""
    from compiler.render.dot import dot_pieces

    drawn = picture(document)
    yield from dot_pieces(drawn.layout, drawn.graph, drawn.items)


def _svg(document: dict[str, Any]) -> Iterator[str]:
    """The HTML page's picture as one SVG file."""
    from compiler.render.svg import svg_pieces

    drawn = picture(document)
    yield from svg_pieces(drawn.layout, drawn.graph, drawn.items)


def _json(document: dict[str, Any]) -> Iterator[str]:
    """The picture's layout as data: its boxes (coordinates, ids) and edges (points)."""
    from compiler.core.cilog import json_safe
    from compiler.render.layout import to_data

    drawn = picture(document)
    data = {"format": GRAPH_FORMAT, "plan": document.get("plan"), "status": document.get("status"),
            **to_data(drawn.layout, drawn.graph)}
    yield json_safe(json.dumps(data, ensure_ascii=False)) + "\n"


# The formats `graph` writes: name -> the graph of a compiled document in that format, in pieces.
# `graph --format` offers exactly these.
FORMATS: dict[str, Callable[[dict[str, Any]], Iterator[str]]] = {
    "mermaid": _mermaid, "dot": _dot, "svg": _svg, "json": _json,
}


def pieces(document: dict[str, Any], fmt: str) -> Iterator[str]:
    """The graph in ``fmt`` (a name of FORMATS), in pieces."""
    return FORMATS[fmt](document)
