"""The last `verify` run, as the Markdown page and the HTML page show it: plain data that
compiler/api/results.py makes from the receipts beside the compiled artifacts, and the sentences
both pages say, in one wording (each page passes the ``Inline`` that escapes plan text its own
way, as compiler/render/sentences.py's do). A page given none shows nothing of it.

What the pages may say is decided where the receipts are read: an item's result is shown as its
result only while its proof is the command that ran (``Verdict.current``); results of an earlier
revision of the plan are said to be (``LastVerify.earlier``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from compiler.render.sentences import Inline

# Items the run's line names among those that did not pass; the rest are counted.
NOT_PASSED_SHOWN = 10


class Verdict(NamedTuple):
    """One item's last result."""

    result: str  # a result of the receipts' format: passed, failed, skipped, ...
    passing: bool  # whether that result passes (passed, approved, cached, flaky)
    reason: str  # why, for a result that needs one (plan and repository text: escaped by the page); else ''
    started: datetime | None  # when its proof ran (UTC); None when nothing ran (skipped, approved, cached)
    seconds: float | None  # how long it ran; None when nothing ran
    current: bool  # the command that ran is the item's proof now; False: its proof changed since


class LastVerify(NamedTuple):
    """The last run, and each item's last result by id (the items it did not select have none)."""

    started: datetime | None  # when the run began (UTC)
    earlier: bool  # the receipts are of an earlier revision of the plan (another items' digest)
    commit: str | None  # the repository's commit it ran at
    dirty: bool | None  # with uncommitted changes to tracked files
    interrupted: bool
    counts: tuple[tuple[str, int], ...]  # (result, items) for the results the run had, in the format's order
    items: dict[str, Verdict]
    file: str  # the receipts file's name, as the page names it

    def line(self, fmt: Inline) -> str:
        """``run_text``, for a page that imports this module only when it has a run to show."""
        return run_text(self, fmt)


def when(moment: datetime) -> str:
    """``2026-12-02 10:00 UTC``."""
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def _the_run(run: LastVerify) -> str:
    return f"the run started {when(run.started)}" if run.started is not None else "the last run"


def verdict_text(verdict: Verdict, run: LastVerify, fmt: Inline) -> str:
    """An item's last result: ``passed 2026-12-02 10:00 UTC (0.4 s)``, ``failed ... (1.2 s): it
    exited 1``, ``skipped in the run started 2026-12-02 10:00 UTC: depends on x, which failed``;
    for an item whose proof changed since, that it did, never the old result."""
    if not verdict.current:
        return f"its proof changed since its last verify ({_the_run(run)})"
    if verdict.started is not None:
        text = f"{verdict.result} {when(verdict.started)}"
        if verdict.seconds is not None:
            text += f" ({verdict.seconds:.1f} s)"
    else:
        text = f"{verdict.result} in {_the_run(run)}"
    return text + (f": {fmt.text(verdict.reason)}" if verdict.reason.strip() else "")


def run_text(run: LastVerify, fmt: Inline) -> str:
    """The run's paragraph (the pages' "Last verify" section): when, at which commit, its counts,
    the items that did not pass, the file, and whether it was of an earlier revision of the plan."""
    text = f"Started {when(run.started)}" if run.started is not None else "Started at a time it does not record"
    if run.commit is not None:
        text += f" at commit {fmt.code(run.commit[:12])}"
        if run.dirty:
            text += " with uncommitted changes"
    if run.interrupted:
        text += ", interrupted"
    counts = ", ".join(f"{n:,} {result}" for result, n in run.counts)
    text += f": {counts or 'no item'}"
    failing = [(ident, v.result) for ident, v in run.items.items() if v.current and not v.passing]
    if failing:
        named = ", ".join(f"{fmt.code(ident)} ({result})" for ident, result in failing[:NOT_PASSED_SHOWN])
        more = len(failing) - NOT_PASSED_SHOWN
        text += f"; did not pass: {named}" + (f" and {more:,} more" if more > 0 else "")
    text += f". Receipts: {fmt.code(run.file)}."
    if run.earlier:
        text += (" These are the results of an earlier revision of the plan: its items changed since, and an item's"
                 " result is shown only while its proof is the command that ran.")
    return text


def verdict_lines(run: LastVerify, fmt: Inline, shape: str) -> Callable[[dict[str, Any]], str]:
    """What a page adds to a compiled item's entry: ``shape`` (``{}`` where the text goes) holding
    its ``verdict_text``; '' for an item the run did not select."""
    def line(item: dict[str, Any]) -> str:
        ident = item.get("id")
        verdict = run.items.get(ident) if isinstance(ident, str) else None
        return shape.format(verdict_text(verdict, run, fmt)) if verdict is not None else ""

    return line
