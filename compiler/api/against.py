"""`verify --against REV`: the negative control. A proof that passes without the change proves
nothing about it ("fails before the change and passes after"), so each proof that passed here runs
again in a temporary git worktree of REV, and an item whose proof passes there as well is reported.

- ``resolve`` names REV's commit in the repository of the plan's root (``rev-parse --verify
  REV^{commit}``), before anything runs: an unknown REV, a REV that could be read as an option,
  or a root outside git is an input error (EP001, exit 2).
- ``Worktree`` makes a detached worktree of that commit (``git worktree add --detach``) in a new
  folder of the system's temporary folder (never inside the repository), with the repository's
  hooks off, and removes it when closed (``git worktree remove --force``; when git cannot, the
  folder is deleted and ``git worktree prune`` forgets it), whatever ended the run: a second
  Ctrl-C during the removal waits for it. Only committed files are there: the change's untracked
  and uncommitted files are not, which is the point (a new test file does not exist at REV, so a
  proof that runs it fails there). Submodules are not checked out.
- ``run_controls`` runs the proofs there, in the worktree's counterpart of the repository root
  (the same subfolder of git's top level), with the same timeout, wave by wave, up to ``jobs`` at
  once within a wave, two items that share a ``locks:`` entry never together. No item is skipped
  there for its dependencies: failing at REV is what a good proof does. Which items run: those
  whose result here is in ``RUNS_AGAINST`` (a proof that did not pass here needs no control;
  an approval runs nothing, here or there); every other item's control is ``not-run``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.api.verify import Receipt, Step
from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.load.gitshow import GIT_TIMEOUT, command, environment, git_reason, revision_problem
from compiler.report.receipts import CACHED, FLAKY, PASSED, TIMED_OUT

if TYPE_CHECKING:
    from compiler.api.processes import Outcome

# The results here whose proof runs again at REV.
RUNS_AGAINST = frozenset({PASSED, CACHED, FLAKY})  # every proof that passes here: each is asked to fail there
# What a control's result is: the proof passed at REV too (the item proves nothing), it did not, or it did not run.
NOT_RUN = "not-run"
WORKTREE_TIMEOUT = 600  # seconds `git worktree add` may take (it checks out every file of REV)
_NO_HOOKS = ("-c", f"core.hooksPath={os.devnull}")  # no post-checkout hook runs in the worktree


class Base(NamedTuple):
    """REV, resolved in the repository of the plan's root."""

    rev: str  # as given
    commit: str  # its commit's full id
    top: str  # git's top level of the repository root
    folder: str  # the repository root from ``top`` ("." when it is the top), POSIX


class Control(NamedTuple):
    """What became of one item's proof at REV."""

    rev: str
    commit: str
    result: str  # passed, failed, timed-out, not-run
    exit_code: int | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"rev": self.rev, "commit": self.commit, "result": self.result, "exit_code": self.exit_code,
                "seconds": self.seconds}


def _fail(root: str, message: str, hint: str | None = None) -> PlanInputError:
    return PlanInputError(Diagnostic("EP001", message, location=Location(root), hint=hint))


def _git(cwd: str, *args: str, timeout: float = GIT_TIMEOUT) -> subprocess.CompletedProcess[bytes]:
    """git as every reader runs it (compiler/load/gitshow.py: no pager, no transport), in a
    session of its own so that a Ctrl-C at the terminal does not cut it short."""
    return subprocess.run(command(*args), cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env=environment(), check=False, start_new_session=True)


def resolve(root: str, rev: str) -> Base:
    """``rev``'s commit in the git repository of ``root``; a PlanInputError (EP001) when ``rev``
    cannot be a revision, names no commit, or ``root`` is not in a git work tree."""
    said = f"cannot verify against {rev!r}"
    problem = revision_problem(rev)
    if problem is not None:
        raise _fail(root, f"{said}: {problem}")
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
        if top.returncode != 0 or not top.stdout.strip():
            raise _fail(root, f"{said}: the repository root {root} is not in a git work tree "
                              f"({git_reason(top.stderr) or 'git said nothing'})", "--against needs the history of git")
        found = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except FileNotFoundError:
        raise _fail(root, f"{said}: git is not installed") from None
    except subprocess.TimeoutExpired:
        raise _fail(root, f"{said}: git took longer than {GIT_TIMEOUT} s") from None
    commit = found.stdout.decode("ascii", "replace").strip()
    if found.returncode != 0 or not commit:
        raise _fail(root, f"{said}: it names no commit of the repository at {root}",
                    "a shallow clone lacks older commits: fetch them first (actions/checkout: fetch-depth: 0)")
    top_folder = os.fsdecode(top.stdout.rstrip(b"\n"))
    folder = os.path.relpath(os.path.realpath(root), os.path.realpath(top_folder)).replace(os.sep, "/")
    return Base(rev=rev, commit=commit, top=top_folder, folder=folder)


