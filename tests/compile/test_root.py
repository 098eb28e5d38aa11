"""Where the repository root is, and how far a plan may move it (compiler.compile.pipeline.find_root, with
compiler/core/paths.py).

Where: by a fixed order, --root, then the plan's ``root:``, then the git work tree holding the
plan (a ``.git`` folder, or a ``.git`` file in a worktree; git is never run), then the plan's
folder (the working folder for a plan read from standard input). A root that is not a folder is
EP006; evidence is resolved against the root, and the output names it relative to itself.

How far: a plan's ``root:`` stays inside the git work tree that holds it (or its folder, outside
git); ``--root`` is the user's choice and is trusted (EP208). The attack: in CI, a plan from a
pull request with ``root: ../../../..`` and evidence such as ``etc/passwd:1`` with ``contains:``
would make the compiler an oracle that answers questions about any file of the runner.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from support import codes, git_repo, make_tree, write_plan

from compiler.cli import main
from compiler.compile.emit import build_output
from compiler.compile.pipeline import compile_plan, find_root
from compiler.core.diagnostics import Location, PlanInputError
from compiler.core.paths import inside, work_tree

# --- where the root is found ----------------------------------------------------------------------

SIMPLE_ITEMS = """\
items:
  - id: a
    change: c
    proof: pytest
    evidence: [marker.txt]
"""


def same(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """outer/ is a git work tree holding inner/plan.yaml (root: ../sub); other/ is elsewhere."""
    outer = git_repo(tmp_path / "outer", {"marker.txt": "git\n"})
    sub = make_tree(outer / "sub", {"marker.txt": "root key\n"})
    inner = make_tree(outer / "inner", {"marker.txt": "folder\n"})
    other = make_tree(tmp_path / "other", {"marker.txt": "flag\n"})
    with_key = write_plan(inner, "root: ../sub\n" + SIMPLE_ITEMS, "with-key.yaml")
    without_key = write_plan(inner, SIMPLE_ITEMS, "without-key.yaml")
    nogit = make_tree(tmp_path / "nogit", {"marker.txt": "plain folder\n"})
    loose = write_plan(nogit, SIMPLE_ITEMS)
    return {"outer": outer, "sub": sub, "inner": inner, "other": other, "with_key": with_key,
            "without_key": without_key, "nogit": nogit, "loose": loose}


def test_root_flag_beats_root_key(layout: dict[str, Path]) -> None:
    result = compile_plan(str(layout["with_key"]), root=str(layout["other"]))
    assert same(result.root, layout["other"])
    assert result.status == "ready"


def test_root_key_beats_git(layout: dict[str, Path]) -> None:
    assert same(compile_plan(str(layout["with_key"])).root, layout["sub"])


def test_git_beats_plan_folder(layout: dict[str, Path]) -> None:
    assert same(compile_plan(str(layout["without_key"])).root, layout["outer"])


def test_plan_folder_when_no_git(layout: dict[str, Path]) -> None:
    assert same(compile_plan(str(layout["loose"])).root, layout["nogit"])


def test_nearest_git_wins(layout: dict[str, Path]) -> None:
    nested = git_repo(layout["outer"] / "vendor" / "lib", {"marker.txt": "nested\n"})
    plan = write_plan(nested / "deep" / "er", SIMPLE_ITEMS)
    assert same(compile_plan(str(plan)).root, nested)


def test_git_file_marks_a_worktree(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "worktree", {"marker.txt": "x\n", ".git": "gitdir: /elsewhere/.git/worktrees/w\n"})
    plan = write_plan(tree / "plans", SIMPLE_ITEMS)
    result = compile_plan(str(plan))
    assert same(result.root, tree)
    assert result.status == "ready"


def test_git_is_never_run(layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a process was started: {args!r}")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "system", refuse)
    assert same(compile_plan(str(layout["without_key"])).root, layout["outer"])


def test_root_flag_is_relative_to_the_working_folder(layout: dict[str, Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert same(compile_plan(str(layout["with_key"]), root="other").root, layout["other"])


def test_root_key_is_relative_to_the_plan_not_the_working_folder(layout: dict[str, Path],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(layout["other"])
    assert same(compile_plan(str(layout["with_key"])).root, layout["sub"])
    monkeypatch.chdir(layout["inner"])
    assert same(compile_plan("with-key.yaml").root, layout["sub"])


def test_stdin_plan_finds_the_root_from_the_working_folder(layout: dict[str, Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(layout["inner"])
    result = compile_plan("-", stdin=io.BytesIO(SIMPLE_ITEMS.encode()))
    assert same(result.root, layout["outer"])
    assert result.status == "ready"
    assert build_output(result, layout["inner"])["root"] == ".."


def test_evidence_is_resolved_against_the_root(layout: dict[str, Path]) -> None:
    (layout["outer"] / "only-at-git-root.txt").write_text("x\n", encoding="utf-8")
    plan = write_plan(layout["inner"], SIMPLE_ITEMS.replace("marker.txt", "only-at-git-root.txt"), "p.yaml")
    assert compile_plan(str(plan)).status == "ready"
    blocked = compile_plan(str(plan), root=str(layout["other"]))
    assert codes(blocked) == ["EP201"]


@pytest.mark.parametrize("how", ["flag-missing", "flag-file", "key-missing", "key-file"])
def test_root_that_is_not_a_folder_is_ep006(layout: dict[str, Path], how: str) -> None:
    (layout["inner"] / "a-file").write_text("x\n", encoding="utf-8")
    target = "nowhere" if how.endswith("missing") else "a-file"
    root: str | None = None
    if how.startswith("flag"):
        plan, root = layout["without_key"], str(layout["inner"] / target)
    else:
        plan = write_plan(layout["inner"], f"root: {target}\n" + SIMPLE_ITEMS, "bad-root.yaml")
    with pytest.raises(PlanInputError) as info:
        compile_plan(str(plan), root=root)
    d = info.value.diagnostic
    assert d.code == "EP006"
    assert d.input_error
    assert "is not a folder" in d.message
    assert target in d.message
    assert d.location is not None and d.location.file == str(plan)
    # The plan's root: is pointed at; --root is no place in the plan.
    assert (d.location.line, d.location.column) == ((1, 7) if how.startswith("key") else (None, None))


def test_find_root_directly(layout: dict[str, Path]) -> None:
    name = str(layout["without_key"])
    assert same(find_root(name, None, None, name).path, layout["outer"])
    assert same(find_root(name, "../sub", None, name).path, layout["sub"])
    assert same(find_root(name, "../sub", str(layout["other"]), name).path, layout["other"])


def test_json_root_is_relative(layout: dict[str, Path], tmp_path: Path) -> None:
    result = compile_plan(str(layout["without_key"]))
    for out_dir, expected in [(layout["inner"], ".."), (layout["outer"], "."),
                              (tmp_path / "build", "../outer")]:
        document = build_output(result, out_dir)
        assert document["root"] == expected
        assert not os.path.isabs(document["root"])
        assert document["evidence_verified"] is True
    text = json.dumps(build_output(result, layout["inner"]))
    assert str(tmp_path) not in text  # no absolute path anywhere in the output


def test_cli_root_option_and_bad_root(layout: dict[str, Path]) -> None:
    from click.testing import CliRunner

    from compiler.cli import cli

    runner = CliRunner()
    plan = str(layout["without_key"])
    assert runner.invoke(cli, ["check", plan]).exit_code == 0  # the git root has marker.txt
    (layout["other"] / "marker.txt").unlink()
    missing = runner.invoke(cli, ["check", "--root", str(layout["other"]), plan])
    assert missing.exit_code == 1
    assert "EP201" in missing.output
    assert runner.invoke(cli, ["check", "--no-verify-evidence", "--root", str(layout["other"]), plan]).exit_code == 0
    bad = runner.invoke(cli, ["check", "--root", str(layout["inner"] / "nowhere"), plan])
    assert bad.exit_code == 2
    assert "EP006" in bad.output


# --- how far a plan may move it (EP208) -----------------------------------------------------------

ORACLE = """\
root: {root}
items:
  - id: probe
    change: Ask about a file outside the repository
    evidence:
      - path: {secret}
        line: 1
        contains: "{word}"
    proof: make test
