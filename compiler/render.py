"""Stage 6: evidence-plan.json -> Markdown for people, through a jinja2 template.

The JSON is the source of truth: everything here reads the compiled document, never the plan.
Text from the plan is escaped for the place it lands in (Markdown text, code spans, table cells,
link targets, Mermaid labels), so no plan can break the page or the graph.
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Any
from urllib.parse import quote

from compiler.paths import relative_posix

TEMPLATE = "plan.md.j2"
# Mermaid (and GitHub's renderer) give up on large graphs; past this many items the graph is
# left out with a sentence that says so.
MAX_GRAPH_ITEMS = 300

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_NEWLINES = re.compile(r"\r\n|\r|\n")


def md(text: Any) -> str:
    """Inline Markdown text: punctuation that means something is escaped, HTML is neutralised."""
    s = str(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return _NEWLINES.sub("<br>", s)


def code(text: Any) -> str:
    """A code span that holds any text: the fence is longer than any run of backticks inside."""
    s = _NEWLINES.sub(" ", str(text))
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()):
        s = f" {s} "
    return f"{fence}{s}{fence}" if s else "` `"


def cell(text: str) -> str:
    """Already-escaped Markdown, made safe inside a table cell (pipes split cells, even in code)."""
    return text.replace("|", "\\|") if "|" in text else text


def mermaid(text: Any) -> str:
    """A quoted Mermaid label: quotes, angle brackets, backticks and # become entity codes."""
    s = _NEWLINES.sub(" ", str(text))
    for char, entity in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"), ("`", "#96;"), ("&", "#amp;")):
        s = s.replace(char, entity)
    return s


def _href(path: str) -> str:
    return quote(path, safe="/-._~!$&'*+,;=:@")


def evidence_view(ev: dict[str, Any], base: str) -> dict[str, Any]:
    """Text, link target and `contains` of one evidence entry, for the template."""
    if "url" in ev:
        url = ev["url"]
        return {"text": url, "href": url if re.match(r"^https?://", url) else None, "contains": ev.get("contains")}
    path = ev["path"]
    text = path
    anchor = ""
    if "line" in ev:
        text += f":{ev['line']}"
        anchor = f"#L{ev['line']}"
    elif "lines" in ev:
        text += f":{ev['lines']}"
        start, _, end = str(ev["lines"]).partition("-")
        anchor = f"#L{start}-L{end}"
    elif "symbol" in ev:
        text += f"::{ev['symbol']}"
    target = posixpath.normpath(posixpath.join(base, path)) if base not in ("", ".") else path
    return {"text": text, "href": _href(target) + anchor, "contains": ev.get("contains")}


def link_base(json_dir: str, markdown_dir: str, root: str) -> str:
    """The repository root as seen from the Markdown file (``root`` is relative to the JSON's folder)."""
    return relative_posix(os.path.join(json_dir, root), markdown_dir)


def view(document: dict[str, Any], base: str) -> dict[str, Any]:
    """Everything the template shows, computed once: waves of items, edges, issues."""
    items = document.get("items", [])
    index: dict[str, int] = {}
    for n, item in enumerate(items):
        index.setdefault(item["id"], n)
    views = []
    for n, item in enumerate(items):
        views.append({
            "node": f"n{n + 1}",
            "id": item["id"],
            "change": item.get("change", ""),
            "evidence": [evidence_view(e, base) for e in item.get("evidence", [])],
            "depends_on": item.get("depends_on", []),
            "proof": item.get("proof", ""),
            "wave": item.get("wave"),
        })
    edges = []
    for n, item in enumerate(items):
        for dep in item.get("depends_on", []):
            if dep in index and dep != item["id"]:
                edges.append((f"n{index[dep] + 1}", f"n{n + 1}"))
    by_wave = [[views[index[i]] for i in wave if i in index] for wave in document.get("waves", [])]
    summary = document.get("summary", {})
    counts = [(summary.get("items", 0), "item")]
    if document.get("status") == "ready":
        counts.append((summary.get("waves", 0), "wave"))
    counts += [(summary.get("errors", 0), "error"), (summary.get("warnings", 0), "warning")]
    headline = " · ".join(f"{n} {w}{'' if n == 1 else 's'}" for n, w in counts if n or w == "item")
    if document.get("status") == "ready":
        headline += f" · widest wave {summary.get('widest_wave', 0)}"
    return {
        "headline": headline,
        "doc": document,
        "title": document.get("plan") or "Plan",
        "items": views,
        "waves": by_wave,
        "edges": sorted(set(edges), key=lambda e: (int(e[0][1:]), int(e[1][1:]))),
        "summary": summary,
        "graph": len(items) <= MAX_GRAPH_ITEMS,
        "max_graph_items": MAX_GRAPH_ITEMS,
        "critical_path": document.get("critical_path", []),
    }


def render_markdown(document: dict[str, Any], *, base: str = ".") -> str:
    """Render a compiled document. ``base`` is the repository root relative to the Markdown file."""
    import jinja2

    from compiler.resources import read_text

    env = jinja2.Environment(
        autoescape=False,  # Markdown, escaped per context by the filters below
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(md=md, code=code, cell=cell, mermaid=mermaid)
    template = env.from_string(read_text("templates", TEMPLATE))
    text = template.render(**view(document, base))
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"
