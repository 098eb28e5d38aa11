"""A compiled plan as one self-contained HTML page (templates/plan.html.j2): inline CSS, the
graph's edges as inline SVG under its boxes, nothing from the network and no script, so it reads
offline, as a CI artifact and with scripts disabled.

The graph is compiler/render/layout.py's: a column per wave, a box per item (a very wide wave is one
list). Each box is a link to its item's entry below the graph, focusable, and shows the item's
change, evidence and proof while it is hovered or focused (CSS only). The boxes are HTML laid
over the SVG rather than SVG shapes, so that the one hovered is drawn above its neighbours and
its text is cut by CSS with an ellipsis.

Escaping: the template autoescapes every value (jinja2); the graph's markup and the items'
entries, made here (a template loop over each part of 100,000 items was most of the page's
time), escape each text with compiler.render.svg.attr. Plan text is first shown safely
(compiler/core/display.py: control characters as visible escapes). The page is written in pieces, like the Markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from html import escape as _xml
from itertools import chain
from typing import TYPE_CHECKING, Any

from compiler.render.layout import LIST_SHOWN, Layout
from compiler.render.sentences import (
    OWNERS_INCOMPLETE,
    Inline,
    forecast_lines,
    grounded_line,
    interval,
    progress_line,
    revision_line,
    schedule_lines,
)
from compiler.render.svg import attr, classes, edges_svg, evidence_text
from compiler.render.view import Graph, plan_view, section_title

if TYPE_CHECKING:
    from compiler.render.verified import LastVerify, Verdict

TEMPLATE = "plan.html.j2"
HTML_NAME = "evidence-plan.html"
# A box's pop-up shows this many evidence entries, then how many more (the item's entry below
# the graph lists them all); and this many characters of each text.
POP_EVIDENCE = 6
POP_CHARACTERS = 400
# A graph this small is drawn on the page as it is: its boxes' pop-ups may then reach past it,
# over the page (the last column's by 160 pixels), and all of it stays within a window 1,280
# pixels wide (the page's margins are 32 each side). A larger one scrolls in a frame of its own,
# with room below its last boxes for their pop-ups (a frame clips what passes its edge), so that
# the page itself never scrolls sideways.
FITS = (1040, 700)


def _safe(text: Any) -> str:
    from compiler.core.display import escape

    return escape(str(text))


def _safe_lines(text: Any) -> str:
    from compiler.core.display import escape_lines

    return escape_lines(str(text))


# How the sentences the pages share (compiler/render/sentences.py) mark their parts on this page.
INLINE = Inline(lambda text: _xml(_safe(text)), lambda text: f"<code>{_xml(_safe(text))}</code>")


def _short(text: str, limit: int = POP_CHARACTERS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _gate(item: dict[str, Any]) -> str:
    parts = []
    if item.get("kind") == "approval":
        state = item.get("approval_state")
        text = "approval" + (f", {state}" if isinstance(state, str) else "")
        if item.get("approved_by") is not None:
            text += f" (by {item['approved_by']})"
        parts.append(text)
    if item.get("irreversible") is True:
        parts.append("irreversible")
    return "; ".join(parts)


def markup(lay: Layout, graph: Graph, items: list[dict[str, Any]], verified: LastVerify | None = None,
           ) -> Iterator[str]:
    """The graph's markup: a canvas of the layout's size, the edges and column titles as SVG,
    and a box per item (or folded list) over them (each box's pop-up says the item's last
    `verify` result, when ``verified`` is given)."""
    first: dict[str, int] = {}
    for n, ident in enumerate(graph.ids):
        first.setdefault(ident, n)
    yield (f'<div class="canvas" style="width:{lay.width}px;height:{lay.height}px">'
           f'<svg class="edges" width="{lay.width}" height="{lay.height}" viewBox="0 0 {lay.width} {lay.height}"'
           ' aria-hidden="true">')
    yield from edges_svg(lay, graph)
    yield "</svg>\n"
    for column in lay.columns:
        yield f'<div class="column" style="left:{column.x}px">{attr(column.title)}</div>\n'
    batch: list[str] = []
    # In the order drawn, which is the order Tab follows: the columns left to right, each top down.
    for box in map(lay.boxes.__getitem__, chain.from_iterable(column.boxes for column in lay.columns)):
        style = f"left:{box.x}px;top:{box.y}px;width:{box.w}px;height:{box.h}px"
        if box.item is None:
            shown = box.members[:LIST_SHOWN]
            # each id cut to the box with an ellipsis, whole in its title
            links = "".join(f'<a href="#item-{n}" title="{(a := attr(graph.ids[n]))}">{a}</a>' for n in shown)
            more = len(box.members) - len(shown)
            tail = f'<span class="more">… {more:,} more</span>' if more else ""
            batch.append(f'<div class="{classes(box, None)}" style="{style}"><span class="id">{attr(box.title)}</span>'
                         f"{links}{tail}</div>\n")
        else:
            n = box.item
            item = items[n]
            ident = graph.ids[n]
            change = item.get("change") or ""
            verdict = _verdict(item, verified) if verified is not None else None
            batch.append(f'<a class="{classes(box, item)}" id="box-{n}" href="#item-{n}" style="{style}"'
                         f' data-id="{attr(ident)}"><span class="id">{attr(ident) or "<i>no id</i>"}</span>'
                         f'<span class="change">{attr(change) or "<i>no change</i>"}</span>'
                         f"{_pop(item, box.flagged, verdict)}</a>\n")
        if len(batch) >= 200:
            yield "".join(batch)
            batch = []
    yield "".join(batch)
    yield "</div>"


_NO_EVIDENCE = '<span class="ev"><i>none</i></span>'


def _verdict(item: dict[str, Any], verified: LastVerify) -> Verdict | None:
    """The item's last `verify` result, when the run selected the item."""
    ident = item.get("id")
    return verified.items.get(ident) if isinstance(ident, str) else None


