"""Path helpers shared by evidence, emit and render: relative, POSIX, the same on every machine."""

from __future__ import annotations

import os
import posixpath


def open_flag(name: str) -> int:
    """The ``os.O_*`` flag of that name, or 0 where the platform has none (most are POSIX only)."""
    value: int = getattr(os, name, 0)
    return value


# How a file is opened to be read, plan or evidence: without blocking (a FIFO swapped in opens at
# once instead of waiting for a writer, and a read that would wait raises), never as a controlling
# terminal, in binary. Evidence adds O_NOFOLLOW: its path was resolved already.
READ_FLAGS = os.O_RDONLY | open_flag("O_NONBLOCK") | open_flag("O_NOCTTY") | open_flag("O_BINARY")


def relative_posix(target: str | os.PathLike[str], start: str | os.PathLike[str]) -> str:
    """``target`` relative to folder ``start``, with forward slashes."""
    rel = os.path.relpath(os.path.abspath(target), os.path.abspath(start))
    return rel.replace(os.sep, "/") if os.sep != "/" else rel  # relpath's result is normal already


def suffix(path: str) -> str:
    """A file name's extension, as pathlib's ``PurePosixPath(path).suffix`` gives it (``.json``;
    ``""`` for ``.hidden``, ``name.`` or none), without importing pathlib: ``check`` starts faster
    without it (and the urllib.parse and ipaddress it imports)."""
    parts = [part for part in path.split("/") if part and part != "."]  # as pathlib parses it: ".." stays
    name = parts[-1] if parts else ""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def is_absolute(path: str) -> bool:
    """An absolute path on any system: ``/x``, ``\\x``, ``C:\\x`` or ``C:/x``."""
    return path.startswith(("/", "\\")) or (len(path) > 2 and path[0].isascii() and path[0].isalpha()
                                            and path[1] == ":" and path[2] in "\\/")


def leaves_root(path: str) -> bool:
    """Whether a path relative to a root names something outside it, judged from its text:
    absolute, or climbing out with ``..``."""
    if is_absolute(path):
        return True
    normal = posixpath.normpath(path.replace("\\", "/"))
    return normal == ".." or normal.startswith("../")


def inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def work_tree(folder: str) -> str | None:
    """The git work tree that holds ``folder``: the nearest folder at or above it with a ``.git``
    entry (a folder, or the file of a linked work tree), found without running git."""
    probe = folder
    while True:
        if os.path.lexists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent
