"""Where a path given for writing leads, and whether it may be written: the rules of writing.

The compiler runs in CI, often as root, on plans from untrusted pull requests, which may plant
anything git can store (files, folders, symlinks) under an output's name. So each target is
decided before anything is written (compiler.core.write then writes):

- nothing there yet, or a regular file: replaced, through a temporary file and a rename;
- a character device or a FIFO (``/dev/null``, a pipe): written into, never replaced;
- a folder, a block device, a socket: refused;
- a symlink to a regular file: followed (the real file is replaced, the link kept) only when the
  real file is inside the git work tree that holds the link (found by walking up to a ``.git``),
  or, outside any work tree, inside the link's own folder, and never inside a ``.git`` folder. A
  pull request can change any file of its work tree anyway; it must not reach ``~/.bashrc``,
  ``/etc/passwd`` or ``.git/hooks`` through us. Never through this process's own descriptors
  (``/dev/stdout`` redirected to a file: ``-`` writes there);
- a symlink to a character device or a FIFO: written into when it is in that same work tree or
  folder, or is ``/dev/null``, ``/dev/zero``, ``/dev/full`` or a terminal, or is reached through
  this process's own descriptors (``/dev/stdout`` -> ``/proc/self/fd/1``); other devices refused;
- a symlink to anything else, a dangling symlink, a loop: refused.

The folders on the way are judged too, as the kernel follows them (``out/../x`` goes through
``out`` first): a folder that is a symlink inside a git work tree is followed only to a folder
inside that work tree, never into ``.git``; outside any work tree, folder links are the user's own
(``/tmp -> /private/tmp`` on macOS: no pull request planted them) and followed.

And a command never writes over what it reads: a target that is one of its inputs (the plan, the
compiled JSON; ``-`` for standard input) under any name, by hard link, symlink or another
spelling, is refused, compared by device and inode.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from collections.abc import Iterable
from typing import NamedTuple

from compiler.core.paths import inside, work_tree

NOTHING_WRITTEN = "nothing was written"
NOTHING_REPLACED = "nothing was replaced"


class WriteError(OSError):
    """A file could not be written as asked. ``filename`` is the path concerned (as given),
    ``strerror`` says what went wrong (``cannot write: ...``), and ``hint`` what state the files
    are in and what to do."""

    def __init__(self, path: str, message: str, hint: str, code: int | None = None) -> None:
        super().__init__(code, message, path)
        self.path = path
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class Target(NamedTuple):
    """Where a path given for writing leads, once checked."""

    path: str  # as given: what messages name
    real: str  # the file replaced, or the path opened for a stream
    kind: str  # "file" (replaced by a rename, existing or not) or "stream" (written into)
    link: bool  # reached through a symlink


def refuse(path: str, message: str, hint: str, code: int | None = None) -> WriteError:
    return WriteError(path, f"cannot write: {message}", f"{NOTHING_WRITTEN}; {hint}", code)


ELSEWHERE = "remove or rename what is there, or write elsewhere"


def _kind_of(path: str, mode: int, *, link: bool) -> str:
    """"file" or "stream" for what may be written; a refusal for the rest."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    what = ("a folder" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    lead = f"it is a symlink to {_show_target(path)}, which is" if link else "it is"
    hint = ELSEWHERE if stat.S_ISDIR(mode) else "write elsewhere"
    raise refuse(path, f"{lead} {what}",
                 f"only a regular file, a character device or a FIFO is written; {hint}{_stdout_hint(path)}",
                 errno.EISDIR if stat.S_ISDIR(mode) else None)


def _stdout_hint(path: str) -> str:
    """For /dev/stdout and its kin, when they lead to something not written (a socket, a file)."""
    return "; for standard output, give -" if os.path.abspath(path).startswith(("/dev/", "/proc/")) else ""


def _show_target(link: str) -> str:
    try:
        return os.path.realpath(link)
    except (OSError, ValueError):  # pragma: no cover - realpath is not strict
        return "?"


# Devices a link may lead to: sinks and terminals. Not others: opening /dev/watchdog arms it,
# writing to /dev/sg0 sends SCSI commands, and a pull request can plant a link to either.
_HARMLESS_DEVICES = re.compile(r"/dev/(?:null|zero|full|tty[0-9]*|console|pts/[0-9]+)")
# This process's own descriptors: /dev/stdout leads to /proc/self/fd/1, a pipe or a terminal.
_DESCRIPTOR = re.compile(r"/dev/std(?:out|err)|/dev/fd/[0-9]+|/proc/(self|thread-self|[0-9]+)/fd/[0-9]+")


def _own_descriptor(path: str) -> bool:
    """Whether the link at ``path`` leads through one of this process's open descriptors."""
    probe = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        match = _DESCRIPTOR.fullmatch(probe)
        if match is not None and match.group(1) in (None, "self", "thread-self", str(os.getpid())):
            return True
        try:
            probe = os.path.normpath(os.path.join(os.path.dirname(probe), os.readlink(probe)))
        except OSError:
            return False
    return False


