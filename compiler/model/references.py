"""Evidence references: the string form (``path``, ``path:LINE``, ``path:START-END``,
``path::symbol``, a URL) and the object form, parsed into Evidence values, with the reason when
one cannot be."""

from __future__ import annotations

import re
from typing import Any, Protocol

from compiler.core import pins
from compiler.core.display import quoted
from compiler.model.values import Evidence, Item


class EvidenceFields(Protocol):
    """The object form's fields, as the input model (or the fast path's view) gives them."""

    path: str | None
    line: int | None
    lines: str | int | None
    symbol: str | None
    contains: str | None
    url: str | None
    pin: str | None


_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*://"
_URL = re.compile(rf"^{_SCHEME}\S+$")
# Line notations of other tools that people paste: a GitHub anchor (path#L10-L20), an L before
# the number (path:L10), and a compiler's LINE:COLUMN (path:511:7). Each is answered with the
# reference it means, never read as a path. A path may hold any character, a line break too (as
# the schema's pattern reads it: [\s\S]), so "." matches everything here.
_OTHER_NOTATIONS = (
    (re.compile(r"^(.+?)#L([0-9]{1,9})(?:-L?([0-9]{1,9}))?$", re.DOTALL), "a GitHub anchor"),
    (re.compile(r"^(.+?):L([0-9]{1,9})(?:-L?([0-9]{1,9}))?$", re.DOTALL), "an L before the line number"),
    (re.compile(r"^(.+?):([0-9]{1,9}):([0-9]{1,9})$", re.DOTALL), "LINE:COLUMN"),
)
_LINE_SUFFIX = re.compile(r":(-?\d+)(?:-(-?\d+))?$")
_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:-\s*(-?\d+)\s*)?$")


def _line_numbers(first: str, last: str | None) -> tuple[int, int] | str:
    """Two line numbers from their digits, or why not."""
    if len(first.lstrip("-")) > MAX_LINE_DIGITS or (last is not None and len(last.lstrip("-")) > MAX_LINE_DIGITS):
        return f"a line number has more than {MAX_LINE_DIGITS} digits"
    start = int(first)
    return start, int(last) if last is not None else start


def _check_range(start: int, end: int) -> str | None:
    if start < 1 or end < 1:
        return "line numbers start at 1"
    if end < start:
        return f"the range {start}-{end} is reversed"
    return None


# The common forms, path / path:LINE / path:START-END with no colon in the path, in one match.
# The path runs greedily to the first colon (it holds none, so that is the only place the line can
# start): a lazy path tried every shorter one first, 4x the time of the whole match.
_SIMPLE_REFERENCE = re.compile(r"([^\s:][^:]*)(?::([1-9]\d{0,8})(?:-([1-9]\d{0,8}))?)?")
# Line numbers have at most nine digits: no file has a billion lines, and int() refuses
# numbers of more than 4,300 digits with an exception, not an answer.
MAX_LINE_DIGITS = 9


