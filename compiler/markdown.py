"""Stage 6: a compiled plan as Markdown, through a jinja2 template (templates/plan.md.j2).

The page shows the view of compiler/view.py; this module escapes each piece of plan text for the
place it lands in (Markdown text, code spans, table cells, link targets; the graph's labels are
compiler/mermaid.py's), so that no plan can break the page: checked with cmark-gfm, GitHub's
renderer. The template gets finished rows, by name, and does no work beyond placing them.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple
from urllib.parse import quote

from compiler.display import UNSAFE, escape
from compiler.paths import leaves_root, relative_posix

TEMPLATE = "plan.md.j2"

# Markdown's inline punctuation, and # (a heading's closing sequence eats "Title #").
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
# What md() or code() must change: their own punctuation, or any character that display.escape
# shows escaped (a line break, an escape sequence, a bidirectional control).
_MD_ANY_SPECIAL = re.compile(r"[\\`*_\[\]|~&<>#" + UNSAFE.pattern[1:])
# What would start a block at the start of a line (md() text may: the goal starts a quote's line):
# indentation (four spaces are a code block), a list marker, a setext underline.
_BLOCK_START = re.compile(r"[ +=-]|\d{1,9}[.)]")
_CODE_SPECIAL = re.compile("[`" + UNSAFE.pattern[1:])
_BACKTICKS = re.compile("`+")
_AUTOLINK_START = re.compile(r":|www\.", re.IGNORECASE)  # where GitHub's autolinks start (an email stops at `)
_NEWLINES = re.compile(r"\r\n|\r|\n")
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
    paths: str  # the paths the item writes, or "" when it names none
    owners: str  # the CODEOWNERS owners of those paths, or "" when there are none


def md(text: Any) -> str:
    """Inline Markdown text: punctuation that means something is escaped, HTML is neutralised,
    nothing can start a block (a heading, a list, a code block), line breaks become ``<br>`` and
    other control characters visible escapes (``\\x1b``). A code span the text writes
    (`` `re.compile` ``) stays one, remade by code(): it holds no markup."""
    s = str(text)
    if _MD_ANY_SPECIAL.search(s) is None and _BLOCK_START.match(s) is None:  # most text: as it is
        return s
    return "<br>".join([_md_spans(line) if "`" in line else _md_line(line) for line in _NEWLINES.split(s)])


def _md_spans(s: str) -> str:
    """A line whose code spans stay code: as in CommonMark, a run of backticks opens a span where
    the next run of the same length closes it, and a run that nothing closes is text.

    GitHub's autolinks are found in the raw text and run on to the next space or ``<``, over a
    backtick too: a URL just before a span would swallow its opening backtick and leave its
    content to be read as Markdown (``http://x`<img src=x>` ``). So a span whose word, since the
    last space, holds a ``:`` or ``www.`` is shown as text, backticks escaped, as all text was.
    Linear: the next run of each length is found in one pass from the end, and the word is
    followed as the line is read."""
    if s.count("`") == 2 and "``" not in s:  # most lines with code: one span of single backticks
        start = s.index("`")
        end = s.index("`", start + 1)
        if _AUTOLINK_START.search(s, s.rfind(" ", 0, start) + 1, start) is None:
            return "".join([_md_line(s[:start]) if start else "", code(_one_space_less(s[start + 1:end])),
                            _md_line(s[end + 1:], at_start=False) if end + 1 < len(s) else ""])
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(s)]
    closer: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        closer[i] = last.get(length)
        last[length] = i
    out: list[str] = []
    done = 0  # the end of what is already out
    read = 0  # the end of what the word's test has read
    linkable = False  # the word before `read` could be part of an autolink
    i = 0
    while i < len(runs):
        j = closer[i]
        if j is None:  # nothing closes it: text
            i += 1
            continue
        start = runs[i][0]
        space = s.rfind(" ", read, start)
        if space >= 0:
            linkable = _AUTOLINK_START.search(s, space + 1, start) is not None
        else:
            linkable = linkable or _AUTOLINK_START.search(s, max(read - 3, 0), start) is not None
        read = start
        if not linkable:
            if start > done:
                out.append(_md_line(s[done:start], at_start=done == 0))
            out.append(code(_one_space_less(s[runs[i][1]:runs[j][0]])))
            done = runs[j][1]
        i = j + 1
    if done < len(s):
        out.append(_md_line(s[done:], at_start=done == 0))
    return "".join(out)


def _one_space_less(inner: str) -> str:
    """A code span's text as CommonMark shows it: one space stripped each side when both have one."""
    if len(inner) > 1 and inner[0] == " " and inner[-1] == " " and inner.strip(" "):
        return inner[1:-1]
    return inner


def _md_line(s: str, *, at_start: bool = True) -> str:
    if _MD_ANY_SPECIAL.search(s) is None and not (at_start and _BLOCK_START.match(s)):  # a plain part
        return s
    s = escape(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    start = _BLOCK_START.match(s) if at_start else None
    if start is None:
        return s
    if s[0] == " ":  # indentation: spaces as entities, which Markdown shows and never indents by
        spaces = len(s) - len(s.lstrip(" "))
        return "&#32;" * spaces + s[spaces:]
    end = start.end() - 1  # the list marker or underline character, escaped
    return s[:end] + "\\" + s[end:]


def code(text: Any) -> str:
    """A code span that holds any text: the fence is longer than any run of backticks inside;
    line breaks and other control characters are shown as escapes (``\\n``)."""
    s = str(text)
    if s and s[0] != " " and _CODE_SPECIAL.search(s) is None:  # most text: one fence
        return f"`{s}`"
    s = escape(s)
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()):
        s = f" {s} "
    return f"{fence}{s}{fence}" if s else "` `"


def proof_text(text: Any) -> str:
    """A proof as the page shows it: a code span, or, for a command of several lines, those
    lines as they are in a fenced code block of the item's list entry (after ``(N lines)``), so
    that it stays the same command. The fence is longer than any run of backticks inside, so no
    line can close it; each line is shown with control characters escaped, as everywhere. A
    line break at the end changes no command and is left out. A line that GitHub Actions would
    run as a workflow command (``::`` after spaces, should the page be printed in a log) keeps the
    proof on one line, its line breaks shown as ``\\n``."""
    s = str(text).rstrip("\n")
    if "\n" not in s:
        return code(s)
    lines = s.split("\n")
    if any(line.lstrip().startswith("::") for line in lines):
        return code(s)
    lines = [escape(line) for line in lines]
    longest = max((len(run) for line in lines for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    body = "".join([f"\n  {line}" for line in lines])
    return f"({len(lines):,} lines)\n  {fence}{body}\n  {fence}"


def cell(text: str) -> str:
    """Already-escaped Markdown, made safe inside a table cell (pipes split cells, even in code)."""
    return text.replace("|", "\\|") if "|" in text else text


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


def repository_link(base: str) -> Callable[[str], str]:
    """The link target of a repository path, seen from the Markdown file (``base`` is the
    repository root relative to it): the path joined onto ``base``, normalized and quoted.

    Most paths are plain (``src/app.py``: no ``.`` or ``..`` part, nothing to quote): when
    ``base`` is plain too, their target is ``base/path`` as it stands, found by one regular
    expression instead of a join, a normalization and a quoting check per evidence entry."""
    prefix: str | None = None
    if base in ("", "."):
        prefix = ""
    elif _SAFE_PATH.fullmatch(base) and posixpath.normpath(base) == base and not base.endswith("/"):
        prefix = base + "/"

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
    if "url" in ev:
        text = ev["url"]
        target = _url_target(text) if _HTTP.match(text) else ""
    else:
        path = ev["path"]
        if "line" in ev:
            text, anchor = f"{path}:{ev['line']}", f"#L{ev['line']}"
        elif "lines" in ev:
            start, _, end = str(ev["lines"]).partition("-")
            text, anchor = f"{path}:{ev['lines']}", f"#L{start}-L{end}"
        elif "symbol" in ev:  # linked to the lines it resolved to, when evidence was verified
            text, anchor = f"{path}::{ev['symbol']}", ""
            resolved = _RESOLVED.fullmatch(str(ev.get("resolved_lines", "")))
            if resolved is not None:
                start, end = resolved.groups()
                anchor = f"#L{start}" if start == end else f"#L{start}-L{end}"
        else:
            text, anchor = path, ""
        # A path outside the repository (absolute, or climbing out with ..) is reported as
        # such, never opened: it is shown, not linked.
        target = "" if leaves_root(path) else link(path) + anchor
    line = f"[{code(text)}]({target})" if target else code(text)
    contains = ev.get("contains")
    return line if contains is None else f"{line} contains {code(contains)}"


def link_base(json_dir: str, markdown_dir: str, root: str) -> str:
    """The repository root as seen from the Markdown file (``root`` is relative to the JSON's folder)."""
    return relative_posix(os.path.join(json_dir, root), markdown_dir)


def item_rows(items: Iterable[dict[str, Any]], link: Callable[[str], str]) -> Iterator[Row]:
    """Each item as a Row: the template's loop runs once per item, so it gets finished fragments.

    Yielded as the template reads them: a large plan's rows are never all held at once (their
    text, in the rendered page, is enough)."""
    for item in items:
        deps = item.get("depends_on")
        title = code(item["id"]) if item["id"] else "_no id_"
        if item.get("invalid"):  # an item of a blocked plan that could not be read whole
            title += " · not read: " + ", ".join([code(key) for key in item["invalid"]])
        yield Row(
            title,
            md(change) if (change := item.get("change")) and not change.isspace() else "_none_",
            EVIDENCE_SEPARATOR.join([evidence_line(ev, link) for ev in item.get("evidence", [])]),
            ", ".join([code(d) for d in deps]) if deps else "_nothing_",
            proof_text(proof) if (proof := item.get("proof")) and not proof.isspace() else "_none_",
            ", ".join([code(p) for p in item.get("paths") or ()]),
            ", ".join([code(o) for o in item.get("owners") or ()]),
        )


def page(document: dict[str, Any], base: str) -> dict[str, Any]:
    """What the template shows: the view (compiler/view.py), escaped for Markdown."""
    from compiler.mermaid import flowchart
    from compiler.view import plan_view

    view = plan_view(document)
    graph, graph_note = flowchart(view.graph)
    headline = " · ".join(f"{n} {w}{'' if n == 1 else 's'}" for n, w in view.counts if n or w == "item")
    if document.get("status") == "ready":
        headline += f" · widest wave {document.get('summary', {}).get('widest_wave', 0)}"
    link = repository_link(base)
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
        "sections": ((section.heading, item_rows(section.items, link)) for section in view.sections),
    }


def render_markdown(document: dict[str, Any], *, base: str = ".") -> str:
    """Render a compiled document. ``base`` is the repository root relative to the Markdown file."""
    return "".join(render_pieces(document, base=base))


def render_pieces(document: dict[str, Any], *, base: str = ".") -> Iterator[str]:
    """``render_markdown``, as pieces of about a megabyte that join to it: a large plan's page is
    written as it is made, and never held whole (with the template's own list of fragments, that
    was the peak of a million-item compile)."""
    import jinja2

    from compiler.resources import read_text

    env = jinja2.Environment(
        autoescape=False,  # Markdown, escaped per context by the filters below
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(md=md, code=code, cell=cell)
    template = env.from_string(read_text("templates", TEMPLATE))
    return _tidy(_batches(template.generate(**page(document, base))))


PIECE_CHARACTERS = 1 << 20


def _batches(fragments: Iterable[str]) -> Iterator[str]:
    """The template's many small fragments, joined into pieces of about PIECE_CHARACTERS."""
    batch: list[str] = []
    size = 0
    for fragment in fragments:
        batch.append(fragment)
        size += len(fragment)
        if size >= PIECE_CHARACTERS:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)


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
