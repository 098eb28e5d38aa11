"""What a cited file was when the plan was last committed, so that `fix` can carry a cited range
through the file's change since, as `git blame` carries lines: the range covers exactly the same
lines of code, moved whole, or it is not carried at all.

The plan's commit is the last one that touched the plan file, when the plan has no change since
(then every range it cites was written against that commit's files); a plan with uncommitted
changes, or outside git, has no history here, and `fix` falls back to a guess it applies only on
request (compiler/api/fix.py). Git runs as compiler/load/gitshow.py runs it: a local reader, no
network, no pager, textconv, filter or hook (plumbing: ``rev-parse``, ``cat-file``, ``log`` with a
fixed format), and a blob over ``MAX_BLOB_BYTES`` is not read.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence

from compiler.load.gitshow import GIT_TIMEOUT, command, environment

MAX_BLOB_BYTES = 4 * 1024 * 1024  # a larger cited file is not compared (difflib's cost grows with it)
MAX_LINES = 50_000


def git_output(cwd: str, *args: str) -> bytes | None:
    """git's standard output, run as every local reader runs it (no pager, no transport, nothing
    to read), or None when it fails or cannot run."""
    try:
        proc = subprocess.run(command(*args), cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT,
                              input=b"", env=environment(), check=False)  # an empty pipe: nothing to read
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def plan_commit(plan_path: str, text: bytes) -> str | None:
    """The commit that last touched the plan file, when ``text`` (the plan's bytes now) is what
    that commit has; None otherwise (changed since, never committed), or outside git. The bytes
    are compared here, not by `git status`, which may run the repository's filters."""
    folder, name = os.path.split(os.path.abspath(plan_path))
    said = git_output(folder, "-c", "log.showSignature=false", "log", "-1", "--format=%H", "--", name)
    commit = said.decode("ascii", "replace").strip() if said else ""
    if not commit:
        return None
    return commit if _blob(folder, f"{commit}:./{name}", len(text)) == text else None


def _blob(cwd: str, spec: str, most: int) -> bytes | None:
    """The blob ``spec`` names (``REV:./path``), read only when its size is at most ``most``
    bytes (asked first); None when it is larger, not there, or git fails."""
    size = git_output(cwd, "cat-file", "-s", spec)
    if size is None or not size.strip().isdigit() or int(size) > most:
        return None
    return git_output(cwd, "cat-file", "blob", spec)


class History:
    """The cited files as the plan's commit has them, read once each (None: not there, or too
    large). ``find_commit`` gives the plan's commit (``plan_commit``, kept by the caller once
    found), asked at the first read: a fix that carries no range runs no git. ``root`` is the
    repository root the plan's evidence paths are relative to."""

    def __init__(self, find_commit: Callable[[], str | None], root: str) -> None:
        self._find_commit = find_commit
        self.root = root
        self._lines: dict[str, list[str] | None] = {}

    @property
    def commit(self) -> str | None:
        return self._find_commit()

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._read(path) if self.commit else None
        return self._lines[path]

    def _read(self, path: str) -> list[str] | None:
        blob = _blob(self.root, f"{self.commit}:./{path}", MAX_BLOB_BYTES)
        if blob is None:
            return None
        lines = blob.decode("utf-8", "replace").splitlines()
        return lines if len(lines) <= MAX_LINES else None


def map_range(old: Sequence[str], new: Sequence[str], start: int, end: int) -> tuple[int, int] | None:
    """Lines ``start``-``end`` (1-based) of ``old``, in ``new``: shifted whole when every one of
    them is unchanged and they moved by one distance (within one block the two texts share, as
    difflib matches them); None when any of them changed, or the range was split."""
    from difflib import SequenceMatcher

    if not 1 <= start <= end <= len(old):
        return None
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        if a < start and end <= a + size:  # 0-based block [a, a + size) holds lines start-1 .. end-1
            delta = b - a
            return start + delta, end + delta
    return None