# The rules above as JSON Schema patterns (schemas/plan.schema.json), read alike by ECMA-262 (with
# or without the u flag) and by Python's re (which Python's jsonschema uses): they end with
# (?![\s\S]), not $ (Python's $ also matches before a final line break); a space is what
# str.strip() removes, spelled out (ECMA-262's \s also takes U+FEFF, and not U+001C-U+001F or
# U+0085); digits are [0-9]. They cannot compare two numbers: a reversed range (5-3) passes them,
# and so does a line number in other scripts' digits (a.py:٠), which the code's \d reads.
SPACE = r"[\t-\r\x1C-\x20\x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]"
NOT_SPACE = "[^" + SPACE[1:]
NOT_BLANK = NOT_SPACE  # text with something in it besides spaces (searched: anywhere)
_S, _END = SPACE + "*", r"(?![\s\S])"
_NUMBER = r"-?[0-9]+"
_BAD_NUMBER = r"(?:-[0-9]+|0+|[0-9]{10,})"  # below 1, or more than MAX_LINE_DIGITS digits
_GOOD_NUMBER = r"(?!0+(?![0-9]))[0-9]{1,9}(?![0-9])"
URL_PATTERN = rf"^{_S}{_SCHEME}{NOT_SPACE}+{_S}{_END}"
REFERENCE_PATTERN = (
    rf"^(?!{_S}{_END})"  # not blank
    rf"(?:{_S}{_SCHEME}{NOT_SPACE}+{_S}{_END}"  # a URL, or:
    rf"|(?!{_S}::)"  # path::symbol needs a path
    # without ::, no other tool's line notation (path#L10-L20, path:L10, path:511:7)
    rf"(?!(?![\s\S]*::){_S}{NOT_SPACE}[\s\S]*?(?:#L[0-9]{{1,9}}(?:-L?[0-9]{{1,9}})?|:L[0-9]{{1,9}}(?:-L?[0-9]{{1,9}})?"
    rf"|:[0-9]{{1,9}}:[0-9]{{1,9}}){_S}{_END})"
    rf"(?!(?:(?!::)[\s\S])*::{_S}{_END})"  # ... and a symbol
    # without ::, a :LINE or :START-END suffix needs a path and line numbers from 1
    rf"(?!(?![\s\S]*::)(?:{_S}:{_NUMBER}(?:-{_NUMBER})?{_S}{_END}"
    rf"|[\s\S]*:(?:{_BAD_NUMBER}(?:-{_NUMBER})?|{_NUMBER}-{_BAD_NUMBER}){_S}{_END})))"
)
LINES_PATTERN = rf"^{_S}{_GOOD_NUMBER}{_S}(?:-{_S}{_GOOD_NUMBER}{_S})?{_END}"
MAX_LINES_NUMBER = 10**MAX_LINE_DIGITS - 1  # `lines` given as a number is read as its digits


def parse_reference(text: str) -> tuple[Evidence | None, str | None]:
    """Parse the string form. Returns (evidence, None) or (None, why it is invalid)."""
    m = _SIMPLE_REFERENCE.fullmatch(text)
    if m is not None:
        path, start, end = m.groups()
        if path[-1] not in " \t" and "#L" not in path:
            if start is None:
                return Evidence(path), None
            first = int(start)
            last = int(end) if end is not None else first
            if last >= first:
                return Evidence(path, first, last), None
    text = text.strip()
    if not text:
        return None, "evidence is empty"
    if _URL.match(text):
        return Evidence(url=text), None
    if "::" in text:
        path, _, symbol = text.partition("::")
        if not path or not symbol:
            return None, f"evidence {quoted(text)} needs both a path and a symbol (path::symbol)"
        return Evidence(path=path, symbol=symbol), None
    other = other_notation(text)
    if other is not None:
        name, meant = other
        return None, f"evidence {quoted(text)} is written as {name}: write {quoted(meant)}"
    m = _LINE_SUFFIX.search(text)
    if m is None:
        return Evidence(path=text), None
    path = text[: m.start()]
    if not path:
        return None, f"evidence {quoted(text)} has no path"
    numbers = _line_numbers(m.group(1), m.group(2))
    if isinstance(numbers, str):
        return None, f"evidence {quoted(text, 80)}: {numbers}"
    start, end = numbers
    problem = _check_range(start, end)
    if problem:
        return None, f"evidence {quoted(text)}: {problem}"
    return Evidence(path=path, start=start, end=end), None


def other_notation(text: str) -> tuple[str, str] | None:
    """(the notation's name, the reference it means) for a line notation of another tool
    (``src/x.py#L73-L239`` means ``src/x.py:73-239``), or None. What EP014 says, and what `fix`
    writes in its place: the same lines, so its fix is safe. ``text`` is stripped already."""
    for notation, name in _OTHER_NOTATIONS:
        other = notation.match(text)
        if other is not None:
            path, begin, finish = other.groups()
            if name == "LINE:COLUMN":  # a column is not part of a reference: the line is
                return name, f"{path}:{int(begin)}"
            return name, f"{path}:{int(begin)}" + (f"-{int(finish)}" if finish is not None and finish != begin else "")
    return None