"""


def tree(tmp_path: Path) -> dict[str, Path]:
    """repo/ is a git work tree holding plans/ and docs/; secret.txt lies beside it, outside."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "plans").mkdir()
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("the-password\n", encoding="utf-8")
    return {"repo": repo, "plans": repo / "plans", "docs": repo / "docs", "outside": tmp_path}


def oracle(folder: Path, root: str, secret: str = "secret.txt", word: str = "the-password") -> Path:
    path = folder / "plan.yaml"
    path.write_text(ORACLE.format(root=root, secret=secret, word=word), encoding="utf-8")
    return path


def test_a_root_that_climbs_out_of_the_work_tree_is_refused_and_nothing_outside_is_read(tmp_path: Path) -> None:
    t = tree(tmp_path)
    result = compile_plan(str(oracle(t["plans"], "../..")))
    assert result.status == "blocked"
    assert [(d.code, d.item, d.location.line, d.location.column) for d in result.diagnostics  # type: ignore[union-attr]
            ] == [("EP208", None, 1, 7)]
    message = result.diagnostics[0].message
    assert "root ../.. leads outside the repository" in message and "not checked" in message
    assert "--root" in (result.diagnostics[0].hint or "")
    assert not result.evidence_verified
    # Asked with a wrong word, the answer is the same: nothing about the file leaks.
    again = compile_plan(str(oracle(t["plans"], "../..", word="not-in-the-file")))
    assert [d.message for d in again.diagnostics] == [message]


def test_the_oracle_is_answered_with_the_same_words_whatever_the_file_holds(tmp_path: Path) -> None:
    t = tree(tmp_path)
    deep = "/".join([".."] * 40)  # climbs to / from anywhere
    answers = {compile_plan(str(oracle(t["plans"], deep, "etc/passwd", word))).diagnostics[0].message
               for word in ("root:", "no-such-text-anywhere")}
    assert len(answers) == 1


