"""Stage 6: a compiled plan as Markdown, through a jinja2 template (templates/plan.md.j2).

The page shows the view of compiler/render/view.py; this module escapes each piece of plan text for the
place it lands in (Markdown text, code spans, table cells, link targets; the graph's labels are
compiler/render/mermaid.py's), so that no plan can break the page: checked with cmark-gfm, GitHub's
renderer. The template gets finished rows, by name, and does no work beyond placing them.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple
from urllib.parse import quote

from compiler.core.display import UNSAFE, escape
from compiler.core.paths import leaves_root, relative_posix

TEMPLATE = "plan.md.j2"

# Markdown's inline punctuation, and # (a heading's closing sequence eats "Title #").
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
# What md() or code() must change: their own punctuation, or any character that display.escape
# shows escaped (a line break, an escape sequence, a bidirectional control).
_MD_ANY_SPECIAL = re.compile(r"[\\`*_\[\]|~&<>#" + UNSAFE.pattern[1:])
# GitHub makes `@name` and `@org/team` in a comment's text (not in code) a mention that notifies
# them, when a letter or digit follows the `@`, in the text as shown: an entity for `@` (`&#64;`)
# is decoded first and still mentions. A word joiner (U+2060: no width, no break) between the two
# keeps the text as it reads and mentions nobody; written as its entity, so that the Markdown
# holds no invisible character (display.escape would show a raw one as `\u2060`).
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_NO_MENTION = "@&#8288;"
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
    gate: str  # an approval and its record, or "irreversible"; empty for an ordinary item
    reason: str  # why the item has its status (empty: none given)
    estimate: str  # its bullet, with the line break before it; empty when the item has no estimate
    paths: str  # the paths the item writes, or "" when it names none
    owners: str  # the CODEOWNERS owners of those paths, or "" when there are none


def md(text: Any) -> str:
    """Inline Markdown text: punctuation that means something is escaped, HTML is neutralised,
    nothing can start a block (a heading, a list, a code block), no ``@name`` notifies anyone on
    GitHub, line breaks become ``<br>`` and other control characters visible escapes
    (``\\x1b``). A code span the text writes (`` `re.compile` ``) stays one, remade by code():
    it holds no markup."""
    s = str(text)
    if _MD_ANY_SPECIAL.search(s) is None and _BLOCK_START.match(s) is None:  # most text: as it is
        return _no_mention(s) if "@" in s else s
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
        return _no_mention(s) if "@" in s else s
    s = escape(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    if "@" in s:
        s = _no_mention(s)
    start = _BLOCK_START.match(s) if at_start else None
    if start is None:
        return s
    if s[0] == " ":  # indentation: spaces as entities, which Markdown shows and never indents by
        spaces = len(s) - len(s.lstrip(" "))
        return "&#32;" * spaces + s[spaces:]
    end = start.end() - 1  # the list marker or underline character, escaped
    return s[:end] + "\\" + s[end:]


def _no_mention(s: str) -> str:
    """Escaped text with a word joiner after each `@` that GitHub would make a mention."""
    return _MENTION.sub(_NO_MENTION, s)


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


class Inline(NamedTuple):
    """How a sentence of the page marks its parts, so that the HTML page says the same sentences:
    ``text`` escapes plan text, ``code`` shows an id or a value as code."""

    text: Callable[[Any], str]
    code: Callable[[Any], str]


MARKDOWN = Inline(md, code)


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
        # such, never opened: it is shown, not linked.
        target = "" if leaves_root(path) else link(path) + anchor
    line = f"[{code(text)}]({target})" if target else code(text)
    contains = ev.get("contains")
    return line if contains is None else f"{line} contains {code(contains)}"


def link_base(json_dir: str, markdown_dir: str, root: str) -> str:
    """The repository root as seen from the Markdown file (``root`` is relative to the JSON's folder)."""
    return relative_posix(os.path.join(json_dir, root), markdown_dir)


_MARKED = {"doing": " · doing", "done": " · done ✓", "dropped": " · dropped"}


def progress_line(progress: dict[str, int] | None) -> str | None:
    """The plan's progress, once anything has started: ``2 of 5 done · 1 doing · 1 dropped``
    (dropped items count in no total: they have left the plan)."""
    if progress is None:
        return None
    live = sum(n for key, n in progress.items() if key != "dropped")
    parts = [f"{progress.get('done', 0):,} of {live:,} done"]
    parts += [f"{progress[key]:,} {key}" for key in ("doing", "dropped") if progress.get(key)]
    return " · ".join(parts)


def item_rows(items: Iterable[dict[str, Any]], link: Callable[[str], str]) -> Iterator[Row]:
    """Each item as a Row: the template's loop runs once per item, so it gets finished fragments.

    Yielded as the template reads them: a large plan's rows are never all held at once (their
    text, in the rendered page, is enough)."""
    for item in items:
        deps = item.get("depends_on")
        title = code(item["id"]) if item["id"] else "_no id_"
        if item.get("invalid"):  # an item of a blocked plan that could not be read whole
            title += " · not read: " + ", ".join([code(key) for key in item["invalid"]])
        state = item.get("status")
        if state in _MARKED:  # todo goes unsaid
            title += _MARKED[state]
        reason = item.get("reason")
        yield Row(
            title,
            md(change) if (change := item.get("change")) and not change.isspace() else "_none_",
            EVIDENCE_SEPARATOR.join([evidence_line(ev, link) for ev in item.get("evidence", [])]),
            ", ".join([code(d) for d in deps]) if deps else "_nothing_",
            proof_text(proof) if (proof := item.get("proof")) and not proof.isspace() else "_none_",
            gate_text(item) if "kind" in item or "irreversible" in item else "",
            md(reason) if isinstance(reason, str) and reason.strip() else "",
            _estimate_line(item) if "estimate" in item else "",
            ", ".join([code(p) for p in item.get("paths") or ()]),
            owners_text(item, code),
        )


# Beside the owners of an item whose owners could not all be decided (`owners_incomplete`).
OWNERS_INCOMPLETE = "incomplete: not every CODEOWNERS line could be decided for these paths"


def owners_text(item: dict[str, Any], shown: Callable[[str], str]) -> str:
    """An item's owners, each as ``shown`` makes it, and the mark that they are incomplete."""
    text = ", ".join([shown(o) for o in item.get("owners") or ()])
    if item.get("owners_incomplete") is True:
        text += f" _({OWNERS_INCOMPLETE})_" if text else f"_{OWNERS_INCOMPLETE}_"
    return text


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
            text += "; covers " + ", ".join([code(c) for c in covers])
        parts.append(text)
    if item.get("irreversible") is True:
        parts.append("irreversible")
    return "; ".join(parts)


def interval(e: dict[str, Any], fmt: Inline = MARKDOWN) -> str:
    """``2–3 days (medium confidence)``: an estimate's or a claim's range, escaped."""
    from compiler.analysis.estimates import number

    confidence = f" ({fmt.text(e['confidence'])} confidence)" if e.get("confidence") else ""
    return f"{number(e['low'])}–{number(e['high'])} {fmt.text(e['unit'])}{confidence}"


def _estimate_line(item: dict[str, Any]) -> str:
    e = item["estimate"]
    if not isinstance(e, dict):  # a hand-edited document
        return ""
    evidence = f" · evidence: {md(e['evidence'])}" if str(e.get("evidence") or "").strip() else ""
    flagged = "".join(f" · **ungrounded:** {md(reason)}" for reason in item.get("ungrounded", []))
    return f"\n- **Estimate:** {interval(e)}{evidence}{flagged}"


def schedule_lines(schedule: Any, fmt: Inline = MARKDOWN) -> list[str]:
    """The critical path by median estimate, in hours, with the best and worst case along it."""
    if not isinstance(schedule, dict) or not schedule.get("critical_path"):
        return []
    from compiler.analysis.estimates import number
    from compiler.render.view import MAX_PATH_SHOWN

    def hours(key: str) -> str:
        value = schedule.get(key)
        return f"{number(round(value, 1))} hours" if isinstance(value, (int, float)) else "unknown"

    path = schedule["critical_path"]
    shown = path if len(path) <= MAX_PATH_SHOWN else [*path[:8], None, *path[-3:]]
    zero = schedule.get("counted_as_zero", 0)
    return [f"Critical path by median estimate ({len(path):,} item{'s' if len(path) != 1 else ''}, marked in the"
            f" graph): {' → '.join('…' if i is None else fmt.code(i) for i in shown)}: median {hours('median_hours')},"
            f" best case {hours('best_hours')}, worst case {hours('worst_hours')}"
            + (f" ({zero:,} item{'s' if zero != 1 else ''} without a usable estimate counted as 0)" if zero else "")
            + ".", ""]


# The most critical items the page names (the JSON lists every item that is critical in some run).
CRITICAL_SHOWN = 5


def forecast_lines(forecast: Any, fmt: Inline = MARKDOWN) -> list[str]:
    """The seeded forecast: its percentiles, how it was run, and the most critical items."""
    if not isinstance(forecast, dict):
        return []
    from compiler.analysis.estimates import number

    def hours(key: str) -> str:
        value = forecast.get(key)
        return f"{number(round(value, 1))} hours" if isinstance(value, (int, float)) else "unknown"

    runs = forecast.get("runs", 0)
    scaled = " (fewer for a plan this large: rough)" if forecast.get("runs_scaled") else ""
    critical = [c for c in forecast.get("criticality", []) if isinstance(c, dict)][:CRITICAL_SHOWN]
    named = ", ".join(f"{fmt.code(c.get('item'))} {number(round(100 * c.get('share', 0), 1))}%" for c in critical)
    zero = forecast.get("counted_as_zero", 0)
    line = (f"Forecast over {fmt.text(f'{runs:,}')} seeded runs{scaled} (seed {fmt.text(forecast.get('seed'))}): P50"
            f" {hours('p50_hours')}, P80 {hours('p80_hours')}, P95 {hours('p95_hours')}"
            + (f"; {zero:,} item{'s' if zero != 1 else ''} without a usable estimate counted as 0" if zero else "")
            + (f". Most often on the critical path: {named}." if named else "."))
    return [line, "", *_by_lines(forecast.get("by"), fmt)]


def _by_lines(by: Any, fmt: Inline) -> list[str]:
    if not isinstance(by, dict):
        return []
    from compiler.analysis.estimates import number

    days = by.get("working_days", 0)
    share = number(round(100 * by.get("probability", 0), 1))
    return [f"Finished by {fmt.text(by.get('by'))} in {share}% of the runs: {days:,} working day"
            f"{'s' if days != 1 else ''} (Monday to Friday) from {fmt.text(by.get('start'))}, at"
            f" {number(by.get('hours_per_day', 0))} hours a day, {number(by.get('hours', 0))} hours.", ""]


def grounded_line(summary: dict[str, Any], fmt: Inline = MARKDOWN, strong: Callable[[str], str] = "**{}**".format
                  ) -> str:
    """Whether the estimates are grounded (EP112), how many there are, and how units count."""
    return (f"{'Grounded' if summary.get('grounded') else strong('Not grounded')}: {summary.get('estimated', 0):,}"
            f" item{'s' if summary.get('estimated') != 1 else ''} estimated, {summary.get('missing', 0):,} without"
            f" an estimate; a spread over {fmt.text(summary.get('max_spread'))}x is flagged;"
            f" {fmt.text(summary.get('units', ''))}.")


def estimates_section(document: dict[str, Any]) -> str:
    """The page's Estimates section: grounded or not, how units count, the flagged ones, the claims."""
    summary = document.get("estimates")
    if not isinstance(summary, dict):
        return ""
    lines = [*schedule_lines(document.get("schedule")), *forecast_lines(document.get("forecast")),
             grounded_line(summary)]
    flagged = summary.get("flagged", [])
    if flagged:
        lines.append("")
        lines += [f"- {code(f['item']) if f.get('item') is not None else 'claim ' + md(f.get('claim'))}:"
                  f" {md(f['reason'])}" for f in flagged]
    claims = document.get("claims") or []
    if claims:
        lines += ["", "| claim | range | evidence |", "|---|---|---|"]
        lines += [f"| {cell(md(c['description']))} | {cell(interval(c))} |"
                  f" {cell(md(c.get('evidence') or '')) or '_none_'} |" for c in claims]
    return "\n".join(lines)


def page(document: dict[str, Any], base: str) -> dict[str, Any]:
    """What the template shows: the view (compiler/render/view.py), escaped for Markdown."""
    from compiler.render.mermaid import flowchart
    from compiler.render.view import plan_view

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
        "complexity": _complexity(document.get("complexity")),
        "progress": progress_line(view.progress),
        "revision": revision_line(document),
        "estimates": estimates_section(document),
        "sections": ((_heading(section), item_rows(section.items, link)) for section in view.sections),
    }


