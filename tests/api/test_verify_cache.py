"""`verify`'s cache, retries and flaky proofs (compiler/api/cache.py, compiler/api/verify.py), and
what the receipts say of the run (compiler/api/receipts.py), with real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import run

from compiler.api import cache
from compiler.api.receipts import RECEIPTS
from compiler.core import globs

pytestmark = pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")


def _plan(folder: Path, body: str) -> Path:
    (folder / ".git").mkdir(exist_ok=True)
    (folder / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (folder / "b.py").write_text("z = 3\n", encoding="utf-8")
    plan = folder / "plan.yaml"
    plan.write_text("items:\n" + body, encoding="utf-8")
    return plan


def _item(ident: str, proof: str, *, evidence: str = "a.py:1", deps: str = "", extra: str = "") -> str:
    depends = f"\n    depends_on: [{deps}]" if deps else ""
    return (f"  - id: {ident}\n    change: c\n    evidence: [{json.dumps(evidence)}]{depends}\n"
            f"    proof: {json.dumps(proof)}\n{extra}")


def _items(folder: Path) -> dict[str, dict]:
    return {r["id"]: r for r in json.loads((folder / RECEIPTS).read_text(encoding="utf-8"))["items"]}


def _line(output: str, ident: str) -> str:
    return next(line for line in output.splitlines() if f"  {ident}" in line and "wave" in line)


def test_an_unchanged_item_is_cached_and_runs_again_once_a_cited_line_changed_saying_so(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("impl", "echo x >> impl.count") + _item("docs", "echo x >> docs.count", deps="impl",
                                                                          evidence="b.py"))
    first = run("verify", str(plan))
    assert first.exit_code == 0, first.output
    assert "(ran: never ran; it exited 0)" in _line(first.stdout, "impl")
    second = run("verify", str(plan))
    assert second.exit_code == 0
    assert _line(second.stdout, "impl").startswith("cached      wave 1  impl  (up to date: it passed at ")
    assert _line(second.stdout, "docs").startswith("cached      wave 2  docs")
    assert (tmp_path / "impl.count").read_text() == "x\n" and (tmp_path / "docs.count").read_text() == "x\n"
    assert "2 cached" in second.stderr
    (tmp_path / "a.py").write_text("x = 1\ny = 20\n", encoding="utf-8")  # a line no item cites
    assert run("verify", str(plan)).exit_code == 0
    assert (tmp_path / "impl.count").read_text() == "x\n"
    (tmp_path / "a.py").write_text("x = 10\ny = 20\n", encoding="utf-8")  # the cited line
    third = run("verify", str(plan))
    assert third.exit_code == 0
    assert "(ran: a.py:1 changed; it exited 0)" in _line(third.stdout, "impl")
    assert "(ran: depends on impl, which ran; it exited 0)" in _line(third.stdout, "docs")
    items = _items(tmp_path)
    assert items["impl"]["ran_because"] == "a.py:1 changed" and items["impl"]["result"] == "passed"
    assert (tmp_path / "impl.count").read_text() == "x\nx\n"


def test_a_changed_proof_or_a_changed_cited_file_runs_again(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("whole", "true", evidence="b.py"))
    assert run("verify", str(plan)).exit_code == 0
    (tmp_path / "b.py").write_text("z = 4\n", encoding="utf-8")
    assert "(ran: b.py:1 changed; it exited 0)" in run("verify", str(plan)).stdout  # a whole file: its lines
    plan.write_text(plan.read_text().replace('proof: "true"', 'proof: "true; true"'), encoding="utf-8")
    assert "(ran: its proof changed; it exited 0)" in run("verify", str(plan)).stdout


def test_the_files_under_paths_are_inputs(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("gen", "true", extra="    paths: [out/, '*.cfg']\n"))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "one.txt").write_text("1", encoding="utf-8")
    assert run("verify", str(plan)).exit_code == 0
    (tmp_path / "out" / "one.txt").write_text("2", encoding="utf-8")
    assert "(ran: out/one.txt changed; it exited 0)" in run("verify", str(plan)).stdout
    (tmp_path / "app.cfg").write_text("k=v", encoding="utf-8")
    assert "(ran: app.cfg is new among its inputs; it exited 0)" in run("verify", str(plan)).stdout
    (tmp_path / "out" / "one.txt").unlink()
    assert "(ran: out/one.txt is no longer among its inputs; it exited 0)" in run("verify", str(plan)).stdout


def test_no_cache_runs_everything_and_a_result_that_changed_with_the_same_key_is_flaky(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("shaky", "test -f ok"))  # "ok" is no input of the item: its key stays
    assert run("verify", str(plan)).exit_code == 1
    (tmp_path / "ok").touch()
    again = run("verify", str(plan))
    assert again.exit_code == 0  # flaky passes, but is never silently passed
    line = _line(again.stdout, "shaky")
    assert line.startswith("flaky       wave 1  shaky")
    assert "(ran: failed last time; it exited 0, where it failed at " in line and "with the same inputs)" in line
    assert "1 flaky" in again.stderr
    assert run("verify", str(plan), "--strict", "--no-cache").exit_code == 0  # passed last time: plain passed
    (tmp_path / "ok").unlink()
    failed = run("verify", str(plan), "--no-cache")
    assert failed.exit_code == 1
    assert "(ran: --no-cache; it exited 1; flaky: it passed at " in _line(failed.stdout, "shaky")


def test_retries_make_a_proof_that_fails_then_passes_flaky_with_every_attempt_kept(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("once", "test -f tried || { touch tried; echo first >&2; exit 1; }")
                 + _item("never", "echo no; exit 4", evidence="b.py"))
    result = run("verify", str(plan), "--retries", "2", "--keep-going")
    assert result.exit_code == 1
    items = _items(tmp_path)
    assert items["once"]["result"] == "flaky" and items["once"]["reason"] == "it failed, then passed at attempt 2"
    assert [a["exit_code"] for a in items["once"]["attempts"]] == [1, 0]
    assert items["once"]["attempts"][0]["stderr"]["head"] == "first\n"
    assert items["never"]["result"] == "failed" and items["never"]["reason"] == "it exited 4, at each of 3 attempts"
    assert [a["exit_code"] for a in items["never"]["attempts"]] == [4, 4, 4]
    assert items["once"]["seconds"] == round(sum(a["seconds"] for a in items["once"]["attempts"]), 3)
    (tmp_path / "tried").unlink()
    plan.write_text(plan.read_text().replace("exit 4", "exit 0"), encoding="utf-8")
    assert run("verify", str(plan), "--retries", "1", "--no-cache").exit_code == 0
    (tmp_path / "tried").unlink()
    assert run("verify", str(plan), "--retries", "1", "--no-cache", "--strict").exit_code == 1  # flaky fails it
    assert run("verify", str(plan), "--retries", "4").exit_code == 2  # at most 3


def _git(folder: Path, *args: str) -> str:
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **who}).stdout


def test_receipts_name_the_commit_the_revision_and_a_committed_cache_is_not_trusted(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("z = 3\n", encoding="utf-8")
    _git(tmp_path, "init", "-q")
    plan = tmp_path / "plan.yaml"
    plan.write_text("items:\n" + _item("impl", "echo x >> impl.count"), encoding="utf-8")
    _git(tmp_path, "add", "a.py", "b.py", "plan.yaml")
    _git(tmp_path, "commit", "-qm", "one")
    assert run("compile", str(plan), "-o", str(tmp_path)).exit_code == 0
    assert run("verify", str(plan)).exit_code == 0
    document = json.loads((tmp_path / RECEIPTS).read_text(encoding="utf-8"))
    compiled = json.loads((tmp_path / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["commit"] == _git(tmp_path, "rev-parse", "HEAD").strip() and document["dirty"] is False
    assert document["revision"] == compiled["revision"] == 1
    assert document["cache"]["impl"]["result"] == "passed"
    assert document["cache"]["impl"]["parts"]["lines a.py:1"]
    (tmp_path / "b.py").write_text("z = 4\n", encoding="utf-8")
    assert run("verify", str(plan)).exit_code == 0
    assert json.loads((tmp_path / RECEIPTS).read_text(encoding="utf-8"))["dirty"] is True
    _git(tmp_path, "add", RECEIPTS)  # a commit could claim passes that never ran
    _git(tmp_path, "commit", "-qm", "receipts")
    result = run("verify", str(plan))
    assert result.exit_code == 0
    assert f"note: {RECEIPTS} is committed to git, so its cache is not trusted: every item runs" in result.stderr
    assert (tmp_path / "impl.count").read_text() == "x\nx\n"  # b.py is no input: the second run was cached


def test_the_cache_of_items_not_selected_is_carried_over(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("one", "echo x >> one.count") + _item("two", "true", evidence="b.py"))
    assert run("verify", str(plan)).exit_code == 0
    assert run("verify", str(plan), "two", "--no-cache").exit_code == 0
    assert set(json.loads((tmp_path / RECEIPTS).read_text(encoding="utf-8"))["cache"]) == {"one", "two"}
    assert _line(run("verify", str(plan)).stdout, "one").startswith("cached")


def test_past_the_bound_an_item_always_runs_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_FILES", 1)
    plan = _plan(tmp_path, _item("big", "true", evidence="a.py", extra="    paths: [a.py, b.py]\n"))
    for _ in range(2):
        result = run("verify", str(plan))
        assert "(ran: its inputs are past the cache's bound, so it always runs; it exited 0)" in _line(result.stdout,
                                                                                                       "big")


def test_a_symlink_out_of_the_root_is_an_input_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("s", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "link").symlink_to(outside / "secret")
    hasher = cache.Hasher(str(repo))
    assert hasher.file("link") == "outside" and hasher.file("../outside/secret") == "outside"
    assert hasher.file("nothing") == "missing"
    os.mkfifo(repo / "pipe")
    assert hasher.file("pipe") == "special"  # never opened for reading: a FIFO would block


# --- globs.matches, held to the overlap search: a path is a glob without its final ** --------------

_NAMES = st.sampled_from(["a", "b", "ab", "x.py", "y.md", ".hidden"])
_PATTERNS = st.sampled_from(["a", "*", "?", "*.py", "a*", "**", "x.*", "?b"])


@given(st.lists(_PATTERNS, min_size=1, max_size=4), st.lists(_NAMES, min_size=1, max_size=4))
def test_matches_agrees_with_the_overlap_search(pattern: list[str], path: list[str]) -> None:
    text = "/".join(pattern)
    if globs.problem(text) is not None:
        return
    glob = globs.parse(text)
    exact = globs.Glob("/".join(path), tuple(path), tuple(path))
    assert globs.matches(glob, "/".join(path)) == (globs.witness(glob, exact) is not None)


def test_a_flaky_proof_is_a_warning_annotation_at_its_line(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("once", "test -f tried || { touch tried; exit 1; }"))
    result = run("verify", str(plan), "--retries", "1", "--format", "github")
    assert result.exit_code == 0
    said = ",line=2,title=verify%3A once flaky::it failed, then passed at attempt 2"
    assert result.stdout.startswith("::warning file=") and said in result.stdout


def test_on_a_terminal_a_live_line_shows_the_wave_what_is_done_and_what_runs(tmp_path: Path) -> None:
    import pty
    import sys

    from support import REPO

    plan = _plan(tmp_path, _item("slow", "sleep 2") + _item("next", "true", deps="slow", evidence="b.py"))
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "compiler", "verify", str(plan)], cwd=REPO, stdout=follower,
                            stderr=subprocess.PIPE, env={**os.environ, "TERM": "xterm", "COLUMNS": "80"})
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    proc.communicate(timeout=60)
    os.close(leader)
    text = seen.decode()
    assert proc.returncode == 0
    import re

    # Shown as the proof starts, and rewritten in place while it runs (every half second).
    assert len(re.findall(r"\r\x1b\[2Kwave 1/2  0/1 done  0:0\d  running: slow", text)) >= 2
    assert "passed      wave 1  slow" in text and "passed      wave 2  next" in text
    assert text.endswith("\r\x1b[2K")  # the live line is gone at the end
    plain = run("verify", str(plan), "--no-cache")  # not a terminal: the plain lines alone
    assert "\x1b" not in plain.stdout and "running:" not in plain.stdout


def test_a_proof_holding_a_nul_fails_to_start_and_is_no_traceback(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _item("nul", "echo a\x00b"))
    result = run("verify", str(plan))
    assert result.exit_code == 1, result.output
    assert "(ran: never ran; it could not start: its command holds a NUL character)" in _line(result.stdout, "nul")
