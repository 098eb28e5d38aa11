"""`verify`'s cache: an item is *up to date* when what its proof depends on hashes as it did at
its last pass, and then it is not run again; otherwise the reason it runs names what changed.

An item's inputs are its *parts*, each a name and a digest:

- ``proof``: the command itself;
- ``lines PATH:A-B`` (or ``PATH:A``): the lines an evidence entry cites (their pin, compiler/core/pins.py, as the
  compile resolved them), or ``file PATH`` for a cited file whose lines were not resolved;
- ``file PATH``: each file that the item's ``paths:`` or its proof's test targets (the files and
  folders a pytest or unittest command names, compiler/analysis/proofs.py) cover; past
  ``MAX_LISTED`` files, an entry is one part, ``files ENTRY``;
- ``after ID``: the key of each dependency (whose parts, in turn, are its inputs).

The key is the SHA-256 of the parts. A file that the plan neither cites nor lists is no input:
the cache trusts the plan to name what its proofs read (``--no-cache`` runs everything). Files are
read under the root only (a symlink out of it is an input named ``outside``, never read), regular
files only, and within ``MAX_FILES`` files and ``MAX_BYTES`` bytes a run: past either, an item's
inputs are not hashed and it always runs, saying so.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from compiler.core import globs
from compiler.core.paths import READ_FLAGS, inside, leaves_root

if TYPE_CHECKING:
    from compiler.compile.pipeline import CompileResult
    from compiler.model.values import Item

MAX_FILES = 100_000  # files hashed in one run
MAX_BYTES = 1 << 30  # bytes hashed in one run
MAX_LISTED = 50  # files of one paths: entry recorded each as a part; past it, the entry is one part
_DIGITS = 16  # hex digits of a file's digest kept in a part


class OverBudget(Exception):
    """The run's bound on files or bytes hashed was reached."""


class Hasher:
    """Digests of files under one root, each read at most once a run, within the run's bounds."""

    def __init__(self, root: str) -> None:
        from compiler.repo.discover import SKIPPED_FOLDERS

        self.root = os.path.realpath(root)
        self.skipped = SKIPPED_FOLDERS
        self.memo: dict[str, str] = {}
        self.files_left, self.bytes_left = MAX_FILES, MAX_BYTES

    def file(self, rel: str) -> str:
        """The digest of a file (``missing``, ``outside``, ``folder``, ``special`` when there is none)."""
        got = self.memo.get(rel)
        if got is None:
            got = self.memo[rel] = self._digest(rel)
        return got

    def _digest(self, rel: str) -> str:
        if leaves_root(rel):
            return "outside"
        real = os.path.realpath(os.path.join(self.root, rel))
        if not inside(real, self.root):
            return "outside"
        try:
            fd = os.open(real, READ_FLAGS)
        except FileNotFoundError:
            return "missing"
        except OSError:
            return "unreadable"
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                return "folder"
            if not stat.S_ISREG(info.st_mode):
                return "special"
            self.files_left -= 1
            self.bytes_left -= info.st_size
            if self.files_left < 0 or self.bytes_left < 0:
                raise OverBudget
            digest = hashlib.sha256()
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
            return digest.hexdigest()[:_DIGITS]
        except OverBudget:
            raise
        except OSError:
            return "unreadable"
        finally:
            os.close(fd)

    def covered(self, text: str) -> dict[str, str]:
        """``paths:`` entry (or a proof's target) -> the parts of the files it covers, in path order."""
        glob = globs.parse(text)
        start = "/".join(glob.literal_prefix)
        top = self.file(start) if start else "folder"  # a pattern at any depth (**/*.py): the whole tree
        if top != "folder":
            return {f"file {start}": top} if globs.matches(glob, start) or top == "missing" else {}
        found = sorted(p for p in self._walk(start) if globs.matches(glob, p))
        parts = {f"file {p}": self.file(p) for p in found}
        if len(parts) <= MAX_LISTED:
            return parts
        whole = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:_DIGITS]
        return {f"files {text}": whole}

    def _walk(self, start: str) -> Iterable[str]:
        """Files under a folder (relative POSIX paths), breadth first, never into a symlinked or
        skipped folder; each entry seen counts against the run's bound."""
        queue = [start]
        while queue:
            folder = queue.pop()
            try:
                with os.scandir(os.path.join(self.root, folder) if folder else self.root) as listing:
                    entries = list(listing)
            except OSError:
                continue
            self.files_left -= len(entries)
            if self.files_left < 0:
                raise OverBudget
            for entry in entries:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in self.skipped:
                            queue.append(rel)
                        continue
                except OSError:
                    continue
                yield rel


