"""`evidence-plan verify PLAN [ID...]`: run the proofs of a ready plan, wave by wave, and keep a
receipt of each (the only command that runs anything)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from compiler.api.verify import MAX_RETRIES
from compiler.commands._options import evidence_options, limit_options, revision_option
from compiler.core.exits import EXIT_BLOCKED, EXIT_INPUT, EXIT_READY, INTERRUPTED

if TYPE_CHECKING:
    from compiler.api.against import Base, Control
    from compiler.api.verify import CacheState, Receipt, Status, Step
    from compiler.compile.pipeline import CompileResult
    from compiler.load.limits import Limits

# Lines of a failed proof's output shown on the terminal (the receipts keep its head and tail).
TAIL_LINES = 12


def _on_terminal() -> bool:
    """Whether standard output is a terminal that takes a line rewritten in place."""
    import sys

    return sys.stdout.isatty() and os.environ.get("TERM", "") not in ("", "dumb")


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _cache(result: CompileResult, steps: list[Step], receipts: str, *, use: bool) -> tuple[CacheState, str | None]:
    """The selected items' inputs, hashed, and the last receipts' cache (with why it was not
    used, when it was not)."""
    from compiler.api.cache import Hasher, item_parts
    from compiler.api.receipts import previous_cache
    from compiler.api.verify import CacheState

    wanted = {step.id for step in steps if step.approval is None}
    items = [item for item in result.plan.items if item.id in wanted]
    before, said = previous_cache(receipts)
    return CacheState(parts=item_parts(result, items, Hasher(result.root)), before=before, use=use), said


def _line(receipt: Receipt) -> str:
    from compiler.core.display import escape

    step = receipt.step
    took = f"  {sum(o.seconds for o in receipt.attempts):.1f} s" if receipt.attempts else ""
    why = f"ran: {receipt.ran_because}; {receipt.reason}" if receipt.ran_because else receipt.reason
    return f"{receipt.result:<10}  wave {step.wave}  {escape(step.id)}{took}  ({escape(why)})"


def _tail(receipt: Receipt) -> list[str]:
    """The last lines of what a proof that did not pass wrote, escaped; the survivors said."""
    from compiler.core.display import escape

    o = receipt.outcome
    if o is None or receipt.result in ("passed", "approved", "cached"):
        return []
    text = (o.stdout.tail or o.stdout.head) + (o.stderr.tail or o.stderr.head)
    lines = [f"    | {escape(line)}" for line in text.splitlines()[-TAIL_LINES:]]
    if o.survivors:
        lines.append("    a process of its group survived SIGKILL")
    return lines


def _print_text(receipt: Receipt, err: bool = False) -> None:
    click.echo(_line(receipt), err=err)
    for line in _tail(receipt):
        click.echo(line, err=err)


class Live:
    """The live display of a run on a terminal: the receipts' lines as they come, under them one
    line that is rewritten in place (the wave, done / total, the proofs running, the time so far),
    cut to the terminal's width. Off a terminal, or under --format json/github, the plain lines."""

    def __init__(self) -> None:
        import shutil
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.width = max(20, shutil.get_terminal_size().columns - 1)
        self.last = ""

    def status(self, status: Status) -> None:
        from compiler.core.display import escape

        seconds = int(self.clock() - self.start)
        running = ", ".join(escape(i) for i in status.running)
        line = (f"wave {status.wave}/{status.waves}  {status.done}/{status.size} done"
                f"  {seconds // 60}:{seconds % 60:02d}{'  running: ' + running if running else ''}")
        self.last = line[:self.width]
        click.echo(f"\r\x1b[2K{self.last}", nl=False)

    def receipt(self, receipt: Receipt) -> None:
        click.echo("\r\x1b[2K", nl=False)
        _print_text(receipt)
        if self.last:
            click.echo(self.last, nl=False)

    def close(self) -> None:
        click.echo("\r\x1b[2K", nl=False)


