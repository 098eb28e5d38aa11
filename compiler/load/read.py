"""A plan's text from its path or standard input: bounded, never blocking, UTF-8 only.

The file's size is checked before it is read (``Limits.max_bytes``); a FIFO, a device or a folder
is refused at once, and a symlink that leads out of the repository holding it is not read. What
cannot be read is EP001, EP005 or EP007, located at the file.
"""

from __future__ import annotations

from typing import Any, Literal

from compiler.core.display import escape_surrogates
from compiler.core.paths import suffix as file_suffix
from compiler.load.errors import input_error, with_excerpt
from compiler.load.limits import DEFAULT_LIMITS, Limits, too_large
from compiler.load.sourcemap import LineIndex

Format = Literal["yaml", "json"]

STDIN = "-"
STDIN_NAME = "<stdin>"
YAML_SUFFIXES = {".yaml", ".yml"}


def display_name(path: str) -> str:
    """A path as messages and artifacts name it: a name that is not UTF-8 reaches Python with
    lone surrogates for its raw bytes, which no UTF-8 output can hold; they become ``\\xNN``."""
    return escape_surrogates(path)


def read_text(path: str, *, stdin: Any = None, limits: Limits = DEFAULT_LIMITS) -> tuple[str, str]:
    """Return (display name, text). ``-`` reads standard input. Errors become EP001, EP005 or
    EP007; the size is checked before anything is read."""
    if path == STDIN:
        import sys

        name = STDIN_NAME
        if stdin is None and sys.stdin is None:  # started with standard input closed (<&-)
            raise input_error("EP001", "standard input is closed", name, hint="give the plan's path, or pipe it in")
        stream = stdin if stdin is not None else sys.stdin.buffer
        try:
            raw = stream.read(limits.max_bytes + 1)
        except OSError as err:
            raise input_error("EP001", f"cannot read standard input: {err.strerror or err}", name) from None
        if len(raw) > limits.max_bytes:
            raise too_large(name, limits)
    else:
        name = display_name(path)
        raw = _read_file(path, name, limits)
    if isinstance(raw, str):
        return name, raw
    return name, decode(raw, name)


def _read_file(path: str, name: str, limits: Limits) -> bytes:
    """The bytes of a plan file. Opened without blocking, and judged by the file it opened (a
    FIFO swapped in after a look at the path would block a plain open forever); a symlink that
    leads out of the repository holding it is refused before anything is read."""
    import os
    import stat

    from compiler.core.paths import READ_FLAGS, inside, work_tree

    real = os.path.realpath(path)
    if real != os.path.abspath(path):
        # The plan came from inside a repository (the pre-commit hook, a CI checkout): a link
        # out of it would show another file's first line in our messages.
        tree = work_tree(os.path.dirname(os.path.abspath(path)))
        if tree is not None and not inside(real, os.path.realpath(tree)):
            raise input_error("EP005", "is a symlink that leads outside the repository that holds it; it was not read",
                              name, hint="a plan in a repository is a file of that repository")
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError:
        raise input_error("EP001", "no such file", name, hint="check the path") from None
    except IsADirectoryError:
        raise input_error("EP001", "is a folder, not a plan file", name) from None
    except OSError as err:
        raise input_error("EP001", f"cannot read: {err.strerror or err}", name) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise input_error("EP001", "is a folder, not a plan file", name)
        if not stat.S_ISREG(info.st_mode):
            raise input_error("EP001", "is not a regular file", name, hint="give the plan's own path")
        if info.st_size > limits.max_bytes:
            raise too_large(name, limits)
        with os.fdopen(fd, "rb") as handle:
            fd = -1  # the file object closes it now
            # As much as the file holds, and one byte more to see it grew: asking for the limit
            # would allocate all of it (256 MiB) for any plan.
            raw = handle.read(info.st_size + 1)
            if raw is not None and len(raw) > info.st_size:  # it grew: read on, to the limit
                raw += handle.read(limits.max_bytes + 1 - len(raw)) or b""
    except BlockingIOError:  # a "regular" file that would block, such as /proc/kmsg
        raw = None
    except OSError as err:
        raise input_error("EP001", f"cannot read: {err.strerror or err}", name) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if raw is None:
        raise input_error("EP001", "cannot read: it would block", name)
    if len(raw) > limits.max_bytes:  # it grew while we looked
        raise too_large(name, limits)
    return raw


_OTHER_ENCODINGS = (
    (b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"),
)


def decode(raw: bytes, name: str) -> str:
    """UTF-8, with or without a byte-order mark. Anything else is EP001 with the place it breaks."""
    for bom, encoding in _OTHER_ENCODINGS:
        if raw.startswith(bom):
            raise input_error("EP001", f"the file is {encoding}, not UTF-8", name, (1, 1),
                              hint="save the plan as UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        text = raw[: err.start].decode("utf-8", errors="replace")
        pos = LineIndex(text).position(len(text))
        line_start = raw.rfind(b"\n", 0, err.start) + 1
        line_end = raw.find(b"\n", err.start)
        line = raw[line_start: line_end if line_end >= 0 else len(raw)].decode("utf-8", errors="replace")
        failure = input_error("EP001", f"not UTF-8 (byte 0x{raw[err.start]:02x})", name, pos,
                              hint="save the plan as UTF-8")
        raise with_excerpt(failure, "\n" * (pos[0] - 1) + line) from None


def detect_format(path: str, text: str) -> Format:
    suffix = file_suffix(path).lower() if path != STDIN else ""
    if suffix == ".json":
        return "json"
    if suffix in YAML_SUFFIXES:
        return "yaml"
    # Standard input, by content: JSON documents start with { or [ ; anything else is YAML.
    return "json" if text.lstrip()[:1] in ("{", "[") else "yaml"
