"""`evidence-plan verify` (compiler/api/verify.py over compiler/api/processes.py), with real
subprocesses: proofs that pass, fail, time out leaving a grandchild, leave a process running,
print megabytes, read stdin; parallelism within a wave shown by marker files; dependents skipped;
approvals; the receipts."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from support import run

from compiler.api.processes import group_alive, run_proof
from compiler.api.receipts import JOURNAL, RECEIPTS
from compiler.api.verify import plan_steps, run_steps

pytestmark = pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")


def _plan(folder: Path, items: str) -> Path:
    (folder / ".git").mkdir(exist_ok=True)  # the repository's root
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    plan = folder / "plan.yaml"
    plan.write_text("items:\n" + items, encoding="utf-8")
    return plan


def _item(ident: str, proof: str, deps: str = "", extra: str = "") -> str:
    depends = f"\n    depends_on: [{deps}]" if deps else ""
    return (f"  - id: {ident}\n    change: c\n    evidence: [a.py]{depends}\n    proof: {json.dumps(proof)}\n"
            f"{extra}")


def _receipts(folder: Path) -> dict:
    return json.loads((folder / RECEIPTS).read_text(encoding="utf-8"))


def _results(folder: Path) -> dict[str, str]:
    return {item["id"]: item["result"] for item in _receipts(folder)["items"]}


def test_passing_failing_and_skipped_proofs_with_their_exit_codes(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("ok", "echo hello") + _item("bad", "echo oops >&2; exit 3")
                 + _item("after-bad", "touch ran-after-bad", "bad") + _item("after-ok", "true", "ok")
                 + _item("last", "true", "after-ok"))
    result = run("verify", str(plan), "--keep-going")
    assert result.exit_code == 1
    assert _results(tmp_path) == {"ok": "passed", "bad": "failed", "after-bad": "skipped", "after-ok": "passed",
                                  "last": "passed"}
    receipts = {item["id"]: item for item in _receipts(tmp_path)["items"]}
    bad = receipts["bad"]["attempts"][0]
    assert bad["exit_code"] == 3 and bad["stderr"]["head"] == "oops\n"
    assert receipts["after-bad"]["reason"] == "depends on bad, which failed"
    assert not (tmp_path / "ran-after-bad").exists()
    assert receipts["ok"]["attempts"][0]["stdout"] == {"head": "hello\n", "tail": "", "size": 6, "cut": False}
    assert "failed      wave 1  bad" in result.stdout and "    | oops" in result.stdout
    assert "plan.yaml: 3 passed, 1 failed, 1 skipped; receipts:" in result.stderr
    assert not (tmp_path / JOURNAL).exists()  # the receipts hold it all


@pytest.mark.parametrize("name", [JOURNAL, RECEIPTS])
def test_a_planted_symlink_out_of_the_repository_is_refused_before_anything_runs(tmp_path: Path, name: str) -> None:
    plan = _plan(tmp_path, _item("ok", "touch ran"))
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("keep\n", encoding="utf-8")
    (tmp_path / name).symlink_to(outside)
    result = run("verify", str(plan))
    assert result.exit_code == 2 and "which is outside the git work tree" in result.stderr
    assert outside.read_text(encoding="utf-8") == "keep\n" and not (tmp_path / "ran").exists()


def test_without_keep_going_no_later_wave_starts_after_a_failure(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("bad", "exit 1") + _item("ok", "true") + _item("next", "touch ran", "ok"))
    assert run("verify", str(plan)).exit_code == 1
    results = _receipts(tmp_path)["items"]
    assert [(r["id"], r["result"]) for r in results] == [("bad", "failed"), ("ok", "passed"), ("next", "skipped")]
    assert results[2]["reason"].startswith("the run stopped after wave 1, where bad did not pass")
    assert not (tmp_path / "ran").exists()


def test_every_proof_passing_exits_0_and_runs_in_the_repository_root(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("here", "test -f a.py && test -d .git"))
    (tmp_path / "sub").mkdir()
    result = run("verify", str(plan), "-o", str(tmp_path / "sub"))
    assert result.exit_code == 0, result.output
    assert _receipts(tmp_path / "sub")["status"] == "passed"
    assert _receipts(tmp_path / "sub")["source"] == "../plan.yaml"


def test_a_blocked_plan_runs_nothing(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("a", "touch ran", "ghost"))
    result = run("verify", str(plan))
    assert result.exit_code == 1
    assert "EP301" in result.output and "blocked: nothing was run" in result.stderr
    assert not (tmp_path / "ran").exists() and not (tmp_path / RECEIPTS).exists()


def test_given_ids_run_with_what_they_depend_on_and_an_unknown_id_is_an_input_error(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("base", "touch base") + _item("mid", "touch mid", "base")
                 + _item("top", "touch top", "mid") + _item("other", "touch other"))
    assert run("verify", str(plan), "mid").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name in ("base", "mid", "top", "other")) == ["base", "mid"]
    result = run("verify", str(plan), "mdi")
    assert result.exit_code == 2 and "cannot verify 'mdi': it is not an item of the plan (did you mean mid?)" in \
        result.stderr


def test_dry_run_runs_nothing(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("a", "touch ran"))
    result = run("verify", str(plan), "--dry-run")
    assert result.exit_code == 0 and "wave 1  a  runs: touch ran" in result.stdout
    assert not (tmp_path / "ran").exists() and not (tmp_path / RECEIPTS).exists()
    as_json = json.loads(run("verify", str(plan), "--dry-run", "--format", "json").stdout)
    assert as_json == {"dry_run": True, "items": [{"id": "a", "wave": 1, "command": "touch ran", "approval": None,
                                                   "locks": []}]}


def test_a_done_item_is_verified_and_a_dropped_one_is_not_run(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("done-one", "touch done", extra="    status: done\n")
                 + _item("gone", "touch gone", extra="    status: dropped\n    reason: not needed\n"))
    assert run("verify", str(plan)).exit_code == 0
    assert (tmp_path / "done").exists() and not (tmp_path / "gone").exists()
    assert _results(tmp_path) == {"done-one": "passed"}


def test_an_approval_runs_nothing_and_an_unrecorded_one_stops_the_run(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("work", "true") + _item("sign-off", "touch approval-ran", "work",
                                                         "    kind: approval\n")
                 + _item("release", "touch released", "sign-off", "    irreversible: true\n"))
    result = run("verify", str(plan))
    assert result.exit_code == 1
    receipts = {r["id"]: r for r in _receipts(tmp_path)["items"]}
    assert receipts["sign-off"]["result"] == "unapproved"
    assert "evidence-plan approve PLAN sign-off --by NAME" in receipts["sign-off"]["reason"]
    assert receipts["release"]["result"] == "skipped"
    assert not (tmp_path / "approval-ran").exists() and not (tmp_path / "released").exists()
    approved = run("approve", str(plan), "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z")
    assert approved.exit_code == 0, approved.output
    assert run("verify", str(plan)).exit_code == 0
    assert _results(tmp_path) == {"work": "cached", "sign-off": "approved", "release": "passed"}
    assert not (tmp_path / "approval-ran").exists()


def test_proofs_of_one_wave_run_at_once_up_to_jobs(tmp_path: Path) -> None:
    # Each proof leaves its marker, then waits for the other's: both pass only when they run together.
    wait = "for i in $(seq 1 100); do test -f {other} && exit 0; sleep 0.05; done; exit 1"
    plan = _plan(tmp_path, _item("left", "touch left.m; " + wait.format(other="right.m"))
                 + _item("right", "touch right.m; " + wait.format(other="left.m")))
    assert run("verify", str(plan), "--jobs", "2").exit_code == 0
    for marker in ("left.m", "right.m"):
        (tmp_path / marker).unlink()
    # One at a time (and not cached): the first waits in vain.
    assert run("verify", str(plan), "--jobs", "1", "--no-cache").exit_code == 1


def test_items_that_name_the_same_lock_never_run_at_once(tmp_path: Path) -> None:
    log = "echo start {0} >> log; sleep 0.3; echo end {0} >> log"
    plan = _plan(tmp_path, _item("one", log.format("one"), extra="    locks: [db]\n")
                 + _item("two", log.format("two"), extra="    locks: [db, port-8080]\n")
                 + _item("free", "sleep 0.1"))
    assert run("verify", str(plan), "--jobs", "3").exit_code == 0
    lines = (tmp_path / "log").read_text(encoding="utf-8").split()
    assert lines in (["start", "one", "end", "one", "start", "two", "end", "two"],
                     ["start", "two", "end", "two", "start", "one", "end", "one"])
    assert _receipts(tmp_path)["items"][0]["wave"] == _receipts(tmp_path)["items"][1]["wave"] == 1  # waves as they were


@pytest.fixture(params=["pidfd", "threads"])
def both_ways(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """run_proof's fast path (one poll loop over the pipes and a pidfd) and its slow path (a reader
    thread per pipe and Popen's wait, where there is no pidfd): each test below holds both."""
    from compiler.api import processes

    if request.param == "threads":
        monkeypatch.setattr(processes, "_pidfd", lambda pid: None)
    elif processes._pidfd(os.getpid()) is None:
        pytest.skip("no pidfd here (Linux 5.3+)")
    return str(request.param)


