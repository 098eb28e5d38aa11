"""The library half of `evidence-plan verify`: run a ready plan's proofs, wave by wave, and keep
a receipt of each.

The plan is checked as `check` checks it; a blocked plan runs nothing. The selected items (all, or
those asked for and everything they depend on) run in their waves' order, up to ``jobs`` at once
within a wave (compiler/api/processes.py runs each), two items that name the same ``locks:`` entry
never at the same time (the waiting ones are looked at again as each proof ends: a plan without
locks submits each wave at once). An item runs only when every dependency
passed; the dependents of an item that did not pass are skipped, naming it. After a wave in which
an item did not pass, no later wave starts, unless ``keep_going``: then every item whose
dependencies all passed runs. An approval item runs nothing: it passes when the plan records a
current approval for it (compiler/analysis/approvals.py), and otherwise it is *unapproved*, which
stops the run as a failure does. A dropped item has left the graph and is not run.

Before an item runs, its cache key is made (compiler/api/cache.py): when it is the key of its last
pass, the item is *cached* (up to date) and not run; otherwise the receipt says why it runs. A
proof that fails is run again up to ``retries`` times; one that fails and then passes is *flaky*,
as is one that passes where it failed last time with the same key (every attempt is kept).

The receipts (compiler/api/receipts.py) are journaled as each comes and written whole at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.report.receipts import (  # what became of an item: declared once, with the reports that read it
    APPROVED,
    CACHED,
    FAILED,
    FLAKY,
    PASSED,
    PASSING,
    RESULTS,
    SKIPPED,
    TIMED_OUT,
    UNAPPROVED,
)

if TYPE_CHECKING:
    from compiler.api.processes import Outcome
    from compiler.compile.pipeline import CompileResult
    from compiler.load.limits import Limits

MAX_RETRIES = 3


class Step(NamedTuple):
    """One selected item, as the run sees it."""

    id: str
    wave: int
    proof: str
    depends_on: tuple[str, ...]
    approval: str | None  # for an approval item, its state (current, stale, unrecorded); None for a task
    line: int | None  # where the item is in the plan
    locks: frozenset[str] = frozenset()  # what it cannot share with a proof running beside it


class Receipt(NamedTuple):
    """What became of one item: its result, what became of it in a few words, how each attempt of
    its proof ended (none when it did not run), its cache key and inputs, and why it ran."""

    step: Step
    result: str
    reason: str
    attempts: tuple[Outcome, ...] = ()
    cache_key: str | None = None
    parts: dict[str, str] | None = None  # its inputs, dependencies' keys included (the receipts' cache)
    ran_because: str | None = None  # why it ran (None: it did not)
    started: str | None = None  # when it started: its first attempt's, or the run's it was recorded in

    @property
    def outcome(self) -> Outcome | None:
        """How its last attempt ended."""
        return self.attempts[-1] if self.attempts else None

    def to_dict(self) -> dict[str, Any]:
        step = self.step
        return {"id": step.id, "wave": step.wave, "line": step.line, "command": step.proof, "result": self.result,
                "reason": self.reason, "ran_because": self.ran_because, "cache_key": self.cache_key,
                "started": self.attempts[0].started if self.attempts else self.started,
                "seconds": round(sum(o.seconds for o in self.attempts), 3),
                "attempts": [_attempt(o) for o in self.attempts]}


def _attempt(o: Outcome) -> dict[str, Any]:
    return {"exit_code": o.exit_code, "signal": o.signal, "timed_out": o.timed_out, "leftovers": o.leftovers,
            "survivors": o.survivors, "started": o.started, "seconds": o.seconds, "stdout": o.stdout.to_dict(),
            "stderr": o.stderr.to_dict()}


TICK = 0.5  # seconds between two calls of run_steps' on_status while nothing ends


class Status(NamedTuple):
    """Where a run is, for a live display: a wave (its number, of how many), how many of its items
    are done, and the ids of the proofs running."""

    wave: int
    waves: int
    done: int
    size: int
    running: tuple[str, ...]


class CacheState(NamedTuple):
    """What the run knows to decide what is up to date: this run's inputs of each item
    (compiler/api/cache.py: item_parts; None for an item past the bound), the last cache entries
    (the receipts' ``cache``), and whether to skip what is up to date (False: --no-cache, which
    runs everything and still records keys and tells flaky proofs)."""

    parts: dict[str, dict[str, str] | None]
    before: dict[str, dict[str, Any]]
    use: bool = True


class Verified(NamedTuple):
    name: str  # the plan file, as diagnostics name it
    status: str  # the plan's: ready or blocked (blocked: nothing ran)
    diagnostics: tuple[Diagnostic, ...]
    receipts: list[Receipt]
    interrupted: bool = False

    strict: bool = False  # a flaky proof fails the run

    @property
    def passed(self) -> bool:
        return self.status == "ready" and not self.interrupted and all(
            r.result in PASSING and not (self.strict and r.result == FLAKY) for r in self.receipts)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(RESULTS, 0)
        for r in self.receipts:
            out[r.result] += 1
        return out


def plan_steps(path: str, *, ids: Sequence[str] = (), root: str | None = None, limits: Limits | None = None,
               verify_evidence: bool = True, dependencies: bool = True) -> tuple[CompileResult, list[Step]]:
    """The plan compiled as `check` checks it, and its selected items in wave order (none when it
    is blocked): every item, or ``ids`` and (unless not ``dependencies``) what they depend on. An
    unknown id is an input error (EP001's exit: nothing runs), with a did-you-mean."""
    from compiler.compile.pipeline import compile_plan
    from compiler.load.limits import DEFAULT_LIMITS

    result = compile_plan(path, root=root, verify_evidence=verify_evidence, limits=limits or DEFAULT_LIMITS)
    if result.status != "ready":
        return result, []
    by_id = {item.id: item for item in result.plan.items}
    wave_of = result.wave_of()
    wanted = set(wave_of)
    if ids:
        wanted = _with_dependencies(ids, by_id, wave_of, result.document.name, dependencies)
    states = _approval_states(result)
    smap = result.document.source_map
    steps = []
    for ident in (i for wave in result.waves for i in wave if i in wanted):
        item = by_id[ident]
        pos = smap.value((*result.plan.items_path, item.position))
        steps.append(Step(id=ident, wave=wave_of[ident], proof=item.proof, depends_on=tuple(
            d for d in dict.fromkeys(item.depends_on) if d in wave_of and d != ident),
            approval=states.get(ident), line=pos[0] if pos else None,
            locks=frozenset(item.option("locks") or ()) if item.options else frozenset()))
    return result, steps


def _with_dependencies(ids: Sequence[str], by_id: dict[str, Any], wave_of: dict[str, int], name: str,
                       dependencies: bool = True) -> set[str]:
    """The asked items and (with ``dependencies``) everything they depend on (transitively, within
    the graph)."""
    from compiler.core.diagnostics import did_you_mean

    wanted: set[str] = set()
    stack = []
    for ident in ids:
        if ident not in wave_of:
            why = "is dropped: it has left the graph" if ident in by_id else "is not an item of the plan"
            raise PlanInputError(Diagnostic("EP001", f"cannot verify {ident!r}: it {why}"
                                            f"{did_you_mean(ident, list(wave_of))}", location=Location(name)))
        stack.append(ident)
    if not dependencies:
        return set(stack)
    while stack:
        ident = stack.pop()
        if ident in wanted:
            continue
        wanted.add(ident)
        stack.extend(d for d in by_id[ident].depends_on if d in wave_of)
    return wanted


def _approval_states(result: CompileResult) -> dict[str, str]:
    """Each approval item's state (current, stale, unrecorded); empty for a plan without gates."""
    if not result.plan.gives("kind"):
        return {}
    from compiler.analysis.approvals import is_approval, states

    found = states(result.plan.items)
    return {item.id: found[item.id].state for item in result.plan.items
            if is_approval(item) and item.id in found}


def run_steps(steps: Sequence[Step], root: str, *, jobs: int, timeout: float, keep_going: bool = False,
              retries: int = 0, cache: CacheState | None = None,
              on_receipt: Callable[[Receipt], None] = lambda r: None,
              on_status: Callable[[Status], None] | None = None,
              run: Callable[..., Outcome] | None = None,
              passed_before: dict[str, dict[str, Any]] | None = None,
              settled: Mapping[str, str] | None = None) -> tuple[list[Receipt], bool]:
    """Run ``steps`` (in wave order) as the module's docstring says; ``on_receipt`` is called with
    each receipt as it is made, in the main thread. Returns the receipts in wave order and whether
    the run was interrupted (Ctrl-C: the running groups are ended, what finished is kept).
    ``passed_before``: what an interrupted run of the same plan passed (id -> its journaled
    receipt: ``resumable``), recorded as it was and not run again. ``settled``: the results of
    dependencies that are not among ``steps``, as other runs' receipts record them (id -> result:
    compiler/api/fanout.py); a dependency in neither did not run, and its dependents are skipped.
    ``on_status``, when given, is called in the main thread as proofs start and end, and every
    ``TICK`` seconds between (a live display)."""
    import threading

    from compiler.api.processes import run_proof

    run = run or run_proof
    groups: set[int] = set()  # the process groups running now (Ctrl-C ends them)
    stopping = threading.Event()  # no retry starts once set
    receipts: dict[str, Receipt] = {}
    ran: set[str] = set()
    stopped: str | None = None  # why later waves do not start

    def record(receipt: Receipt) -> None:
        receipts[receipt.step.id] = receipt
        if receipt.attempts:
            ran.add(receipt.step.id)
        on_receipt(receipt)

    def attempts(step: Step) -> tuple[Outcome, ...]:
        """Each attempt, until one passes, ``retries`` more at most (in a worker thread)."""
        outs: list[Outcome] = []
        mine: list[int] = []

        def started(pgid: int) -> None:
            mine.append(pgid)
            groups.add(pgid)

        try:
            for _ in range(retries + 1):
                outs.append(run(step.proof, root, timeout=timeout, started_hook=started))
                if outs[-1].passed or stopping.is_set():
                    break
        finally:
            groups.difference_update(mine)  # ended: its id may be another process's soon
        return tuple(outs)

    def result_of(dep: str) -> str | None:
        return receipts[dep].result if dep in receipts else (settled or {}).get(dep)

    def blocker(step: Step) -> str | None:
        for dep in step.depends_on:
            if result_of(dep) not in PASSING:
                return dep
        return None

    def lookup(step: Step) -> tuple[str | None, dict[str, str] | None, dict[str, Any] | None, str | None]:
        """Its key, parts and last cache entry, and why it runs (None: it is up to date)."""
        from compiler.api.cache import key, why_run, with_after

        if cache is None:
            return None, None, None, "it runs whenever asked (no cache)"
        parts = cache.parts.get(step.id)
        if parts is None:
            return None, None, None, "its inputs are past the cache's bound, so it always runs"
        after = {dep: (receipts[dep].cache_key or receipts[dep].result) if dep in receipts
                 else f"settled {result_of(dep)}" for dep in step.depends_on}  # settled: another run's receipt
        whole = with_after(parts, after)
        k = key(whole)
        before = cache.before.get(step.id)
        same = before is not None and before.get("key") == k
        if same and before is not None and before.get("result") in (PASSED, FLAKY):
            return k, whole, before, (None if cache.use else "--no-cache")
        return k, whole, before if same else None, why_run(before, whole, ran)

    def finish(step: Step, outs: tuple[Outcome, ...], k: str | None, parts: dict[str, str] | None,
               same: dict[str, Any] | None, why: str | None) -> Receipt:
        """The receipt of a proof that ran: ``same`` is its last cache entry when the key is unchanged."""
        last = outs[-1]
        if last.timed_out:
            result, reason = TIMED_OUT, f"it ran past {timeout:g} s"
        elif last.passed and len(outs) > 1:
            result, reason = FLAKY, f"it failed, then passed at attempt {len(outs)}"
        elif last.passed and same is not None and same.get("result") not in (PASSED, FLAKY):
            result = FLAKY
            reason = f"it exited 0, where it {same.get('result')} at {same.get('started')} with the same inputs"
        elif last.passed:
            result, reason = PASSED, "it exited 0"
        else:
            result = FAILED
            reason = f"it exited {last.exit_code}" if last.exit_code is not None else f"{last.signal} ended it"
        if result in (FAILED, TIMED_OUT) and len(outs) > 1:
            reason += f", at each of {len(outs)} attempts"
        if result in (FAILED, TIMED_OUT) and same is not None and same.get("result") in (PASSED, FLAKY):
            reason += f"; flaky: it passed at {same.get('started')} with the same inputs"
        return Receipt(step=step, result=result, reason=reason, attempts=outs, cache_key=k, parts=parts,
                       ran_because=why)

    waves: dict[int, list[Step]] = {}
    for step in steps:
        waves.setdefault(step.wave, []).append(step)
    interrupted = False
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for number in sorted(waves):
            running: dict[Future[tuple[Outcome, ...]], tuple[Step, Any]] = {}
            waiting: list[tuple[Step, Any]] = []  # to run in this wave, once their locks are free
            for step in waves[number]:
                if stopped is not None:
                    record(Receipt(step=step, result=SKIPPED, reason=stopped))
                    continue
                if passed_before and step.id in passed_before:
                    entry = passed_before[step.id]
                    record(Receipt(step=step, result=entry["result"], cache_key=entry.get("cache_key"),
                                   reason=f"{entry['result']} in the interrupted run, started {entry['started']}",
                                   started=entry["started"]))
                    continue
                dep = blocker(step)
                if dep is not None:
                    got = result_of(dep)
                    why = (f"depends on {dep}, which {got.replace('-', ' ')}" if got is not None
                           else f"depends on {dep}, which did not run")
                    record(Receipt(step=step, result=SKIPPED, reason=why))
                    continue
                if step.approval is not None:
                    if step.approval == "current":
                        record(Receipt(step=step, result=APPROVED, reason="the plan records a current approval"))
                    else:
                        record(Receipt(step=step, result=UNAPPROVED, reason=f"its approval is {step.approval}:"
                                       f" evidence-plan approve PLAN {step.id} --by NAME records it"))
                    continue
                k, parts, before, because = lookup(step)
                if because is None and before is not None:
                    record(Receipt(step=step, result=CACHED, cache_key=k, parts=parts, started=before.get("started"),
                                   reason=f"up to date: it passed at {before.get('started')} with the same inputs"))
                    continue
                waiting.append((step, (k, parts, before, because)))
            try:
                held: set[str] = set()  # the locks of what is running
                while waiting or running:
                    kept = []
                    for step, known in waiting:  # in the wave's order, each as soon as its locks are free
                        if step.locks and not held.isdisjoint(step.locks):
                            kept.append((step, known))
                            continue
                        held |= step.locks
                        running[pool.submit(attempts, step)] = (step, known)
                    waiting = kept
                    if on_status is not None:
                        status = Status(wave=number, waves=max(waves), done=len(waves[number]) - len(waiting)
                                        - len(running), size=len(waves[number]),
                                        running=tuple(step.id for step, _ in running.values()))
                        on_status(status)
                    finished, _ = wait(running, timeout=TICK if on_status else None, return_when=FIRST_COMPLETED)
                    for future in finished:
                        step, known = running.pop(future)
                        held -= step.locks
                        try:
                            outs = future.result()
                        except OSError as error:  # the shell could not be started (no /bin/sh, no root)
                            record(Receipt(step=step, result=FAILED, reason=f"it could not start: {error.strerror}",
                                           ran_because=known[3]))
                            continue
                        except ValueError:  # a NUL in the command: no process can be given it
                            record(Receipt(step=step, result=FAILED, ran_because=known[3],
                                           reason="it could not start: its command holds a NUL character"))
                            continue
                        record(finish(step, outs, *known))
            except KeyboardInterrupt:
                interrupted = True
                stopping.set()
                started = {f: v for f, v in running.items() if not f.cancel()}  # a queued one never starts
                _end_all(groups, started)
                for future, (step, known) in started.items():  # what the signal ended is kept, as it ended
                    try:
                        outs = future.result(timeout=5)
                    except Exception:  # noqa: BLE001  # a worker that cannot report: nothing to keep
                        continue
                    record(Receipt(step=step, result=FAILED, reason="interrupted (Ctrl-C)", attempts=outs,
                                   ran_because=known[3]))
                break
            if not keep_going and stopped is None:
                bad = [s.id for s in waves[number] if receipts.get(s.id) and receipts[s.id].result not in
                       PASSING and not receipts[s.id].reason.startswith("depends on")]
                if bad:
                    stopped = f"the run stopped after wave {number}, where {bad[0]} did not pass (--keep-going runs on)"
    order = {step.id: n for n, step in enumerate(steps)}
    return sorted(receipts.values(), key=lambda r: order[r.step.id]), interrupted


def _end_all(groups: set[int], running: dict[Future[Any], Any]) -> None:
    """Ctrl-C: SIGTERM to every running proof's group, then, to the groups still there once
    ``GRACE`` has passed without all of them ending, SIGKILL (their proofs report as they end)."""
    import signal

    from compiler.api.processes import GRACE

    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pgid in list(groups):
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        if not wait(running, timeout=GRACE).not_done:
            return


