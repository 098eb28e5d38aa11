"""Running one proof: the only place evidence-plan runs a command of the plan, and only for `verify`.

A proof runs as ``/bin/sh -c PROOF`` in the repository root, in a process group of its own
(``start_new_session``), with no standard input and a timeout. When the shell ends, or the time is
up, whatever is left of its group (a server it started, a ``sleep &``) is ended too: SIGTERM,
then SIGKILL after a grace period; the outcome says which signal ended the proof and whether any
process of the group survived. Output is read as it comes and kept bounded: the first and the last
``limit`` bytes of each stream, and its whole size.
"""

from __future__ import annotations

import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO, NamedTuple

SHELL = "/bin/sh"
TIMEOUT = 600.0  # seconds a proof may take (verify --timeout)
GRACE = 5.0  # seconds between SIGTERM and SIGKILL
KEPT = 32 * 1024  # bytes kept of each end of a stream
_CHUNK = 64 * 1024


class Captured(NamedTuple):
    """A stream's first and last bytes (decoded, invalid UTF-8 replaced) and its whole size."""

    head: str
    tail: str  # the last bytes after the head, when the stream was longer than the head ("" otherwise)
    size: int  # bytes written in all

    def to_dict(self) -> dict[str, object]:
        return {"head": self.head, "tail": self.tail, "size": self.size, "cut": self.size > len(self.head.encode())
                + len(self.tail.encode())}


class Outcome(NamedTuple):
    """How one proof ended."""

    exit_code: int | None  # the shell's exit status; None when a signal ended it
    signal: str | None  # SIGTERM, SIGKILL, ... when a signal ended it
    timed_out: bool
    leftovers: str | None  # the signal that ended what the proof left running after it exited (None: nothing)
    survivors: bool  # a process of its group was still alive after SIGKILL (reported, never hidden)
    started: str  # ISO 8601, UTC
    seconds: float
    stdout: Captured
    stderr: Captured

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class _Kept:
    """A stream's first and last ``kept`` bytes, and its size, as chunks come."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        room = self.kept - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.kept:  # trimmed now and then: linear in the output
                del self.tail[:-self.kept]

    def captured(self) -> Captured:
        tail = bytes(self.tail[-self.kept:])
        return Captured(self.head.decode("utf-8", "replace"), tail.decode("utf-8", "replace"), self.size)


class _Reader(threading.Thread):
    """Reads a pipe to its end into a ``_Kept`` (the path without a pidfd)."""

    def __init__(self, pipe: IO[bytes], kept: _Kept) -> None:
        super().__init__(daemon=True)
        self.pipe, self.kept = pipe, kept

    def run(self) -> None:
        while chunk := self.pipe.read1(_CHUNK) if hasattr(self.pipe, "read1") else self.pipe.read(_CHUNK):
            self.kept.add(chunk)
        self.pipe.close()


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is alive, not a zombie: signal 0 first (no process at
    all is the common case, answered at once), then, since a zombie answers it too, /proc where
    there is one."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of the group that is not ours: alive
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for pid in entries:
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # after "(comm)": state, ppid, pgrp, ...
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _end_group(pgid: int, grace: float) -> str | None:
    """SIGTERM to what is left of the group, then SIGKILL after ``grace``: the last signal sent."""
    if not group_alive(pgid):
        return None
    sent = None
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(pgid, sig)
            sent = sig.name
        except ProcessLookupError:
            return sent
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not group_alive(pgid):
                return sent
            time.sleep(0.02)
    return sent


def _pidfd(pid: int) -> int | None:
    """A pidfd of the process (Linux 5.3+), or None where there is none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _poll_until_ended(proc: subprocess.Popen[bytes], pidfd: int, timeout: float, streams: dict[int, _Kept]) -> bool:
    """Read both pipes as they fill and wait for the shell to end, in one poll loop of this thread
    (no reader threads, no polling with sleeps: woken the moment the shell ends or writes).
    Whether it ended within ``timeout``; the pipes still open are left in ``streams``."""
    poller = select.poll()
    for fd in (*streams, pidfd):
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ended = False
        for fd, _ in poller.poll(math.ceil(min(left, 86_400) * 1000)):
            if fd == pidfd:
                ended = True
            elif chunk := os.read(fd, _CHUNK):
                streams[fd].add(chunk)
            else:
                poller.unregister(fd)
                del streams[fd]
        if ended:
            return True


def _drain(streams: dict[int, _Kept], seconds: float) -> None:
    """Read what is left in the pipes to their end, for ``seconds`` at most (a survivor of SIGKILL
    could hold one open)."""
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + seconds
    while streams and (left := deadline - time.monotonic()) > 0:
        for fd, _ in poller.poll(math.ceil(left * 1000)):
            if chunk := os.read(fd, _CHUNK):
                streams[fd].add(chunk)
            else:
                poller.unregister(fd)
                del streams[fd]


def run_proof(command: str, cwd: str, *, timeout: float = TIMEOUT, grace: float = GRACE, kept: int = KEPT,
              started_hook: Callable[[int], None] | None = None) -> Outcome:
    """Run ``command`` as a proof (see the module's docstring). ``started_hook`` is given the
    process group's id as soon as it exists (so that Ctrl-C can end it)."""
    started = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    clock = time.monotonic()
    proc = subprocess.Popen([SHELL, "-c", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    pgid = proc.pid  # its own session, so its own group
    if started_hook is not None:
        started_hook(pgid)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Kept(kept), _Kept(kept)
    pidfd = _pidfd(proc.pid)
    if pidfd is not None:
        streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        try:
            timed_out = not _poll_until_ended(proc, pidfd, timeout, streams)
        finally:
            os.close(pidfd)
        if not timed_out:
            proc.wait()  # reaped before its group is looked at: a zombie leader makes the group look alive
        ended_by = _end_group(pgid, grace)  # the proof's leftovers, or the proof itself when it timed out
        _drain(streams, grace + 5)
        proc.stdout.close()
        proc.stderr.close()
    else:  # a reader thread per pipe, and Popen's wait
        readers = [_Reader(proc.stdout, out), _Reader(proc.stderr, err)]
        for reader in readers:
            reader.start()
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        ended_by = _end_group(pgid, grace)
        for reader in readers:
            reader.join(timeout=grace + 5)
    code = proc.wait()
    survivors = group_alive(pgid)
    seconds = round(time.monotonic() - clock, 3)
    killed = signal.Signals(-code).name if code < 0 else None
    return Outcome(exit_code=code if code >= 0 else None, signal=killed, timed_out=timed_out,
                   leftovers=None if timed_out else ended_by, survivors=survivors, started=started, seconds=seconds,
                   stdout=out.captured(), stderr=err.captured())
