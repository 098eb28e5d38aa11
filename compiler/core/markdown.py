"""Markdown escaping: plan text made safe for the place it lands in a Markdown page or comment.

Inline text (``md``), code spans (``code``), table cells (``cell``) and a proof's command
(``proof_text``): whatever a plan says, it cannot start a block, break out of a span or a table,
inject HTML, mention anyone on GitHub, or hide a control character; checked with cmark-gfm,
GitHub's renderer. Used by the Markdown page (compiler/render/markdown.py), the step summary of
``check`` (compiler/report/reporters.py) and ``diff``'s Markdown.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from compiler.core.display import UNSAFE, escape

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
_TRAILING_NEWLINES = re.compile(r"(?:\r\n|\r|\n)+\Z")
# A line break of plan text, in Markdown that needs no HTML: a hard break, a backslash at the end
# of the line (CommonMark 6.7), which a renderer with raw HTML turned off still shows, where it drops
# or escapes a `<br>`. The next line continues the paragraph, the list item or the quote (a lazy
# continuation line: md() escapes whatever would start a block at the start of each line).
HARD_BREAK = "\\\n"
# Where Markdown has no line break at all (a table cell, a heading), a break is shown as this sign.
SHOWN_BREAK = " ↵ "


def md(text: Any) -> str:
    """Inline Markdown text: punctuation that means something is escaped, HTML is neutralised,
    nothing can start a block (a heading, a list, a code block), no ``@name`` notifies anyone on
    GitHub, line breaks become hard breaks (``HARD_BREAK``; those at the end show nothing and are
    left out; ``one_line`` shows them where Markdown has none) and other control characters visible
    escapes (``\\x1b``). A code span the text writes (`` `re.compile` ``) stays one, remade by
    code(): it holds no markup."""
    s = str(text)
    if _MD_ANY_SPECIAL.search(s) is None and _BLOCK_START.match(s) is None:  # most text: as it is
        return _no_mention(s) if "@" in s else s
    if s[-1:] in ("\n", "\r"):
        s = _TRAILING_NEWLINES.sub("", s)
    return HARD_BREAK.join([_md_spans(line) if "`" in line else _md_line(line) for line in _NEWLINES.split(s)])


def one_line(markdown: str) -> str:
    """md()'s Markdown where a line break would end the block (a table cell, a heading): each hard
    break shown as ``SHOWN_BREAK``. md() doubles every backslash of the text, so a backslash before
    a line break can only be a hard break's."""
    return markdown.replace(HARD_BREAK, SHOWN_BREAK) if "\n" in markdown else markdown


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


def plain_code(text: Any) -> TypeGuard[str]:
    """Whether ``code(text)`` is ``text`` between single backticks, as it is (code()'s own first test)."""
    return type(text) is str and text != "" and text[0] != " " and _CODE_SPECIAL.search(text) is None


def plain_text(text: Any) -> TypeGuard[str]:
    """Whether ``md(text)`` is ``text`` as it is (md()'s own first test, and no ``@``)."""
    return (type(text) is str and _MD_ANY_SPECIAL.search(text) is None and _BLOCK_START.match(text) is None
            and "@" not in text)


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
    """Already-escaped Markdown, made safe inside a table cell (pipes split cells, even in code;
    a line break ends the row: ``one_line``)."""
    text = one_line(text)
    return text.replace("|", "\\|") if "|" in text else text
