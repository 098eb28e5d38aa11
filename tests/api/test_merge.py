"""`evidence-plan verify --merge RECEIPT...` (compiler/api/merge.py, compiler/commands/_verify_reports.py):
the receipts of runs of chunks of one plan made one. First on receipts made by hand (what is
refused, where; which of two receipts of an item is kept), then on the receipts of real runs of
chunks of a small plan."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from receipts import attempt, document, item, valid_junit
from support import run

from compiler.api.receipts import RECEIPTS

pytestmark = pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")


def _write(path: Path, data: dict[str, Any]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return str(path)


def _merged(folder: Path) -> dict[str, Any]:
    return json.loads((folder / RECEIPTS).read_text(encoding="utf-8"))


def _position(path: str, needle: str) -> str:
    """``path:line:column`` of the first character of ``needle`` in the file."""
    text = Path(path).read_text(encoding="utf-8")
    at = text.index(needle)
    line = text.count("\n", 0, at) + 1
    return f"{path}:{line}:{at - text.rfind(chr(10), 0, at)}"


def test_receipts_of_disjoint_chunks_make_one_in_wave_order(tmp_path: Path) -> None:
    one = _write(tmp_path / "1" / RECEIPTS, document([item("b"), item("z", wave=2)], source="../plan.yaml"))
    two = _write(tmp_path / "2" / RECEIPTS, document([item("a", "cached"), item("c", "flaky", wave=2)],
                                                     started="2026-12-02T09:00:00Z", source="../plan.yaml"))
    result = run("verify", "--merge", one, two, "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output  # passed, cached and flaky all pass
    merged = _merged(tmp_path / "out")
    assert [(i["id"], i["wave"]) for i in merged["items"]] == [("a", 1), ("b", 1), ("c", 2), ("z", 2)]
    assert merged["counts"] == {"passed": 2, "approved": 0, "cached": 1, "flaky": 1, "failed": 0, "timed-out": 0,
                                "skipped": 0, "unapproved": 0}
    assert (merged["status"], merged["started"], merged["source"], merged["format"]) == (
        "passed", "2026-12-02T09:00:00Z", "../plan.yaml", "evidence-plan-verify/1")
    assert sorted(merged["cache"]) == ["b", "c", "z"]
    assert result.stderr.endswith(f"2 receipts merged: 2 passed, 1 cached, 1 flaky; receipts:"
                                  f" {tmp_path / 'out' / RECEIPTS}\n")


def test_an_item_in_two_receipts_keeps_the_one_decided_last_and_says_so(tmp_path: Path) -> None:
    early, late = "2026-12-02T10:00:00Z", "2026-12-02T10:05:00Z"
    first = _write(tmp_path / "late.json", document([item("a", "failed", started=late, attempts=[attempt(1)]),
                                                     item("b", started=late)], started=late))
    second = _write(tmp_path / "early.json", document([item("a", started=early), item("b", "failed", started=early)],
                                                      started=early))
    result = run("verify", "--merge", first, second, "-o", str(tmp_path / "out"))  # the later given first
    assert result.exit_code == 1
    assert {i["id"]: i["result"] for i in _merged(tmp_path / "out")["items"]} == {"a": "failed", "b": "passed"}
    assert f"a is in 2 receipts: kept {first}'s (failed, decided {late}), the later\n" in result.stderr
    assert f"b is in 2 receipts: kept {first}'s (passed, decided {late}), the later\n" in result.stderr


def test_an_item_that_ran_nothing_is_decided_when_its_run_started(tmp_path: Path) -> None:
    ran = _write(tmp_path / "ran.json", document([item("a", started="2026-12-02T10:00:00Z")],
                                                 started="2026-12-02T10:00:00Z"))
    skipped = _write(tmp_path / "skipped.json", document([item("a", "skipped", reason="depends on x, which failed")],
                                                         started="2026-12-02T11:00:00Z"))
    assert run("verify", "--merge", skipped, ran, "-o", str(tmp_path / "out")).exit_code == 1
    assert _merged(tmp_path / "out")["items"][0]["result"] == "skipped"  # the later run's word


@pytest.mark.parametrize("against", ["passed", "failed"])
def test_under_strict_a_flaky_item_or_one_that_passes_without_the_change_fails_the_merge(tmp_path: Path,
                                                                                      against: str) -> None:
    control = {"rev": "HEAD~1", "commit": "b" * 40, "result": against, "exit_code": 0, "seconds": 0.1}
    one = _write(tmp_path / "r.json", document([item("a", "flaky"), {**item("b"), "against": control}]))
    assert run("verify", "--merge", one, "-o", str(tmp_path / "out")).exit_code == 0
    assert run("verify", "--merge", one, "--strict", "-o", str(tmp_path / "strict")).exit_code == 1
    only_b = _write(tmp_path / "b.json", document([{**item("b"), "against": control}]))
    assert run("verify", "--merge", only_b, "--strict", "-o", str(tmp_path / "b")).exit_code == (
        1 if against == "passed" else 0)


def test_an_interrupted_run_among_them_fails_the_merge(tmp_path: Path) -> None:
    cut = document([item("a")])
    cut["interrupted"] = True
    result = run("verify", "--merge", _write(tmp_path / "r.json", cut), "-o", str(tmp_path / "out"))
    assert result.exit_code == 1 and "(a run was interrupted)" in result.stderr
    assert _merged(tmp_path / "out")["status"] == "failed"


def test_receipts_of_another_plan_are_refused_at_their_digest(tmp_path: Path) -> None:
    one = _write(tmp_path / "one.json", document([item("a")]))
    other = _write(tmp_path / "other.json", document([item("b")], digest="e" * 64))
    result = run("verify", "--merge", one, other, "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{_position(other, chr(34) + 'eeee')}: error EP001 cannot merge: its plan digest"
                                    f" eeeeeeeeeeee... is not that of {one} (dddddddddddd...)\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("content", "message", "needle"), [
    ({"format": "evidence-plan/1", "items": []}, "cannot merge: it is not receipts of verify (its format is"
     " 'evidence-plan/1', not 'evidence-plan-verify/1')", '"evidence-plan/1"'),
    ({**document([item("a")]), "items": [{"id": "a", "wave": 1, "result": "great"}]}, "cannot merge: a has the"
     " result 'great', which verify does not write (passed, approved, cached, flaky, failed, timed-out, skipped,"
     " unapproved)", '"great"'),
    ({**document([]), "items": [{"wave": 1}]}, "cannot merge: item 1 has no id or no wave", '{\n      "wave"'),
    (document([item("a"), item("b"), item("b", "failed")]), "cannot merge: b has two receipts in it",
     '"b",\n      "wave": 1,\n      "line": 3,\n      "command": "true",\n      "result": "failed"'),
])
def test_a_file_that_is_not_receipts_is_refused_where_it_says_so(tmp_path: Path, content: dict[str, Any],
                                                                 message: str, needle: str) -> None:
    path = _write(tmp_path / "bad.json", content)
    result = run("verify", "--merge", path, "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{_position(path, needle)}: error EP001 {message}\n")


def test_unreadable_json_and_a_missing_file_are_input_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "format": "evidence-plan-verify/1",\n  "items": [1,]\n}\n', encoding="utf-8")
    result = run("verify", "--merge", str(broken), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{broken}:3:14: error EP002 invalid JSON: a comma before the closing ]\n")
    result = run("verify", "--merge", str(tmp_path / "nothing.json"))
    assert result.exit_code == 2 and result.stderr.startswith(f"{tmp_path / 'nothing.json'}: error EP001 no such file")


def test_a_merge_never_writes_over_a_receipts_file_it_reads(tmp_path: Path) -> None:
    one = _write(tmp_path / RECEIPTS, document([item("a")]))
    before = Path(one).read_text(encoding="utf-8")
    result = run("verify", "--merge", one, "-o", str(tmp_path))
    assert result.exit_code == 2 and "which this command reads" in result.stderr
    assert Path(one).read_text(encoding="utf-8") == before


def test_merge_runs_nothing_and_refuses_the_options_of_a_run(tmp_path: Path) -> None:
    one = _write(tmp_path / "one.json", document([item("a")]))
    result = run("verify", "--merge", one, "--dry-run")
    assert result.exit_code == 2 and "--merge runs nothing: --dry-run and --resume do not go with it" in result.output


# --- real runs of chunks of one plan ---------------------------------------------------------------


def _plan(folder: Path) -> Path:
    """Wave 1: a, b, c; wave 2: d, which depends on a and b. The first run of a fails (slowly),
    any later one passes: the receipt kept for a says which run was later."""
    (folder / ".git").mkdir()
    (folder / "x.py").write_text("x = 1\n", encoding="utf-8")
    proofs = {"c": "echo c",  # first in the plan, third in its wave (ids sorted)
              "a": "echo ran >> a.count; test $(wc -l < a.count) -ge 2 || { sleep 1; echo first run >&2; exit 1; }",
              "b": "true", "d": "true"}
    items = "".join(f"  - id: {ident}\n    change: c\n    evidence: [x.py]\n"
                    f"{'    depends_on: [a, b]' + chr(10) if ident == 'd' else ''}    proof: {json.dumps(proof)}\n"
                    for ident, proof in proofs.items())
    plan = folder / "plan.yaml"
    plan.write_text("items:\n" + items, encoding="utf-8")
    return plan


@pytest.mark.slow
def test_the_receipts_of_real_runs_of_two_chunks_merge_into_those_of_one_run(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    plan = _plan(tmp_path)
    # Two CI jobs: one verifies a and b (a fails: its first run), the next c and d (which runs a and
    # b again, as d depends on them: a passes now, a second later).
    first = run("verify", str(plan), "a", "b", "-o", str(tmp_path / "chunk-1"))
    assert first.exit_code == 1, first.output
    second = run("verify", str(plan), "c", "d", "-o", str(tmp_path / "chunk-2"))
    assert second.exit_code == 0, second.output
    chunks = [str(tmp_path / "chunk-2" / RECEIPTS), str(tmp_path / "chunk-1" / RECEIPTS)]  # the later first
    out = tmp_path / "merged"
    result = run("verify", "--merge", *chunks, "-o", str(out), "--junit", str(out / "verify.xml"),
                 "--summary", str(out / "summary.md"))
    assert result.exit_code == 0, result.output  # a's later receipt passed
    merged = _merged(out)
    assert [(i["id"], i["result"]) for i in merged["items"]] == [("a", "passed"), ("b", "passed"), ("c", "passed"),
                                                                  ("d", "passed")]
    assert merged["source"] == "../plan.yaml" and merged["status"] == "passed"
    kept = json.loads(Path(chunks[0]).read_text(encoding="utf-8"))["items"]
    assert merged["items"][0] == next(i for i in kept if i["id"] == "a")  # chunk 2's receipt, as it was
    assert f"a is in 2 receipts: kept {chunks[0]}'s (passed, decided " in result.stderr
    assert "b is in 2 receipts: kept " in result.stderr
    # The order and the items of one run of the whole plan.
    (tmp_path / "a.count").unlink()
    (tmp_path / "a.count").write_text("ran\n", encoding="utf-8")
    whole = run("verify", str(plan), "-o", str(tmp_path / "whole"))
    assert whole.exit_code == 0, whole.output
    assert [i["id"] for i in _merged(tmp_path / "whole")["items"]] == [i["id"] for i in merged["items"]]
    assert _merged(tmp_path / "whole")["plan_digest"] == merged["plan_digest"]
    cases = valid_junit((out / "verify.xml").read_text(encoding="utf-8")).iter("testcase")
    assert [(c.get("classname"), c.get("name"), c.get("file")) for c in cases] == [
        ("wave 1", "a", str(plan)), ("wave 1", "b", str(plan)), ("wave 1", "c", str(plan)), ("wave 2", "d", str(plan))]
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith(f"## evidence-plan verify `{plan}`\n\n**passed**: 4 passed")
    assert f"- a is in 2 receipts: kept `{chunks[0]}`" not in summary  # notes are text, escaped as text
    # Another plan's receipts (the plan changed since) are refused.
    plan.write_text(plan.read_text(encoding="utf-8").replace("echo c", "echo C"), encoding="utf-8")
    assert run("verify", str(plan), "c", "-o", str(tmp_path / "changed")).exit_code == 0
    refused = run("verify", "--merge", chunks[1], str(tmp_path / "changed" / RECEIPTS), "-o", str(tmp_path / "no"))
    assert refused.exit_code == 2 and "cannot merge: its plan digest" in refused.stderr


def test_merge_appends_its_summary_to_the_github_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "step.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    one = _write(tmp_path / "r" / RECEIPTS, document([item("a"), item("b", "failed")]))
    assert run("verify", "--merge", one, "-o", str(tmp_path / "out")).exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n## evidence-plan verify `")
    assert "**failed**: 1 passed, 1 failed" in text