def _pop(item: dict[str, Any], flagged: bool, verdict: Verdict | None = None) -> str:
    """A box's pop-up: what the item changes, its evidence and its proof (and its last `verify`
    result, when there is one: its word, or that its proof changed since)."""
    evidence = item.get("evidence") or []
    # Inside a link only phrasing content is valid HTML (no <ul>): each entry is a span shown as a list item.
    lines = [f'<span class="ev">{attr(_short(evidence_text(ev)))}</span>' for ev in evidence[:POP_EVIDENCE]]
    if len(evidence) > POP_EVIDENCE:
        lines.append(f'<span class="ev">… {len(evidence) - POP_EVIDENCE:,} more</span>')
    proof = item.get("proof")
    shown = attr(_short(str(proof))) if isinstance(proof, str) and proof.strip() else "<i>none</i>"
    status = item.get("status")
    head = f"<b>{attr(_short(str(item.get('id', ''))))}</b>" + (f" · {attr(status)}" if status else "")
    head += " · has an error" if flagged else ""
    if verdict is not None:
        head += f" · last verify: {verdict.result}" if verdict.current else " · proof changed since its last verify"
    return (f'<span class="pop" role="tooltip">{head}<br>{attr(_short(str(item.get("change") or "")))}'
            f'<span class="label">Evidence</span>{"".join(lines) or _NO_EVIDENCE}'
            f'<span class="label">Proof</span><code>{shown}</code></span>')


_STATES = ("todo", "doing", "done", "dropped")
ENTRIES_PER_PIECE = 200  # entries joined into one piece of the page


def _h(text: Any) -> str:
    """Plan text in HTML: shown safely, then escaped (quotes too: it may land in an attribute)."""
    return attr(text)


