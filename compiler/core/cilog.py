"""No workflow command in a CI log but the ones the tool writes on purpose.

GitHub Actions' runner reads every line a step prints, on stdout and stderr alike, and carries out
two kinds of line as workflow commands (actions/runner, src/Runner.Common/ActionCommand.cs):
``::name props::data``, where ``::`` starts the line after white space (.NET's ``TrimStart``), and
the older ``##[name props]data``, found anywhere in a line. Lines end at ``\\n`` and at ``\\r``.
Plan text, file names and git output reach what the tool prints (a file name first on a line, a
source line quoted under a syntax error, a multi-line proof in a page), and compiler.core.display's
escaping keeps them from starting a line, not from being read there.

So every character the CLI writes passes through one ``Guard`` (``guarded()``: sys.stdout and
sys.stderr while a command runs; ``shown()``: the pages and pictures it writes to files), which
puts the ``NEUTRALISER``, U+2060 WORD JOINER, inside each ``::`` that starts a line and inside
each ``##[``: ``:\\u2060:`` and ``##\\u2060[``. A person reads the same text (the character has
no width and no glyph, and is no line-break opportunity); copied, it is there, and the text is
no command. It is not white space to .NET (``TrimStart`` keeps it). ICU, which .NET compares
strings with, ignores it when it searches for ``::`` or ``##[``, but the runner then cuts the
command's name out by character offsets, so the name starts with ``:`` or ``[``, and no command
has such a name (tests/runner_commands.py models both, over every command and format). Plan text
cannot hold the character raw where text is shown to people: compiler.core.display escapes it
(``\\u2060``), so a raw U+2060 there is the guard's and nothing else.

Data for programs is made safe without a change to what it means, before it reaches the guard,
which then has nothing to do: JSON writes the ``[`` of ``##[`` as ``\\u005b`` (``json_safe``), and
YAML writes a text that holds one double-quoted with ``\\x5b`` and ``\\x3a`` (compiler.api.convert).
The tool's own commands (``check --format github``, ``diff --format github``) are made by
``command``, whose message has each of its lines neutralised, and go out as ``Commands``, the one
kind of text the guard writes as it is.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TextIO

from compiler.core.lazy import lazy

if TYPE_CHECKING:
    from compiler.core.write import Content

NEUTRALISER = "\u2060"  # WORD JOINER: invisible, no white space to .NET; escaped when plan text holds it

# .NET's Char.IsWhiteSpace, which the runner's TrimStart removes before it looks for "::", less
# the two line breaks (a line ends there): Unicode's space, line and paragraph separators, the
# controls U+0009-U+000D and U+0085.
_BLANK = "\t\x0b\x0c \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# Where the neutraliser goes, in a text that follows a line break: before the second ":" of "::"
# that starts a line after white space, and before the "[" of "##[". (A search each, for "\n" and
# for "\r" apart: a pattern that starts with one character is searched for 10x faster than one
# that starts with a choice of two, and a page of 100,000 items is 100 MB.)
_AFTER_LF = re.compile(f"\n[{_BLANK}]*:(?=:)")
_AFTER_CR = re.compile(f"\r[{_BLANK}]*:(?=:)")
_INSERTED = "\\g<0>" + NEUTRALISER
_OPEN_LINE = re.compile(f"[{_BLANK}]*(:?)")  # a line that may still turn out to start with "::"

# What the text written so far ends with, as a prefix that makes the next piece read the same:
# a line start (maybe after white space), the same and one ":", or else the line's last two
# characters (for "##") after one that neither search starts with.
_START, _COLON, _INSIDE = "\n", "\n:", "\x00"


class Neutraliser:
    """Text written in pieces, neutralised as one: a command split between two pieces (``#``,
    then ``#[``) is found too. A new one reads from the start of a line."""

    def __init__(self) -> None:
        self._state = _START

    def __call__(self, piece: str) -> str:
        if not piece:
            return piece
        state = self._state
        text = state + piece
        last = max(piece.rfind("\n"), piece.rfind("\r"))
        self._state = _ending(piece[last:] if last >= 0 else text)
        # Insertions only, each after what the state holds: cut the state off the result.
        if "::" in text:
            text = _AFTER_LF.sub(_INSERTED, text)
            if "\r" in text:
                text = _AFTER_CR.sub(_INSERTED, text)
        if "##[" in text:
            text = text.replace("##[", "##" + NEUTRALISER + "[")
        return text[len(state):] if len(text) > len(state) + len(piece) else piece

    def line_start(self) -> None:
        """What was written (by someone else) ended a line."""
        self._state = _START


def _ending(text: str) -> str:
    """The state after ``text``, which starts at a line break or with the state before it."""
    last = max(text.rfind("\n"), text.rfind("\r"))
    line = text[last + 1:]
    if last >= 0:
        open_line = _OPEN_LINE.fullmatch(line)
        if open_line is not None:
            return _COLON if open_line.group(1) else _START
    return _INSIDE + line[-2:]


def neutralise(text: str) -> str:
    """``text``, read from the start of a line, with no workflow command in it."""
    return Neutraliser()(text)


def json_safe(text: str) -> str:
    """A JSON text with no ``##[`` in its bytes and the same data: the ``[`` written ``\\u005b``.
    (Outside its strings JSON has no ``#``, and no escape holds a ``[``; no JSON line can start
    with ``::``.)"""
    return text.replace("##[", "##\\u005b") if "##[" in text else text


def json_pieces(pieces: Iterable[str]) -> Iterator[str]:
    """``json_safe`` over a JSON text written in pieces that each hold whole strings."""
    for piece in pieces:
        yield json_safe(piece)


# A text that YAML could write with a "::" first on a line (folded at a space, or a key) or a "##[".
_YAML_HAZARD = lazy(f"##\\[|(?:\\A|[\n\r{_BLANK}]):(?=:)")
_YAML_LINE = lazy(f"^([{_BLANK}]*):(?=:)", re.MULTILINE)


def yaml_hazard(value: str) -> bool:
    """Whether a string must be written double-quoted for ``yaml_safe`` to make its YAML safe."""
    return _YAML_HAZARD().search(value) is not None


def yaml_safe(text: str) -> str:
    """A YAML text whose every ``yaml_hazard`` string is double-quoted, with no workflow command
    in it and the same data: the ``[`` of ``##[`` written ``\\x5b``, and the first ``:`` of a line's
    ``::`` written ``\\x3a`` (inside a double-quoted scalar, where such a line can only be)."""
    if "##[" in text:
        text = text.replace("##[", "##\\x5b")
    return _YAML_LINE().sub(lambda m: m.group(1) + "\\x3a", text) if "::" in text else text


class Commands(str):
    """Workflow commands that the tool writes on purpose, one a line, each made by ``command``."""


# A line of Commands: an annotation, its properties escaped (no ":"), its data neutralised (no "##[").
_OWN = lazy(r"::(?:error|warning|notice) [^\n\r:]*::(?:(?!##\[)[^\n\r])*\n")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: Sequence[tuple[str, str]], message: str) -> str:
    """One annotation, ``::name k=v,k=v::message`` and its line break, escaped as the runner
    unescapes it (src/Runner.Common/ActionCommand.cs): each line of the message neutralised, so
    that none of them is a command once the runner has put the line breaks back. Properties
    (a file's name, a line number, a title) are kept as they are: the line is read as a ``::``
    command, so a ``##[`` inside it is never looked for."""
    props = ",".join(f"{key}={_escape_property(value)}" for key, value in properties)
    return f"::{name} {props}::{_escape_data(neutralise(message))}\n"