@pytest.mark.parametrize("root", ["..", ".", "../docs", "../plans/..", "./"])
def test_a_root_inside_the_work_tree_is_followed(tmp_path: Path, root: str) -> None:
    t = tree(tmp_path)
    plan = oracle(t["plans"], root, secret="docs/a.md", word="# A")
    result = compile_plan(str(plan))
    assert "EP208" not in [d.code for d in result.diagnostics]
    assert result.evidence_verified


def test_a_symlinked_folder_cannot_lead_out(tmp_path: Path) -> None:
    t = tree(tmp_path)
    (t["repo"] / "escape").symlink_to(t["outside"], target_is_directory=True)
    result = compile_plan(str(oracle(t["plans"], "../escape")))
    assert [d.code for d in result.diagnostics] == ["EP208"]


def test_an_absolute_root_outside_is_refused_without_reading_it(tmp_path: Path, deadline: None) -> None:
    t = tree(tmp_path)
    result = compile_plan(str(oracle(t["plans"], "/proc", secret="kmsg", word="x")))  # kmsg would block a read
    assert [d.code for d in result.diagnostics] == ["EP208"]


def test_outside_git_the_plan_folder_is_the_boundary(tmp_path: Path) -> None:
    loose = tmp_path / "loose" / "plans"
    (loose / "sub").mkdir(parents=True)
    (loose / "sub" / "a.md").write_text("# A\n", encoding="utf-8")
    assert [d.code for d in compile_plan(str(oracle(loose, ".."))).diagnostics] == ["EP208"]
    inner = compile_plan(str(oracle(loose, "sub", secret="a.md", word="# A")))
    assert inner.status == "ready"


def test_the_command_line_root_is_trusted(tmp_path: Path) -> None:
    t = tree(tmp_path)
    plan = oracle(t["plans"], "../..")
    result = compile_plan(str(plan), root=str(t["outside"]))
    assert result.status == "ready"
    assert result.evidence_verified


def test_standard_input_is_bounded_by_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    t = tree(tmp_path)
    monkeypatch.chdir(t["plans"])
    text = ORACLE.format(root="../..", secret="secret.txt", word="the-password").encode()
    result = compile_plan("-", stdin=io.BytesIO(text))
    assert [d.code for d in result.diagnostics] == ["EP208"]


def test_compile_writes_the_blocked_report_and_check_exits_1(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    t = tree(tmp_path)
    plan = oracle(t["plans"], "../..")
    assert main(["check", "--format", "text", str(plan)]) == 1
    out, _ = capsys.readouterr()
    assert out.startswith(f"{plan}:1:7: error EP208 the plan's root ../.. leads outside")
    assert "  hint: a plan's root: stays inside the git work tree" in out
    assert main(["compile", str(plan), "-o", str(tmp_path / "out")]) == 1
    document = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["status"] == "blocked"
    assert document["evidence_verified"] is False
    assert [issue["code"] for issue in document["issues"]] == ["EP208"]
    assert [item["id"] for item in document["items"]] == ["probe"]


def test_find_root_reports_the_refusal_and_work_tree_finds_git(tmp_path: Path) -> None:
    t = tree(tmp_path)
    assert work_tree(str(t["plans"])) == str(t["repo"])
    assert work_tree(str(tmp_path)) is None or not inside(str(tmp_path), str(t["repo"]))
    found = find_root(str(t["plans"] / "plan.yaml"), "../..", None, Location("plan.yaml"))
    assert found.refused is not None and "../.." in found.refused
    trusted = find_root(str(t["plans"] / "plan.yaml"), "../..", str(tmp_path), Location("plan.yaml"))
    assert trusted.refused is None and os.path.samefile(trusted.path, tmp_path)


def test_inside_is_by_whole_path_parts() -> None:
    assert inside("/a/b", "/a") and inside("/a", "/a") and inside("/a/b", "/")
    assert not inside("/ab", "/a") and not inside("/", "/a")


def test_without_verification_the_root_is_only_recorded(tmp_path: Path) -> None:
    # Nothing is read, so nothing is refused: a compiled evidence-plan.json in a build folder
    # outside the repository reads back with its root pointing there.
    t = tree(tmp_path)
    result = compile_plan(str(oracle(t["plans"], "../..")), verify_evidence=False)
    assert result.status == "ready"


@pytest.mark.parametrize("in_git", [False, True])
def test_standard_input_outside_any_repository_says_so_where_a_file_is_missing(
        in_git: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    folder = tmp_path / "somewhere"
    folder.mkdir()
    if in_git:
        (folder / ".git").mkdir()
    monkeypatch.chdir(folder)
    text = b"items:\n  - id: a\n    change: c\n    evidence: [no/such/file.py]\n    proof: p\n"
    result = compile_plan("-", stdin=io.BytesIO(text))
    (missing,) = result.diagnostics
    assert (missing.code, missing.item, missing.location.line) == ("EP201", "a", 4)  # type: ignore[union-attr]
    if in_git:
        assert missing.hint is None
    else:
        assert missing.hint is not None
        assert "standard input is in no repository" in missing.hint and "--root" in missing.hint