def entries(items: Iterable[dict[str, Any]], position: dict[int, int], first: dict[str, int],
            flagged: frozenset[str], verified: LastVerify | None = None) -> Iterator[str]:
    """Each item's entry below the graph, as markup (every text escaped here), joined
    ENTRIES_PER_PIECE at a time: made in Python rather than by the template, whose loop over
    each item's parts was most of a large page's time. With ``verified``, the last `verify` run,
    an entry the run selected says its last result (a tag by its id, a last line)."""
    last = None
    if verified is not None:
        from compiler.render.verified import verdict_lines

        last = verdict_lines(verified, INLINE, "<dt>Last verified</dt><dd>{}</dd>")
    batch: list[str] = []
    for item in items:
        n = position[id(item)]
        ident = item.get("id", "")
        status = item.get("status")
        state = status if status in _STATES else "todo"
        bad = ident in flagged
        head = f"<code>{_h(ident)}</code>" if ident else "<i>no id</i>"
        if state != "todo":
            head += f'<span class="tag">{state}</span>'
        if bad:
            head += '<span class="tag flag">has an error</span>'
        verdict = _verdict(item, verified) if verified is not None else None
        if verdict is not None and verdict.current:
            head += f'<span class="tag{"" if verdict.passing else " flag"}">{verdict.result}</span>'
        change = item.get("change")
        evidence = item.get("evidence") or []
        shown = ("<ul>" + "".join(f"<li><code>{_h(evidence_text(ev))}</code></li>" for ev in evidence) + "</ul>"
                 if evidence else "none")
        deps = [d for d in item.get("depends_on") or [] if isinstance(d, str)]
        links = ", ".join(f'<a href="#item-{first[d]}"><code>{_h(d)}</code></a>' if d in first
                          else f"<code>{_h(d)}</code>" for d in deps) or "nothing"
        proof = item.get("proof")
        proof_html = (f"<pre>{_xml(_safe_lines(proof))}</pre>" if isinstance(proof, str) and proof.strip()
                      else "none")
        extra = ""
        if "kind" in item or "irreversible" in item:
            if gate := _gate(item):
                extra += f"<dt>Gate</dt><dd>{_h(gate)}</dd>"
        reason = item.get("reason")
        if isinstance(reason, str) and reason.strip():
            extra += f"<dt>Reason</dt><dd>{_h(reason)}</dd>"
        if isinstance(item.get("estimate"), dict):
            extra += f"<dt>Estimate</dt><dd>{_estimate(item)}</dd>"
        for key, title in (("paths", "Writes"), ("owners", "Owners")):
            values = [v for v in item.get(key) or [] if isinstance(v, str)]
            listed = ", ".join(f"<code>{_h(v)}</code>" for v in values)
            if key == "owners" and item.get("owners_incomplete") is True:
                listed += f" <i>({OWNERS_INCOMPLETE})</i>" if listed else f"<i>{OWNERS_INCOMPLETE}</i>"
            if listed:
                extra += f"<dt>{title}</dt><dd>{listed}</dd>"
        if last is not None:
            extra += last(item)
        batch.append(
            f'<div class="entry {state}{" flagged" if bad else ""}" id="item-{n}">\n<h3>{head}</h3>\n<dl>'
            f"<dt>Change</dt><dd>{_h(change) if isinstance(change, str) and change.strip() else 'none'}</dd>"
            f"<dt>Evidence</dt><dd>{shown}</dd><dt>Depends on</dt><dd>{links}</dd>"
            f"<dt>Proof</dt><dd>{proof_html}</dd>{extra}</dl>\n</div>\n")
        if len(batch) >= ENTRIES_PER_PIECE:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _estimate(item: dict[str, Any]) -> str:
    """An item's estimate as the Markdown says it: its range, its evidence, why it is flagged."""
    e = item["estimate"]
    text = interval(e, INLINE) if {"low", "high", "unit"} <= e.keys() else "unreadable"
    if str(e.get("evidence") or "").strip():
        text += f" · evidence: {_h(e['evidence'])}"
    for reason in item.get("ungrounded") or []:
        text += f' · <span class="flag">ungrounded: {_h(reason)}</span>'
    return text


