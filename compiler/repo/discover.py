"""Which files of a folder are plans: what `check DIR` checks, and what the pre-commit hook matches.

A plan file is named ``plan.yaml`` or ``NAME.plan.yaml``, or the same in ``.yml`` or ``.json``:
``PLAN_FILES`` says so once, and ``.pre-commit-hooks.yaml`` repeats it as the hook's ``files:``
(tests/repo/test_discover.py holds the two equal), so that `check DIR` and the hook see the same files.

The folder is walked as it is on disk, without running git and without reading git's index or
``.gitignore`` (a parser of either, done right, is larger than the rest of this module): an
untracked plan under DIR is checked too. Skipped on the way: version-control and tool folders
(``SKIPPED_FOLDERS``) and any folder holding a ``pyvenv.cfg`` (a virtual environment, whatever its
name). Symlinks, to files and to folders, are never followed: a plan linked from inside the tree
is found under its own name, and a link planted to lead out of the tree (to ``/etc``, to ``~``)
is never opened, so no message can show a line of another file. The walk is iterative, breadth
first, and sees at most ``MAX_ENTRIES`` files and folders: past that it stops and says so rather
than check part of a tree.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable
from typing import NamedTuple

from compiler.core.diagnostics import Diagnostic, Location
from compiler.core.lazy import lazy

PLAN_FILES = r"(^|/)([^/]+\.)?plan\.(ya?ml|json)$"
"""The names of plan files, as a regular expression searched in a POSIX path relative to the
folder (pre-commit searches the hook's ``files:`` the same way, in paths relative to the
repository)."""

_PLAN_FILES = lazy(PLAN_FILES)

SKIPPED_FOLDERS = frozenset({
    ".git", ".hg", ".svn",  # version control: git's objects and the like are never plans
    "node_modules", ".venv", "venv", ".tox", ".nox", ".eggs",  # installed, vendored code
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",  # caches
})
"""Folders never searched for plans. ``build`` and ``dist`` are searched: they are ordinary names
for folders of one's own, and the compiler's artifacts (``evidence-plan.json``) are not plan
files."""

MAX_ENTRIES = 100_000
"""Files and folders one walk may see (skipped folders' contents are not seen): under a second
(measured: 72,000 entries of /usr/lib in 0.8 s with a warm cache, 2 s cold, 10-30 us an entry)."""

NAMES = "plan.yaml, NAME.plan.yaml, or the same in .yml or .json"


class Found(NamedTuple):
    """What the paths given to `check` stand for: the files to check, and a diagnostic for each
    folder that cannot stand for any (exit 2)."""

    files: list[str]
    problems: list[Diagnostic]


def is_plan_file(path: str) -> bool:
    """Whether a path (relative, POSIX) is named like a plan file."""
    return _PLAN_FILES().search(path) is not None


def expand(paths: Iterable[str], *, max_entries: int = MAX_ENTRIES) -> Found:
    """Each folder among ``paths`` replaced by the plan files under it; files (and ``-``) kept as
    given, whatever their names: a file named on the command line is checked. A file reached
    twice is checked once."""
    files: dict[str, None] = {}
    problems: list[Diagnostic] = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):  # a file, or what load will say is missing
            files.setdefault(path, None)
            continue
        found = find_plans(path, max_entries=max_entries)
        if isinstance(found, Diagnostic):
            problems.append(found)
        else:
            for name in found:
                files.setdefault(name, None)
    return Found(list(files), problems)


def find_plans(folder: str, *, max_entries: int = MAX_ENTRIES) -> list[str] | Diagnostic:
    """The plan files under ``folder``, as paths that start with ``folder`` as given (none for
    ``.``), in a stable order (by folder, then name); or the diagnostic that says why there are
    none to check: the folder holds no plan file, cannot be listed, or is too large to walk."""
    from compiler.core.display import escape_surrogates

    found = tree_files(folder, max_entries=max_entries, wanted=is_plan_file, purpose="searched for plans")
    if isinstance(found, Diagnostic) or found:
        return found
    return Diagnostic("EP001", f"is a folder that holds no plan files ({NAMES})",
                      location=Location(escape_surrogates(folder)),
                      hint="name the plans so, or give their paths (not searched: symlinks, .git,"
                           " node_modules, virtual environments and tool caches)")


def tree_files(folder: str, *, max_entries: int = MAX_ENTRIES, wanted: Callable[[str], bool] = lambda rel: True,
               purpose: str = "searched", hint: str = "give the folder that holds the plans, or the plans' paths",
               ) -> list[str] | Diagnostic:
    """The files under ``folder`` that ``wanted`` takes (given their POSIX path relative to it),
    as paths that start with ``folder`` as given (none for ``.``), by folder, then name: walked as
    the module's docstring says. Or the diagnostic that says why not: the folder cannot be listed,
    or holds more than ``max_entries`` files and folders."""
    from compiler.core.display import escape_surrogates

    name = escape_surrogates(folder)
    prefix = "" if os.path.normpath(folder) == "." else folder.rstrip("/" + os.sep) + "/"
    found: list[tuple[tuple[str, ...], str]] = []
    queue: deque[tuple[str, ...]] = deque([()])
    seen = 0
    while queue:
        parts = queue.popleft()
        try:
            with os.scandir(os.path.join(folder, *parts)) as listing:
                entries = []
                for entry in listing:
                    entries.append(entry)
                    if seen + len(entries) > max_entries:
                        return Diagnostic(
                            "EP007", f"holds more than {max_entries:,} files and folders: not {purpose}",
                            location=Location(name), hint=hint)
        except OSError as err:
            if not parts:
                return Diagnostic("EP001", f"cannot list the folder: {err.strerror or err}", location=Location(name))
            continue  # as os.walk: a subfolder that cannot be listed is passed over
        seen += len(entries)
        if any(entry.name == "pyvenv.cfg" for entry in entries) and parts:
            continue  # a virtual environment: its site-packages are other people's files
        for entry in entries:
            try:
                if entry.is_symlink():
                    continue  # never followed: see the module's docstring
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_FOLDERS:
                        queue.append((*parts, entry.name))
                    continue
            except OSError:
                continue
            if wanted("/".join((*parts, entry.name))):
                found.append((parts, entry.name))
    found.sort()
    return [prefix + "/".join((*parts, file)) for parts, file in found]
