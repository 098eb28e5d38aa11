"""Values written into a plan's text so that they read back as themselves: YAML scalars (plain
where that is sure, else quoted, double-quoted with escapes for what quotes cannot hold), YAML
flow collections, and JSON. What `fix` and `approve` write into a plan (compiler/load/spans.py),
and what `symbols` and `where` print for pasting into one. A value from a hostile plan (a line
break, a quote, ``: ``, ``#``, a bidirectional control) is written so that it reads back as the
same text, never as more YAML.
"""

from __future__ import annotations

import re
from typing import Any

from compiler.core.display import UNSAFE

# Text that reads back as itself, written plain, in YAML 1.2 and 1.1 alike, in block and flow
# context: a line range (11-12), a name or path (app/x.py::Account.create) that is no
# boolean, null, number (.5) or .inf/.nan and does not end in a colon, or lowercase hex with a
# letter (a pin) that is no float (12e4) or binary number (0b101). Anything else is quoted.
_PLAIN = re.compile(r"[0-9]+-[0-9]+|(?![.][0-9_]|[.]$)[A-Za-z_$./][\w$./:-]*(?<!:)"
                    r"|(?![0-9]+e[0-9]+$|0b[01]+$)[0-9a-f]*[a-f][0-9a-f]*")
_NOT_TEXT = re.compile(r"y|n|yes|no|on|off|true|false|null|\.inf|\.nan", re.IGNORECASE)

# What a single-quoted scalar cannot hold as itself, nor should a plan show raw: what YAML does
# not allow in a file (C0 controls but tab and line breaks, DEL, C1 but NEL, surrogates, U+FFFE,
# U+FFFF), line breaks (folded to a space inside quotes: \n, \r, NEL, U+2028, U+2029) and
# compiler/core/display.py's unsafe characters (bidirectional and invisible controls, the byte-order
# mark, tabs). Such text is written double-quoted, each of these characters as an escape.
_ESCAPED = re.compile(f"{UNSAFE.pattern[:-1]}\ufffe\uffff]")
_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\0"}
_DOUBLE_QUOTED = re.compile(f'[\\\\"{_ESCAPED.pattern[1:-1]}]')


def _yaml_escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def scalar_text(quote: str, value: Any) -> str:
    """``value`` as a YAML scalar that reads back as itself, in both readers: text plain where the
    node was plain (``quote`` empty) and that is safe, else in the node's quotes where they can
    hold it, else double-quoted with escapes; a number, a boolean or null as YAML writes it, never
    quoted (quotes would make it text)."""
    if not isinstance(value, str):
        if value is None or isinstance(value, bool):
            return {None: "null", True: "true", False: "false"}[value]
        return repr(value)
    if quote != '"' and _ESCAPED.search(value) is None:
        if quote == "" and _PLAIN.fullmatch(value) and not _NOT_TEXT.fullmatch(value):
            return value
        return "'" + value.replace("'", "''") + "'"
    return '"' + _DOUBLE_QUOTED.sub(_yaml_escape, value) + '"'


# A plain scalar that reads back as itself in a block sequence (``- VALUE``) and, with ``flow``, in
# a flow mapping: a letter, ``_``, ``/``, ``$`` or a ``.`` not before a digit first (no indicator,
# no number, date or ``.inf``), no ": " or " #", no ":" last, no space at either end, nothing YAML
# escapes, and not a word YAML reads as no text (``yes``, ``null``).
_FLOW = frozenset(",[]{}")
_FIRST = re.compile(r"[^\W\d]|[_/$]|[.](?![0-9_.]|$)")


def yaml_scalar(value: str, flow: bool = False) -> str:
    """``value`` as a YAML scalar that reads back as itself: plain when that is sure (spaces
    allowed: ``docs/guide.md::Int and Float Ranges``), else quoted. What `symbols` and `where`
    print, so that a line pasted into a plan's evidence list is the entry it was."""
    if (value and _FIRST.match(value) and value == value.strip() and ": " not in value
            and " #" not in value and "\t" not in value and not value.endswith(":")
            and _ESCAPED.search(value) is None and not _NOT_TEXT.fullmatch(value)
            and not (flow and _FLOW.intersection(value))):
        return value
    return scalar_text("'", value)


def yaml_value(value: Any) -> str:
    """Any plain value as YAML in flow style, on one line: a mapping ``{key: value}`` (its keys
    are fields' names, written plain), a list ``[a, b]``, a scalar as ``scalar_text`` writes it
    plain (quoted where plain is not sure)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {yaml_value(v)}" for key, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(yaml_value(v) for v in value) + "]"
    return scalar_text("", value)


def json_value(value: Any) -> str:
    """Any plain value as JSON on one line, non-ASCII text as itself (a JSON plan is UTF-8)."""
    import json

    return json.dumps(value, ensure_ascii=False)
