"""The command line as a user runs it: exit code, stdout and stderr, and the files it leaves."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import run

from compiler import __version__
from compiler.cli import main

READY = """
plan: tiny
items:
  - id: a
    change: Do a
    evidence: [a.py:1]
    proof: make a
  - id: b
    change: Do b
    evidence: [b.py:2]
    depends_on: [a]
    proof: make b
"""

WARNS = """
items:
  - id: a
    change: Do a
    evidence: [a.py:1, a.py:1]
    proof: make a
"""

BLOCKED = """
items:
  - id: a
    change: Do a
    evidence: [a.py:1]
    proof: ""
"""


@pytest.fixture(autouse=True)
def evidence_files(tmp_path: Path) -> None:
    """The files the plans above cite, so that their evidence verifies (tmp_path is the root:
    it is not inside a git work tree)."""
    for name in ("a.py", "b.py", "x.py"):
        (tmp_path / name).write_text("line 1\nline 2\nline 3\n", encoding="utf-8")


EVIDENCE_FILES = ["a.py", "b.py", "x.py"]


@pytest.fixture
def example(tmp_path: Path, repo: Path) -> Path:
    """A copy of the duplicate-email example, so tests may write next to it."""
    target = tmp_path / "duplicate-email"
    shutil.copytree(repo / "examples" / "duplicate-email", target)
    return target / "plan.yaml"


# --- compile -------------------------------------------------------------------------------------


def test_compile_ready_example_writes_both_artifacts_beside_the_plan(example: Path) -> None:
    result = run("compile", str(example))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "ready: 4 items in 3 waves (widest 2)" in result.stderr
    assert "wave 2: docs, implementation" in result.stderr
    document = json.loads((example.parent / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["status"] == "ready"
    assert document["waves"] == [["contract"], ["docs", "implementation"], ["integration"]]
    assert document["source"] == "plan.yaml"
    assert document["root"] == "."
    markdown = (example.parent / "evidence-plan.md").read_text(encoding="utf-8")
    assert markdown.startswith("# duplicate-email\n")
    assert "```mermaid" in markdown
    assert "(app/accounts.py#L18-L23)" in markdown


def test_compile_is_deterministic_and_independent_of_the_working_folder(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out1, out2 = tmp_path / "one", tmp_path / "two"
    assert run("compile", str(example), "-o", str(out1)).exit_code == 0
    monkeypatch.chdir(example.parent)
    assert run("compile", "plan.yaml", "-o", str(out2)).exit_code == 0
    for name in ("evidence-plan.json", "evidence-plan.md"):
        assert (out1 / name).read_bytes() == (out2 / name).read_bytes()
        assert str(tmp_path) not in (out1 / name).read_text(encoding="utf-8")  # no absolute paths


def test_compile_matches_the_committed_outputs(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    out = tmp_path / "outputs"
    result = run("compile", "examples/duplicate-email/plan.yaml", "-o", str(out), "--html")
    assert result.exit_code == 0
    # Paths differ (out is elsewhere), everything else is the same document.
    mine = json.loads((out / "evidence-plan.json").read_text(encoding="utf-8"))
    committed = json.loads((repo / "outputs" / "evidence-plan.json").read_text(encoding="utf-8"))
    sources = mine["source"], committed["source"]
    for key in ("source", "root"):
        mine.pop(key), committed.pop(key)
    assert mine == committed
    # And the page (the Quick start writes it too), but for where it says it was compiled from.
    page = (out / "evidence-plan.html").read_text(encoding="utf-8")
    assert page.replace(*sources) == (repo / "outputs" / "evidence-plan.html").read_text(encoding="utf-8")


def test_compile_blocked_plan_exits_1_and_still_writes_the_json(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", BLOCKED)
    result = run("compile", str(plan))
    assert result.exit_code == 1
    assert f"{plan}:5:12: error EP102 a has no proof command" in result.stderr
    assert "blocked: 1 error" in result.stderr
    document = json.loads((plan.parent / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["status"] == "blocked"
    assert document["waves"] == []
    assert document["issues"] == [{
        "code": "EP102", "name": "no-proof", "severity": "error", "message": "a has no proof command", "item": "a",
        "location": {"file": "plan.yaml", "line": 5, "column": 12},
    }]
    assert "wave" not in document["items"][0]
    assert "## Issues" in (plan.parent / "evidence-plan.md").read_text(encoding="utf-8")


def test_input_error_exits_2_and_leaves_earlier_artifacts_untouched(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", READY)
    assert run("compile", str(plan)).exit_code == 0
    before = {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")}
    plan.write_text("items:\n  - id: a\n    change: [unclosed\n", encoding="utf-8")
    result = run("compile", str(plan))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{plan}:3:13: error EP002 invalid YAML")  # at the open bracket
    assert "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")} == before


def test_compile_missing_file_exits_2_with_a_hint(tmp_path: Path) -> None:
    result = run("compile", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'nope.yaml'}: error EP001 no such file\n  hint: check the path\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == EVIDENCE_FILES


def test_compile_output_that_is_a_file_is_a_usage_error(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", READY)
    blocker = write("out", "not a folder")
    result = run("compile", str(plan), "-o", str(blocker))
    assert result.exit_code == 2
    assert "not a folder" in result.stderr


def test_compile_reads_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("compile", "-", "-o", "build", input=READY.encode())
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "build" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["source"] == "<stdin>"
    assert document["waves"] == [["a"], ["b"]]


def test_compile_json_from_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = {"items": [{"id": "a", "change": "c", "evidence": ["x.py"], "proof": "p"}]}
    result = run("compile", "-", input=json.dumps(plan))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "evidence-plan.json").read_text(encoding="utf-8"))["status"] == "ready"


# --- check ---------------------------------------------------------------------------------------


def test_check_writes_nothing(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", READY)
    result = run("check", str(plan))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "1 plan: 1 ready, 0 blocked, 0 unreadable (0 errors, 0 warnings)\n"
    assert sorted(p.name for p in plan.parent.iterdir()) == sorted(["plan.yaml", *EVIDENCE_FILES])


def test_check_reports_every_file_even_after_a_bad_one(write: Callable[..., Path]) -> None:
    bad = write("bad.yaml", "items: [")
    blocked = write("blocked.yaml", BLOCKED)
    ready = write("ready.yaml", READY)
    result = run("check", str(bad), str(blocked), str(ready))
    assert result.exit_code == 2  # an unreadable file outranks a blocked one
    assert f"{bad}:1:9: error EP002" in result.stdout
    assert f"{blocked}:5:12: error EP102 a has no proof command" in result.stdout
    assert "3 plans: 1 ready, 1 blocked, 1 unreadable (2 errors, 0 warnings)" in result.stderr


def test_check_strict_makes_warnings_block(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", WARNS)
    relaxed = run("check", str(plan))
    assert relaxed.exit_code == 0
    assert f"{plan}:4:24: warning EP105 a cites a.py:1 twice" in relaxed.stdout
    assert run("check", "--strict", str(plan)).exit_code == 1


def test_check_json_format_is_a_list_of_diagnostics(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", BLOCKED)
    result = run("check", "--format", "json", str(plan))
    assert result.exit_code == 1
    assert result.stderr == ""
    assert json.loads(result.stdout) == [{
        "code": "EP102", "name": "no-proof", "severity": "error", "message": "a has no proof command", "item": "a",
        "location": {"file": str(plan), "line": 5, "column": 12},
        "plan": str(plan), "plan_status": "blocked",  # which plan, when check is given several
    }]


def test_check_github_format_and_auto_detection(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", BLOCKED)
    expected = f"::error file={plan},line=5,col=12,title=EP102 no-proof::a has no proof command\n"
    assert run("check", "--format", "github", str(plan)).stdout == expected
    assert run("check", str(plan), env={"GITHUB_ACTIONS": "true"}).stdout == expected
    assert run("check", str(plan), env={"GITHUB_ACTIONS": ""}).stdout.startswith(f"{plan}:5:12: error EP102")


def test_check_sarif_format(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", BLOCKED)
    result = run("check", "--format", "sarif", str(plan))
    assert result.exit_code == 1
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run_ = sarif["runs"][0]
    assert run_["tool"]["driver"]["name"] == "evidence-plan"
    assert [r["id"] for r in run_["tool"]["driver"]["rules"]] == ["EP102"]
    (finding,) = run_["results"]
    assert finding["ruleId"] == "EP102" and finding["level"] == "error"
    assert finding["locations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 12}


def test_no_color_is_respected(write: Callable[..., Path]) -> None:
    plan = write("plan.yaml", BLOCKED)
    assert "\x1b[" in run("check", "--format", "text", str(plan), color=True).stdout
    assert "\x1b[" not in run("check", "--format", "text", str(plan), color=True, env={"NO_COLOR": "1"}).stdout


# --- render, convert, schema -----------------------------------------------------------------------


def test_render_reproduces_the_compiled_markdown(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("compile", str(example), "-o", str(out)).exit_code == 0
    result = run("render", str(out / "evidence-plan.json"), "-o", str(out / "again.md"))
    assert result.exit_code == 0
    assert (out / "again.md").read_bytes() == (out / "evidence-plan.md").read_bytes()


def test_render_to_stdout_links_relative_to_the_working_folder(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("compile", str(example)).exit_code == 0
    monkeypatch.chdir(example.parent.parent)
    result = run("render", "duplicate-email/evidence-plan.json")
    assert result.exit_code == 0
    assert "(duplicate-email/app/accounts.py#L18-L23)" in result.stdout


def test_render_refuses_a_plan_file(example: Path) -> None:
    result = run("render", str(example))
    assert result.exit_code == 2
    assert "EP004 not a compiled evidence-plan.json" in result.stderr


def test_render_refuses_a_broken_compiled_file(write: Callable[..., Path], repo: Path) -> None:
    document = json.loads((repo / "outputs" / "evidence-plan.json").read_text(encoding="utf-8"))
    document["status"] = "maybe"
    broken = write("evidence-plan.json", json.dumps(document, indent=2))
    result = run("render", str(broken))
    assert result.exit_code == 2
    assert f"{broken}:8:13: error EP011" in result.stderr
    assert "status" in result.stderr


def test_convert_yaml_json_yaml_keeps_every_item_field(example: Path, tmp_path: Path) -> None:
    as_json, back = tmp_path / "plan.json", tmp_path / "back.yaml"
    assert run("convert", str(example), str(as_json)).exit_code == 0
    assert run("convert", str(as_json), str(back)).exit_code == 0
    from compiler.load.document import load
    from compiler.model.validate import build_plan

    original, round_trip = build_plan(load(str(example))), build_plan(load(str(back)))
    assert [i.to_dict() for i in round_trip.items] == [i.to_dict() for i in original.items]
    assert (round_trip.name, round_trip.goal) == (original.name, original.goal)
    data = json.loads(as_json.read_text(encoding="utf-8"))
    assert data["items"][1]["evidence"][0] == {
        "path": "app/accounts.py", "lines": "18-23", "contains": "def create_account",
    }
    assert data["items"][1]["evidence"][1] == "app/accounts.py:28-29"
    # The root is rebased so that evidence still resolves from the new file's folder.
    assert data["root"] == "duplicate-email"


@pytest.mark.parametrize("char", ["\x85", "\u2028", "\u2029"])
def test_convert_to_yaml_keeps_characters_that_yaml_reads_as_line_breaks(write: Callable[..., Path],
                                                                          tmp_path: Path, char: str) -> None:
    plan = write("plan.json", json.dumps({"items": [{"id": "a", "change": "c", "evidence": ["x.py"],
                                                     "proof": f"run{char}it"}]}))
    back = tmp_path / "back.yaml"
    assert run("convert", "--no-verify-evidence", str(plan), str(back)).exit_code == 0
    from compiler.load.document import load

    assert load(str(back)).data["items"][0]["proof"] == f"run{char}it"


def test_convert_reads_a_compiled_file_back(example: Path, tmp_path: Path) -> None:
    assert run("compile", str(example)).exit_code == 0
    result = run("convert", str(example.parent / "evidence-plan.json"), "-", "--to", "yaml")
    assert result.exit_code == 0
    assert "- id: contract" in result.stdout
    assert "wave" not in result.stdout and "status" not in result.stdout


def test_convert_to_markdown(example: Path) -> None:
    result = run("convert", str(example), "-", "--to", "md")
    assert result.exit_code == 0
    assert result.stdout.startswith("# duplicate-email\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-"], "give --to yaml|json|md when OUT is -"),
        (["out.txt"], "cannot tell the format of 'out.txt'"),
        (["out.json", "--to", "yaml"], "--to yaml disagrees with the extension of 'out.json'"),
    ],
)
def test_convert_usage_errors(example: Path, args: list[str], message: str) -> None:
    result = run("convert", str(example), *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_convert_refuses_items_that_do_not_fit(write: Callable[..., Path], tmp_path: Path) -> None:
    plan = write("plan.yaml", "items:\n  - id: a\n    proof: {run: tests}\n")
    result = run("convert", str(plan), str(tmp_path / "out.json"))
    assert result.exit_code == 1
    assert f"{plan}:3:12: error EP011 a: proof must be text, not a mapping" in result.stderr
    assert not (tmp_path / "out.json").exists()


# --- writing: the files written are the files meant ----------------------------------------------
# CI runs these commands, often as root, on plans from untrusted pull requests. No test here names
# a real /dev entry as a target: devices are reached through links made in tmp_path.


def test_render_into_a_link_to_dev_null_writes_into_it(repo: Path, tmp_path: Path) -> None:
    """`render X.json -o /dev/null` replaced the device by a regular file (as root in CI, for
    every later step on the machine)."""
    link = tmp_path / "null.md"
    link.symlink_to(os.devnull)
    result = run("render", str(repo / "outputs" / "evidence-plan.json"), "-o", str(link))
    assert (result.exit_code, result.stderr) == (0, f"wrote {link}\n")
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*EVIDENCE_FILES, "null.md"])


def test_convert_into_a_link_to_a_pipe_writes_into_it(write: Callable[..., Path], tmp_path: Path,
                                                      deadline: None) -> None:
    """`convert plan.yaml /dev/stdout | less`, with /dev/stdout a link to /proc/self/fd/1, a pipe."""
    plan = write("plan.yaml", READY)
    fifo, link = tmp_path / "pipe", tmp_path / "stdout"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there; it reads afterwards
    try:
        result = run("convert", str(plan), str(link), "--to", "md")
        assert result.exit_code == 0, result.output
        received = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert received.startswith(b"# tiny\n")
    assert link.is_symlink() and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_convert_into_a_fifo_without_reader_exits_2_at_once(write: Callable[..., Path], tmp_path: Path,
                                                            deadline: None) -> None:
    plan = write("plan.yaml", READY)
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    result = run("convert", str(plan), str(fifo))
    assert result.exit_code == 2
    assert result.stderr == (f"{fifo}: error: cannot write: it is a FIFO with no reader\n"
                             "  hint: nothing was written; start its reader first, or write to a file\n")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_compile_refuses_a_planted_link_to_a_file_outside(write: Callable[..., Path], tmp_path: Path) -> None:
    """A pull request plants `evidence-plan.md -> ~/.bashrc`: compile must not overwrite it, and
    writes neither artifact."""
    plan = write("checkout/plan.yaml", READY)
    bashrc = write("home/.bashrc", "export SAFE=1\n")
    link = plan.parent / "evidence-plan.md"
    link.symlink_to(os.path.relpath(bashrc, plan.parent))
    result = run("compile", "--no-verify-evidence", str(plan))
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"{link}: error: cannot write: it is a symlink to {bashrc}, which is outside the link's folder {plan.parent}\n"
        "  hint: nothing was written; a symlink is followed only within the git work tree that holds it")
    assert "Traceback" not in result.output
    assert bashrc.read_text(encoding="utf-8") == "export SAFE=1\n"
    assert sorted(p.name for p in plan.parent.iterdir()) == ["evidence-plan.md", "plan.yaml"]


def test_render_refuses_a_dangling_link_and_creates_nothing(repo: Path, tmp_path: Path) -> None:
    link = tmp_path / "out.md"
    link.symlink_to(tmp_path / "planted" / "x.md")
    result = run("render", str(repo / "outputs" / "evidence-plan.json"), "-o", str(link))
    assert result.exit_code == 2
    assert f"{link}: error: cannot write: it is a symlink to {tmp_path / 'planted' / 'x.md'}, which does not exist" \
        in result.stderr
    assert not (tmp_path / "planted").exists()


@pytest.fixture
def compiled(write: Callable[..., Path]) -> tuple[Path, dict[str, bytes]]:
    """A plan compiled once, then changed: the next compile would replace both artifacts."""
    plan = write("plan.yaml", READY)
    assert run("compile", str(plan)).exit_code == 0
    before = {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")}
    plan.write_text(READY.replace("Do b", "Do b better"), encoding="utf-8")
    return plan, before


def _artifacts(plan: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*") if p.is_file()}


def test_compile_with_a_folder_named_like_the_markdown_keeps_the_old_json(
        compiled: tuple[Path, dict[str, bytes]]) -> None:
    plan, before = compiled
    (plan.parent / "evidence-plan.md").unlink()
    (plan.parent / "evidence-plan.md").mkdir()
    result = run("compile", str(plan))
    assert result.exit_code == 2
    assert result.stderr == (
        f"{plan.parent / 'evidence-plan.md'}: error: cannot write: it is a folder\n"
        "  hint: nothing was written; only a regular file, a character device or a FIFO is written;"
        " remove or rename what is there, or write elsewhere\n")
    assert _artifacts(plan) == {"evidence-plan.json": before["evidence-plan.json"]}


def test_compile_whose_second_rename_fails_keeps_both_old_artifacts(
        compiled: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    plan, before = compiled
    real_replace, calls = os.replace, []

    def replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise PermissionError(1, "Operation not permitted", dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    assert main(["compile", str(plan)]) == 2
    json_path, md_path = plan.parent / "evidence-plan.json", plan.parent / "evidence-plan.md"
    assert capsys.readouterr().err == (
        f"{md_path}: error: cannot write: Operation not permitted\n"
        f"  hint: nothing was replaced ({json_path} put back as it was); check the output folder\n")
    assert _artifacts(plan) == before
    assert sorted(p.name for p in plan.parent.iterdir()) == sorted([*EVIDENCE_FILES, *before, "plan.yaml"])


def test_compile_over_an_immutable_markdown_keeps_both_old_artifacts(compiled: tuple[Path, dict[str, bytes]]) -> None:
    plan, before = compiled
    md = plan.parent / "evidence-plan.md"
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(md)], check=False, capture_output=True).returncode != 0:
        pytest.skip("cannot make a file immutable here (needs chattr, root and a file system that has it)")
    try:
        result = run("compile", str(plan))
    finally:
        subprocess.run([chattr, "-i", str(md)], check=True)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{md}: error: cannot write: Operation not permitted\n"
                                    f"  hint: nothing was replaced ({plan.parent / 'evidence-plan.json'} put back")
    assert _artifacts(plan) == before


def test_fix_through_a_link_to_a_plan_outside_is_refused(tmp_path: Path) -> None:
    """fix writes through a link to the real plan (tests/test_hostile.py), but not out of the
    folder or work tree that holds the link."""
    real = tmp_path / "elsewhere" / "plan.yaml"
    real.parent.mkdir()
    real.write_text(WARNS, encoding="utf-8")  # a repeated evidence entry: something to fix
    link = tmp_path / "checkout" / "plan.yaml"
    link.parent.mkdir()
    link.symlink_to(real)
    result = run("fix", "--root", str(tmp_path), str(link))
    assert result.exit_code == 2
    assert f"{link}: error: cannot write: it is a symlink to {real}, which is outside the link's folder" \
        in result.stderr
    assert real.read_text(encoding="utf-8") == WARNS


@pytest.mark.parametrize(("kind", "name"), [("input", "plan.schema.json"), ("output", "evidence-plan.schema.json")])
def test_schema_prints_the_committed_schema(repo: Path, kind: str, name: str) -> None:
    result = run("schema", kind)
    assert result.exit_code == 0
    assert result.stdout == (repo / "schemas" / name).read_text(encoding="utf-8")


def test_schema_rejects_an_unknown_kind() -> None:
    assert run("schema", "other").exit_code == 2


# --- the shell around the commands -------------------------------------------------------------------


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"evidence-plan, version {__version__}\n"


@pytest.mark.parametrize("command", ["compile", "check", "render", "convert", "schema"])
def test_every_command_has_help_with_examples(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout
    assert f"evidence-plan {command}" in result.stdout


def test_internal_error_is_one_line_and_exit_3(
    write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import compiler.compile.pipeline

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(compiler.compile.pipeline, "compile_plan", boom)
    plan = write("plan.yaml", READY)
    assert main(["check", str(plan)]) == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err
    assert "Traceback" not in err
    assert main(["--debug", "check", str(plan)]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile"]) == 2
    assert "Missing argument 'PLAN'" in capsys.readouterr().err


def test_no_command_ever_runs_a_proof(write: Callable[..., Path], tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    plan = write("plan.yaml", f"""
        items:
          - id: a
            change: c
            evidence: [x.py]
            proof: touch {marker}
          - id: b
            change: "$(touch {marker})"
            evidence: ["`touch {marker}`"]
            proof: "; touch {marker}"
        """)
    for args in (["compile", str(plan)], ["check", str(plan)], ["convert", str(plan), str(tmp_path / "p.json")],
                 ["render", str(tmp_path / "evidence-plan.json")], ["convert", str(plan), "-", "--to", "md"],
                 ["fix", str(plan)], ["schema"]):
        result = run(*args)
        assert result.exit_code in (0, 1), (args, result.output)  # blocked: the backticked evidence is no file
        assert "Traceback" not in result.output
    assert not marker.exists()


# --- the installed console script, as a real process ------------------------------------------------------


def _script() -> str:
    script = Path(sys.executable).parent / "evidence-plan"
    if not script.exists():
        pytest.skip("the console script is not installed next to this interpreter")
    return str(script)


@pytest.mark.slow
def test_console_script_compiles_the_example(repo: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [_script(), "compile", "examples/duplicate-email/plan.yaml", "-o", str(tmp_path)],
        cwd=repo, capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("examples/duplicate-email/plan.yaml: ready: 4 items in 3 waves")
    assert json.loads((tmp_path / "evidence-plan.json").read_text(encoding="utf-8"))["status"] == "ready"


@pytest.mark.slow
def test_console_script_blocked_example_names_each_problem(repo: Path) -> None:
    proc = subprocess.run(
        [_script(), "check", "--format", "text", "examples/blocked/plan.yaml"],
        cwd=repo, capture_output=True, text=True, timeout=60, check=False, env={**os.environ, "NO_COLOR": "1"},
    )
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if not line.startswith(" ")]
    codes = [line.split()[2] for line in lines]
    assert codes == ["EP101", "EP203", "EP201", "EP303", "EP102", "EP202", "EP204", "EP206", "EP301", "EP107",
                     "EP209", "EP205", "EP010", "EP103", "EP106", "EP104"]
    assert all(line.startswith("examples/blocked/plan.yaml:") for line in lines)
    assert "Traceback" not in proc.stderr


def test_python_dash_m_compiler(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "compiler", "--version"], cwd=repo,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"evidence-plan, version {__version__}"


def test_broken_pipe_is_quiet(repo: Path) -> None:
    proc = subprocess.run(
        f"{_script()} schema input | head -c 10",
        shell=True, cwd=repo, capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.stdout == "{\n  \"$sche"
    assert "Traceback" not in proc.stderr


def test_compile_summary_never_cuts_an_id_in_half(tmp_path: Path) -> None:
    ids = [f"wide-item-number-{n:03d}" for n in range(12)]
    items = "".join(f"  - {{id: {i}, change: c, evidence: [https://example.com], proof: p}}\n" for i in ids)
    plan = tmp_path / "plan.yaml"
    plan.write_text("items:\n" + items, encoding="utf-8")
    result = run("compile", "--no-verify-evidence", str(plan))
    line = next(x for x in result.stderr.splitlines() if x.startswith("  wave 1: "))
    shown, more = line.removeprefix("  wave 1: ").split(", ... and ")
    assert all(part in ids for part in shown.split(", "))  # whole ids only
    assert more == f"{len(ids) - len(shown.split(', '))} more" and len(line) <= 100
