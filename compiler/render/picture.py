"""The plan's picture, in every format `graph` writes and the HTML page shows: the compiled
document's graph (compiler/render/view.py) laid out (compiler/render/layout.py), with its critical path and
its items in error marked, then drawn as Mermaid, DOT, SVG or the layout's own JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.render.layout import Layout, layout
from compiler.render.view import Graph, plan_view

if TYPE_CHECKING:
    pass

FORMATS = ("mermaid", "dot", "svg", "json")
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


def pieces(document: dict[str, Any], fmt: str) -> Iterator[str]:
    """The graph in ``fmt`` (one of FORMATS), in pieces."""
    if fmt == "mermaid":
        from compiler.render.mermaid import flowchart

        text, note = flowchart(plan_view(document).graph)
        if text is None:
            yield f"flowchart TD\n  %% the graph is left out: {note}\n"
            return
        yield text
        if note:
            yield f"%% folded to stay legible: {note}\n"
        return
    drawn = picture(document)
    if fmt == "dot":
        from compiler.render.dot import dot_pieces

        yield from dot_pieces(drawn.layout, drawn.graph, drawn.items)
    elif fmt == "svg":
        from compiler.render.svg import svg_pieces

        yield from svg_pieces(drawn.layout, drawn.graph, drawn.items)
    else:
        from compiler.render.layout import to_data

        data = {"format": GRAPH_FORMAT, "plan": document.get("plan"), "status": document.get("status"),
                **to_data(drawn.layout, drawn.graph)}
        from compiler.core.cilog import json_safe

        yield json_safe(json.dumps(data, ensure_ascii=False)) + "\n"
