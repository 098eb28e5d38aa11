"""The id grammar, and ids that look alike.

An id is 1 to 128 characters: letters and digits of any script, and ``- _ . / :``, starting
with a letter or a digit; no spaces, no other punctuation. Two kinds of ids are refused because
a reader cannot tell them apart from others: an id that mixes Latin, Cyrillic or Greek letters
(``аdd`` with a Cyrillic ``а``), and an id that looks like another id of the same plan once
compatibility forms are folded (NFKC) and Cyrillic and Greek letters that look Latin are read
as Latin (``cоntract`` beside ``contract``). ASCII ids take a fast path: one regex.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LENGTH = 128
_ASCII_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]*")

# The grammar as a JSON Schema pattern (schemas/plan.schema.json), exact for ASCII. Beyond ASCII
# it refuses the invisible characters (controls, format characters such as the bidi overrides,
# and every space but ' ', which the ASCII part refuses), listed below by code point: what
# "a letter of any script" is needs ECMA-262's \p{L}, which only a validator that compiles
# patterns with the u flag reads (Python's jsonschema uses re, which has no \p), and a character
# class of every letter would be several kilobytes. So an id with a non-ASCII symbol (``a€``)
# passes the schema and is still refused by EP015 (tests/model/test_json_schema.py lists the cases).
# Only negated classes of BMP characters: they read the same in ECMA-262 with or without the u
# flag (an astral character is one code point, or two surrogates, neither in the class) and in
# Python's re.
INVISIBLE = (r"\u0080-\u00A0\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u1680\u180E"
             r"\u2000-\u200F\u2028-\u202F\u205F-\u206F\u3000\uFEFF\uFFF9-\uFFFB")
# ASCII that is not a letter or digit; after the first character, - . / : _ are allowed too.
_NOT_ASCII_START = r"\x00-\x2F\x3A-\x40\x5B-\x60\x7B-\x7F"
_NOT_ASCII_REST = r"\x00-\x2C\x3B-\x40\x5B-\x5E\x60\x7B-\x7F"
# The end is (?![\s\S]), not $: Python's $ also matches before a final line break ("a\n").
SCHEMA_PATTERN = f"^[^{_NOT_ASCII_START}{INVISIBLE}][^{_NOT_ASCII_REST}{INVISIBLE}]*(?![\\s\\S])"
_PUNCTUATION = set("._:/-")
_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")

# Cyrillic and Greek letters that are drawn like Latin ones (from Unicode's confusables data,
# restricted to the letters that matter in identifiers).
_AS_LATIN = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J",
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "τ": "t", "υ": "u", "χ": "x", "γ": "y",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})


# Every id of a plan at once, when each is a plain ASCII id (most plans): one match over them all.
_ASCII_ID_TEXT = f"[A-Za-z0-9][A-Za-z0-9._:/-]{{0,{MAX_LENGTH - 1}}}"
_ASCII_IDS = re.compile(f"{_ASCII_ID_TEXT}(?:\n{_ASCII_ID_TEXT})*")


def all_plain(idents: list[str]) -> bool:
    """Whether every id is an ASCII id of the grammar (``grammar_problem`` is None for each),
    decided by one regular expression over them all; False also where it cannot tell at once."""
    joined = "\n".join(idents)
    return (joined.isascii() and joined.count("\n") == len(idents) - 1  # no id holds a line break of its own
            and _ASCII_IDS.fullmatch(joined) is not None)


def grammar_problem(ident: str) -> str | None:
    """Why ``ident`` is not a valid id, or None."""
    if len(ident) > MAX_LENGTH:
        return f"is longer than {MAX_LENGTH} characters"
    if ident.isascii():
        if _ASCII_ID.fullmatch(ident):
            return None
    for n, ch in enumerate(ident):
        category = unicodedata.category(ch)
        if category[0] == "C" or category in ("Zl", "Zp"):  # a line break, a tab, an escape, U+2028
            return f"contains the control or invisible character U+{ord(ch):04X}"
        if ch.isspace():
            return "contains a space" if n and n < len(ident.rstrip()) else "starts or ends with a space"
        if category[0] in "LNM":
            if n == 0 and category[0] == "M":
                return "starts with a combining mark"
            continue
        if ch in _PUNCTUATION:
            if n == 0:
                return f"starts with {ch!r}; start with a letter or a digit"
            continue
        return f"contains {ch!r}; ids hold letters, digits and - _ . / :"
    return None


def mixed_scripts(ident: str) -> tuple[str, str] | None:
    """The first two of Latin, Cyrillic and Greek that ``ident`` mixes, or None."""
    if ident.isascii():
        return None
    seen: list[str] = []
    for ch in ident:
        if ch.isalpha():
            script = unicodedata.name(ch, "").split(" ", 1)[0]
            if script in _LOOKALIKE_SCRIPTS and script not in seen:
                seen.append(script)
                if len(seen) == 2:
                    return seen[0], seen[1]
    return None


def skeleton(ident: str) -> str:
    """What ``ident`` looks like: equal skeletons, different ids, means confusable."""
    if ident.isascii():
        return ident
    return unicodedata.normalize("NFKC", ident).translate(_AS_LATIN)


def describe_difference(a: str, b: str) -> str:
    """The first character where two look-alike ids differ, named."""
    for x, y in zip(a, b, strict=False):
        if x != y:
            name = unicodedata.name(x, f"U+{ord(x):04X}")
            return f"{x!r} ({name}) where the other has {y!r}"
    return "different lengths" if len(a) != len(b) else "nothing visible"
