"""The plan's graph in Mermaid: one function for every page and command that draws it (the
Markdown today; a `graph` command and an HTML page later), from the view's Graph.

Nothing from the plan reaches Mermaid as syntax: labels are quoted and every character Mermaid
reads as its own is an entity (``%%{init: ...}%%`` inside a label is a directive to Mermaid,
wherever it stands). Checked against Mermaid 11 in Chromium.
"""

from __future__ import annotations

from compiler.display import escape
from compiler.view import Graph

# What Mermaid 11 draws by default, and a diagram cannot raise: past either, it shows an error
# instead of the graph, so the graph is left out with a sentence that says why.
MAX_EDGES = 500
MAX_TEXT = 50_000

# Mermaid marks entities internally with "ﬂ°" and "¶ß" and decodes what looks like one, so those
# two become visible escapes first. Then "#": the entities themselves start with it. A backslash
# (Mermaid reads "\n" as a line break) and ":" (its `style ...:...#...;` pass eats a ";") too.
_ENTITIES = (("°", "\\u00b0"), ("¶", "\\u00b6"), ("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"),
             ("`", "#96;"), ("&", "#amp;"), ("%", "#37;"), ("\\", "#92;"), (":", "#58;"))


def label(text: object) -> str:
    """A quoted Mermaid label's text: control characters escaped, Mermaid's syntax as entities."""
    s = escape(str(text))
    for char, entity in _ENTITIES:
        s = s.replace(char, entity)
    return s


def flowchart(graph: Graph) -> tuple[str | None, str | None]:
    """The flowchart (a subgraph per wave when there are waves, an edge per dependency), or None
    and why it is left out (more than Mermaid draws)."""
    if len(graph.edges) > MAX_EDGES:
        return None, f"{len(graph.edges):,} dependencies are more than Mermaid draws ({MAX_EDGES})"
    lines = ["flowchart LR"]
    if graph.waves:
        for w, wave in enumerate(graph.waves, 1):
            lines.append(f'  subgraph wave{w}["Wave {w}"]')
            lines += [f'    n{n}["{label(graph.labels[n - 1])}"]' for n in wave]
            lines.append("  end")
    else:
        lines += [f'  n{n}["{label(text)}"]' for n, text in enumerate(graph.labels, 1)]
    lines += [f"  n{a} --> n{b}" for a, b in graph.edges]
    text = "\n".join(lines) + "\n"
    if len(text) > MAX_TEXT:
        return None, f"its text would be longer than Mermaid reads ({MAX_TEXT:,} characters)"
    return text, None