_DIFFERENTIAL = ["true", "exit 3", "echo out; echo err >&2", "kill -TERM $$", "printf 'a\\377b'",
                 "yes x | head -c 200000", "sleep 300 & echo left", "cat", "exec >&-; echo gone >&2"]


def _same(outcome: object) -> tuple:
    o = outcome._asdict()  # type: ignore[attr-defined]
    return tuple(v for k, v in o.items() if k not in ("started", "seconds"))


def test_both_ways_of_running_a_proof_give_the_same_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.api import processes

    fast = [_same(run_proof(c, str(tmp_path), timeout=30, grace=1, kept=1000)) for c in _DIFFERENTIAL]
    monkeypatch.setattr(processes, "_pidfd", lambda pid: None)
    slow = [_same(run_proof(c, str(tmp_path), timeout=30, grace=1, kept=1000)) for c in _DIFFERENTIAL]
    assert fast == slow
    assert [f[0] for f in fast] == [0, 3, 0, None, 0, 0, 0, 0, 0]


def test_a_proof_past_its_timeout_is_ended_with_its_grandchild(tmp_path: Path, both_ways: str) -> None:
    outcome = run_proof("sleep 300 & echo $! > child.pid; sleep 300", str(tmp_path), timeout=1, grace=1)
    assert outcome.timed_out and not outcome.passed and outcome.signal == "SIGTERM"
    assert not outcome.survivors
    child = int((tmp_path / "child.pid").read_text(encoding="utf-8"))
    assert not _alive(child)


