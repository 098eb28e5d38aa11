"""What the reports of `verify` share, read from its receipts (the dict of
``evidence-plan.verify.json``, format ``evidence-plan-verify/1``): which results pass, and the end
of what a proof wrote, bounded.

The receipts are read as plain data: this room never imports the runner (compiler/api/verify.py),
which writes them.
"""

from __future__ import annotations

from typing import Any

FORMAT = "evidence-plan-verify/1"  # of the receipts and of verify's journal

# Every result an item's receipt may hold, in the order the receipts count them, and whether it
# passes: declared here, once, and read by the runner (compiler/api/verify.py) as by the reports.
# A flaky item passes (its dependents run); it fails a run under --strict.
PASSED, APPROVED, CACHED, FLAKY = "passed", "approved", "cached", "flaky"
FAILED, TIMED_OUT, SKIPPED, UNAPPROVED = "failed", "timed-out", "skipped", "unapproved"
RESULTS: dict[str, bool] = {PASSED: True, APPROVED: True, CACHED: True, FLAKY: True, FAILED: False,
                            TIMED_OUT: False, SKIPPED: False, UNAPPROVED: False}
PASSING = frozenset(result for result, passes in RESULTS.items() if passes)

# What a report shows of a stream of a proof's output: its last bytes. The receipts keep the
# first and the last 32 KiB of each stream; a report is read in a browser, and the end is where
# a failure says what went wrong.
TAIL_BYTES = 8 * 1024


def stream_tail(stream: Any, limit: int = TAIL_BYTES) -> tuple[str, bool]:
    """The last ``limit`` bytes of a captured stream (``{head, tail, size, cut}``) as text, and
    whether that is less than the whole stream. Where the receipts left out the middle, the text
    says so at the place it is missing."""
    if not isinstance(stream, dict):
        return "", False
    head, tail = str(stream.get("head") or ""), str(stream.get("tail") or "")
    size = stream.get("size")
    kept = len(_utf8(head)) + len(_utf8(tail))
    gap = size - kept if isinstance(size, int) and size > kept else 0
    text = head + (f"\n[... {gap:,} bytes not kept ...]\n" if gap and tail else "") + tail
    raw = _utf8(text)
    if len(raw) <= limit:
        return text, gap > 0
    start = len(raw) - limit
    while start < len(raw) and 0x80 <= raw[start] < 0xC0:  # a character cut at the start is left out
        start += 1
    return raw[start:].decode("utf-8", "surrogatepass"), True


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate too: the reports show it escaped


def attempt_reason(attempt: dict[str, Any]) -> str:
    """How one attempt of a proof ended, in the words of the receipts' reasons."""
    if attempt.get("timed_out"):
        return "it ran past its timeout"
    if attempt.get("exit_code") is not None:
        return f"it exited {attempt['exit_code']}"
    if attempt.get("signal"):
        return f"{attempt['signal']} ended it"
    return "it did not pass"


def attempt_passed(attempt: dict[str, Any]) -> bool:
    return attempt.get("exit_code") == 0 and not attempt.get("timed_out")
