"""The one folder a long-running server may read and write: every path it is given is resolved
(symlinks too) and refused unless it lies inside, before anything opens it.

Files inside are then read as every command reads them (compiler/load/read.py, compiler/repo/files.py:
bounded, without blocking, a symlink leaving the repository refused again when opened) and written
as every command writes them (compiler/core/write.py, under the rules of compiler/core/targets.py).
"""

from __future__ import annotations

import os
import posixpath
from typing import NamedTuple

from compiler.core.display import clip
from compiler.core.paths import inside


class Refused(Exception):
    """A request the server will not carry out, in a sentence the caller (an agent) can act on."""


class Workspace(NamedTuple):
    """The root every path is resolved under (absolute and real: its own symlinks followed)."""

    root: str

    @classmethod
    def at(cls, folder: str) -> Workspace:
        """The workspace of ``folder``; Refused when it is not a folder."""
        if "\x00" in folder or not os.path.isdir(folder):
            raise Refused(f"the root {clip(folder)} is not a folder")
        return cls(os.path.realpath(folder))

    def path(self, given: str) -> str:
        """``given`` (relative to the root, or absolute) as the path to open: relative to the root
        when the working folder is the root (as the server makes it, so that messages name files
        as the repository does), else absolute. Refused when it is empty, holds a NUL, or it or
        what its symlinks lead to lies outside the root."""
        if not given.strip() or "\x00" in given:
            raise Refused("give a path: a file under the root, relative to it")
        joined = os.path.normpath(os.path.join(self.root, given))
        real = os.path.realpath(joined)
        if not (inside(joined, self.root) and inside(real, self.root)):
            lead = "" if real == joined else f" (it leads to {clip(real)})"
            raise Refused(f"{clip(given)} is outside the root {clip(self.root)}{lead}: this server reads and writes"
                          " only under it; give a path relative to the root")
        relative = os.path.relpath(joined, self.root)
        try:
            here = os.path.realpath(os.getcwd())
        except OSError:
            here = ""
        return relative if here == self.root else joined

    def revision_path(self, given: str) -> str:
        """A path of git history (read at some revision): judged by its text alone, as git reads a
        tree (no symlink of today's files applies), relative to the root."""
        if not given.strip() or "\x00" in given or os.path.isabs(given):
            raise Refused(f"{clip(given)}: give the plan's path at that revision relative to the root")
        normal = posixpath.normpath(given.replace(os.sep, "/"))
        if normal == ".." or normal.startswith("../"):
            raise Refused(f"{clip(given)} is outside the root {clip(self.root)}: this server reads only under it")
        return self.path(normal) if normal != "." else normal
