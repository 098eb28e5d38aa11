"""`verify --against REV` (compiler/api/against.py, compiler/commands/_against.py) on a real git
history: a proof that fails at the base and passes now is the change's; one that passes at both
proves nothing and is reported (exit 1 with --strict); an untracked new test file is not at the
base. The temporary worktree is gone after every run: passed, timed out, interrupted (SIGINT to
the verify process), refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support import REPO, run

from compiler.api import against
from compiler.api.receipts import RECEIPTS
from compiler.api.verify import plan_steps, run_steps
from compiler.core.diagnostics import PlanInputError

pytestmark = pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c",
                           "commit.gpgsign=false", *args], cwd=root, check=True, capture_output=True, text=True,
                          timeout=60, env=GIT_ENV)
    return done.stdout.strip()


def _item(ident: str, proof: str, extra: str = "") -> str:
    return f"  - id: {ident}\n    change: c\n    evidence: [app.py]\n    proof: {json.dumps(proof)}\n{extra}"


# At the base app.py says "old"; the change makes it say "new", adds tests/test_new.py untracked.
ITEMS = (_item("fixed", "grep -q new app.py") + _item("always", "test -f app.py")
         + _item("new-test", "test -f tests/test_new.py") + _item("broken", "exit 4")
         + _item("sign-off", "true", "    kind: approval\n"))


def _repo(tmp_path: Path, items: str = ITEMS) -> tuple[Path, str]:
    """A repository of two commits (the base, then the change) with the plan in the second and
    an untracked test file; the base's commit id. Temporary folders go to tmp_path/tmp."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "app.py").write_text("old\n", encoding="utf-8")
    _git(root, "add", "--all")
    _git(root, "commit", "-q", "--no-verify", "-m", "base")
    base = _git(root, "rev-parse", "HEAD")
    (root / "app.py").write_text("new\n", encoding="utf-8")
    (root / "plan.yaml").write_text("items:\n" + items, encoding="utf-8")
    _git(root, "add", "--all")
    _git(root, "commit", "-q", "--no-verify", "-m", "change")
    (root / "tests").mkdir()
    (root / "tests" / "test_new.py").write_text("def test_new(): pass\n", encoding="utf-8")  # not committed
    return root, base


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder for the test: where the worktree is made, empty afterwards."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _worktrees(root: Path) -> list[str]:
    return [line for line in _git(root, "worktree", "list", "--porcelain").splitlines() if line.startswith("worktree ")]


def _items(root: Path) -> dict[str, dict]:
    return {item["id"]: item for item in json.loads((root / RECEIPTS).read_text(encoding="utf-8"))["items"]}


def _gone(root: Path, temp: Path) -> None:
    assert _worktrees(root) == [f"worktree {root.resolve()}"]
    assert list(temp.iterdir()) == []


def test_a_proof_that_passes_at_the_base_too_is_reported_and_the_changes_own_are_not(tmp_path: Path,
                                                                                        temp: Path) -> None:
    root, base = _repo(tmp_path)
    result = run("verify", str(root / "plan.yaml"), "--against", base, "--keep-going")
    assert result.exit_code == 1, result.output  # broken failed here, sign-off is unapproved: as without --against
    said = [line for line in result.stdout.splitlines() if line.startswith("passes without the change")]
    assert said == [f"passes without the change: always (its proof also passed at {base[:7]})"]
    assert "; 1 passes without the change; receipts:" in result.stderr
    items = _items(root)
    controls = {ident: {k: v for k, v in item["against"].items() if k != "seconds"} for ident, item in items.items()}
    assert controls == {
        "fixed": {"rev": base, "commit": base, "result": "failed", "exit_code": 1},
        "always": {"rev": base, "commit": base, "result": "passed", "exit_code": 0},
        "new-test": {"rev": base, "commit": base, "result": "failed", "exit_code": 1},  # untracked: not at the base
        "broken": {"rev": base, "commit": base, "result": "not-run", "exit_code": None},  # failed here: no control
        "sign-off": {"rev": base, "commit": base, "result": "not-run", "exit_code": None},  # an approval: never
    }
    assert items["broken"]["against"]["seconds"] == 0.0
    _gone(root, temp)