def _through_link(path: str, folder: str) -> Target:
    """Where a symlink may be written through, by the rule in the module's docstring; ``folder``
    is the real folder that holds it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise refuse(path, f"it is a symlink to {_show_target(path)}, which does not exist",
                     f"a dangling link is never followed; {ELSEWHERE}", errno.ENOENT) from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise refuse(path, "it is a symlink loop", ELSEWHERE, errno.ELOOP) from None
        raise refuse(path, err.strerror or str(err), ELSEWHERE, err.errno) from None
    kind = _kind_of(path, mode, link=True)  # refuses folders, block devices and sockets
    real = os.path.realpath(path)
    tree = work_tree(folder)
    scope = tree if tree is not None else folder
    where = f"the git work tree {scope}" if tree is not None else f"the link's folder {scope}"
    if kind == "stream":
        if (inside(real, scope) or _own_descriptor(path)
                or (stat.S_ISCHR(mode) and _HARMLESS_DEVICES.fullmatch(real))):
            return Target(path=path, real=path, kind="stream", link=True)
        what = "a device" if stat.S_ISCHR(mode) else "a FIFO"
        raise refuse(path, f"it is a symlink to {real}, {what} outside {where}",
                     "through a symlink, only /dev/null, /dev/zero, /dev/full, a terminal, this process's own "
                     "output (/dev/stdout), or a device or FIFO within the link's work tree (else its folder) "
                     "is written", errno.EPERM)
    if _own_descriptor(path):  # /dev/stdout redirected to a file: replacing it would break `>>`
        raise refuse(path, f"it is a symlink to {real}, a file open as this process's own descriptor",
                     "for standard output, give -", errno.EPERM)
    leaves = _leaves(real, scope, where)
    if leaves is not None:
        raise refuse(path, f"it is a symlink to {real}, which {leaves}", FOLLOW, errno.EPERM)
    return Target(path=path, real=real, kind="file", link=True)


FOLLOW = ("a symlink is followed only within the git work tree that holds it (else its own folder), never into "
          ".git: remove the link, or write to the file itself")


def _leaves(real: str, scope: str, where: str) -> str | None:
    """Why a link to ``real`` may not be followed from ``scope`` (``where`` names it), or None."""
    if not inside(real, scope):
        return f"is outside {where}"
    if ".git" in (part.casefold() for part in os.path.relpath(real, scope).split(os.sep)):
        return "is inside a .git folder"
    return None


def _real_folder(path: str) -> str | None:
    """The real folder that holds ``path``, its folders' symlinks followed one by one as the kernel
    follows them (``..`` after a link climbs from where the link leads); a folder link inside a git
    work tree must lead inside it, never into .git (WriteError). None when a folder on the way is
    missing (then it is made later, as a real folder) or cannot be looked at (the write says why)."""
    folder = os.path.dirname(path)
    drive, rest = os.path.splitdrive(folder)
    absolute = os.path.isabs(folder)
    probe = os.path.join(drive, os.sep) if absolute else os.getcwd()
    given = os.path.join(drive, os.sep) if absolute else ""  # the folder as given, so far: what messages name
    for part in re.split(r"[\\/]" if os.altsep else "/", rest):
        if part in ("", "."):
            continue
        given = os.path.join(given, part)
        if part == "..":
            probe = os.path.dirname(probe)
            continue
        here = os.path.join(probe, part)
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return None
        if not stat.S_ISLNK(mode):
            probe = here
            continue
        real = os.path.realpath(here)
        tree = work_tree(probe)  # probe is real: so is the tree found above it
        leaves = None if tree is None else _leaves(real, tree, f"the git work tree {tree}")
        if leaves is not None:
            raise refuse(path, f"its folder {given} is a symlink to {real}, which {leaves}", FOLLOW, errno.EPERM)
        probe = real
    return probe


def not_a_folder(path: str) -> WriteError:
    """The refusal when a folder on ``path``'s way is something else: named where it is."""
    probe = os.path.dirname(path)
    while probe and not os.path.lexists(probe):
        probe = os.path.dirname(probe)
    where = probe or "."
    return WriteError(where, "not a folder", f"{NOTHING_WRITTEN}; write into a folder", errno.ENOTDIR)


def _resolve(path: str) -> Target:
    folder = _real_folder(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return Target(path=path, real=path, kind="file", link=False)
    except NotADirectoryError:
        raise not_a_folder(path) from None
    except OSError as err:
        raise refuse(path, err.strerror or str(err), ELSEWHERE, err.errno) from None
    if stat.S_ISLNK(mode):
        return _through_link(path, folder if folder is not None else os.path.realpath(os.path.dirname(path) or "."))
    return Target(path=path, real=path, kind=_kind_of(path, mode, link=False), link=False)


STDIN = "-"  # an input named so is standard input


def _identity(path: str) -> tuple[int, int] | None:
    """The device and inode of the regular file ``path`` is, after links; None for anything else."""
    try:
        info = os.fstat(sys.stdin.fileno()) if path == STDIN else os.stat(path)
    except (OSError, ValueError, AttributeError):  # gone, a name git reads (REV:path), no real stdin
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def check_targets(paths: Iterable[str | os.PathLike[str]], inputs: Iterable[str] = ()) -> list[Target]:
    """Every target resolved and checked, before anything is written: raises WriteError for the
    first that may not be written, that leads to the same file as an earlier one, or that is one
    of the ``inputs`` the command read (paths; ``-`` is standard input) under any name."""
    read: dict[tuple[int, int], str] = {}
    for source in inputs:
        identity = _identity(source)
        if identity is not None:
            read.setdefault(identity, "standard input" if source == STDIN else source)
    targets: list[Target] = []
    seen: dict[str, str] = {}
    for given in paths:
        target = _resolve(os.fspath(given))
        if target.kind == "file":
            key = os.path.normcase(os.path.abspath(target.real))
            if key in seen:
                raise refuse(target.path, f"it leads to {target.real}, which {seen[key]} writes too",
                             "give each output its own file")
            seen[key] = target.path
            identity = _identity(target.real) if read else None
            if identity in read:
                raise refuse(target.path, f"it is the same file as {read[identity]}, which this command reads",
                             "an input is never written over: write to another file (to repair a plan in place, "
                             "use evidence-plan fix)")
        targets.append(target)
    return targets