def _print_log(receipt: Receipt) -> None:
    """--format github: the text lines on stderr, the step's log; stdout holds the annotations alone."""
    _print_text(receipt, err=True)


def _dry_run(steps: list[Step], fmt: str, base: Base | None) -> None:
    """What would run, wave by wave: a line each, or with --format json one object for agents;
    with --against, where the proofs would run again."""
    from compiler.core.display import escape

    if fmt == "json":
        from compiler.core.cilog import json_safe

        would = [{"id": s.id, "wave": s.wave, "command": None if s.approval is not None else s.proof,
                  "approval": s.approval, "locks": sorted(s.locks)} for s in steps]
        shown: dict[str, Any] = {"dry_run": True, "items": would}
        if base is not None:
            from compiler.commands._against import dry_run_json

            shown["against"] = dry_run_json(base, steps)
        click.echo(json_safe(json.dumps(shown, indent=2, ensure_ascii=False)))
        return
    for step in steps:
        what = f"approval ({step.approval})" if step.approval is not None else f"runs: {escape(step.proof)}"
        click.echo(f"wave {step.wave}  {escape(step.id)}  {what}", err=fmt == "github")
    if base is not None:
        from compiler.commands._against import dry_run_text

        click.echo(dry_run_text(base, steps), err=fmt == "github")


# GitHub shows at most 10 annotations of each kind per step: past that, one notice counts the rest.
ANNOTATIONS = 10
_KINDS = {"failed": "error", "timed-out": "error", "unapproved": "error", "skipped": "warning", "flaky": "warning"}


def github_annotations(receipts: list[Receipt], plan_file: str, *, cwd: str, base: str,
                       also: Sequence[tuple[Receipt, str, str, str]] = ()) -> str:
    """``--format github``: an annotation at the item's line of the plan for each item that did not
    pass (an error where its proof failed, timed out or its approval is missing; a warning where
    it was skipped or is flaky), its reason and the last lines its proof wrote in the message, then
    those of ``also`` (receipt, kind, title, message); at most ANNOTATIONS of each kind, then a
    notice that counts the rest."""
    from compiler.core.cilog import Commands, command
    from compiler.core.display import escape
    from compiler.report.reporters import workspace_path

    file = escape(workspace_path(plan_file, cwd, base)[0])
    shown = dict.fromkeys(("error", "warning"), 0)
    left = dict.fromkeys(("error", "warning"), 0)
    out = []
    entries = [(r, kind, f"verify: {r.step.id} {r.result}",
                escape(r.reason) + "".join(f"\n{line.strip()}" for line in _tail(r)))
               for r in receipts if (kind := _KINDS.get(r.result)) is not None]
    for receipt, kind, title, message in [*entries, *also]:
        if shown[kind] == ANNOTATIONS:
            left[kind] += 1
            continue
        shown[kind] += 1
        props = [("file", file), *([("line", str(receipt.step.line))] if receipt.step.line else []),
                 ("title", title)]
        out.append(command(kind, props, message))
    for kind, n in left.items():
        if n:
            out.append(command("notice", [("title", "verify")], f"{n:,} more {kind}s: evidence-plan.verify.json"
                                                                 " lists every item"))
    return Commands("".join(out))


# `verify --format`: name -> what is printed as each receipt comes (the JSON is printed whole at the
# end; github's annotations come at the end too, on stdout, the text lines on stderr).
FORMATS: dict[str, Callable[[Receipt], None] | None] = {"text": _print_text, "json": None, "github": _print_log}


@click.command("verify")
@click.argument("plan", metavar="PLAN|RECEIPT")
@click.argument("ids", metavar="[ID|RECEIPT]...", nargs=-1)
@click.option("-j", "--jobs", type=click.IntRange(min=1, max=256), default=None,
              help="Proofs run at once within a wave (default: the number of CPUs).")
@click.option("--timeout", metavar="SECONDS", type=click.FloatRange(min=0, min_open=True, max=86_400), default=600,
              show_default=True, help="How long one proof may run; then its process group is ended.")
