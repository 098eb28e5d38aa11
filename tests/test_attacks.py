"""Attacks by an untrusted plan in CI or pre-commit, each reproduced (the root oracle is in
tests/compile/test_root.py, the write side in tests/compile/test_emit.py, the escaping of text in
tests/core/test_display.py and the hostile corpus): a plan must not make the compiler print what it
should not, read what it should not, hang, or crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli import main

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}

PLAN = """\
items:
  - id: a
    change: Do a
    evidence: [a.txt]
    proof: make a
"""


def repo_with_plan(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a.txt").write_text("a\n", encoding="utf-8")
    (repo / "plan.yaml").write_text(PLAN, encoding="utf-8")
    return repo


# --- nothing read outside the repository ----------------------------------------------------------


def test_a_plan_symlink_out_of_the_repository_is_refused_without_an_excerpt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with_plan(tmp_path)
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n", encoding="utf-8")  # not a plan: would be EP004 with its first line
    (repo / "evil.plan.yaml").symlink_to(secret)
    assert main(["check", "--format", "text", str(repo / "evil.plan.yaml")]) == 2
    out, err = capsys.readouterr()
    assert "EP005" in out and "symlink that leads outside the repository" in out
    assert "hunter2" not in out + err and "password" not in out + err


def test_a_plan_symlink_inside_the_repository_is_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with_plan(tmp_path)
    (repo / "link.yaml").symlink_to(repo / "plan.yaml")
    assert main(["check", "--format", "text", str(repo / "link.yaml")]) == 0


def test_a_plan_symlink_outside_any_repository_is_the_users_choice(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "real.yaml").write_text(PLAN, encoding="utf-8")
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "plan.yaml").symlink_to(tmp_path / "real.yaml")
    assert main(["check", "--format", "text", "--root", str(tmp_path), str(tmp_path / "loose" / "plan.yaml")]) == 0


_RACE = """
import os, sys
from compiler.cli import main
target, spare, attempts = sys.argv[1], sys.argv[2], int(sys.argv[3])
real_stat, real_lstat = os.stat, os.lstat
armed = [False]

def swap_after(real):
    # The race, made to happen every time: the file is a FIFO right after its first look.
    def look(path, *args, **kwargs):
        result = real(path, *args, **kwargs)
        if armed[0] and os.fspath(path) == target:
            armed[0] = False
            os.unlink(target)
            os.mkfifo(target)
        return result
    return look

os.stat, os.lstat = swap_after(real_stat), swap_after(real_lstat)
codes = set()
for _ in range(attempts):
    if os.path.exists(target):
        os.unlink(target)
    os.link(spare, target)
    armed[0] = True
    codes.add(main(["check", "--format", "json", sys.argv[4]]))