def page(document: dict[str, Any], verified: LastVerify | None = None) -> dict[str, Any]:
    """What the template shows: the view (compiler/render/view.py), its graph laid out, and the
    last `verify` run when it is given (compiler/render/verified.py)."""
    from markupsafe import Markup

    from compiler.render.picture import flagged_ids, picture

    view = plan_view(document)
    graph, lay, items = picture(document)
    flagged = flagged_ids(document)
    first: dict[str, int] = {}
    for n, ident in enumerate(graph.ids):
        first.setdefault(ident, n)
    position = {id(item): n for n, item in enumerate(items)}
    headline = " · ".join(f"{n:,} {w}{'' if n == 1 else 's'}" for n, w in view.counts if n or w == "item")
    if document.get("status") == "ready":
        headline += f" · widest wave {document.get('summary', {}).get('widest_wave', 0)}"
    issues = []
    for issue in document.get("issues", []):
        loc = issue.get("location") or {}
        where = ":".join(str(p) for p in (loc.get("file"), loc.get("line"), loc.get("column")) if p is not None)
        ident = issue.get("item")
        issues.append({"severity": str(issue.get("severity", "")), "code": _safe(issue.get("code", "")),
                       "item": _safe(ident) if isinstance(ident, str) else "",
                       "anchor": f"item-{first[ident]}" if isinstance(ident, str) and ident in first else "",
                       "message": _safe(issue.get("message", "")), "where": _safe(where)})
    inline = INLINE
    estimates = [Markup(line) for line in (*schedule_lines(document.get("schedule"), inline),
                                           *forecast_lines(document.get("forecast"), inline)) if line]
    summary = document.get("estimates")
    if isinstance(summary, dict):
        estimates.append(Markup(grounded_line(summary, inline, "<b>{}</b>".format)))
    claims = [{"description": _safe(c.get("description", "")), "range": Markup(interval(c, inline)),
               "evidence": _safe(c.get("evidence") or "")}
              for c in document.get("claims") or [] if isinstance(c, dict)]
    return {
        "title": _safe(view.title),
        "goal": _safe(view.goal) if view.goal else "",
        "status": str(document.get("status", "")),
        "headline": headline,
        "source": _safe(document.get("source", "")),
        "revision": Markup(revision_line(document, inline)),  # its parts escaped as they were made
        "estimates": estimates,
        "claims": claims,
        "progress": progress_line(view.progress) or "",
        "issues": issues,
        "item_count": view.item_count,
        "notes": [_safe(note) for note in lay.notes],
        "critical": bool(graph.marked),
        "approvals": bool(graph.approvals),
        "fits": lay.width <= FITS[0] and lay.height <= FITS[1],
        "picture": markup(lay, graph, items, verified),
        "critical_path": [_safe("…" if i is None else i) for i in view.critical_path],
        "critical_path_length": view.critical_path_length,
        # The last `verify` run, when there is one, is a section before the items (not in the
        # template: a page without it parses no more template).
        "sections": chain([("Last verify", [Markup(f"<p>{verified.line(inline)}</p>\n")])] if verified else [],
                          ((section_title(s, _safe) if s.phase else _safe(s.heading),
                            map(Markup, entries(s.items, position, first, flagged, verified))) for s in view.sections)),
    }


def render_html(document: dict[str, Any], verified: LastVerify | None = None) -> str:
    return "".join(render_pieces(document, verified=verified))


def render_pieces(document: dict[str, Any], *, verified: LastVerify | None = None) -> Iterator[str]:
    """The page as pieces of about a megabyte (compiler/core/write.py: batches): a large plan's
    page is written as it is made, never held whole. ``verified``: the last `verify` run, to show
    each item's last result."""
    import jinja2
    from markupsafe import Markup

    from compiler.core.resources import read_text
    from compiler.core.write import batches

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True)
    template = env.from_string(read_text("templates", TEMPLATE))
    context = page(document, verified)
    context["picture"] = map(Markup, context["picture"])  # made and escaped above
    return batches(chain(template.generate(**context)))
