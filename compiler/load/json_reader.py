"""A JSON plan into plain data and a source map, by the standard library's parser (never a YAML one).

Duplicate keys, NaN and Infinity are refused; what the parser cannot read is said in words people
use (a trailing comma, a comment, single quotes, a bracket left open, pointed at where it opens).
Positions come from compiler/load/sourcemap.py's scanner, on first use.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compiler.core.display import quoted
from compiler.load.errors import input_error
from compiler.load.limits import Limits
from compiler.load.sourcemap import (
    JSON_TOKEN,
    LineIndex,
    OrderedSourceMap,
    Position,
    SourceMap,
    scan_json,
    scan_json_ordered,
)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


class _Constant(Exception):
    pass


def _no_constant(token: str) -> Any:
    raise _Constant(token)


def _locate_token(text: str, wanted: set[str] | None = None, depth: int | None = None) -> Position | None:
    """The position of the first bare token in ``wanted``, or where nesting passes ``depth``."""
    level = 0
    for match in JSON_TOKEN.finditer(text):
        tok = match.group()
        if wanted is not None and tok in wanted:
            return LineIndex(text).position(match.start())
        if depth is not None and tok in "[{":
            level += 1
            if level > depth:
                return LineIndex(text).position(match.start())
        elif tok in "]}":
            level -= 1
    return None


_LONG_NUMBER = re.compile(r"-?\d{4300,}")


def _unclosed(text: str) -> tuple[str, int] | None:
    """The innermost bracket that is never closed, and where it opens (one pass, no recursion)."""
    stack: list[tuple[str, int]] = []
    for match in JSON_TOKEN.finditer(text):
        tok = match.group()
        if tok in ("[", "{"):
            stack.append((tok, match.start()))
        elif tok in ("]", "}") and stack:
            stack.pop()
    return stack[-1] if stack else None


def _json_problem(text: str, err: json.JSONDecodeError) -> tuple[str, str | None, int]:
    """What went wrong in words people use, the fix, and where (an offset): the habits of other
    formats (a trailing comma, a comment, single quotes) and a bracket left open, at its opening."""
    at, rest = err.pos, text[err.pos:]
    before = text[:at].rstrip()
    if rest.startswith(("//", "/*")):
        return "a comment", "JSON has no comments: remove it (a YAML plan may have # comments)", at
    if rest.startswith("'"):
        return "a string in single quotes", "JSON strings take double quotes", at
    if before.endswith(",") and rest[:1] in ("]", "}"):
        return f"a comma before the closing {rest[0]}", "JSON allows no comma after the last entry: remove it", len(
            before) - 1
    if not rest.strip():
        opened = _unclosed(text)
        if opened is not None:
            closing = "]" if opened[0] == "[" else "}"
            return (f"the {opened[0]} opened here is never closed", f"add the {closing} it needs (or a missing comma"
                    " or quote before the end)", opened[1])
    if err.msg.startswith("Invalid control character"):
        return "a line break or control character inside a string", "is a closing quote missing?", at
    return err.msg, None, at


def parse_json(text: str, name: str, limits: Limits, *, unique_keys: bool = True) -> tuple[Any, SourceMap]:
    """The plain data of a JSON plan and its source map. A PlanInputError when it is not JSON we read.
    ``unique_keys=False`` reads a file whose repeated keys do not matter (a compiled file of ours,
    read back for its revision: the last one wins), without the hook that looks for them on every
    object (0.2 s of the 0.45 s that reading a 100,000-item evidence-plan.json takes)."""
    try:
        if unique_keys:
            data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
        else:
            data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        message, hint, at = _json_problem(text, err)
        raise input_error("EP002", f"invalid JSON: {message}", name, LineIndex(text).position(at), hint=hint) from None
    except _DuplicateKey as err:
        # The parser stops at the first object that repeats a key, and what follows it may not be
        # JSON at all: the scanner finds where, as far as it can read.
        _, _, dup = scan_json(text)
        if dup is None or dup[0] != err.key:
            raise input_error("EP003", f"duplicate key {quoted(err.key)}", name) from None
        key, first, second = dup
        raise input_error("EP003", f"duplicate key {quoted(key)} (first at line {first[0]})", name, second) from None
    except _Constant as err:
        token = str(err)
        pos = _locate_token(text, wanted={token})
        raise input_error("EP002", f"invalid JSON: {token} is not valid JSON", name, pos,
                          hint="JSON has no NaN or Infinity; plans need none") from None
    except RecursionError:
        pos = _locate_token(text, depth=limits.max_depth)
        raise input_error("EP005", "nesting too deep for the JSON parser", name, pos,
                          hint="plans are a few levels deep") from None
    except ValueError:  # an integer of more than 4,300 digits; nothing else reaches here
        match = _LONG_NUMBER.search(text)
        pos = LineIndex(text).position(match.start()) if match else None
        raise input_error("EP002", "invalid JSON: a number with more than 4,300 digits", name, pos) from None
    except MemoryError:
        raise input_error("EP007", "too large to parse in the memory available", name) from None

    return data, OrderedSourceMap(data, lambda: scan_json_ordered(text))