print(sorted(codes))
"""


@pytest.mark.slow
@pytest.mark.parametrize("what", ["plan", "evidence"])
def test_a_fifo_swapped_in_after_a_look_never_hangs(what: str, tmp_path: Path) -> None:
    """A file replaced by a FIFO between a look at its path and its opening (a race an attacker
    can win about one run in ten; here it is won every time, 50 times in a row): a plain open()
    would block forever for a writer. The file is opened without blocking and judged by what was
    opened, so every run ends. A hang hits the child's timeout (generous: 50 checks, on a loaded machine)."""
    repo = repo_with_plan(tmp_path)
    target = repo / ("plan.yaml" if what == "plan" else "a.txt")
    spare = tmp_path / "spare"
    os.link(target, spare)
    proc = subprocess.run([sys.executable, "-c", _RACE, str(target), str(spare), "50", str(repo / "plan.yaml")],
                          capture_output=True, text=True, timeout=120, env=ENV, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    codes = json.loads(proc.stdout.strip().splitlines()[-1])
    assert codes == ([2] if what == "plan" else [1]), proc.stdout[-2000:]  # EP001 / EP207: not a regular file


# --- crashes -------------------------------------------------------------------------------------------


def test_closed_standard_input_is_an_input_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "compiler", "check", "-"], capture_output=True, text=True,
                          env=ENV, cwd=tmp_path, preexec_fn=lambda: os.close(0), timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "<stdin>: error EP001 standard input is closed" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_plan_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with_plan(tmp_path)
    name = os.fsdecode(b"plan-\xff\xfe.yaml")  # what Python makes of such a name: lone surrogates
    (repo / name).write_text(PLAN.replace("proof: make a\n", ""), encoding="utf-8")
    path = str(repo / name)
    assert main(["check", "--format", "text", path]) == 1
    assert "plan-\\xff\\xfe.yaml:2:5: error EP102" in capsys.readouterr().out
    assert main(["check", "--format", "json", path]) == 1
    issues = json.loads(capsys.readouterr().out)
    assert issues[0]["location"]["file"].endswith("plan-\\xff\\xfe.yaml")
    for fmt in ("github", "sarif"):
        assert main(["check", "--format", fmt, path]) == 1
        capsys.readouterr()
    out = tmp_path / "out"
    assert main(["compile", path, "-o", str(out)]) == 1
    document = json.loads((out / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["source"].endswith("plan-\\xff\\xfe.yaml")
    assert "`../repo/plan-\\xff\\xfe.yaml`" in (out / "evidence-plan.md").read_text(encoding="utf-8")


def test_ctrl_c_while_starting_up_exits_130_without_a_traceback(tmp_path: Path) -> None:
    # Deterministically "during start-up": the import of the CLI is interrupted.
    script = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def interrupted(name, *a, **k):\n"
        "    if name == 'compiler.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = interrupted\n"
        "from compiler.launch import main\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, "check", "x.yaml"], capture_output=True, text=True,
                          env=ENV, cwd=tmp_path, timeout=60, check=False)
    assert (proc.returncode, proc.stderr, proc.stdout) == (130, "interrupted\n", "")


def test_ctrl_c_while_working_exits_130(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.compile.pipeline

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(compiler.compile.pipeline, "compile_plan", interrupted)
    assert main(["check", str(tmp_path / "plan.yaml")]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"  # after click's own empty line


def test_the_console_script_goes_through_the_guarded_entry_point() -> None:
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"evidence-plan": "compiler.launch:main"}


@pytest.mark.slow
@pytest.mark.parametrize("literal", ["0x" + "f" * 5000, "0x_" + "f" * 5000, "0o" + "7" * 6000, "0b" + "1" * 20000,
                                     "9" * 5000])
@pytest.mark.parametrize("where", ["id", "line"])
def test_a_number_too_long_to_write_is_an_input_error(literal: str, where: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text = (f"items:\n  - id: {literal}\n" if where == "id" else
            f"items:\n  - id: a\n    evidence:\n      - path: a.txt\n        line: {literal}\n")
    path = tmp_path / "plan.yaml"
    path.write_text(text, encoding="utf-8")
    for command in (["check", "--format", "text"], ["check", "--format", "json"], ["compile", "-o", str(tmp_path)]):
        assert main([*command, str(path)]) == 2
        out, err = capsys.readouterr()
        assert "a number with more than 4,300 digits" in out + err
        assert "internal error" not in out + err


# --- what a compile prints and writes ----------------------------------------------------------------


HOSTILE_TEXT = """\
plan: "pwn\\n::error::plan name"
goal: "a\\e[2J\\nb"
items:
  - id: a
    change: "line one\\n::warning::two\\r\\e[31m"
    evidence: ["a.txt", "javascript:alert(1)", "../../../etc/passwd", "data:text/html,x"]
    proof: "make a\\n::error::proof"
  - id: b
    change: Do b
    evidence: [a.txt]
    depends_on: [a]
    proof: make b
"""
# The same, with ids that break the grammar (blocked, and shown in the graph all the same).
HOSTILE_IDS = (HOSTILE_TEXT.replace("id: a\n", 'id: "a\\n::add-mask::x"\n')
               .replace("depends_on: [a]", 'depends_on: ["a\\n::add-mask::x"]')
               .replace("id: b\n", """id: 'b%%{init: {"theme": "dark"}}%%'\n"""))


@pytest.mark.parametrize("ready", [True, False])
def test_compile_prints_and_writes_nothing_raw(ready: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with_plan(tmp_path)
    (repo / "plan.yaml").write_text(HOSTILE_TEXT if ready else HOSTILE_IDS, encoding="utf-8")
    code = main(["compile", "--no-verify-evidence", str(repo / "plan.yaml")])
    assert code == (0 if ready else 1)
    _, err = capsys.readouterr()
    markdown = (repo / "evidence-plan.md").read_text(encoding="utf-8")
    for text in (err, markdown):
        for line in text.split("\n"):
            assert not line.startswith("::"), line
            assert "\x1b" not in line and "\r" not in line, repr(line)
    graph = markdown.split("```mermaid", 1)[1].split("```", 1)[0]
    assert "%%" not in graph
    if not ready:
        assert "init#58;" in graph  # the id is shown, not applied
    assert "](javascript:" not in markdown and "](data:" not in markdown
    assert "](./javascript:alert%281%29)" in markdown
    assert "`../../../etc/passwd`" in markdown and "etc/passwd)" not in markdown


def test_a_repository_file_name_that_is_not_utf8_is_never_suggested(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with_plan(tmp_path)
    (repo / os.fsdecode(b"a\xff.txt")).write_text("x\n", encoding="utf-8")  # the closest name to a typo
    (repo / "plan.yaml").write_text(PLAN.replace("[a.txt]", "[a-.txt]"), encoding="utf-8")
    (repo / "a.txt").unlink()
    for fmt in ("text", "json", "github", "sarif"):
        assert main(["check", "--format", fmt, str(repo / "plan.yaml")]) == 1
        out, err = capsys.readouterr()
        assert "EP201" in out and "internal error" not in out + err
