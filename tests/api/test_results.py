"""The pages' last verify results (compiler/api/results.py read for compiler/render/verified.py):
receipts written as dicts in their format (evidence-plan-verify/1) beside a compiled plan, and
what the Markdown and the HTML page then say of each item; what they never say (an old proof's
result, an earlier revision's results as this one's, receipt text as markup); and that a plan
without receipts pays nothing for the feature. tests/golden/verified/ is the whole page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO, docs_block, run, write_plan

from compiler.api.compile import RECEIPTS, compile_to_folder

PLAN = """\
plan: shown
root: .
items:
  - id: a
    change: first
    evidence: [app.py:1]
    proof: python3 -m unittest tests.test_a
  - id: b
    change: second
    evidence: [app.py:1]
    depends_on: [a]
    proof: grep -n 409 docs/api.md
  - id: c
    change: third
    evidence: [app.py:1]
    depends_on: [b]
    proof: "true"
"""
PROOFS = {"a": "python3 -m unittest tests.test_a", "b": "grep -n 409 docs/api.md", "c": "true"}
STARTED = "2026-12-02T10:00:00Z"


def _digest(plan: Path) -> str:
    from compiler.compile.history import items_digest
    from compiler.compile.pipeline import compile_plan

    return items_digest(compile_plan(str(plan)).plan)


def _item(ident: str, result: str, reason: str, *, started: str | None = STARTED, seconds: float = 0.5,
          command: str | None = None) -> dict[str, Any]:
    """A receipt; one whose ``started`` is given ran once (a cached one, which ran nothing, is given its
    ``started`` by its caller)."""
    ran = started is not None and result != "cached"
    attempt = {"exit_code": 0 if result in ("passed", "flaky") else 1, "signal": None,
               "timed_out": result == "timed-out", "leftovers": None, "survivors": False, "started": started,
               "seconds": seconds, "stdout": {"head": "", "tail": "", "size": 0, "cut": False},
               "stderr": {"head": "", "tail": "", "size": 0, "cut": False}}
    return {"id": ident, "wave": 1, "line": None, "command": PROOFS[ident] if command is None else command,
            "result": result, "reason": reason, "ran_because": None, "cache_key": None, "started": started,
            "seconds": seconds if ran else 0, "attempts": [attempt] if ran else []}


def _receipts(plan: Path, items: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    counts = dict.fromkeys(("passed", "approved", "cached", "flaky", "failed", "timed-out", "skipped", "unapproved"),
                           0)
    for item in items:
        counts[item["result"]] += 1
    return {"format": "evidence-plan-verify/1", "source": "plan.yaml", "plan_digest": _digest(plan),
            "revision": None, "commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False,
            "started": STARTED, "status": "failed", "interrupted": False, "counts": counts, "items": items,
            "cache": {}, **top}


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    return write_plan(tmp_path, PLAN)


def _pages(plan: Path, receipts: dict[str, Any] | str | None) -> tuple[str, str, str | None]:
    """The Markdown and HTML pages compiled beside ``receipts`` (as JSON, or the file's text), and the note."""
    if receipts is not None:
        text = receipts if isinstance(receipts, str) else json.dumps(receipts)
        (plan.parent / RECEIPTS).write_text(text, encoding="utf-8")
    compiled = compile_to_folder(str(plan), html=True)
    folder = plan.parent
    return ((folder / "evidence-plan.md").read_text(encoding="utf-8"),
            (folder / "evidence-plan.html").read_text(encoding="utf-8"), compiled.note)


def _lines(markdown: str, start: str) -> list[str]:
    """The lines that start with ``start``; for ``## Last verify``, the section's paragraph."""
    if start == "## Last verify":
        return re.findall(r"^## Last verify\n\n(.*)$", markdown, re.M)
    return [line for line in markdown.splitlines() if line.startswith(start)]


def test_each_item_shows_its_last_result_its_time_and_why_it_did_not_pass(plan: Path) -> None:
    receipts = _receipts(plan, [_item("a", "passed", "it exited 0", seconds=0.42),
                                _item("b", "failed", "it exited 1", started="2026-12-02T10:00:01.250000+00:00",
                                      seconds=1.25),
                                _item("c", "skipped", "depends on b, which failed", started=None)])
    markdown, html, note = _pages(plan, receipts)
    assert note is None
    assert _lines(markdown, "- **Last verified:**") == [
        "- **Last verified:** passed 2026-12-02 10:00 UTC (0.4 s)",
        "- **Last verified:** failed 2026-12-02 10:00 UTC (1.2 s): it exited 1",
        "- **Last verified:** skipped in the run started 2026-12-02 10:00 UTC: depends on b, which failed"]
    assert _lines(markdown, "## Last verify") == [
        "Started 2026-12-02 10:00 UTC at commit `0123456789ab`: 1 passed, 1 failed, 1 skipped;"
        " did not pass: `b` (failed), `c` (skipped). Receipts: `evidence-plan.verify.json`."]
    assert '<h3><code>a</code><span class="tag">passed</span></h3>' in html
    assert '<h3><code>b</code><span class="tag flag">failed</span></h3>' in html
    assert "<dt>Last verified</dt><dd>failed 2026-12-02 10:00 UTC (1.2 s): it exited 1</dd>" in html
    assert "<b>b</b> · last verify: failed<br>" in html  # the box's pop-up in the graph


@pytest.mark.slow
def test_every_result_of_the_format_is_shown_and_the_passing_ones_pass(plan: Path) -> None:
    for result, passing in (("passed", True), ("approved", True), ("cached", True), ("flaky", True),
                            ("failed", False), ("timed-out", False), ("skipped", False), ("unapproved", False)):
        # A cached receipt names the start of the run whose pass it reuses, and ran nothing.
        started = {"cached": "2026-12-01T09:00:00Z", "approved": None, "skipped": None, "unapproved": None}.get(
            result, STARTED)
        markdown, html, note = _pages(plan, _receipts(plan, [_item("a", result, "why", started=started)]))
        assert note is None
        (line,) = _lines(markdown, "- **Last verified:**")
        assert line.startswith(f"- **Last verified:** {result} ")
        ran = result not in ("approved", "cached", "skipped", "unapproved")
        assert line.startswith(f"- **Last verified:** {result} 2026-12-02 10:00 UTC (0.5 s)" if ran else
                               f"- **Last verified:** {result} in the run started 2026-12-02 10:00 UTC"), line
        assert line.endswith(": why") != (result in ("passed", "approved")), result  # the reason of the rest
        assert (f"did not pass: `a` ({result})" in markdown) != passing
        assert f'<span class="tag{"" if passing else " flag"}">{result}</span>' in html


def test_an_item_whose_proof_changed_since_shows_that_never_the_old_result(plan: Path) -> None:
    receipts = _receipts(plan, [_item("a", "passed", "it exited 0", command="python3 -m unittest tests"),
                                _item("b", "failed", "it exited 1", command="grep 409 docs/api.md")])
    markdown, html, _ = _pages(plan, receipts)
    assert _lines(markdown, "- **Last verified:**") == [
        "- **Last verified:** its proof changed since its last verify (the run started 2026-12-02 10:00 UTC)"] * 2
    assert "did not pass" not in markdown  # b's failure was of another command
    assert "Receipts: `evidence-plan.verify.json`." in markdown and "The items changed" not in markdown
    assert "tag flag" not in html and "tag\">passed" not in html
    assert "· proof changed since its last verify<br>" in html


def test_receipts_of_an_earlier_revision_say_so(plan: Path) -> None:
    receipts = _receipts(plan, [_item("a", "passed", "it exited 0")], plan_digest="0" * 32)
    markdown, html, note = _pages(plan, receipts)
    assert note is None
    (line,) = _lines(markdown, "## Last verify")
    assert line.endswith("These are the results of an earlier revision of the plan: its items changed since, and an"
                         " item's result is shown only while its proof is the command that ran.")
    assert "These are the results of an earlier revision of the plan" in html
    assert _lines(markdown, "- **Last verified:**") == ["- **Last verified:** passed 2026-12-02 10:00 UTC (0.5 s)"]


def test_receipts_of_another_plan_whose_items_differ_are_not_shown(plan: Path) -> None:
    plain, plain_html, _ = _pages(plan, None)
    receipts = _receipts(plan, [_item("a", "passed", "it exited 0")], plan_digest="0" * 32, source="other.yaml")
    markdown, html, note = _pages(plan, receipts)
    assert (markdown, html) == (plain, plain_html)
    assert note == f"{plan.parent / RECEIPTS} is not shown on the pages: it is of another plan (other.yaml) whose" \
                   " items differ"
    # The same items from another file (the plan moved, or copied): shown.
    markdown, _, note = _pages(plan, _receipts(plan, [_item("a", "passed", "it exited 0")], source="old/plan.yaml"))
    assert note is None and "- **Last verified:** passed" in markdown


def test_the_run_line_says_uncommitted_changes_interrupted_no_commit_and_counts_the_rest(plan: Path) -> None:
    items = [_item("a", "failed", "it exited 1"), _item("b", "failed", "it exited 2")]
    markdown, _, _ = _pages(plan, _receipts(plan, items, dirty=True, interrupted=True))
    (line,) = _lines(markdown, "## Last verify")
    assert line == ("Started 2026-12-02 10:00 UTC at commit `0123456789ab` with uncommitted changes,"
                    " interrupted: 2 failed; did not pass: `a` (failed), `b` (failed). Receipts:"
                    " `evidence-plan.verify.json`.")
    markdown, _, _ = _pages(plan, _receipts(plan, [], commit=None, dirty=None, started=None))
    assert _lines(markdown, "## Last verify") == [
        "Started at a time it does not record: no item. Receipts: `evidence-plan.verify.json`."]
    assert not _lines(markdown, "- **Last verified:**")


def test_an_item_the_plan_no_longer_has_is_counted_not_shown(plan: Path) -> None:
    receipts = _receipts(plan, [_item("a", "passed", "it exited 0")])
    receipts["items"].append({**_item("a", "failed", "it exited 1"), "id": "gone"})
    markdown, _, _ = _pages(plan, receipts)
    assert "1 passed, 1 failed." in markdown and "`gone`" not in markdown


def test_receipt_text_cannot_inject_markdown_or_html(plan: Path) -> None:
    reason = "x <img src=x onerror=alert(1)> [a](javascript:alert(1)) @octocat *b* `c`\n# h\n| d |\x1b[31m"
    receipts = _receipts(plan, [_item("a", "failed", reason, command="<b>not shown</b>")])
    receipts["items"].append(_item("b", "failed", reason))
    receipts["commit"] = "`<i>1234567890abcdef"
    markdown, html, _ = _pages(plan, receipts)
    (line,) = _lines(markdown, "- **Last verified:**")[1:]
    assert line == ("- **Last verified:** failed 2026-12-02 10:00 UTC (0.5 s): x &lt;img src=x onerror=alert(1)&gt;"
                    " \\[a\\](javascript:alert(1)) @&#8288;octocat \\*b\\* `c`\\")
    assert "\n\\# h\\\n\\| d \\|\\\\x1b\\[31m\n" in markdown
    assert "at commit `` `<i>12345678 ``:" in markdown
    assert "<img" not in html and "<i>1234" not in html and "\x1b" not in html and "<b>not shown" not in html
    assert ("failed 2026-12-02 10:00 UTC (0.5 s): x &lt;img src=x onerror=alert(1)&gt; [a](javascript:alert(1))"
            " @octocat *b* `c`\\n# h\\n| d |\\x1b[31m</dd>") in html
    assert "<b>not shown</b>" not in markdown  # the command is compared, never shown


BAD = {
    "not JSON": ("{", "it is not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
    "a list": ("[]", "it is not of the format verify writes (evidence-plan-verify/1)"),
    "another format": ('{"format": "evidence-plan-verify/2"}',
                       "it is not of the format verify writes (evidence-plan-verify/1)"),
}
BROKEN = {  # the receipts of a good file, one part broken: (the change, what the note says)
    "no digest": (lambda r: r.pop("plan_digest"), "its plan_digest is missing or not what the format says"),
    "items not a list": (lambda r: r.update(items={}), "its items is missing or not what the format says"),
    "dirty a string": (lambda r: r.update(dirty="yes"), "its dirty is missing or not what the format says"),
    "an unknown result": (lambda r: r["items"][1].update(result="great"), "its items[1] is not what the format says"),
    "seconds a string": (lambda r: r["items"][0].update(seconds="1"), "its items[0] is not what the format says"),
    "seconds true": (lambda r: r["items"][0].update(seconds=True), "its items[0] is not what the format says"),
    "an item not an object": (lambda r: r["items"].append(1), "its items[2] is not what the format says"),
    "two receipts of one item": (lambda r: r["items"].append(r["items"][0]),
                                 "it has two receipts of one item (a)"),
    "a time that is not one": (lambda r: r.update(started="yesterday"), "yesterday is not an ISO 8601 time"),
}


@pytest.mark.parametrize("case", [*BAD, *BROKEN])
def test_a_file_that_is_not_usable_receipts_is_not_shown_and_the_note_says_why(plan: Path, case: str) -> None:
    plain = _pages(plan, None)[:2]
    if case in BAD:
        text, why = BAD[case]
    else:
        receipts = _receipts(plan, [_item("a", "passed", "it exited 0"), _item("b", "failed", "it exited 1")])
        change, why = BROKEN[case]
        change(receipts)
        text = json.dumps(receipts)
    markdown, html, note = _pages(plan, text)
    assert (markdown, html) == plain
    assert note == f"{plan.parent / RECEIPTS} is not shown on the pages: {why}"


def test_compile_prints_the_note_and_succeeds(plan: Path) -> None:
    (plan.parent / RECEIPTS).write_text("{", encoding="utf-8")
    result = run("compile", str(plan))
    assert result.exit_code == 0
    assert f"note: {plan.parent / RECEIPTS} is not shown on the pages: it is not JSON" in result.stderr


@pytest.mark.parametrize("kind", ["folder", "symlink out of the repository", "not UTF-8"])
def test_receipts_that_cannot_be_read_are_a_note_never_a_traceback(plan: Path, tmp_path: Path, kind: str) -> None:
    (tmp_path / ".git").mkdir()
    target = tmp_path / RECEIPTS
    if kind == "folder":
        target.mkdir()
        why = "is a folder, not a plan file"
    elif kind == "not UTF-8":
        target.write_bytes(b'{"format": "\xff\xfe\xfa"}')
        why = "not UTF-8 (byte 0xff)"
    else:
        outside = tmp_path.parent / f"{tmp_path.name}-receipts.json"
        outside.write_text(json.dumps(_receipts(plan, [])), encoding="utf-8")
        target.symlink_to(outside)
        why = "is a symlink that leads outside the repository that holds it; it was not read"
    compiled = compile_to_folder(str(plan))
    assert compiled.note is not None and compiled.note.startswith(f"{target} is not shown on the pages: ")
    assert why in compiled.note
    assert "Last verif" not in (tmp_path / "evidence-plan.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_render_shows_the_receipts_beside_the_json_and_knows_its_items_digest(plan: Path, tmp_path: Path) -> None:
    """render is given the compiled JSON alone: the plan read back from it has the plan's digest,
    so receipts of this very plan are not taken for an earlier revision's."""
    (tmp_path / RECEIPTS).write_text(json.dumps(_receipts(plan, [_item("a", "passed", "it exited 0")])),
                                     encoding="utf-8")
    compiled = compile_to_folder(str(plan), html=True)
    md = run("render", str(tmp_path / "evidence-plan.json"), "-o", str(tmp_path / "again.md"))
    assert md.exit_code == 0 and "note" not in md.stderr
    again = (tmp_path / "again.md").read_text(encoding="utf-8")
    assert again == (tmp_path / "evidence-plan.md").read_text(encoding="utf-8")
    assert "- **Last verified:** passed" in again and "earlier revision" not in again
    page = run("render", str(tmp_path / "evidence-plan.json"), "--html")
    assert page.stdout == (tmp_path / "evidence-plan.html").read_text(encoding="utf-8")
    assert compiled.note is None
    # From standard input there is no folder beside it: nothing is looked for.
    piped = run("render", "-", input=(tmp_path / "evidence-plan.json").read_text(encoding="utf-8"))
    assert piped.exit_code == 0 and "Last verif" not in piped.stdout
    (tmp_path / RECEIPTS).write_text("[]", encoding="utf-8")
    noted = run("render", str(tmp_path / "evidence-plan.json"))
    assert noted.exit_code == 0 and "Last verif" not in noted.stdout
    assert "note: " in noted.stderr and "is not of the format verify writes" in noted.stderr


@pytest.mark.slow
def test_a_plan_without_receipts_imports_nothing_of_the_feature(plan: Path) -> None:
    """Compiling and rendering a plan with no receipts beside it: neither the reader nor the
    pages' part of it is imported (one os.path.exists is all it costs)."""
    code = ("import sys\nfrom compiler.cli import main\ncode = main(sys.argv[1:])\n"
            "print(sorted(m for m in sys.modules if m in ('compiler.api.results', 'compiler.render.verified',"
            " 'compiler.api.verify', 'compiler.api.receipts')),"
            " file=sys.stderr)\nsys.exit(code)")
    for argv in (["compile", str(plan), "--html"], ["render", str(plan.parent / "evidence-plan.json")]):
        done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=REPO,
                              check=False)
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines()[-1] == "[]", argv


def test_the_docs_show_lines_of_the_golden_page() -> None:
    """docs/reference/verify.md's example of the pages is lines of tests/golden/verified's page."""
    page = (REPO / "tests" / "golden" / "verified" / "evidence-plan.md").read_text(encoding="utf-8").splitlines()
    shown = docs_block("reference/verify.md", "verify-pages-example").splitlines()
    assert len(shown) == 6 and all(line in page for line in shown)
