"""Writing output files, atomically and as a set, where compiler.core.targets allows.

- A regular file (or none yet) is written to a temporary file beside it, then renamed over it, so
  a reader never sees half a file. A character device or a FIFO is written into: opened without
  blocking first, so that a FIFO with no reader is an error, not a hang.
- Several files (compile's JSON and Markdown) are written as a set: every target is checked and
  every text written to its temporary file before any is renamed, and a rename that fails puts
  back the files renamed before it (from a hard link of each old file, kept from before, or a
  copy where linking fails), so the set is replaced whole or not at all.
- A file being rewritten (``fix`` and ``approve`` edit a plan in place) is compared with what
  was read, byte for byte, after the new text is written beside it and right before the rename:
  if another program changed it meanwhile, nothing is replaced. The rename itself follows the
  compare without a lock, so a write in between those two steps (microseconds) is still lost.
- Temporary files (and those backups) are named ``.NAME.PID.XXXXXXXX.tmp`` (``.bak``): each write
  removes those a dead writer (a killed process) left for the same name, and leaves those of live
  writers alone (pre-commit may run several at once).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping

from compiler.core.paths import open_flag
from compiler.core.targets import (
    ELSEWHERE,
    NOTHING_REPLACED,
    NOTHING_WRITTEN,
    Target,
    check_targets,
    not_a_folder,
    refuse,
)
from compiler.core.targets import WriteError as WriteError  # raised by every function here

# A page is made, shown and written in pieces of about this many characters: never held whole,
# and its template's many small fragments not written one by one.
PIECE = 1 << 20
WRITE_CHUNK = PIECE  # characters written at a time
# What is written: a text, or its pieces in order (made as they are written, so that a large
# text is never held whole); a file's content may be a function that makes either.
Text = str | Iterable[str]
Content = str | Callable[[], Text]


def batches(fragments: Iterable[str], size: int = PIECE) -> Iterator[str]:
    """Small fragments joined, in order, into pieces of about ``size`` characters."""
    batch: list[str] = []
    held = 0
    for fragment in fragments:
        batch.append(fragment)
        held += len(fragment)
        if held >= size:
            yield "".join(batch)
            batch, held = [], 0
    if batch:
        yield "".join(batch)
BOM = b"\xef\xbb\xbf"


# --- stale temporary files ------------------------------------------------------------------------


def _running(pid: int) -> bool:
    """Whether process ``pid`` may still be writing (when unsure: yes)."""
    if pid <= 0 or os.name == "nt":  # signal 0 means something else on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process (EPERM), or no pid at all
        return True
    return True


def remove_stale(real: str) -> list[str]:
    """Remove the temporary files and backups that dead writers left for ``real``; the paths
    removed. Best effort: what cannot be listed or removed stays."""
    folder, name = os.path.split(real)
    pattern = re.compile(rf"\.{re.escape(name)}\.([0-9]+)\.[^.]+\.(?:tmp|bak)")
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None or _running(int(match.group(1))):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(entry.path)
    return removed


# --- writing --------------------------------------------------------------------------------------


def _write_text(handle_fd: int, text: Text, *, sync: bool) -> None:
    with os.fdopen(handle_fd, "w", encoding="utf-8", newline="\n") as handle:
        # In slices: a text file encodes what it is given in one piece, and a whole large
        # plan's Markdown would be copied once more, as bytes, at the peak.
        for piece in (text,) if isinstance(text, str) else text:
            for start in range(0, len(piece), WRITE_CHUNK):
                handle.write(piece[start:start + WRITE_CHUNK])
        handle.flush()
        if sync:
            os.fsync(handle.fileno())


def _open_stream(target: Target) -> int:
    """A character device or FIFO opened for writing, without blocking on a FIFO that has no
    reader (ENXIO, then an error), and blocking once open. Never created, never truncated."""
    flags = os.O_WRONLY | open_flag("O_NONBLOCK") | open_flag("O_NOCTTY") | open_flag("O_CLOEXEC")
    if not target.link:
        flags |= open_flag("O_NOFOLLOW")  # what was checked is what is opened
    try:
        fd = os.open(target.real, flags)
    except OSError as err:
        fifo = err.errno == errno.ENXIO and _is_fifo(target.real)
        message = "it is a FIFO with no reader" if fifo else err.strerror or str(err)
        hint = "start its reader first, or write to a file" if fifo else ELSEWHERE
        raise refuse(target.path, message, hint, err.errno) from None
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
            raise refuse(target.path, "it changed while it was opened", "try again")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_fifo(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _temporary(real: str, suffix: str) -> tuple[int, str]:
    folder, name = os.path.split(real)
    return tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=suffix, dir=folder or ".")


def _backup(real: str) -> str | None:
    """A second name for ``real``'s current file, so that it can be put back after a rename over
    it: a hard link (no copy, and the old file stays where it is), else a copy. None when there is
    no file to keep."""
    folder, name = os.path.split(real)
    while True:
        backup = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.bak")
        try:
            os.link(real, backup, follow_symlinks=False)
        except FileExistsError:
            continue
        except FileNotFoundError:
            return None
        except (OSError, NotImplementedError):
            break  # no hard links here (or not permitted, or no linkat): copy
        return backup
    fd, backup = _temporary(real, ".bak")
    try:
        with os.fdopen(fd, "wb") as out, open(real, "rb") as old:
            shutil.copyfileobj(old, out)
        shutil.copymode(real, backup)
    except FileNotFoundError:
        _unlink(backup)
        return None
    except BaseException:
        _unlink(backup)
        raise
    return backup


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write one file (see write_all_atomic): readers never see half a file, and a failure leaves
    the previous file as it was."""
    write_all_atomic({path: text})


def write_all_atomic(files: Mapping[str | os.PathLike[str], Content],
                     mode: int | None = None, *, make_folders: bool = False, inputs: Iterable[str] = (),
                     expect: Mapping[str, bytes] | None = None) -> None:
    """Write several files as a set, by the rules of this module's docstring: all are replaced or
    none is. Raises WriteError (an OSError) saying which file failed and in what state it left
    each; any other exception (a text that fails to be made) leaves every file as it was.

    ``mode`` (e.g. a rewritten file's own) replaces the default permissions of new files;
    ``make_folders`` creates missing folders on the way. A file's text may be given as a function
    that makes it (or its pieces): it is then made just before it is written and dropped after,
    so that a large plan's JSON and Markdown are never held at once. ``inputs`` are the files the
    command read (``-``: standard input), never written over under any name; ``expect`` maps a
    file (as named in ``files``) to the bytes it must still hold right before it is replaced."""
    targets = check_targets(files, inputs)
    contents = list(files.values())
    if make_folders:
        for target in targets:
            _make_folder(target)
    umask = os.umask(0)
    os.umask(umask)
    streams: dict[int, int] = {}
    temporaries: dict[int, str] = {}
    try:
        for n, target in enumerate(targets):
            if target.kind == "stream":
                streams[n] = _open_stream(target)
        for n, target in enumerate(targets):
            if target.kind == "file":
                remove_stale(target.real)
                temporaries[n] = _write_temporary(target, contents[n], mode, umask)
        for target in targets:  # last, right before the renames: what was read is still there
            if expect is not None and target.path in expect:
                _still_holds(target, expect[target.path])
        for n in list(streams):
            text = _text(contents[n])
            _write_stream(targets[n], streams.pop(n), text)
            del text
        _replace_all(targets, temporaries, written=[t.path for t in targets if t.kind == "stream"])
    finally:
        for fd in streams.values():
            os.close(fd)
        for temporary in temporaries.values():
            _unlink(temporary)


