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

Each result is appended to ``JOURNAL`` beside the receipts as it comes (one JSON line: an
interrupted run keeps what finished, at a cost linear in the items); the receipts file
(``RECEIPTS``) is written whole, atomically, at the end.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.api.compile import RECEIPTS as RECEIPTS  # the name it writes, where compile looks for it
from compiler.core.diagnostics import Diagnostic, Location, PlanInputError

if TYPE_CHECKING:
    from compiler.api.processes import Outcome
    from compiler.compile.pipeline import CompileResult
    from compiler.load.limits import Limits

JOURNAL = RECEIPTS + "l"  # evidence-plan.verify.jsonl: one line per result, as it comes
FORMAT = "evidence-plan-verify/1"

# What became of an item; every value but "passed" and "approved" fails the run (exit 1).
PASSED, APPROVED = "passed", "approved"
FAILED, TIMED_OUT, SKIPPED, UNAPPROVED = "failed", "timed-out", "skipped", "unapproved"
RESULTS = (PASSED, APPROVED, FAILED, TIMED_OUT, SKIPPED, UNAPPROVED)


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
    """What became of one item: its result, why, and how its proof ended (None when it did not run)."""

    step: Step
    result: str
    reason: str
    outcome: Outcome | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.step.id, "wave": self.step.wave, "command": self.step.proof,
                               "result": self.result, "reason": self.reason}
        o = self.outcome
        if o is not None:
            out.update(exit_code=o.exit_code, signal=o.signal, timed_out=o.timed_out, leftovers=o.leftovers,
                       survivors=o.survivors, started=o.started, seconds=o.seconds, stdout=o.stdout.to_dict(),
                       stderr=o.stderr.to_dict())
        return out


class Verified(NamedTuple):
    name: str  # the plan file, as diagnostics name it
    status: str  # the plan's: ready or blocked (blocked: nothing ran)
    diagnostics: tuple[Diagnostic, ...]
    receipts: list[Receipt]
    interrupted: bool = False

    @property
    def passed(self) -> bool:
        return self.status == "ready" and not self.interrupted and all(
            r.result in (PASSED, APPROVED) for r in self.receipts)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(RESULTS, 0)
        for r in self.receipts:
            out[r.result] += 1
        return out


def plan_steps(path: str, *, ids: Sequence[str] = (), root: str | None = None, limits: Limits | None = None,
               verify_evidence: bool = True) -> tuple[CompileResult, list[Step]]:
    """The plan compiled as `check` checks it, and its selected items in wave order (none when it
    is blocked). An unknown id is an input error (EP001's exit: nothing runs), with a did-you-mean."""
    from compiler.compile.pipeline import compile_plan
    from compiler.load.limits import DEFAULT_LIMITS

    result = compile_plan(path, root=root, verify_evidence=verify_evidence, limits=limits or DEFAULT_LIMITS)
    if result.status != "ready":
        return result, []
    by_id = {item.id: item for item in result.plan.items}
    wave_of = result.wave_of()
    wanted = set(wave_of)
    if ids:
        wanted = _with_dependencies(ids, by_id, wave_of, result.document.name)
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


