"""Reading one file of git history (`REV:path`) for `diff` and `graph`, with git run as a reader
of the local repository and nothing else:

- never the network: ``GIT_ALLOW_PROTOCOL`` set empty refuses every transport, and overrides the
  repository's own ``protocol.<name>.allow`` (which ``-c protocol.allow=never`` alone does not),
  so a partial clone cannot fetch a blob it lacks, nor run what its remote's settings name
  (``uploadpack``, ``core.sshCommand``, a credential helper, an ``ext::`` URL);
  ``GIT_NO_LAZY_FETCH=1`` says the same to a git that knows it (2.44 and later), and
  ``GIT_TERMINAL_PROMPT=0`` that nobody is there to ask. A blob the repository has not is EP001,
  "not in the local repository: fetch it first";
- never a command of the repository's settings: plumbing only (``rev-parse``, ``cat-file
  --batch``: no pager, textconv, filter or hook), ``core.fsmonitor`` off;
- never more than ``--max-bytes`` read: ``cat-file --batch`` gives the object's size in a header
  line before its content, so a larger blob is EP007 before any of it is read (git is stopped),
  and a blob within the limit is read to its size and no further.

Three steps, two of them on the way to a plan: ``rev-parse --verify`` names the object (reading
trees only, so that a blob a partial clone lacks is told apart from a path that does not exist),
``cat-file --batch`` reads it; a third, ``rev-parse`` without ``--verify``, only says why a name
did not resolve (``--verify`` says "Needed a single revision" whatever the reason).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError

if TYPE_CHECKING:
    from compiler.load.limits import Limits

# How long one git command may take before the read is abandoned (a huge repository, a slow disk).
GIT_TIMEOUT = 30
# An object id: SHA-1 or SHA-256, as rev-parse prints it.
_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
# cat-file's header line at most ("<oid> <type> <size>\n"): a longer one is no header.
_HEADER = 256
# What the missing blob of a partial clone makes git say (the lazy fetch it was refused).
_NOT_LOCAL = ("could not fetch", "promisor", "not allowed")
NOT_LOCAL = "cannot read it from git history: not in the local repository: fetch it first"
HISTORY_HINT = ("REV:path reads path (from the repository's top; REV:./path from the working folder) as it was at "
                "REV; `diff --base REV PLAN` and `graph --rev REV PLAN` read PLAN (from the working folder) so")


def command(*args: str) -> list[str]:
    """A git command as every read here runs it: no pager, no fsmonitor, no transport."""
    return ["git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "protocol.allow=never", *args]


def environment() -> dict[str, str]:
    """The environment git runs in: the user's, with every transport refused (see the docstring)."""
    return {**os.environ, "GIT_ALLOW_PROTOCOL": "", "GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0"}


def revision_problem(rev: str) -> str | None:
    """Why ``rev`` cannot be the revision of ``--base`` / ``--rev``, or None when it can: git would
    read ``-x`` as an option of its own, a ``:`` would move where the path starts, and a NUL or a
    line break is no revision."""
    if not rev:
        return "the revision is empty"
    if rev.startswith("-"):
        return f"a revision cannot start with -: {rev!r}"
    if any(c in rev for c in ":\x00\n\r"):
        return f"a revision has no ':', NUL or line break: {rev!r}"
    return None


def at_revision(rev: str, path: str) -> str:
    """``REV:./path``: ``path`` (from the working folder, as a file argument is) as it was at
    ``rev``. git reads ``./`` and ``../`` from the working folder; an absolute path is made
    relative to it."""
    relative = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    relative = relative.replace(os.sep, "/")
    return f"{rev}:{relative if relative.startswith('../') or relative == '..' else './' + relative}"


def from_working_folder(path: str) -> str:
    """``path``, from the repository's top as ``REV:path`` has it, from the working folder (as
    ``--base`` and ``--rev`` take it); as it is when git cannot say where the top is."""
    if path.startswith(("./", "../")):
        return path
    try:
        top = _run("rev-parse", "--show-toplevel")
    except (OSError, subprocess.TimeoutExpired):
        return path
    if top.returncode != 0 or not top.stdout.strip():
        return path
    try:
        return os.path.relpath(os.path.join(os.fsdecode(top.stdout.rstrip(b"\n")), path))
    except ValueError:  # another drive (Windows)
        return path


def _run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command(*args), capture_output=True, timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL,
                          env=environment(), check=False)


def _name(spec: str) -> tuple[str | None, bytes]:
    """The object id ``spec`` (``REV:path``) names in the local repository (None when it names
    none), and what git said. Reads trees only: the blob itself need not be there. Raises
    FileNotFoundError (no git) and subprocess.TimeoutExpired."""
    done = _run("rev-parse", "--verify", "--quiet", spec)
    oid = done.stdout.decode("ascii", "replace").strip()
    return (oid if done.returncode == 0 and _OID.fullmatch(oid) else None), done.stderr