def repository_reference(text: object) -> Evidence | None:
    """The repository reference that free text is, when it is one (an estimate's or a claim's
    ``evidence``): one word read as evidence's string form, naming a file in a folder by its
    extension (``app/x.py``), a folder (``docs/``), a line (``README.md:3``) or a symbol
    (``app/x.py::f``). Anything else is words, never checked: a sentence (``PR 12, a similar
    change``), a URL, a bare name (``node.js``, ``v1.2``), a slash between words (``n/a``, ``CI/CD``)."""
    if not isinstance(text, str):
        return None
    word = text.strip()
    if len(word.split(None, 1)) != 1:
        return None  # empty, or words
    evidence, problem = parse_reference(word)
    if evidence is None or problem is not None or evidence.path is None:
        return None
    path = evidence.path
    if path.startswith(("/", "~", "#", "@")):
        return None  # a path of another machine, a mention, a number
    if evidence.start is None and evidence.symbol is None and not path.endswith("/"):
        # A path alone reads as one when it has a folder and a file's extension (app/x.py): n/a,
        # CI/CD, 3/4 and a bare name (node.js) are words as often as they are files.
        stem, dot, extension = path.rpartition("/")[2].rpartition(".")
        if "/" not in path or not (stem and dot and extension[:1].isalpha() and extension.isalnum()):
            return None
    return evidence


_PIN_NEEDS_LINES = "a pin needs line, lines or a symbol: it is the hash of the cited lines"


def parse_object(obj: EvidenceFields) -> tuple[Evidence | None, str | None, str | None]:
    """(evidence, problem, field the problem is in)."""
    if obj.url is not None:
        if obj.path is not None or obj.line is not None or obj.lines is not None or obj.symbol is not None:
            return None, "evidence with a url takes no path, line, lines or symbol", "url"
        if obj.pin is not None:
            return None, _PIN_NEEDS_LINES, "pin"
        if not _URL.match(obj.url.strip()):
            return None, f"{quoted(obj.url)} is not a URL", "url"
        return Evidence(url=obj.url.strip(), contains=obj.contains), None, None
    if obj.path is None or not obj.path.strip():
        return None, "evidence needs a path (or a url)", "path"
    if obj.line is not None and obj.lines is not None:
        return None, "give either line or lines, not both", "lines"
    start = end = None
    if obj.line is not None:
        if obj.line < 1:
            return None, "line numbers start at 1", "line"
        start = end = obj.line
    elif obj.lines is not None:
        m = _RANGE.match(str(obj.lines))
        if m is None:
            return None, f"lines {str(obj.lines)[:40]!r} must be START-END, e.g. 18-24", "lines"
        numbers = _line_numbers(m.group(1), m.group(2))
        if isinstance(numbers, str):
            return None, numbers, "lines"
        start, end = numbers
        problem = _check_range(start, end)
        if problem:
            return None, problem, "lines"
    if obj.symbol is not None and start is not None:
        return None, "give either a symbol or lines, not both", "symbol"
    if obj.pin is not None:
        if start is None and obj.symbol is None:
            return None, _PIN_NEEDS_LINES, "pin"
        if not pins.valid(obj.pin):
            return None, (f"pin {quoted(obj.pin, 40)} is not {pins.DIGITS} lowercase hex digits: let"
                          " `evidence-plan fix --pin` write it"), "pin"
    return Evidence(path=obj.path.strip(), start=start, end=end, symbol=obj.symbol, contains=obj.contains,
                    pin=obj.pin), None, None


def evidence_input(evidence: Evidence) -> str | dict[str, Any]:
    """An entry as a plan file writes it: the compact string when it reads back to the same
    evidence, else the object form."""
    if evidence.contains is None and evidence.pin is None and parse_reference(evidence.ref())[0] == evidence:
        return evidence.ref()
    return evidence.to_dict()


def item_input(item: Item) -> dict[str, Any]:
    """An item as a plan file writes it (``convert``): its evidence compact where it can be."""
    out = item.to_dict()
    out["evidence"] = [evidence_input(e) for e in item.evidence]
    return out