def test_strict_makes_a_proof_that_passes_without_the_change_fail_the_run(tmp_path: Path, temp: Path) -> None:
    root, _ = _repo(tmp_path, _item("fixed", "grep -q new app.py") + _item("always", "test -f app.py"))
    assert run("verify", str(root / "plan.yaml"), "--against", "HEAD~1").exit_code == 0  # a warning
    assert json.loads((root / RECEIPTS).read_text(encoding="utf-8"))["status"] == "passed"
    result = run("verify", str(root / "plan.yaml"), "--against", "HEAD~1", "--strict")
    assert result.exit_code == 1
    assert json.loads((root / RECEIPTS).read_text(encoding="utf-8"))["status"] == "failed"
    only_fixed = run("verify", str(root / "plan.yaml"), "fixed", "--against", "HEAD~1", "--strict")
    assert only_fixed.exit_code == 0, only_fixed.output  # its proof fails at the base: a proof of the change
    _gone(root, temp)


def test_github_format_warns_at_the_items_line_and_strict_makes_it_an_error(tmp_path: Path, temp: Path) -> None:
    root, base = _repo(tmp_path, _item("fixed", "grep -q new app.py") + _item("always", "test -f app.py"))
    plan = str(root / "plan.yaml")
    message = f"its proof also passed at HEAD~1 {base[:7]}: a proof that cannot fail proves nothing"
    result = run("verify", plan, "--against", "HEAD~1", "--format", "github")
    assert result.exit_code == 0
    assert [line for line in result.stdout.splitlines() if line.startswith("::")] == [
        f"::warning file={plan},line=6,title=verify%3A always passes without the change::{message}"]
    assert "passes without the change: always" in result.stderr  # the step's log
    strict = run("verify", plan, "--against", "HEAD~1", "--format", "github", "--strict")
    assert strict.exit_code == 1
    assert [line for line in strict.stdout.splitlines() if line.startswith("::")] == [
        f"::error file={plan},line=6,title=verify%3A always passes without the change::{message}"]


def test_json_format_carries_each_items_control(tmp_path: Path, temp: Path) -> None:
    root, base = _repo(tmp_path, _item("always", "test -f app.py"))
    result = run("verify", str(root / "plan.yaml"), "--against", "HEAD~1", "--format", "json")
    assert result.exit_code == 0
    item = json.loads(result.stdout)["items"][0]
    assert item["result"] == "passed" and item["against"]["result"] == "passed" and item["against"]["commit"] == base
    assert "passes without the change" not in result.stdout.split("}")[-1]  # no text line after the JSON


def test_dry_run_says_what_would_run_where_and_runs_nothing(tmp_path: Path, temp: Path) -> None:
    root, base = _repo(tmp_path, _item("always", "touch ran") + _item("sign-off", "true", "    kind: approval\n"))
    result = run("verify", str(root / "plan.yaml"), "--against", "HEAD~1", "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == (
        f"then, in a temporary worktree of HEAD~1 {base[:7]} (its top), the proof of each task that passes here runs"
        " again (1 at most); one that passes there too passes without the change")
    shown = json.loads(run("verify", str(root / "plan.yaml"), "--against", "HEAD~1", "--dry-run", "--format",
                           "json").stdout)
    assert shown["against"] == {"rev": "HEAD~1", "commit": base, "folder": ".", "items": ["always"]}
    assert not (root / "ran").exists() and not (root / RECEIPTS).exists()
    _gone(root, temp)


def test_a_root_below_gits_top_runs_in_the_same_folder_of_the_base(tmp_path: Path, temp: Path) -> None:
    root, _ = _repo(tmp_path, "")
    sub = root / "service"
    sub.mkdir()
    (sub / "app.py").write_text("new\n", encoding="utf-8")
    (sub / "only-here.txt").write_text("", encoding="utf-8")
    (sub / "plan.yaml").write_text("items:\n" + _item("here", "test -f only-here.txt"), encoding="utf-8")
    _git(root, "add", "--all")
    _git(root, "commit", "-q", "--no-verify", "-m", "service")  # HEAD~1 is the change without service/
    result = run("verify", str(sub / "plan.yaml"), "--root", str(sub), "--against", "HEAD~1")
    assert result.exit_code == 0, result.output
    assert _items(sub)["here"]["against"]["result"] == "failed"  # service/ is not at HEAD~1: it could not pass
    result = run("verify", str(sub / "plan.yaml"), "--root", str(sub), "--against", "HEAD", "--dry-run")
    assert f"in a temporary worktree of HEAD {_git(root, 'rev-parse', 'HEAD')[:7]} (service)," in result.stdout
    assert run("verify", str(sub / "plan.yaml"), "--root", str(sub), "--against", "HEAD").exit_code == 0
    assert _items(sub)["here"]["against"]["result"] == "passed"  # ran in service/ of the worktree, not its top
    _gone(root, temp)


def test_at_the_base_a_proof_runs_even_when_its_dependency_failed_there(tmp_path: Path, temp: Path) -> None:
    root, _ = _repo(tmp_path, _item("fixed", "grep -q new app.py")
                    + _item("after", "test -f app.py", "    depends_on: [fixed]\n"))
    assert run("verify", str(root / "plan.yaml"), "--against", "HEAD~1").exit_code == 0
    assert {i: item["against"]["result"] for i, item in _items(root).items()} == {"fixed": "failed", "after": "passed"}


def test_a_proof_that_times_out_at_the_base_is_not_reported_and_the_worktree_goes(tmp_path: Path,
                                                                                     temp: Path) -> None:
    root, _ = _repo(tmp_path, _item("slow-there", "test -f tests/test_new.py || sleep 30"))
    result = run("verify", str(root / "plan.yaml"), "--against", "HEAD~1", "--timeout", "0.5")
    assert result.exit_code == 0, result.output
    control = _items(root)["slow-there"]["against"]
    assert (control["result"], control["exit_code"]) == ("timed-out", None)
    assert "passes without the change" not in result.stdout
    _gone(root, temp)


def test_an_unknown_rev_is_an_input_error_and_nothing_runs(tmp_path: Path, temp: Path) -> None:
    root, _ = _repo(tmp_path, _item("a", "touch ran"))
    result = run("verify", str(root / "plan.yaml"), "--against", "no-such-branch")
    assert result.exit_code == 2
    assert f"{root}: error EP001 cannot verify against 'no-such-branch': it names no commit of the repository at" \
        f" {root}" in result.stderr
    dashed = run("verify", str(root / "plan.yaml"), "--against", "--upload-pack=touch ran")
    assert dashed.exit_code == 2 and "a revision cannot start with -" in dashed.stderr
    with pytest.raises(PlanInputError, match="a revision cannot start with -"):
        against.resolve(str(root), "-x")
    assert not (root / "ran").exists() and not (root / RECEIPTS).exists()
    _gone(root, temp)