@click.option("--retries", metavar="N", type=click.IntRange(min=0, max=MAX_RETRIES), default=0, show_default=True,
              help=f"Run a failing proof again, up to N more times (at most {MAX_RETRIES}); one that then passes is "
                   "flaky.")
@click.option("--no-cache", is_flag=True,
              help="Run every proof, also those whose inputs are as they were at their last pass.")
@click.option("--keep-going", is_flag=True,
              help="After a proof fails, still run every item whose dependencies passed (default: stop after the "
                   "wave).")
@click.option("-o", "--output-dir", "output_dir", metavar="DIR", default=None,
              help="Folder for evidence-plan.verify.json (default: the plan's folder).")
@click.option("--dry-run", is_flag=True, help="Print what would run, wave by wave, and run nothing.")
@click.option("--receipts-from", "receipts_from", metavar="DIR", default=None,
              type=click.Path(exists=True, file_okay=False),
              help="Run the IDs alone: each dependency counts as passed only when a receipts file under DIR, of "
                   "this same plan, says it passed (else its dependents are skipped). What the jobs of `ci github` "
                   "do.")
@click.option("--resume", is_flag=True,
              help="Go on from an interrupted run of the same plan: what it passed is not run again.")
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="text", show_default=True,
              help="text: a line per item as it ends; json: one object with every item's receipt, for agents; "
                   "github: an annotation at the plan's line of each item that did not pass (the text lines on "
                   "stderr).")
@click.option("--against", metavar="REV", callback=revision_option, default=None,
              help="Also run each proof that passes in a temporary git worktree of REV (the merge base, say) and "
                   "report each that passes there too: it passes without the change, and proves nothing.")
@click.option("--strict", is_flag=True,
              help="A flaky proof, or one that passes without the change (--against), fails the run (exit 1).")
@click.option("--junit", metavar="FILE", default=None,
              help="Also write the receipts as JUnit XML, for GitLab, Jenkins and GitHub's JUnit report actions.")
@click.option("--summary", metavar="FILE", default=None,
              help="Also write the receipts as a Markdown summary page (default: appended to $GITHUB_STEP_SUMMARY "
                   "when it is set).")
@click.option("--merge", is_flag=True,
              help="Merge the receipts files given instead of PLAN and IDs (runs of chunks of one plan) into one "
                   "evidence-plan.verify.json in -o DIR (default: here); runs nothing.")