def test_what_a_passing_proof_leaves_running_is_ended(tmp_path: Path, both_ways: str) -> None:
    outcome = run_proof("sleep 300 & echo $! > child.pid; echo started", str(tmp_path), timeout=30, grace=1)
    assert outcome.passed and outcome.leftovers == "SIGTERM" and not outcome.survivors
    assert not _alive(int((tmp_path / "child.pid").read_text(encoding="utf-8")))


def test_a_proof_that_ignores_sigterm_gets_sigkill(tmp_path: Path, both_ways: str) -> None:
    outcome = run_proof("trap '' TERM; sleep 300", str(tmp_path), timeout=1, grace=0.5)
    assert outcome.timed_out and outcome.signal == "SIGKILL" and not outcome.survivors


def test_megabytes_of_output_are_kept_as_head_and_tail_with_the_size(tmp_path: Path, both_ways: str) -> None:
    outcome = run_proof("yes 0123456789 | head -c 5000000; echo END", str(tmp_path), kept=1000)
    assert outcome.passed and outcome.stdout.size == 5_000_004
    assert len(outcome.stdout.head) == 1000 and outcome.stdout.head.startswith("0123456789\n")
    assert len(outcome.stdout.tail) == 1000 and outcome.stdout.tail.endswith("END\n")
    assert outcome.stdout.to_dict()["cut"] is True


def test_a_proof_reads_no_standard_input(tmp_path: Path, both_ways: str) -> None:
    outcome = run_proof("cat; read line || echo no input", str(tmp_path), timeout=10)
    assert outcome.passed and outcome.stdout.head == "no input\n"


def test_proof_output_cannot_steer_a_ci_log(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("loud", "echo '::error file=x::forged'; printf '\\033[31mred\\n'; exit 1"))
    result = run("verify", str(plan))
    assert result.exit_code == 1
    assert "    | ::error file=x::forged" in result.stdout  # shown, after a gutter: the runner reads "::" only
    assert not [line for line in result.output.splitlines() if line.lstrip().startswith("::")]  # first on a line
    assert "\x1b" not in result.stdout and "    | \\x1b[31mred" in result.stdout  # a control character, escaped