class Guard:
    """A text stream in front of another (stdout, stderr): what is written to it reaches the
    other neutralised, except ``Commands`` given to ``commands``."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._neutralise = Neutraliser()

    @property
    def stream(self) -> TextIO:
        """The stream guarded: for a protocol that writes data made safe already, line by line
        (compiler/serve/mcp.py: JSON-RPC, each line through ``json_safe``)."""
        return self._stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click asks whether a stream is binary by writing b""
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._stream.write(self._neutralise(text))
        return len(text)

    def commands(self, text: Commands) -> None:
        """The tool's own workflow commands, written as they are (a line that is not one of
        them, which ``command`` cannot make, is neutralised like any other text)."""
        for line in text.splitlines(keepends=True):
            if _OWN().fullmatch(line):
                self._stream.write(line)
                self._neutralise.line_start()
            else:
                self.write(line)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()

    @property
    def closed(self) -> bool:
        return bool(self._stream.closed)

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    @property
    def encoding(self) -> str | None:
        return getattr(self._stream, "encoding", None)

    @property
    def errors(self) -> str | None:
        return getattr(self._stream, "errors", None)

    @property
    def name(self) -> Any:
        return getattr(self._stream, "name", None)


@contextmanager
def guarded() -> Iterator[None]:
    """sys.stdout and sys.stderr behind a Guard while the block runs (once: a block inside
    another keeps the outer one's guards)."""
    out, err = sys.stdout, sys.stderr
    if isinstance(out, Guard) or out is None or err is None:
        yield
        return
    streams = _text_stream(out), _text_stream(err)
    guards = Guard(streams[0]), Guard(streams[1])
    sys.stdout, sys.stderr = guards
    try:
        yield
    finally:
        for guard in guards:
            try:
                guard.flush()
            except (OSError, ValueError):  # a closed or broken pipe: main() says so, not this
                pass
        for stream in streams:
            if isinstance(stream, io.TextIOWrapper) and stream is not out and stream is not err:
                with suppress(OSError, ValueError):
                    stream.detach()  # ours: the process's own stream stays open
        sys.stdout, sys.stderr = out, err


def _text_stream(stream: TextIO) -> TextIO:
    """The stream click.echo would write to: ``stream``, or, where the locale's encoding is ASCII,
    its bytes as UTF-8 with what cannot be written replaced (as click does, which writes to the
    guard as it is, having no buffer of it to wrap)."""
    import codecs

    buffer = getattr(stream, "buffer", None)
    if buffer is None or codecs.lookup(getattr(stream, "encoding", None) or "ascii").name != "ascii":
        return stream
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="replace", line_buffering=True)


def echo_commands(text: Commands) -> None:
    """Write the tool's own workflow commands to stdout, as they are."""
    stream = sys.stdout
    if isinstance(stream, Guard):
        stream.commands(text)
        stream.flush()
    else:
        stream.write(text)
        stream.flush()


def shown(content: Content) -> Content:
    """A file's content (compiler.core.write's Content: a text, or a function that makes it, whole or
    in pieces) as the guard prints it: what a page shows is what stdout shows. Pieces are
    neutralised a batch of about a megabyte at a time (a page comes in many small ones)."""
    if isinstance(content, str):
        return neutralise(content)

    def pieces() -> Iterator[str]:
        from compiler.core.write import batches

        neutraliser = Neutraliser()
        made = content()
        if isinstance(made, str):
            yield neutraliser(made)
            return
        for batch in batches(made):
            yield neutraliser(batch)

    return pieces