@evidence_options
@limit_options
def command(plan: str, ids: tuple[str, ...], jobs: int | None, timeout: float, retries: int, no_cache: bool,
            keep_going: bool, output_dir: str | None, dry_run: bool, resume: bool, fmt: str, against: str | None,
            strict: bool, junit: str | None, summary: str | None, merge: bool, root: str | None, no_verify: bool,
            limits: Limits, receipts_from: str | None) -> int:
    """Run the proof of each item of PLAN (or of the IDs given and what they depend on), wave by
    wave, up to --jobs at once within a wave, and keep a receipt of each in
    evidence-plan.verify.json. This runs the plan's commands: run it on code you trust (in CI, on
    pull_request, never on pull_request_target with secrets).

    PLAN is checked first as `check` checks it: a blocked plan runs nothing (its issues are listed,
    exit 1). Each proof runs as `/bin/sh -c PROOF` in the repository root, in a process group of
    its own, with no standard input; past --timeout the group gets SIGTERM, then SIGKILL, and so
    does whatever a proof leaves running when it ends. An item runs only when every dependency
    passed (the others are skipped, naming the dependency); after a wave where one did not pass,
    no later wave starts unless --keep-going. An approval item runs nothing: it passes when the
    plan records a current approval for it. A dropped item is not run; a done one is, like any other.

    An item whose inputs (its proof, the lines its evidence cites, the files its paths: and its
    proof's test files cover, its dependencies' keys) hash as they did at its last pass is cached:
    not run again (--no-cache runs it). Each line says why an item ran ("never ran", "a.py:18
    changed", "depends on implementation, which ran"). A proof that fails and then passes (under
    --retries, or with the same inputs as a failed run) is flaky: every attempt is kept.

    With --against REV, each proof that passed runs again in a temporary git worktree of REV
    (committed files only: not the change's new or edited ones), removed afterwards whatever
    happens; each that passes there too is reported as passing without the change.

    Exit 0 when every selected proof passed, was cached or is flaky, 1 when any failed, timed
    out, was skipped or is unapproved (or the plan is blocked; or, with --strict, is flaky or
    passes without the change), 2 input error (an unknown REV: nothing runs), 130 on Ctrl-C (the
    receipts of what finished are kept).

    With --merge, the arguments are receipts files (RECEIPT...), not PLAN and IDs: those of
    runs of chunks of one plan (a CI job each) are merged into one, an item in several keeping the
    one decided last; receipts of another plan, or a file that is not receipts, is an input error.
    Exit 0 when every merged item passed, 1 otherwise, 2 input error.

    \b
    Examples:
      evidence-plan verify plan.yaml
      evidence-plan verify plan.yaml implementation --jobs 4
      evidence-plan verify plan.yaml --dry-run
      evidence-plan verify plan.yaml --resume
      evidence-plan verify plan.yaml --retries 2 --strict
      evidence-plan verify plan.yaml --no-cache
      evidence-plan verify plan.yaml --against "$(git merge-base origin/main HEAD)" --strict
      evidence-plan verify plan.yaml docs api --receipts-from earlier-jobs/
      evidence-plan verify plan.yaml --junit verify.xml
      evidence-plan verify plan.yaml --format json | jq '.items[] | select(.result != "passed")'
      evidence-plan verify --merge chunk-*/evidence-plan.verify.json -o merged --junit merged/verify.xml
    """
    if merge:
        from compiler.commands._verify_reports import merge_command

        if dry_run or resume:
            raise click.UsageError("--merge runs nothing: --dry-run and --resume do not go with it")
        return merge_command((plan, *ids), output_dir=output_dir, junit=junit, summary=summary, strict=strict,
                             limits=limits)
    from compiler.api import receipts as kept
    from compiler.api.verify import Verified, plan_steps, run_steps
    from compiler.commands._output import err, plural, reported, show_diagnostics, write_files
    from compiler.commands._verify_reports import append_summary, reports, targets
    from compiler.core.display import escape

    result, steps = plan_steps(plan, ids=ids, root=root, limits=limits, verify_evidence=not no_verify,
                               dependencies=receipts_from is None)
    name = escape(result.document.name)
    if result.status != "ready":
        show_diagnostics(result.diagnostics)
        err(f"{name}: blocked: nothing was run; fix the plan first")
        return EXIT_BLOCKED
    if result.diagnostics:
        show_diagnostics(result.diagnostics)
    base = None
    if against is not None:  # resolved before anything runs: an unknown REV runs nothing
        from compiler.api.against import Worktree, add_controls, resolve, run_controls, without_change
        from compiler.commands._against import control_annotations, passes_line

        base = resolve(result.root, against)
    settled = None
    if receipts_from is not None:
        from compiler.api.fanout import settled_from

        found = settled_from(receipts_from, kept.plan_digest(result), steps)
        settled = found.results
        err(f"{name}: dependencies from {found.note(receipts_from)}")
    if dry_run:
        _dry_run(steps, fmt, base)
        err(f"{name}: {plural(len(steps), 'item')} would be verified; nothing was run")
        return EXIT_READY
    folder = output_dir if output_dir is not None else (os.path.dirname(plan) if plan != "-" else ".") or "."
    os.makedirs(folder, exist_ok=True)
    from compiler.core.targets import check_targets

    target = os.path.join(folder, kept.RECEIPTS)
    def writable() -> None:  # both files, before any proof runs: no symlink out of the work tree, not the plan
        check_targets([os.path.join(folder, kept.JOURNAL), target, *targets(junit, summary)], [plan])

    if not reported(writable):
        return EXIT_INPUT
    digest = kept.plan_digest(result)
    passed_before = kept.resumable(os.path.join(folder, kept.JOURNAL), digest) if resume else None  # before it goes
    cache, said = _cache(result, steps, target, use=not no_cache)
    if said:
        err(f"note: {escape(said)}")
    started = _now()
    shown = FORMATS[fmt]
    live = Live() if fmt == "text" and _on_terminal() else None
    if live is not None:
        shown = live.receipt

    def on_receipt(receipt: Receipt) -> None:
        journal.add(receipt)
        if shown is not None:
            shown(receipt)

    from contextlib import ExitStack, closing

    controls: dict[str, Control] = {}
    with ExitStack() as cleanup:  # the worktree first: when git cannot make it, nothing runs, the last journal stays
        tree = cleanup.enter_context(Worktree(base)) if base is not None else None
        journal = cleanup.enter_context(closing(kept.Journal(os.path.join(folder, kept.JOURNAL), digest)))
        if live is not None:
            cleanup.callback(live.close)
        receipts, interrupted = run_steps(steps, result.root, jobs=jobs or os.cpu_count() or 1, timeout=timeout,
                                          keep_going=keep_going, retries=retries, cache=cache, on_receipt=on_receipt,
                                          on_status=live.status if live is not None else None,
                                          passed_before=passed_before, settled=settled)
        if tree is not None and not interrupted:
            controls, interrupted = run_controls(receipts, tree, jobs=jobs or os.cpu_count() or 1, timeout=timeout)
    verified = Verified(name=result.document.name, status=result.status, diagnostics=result.diagnostics,
                        receipts=receipts, interrupted=interrupted, strict=strict)
    source = os.path.relpath(os.path.abspath(plan), os.path.abspath(folder)) if plan != "-" else plan
    commit, dirty = kept.git_state(result.root)
    document = kept.receipts_document(verified, source=source.replace(os.sep, "/"), digest=digest, started=started,
                                      revision=kept.revision(folder, result.plan), commit=commit, dirty=dirty,
                                      before=cache.before)
    passing = without_change(receipts, controls) if base is not None else []
    if base is not None:
        add_controls(document, controls, base, strict=strict)
    files, page = reports(document, plan if plan != "-" else None, junit=junit, summary=summary)
    # Compact: json's C encoder writes no indentation, and with one a large plan's receipts took 5x longer.
    if not write_files({target: json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n", **files}):
        return EXIT_INPUT
    append_summary(page)
    if not interrupted:
        os.remove(journal.path)  # the receipts hold it all now; an interrupted run's stays, for --resume
    if fmt == "json":
        from compiler.core.cilog import json_safe

        click.echo(json_safe(json.dumps(document, indent=2, ensure_ascii=False)))
    elif fmt == "github":
        from compiler.commands._output import echo_report
        from compiler.report.reporters import base_folder, working_folder

        cwd = working_folder()
        also = control_annotations(passing, base, strict=strict) if base is not None else []
        echo_report(github_annotations(receipts, result.document.name, cwd=cwd, base=base_folder(os.environ, cwd),
                                       also=also))
    if base is not None and fmt != "json":
        for receipt in passing:
            click.echo(passes_line(receipt, base), err=fmt == "github")
    counts = ", ".join(f"{n:,} {word}" for word, n in verified.counts().items() if n)
    said = " (interrupted)" if interrupted else ""
    if passing:
        said += f"; {len(passing):,} {'passes' if len(passing) == 1 else 'pass'} without the change"
    err(f"{name}: {counts or 'nothing to verify'}{said}; receipts: {escape(target)}")
    if interrupted:
        return INTERRUPTED
    return EXIT_READY if verified.passed and not (strict and passing) else EXIT_BLOCKED