def item_parts(result: CompileResult, items: Sequence[Item], hasher: Hasher) -> dict[str, dict[str, str] | None]:
    """id -> the item's parts but its dependencies' (``key`` adds those), or None when the run's
    bound was reached before its inputs were hashed (it runs, and says why)."""
    from compiler.analysis.proofs import targets_of

    out: dict[str, dict[str, str] | None] = {}
    over = False
    for item in items:
        if over:
            out[item.id] = None
            continue
        parts = {"proof": hashlib.sha256(item.proof.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGITS]}
        try:
            for j, ev in enumerate(item.evidence):
                if ev.path is None:
                    continue
                span = result.resolved.get((item.position, j))
                if span is not None:
                    lines = str(span[0]) if span[0] == span[1] else f"{span[0]}-{span[1]}"
                    parts[f"lines {ev.path}:{lines}"] = span[2]
                elif (got := hasher.file(ev.path)) != "folder":
                    parts[f"file {ev.path}"] = got
            entries = list(item.option("paths") or ()) if item.options and "paths" not in item.broken else []
            entries += [t.path for t in targets_of(item.proof) if t.path and not leaves_root(t.path)]
            for text in entries:
                if isinstance(text, str) and globs.problem(text) is None:
                    parts.update(hasher.covered(text))
        except OverBudget:
            over = True
            out[item.id] = None
            continue
        out[item.id] = parts
    return out


def key(whole: Mapping[str, str]) -> str:
    """The cache key of an item, from its parts with its dependencies' keys (``with_after``)."""
    return hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()


def with_after(parts: Mapping[str, str], after: Mapping[str, str]) -> dict[str, str]:
    """The parts as the receipts record them: with each dependency's key."""
    return {**parts, **{f"after {dep}": k for dep, k in after.items()}}


def why_run(before: Mapping[str, Any] | None, parts: Mapping[str, str], ran: set[str]) -> str:
    """Why an item whose key is not that of its last pass runs, in a few words: what changed since
    ``before`` (its last cache entry) first, then what became of it last time. ``ran``: the items
    that ran in this run (a dependency among them "ran"; otherwise its inputs changed)."""
    if before is None:
        return "never ran"
    last = str(before.get("result", ""))
    got = before.get("parts")
    old: Mapping[str, Any] = got if isinstance(got, dict) else {}
    changed = [n for n, d in parts.items() if old.get(n) != d]
    gone = [n for n in old if n not in parts]
    said = [_change(n, n in old, ran) for n in changed] + [f"{_label(n)} is no longer among its inputs" for n in gone]
    if not said:
        return "its inputs are as they were" if last in ("passed", "flaky") else f"{last.replace('-', ' ')} last time"
    more = f" (and {len(said) - 1:,} more)" if len(said) > 1 else ""
    since = f" since it {last.replace('-', ' ')}" if last not in ("passed", "flaky", "") else ""
    return said[0] + more + since


def _label(name: str) -> str:
    return name.split(" ", 1)[1] if " " in name else name


def _change(name: str, was: bool, ran: set[str]) -> str:
    if name == "proof":
        return "its proof changed"
    if name.startswith("after "):
        dep = name[6:]
        return f"depends on {dep}, which ran" if dep in ran else f"{dep}'s inputs changed"
    return f"{_label(name)} changed" if was else f"{_label(name)} is new among its inputs"
