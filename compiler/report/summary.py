"""`verify --summary FILE` (by default ``$GITHUB_STEP_SUMMARY``): the receipts as the Markdown of
a job's summary page.

A line that says how the run went, then a table of the items, those that did not pass first (then
the flaky ones, then the rest, each part in wave order), then the end of what the first of the
failed proofs wrote. GitHub refuses a step summary over 1 MiB, so the page stops short of
``SUMMARY_BYTES`` whatever the size of the plan, and says how many rows it left out. Every text
of the plan or of a proof is escaped for Markdown (compiler/core/markdown.py): an id or a reason
is text in a cell, a proof's output is in a fenced code block longer than any run of backticks
in it, and none of it can start HTML, a link, a mention or a block of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from compiler.core.display import clip, escape
from compiler.core.markdown import cell, code, md, one_line
from compiler.report.receipts import RESULTS, stream_tail
from compiler.report.reporters import SUMMARY_BYTES

# The failed proofs whose output the page shows (GitHub shows as many annotations of a step), and
# how much of each: its last lines, at most this many bytes of each stream.
SHOWN_OUTPUTS = 10
OUTPUT_LINES = 20
OUTPUT_BYTES = 2048
# What a cell shows of an id or a reason (a hand-made receipt may hold anything).
CELL_CHARACTERS = 300
_BACKTICKS = re.compile("`+")
# Notes under the status line (what --merge chose): this many, then a count.
SHOWN_NOTES = 10


def _order(item: dict[str, Any]) -> int:
    """Those that did not pass, then the flaky ones, then those that passed."""
    if not RESULTS[item["result"]]:
        return 0
    return 1 if item["result"] == "flaky" else 2


def _row(item: dict[str, Any]) -> str:
    seconds = item.get("seconds")
    took = f"{seconds:.1f}" if isinstance(seconds, (int, float)) and item.get("attempts") else ""
    ident = cell(code(clip(str(item["id"]), CELL_CHARACTERS)))
    reason = one_line(md(clip(str(item.get("reason", "")), CELL_CHARACTERS)))
    return f"| {item['result']} | {item['wave']} | {ident} | {took} | {reason} |"


def _fenced(lines: list[str]) -> list[str]:
    """Lines of a proof's output as a fenced code block: each escaped (control characters
    visible), the fence longer than any run of backticks inside, so that no line can close it."""
    shown = [escape(line) for line in lines]
    longest = max((len(run) for line in shown for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *shown, fence]


def _output(item: dict[str, Any]) -> list[str]:
    """The end of what an item's last attempt wrote, under a heading that names it."""
    attempts = item.get("attempts") or []
    last = attempts[-1] if attempts and isinstance(attempts[-1], dict) else {}
    text = "".join(stream_tail(last.get(name), OUTPUT_BYTES)[0] for name in ("stdout", "stderr"))
    lines = text.splitlines()[-OUTPUT_LINES:]
    if not lines:
        return []
    heading = one_line(md(clip(f"{item['id']} {item['result']}: {item.get('reason', '')}", CELL_CHARACTERS)))
    return [f"#### {heading}", "", *_fenced(lines), ""]


def step_summary(document: dict[str, Any], *, plan: str, notes: Sequence[str] = ()) -> str:
    """The receipts ``document`` as the job's summary page (see the module's docstring); ``plan``
    names the plan; ``notes``, plain text, say what --merge chose (escaped here)."""
    items = document.get("items", [])
    counts: dict[str, int] = {}
    for item in items:
        counts[item["result"]] = counts.get(item["result"], 0) + 1
    said = ", ".join(f"{counts[r]:,} {r}" for r in RESULTS if counts.get(r)) or "nothing verified"
    commit = document.get("commit")
    where = f" at commit {code(str(commit)[:12])}{' (with uncommitted changes)' if document.get('dirty') else ''}" \
        if commit else ""
    lines = [f"## evidence-plan verify {code(plan)}", "",
             f"**{document.get('status', 'failed')}**: {said}{where}"
             f"{' (interrupted)' if document.get('interrupted') else ''}", ""]
    lines += [f"- {one_line(md(clip(note, CELL_CHARACTERS)))}" for note in notes[:SHOWN_NOTES]]
    if len(notes) > SHOWN_NOTES:
        lines.append(f"- ... and {len(notes) - SHOWN_NOTES:,} more")
    if notes:
        lines.append("")
    failed = [i for i in items if i["result"] in ("failed", "timed-out")]
    outputs = [line for item in failed[:SHOWN_OUTPUTS] for line in _output(item)]
    if outputs:
        outputs[:0] = [f"### The end of what {'the first ' if len(failed) > SHOWN_OUTPUTS else ''}"
                       f"{min(len(failed), SHOWN_OUTPUTS):,} failed proof{'s' if len(failed) > 1 else ''} wrote", ""]
    if not items:
        return "\n".join(lines) + "\n"
    lines += ["| result | wave | item | seconds | reason |", "|---|---:|---|---:|---|"]
    size = sum(len(_bytes(line)) + 1 for line in lines + outputs) + 200  # 200: the line that counts what is left out
    rows = sorted(range(len(items)), key=lambda n: (_order(items[n]), n))
    for shown, n in enumerate(rows):
        row = _row(items[n])
        size += len(_bytes(row)) + 1
        if size > SUMMARY_BYTES:
            lines += ["", f"... and {len(rows) - shown:,} more rows left out, to stay under GitHub's 1 MiB:"
                          f" evidence-plan.verify.json lists every item."]
            break
        lines.append(row)
    lines.append("")
    return "\n".join(lines + outputs) + "\n"


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")
