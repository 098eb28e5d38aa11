"""`verify --summary`: the receipts as a job's summary page (compiler/report/summary.py), from
receipts made by hand: what did not pass first, every plan or proof text escaped, and under
GitHub's 1 MiB whatever the size of the plan."""

from __future__ import annotations

import re

import pytest
from receipts import attempt, document, item
from support import MENTION, commonmark_html, shown

from compiler.report.summary import SHOWN_OUTPUTS, step_summary


def _table(text: str) -> list[list[str]]:
    return [re.split(r"(?<!\\)\|", line)[1:-1] for line in text.splitlines() if line.startswith("| ")]


def test_what_did_not_pass_comes_first_then_the_flaky_then_the_rest_in_wave_order() -> None:
    items = [item("ok", wave=1), item("bad", "failed", reason="it exited 3", attempts=[attempt(3, err="oops\n")]),
             item("shaky", "flaky", wave=2), item("later", "skipped", wave=2, reason="depends on bad, which failed"),
             item("same", "cached", wave=3, reason="up to date")]
    text = step_summary(document(items), plan="plans/plan.yaml")
    assert text.startswith("## evidence-plan verify `plans/plan.yaml`\n\n**failed**: 1 passed, 1 cached, 1 flaky,"
                           " 1 failed, 1 skipped at commit `cccccccccccc`\n\n")
    assert [[c.strip() for c in row] for row in _table(text)] == [
        ["result", "wave", "item", "seconds", "reason"], ["failed", "1", "`bad`", "0.5", "it exited 3"],
        ["skipped", "2", "`later`", "", "depends on bad, which failed"],
        ["flaky", "2", "`shaky`", "0.5", "it was flaky"],
        ["passed", "1", "`ok`", "0.5", "it exited 0"], ["cached", "3", "`same`", "", "up to date"]]
    assert "### The end of what 1 failed proof wrote\n\n#### bad failed: it exited 3\n\n```\noops\n```\n" in text


HOSTILE = ("<img src=x onerror=alert(1)> [link](https://evil.example) ![i](https://evil.example/i.png) "
           "@octocat *bold* `code` <script>x</script> | cell")


def test_no_plan_or_proof_text_can_inject_html_links_or_mentions() -> None:
    out = f"```\n{HOSTILE}\n````\n~~~\n    indented\n- list\n# heading\n\x1b[31mred\u202e\n"
    items = [item(f"id-{HOSTILE}", "failed", reason=HOSTILE, attempts=[attempt(1, out=out, err=HOSTILE)]),
             item("two", "skipped", reason=HOSTILE + "\nsecond line")]
    text = step_summary(document(items), plan=f"plan {HOSTILE}.yaml", notes=[HOSTILE])
    html = commonmark_html(text)
    for tag in ("<img", "<script", "<a ", "<h1", "<em"):
        assert tag not in html
    assert html.count("<strong>") == 1  # the status's own
    assert html.count("<li>") == 1  # the note's own, no list of the text's
    rows = _table(text)
    assert all(len(row) == 5 for row in rows)  # no cell split by a pipe of the text
    assert len(rows) == 3 and "second line" in rows[2][4]  # a line break stays in its cell
    outside_code = re.sub(r"<code>.*?</code>", "", re.sub(r"<pre>.*?</pre>", "", html, flags=re.S), flags=re.S)
    assert MENTION.search(shown(outside_code)) is None
    block = re.search(r"<pre><code>(.*?)</code></pre>", html, flags=re.S)
    assert block is not None  # the proof's output, one code block that no line of it closed
    assert "~~~\n    indented\n- list\n# heading\n\\x1b[31mred\\u202e" in block.group(1)
    assert "\x1b" not in text and "\u202e" not in text


def test_the_output_of_at_most_ten_failed_proofs_is_shown() -> None:
    items = [item(f"bad-{n}", "failed", attempts=[attempt(1, out=f"out {n}\n")]) for n in range(12)]
    text = step_summary(document(items), plan="plan.yaml")
    assert f"### The end of what the first {SHOWN_OUTPUTS} failed proofs wrote" in text
    assert text.count("#### ") == SHOWN_OUTPUTS and "out 9\n" in text and "out 10\n" not in text


@pytest.mark.slow
def test_a_summary_of_20000_items_stays_under_one_mebibyte_and_counts_the_rows_left_out() -> None:
    reason = "depends on implementation-of-the-duplicate-email-check, which failed " * 2
    items = [item(f"item-{n:05d}-" + "x" * 40, "skipped" if n % 3 else "failed", wave=1 + n // 1000, reason=reason,
                  attempts=[attempt(1, out="x" * 5000 + "\n")] if n % 3 == 0 else None)
             for n in range(20_000)]
    text = step_summary(document(items), plan="plan.yaml", notes=[f"note {n}" for n in range(50)])
    assert len(text.encode("utf-8")) < 1024 * 1024
    rows = len(_table(text)) - 1
    left = re.search(r"\.\.\. and ([\d,]+) more rows left out, to stay under GitHub's 1 MiB", text)
    assert left is not None and 0 < rows and rows + int(left.group(1).replace(",", "")) == 20_000
    assert "- ... and 40 more" in text
    assert text.count("#### ") == SHOWN_OUTPUTS  # the failures' output is kept, the table stops short


def test_a_run_of_nothing_says_so() -> None:
    assert step_summary(document([]), plan="plan.yaml") == (
        "## evidence-plan verify `plan.yaml`\n\n**passed**: nothing verified at commit `cccccccccccc`\n\n")
