"""Stage 6: a compiled plan as Markdown, through a jinja2 template (templates/plan.md.j2).

The page shows the view of compiler/render/view.py; each piece of plan text is escaped for the
place it lands in (Markdown text, code spans and table cells by compiler/core/markdown.py, link
targets here; the graph's labels are compiler/render/mermaid.py's), so that no plan can break the
page: checked with cmark-gfm, GitHub's renderer. The sentences the HTML page says too come from
compiler/render/sentences.py. The template lays out the page and gets each section's items as
finished text (``item_text`` lays out one item's block): it does no work per item.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

from compiler.core.markdown import cell, code, md, one_line, plain_code, plain_text, proof_text
from compiler.core.paths import leaves_root, relative_posix
from compiler.core.write import batches
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

if TYPE_CHECKING:
    from compiler.render.verified import LastVerify

TEMPLATE = "plan.md.j2"

_BLANK_LINES = re.compile(r"\n\n\n+")  # more than one blank line (``\n{3,}``: the same, but slower)
_SAFE_PATH = re.compile(r"[A-Za-z0-9/._-]*")
# Relative, with no empty, `.` or `..` part (no part starts with a dot) and nothing to quote.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*(?:/[A-Za-z0-9_-][A-Za-z0-9._-]*)*")
_HTTP = re.compile(r"https?://", re.IGNORECASE)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_RESOLVED = re.compile(r"([1-9][0-9]{0,9})-([1-9][0-9]{0,9})")  # a symbol's resolved_lines, START-END
# Between the evidence lines of an item: the template writes the first line's "  - ".
EVIDENCE_SEPARATOR = "\n  - "


class Row(NamedTuple):
    """One item as the page shows it, each part escaped for where it lands."""

    title: str
    change: str
    evidence: str  # the evidence lines, joined into one list body
    depends_on: str
    proof: str
    gate: str  # an approval and its record, or "irreversible"; empty for an ordinary item
    reason: str  # why the item has its status (empty: none given)
    estimate: str  # its bullet, with the line break before it; empty when the item has no estimate
    paths: str  # the paths the item writes, or "" when it names none
    owners: str  # the CODEOWNERS owners of those paths, or "" when there are none


# How the sentences the pages share (compiler/render/sentences.py) mark their parts on this page.
MARKDOWN = Inline(md, code)


def _href(path: str) -> str:
    """A path as a link target: percent-encoded but for the characters of a plain path (``&`` too:
    Markdown decodes ``javascript&colon;x`` in a target to ``javascript:x``)."""
    if _SAFE_PATH.fullmatch(path):
        return path
    return quote(path, safe="/-._~!$'*+,=:@")


def _url_target(url: str) -> str:
    """An http(s) URL as a link target: percent-encoded outside the characters of URLs, and
    parentheses and angle brackets too (``https://x/a)[y](javascript:z)`` would end the link
    and start another); ``&`` written as ``&amp;``, which Markdown reads back as ``&``."""
    return quote(url, safe="/:?#[]@!$&'*+,;=%~-._").replace("&", "&amp;")


def plain_prefix(base: str) -> str | None:
    """What a plain path is joined to, to be seen from the Markdown file (``base``: the repository
    root relative to it), when ``base`` is plain too (``""`` for the root itself); else None."""
    if base in ("", "."):
        return ""
    if _SAFE_PATH.fullmatch(base) and posixpath.normpath(base) == base and not base.endswith("/"):
        return base + "/"
    return None


def repository_link(base: str) -> Callable[[str], str]:
    """The link target of a repository path, seen from the Markdown file (``base`` is the
    repository root relative to it): the path joined onto ``base``, normalized and quoted.

    Most paths are plain (``src/app.py``: no ``.`` or ``..`` part, nothing to quote): when
    ``base`` is plain too, their target is ``base/path`` as it stands, found by one regular
    expression instead of a join, a normalization and a quoting check per evidence entry."""
    prefix = plain_prefix(base)

    def link(path: str) -> str:
        if prefix is not None and _PLAIN_PATH.fullmatch(path):
            return prefix + path
        target = _href(posixpath.normpath(posixpath.join(base, path)) if base not in ("", ".") else path)
        # `javascript:alert(1)` is a file name to us, and a URL scheme to a browser: a target
        # that starts like a scheme is made plainly relative.
        return "./" + target if _SCHEME.match(target) else target

    return link


def evidence_line(ev: dict[str, Any], link: Callable[[str], str]) -> str:
    """One evidence entry as Markdown: its reference as a code span, linked to the cited lines
    (a symbol's to the lines it resolved to, ``#L511-L579``; a URL only when it is http or https:
    other schemes are shown, never linked; a path only when it stays inside the repository), then
    the text it must contain."""
    from compiler.render.view import reference

    text = reference(ev)
    if "url" in ev:
        target = _url_target(text) if _HTTP.match(text) else ""
    else:
        path = ev["path"]
        anchor = ""
        if "line" in ev:
            anchor = f"#L{ev['line']}"
        elif "lines" in ev:
            start, _, end = str(ev["lines"]).partition("-")
            anchor = f"#L{start}-L{end}"
        elif "symbol" in ev:  # linked to the lines it resolved to, when evidence was verified
            resolved = _RESOLVED.fullmatch(str(ev.get("resolved_lines", "")))
            if resolved is not None:
                start, end = resolved.groups()
                anchor = f"#L{start}" if start == end else f"#L{start}-L{end}"
        # A path outside the repository (absolute, or climbing out with ..) is reported as
        # such, never opened: it is shown, not linked. A plain path (most) stays inside.
        target = "" if _PLAIN_PATH.fullmatch(path) is None and leaves_root(path) else link(path) + anchor
    line = f"[{code(text)}]({target})" if target else code(text)
    contains = ev.get("contains")
    return line if contains is None else f"{line} contains {code(contains)}"


def link_base(json_dir: str, markdown_dir: str, root: str) -> str:
    """The repository root as seen from the Markdown file (``root`` is relative to the JSON's folder)."""
    return relative_posix(os.path.join(json_dir, root), markdown_dir)


_MARKED = {"doing": " · doing", "done": " · done ✓", "dropped": " · dropped"}


def item_row(item: dict[str, Any], link: Callable[[str], str]) -> Row:
    """An item as a Row: its parts, each escaped for where it lands (``item_text`` places them)."""
    deps = item.get("depends_on")
    title = code(item["id"]) if item["id"] else "_no id_"
    if item.get("invalid"):  # an item of a blocked plan that could not be read whole
        title += " · not read: " + ", ".join([code(key) for key in item["invalid"]])
    state = item.get("status")
    if state in _MARKED:  # todo goes unsaid
        title += _MARKED[state]
    reason = item.get("reason")
    return Row.__new__(  # by name, without the dict Row(...) gathers keywords in: as fast as by position
        Row,
        title=title,
        change=md(change) if (change := item.get("change")) and not change.isspace() else "_none_",
        evidence=EVIDENCE_SEPARATOR.join([evidence_line(ev, link) for ev in item.get("evidence", [])]),
        depends_on=", ".join([code(d) for d in deps]) if deps else "_nothing_",
        proof=proof_text(proof) if (proof := item.get("proof")) and not proof.isspace() else "_none_",
        gate=gate_text(item) if "kind" in item or "irreversible" in item else "",
        reason=md(reason) if isinstance(reason, str) and reason.strip() else "",
        estimate=_estimate_line(item) if "estimate" in item else "",
        paths=", ".join([code(p) for p in item.get("paths") or ()]),
        owners=owners_text(item, code),
    )


def item_rows(items: Iterable[dict[str, Any]], link: Callable[[str], str]) -> Iterator[Row]:
    """Each item as a Row (``item_row``), made as it is read: a large plan's rows are never all
    held at once (their text, in the rendered page, is enough)."""
    for item in items:
        yield item_row(item, link)


def item_text(row: Row) -> str:
    """An item's block of the page: its heading and its list, each line ending in a line break,
    after the blank line that separates it from the block before.

    Made here, one string per item, rather than by the template's loop: the template placed about
    twenty fragments per item, each a call into its generator and one more to gather it, which
    were half the page's time at 100,000 items (benchmarks/RESULTS.md)."""
    title, change, evidence, depends_on, proof, gate, reason, estimate, paths, owners = row
    return "".join([
        f"\n### {title}\n\n- **Change:** {change}\n",
        f"- **Evidence:**\n  - {evidence}\n" if evidence else "- **Evidence:** _none_\n",
        f"- **Depends on:** {depends_on}\n",
        f"- **Writes:** {paths}\n" if paths else "",
        f"- **Owners:** {owners}\n" if owners else "",
        f"- **Proof:** {proof}{estimate}\n",
        f"- **Gate:** {gate}\n" if gate else "",
        f"- **Reason:** {reason}\n" if reason else "",
    ])


def items_pieces(sections: Iterable[Any], base: str, verified: LastVerify | None = None) -> Iterator[str]:
    """The items' part of the page, section by section (a wave, or the plan's order when it is
    blocked): each heading and its items' blocks, joined into pieces of about a megabyte. One
    stream for the page, not one per section: a chain of 100,000 items has 100,000 waves. ``base``
    is the repository root relative to the Markdown file; ``verified``, the last `verify` run: a
    section of its own first, and an item's result as its block's last line."""
    link = repository_link(base)
    prefix = plain_prefix(base)
    last = None
    if verified is not None:
        from compiler.render.verified import verdict_lines

        last = verdict_lines(verified, MARKDOWN, "- **Last verified:** {}\n")

    def texts() -> Iterator[str]:
        if verified is not None:  # here, not in the template: a page without it parses no more template
            yield f"\n## Last verify\n\n{verified.line(MARKDOWN)}\n"
        for section in sections:
            yield f"\n## {_heading(section)}\n"
            for item in section.items:
                text = None if prefix is None else plain_item_text(item, prefix)
                yield text if text is not None else item_text(item_row(item, link))
                if last is not None and (line := last(item)):
                    yield line

    return batches(texts())


# The keys of the commonest item of a large plan, which plain_item_text lays out on its own.
_PLAIN_ITEM_KEYS = frozenset(("id", "change", "evidence", "depends_on", "proof", "wave"))
_PLAIN_EVIDENCE_KEYS = frozenset(("path", "line", "lines", "resolved_lines", "hash"))


def plain_item_text(item: dict[str, Any], prefix: str) -> str | None:
    """``item_text`` of the commonest item, made in one step where no part needs escaping: an id,
    a change, dependencies and a one-line proof that md() and code() would show as they are, and
    evidence citing plain paths by line or range; None for any other item (item_text makes it).
    ``prefix``: plain_prefix of the page's base. A fast path, held to item_text by a differential
    test (tests/render/test_markdown.py); it is what most rows of a large plan take, at about half
    the time."""
    if not item.keys() <= _PLAIN_ITEM_KEYS:
        return None
    ident, change, proof = item["id"], item.get("change"), item.get("proof")
    if not (plain_code(ident) and plain_code(proof) and "\n" not in proof and plain_text(change) and change):
        return None
    deps = item.get("depends_on") or ()
    for dep in deps:
        if not plain_code(dep):
            return None
    lines = []
    for ev in item.get("evidence") or ():
        if type(ev) is not dict or not ev.keys() <= _PLAIN_EVIDENCE_KEYS:
            return None
        path = ev.get("path")
        if type(path) is not str or _PLAIN_PATH.fullmatch(path) is None:
            return None
        if "line" in ev:
            if "lines" in ev or type(ev["line"]) is not int:
                return None
            lines.append(f"[`{path}:{ev['line']}`]({prefix}{path}#L{ev['line']})")
        elif "lines" in ev:
            span = ev["lines"]
            if type(span) is not str or _RESOLVED.fullmatch(span) is None:
                return None
            start, _, end = span.partition("-")
            lines.append(f"[`{path}:{span}`]({prefix}{path}#L{start}-L{end})")
        else:
            lines.append(f"[`{path}`]({prefix}{path})")
    evidence = f"- **Evidence:**\n  - {EVIDENCE_SEPARATOR.join(lines)}\n" if lines else "- **Evidence:** _none_\n"
    depends_on = ", ".join([f"`{dep}`" for dep in deps]) if deps else "_nothing_"
    return (f"\n### `{ident}`\n\n- **Change:** {change}\n{evidence}- **Depends on:** {depends_on}\n"
            f"- **Proof:** `{proof}`\n")


def owners_text(item: dict[str, Any], shown: Callable[[str], str]) -> str:
    """An item's owners, each as ``shown`` makes it, and the mark that they are incomplete."""
    text = ", ".join([shown(o) for o in item.get("owners") or ()])
    if item.get("owners_incomplete") is True:
        text += f" _({OWNERS_INCOMPLETE})_" if text else f"_{OWNERS_INCOMPLETE}_"
    return text


# The items an approval covers that its line names: a gate late in a large plan covers most of it,
# and a page that named them all for each gate held the plan's ids once per gate.
COVERS_SHOWN = 20
_STATES = {"current": "current", "stale": "**stale**: what it covers changed since it was approved",
           "unrecorded": "not approved yet"}


def gate_text(item: dict[str, Any]) -> str:
    """An item's part in an approval gate: an approval, with its record and whether it still holds
    and what it covers; an irreversible item; or nothing."""
    parts = []
    if item.get("kind") == "approval":
        text = "approval"
        state = item.get("approval_state")
        if state in _STATES:
            text += f", {_STATES[state]}"
        if item.get("approved_by") is not None:
            text += f" (by {md(item['approved_by'])}"
            text += f" at {code(item['approved_at'])})" if item.get("approved_at") is not None else ")"
        covers = item.get("approval_covers")
        if isinstance(covers, list) and covers:
            shown = ", ".join([code(c) for c in covers[:COVERS_SHOWN]])
            more = len(covers) - COVERS_SHOWN
            text += f"; covers {shown}" + (f" and {more:,} more (evidence-plan.json lists them)" if more > 0 else "")
        parts.append(text)
    if item.get("irreversible") is True:
        parts.append("irreversible")
    return "; ".join(parts)


def _estimate_line(item: dict[str, Any]) -> str:
    e = item["estimate"]
    if not isinstance(e, dict):  # a hand-edited document
        return ""
    evidence = f" · evidence: {md(e['evidence'])}" if str(e.get("evidence") or "").strip() else ""
    flagged = "".join(f" · **ungrounded:** {md(reason)}" for reason in item.get("ungrounded", []))
    return f"\n- **Estimate:** {interval(e, MARKDOWN)}{evidence}{flagged}"


def estimates_section(document: dict[str, Any]) -> str:
    """The page's Estimates section: grounded or not, how units count, the flagged ones, the claims."""
    summary = document.get("estimates")
    if not isinstance(summary, dict):
        return ""
    lines = [*schedule_lines(document.get("schedule"), MARKDOWN), *forecast_lines(document.get("forecast"), MARKDOWN),
             grounded_line(summary, MARKDOWN, "**{}**".format)]
    flagged = summary.get("flagged", [])
    if flagged:
        lines.append("")
        lines += [f"- {code(f['item']) if f.get('item') is not None else 'claim ' + md(f.get('claim'))}:"
                  f" {md(f['reason'])}" for f in flagged]
    claims = document.get("claims") or []
    if claims:
        lines += ["", "| claim | range | evidence |", "|---|---|---|"]
        lines += [f"| {cell(md(c['description']))} | {cell(interval(c, MARKDOWN))} |"
                  f" {cell(md(c.get('evidence') or '')) or '_none_'} |" for c in claims]
    return "\n".join(lines)


def page(document: dict[str, Any], base: str, verified: LastVerify | None = None) -> dict[str, Any]:
    """What the template shows: the view (compiler/render/view.py), escaped for Markdown, and
    the last `verify` run when it is given (compiler/render/verified.py)."""
    from compiler.render.mermaid import flowchart
    from compiler.render.view import plan_view

    view = plan_view(document)
    graph, graph_note = flowchart(view.graph)
    headline = " · ".join(f"{n} {w}{'' if n == 1 else 's'}" for n, w in view.counts if n or w == "item")
    if document.get("status") == "ready":
        headline += f" · widest wave {document.get('summary', {}).get('widest_wave', 0)}"
    return {
        "doc": document,
        "title": view.title,
        "goal": view.goal,
        "headline": headline,
        "item_count": view.item_count,
        "graph": graph,
        "graph_note": graph_note,  # what is folded; or, with no graph, why it is left out
        "critical_path": " → ".join("…" if i is None else code(i) for i in view.critical_path),
        "critical_path_length": view.critical_path_length,
        "complexity": _complexity(document.get("complexity")),
        "progress": progress_line(view.progress),
        "revision": revision_line(document, MARKDOWN),
        "estimates": estimates_section(document),
        "items": items_pieces(view.sections, base, verified),
    }


def _complexity(value: Any) -> str:
    """The complexity line's text, escaped; '' when the document has none that can be read (an
    older compile, or a hand-written JSON)."""
    if not isinstance(value, dict) or value.get("tier") not in ("simple", "medium", "complex"):
        return ""
    why = [md(str(w)) for w in value.get("why") or [] if isinstance(w, str)]
    return f"**{value['tier']}**" + (f": {'; '.join(why)}" if why else "")


def _heading(section: Any) -> str:
    """A section's heading, with a wave's progress when the plan's is shown: ``Wave 2 · 1/3 done``."""
    heading = str(section.heading)
    if section.phase is not None:  # a plan that gives phases
        from compiler.render.view import section_title

        heading = section_title(section, md)
    if section.done is None:
        return heading
    done, total = section.done
    return f"{heading} · {done:,}/{total:,} done"


def render_markdown(document: dict[str, Any], *, base: str = ".", verified: LastVerify | None = None) -> str:
    """Render a compiled document. ``base`` is the repository root relative to the Markdown file;
    ``verified``, the last `verify` run, to show each item's last result."""
    return "".join(render_pieces(document, base=base, verified=verified))


def render_pieces(document: dict[str, Any], *, base: str = ".", verified: LastVerify | None = None) -> Iterator[str]:
    """``render_markdown``, as pieces of about a megabyte that join to it: a large plan's page is
    written as it is made, and never held whole (with the template's own list of fragments, that
    was the peak of a million-item compile)."""
    import jinja2

    from compiler.core.resources import read_text

    env = jinja2.Environment(
        autoescape=False,  # Markdown, escaped per context by the filters below
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(md=md, code=code, cell=cell, one_line=one_line)
    template = env.from_string(read_text("templates", TEMPLATE))
    return _tidy(batches(template.generate(**page(document, base, verified))))


def _tidy(pieces: Iterable[str]) -> Iterator[str]:
    """No gap of more than one blank line, and exactly one newline at the end, across pieces: the
    line breaks at the end of a piece are held back until the next piece says how many may stay.

    The template leaves neither itself; only a value that it prints unescaped (the status or
    a count, from a hand-written JSON) can. So for a compiled plan this is a scan of each piece."""
    held = 0  # line breaks that ended the text so far, not yet given out
    for piece in pieces:
        rest = piece.lstrip("\n")
        held += len(piece) - len(rest)
        if not rest:
            continue
        if "\n\n\n" in rest:
            rest = _BLANK_LINES.sub("\n\n", rest)
        body = rest.rstrip("\n")
        yield "\n" * min(held, 2) + body if held else body
        held = len(rest) - len(body)
    yield "\n"