def test_a_root_outside_git_is_an_input_error(tmp_path: Path, temp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "plain"
    root.mkdir()
    (root / ".git").mkdir()  # the plan's root for evidence, but no repository git knows
    (root / "app.py").write_text("new\n", encoding="utf-8")
    (root / "plan.yaml").write_text("items:\n" + _item("a", "touch ran"), encoding="utf-8")
    result = run("verify", str(root / "plan.yaml"), "--against", "HEAD")
    assert result.exit_code == 2
    assert f"cannot verify against 'HEAD': the repository root {root} is not in a git work tree" in result.stderr
    assert not (root / "ran").exists() and not (root / RECEIPTS).exists()


def test_a_temporary_folder_inside_the_repository_is_refused_before_anything_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _repo(tmp_path, _item("a", "touch ran"))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    result = run("verify", str(root / "plan.yaml"), "--against", "HEAD~1")
    assert result.exit_code == 2 and "is inside the repository" in result.stderr
    assert not (root / "ran").exists() and _worktrees(root) == [f"worktree {root.resolve()}"]
    assert [p.name for p in root.iterdir() if p.name.startswith("evidence-plan-against-")] == []


def test_when_git_cannot_remove_the_worktree_its_folder_is_deleted_and_pruned(
        tmp_path: Path, temp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _repo(tmp_path, "")
    real = against._git

    def no_remove(cwd: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
        if "remove" in args:
            return subprocess.CompletedProcess(args, 1, b"", b"fatal: no")
        return real(cwd, *args, timeout=timeout)

    monkeypatch.setattr(against, "_git", no_remove)
    with against.Worktree(against.resolve(str(root), "HEAD~1")) as tree:
        assert (Path(tree.root) / "app.py").read_text(encoding="utf-8") == "old\n"
        assert len(_worktrees(root)) == 2
    _gone(root, temp)


def test_ctrl_c_while_the_base_runs_ends_its_proofs_and_removes_the_worktree(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    started, pid = tmp_path / "started", tmp_path / "sleep.pid"
    root, _ = _repo(tmp_path, _item("waits-there", f"test -f tests/test_new.py || {{ sleep 300 & echo $! > {pid};"
                                                   f" touch {started}; wait; }}"))
    proc = subprocess.Popen([sys.executable, "-m", "compiler", "verify", str(root / "plan.yaml"), "--against",
                             "HEAD~1"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(temp)})
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists() and len(_worktrees(root)) == 2
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert _items(root)["waits-there"]["against"]["result"] == "not-run"  # the control did not finish
    assert not Path(f"/proc/{int(pid.read_text(encoding='utf-8'))}").exists() or _zombie(pid)
    _gone(root, temp)


def _zombie(pid_file: Path) -> bool:
    try:
        stat = Path(f"/proc/{int(pid_file.read_text(encoding='utf-8'))}/stat").read_bytes()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X")


def test_run_controls_keeps_locks_apart_and_runs_only_what_passed(tmp_path: Path, temp: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _repo(tmp_path, _item("one", "echo start one >> $LOG; sleep 0.2; echo end one >> $LOG",
                                    "    locks: [db]\n")
                    + _item("two", "echo start two >> $LOG; sleep 0.2; echo end two >> $LOG", "    locks: [db]\n")
                    + _item("bad", "exit 1"))
    result, steps = plan_steps(str(root / "plan.yaml"))
    log = tmp_path / "log"
    monkeypatch.setenv("LOG", str(tmp_path / "log-here"))
    receipts, _ = run_steps(steps, result.root, jobs=3, timeout=30, keep_going=True)
    monkeypatch.setenv("LOG", str(log))
    with against.Worktree(against.resolve(str(root), "HEAD~1")) as tree:
        controls, interrupted = against.run_controls(receipts, tree, jobs=3, timeout=30)
    assert not interrupted
    assert {i: c.result for i, c in controls.items()} == {"one": "passed", "two": "passed", "bad": "not-run"}
    lines = log.read_text(encoding="utf-8").split()
    assert lines[1::2] in (["one", "one", "two", "two"], ["two", "two", "one", "one"])  # never at once
    assert [r.step.id for r in against.without_change(receipts, controls)] == ["one", "two"]
    _gone(root, temp)


def test_verify_without_against_does_not_import_it(tmp_path: Path) -> None:
    root, _ = _repo(tmp_path, _item("a", "true"))
    code = ("import sys; from compiler.cli import main; code = main(['verify', sys.argv[1]]); "
            "print(code, sorted(m for m in sys.modules if m.endswith('against')))")
    done = subprocess.run([sys.executable, "-c", code, str(root / "plan.yaml")], cwd=REPO, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr
