"""Which lines of a step's output GitHub Actions' runner takes as workflow commands: a test oracle.

The rules are read from the runner's source, actions/runner at commit
258d6c857db3519913f7deb6004b60172f8043ae, and restated here in Python (no code copied):

- src/Runner.Sdk/ProcessInvoker.cs: the output is read with ``StreamReader.ReadLine``, so a line
  ends at ``\\n``, at ``\\r`` or at ``\\r\\n`` (and at nothing else: not at U+2028 nor U+0085).
- src/Runner.Worker/ActionCommandManager.cs, ``TryProcessCommand``: a line is tried as the
  ``::`` syntax (``ActionCommand.TryParseV2``), then as the older ``##[`` one
  (``ActionCommand.TryParse``); a command counts only under a registered name, compared
  ordinal-ignore-case: ``stop-commands`` and the names of the command extensions that
  src/Runner.Common/ExtensionManager.cs registers (``internal-set-repo-path`` only while a plugin
  runs; counted here always). ``::stop-commands::TOKEN`` registers TOKEN and ignores every
  other command until a line that is the command TOKEN. ``notice`` needs a server flag that
  github.com sets; counted here always.
- src/Runner.Common/ActionCommand.cs, ``TryParseV2``: the line less its leading white space
  (``TrimStart``: ``Char.IsWhiteSpace``) must start with ``::``; the command's name and
  properties run up to the next ``::`` searched from the third character; the name ends at the
  first space; properties are ``k=v`` split at ``,``; the data is the rest, ``%0D``, ``%0A`` and
  ``%25`` unescaped. ``TryParse``: the first ``##[`` anywhere in the line, then the first ``]``
  after it; name up to a space, properties split at ``;``, the data after the ``]``.

``StartsWith(string)`` and ``IndexOf(string)`` in that C# compare with the current culture, and
.NET 5 and later do that with ICU (Linux, macOS, Windows 10 1903+): a character that ICU's
collation ignores (U+200B, U+2060, a soft hyphen ...) counts for nothing in the search, while
``Substring`` and ``IndexOf(char)`` count UTF-16 code units as they are. So there are two models
of the runner, and a line is a command if either says so:

- ``ordinal``: the comparisons are ordinal (.NET's invariant-globalization mode; also what its
  fast path does for ASCII text);
- ``icu``: as dotnet/runtime's src/native/libs/System.Globalization.Native/pal_collation.c calls
  ICU for the culture (the root collation, which the invariant culture and ``en`` use):
  ``StartsWith`` walks the collation elements of both strings, skipping ignorable ones
  (``SimpleAffix``); ``IndexOf`` is ``usearch_first`` with pal_collation.c's own grapheme break
  rules. This model needs ICU's shared libraries (``libicui18n``, ``libicuuc``); ``ICU`` is None
  where they cannot be loaded.

Commands are read from text as Python has it (code points): it is turned into UTF-16 code units
first, as .NET holds it, and a lone surrogate (a byte that was not UTF-8) becomes U+FFFD, as the
runner's UTF-8 reader makes it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from array import array
from collections.abc import Iterator
from typing import Any, NamedTuple

RUNNER_COMMIT = "258d6c857db3519913f7deb6004b60172f8043ae"

# ExtensionManager.cs's IActionCommandExtension list, and ActionCommandManager's stop command.
NAMES = frozenset({
    "stop-commands", "internal-set-repo-path", "set-env", "set-output", "save-state", "add-path", "add-mask",
    "add-matcher", "remove-matcher", "warning", "error", "notice", "debug", "group", "endgroup", "echo",
})

# .NET's Char.IsWhiteSpace: the Unicode space, line and paragraph separators, U+0009-U+000D, U+0085.
DOTNET_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_LEADING = re.compile(f"[{DOTNET_WHITE_SPACE}]*")
_TRAILING = re.compile(f"[{DOTNET_WHITE_SPACE}]*\\Z")
_LINE_BREAK = re.compile("\r\n|\r|\n")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Command(NamedTuple):
    name: str
    properties: dict[str, str]
    data: str
    syntax: str  # "::" or "##["


def trim_start(text: str) -> str:
    """String.TrimStart(): leading white space as .NET's Char.IsWhiteSpace has it, removed."""
    return text[_LEADING.match(text).end():]  # type: ignore[union-attr]  # * always matches


def _upper(text: str) -> str:
    """OrdinalIgnoreCase's folding: each UTF-16 unit to its simple upper case."""
    return "".join(c if len(u := c.upper()) != 1 else u for c in text)


_NAMES_UPPER = frozenset(_upper(n) for n in NAMES)


def _units(text: str) -> str:
    """``text`` as UTF-16 code units, one Python character each (a pair for a character past U+FFFF)."""
    text = _LONE_SURROGATE.sub("\ufffd", text)
    if text.isascii():
        return text
    return "".join(map(chr, array("H", text.encode("utf-16-le"))))


def lines(log: str) -> list[str]:
    """The lines of a log as the runner reads them (``\\n``, ``\\r``, ``\\r\\n`` end a line)."""
    parts = _LINE_BREAK.split(log)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


class Model:
    """The runner's culture-dependent comparisons; this one ordinal."""

    name = "ordinal"

    def starts_with(self, text: str, prefix: str) -> bool:
        return text.startswith(prefix)

    def index_of(self, text: str, value: str, start: int = 0) -> int:
        return text.find(value, start)


class _Icu(Model):
    """The comparisons as .NET makes them on ICU, called through ctypes."""

    name = "icu"
    # pal_collation.c's BreakIteratorRuleNew: the grapheme rules without the rule that keeps CR LF together.
    _RULES = (
        "!!quoted_literals_only; \n"
        "$CR          = [\\p{Grapheme_Cluster_Break = CR}]; \n"
        "$LF          = [\\p{Grapheme_Cluster_Break = LF}]; \n"
        "$Control     = [[\\p{Grapheme_Cluster_Break = Control}]]; \n"
        "$Extend      = [[\\p{Grapheme_Cluster_Break = Extend}]]; \n"
        "$ZWJ         = [\\p{Grapheme_Cluster_Break = ZWJ}]; \n"
        "$Regional_Indicator = [\\p{Grapheme_Cluster_Break = Regional_Indicator}]; \n"
        "$Prepend     = [\\p{Grapheme_Cluster_Break = Prepend}]; \n"
        "$SpacingMark = [\\p{Grapheme_Cluster_Break = SpacingMark}]; \n"
        "$Virama      = [\\p{Gujr}\\p{sc=Telu}\\p{sc=Mlym}\\p{sc=Orya}\\p{sc=Beng}\\p{sc=Deva}"
        "&\\p{Indic_Syllabic_Category=Virama}]; \n"
        "$LinkingConsonant = [\\p{Gujr}\\p{sc=Telu}\\p{sc=Mlym}\\p{sc=Orya}\\p{sc=Beng}\\p{sc=Deva}"
        "&\\p{Indic_Syllabic_Category=Consonant}]; \n"
        "$ExtCccZwj   = [[\\p{gcb=Extend}-\\p{ccc=0}] \\p{gcb=ZWJ}]; \n"
        "$L           = [\\p{Grapheme_Cluster_Break = L}]; \n"
        "$V           = [\\p{Grapheme_Cluster_Break = V}]; \n"
        "$T           = [\\p{Grapheme_Cluster_Break = T}]; \n"
        "$LV          = [\\p{Grapheme_Cluster_Break = LV}]; \n"
        "$LVT         = [\\p{Grapheme_Cluster_Break = LVT}]; \n"
        "$Extended_Pict = [:ExtPict:]; \n"
        "!!chain; \n"
        "!!lookAheadHardBreak; \n"
        "$L ($L | $V | $LV | $LVT); \n"
        "($LV | $V) ($V | $T); \n"
        "($LVT | $T) $T; \n"
        "[^$Control $CR $LF] ($Extend | $ZWJ); \n"
        "[^$Control $CR $LF] $SpacingMark; \n"
        "$Prepend [^$Control $CR $LF]; \n"
        "$LinkingConsonant $ExtCccZwj* $Virama $ExtCccZwj* $LinkingConsonant; \n"
        "$Extended_Pict $Extend* $ZWJ $Extended_Pict; \n"
        "^$Prepend* $Regional_Indicator $Regional_Indicator / $Regional_Indicator; \n"
        "^$Prepend* $Regional_Indicator $Regional_Indicator; \n"
        ".;"
    )
    _NULLORDER = -1

    def __init__(self, i18n: Any, uc: Any, suffix: str) -> None:
        p, i32, err = ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32)

        def fn(lib: Any, name: str, result: Any, *args: Any) -> Any:
            f = getattr(lib, name + suffix)
            f.restype, f.argtypes = result, list(args)
            return f

        self._open_elements = fn(i18n, "ucol_openElements", p, p, p, i32, err)
        self._next = fn(i18n, "ucol_next", i32, p, err)
        self._close_elements = fn(i18n, "ucol_closeElements", None, p)
        self._search_open = fn(i18n, "usearch_openFromCollator", p, p, i32, p, i32, p, p, err)
        self._search_first = fn(i18n, "usearch_first", i32, p, err)
        self._search_close = fn(i18n, "usearch_close", None, p)
        self._break_open = fn(uc, "ubrk_openRules", p, p, i32, p, i32, p, err)
        status = ctypes.c_int32(0)
        self._collator = fn(i18n, "ucol_open", p, ctypes.c_char_p, err)(b"", ctypes.byref(status))
        self._check(status)
        rules = self._buffer(self._RULES)
        self._breaker = self._break_open(rules, len(self._RULES), None, 0, None, ctypes.byref(status))
        self._check(status)
        self.version = suffix.lstrip("_") or "?"

    @staticmethod
    def _check(status: ctypes.c_int32) -> None:
        if status.value > 0:  # U_FAILURE; warnings are negative
            raise OSError(f"ICU error {status.value}")

    @staticmethod
    def _buffer(units: str) -> ctypes.Array[ctypes.c_char]:
        return ctypes.create_string_buffer(units.encode("utf-16-le", "surrogatepass") + b"\0\0")

    def _elements(self, units: str) -> Iterator[int]:
        status = ctypes.c_int32(0)
        buf = self._buffer(units)
        it = self._open_elements(self._collator, buf, len(units), ctypes.byref(status))
        self._check(status)
        try:
            while True:
                element = self._next(it, ctypes.byref(status))
                self._check(status)
                yield element
                if element == self._NULLORDER:
                    return
        finally:
            self._close_elements(it)

    def starts_with(self, text: str, prefix: str) -> bool:
        """pal_collation.c's SimpleAffix, forward: the collation elements of ``prefix`` begin
        those of ``text``, ignorable elements skipped on either side; a combining mark right
        after the prefix (no primary weight, a secondary one) makes it no prefix."""
        pattern, source = self._elements(prefix), self._elements(text)
        p = s = 0
        move_p = move_s = True
        while True:
            if move_p:
                p = next(pattern, self._NULLORDER)
            if move_s:
                s = next(source, self._NULLORDER)
            move_p = move_s = True
            if p == self._NULLORDER:
                if s in (self._NULLORDER, 0):
                    return True
                u = s & 0xFFFFFFFF
                return not (u & 0xFFFF0000 == 0 and u & 0x0000FF00 != 0)
            if p == 0:
                move_s = False
            elif s == 0:
                move_p = False
            elif p != s:  # the default strength is tertiary: the whole element compares
                return False

    def index_of(self, text: str, value: str, start: int = 0) -> int:
        """pal_collation.c's IndexOf: ``usearch_first`` over ``text[start:]``."""
        source = text[start:]
        if not source:
            return -1  # (an empty source equals a value only if the value is all ignorable; ours are not)
        status = ctypes.c_int32(0)
        pattern_buf, source_buf = self._buffer(value), self._buffer(source)
        # (The break iterator is made once, as .NET caches its searches; usearch gives it the text.)
        search = self._search_open(pattern_buf, len(value), source_buf, len(source), self._collator, self._breaker,
                                   ctypes.byref(status))
        try:
            self._check(status)
            found = self._search_first(search, ctypes.byref(status))
            self._check(status)
        finally:
            if search:
                self._search_close(search)
        return found if found < 0 else found + start


def _load_icu() -> _Icu | None:
    i18n_name, uc_name = ctypes.util.find_library("icui18n"), ctypes.util.find_library("icuuc")
    if i18n_name is None or uc_name is None:
        return None
    try:
        i18n, uc = ctypes.CDLL(i18n_name), ctypes.CDLL(uc_name)
    except OSError:
        return None
    version = re.search(r"\.so\.(\d+)", i18n_name)
    for suffix in ([f"_{version.group(1)}"] if version else []) + [""]:
        if hasattr(i18n, "ucol_open" + suffix):
            return _Icu(i18n, uc, suffix)
    return None


ORDINAL = Model()
ICU: _Icu | None = _load_icu()
MODELS: tuple[Model, ...] = (ORDINAL, ICU) if ICU is not None else (ORDINAL,)


def _registered(name: str, extra: frozenset[str] = frozenset()) -> bool:
    return _upper(name) in _NAMES_UPPER or _upper(name) in extra


def _unescape(text: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for escaped, char in pairs:
        text = text.replace(escaped, char)
    return text


_DATA = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))
_PROPERTY = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
_LEGACY = (("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"), ("%25", "%"))


def _properties(text: str, separator: str, pairs: tuple[tuple[str, str], ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for prop in (p for p in text.split(separator) if p):
        pair = [p for p in prop.split("=", 1) if p]
        if len(pair) == 2:
            found[pair[0]] = _unescape(pair[1], pairs)
    return found


def parse_v2(line: str, model: Model = ORDINAL, extra: frozenset[str] = frozenset()) -> Command | None:
    """ActionCommand.TryParseV2 on one line (UTF-16 units, see ``_units``)."""
    if not line:
        return None
    message = trim_start(line)
    if not model.starts_with(message, "::"):
        return None
    end = model.index_of(message, "::", 2)
    if end < 0:
        return None
    info = message[2:end]
    space = info.find(" ")
    name = info if space < 0 else info[:space]
    if not _registered(name, extra):
        return None
    props = {}
    if space > 0:
        props = _properties(_TRAILING.sub("", trim_start(info[space + 1:])), ",", _PROPERTY)
    return Command(name, props, _unescape(message[end + 2:], _DATA), "::")


def parse_legacy(line: str, model: Model = ORDINAL, extra: frozenset[str] = frozenset()) -> Command | None:
    """ActionCommand.TryParse on one line: ``##[name props]data``, anywhere in the line."""
    if not line:
        return None
    start = model.index_of(line, "##[")
    if start < 0:
        return None
    close = line.find("]", start)
    if close < 0:
        return None
    info = line[start + 3:close]
    space = info.find(" ")
    name = info if space < 0 else info[:space]
    if not _registered(name, extra):
        return None
    props = _properties(info[space + 1:], ";", _LEGACY) if space > 0 else {}
    return Command(name, props, _unescape(line[close + 1:], _LEGACY), "##[")


def parse(line: str, model: Model = ORDINAL, extra: frozenset[str] = frozenset()) -> Command | None:
    """The command one line of output is, as TryProcessCommand tries it (``::`` first), or None.

    A line without two ``:`` cannot start with ``::``, nor one without two ``#`` and a ``[`` hold
    ``##[``, in either model: in ICU's root collation no other character has the collation element
    of ``:``, ``#`` or ``[`` (checked code point by code point with ICU 72), so those lines are not
    searched."""
    units = _units(line)
    return ((parse_v2(units, model, extra) if units.count(":") >= 2 else None)
            or (parse_legacy(units, model, extra) if units.count("#") >= 2 and "[" in units else None))


def command(line: str) -> Command | None:
    """The command a line is in any model of the runner (the first that finds one), or None."""
    for model in MODELS:
        found = parse(line, model)
        if found is not None:
            return found
    return None


def commands(log: str, model: Model = ORDINAL) -> list[tuple[int, Command]]:
    """The commands the runner carries out over a whole log, with their line numbers (from 1):
    ``stop-commands`` included, and the lines it makes the runner ignore left out."""
    found: list[tuple[int, Command]] = []
    token: str | None = None
    for n, line in enumerate(lines(log), 1):
        cmd = parse(line, model, frozenset({_upper(token)}) if token else frozenset())
        if cmd is None:
            continue
        if token is not None:
            if _upper(cmd.name) == _upper(token):
                token = None
                found.append((n, cmd))
            continue
        if _upper(cmd.name) == "STOP-COMMANDS":
            token = cmd.data
        found.append((n, cmd))
    return found


def command_lines(log: str) -> Iterator[tuple[int, str, Command]]:
    """Every line of ``log`` that is a command in some model: (line number, line, command)."""
    for n, line in enumerate(lines(log), 1):
        found = command(line)
        if found is not None:
            yield n, line, found

