"""The layout's graph (compiler/render/layout.py) in Graphviz DOT: its boxes as nodes (a folded wave is
one node), a cluster per column, its edges from each dependency to the item that needs it.
Graphviz lays it out again, left to right; the columns stay its ranks.

Every label is a quoted DOT string: plan text is shown safely first (compiler/core/display.py: a
line break or a control character becomes a visible ``\\n``, ``\\x1b``), then every backslash
is doubled and every quote escaped, so that nothing can end the string or be read as one of
Graphviz's escapes (``\\N``, ``\\G``, ``\\l``); checked with the real ``dot`` in the tests.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from compiler.core.display import ID_CHARACTERS, cut, escape
from compiler.render.layout import LIST_SHOWN, Layout
from compiler.render.svg import CHANGE_CHARACTERS, details, state
from compiler.render.view import Graph, Phase, phase_groups

_FILL = {"done": "#dcfce7", "doing": "#dbeafe", "dropped": "#f3f4f6"}


def _escaped(text: str) -> str:
    """Already-safe text inside a DOT quoted string: backslashes doubled, quotes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def quote(text: str) -> str:
    """A DOT quoted string of already-safe text (see the module's docstring)."""
    return f'"{_escaped(text)}"'


def _label(*lines: str) -> str:
    """A label of several lines: each line quoted as text, joined by DOT's own line break."""
    return '"' + "\\n".join(map(_escaped, lines)) + '"'


def _tooltip(*lines: str) -> str:
    """A tooltip of several lines (as many as an item has evidence entries): each on a line of the
    file of its own, the string continued with a backslash before the line break (which DOT
    removes), so that no line of the file is longer than one line of the tooltip."""
    return '"' + "\\n\\\n".join(map(_escaped, lines)) + '"'


def dot_pieces(lay: Layout, graph: Graph, items: Sequence[dict[str, Any]]) -> Iterator[str]:
    yield ('digraph plan {\n  rankdir=LR;\n  node [shape=box, style="rounded,filled", fillcolor="#ffffff",'
           ' fontname="sans-serif", fontsize=11];\n  edge [color="#64748b"];\n')
    for c, column in enumerate(lay.columns):
        yield f"  subgraph cluster_{c} {{\n    label={quote(column.title)};\n"
        if not graph.phases:
            for b in column.boxes:
                yield f"    {_node(b, lay, graph, items)}\n"
        else:  # a plan that gives phases: each phase's boxes of the column in a cluster of its own
            def phase_of(b: int) -> Phase:
                item = lay.boxes[b].item
                return graph.phases[item] if item is not None else None

            for phase, boxes in phase_groups(column.boxes, phase_of):
                if phase is not None:
                    title = f"Phase {phase[0]}: {cut(escape(phase[1]), ID_CHARACTERS)}"
                    yield f"    subgraph cluster_{c}_p{phase[0]} {{\n      label={quote(title)};\n"
                yield from (f"    {_node(b, lay, graph, items)}\n" for b in boxes)
                if phase is not None:
                    yield "    }\n"
        yield "  }\n"
    for edge in lay.edges:
        extra = [] if edge.dependencies == 1 else [f'label="{edge.dependencies:,}"']
        if edge.critical:
            extra.append('color="#b45309", penwidth=2.5')
        attrs = f" [{', '.join(extra)}]" if extra else ""
        yield f"  b{edge.depends_on} -> b{edge.item}{attrs};\n"
    yield "}\n"


def _node(b: int, lay: Layout, graph: Graph, items: Sequence[dict[str, Any]]) -> str:
    box = lay.boxes[b]
    if box.item is None:
        shown = [cut(graph.ids[n], ID_CHARACTERS) for n in box.members[:LIST_SHOWN]]
        if len(box.members) > len(shown):
            shown.append(f"… {len(box.members) - len(shown):,} more")
        return f"b{b} [label={_label(box.title, *shown)}, shape=folder];"
    item = items[box.item] if box.item < len(items) else {"id": graph.ids[box.item]}
    label = _label(cut(graph.ids[box.item], ID_CHARACTERS), cut(item.get("change") or "", CHANGE_CHARACTERS))
    attrs = [f"label={label}", f"tooltip={_tooltip(*details(item))}"]
    if s := state(item):
        attrs.append(f'fillcolor="{_FILL[s]}"')
    if item.get("kind") == "approval":
        attrs.append("shape=hexagon")
    if box.flagged:
        attrs.append('color="#dc2626", penwidth=2.5')
    elif box.critical:
        attrs.append('color="#b45309", penwidth=2.5')
    return f"b{b} [{', '.join(attrs)}];"
