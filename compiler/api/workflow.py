"""A GitHub Actions workflow as YAML text, every value written as it must be read (`ci github`).

Plain data in (dicts, lists, str, int, bool), text out, block style, keys in the order given; the
same data gives the same bytes. A ``str`` is a value: written plain only when it is a simple word
YAML reads as that text (``ubuntu-latest``, ``install evidence-plan``), else double-quoted, with what is not
plainly visible escaped (compiler/core/display.py's UNSAFE: controls, line separators, bidi
controls) and the ``[`` of ``##[`` written ``\\x5b``, so that no line of the file is a workflow
command when a log shows it (compiler/core/cilog.py). A value that holds ``${{`` is refused
(ValueError): GitHub would read it as an expression, and there is no quoting it. The tool's own
expressions are ``Expr``, its own shell scripts ``Script`` (a literal block); ``Flow`` is a short
list written on one line; ``Commented`` a scalar with a comment after it on its line.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from compiler.core.display import UNSAFE

EXPRESSION = "${{"
# Words of letters, digits and a little punctuation, one space between them, a letter first: YAML
# reads such a plain scalar as that text (no indicator first, no ": " or " #", nothing it escapes).
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./@'(),;*-]*(?: [A-Za-z0-9_./@'(),;*-]+)*")
# Words that YAML 1.1 (which GitHub's parser follows in part) reads as booleans or null.
_NOT_TEXT = frozenset(("y", "n", "yes", "no", "on", "off", "true", "false", "null"))
INDENT = "  "
_INDICATORS = "\"'[]{}&*!|>%@`#,?:-"  # what a plain scalar cannot start with


class Expr(str):
    """A value that is (or holds) one of the tool's own ``${{ }}`` expressions: written plain."""


class Script(str):
    """One of the tool's own shell scripts (``run:``): a literal block, never an expression in it."""


class Flow(list[Any]):
    """A list of scalars written on one line: ``[a, b]``."""


class Commented(NamedTuple):
    """A scalar and the comment written after it on its line (the tool's own text)."""

    value: Any
    comment: str


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        raise ValueError("a value holds a lone surrogate (a name that is not UTF-8): it cannot be written as YAML")
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def quoted(value: str) -> str:
    """``value`` double-quoted, as YAML reads it back exactly."""
    text = UNSAFE.sub(_escape, value.replace("\\", "\\\\").replace('"', '\\"'))
    return '"' + text.replace("##[", "##\\x5b") + '"'


def scalar(value: Any) -> str:
    """One value as YAML: plain when that is sure, else double-quoted (see the module's docstring)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise TypeError(f"no YAML for {type(value).__name__}")
    if isinstance(value, Expr):
        if "\n" in value or ": " in value or " #" in value or value != value.strip() or value[0] in _INDICATORS:
            raise ValueError(f"not a plain expression: {value!r}")
        return str(value)
    if EXPRESSION in value:
        raise ValueError(f"{value!r} holds {EXPRESSION!r}, which GitHub reads as an expression")
    if _PLAIN.fullmatch(value) and value.lower() not in _NOT_TEXT:
        return value
    return quoted(value)


def _inline(value: Any) -> str:
    if isinstance(value, Commented):
        return f"{_inline(value.value)}  # {value.comment}"
    if isinstance(value, Flow):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    return scalar(value)


def _script(text: Script, depth: int) -> list[str]:
    """A script's lines: the tool's own, and the one line of ``--install``, which must not hold an
    expression, a line break or a control character, start with a space, or hold what a log would
    read as a workflow command."""
    from compiler.core.cilog import yaml_hazard

    lines = text.rstrip("\n").split("\n")
    if EXPRESSION in text or not text.strip() or text[0] == " " or "\r" in text or yaml_hazard(text) \
            or any(UNSAFE.search(line) for line in lines):
        raise ValueError(f"{text.strip()!r} is no script a workflow can hold as it is (one line of the shell, no"
                         f" {EXPRESSION!r}, no control character, no workflow command)")
    pad = INDENT * depth
    return [pad + line if line else "" for line in lines]


def _block(value: Any, depth: int) -> list[str]:
    """The lines of a mapping or a list at ``depth``."""
    pad = INDENT * depth
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            lines += _entry(f"{pad}{scalar(key)}:", item, depth)
        return lines
    for item in value:
        if isinstance(item, dict) and item:
            first, *rest = _block(item, depth + 1)
            lines += [f"{pad}- {first.lstrip()}", *rest]
        else:
            lines += _entry(f"{pad}-", item, depth)
    return lines


def _entry(head: str, item: Any, depth: int) -> list[str]:
    if isinstance(item, Script):
        return [f"{head} |", *_script(item, depth + 1)]
    if isinstance(item, dict) and not item:
        return [head]  # `pull_request:` with nothing under it
    if isinstance(item, (dict, list)) and not isinstance(item, Flow):
        return [head, *_block(item, depth + 1)]
    return [f"{head} {_inline(item)}"]


def dump(document: dict[str, Any], comments: tuple[str, ...] = ()) -> str:
    """The document as YAML text, after ``comments`` (the tool's own lines, each written ``# ...``)."""
    lines = [f"# {line}" if line else "#" for line in comments]
    for key, value in document.items():
        lines += _entry(f"{scalar(key)}:", value, 0)
    return "\n".join(lines) + "\n"