class Worktree:
    """A detached worktree of ``base.commit`` in a temporary folder, made at once; ``close()``
    (or leaving a ``with`` block) removes it. ``root`` is where the proofs run in it."""

    def __init__(self, base: Base) -> None:
        import tempfile

        self.base = base
        self.parent = tempfile.mkdtemp(prefix="evidence-plan-against-")
        self.path = os.path.join(self.parent, "tree")
        self.root = os.path.normpath(os.path.join(self.path, base.folder))
        self.closed = self.added = False
        try:
            if _inside(self.parent, base.top):
                raise _fail(base.top, f"cannot verify against {base.rev!r}: the temporary folder {self.parent} is"
                                      " inside the repository", "set TMPDIR to a folder outside it")
            self.added = True  # from here on git may have registered it
            made = _git(base.top, *_NO_HOOKS, "worktree", "add", "--detach", "--", self.path, base.commit,
                        timeout=WORKTREE_TIMEOUT)
            if made.returncode != 0:
                raise _fail(base.top, f"cannot verify against {base.rev!r}: git could not make a worktree of it:"
                                      f" {git_reason(made.stderr) or 'git said nothing'}")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Worktree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the worktree and its folder, once, whatever is left of them; Ctrl-C meanwhile
        is held until it is done, then raised."""
        if self.closed:
            return
        self.closed = True
        with _held_interrupts():
            removed = False
            try:
                if self.added:
                    removed = _git(self.base.top, "worktree", "remove", "--force", "--", self.path).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                pass
            shutil.rmtree(self.parent, ignore_errors=True)
            if self.added and not removed:  # forget the worktree whose folder is gone
                try:
                    _git(self.base.top, "worktree", "prune")
                except (OSError, subprocess.TimeoutExpired):
                    pass


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


@contextmanager
def _held_interrupts() -> Iterator[None]:
    """Within it, SIGINT (in the main thread) is held, and raised as KeyboardInterrupt once it is done."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # only the main thread can take signals
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    if pressed:
        raise KeyboardInterrupt


def selected(receipts: Sequence[Receipt]) -> list[Step]:
    """The items whose proof runs at REV, in wave order."""
    return [r.step for r in receipts if r.result in RUNS_AGAINST and r.step.approval is None]


def not_run(base: Base) -> Control:
    return Control(rev=base.rev, commit=base.commit, result=NOT_RUN, exit_code=None, seconds=0.0)


def _control(base: Base, future: Future[Outcome]) -> Control:
    try:
        outcome = future.result()
    except OSError:  # the shell could not start there (the root is not at REV): it did not pass
        return Control(rev=base.rev, commit=base.commit, result="failed", exit_code=None, seconds=0.0)
    result = TIMED_OUT if outcome.timed_out else PASSED if outcome.passed else "failed"
    return Control(rev=base.rev, commit=base.commit, result=result, exit_code=outcome.exit_code,
                   seconds=outcome.seconds)


def run_controls(receipts: Sequence[Receipt], tree: Worktree, *, jobs: int, timeout: float,
                 run: Callable[..., Outcome] | None = None) -> tuple[dict[str, Control], bool]:
    """Each selected item's proof run in ``tree`` (see the module's docstring): id -> its control
    (every receipt's id has one), and whether Ctrl-C interrupted (the running groups are ended;
    what did not finish is ``not-run``)."""
    from compiler.api.processes import run_proof

    run = run or run_proof
    base = tree.base
    controls = {r.step.id: not_run(base) for r in receipts}
    waves: dict[int, list[Step]] = {}
    for step in selected(receipts):
        waves.setdefault(step.wave, []).append(step)
    groups: set[int] = set()
    running: dict[Future[Outcome], Step] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        try:
            for number in sorted(waves):
                waiting, held = waves[number], set[str]()
                while waiting or running:
                    kept = []
                    for step in waiting:  # in the wave's order, each as soon as its locks are free
                        if step.locks and not held.isdisjoint(step.locks):
                            kept.append(step)
                            continue
                        held |= step.locks
                        running[pool.submit(run, step.proof, tree.root, timeout=timeout,
                                            started_hook=groups.add)] = step
                    waiting = kept
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        step = running.pop(future)
                        held -= step.locks
                        controls[step.id] = _control(base, future)
        except KeyboardInterrupt:
            _stop(running, groups)
            return controls, True
    return controls, False


def _stop(running: dict[Future[Outcome], Step], groups: set[int], patience: float = 30.0) -> None:
    """Ctrl-C: what waits is cancelled, and the running groups are ended (SIGTERM, then SIGKILL
    after the grace a proof's leftovers get) until every proof that started has ended."""
    import signal
    import time

    from compiler.api.processes import GRACE

    for future in running:
        future.cancel()
    started = time.monotonic()
    while time.monotonic() - started < patience:
        sig = signal.SIGTERM if time.monotonic() - started < GRACE else signal.SIGKILL
        for pgid in list(groups):
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                groups.discard(pgid)
        _, left = wait(running, timeout=0.2)
        if not left:
            return


def without_change(receipts: Sequence[Receipt], controls: dict[str, Control]) -> list[Receipt]:
    """The items whose proof passed here and at REV too, in wave order: each proves nothing."""
    return [r for r in receipts if r.result in RUNS_AGAINST and r.step.id in controls
            and controls[r.step.id].result == PASSED]


def add_controls(document: dict[str, Any], controls: dict[str, Control], base: Base, *, strict: bool) -> None:
    """The receipts ``document`` (compiler/api/verify.py: receipts_document) with each item's
    ``against``; with ``strict``, an item that passes without the change fails the run."""
    passes = False
    for item in document["items"]:
        control = controls.get(item["id"]) or not_run(base)
        item["against"] = control.to_dict()
        passes = passes or (item["result"] in RUNS_AGAINST and control.result == PASSED)
    if strict and passes:
        document["status"] = "failed"