def _complexity(value: Any) -> str:
    """The complexity line's text, escaped; '' when the document has none that can be read (an
    older compile, or a hand-written JSON)."""
    if not isinstance(value, dict) or value.get("tier") not in ("simple", "medium", "complex"):
        return ""
    why = [md(str(w)) for w in value.get("why") or [] if isinstance(w, str)]
    return f"**{value['tier']}**" + (f": {'; '.join(why)}" if why else "")


# Ids listed per kind of change on the revision line; the rest are counted (all are in the JSON).
REVISION_IDS = 10


def revision_line(document: dict[str, Any], fmt: Inline = MARKDOWN) -> str:
    """The revision and what changed since the previous one, escaped: ``3 · since revision 2:
    1 added (`x`), 1 revised (`y`: change)``; '' for a file from before revisions."""
    revision = document.get("revision")
    if type(revision) is not int:
        return ""
    budget = document.get("budget")
    limit = budget.get("max_revisions") if isinstance(budget, dict) else None
    head = f"{revision}" + (f" of {limit:,} allowed" if type(limit) is int else "")  # the plan's budget (EP403)
    changed = document.get("changes")
    if not isinstance(changed, dict):
        return head + (" (the first)" if revision == 1 else "")

    def ids(entries: Any, show: Any) -> tuple[str, str]:
        entries = entries if isinstance(entries, list) else []
        shown = ", ".join(show(e) for e in entries[:REVISION_IDS])
        more = f", … {len(entries) - REVISION_IDS:,} more" if len(entries) > REVISION_IDS else ""
        return f"{len(entries):,}", f"{shown}{more}"

    def revised(entry: Any) -> str:
        names = entry.get("fields") if isinstance(entry, dict) else None
        what = ", ".join(fmt.text(str(n)) for n in names) if isinstance(names, list) else ""
        return fmt.code(str(entry.get("id"))) + (f": {what}" if what else "") if isinstance(entry, dict) else ""

    def renamed(entry: Any) -> str:
        if not isinstance(entry, dict):
            return ""
        return f"{fmt.code(str(entry.get('old')))} → {fmt.code(str(entry.get('new')))}"

    parts = []
    for key, show in (("added", lambda i: fmt.code(str(i))), ("removed", lambda i: fmt.code(str(i))),
                      ("revised", revised), ("renamed", renamed)):
        count, text = ids(changed.get(key), show)
        if count != "0":
            parts.append(f"{count} {key} ({text})")
    edges, waves = (changed.get(key) for key in ("edges", "waves"))
    edges = edges if isinstance(edges, dict) else {}
    waves = waves if isinstance(waves, dict) else {}
    added, removed = (len(e) if isinstance(e, list) else 0 for e in (edges.get("added"), edges.get("removed")))
    if added or removed:
        parts.append(f"{added:,} dependency edges added, {removed:,} removed")
    moved = sum(len(w) if isinstance(w, list) else 0 for w in (waves.get("direct"), waves.get("indirect")))
    if moved:
        parts.append(f"{moved:,} moved to another wave")
    return f"{head} · since the previous: " + ("; ".join(parts) if parts else "no change to the items")


def _heading(section: Any) -> str:
    """A section's heading, with a wave's progress when the plan's is shown: ``Wave 2 · 1/3 done``."""
    if section.done is None:
        return str(section.heading)
    done, total = section.done
    return f"{section.heading} · {done:,}/{total:,} done"


def render_markdown(document: dict[str, Any], *, base: str = ".") -> str:
    """Render a compiled document. ``base`` is the repository root relative to the Markdown file."""
    return "".join(render_pieces(document, base=base))


def render_pieces(document: dict[str, Any], *, base: str = ".") -> Iterator[str]:
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