def _with_dependencies(ids: Sequence[str], by_id: dict[str, Any], wave_of: dict[str, int], name: str) -> set[str]:
    """The asked items and everything they depend on (transitively, within the graph)."""
    from compiler.core.diagnostics import did_you_mean

    wanted: set[str] = set()
    stack = []
    for ident in ids:
        if ident not in wave_of:
            why = "is dropped: it has left the graph" if ident in by_id else "is not an item of the plan"
            raise PlanInputError(Diagnostic("EP001", f"cannot verify {ident!r}: it {why}"
                                            f"{did_you_mean(ident, list(wave_of))}", location=Location(name)))
        stack.append(ident)
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
              on_receipt: Callable[[Receipt], None] = lambda r: None,
              run: Callable[..., Outcome] | None = None,
              passed_before: dict[str, str] | None = None) -> tuple[list[Receipt], bool]:
    """Run ``steps`` (in wave order) as the module's docstring says; ``on_receipt`` is called with
    each receipt as it is made, in the main thread. Returns the receipts in wave order and whether
    the run was interrupted (Ctrl-C: the running groups are ended, what finished is kept).
    ``passed_before``: the items an interrupted run of the same plan passed (id -> when it
    started: ``resumable``), recorded as they were and not run again."""
    from compiler.api.processes import run_proof

    run = run or run_proof
    groups: set[int] = set()
    receipts: dict[str, Receipt] = {}
    stopped: str | None = None  # why later waves do not start

    def record(receipt: Receipt) -> None:
        receipts[receipt.step.id] = receipt
        on_receipt(receipt)

    def blocker(step: Step) -> str | None:
        for dep in step.depends_on:
            got = receipts.get(dep)
            if got is None or got.result not in (PASSED, APPROVED):
                return dep
        return None

    waves: dict[int, list[Step]] = {}
    for step in steps:
        waves.setdefault(step.wave, []).append(step)
    interrupted = False
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for number in sorted(waves):
            running: dict[Future[Outcome], Step] = {}
            waiting: list[Step] = []  # to run in this wave, once their locks are free
            for step in waves[number]:
                if stopped is not None:
                    record(Receipt(step=step, result=SKIPPED, reason=stopped))
                    continue
                if passed_before and step.id in passed_before:
                    result = APPROVED if step.approval is not None else PASSED
                    record(Receipt(step=step, result=result,
                                   reason=f"{result} in the interrupted run, started {passed_before[step.id]}"))
                    continue
                dep = blocker(step)
                if dep is not None:
                    why = (f"depends on {dep}, which {receipts[dep].result.replace('-', ' ')}" if dep in receipts
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
                waiting.append(step)
            try:
                held: set[str] = set()  # the locks of what is running
                while waiting or running:
                    kept = []
                    for step in waiting:  # in the wave's order, each as soon as its locks are free
                        if step.locks and not held.isdisjoint(step.locks):
                            kept.append(step)
                            continue
                        held |= step.locks
                        running[pool.submit(run, step.proof, root, timeout=timeout, started_hook=groups.add)] = step
                    waiting = kept
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        step = running.pop(future)
                        held -= step.locks
                        try:
                            outcome = future.result()
                        except OSError as error:  # the shell could not be started (no /bin/sh, no root)
                            record(Receipt(step=step, result=FAILED, reason=f"it could not start: {error.strerror}"))
                            continue
                        if outcome.timed_out:
                            record(Receipt(step=step, result=TIMED_OUT, reason=f"it ran past {timeout:g} s",
                                           outcome=outcome))
                        elif outcome.passed:
                            record(Receipt(step=step, result=PASSED, reason="it exited 0", outcome=outcome))
                        else:
                            why = (f"it exited {outcome.exit_code}" if outcome.exit_code is not None
                                   else f"{outcome.signal} ended it")
                            record(Receipt(step=step, result=FAILED, reason=why, outcome=outcome))
            except KeyboardInterrupt:
                interrupted = True
                _end_all(groups)
                for future, step in running.items():  # what the signal ended is kept, as it ended
                    try:
                        outcome = future.result(timeout=30)
                    except Exception:  # noqa: BLE001  # a worker that cannot report: nothing to keep
                        continue
                    record(Receipt(step=step, result=FAILED, reason="interrupted (Ctrl-C)", outcome=outcome))
                break
            if not keep_going and stopped is None:
                bad = [s.id for s in waves[number] if receipts.get(s.id) and receipts[s.id].result not in
                       (PASSED, APPROVED) and not receipts[s.id].reason.startswith("depends on")]
                if bad:
                    stopped = f"the run stopped after wave {number}, where {bad[0]} did not pass (--keep-going runs on)"
    order = {step.id: n for n, step in enumerate(steps)}
    return sorted(receipts.values(), key=lambda r: order[r.step.id]), interrupted


def _end_all(groups: set[int]) -> None:
    import signal

    for pgid in list(groups):
        try:
            os.killpg(pgid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass


def plan_digest(result: CompileResult) -> str:
    """What names the plan in the receipts and the journal: its items' digest, as the revisions'
    history takes it (compiler/compile/history.py), so that ``--resume`` refuses another plan's."""
    from compiler.compile.history import items_digest

    return items_digest(result.plan)


def resumable(path: str, digest: str) -> dict[str, str]:
    """The items that the interrupted run journaled at ``path`` passed (or approved), id -> when
    it started; a PlanInputError (exit 2) when there is no journal, or it is another plan's."""
    def refuse(why: str) -> PlanInputError:
        return PlanInputError(Diagnostic("EP001", f"cannot resume: {why}", location=Location(path)))

    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        raise refuse("no interrupted run's journal is here (the last run finished, or none ran)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise refuse(f"its journal cannot be read ({error})") from None
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise refuse("the journal is not one that verify wrote")
    if header.get("plan_digest") != digest:
        raise refuse("the journal is of another plan, or of this one before it changed (its items' digest differs)")
    passed: dict[str, str] = {}
    for line in lines[1:]:
        try:
            entry = json.loads(line)
        except ValueError:  # a line cut short by the interruption
            continue
        if isinstance(entry, dict) and entry.get("result") in (PASSED, APPROVED) and isinstance(entry.get("id"), str):
            passed[entry["id"]] = str(entry.get("started") or "earlier")
    return passed


def receipts_document(verified: Verified, source: str, digest: str) -> dict[str, Any]:
    """The receipts file's content: the plan, the counts, and each item's receipt in wave order."""
    return {"format": FORMAT, "source": source, "plan_digest": digest,
            "status": "passed" if verified.passed else "failed",
            "interrupted": verified.interrupted, "counts": verified.counts(),
            "items": [r.to_dict() for r in verified.receipts]}


class Journal:
    """``JOURNAL``: one JSON line per receipt, appended and flushed as each comes. Its path is
    checked as every target is (compiler/core/targets.py: check_targets) before anything runs."""

    def __init__(self, path: str, digest: str) -> None:
        self.path = path
        self.handle = open(path, "w", encoding="utf-8")  # closed by close()
        self.handle.write(json.dumps({"format": FORMAT, "plan_digest": digest}) + "\n")  # whose journal it is
        self.handle.flush()

    def add(self, receipt: Receipt) -> None:
        self.handle.write(json.dumps(receipt.to_dict(), ensure_ascii=False) + "\n")
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()