def _not_local(said: bytes) -> bool:
    """Whether git failed for want of objects the clone has not (a partial clone's lazy fetch,
    refused)."""
    text = said.decode("utf-8", "replace")
    return any(word in text for word in _NOT_LOCAL)


def in_history(spec: str) -> bool | None:
    """Whether ``spec`` (``REV:path``) names an object of the local repository: True, False (no
    git, no repository, no such revision or path), or None when the clone has not the trees to
    tell (a partial clone's)."""
    try:
        oid, said = _name(spec)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return True if oid is not None else None if _not_local(said) else False


def git_reason(said: bytes) -> str | None:
    """git's own words: its "fatal:" line (what follows it is advice), else its last line."""
    lines = said.decode("utf-8", "replace").strip().splitlines()
    fatal = [line for line in lines if line.startswith("fatal: ")]
    return (fatal[0] if fatal else lines[-1]).removeprefix("fatal: ") if lines else None


def read_blob(spec: str, limits: Limits) -> bytes:
    """The bytes of the file ``spec`` (``REV:path``) names in the local repository's history.
    Raises PlanInputError located at ``spec``: EP001 when git is missing, the folder is no git
    repository, the revision or path is unknown, it is no file, or the repository has not the
    blob (nothing is fetched); EP007 when it is larger than ``limits.max_bytes``, before it is read."""

    def fail(message: str, hint: str | None = None, code: str = "EP001") -> PlanInputError:
        return PlanInputError(Diagnostic(code, message, location=Location(spec), hint=hint))

    try:
        oid, said = _name(spec)
        if oid is None:
            if _not_local(said):  # the trees on the way to it are not in the clone
                raise fail(NOT_LOCAL, _fetch_hint(spec))
            why = _run("rev-parse", spec)  # --verify says only "Needed a single revision"
            reason = git_reason(why.stderr) or git_reason(said) or "unknown revision or path"
            hint = ("run it inside the git repository" if "not a git repository" in reason else
                    "git refuses a repository another user owns: mark it safe (git config --global --add"
                    " safe.directory DIR) if you trust it" if "dubious ownership" in reason else HISTORY_HINT)
            raise fail(f"cannot read it from git history: {reason}", hint)
    except FileNotFoundError:
        raise fail("cannot read it from git history: git is not installed", "install git, or give a file") from None
    except subprocess.TimeoutExpired:
        raise fail(f"git took longer than {GIT_TIMEOUT} s") from None
    return _read_object(oid, spec, limits, fail)


def _fetch_hint(spec: str) -> str:
    import shlex

    return (f"evidence-plan never fetches (a partial clone lacks the objects it has not needed yet): `git cat-file -p"
            f" {shlex.quote(spec)} >/dev/null` has git fetch them, or clone without --filter")


def _read_object(oid: str, spec: str, limits: Limits, fail: Callable[..., PlanInputError]) -> bytes:
    """The content of blob ``oid`` by ``git cat-file --batch``: its header first (type and
    size), then at most ``limits.max_bytes`` of content, read only when the size is within it."""
    import tempfile
    import threading

    expired: list[bool] = []
    # stderr to a file: git cannot block on a pipe nobody reads while the content is awaited.
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(command("cat-file", "--batch"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errors, env=environment())
        assert proc.stdin is not None and proc.stdout is not None

        def stop() -> None:
            expired.append(True)
            proc.kill()

        timer = threading.Timer(GIT_TIMEOUT, stop)
        timer.start()
        try:
            try:
                proc.stdin.write(oid.encode("ascii") + b"\n")
                proc.stdin.close()
            except OSError:  # git is gone already: its stderr says why
                pass
            header = proc.stdout.readline(_HEADER).split()
            if len(header) == 3 and header[2].isdigit():
                kind, size = header[1].decode("ascii", "replace"), int(header[2])
                if kind != "blob":
                    what = {"tree": "a folder", "commit": "a submodule"}.get(kind, f"a {kind}")
                    raise fail(f"cannot read it from git history: {what} there, not a file", HISTORY_HINT)
                if size > limits.max_bytes:  # its content is never read
                    raise fail(f"larger than {limits.max_bytes:,} bytes ({size:,} in git history)",
                               "raise the limit with --max-bytes if this plan is meant to be this large", "EP007")
                content = proc.stdout.read(size)
                if len(content) == size:
                    return content
            missing = header[-1:] == [b"missing"]
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
        if expired:
            raise fail(f"git took longer than {GIT_TIMEOUT} s")
        errors.seek(0)
        said = errors.read(64 * 1024)
    reason = git_reason(said)
    if missing or _not_local(said):
        raise fail(NOT_LOCAL, _fetch_hint(spec))
    raise fail(f"cannot read it from git history: {reason or f'git cat-file exited with {proc.returncode}'}")
