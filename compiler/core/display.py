"""Text from a plan, made safe to show: control characters escaped, long values cut.

A plan is written by anyone who opens a pull request. Its text reaches terminals, CI logs and
pages, where a raw newline can start a line of its own (what a GitHub Actions workflow command
needs; compiler.core.cilog guards against the rest of it), a carriage return or an escape
sequence can redraw the screen, and a bidirectional control can reorder what a reader sees. So
every output of the CLI shows such characters escaped, visibly (``\\n``, ``\\x1b``, ``\\u202e``),
and a value that would fill screens is cut with a count of what was left out. JSON outputs carry
the text as it is: JSON escapes what it must, and readers of JSON are programs.

Escaping happens where text is written (reporters, the CLI, the Markdown filters); cutting
happens where a message is made, so that every format gets the same one-screen message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# C0 and C1 controls and DEL; line and paragraph separators (read as line breaks by YAML and
# by some terminals and editors); the bidirectional controls (Unicode's "Trojan source" set); the
# invisible zero-width space and word joiner, and the byte-order mark, invisible anywhere but at
# the start of a file; and surrogates, which are no
# text at all (a file name that is not UTF-8 reaches Python as lone surrogates: U+DC80-U+DCFF
# stand for its raw bytes).
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2060\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# A value from the plan, inside a message, is cut past this many characters.
MAX_VALUE = 120
# What a picture of the plan shows of an id in its box or node (the SVG's 220-pixel box in 13 px
# sans-serif, DOT's and Mermaid's nodes alike); a longer id is cut with an ellipsis (``cut``).
ID_CHARACTERS = 26
# A list of names (unknown ids, a cycle) inside a message shows this many, then a count.
MAX_NAMES = 10


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a raw byte of a name that is not UTF-8
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` with every unsafe character written as a visible escape; a single line."""
    if UNSAFE.search(text) is None:  # almost all text: nothing to do, at C speed
        return text
    return UNSAFE.sub(_escape_char, text)


def escape_lines(text: str) -> str:
    """``text`` escaped line by line: its ``\\n`` line breaks stay (the caller made them), every
    other unsafe character is escaped."""
    if UNSAFE.search(text) is None:
        return text
    return "\n".join(escape(line) for line in text.split("\n"))


_SURROGATES = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """``text`` with only its surrogates escaped (``\\xNN`` for the raw bytes of a name that is
    not UTF-8): for names that must stay names, in artifacts too, and be writable as UTF-8."""
    if _SURROGATES.search(text) is None:
        return text
    return _SURROGATES.sub(_escape_char, text)


def clip(text: str, limit: int = MAX_VALUE) -> str:
    """``text``, or its first ``limit`` characters and a count of the rest."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def cut(text: str, limit: int) -> str:
    """``text`` shown safely, cut to ``limit`` characters with an ellipsis: in a picture, where a
    count of what was left out would not fit."""
    s = escape(text)
    return s if len(s) <= limit else s[:limit - 1] + "…"


def quoted(text: str, limit: int = MAX_VALUE) -> str:
    """A plan value inside a message, quoted as Python quotes it (``'a\\nb'``) and cut."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text) - limit:,} more characters)"


def names(values: Iterable[str], limit: int = MAX_NAMES, *, joiner: str = ", ") -> str:
    """``a, b, c`` for a few names; past ``limit``, the first ones and ``and N more``. Each name
    is cut too: an id may be any length until the id grammar refuses it."""
    shown: list[str] = []
    rest = 0
    for value in values:
        if len(shown) < limit:
            shown.append(clip(value))
        else:
            rest += 1
    text = joiner.join(shown)
    return f"{text} and {rest:,} more" if rest else text


def printable(number: int | float) -> bool:
    """Whether a number can be written in decimal: Python refuses an int of more than 4,300
    digits (YAML builds one from a long hexadecimal, octal or binary literal)."""
    if type(number) is not int or number.bit_length() <= 10_000:
        return True
    try:
        str(number)
    except ValueError:
        return False
    return True


def kind_of(value: object) -> str:
    """What a value is, for a message that says what was expected instead: ``text``, ``a list``,
    ``the number 12`` (a number too long to write is described, not written)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int) and value.bit_length() > 400:
        # repr() of an int of more than 4,300 digits raises; past 120 digits it is no message
        return f"a number of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