def test_ctrl_c_ends_the_running_groups_and_keeps_what_finished(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("quick", "true") + _item("long", "sleep 300 & echo $! > child.pid; sleep 300"))
    result, steps = plan_steps(str(plan))
    assert result.status == "ready"
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    receipts, interrupted = run_steps(steps, result.root, jobs=2, timeout=60)
    assert interrupted
    got = {r.step.id: r for r in receipts}
    assert got["quick"].result == "passed"
    assert got["long"].result == "failed" and got["long"].reason == "interrupted (Ctrl-C)"
    deadline = time.monotonic() + 10
    child = int((tmp_path / "child.pid").read_text(encoding="utf-8"))
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_ctrl_c_starts_no_queued_proof_and_kills_one_that_ignores_sigterm(tmp_path: Path) -> None:
    # One at a time, in id order: "a-stubborn" runs (ignoring SIGTERM), "b-queued" waits for a worker.
    plan = _plan(tmp_path, _item("a-stubborn", "trap '' TERM; touch stubborn.ran; sleep 300")
                 + _item("b-queued", "touch queued.ran; sleep 300"))
    result, steps = plan_steps(str(plan))

    def interrupt() -> None:
        deadline = time.monotonic() + 30
        while not (tmp_path / "stubborn.ran").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    receipts, interrupted = run_steps(steps, result.root, jobs=1, timeout=600)
    assert interrupted
    assert [(r.step.id, r.result, r.outcome.signal if r.outcome else None) for r in receipts] == [
        ("a-stubborn", "failed", "SIGKILL")]  # SIGTERM ignored: SIGKILL once the grace passed
    assert not (tmp_path / "queued.ran").exists()  # cancelled before it started


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] not in (b"Z", b"X")


def test_a_proof_that_cannot_start_is_a_failure_not_a_traceback(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("a", "true"))
    _, steps = plan_steps(str(plan))
    receipts, interrupted = run_steps(steps, str(tmp_path / "no-such-folder"), jobs=1, timeout=10)
    assert not interrupted and [(r.result, r.reason.startswith("it could not start")) for r in receipts] == [
        ("failed", True)]


def test_group_alive_sees_a_live_group_and_not_an_ended_one(tmp_path: Path) -> None:
    import subprocess

    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert group_alive(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert not group_alive(proc.pid)


def test_github_format_annotates_each_item_that_did_not_pass_at_its_line(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("ok", "true") + _item("bad", "echo '::error::forged'; exit 3")
                 + _item("after", "true", "bad"))
    result = run("verify", str(plan), "--format", "github", "--keep-going")
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert lines[0].startswith(f"::error file={plan},line=6,title=verify%3A bad failed::it exited 3%0A| :")
    data = lines[0].split("::", 2)[2]  # the message: no line of it, once the runner puts the breaks back, a command
    assert not [part for part in data.split("%0A") if part.lstrip().startswith("::")]
    assert lines[1] == f"::warning file={plan},line=10,title=verify%3A after skipped::depends on bad, which failed"
    assert len(lines) == 2


def test_github_format_stays_within_ten_annotations_of_each_kind(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "".join(_item(f"bad-{n}", "exit 1") for n in range(13)))
    result = run("verify", str(plan), "--format", "github")
    commands = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert sum(line.startswith("::error ") for line in commands) == 10
    assert commands[-1] == "::notice title=verify::3 more errors: evidence-plan.verify.json lists every item"


def test_resume_goes_on_from_an_interrupted_run_without_running_what_passed(tmp_path: Path) -> None:
    import subprocess
    import sys

    from support import REPO

    plan = _plan(tmp_path, _item("first", "echo x >> first.count")
                 + _item("second", "echo x >> second.count; test -f go || sleep 60", "first"))
    proc = subprocess.Popen([sys.executable, "-m", "compiler", "verify", str(plan)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not (tmp_path / "second.count").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert (tmp_path / JOURNAL).exists()  # kept for --resume
    (tmp_path / "go").touch()
    result = run("verify", str(plan), "--resume")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "first.count").read_text(encoding="utf-8") == "x\n"  # not run again
    assert (tmp_path / "second.count").read_text(encoding="utf-8") == "x\nx\n"
    receipts = {r["id"]: r for r in _receipts(tmp_path)["items"]}
    assert receipts["first"]["reason"].startswith("passed in the interrupted run, started ")
    assert not (tmp_path / JOURNAL).exists()


def test_resume_refuses_another_plans_journal_and_a_missing_one(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("a", "touch ran"))
    result = run("verify", str(plan), "--resume")
    assert result.exit_code == 2 and "cannot resume: no interrupted run's journal is here" in result.stderr
    (tmp_path / JOURNAL).write_text(json.dumps({"format": "evidence-plan-verify/1", "plan_digest": "0" * 32}) + "\n"
                                    + json.dumps({"id": "a", "result": "passed"}) + "\n", encoding="utf-8")
    result = run("verify", str(plan), "--resume")
    assert result.exit_code == 2 and "the journal is of another plan" in result.stderr
    assert not (tmp_path / "ran").exists()