def write_new(path: str | os.PathLike[str], text: str, *, hint: str) -> None:
    """Create a file that does not exist, never over anything: the text is written to a temporary
    file beside it, which is then linked under the name (the kernel refuses a name that exists, so
    nothing that appeared meanwhile is replaced; a reader never sees half the file). Where hard
    links are not permitted, the name is created empty and exclusively, then replaced whole.
    Raises WriteError: ``hint`` says what to do when the name is taken."""
    name = os.fspath(path)
    taken = refuse(name, "it exists, and is never written over", hint)
    if os.path.lexists(name):
        raise taken
    (target,) = check_targets([name])  # the folders on the way, by the rules of writing
    if target.kind != "file":
        raise taken
    folder = os.path.dirname(target.real)
    if folder and not os.path.isdir(folder):
        raise refuse(name, f"its folder {os.path.dirname(name) or folder} does not exist",
                     "make the folder first, or write elsewhere")
    umask = os.umask(0)
    os.umask(umask)
    temporary = _write_temporary(target, text, None, umask)
    try:
        try:
            os.link(temporary, target.real, follow_symlinks=False)
        except FileExistsError:
            raise taken from None
        except (OSError, NotImplementedError):  # no hard links here: take the name, then fill it
            try:
                os.close(os.open(target.real, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                os.replace(temporary, target.real)
            except FileExistsError:
                raise taken from None
            except OSError as err:
                raise _failed(name, err) from None
    finally:
        _unlink(temporary)


def _still_holds(target: Target, expected: bytes) -> None:
    """Raise WriteError unless the file ``target`` leads to holds ``expected``, byte for byte (read
    up to one byte more, so that a file grown huge meanwhile is not read whole)."""
    try:
        with open(target.real, "rb") as handle:
            now = handle.read(len(expected) + 1)
    except OSError:
        now = None
    if now != expected:
        raise WriteError(target.path, "cannot write: it changed after it was read",
                         f"{NOTHING_WRITTEN}; run the command again on the file as it is now")


def _make_folder(target: Target) -> None:
    folder = os.path.dirname(target.real)
    if not folder:
        return
    try:
        os.makedirs(folder, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise not_a_folder(target.real) from None
    except OSError as err:
        raise WriteError(folder, f"cannot make the folder: {err.strerror or err}",
                         f"{NOTHING_WRITTEN}; check the output folder", err.errno) from None


def _write_temporary(target: Target, content: Content, mode: int | None, umask: int) -> str:
    text = _text(content)
    try:
        fd, temporary = _temporary(target.real, ".tmp")
    except OSError as err:
        raise _failed(target.path, err) from None
    try:
        _write_text(fd, text, sync=True)
        os.chmod(temporary, mode if mode is not None else 0o666 & ~umask)
    except OSError as err:
        _unlink(temporary)
        raise _failed(target.path, err) from None
    except BaseException:
        _unlink(temporary)
        raise
    return temporary


def _text(content: Content) -> Text:
    return content() if callable(content) else content


def _write_stream(target: Target, fd: int, text: Text) -> None:
    try:
        _write_text(fd, text, sync=False)
    except OSError as err:  # a reader that left, a full device
        raise WriteError(target.path, f"cannot write: {err.strerror or err}",
                         f"{NOTHING_REPLACED}; being a device or FIFO, it may have received part of the text",
                         err.errno) from None


def _failed(path: str, err: OSError) -> WriteError:
    return WriteError(path, f"cannot write: {err.strerror or err}", f"{NOTHING_REPLACED}; check the output folder",
                      err.errno)


def _replace_all(targets: list[Target], temporaries: dict[int, str], written: list[str]) -> None:
    """Rename each temporary file over its target; if one rename fails, put back the ones done.
    ``temporaries`` loses each entry as it is renamed (what is left is for the caller to remove)."""
    order = list(temporaries)
    backups: dict[int, str | None] = {}
    try:
        for n in order:  # every old file kept before any is replaced
            try:
                backups[n] = _backup(targets[n].real)
            except OSError as err:
                raise WriteError(targets[n].path, f"cannot keep a copy of the old file: {err.strerror or err}",
                                 f"{NOTHING_REPLACED}; check the output folder", err.errno) from None
        done: list[int] = []
        for n in order:
            try:
                os.replace(temporaries[n], targets[n].real)
            except OSError as err:
                raise _rolled_back(targets, order, done, backups, err, written) from None
            del temporaries[n]
            done.append(n)
    finally:
        for backup in backups.values():
            if backup is not None:
                _unlink(backup)


def _rolled_back(targets: list[Target], order: list[int], done: list[int], backups: dict[int, str | None],
                 err: OSError, written: list[str]) -> WriteError:
    """Put back the files renamed before the one that failed; the error that says what state each
    file is in. A backup that could not be put back is kept (``backups`` forgets it)."""
    failed = order[len(done)]
    undone: list[str] = []  # what was put back, file by file
    kept: list[str] = []  # files left new, each with where its old text is
    for n in reversed(done):
        path, backup = targets[n].path, backups[n]
        backups[n] = None  # consumed by the rename back, or kept for the user
        try:
            if backup is None:
                os.unlink(targets[n].real)  # it did not exist before
            else:
                os.replace(backup, targets[n].real)
        except OSError as undo:
            why = undo.strerror or undo
            kept.append(f"{path} is the NEW file (removing it failed: {why}; it did not exist before)" if backup is None
                        else f"{path} is the NEW file (putting back the old one failed: {why}; its old text is in "
                             f"{backup} until the next write)")
        else:
            undone.append(f"{path} put back as it was" if backup is not None else f"{path} removed (it was new)")
    message = f"cannot write: {err.strerror or err}"
    streams = f"; {', '.join(written)} (a device or FIFO) got the new text" if written else ""
    if kept:
        left = [targets[n].path for n in order if n not in done]
        state = "; ".join([*kept, *undone, f"{', '.join(left)}: unchanged"])
        return WriteError(targets[failed].path, message, f"NOT all files are as before: {state}{streams}", err.errno)
    again = f" ({'; '.join(undone)})" if undone else ""
    return WriteError(targets[failed].path, message,
                      f"{NOTHING_REPLACED}{again}{streams}; check the output folder", err.errno)


def rewrite(path: str, text: str, original: str | None = None) -> None:
    """Replace a file's text as the file it is: through a symlink to the real file (where the
    module's rule allows), with its permissions, and with its UTF-8 byte-order mark if it had one.
    ``original`` is the text the new one was made from, as it was read: the file must still hold
    it (with that byte-order mark) right before it is replaced, else WriteError, nothing written."""
    (target,) = check_targets([path])
    if target.kind != "file":
        raise refuse(path, "it is not a regular file", ELSEWHERE)
    try:
        with open(target.real, "rb") as handle:
            bom = handle.read(3) == BOM
        mode = stat.S_IMODE(os.stat(target.real).st_mode)
    except OSError as err:
        raise refuse(path, err.strerror or str(err), "check the file", err.errno) from None
    expect = None
    if original is not None:
        expect = {target.real: (BOM if bom else b"") + original.encode("utf-8", "surrogatepass")}
    write_all_atomic({target.real: ("\ufeff" if bom else "") + text}, mode, expect=expect)
