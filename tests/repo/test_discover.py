"""Which files of a folder are plans (compiler/repo/discover.py), and `check DIR`, which checks them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from support import precommit_snippets

from compiler.cli import cli
from compiler.core.diagnostics import Diagnostic
from compiler.repo.discover import PLAN_FILES, SKIPPED_FOLDERS, expand, find_plans, is_plan_file

REPO = Path(__file__).resolve().parents[2]

READY = """\
items:
  - id: a
    change: Do a
    evidence: [{path: app.py, line: 1, contains: "def a"}]
    proof: make a
"""

BLOCKED = """\
items:
  - id: b
    change: Do b
    evidence: [app.py:1]
"""


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def hooks() -> dict[str, dict[str, Any]]:
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in manifest}


# --- one naming rule, declared once ----------------------------------------------------------------


def test_the_hooks_files_pattern_is_the_one_check_dir_uses() -> None:
    assert hooks()["evidence-plan"]["files"] == PLAN_FILES


def test_the_all_plans_hook_runs_check_on_the_repository_on_every_commit() -> None:
    hook = hooks()["evidence-plan-all"]
    assert hook["always_run"] is True
    assert hook["pass_filenames"] is False
    assert f"{hook['entry']} {' '.join(hook['args'])}" == "evidence-plan check ."
    assert "files" not in hook  # always_run: every commit, whatever is staged


def test_documented_local_hooks_are_the_manifests_hooks() -> None:
    # The pre-commit guide's copy of the hooks for `repo: local` says what the manifest says (that
    # it works is test_packaging.py's test_documented_local_hooks_gate_git_commit).
    (local,) = [s for s in precommit_snippets() if "repo: local" in s]
    local_hooks = {h["id"]: h for h in yaml.safe_load(local)["repos"][0]["hooks"]}
    manifest = hooks()
    assert local_hooks.keys() == manifest.keys()
    for ident, hook in local_hooks.items():
        expected = {k: v for k, v in manifest[ident].items() if k not in ("description", "language", "args")}
        expected["entry"] = " ".join([expected["entry"], *manifest[ident].get("args", [])])
        assert {k: v for k, v in hook.items() if k != "language"} == expected
        assert hook["language"] == "system"


@pytest.mark.parametrize(("path", "plan"), [
    ("plan.yaml", True), ("plan.yml", True), ("plan.json", True),
    ("release.plan.yaml", True), ("docs/plans/q3.release.plan.yml", True), ("a/plan.json", True),
    ("myplan.yaml", False), ("plan.yaml.bak", False), ("plans.yaml", False), ("Plan.yaml", False),
    ("evidence-plan.json", False),  # compile's own artifact is not a plan to check
    ("plan.md", False), (".plan.yaml", False),
])
def test_plan_file_names(path: str, plan: bool) -> None:
    assert is_plan_file(path) is plan
    # pre-commit searches `files:` with Python's re in the path relative to the repository.
    assert (re.search(str(hooks()["evidence-plan"]["files"]), path) is not None) is plan


# --- the walk --------------------------------------------------------------------------------------


def test_find_plans_recurses_in_a_stable_order_with_paths_as_given(tmp_path: Path) -> None:
    tree(tmp_path, {"plan.yaml": READY, "b/z.plan.json": "{}", "b/a/plan.yml": READY, "a/x.plan.yaml": READY,
                    "notes.yaml": "x: 1", "b/readme.md": ""})
    assert find_plans(str(tmp_path)) == [
        f"{tmp_path}/plan.yaml", f"{tmp_path}/a/x.plan.yaml", f"{tmp_path}/b/z.plan.json", f"{tmp_path}/b/a/plan.yml",
    ]
    assert find_plans(f"{tmp_path}/") == find_plans(str(tmp_path))


def test_find_plans_of_the_working_folder_names_them_without_dot_slash(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, {"plan.yaml": READY, "sub/x.plan.yaml": READY})
    monkeypatch.chdir(tmp_path)
    assert find_plans(".") == ["plan.yaml", "sub/x.plan.yaml"]
    assert find_plans("./") == ["plan.yaml", "sub/x.plan.yaml"]


def test_find_plans_skips_tool_folders_and_virtual_environments(tmp_path: Path) -> None:
    files = {f"{folder}/plan.yaml": READY for folder in SKIPPED_FOLDERS}
    files |= {"env/pyvenv.cfg": "home = /usr\n", "env/lib/site-packages/pkg/plan.yaml": READY,
              "app/node_modules/dep/plan.yaml": READY, "build/plan.yaml": READY, "kept.plan.yaml": READY}
    tree(tmp_path, files)
    assert find_plans(str(tmp_path)) == [f"{tmp_path}/kept.plan.yaml", f"{tmp_path}/build/plan.yaml"]


def test_find_plans_never_follows_symlinks_out_of_the_tree(tmp_path: Path) -> None:
    outside = tree(tmp_path / "outside", {"plan.yaml": READY, "secret.plan.yaml": "root:x:0:0\n"})
    repo = tree(tmp_path / "repo", {".git/HEAD": "ref: refs/heads/main\n", "plans/real.plan.yaml": READY})
    (repo / "linked.plan.yaml").symlink_to(outside / "secret.plan.yaml")
    (repo / "elsewhere").symlink_to(outside, target_is_directory=True)
    (repo / "plans" / "alias.plan.yaml").symlink_to(repo / "plans" / "real.plan.yaml")
    # Only the real file, once, under its own name: no link is followed, in or out of the tree.
    assert find_plans(str(repo)) == [f"{repo}/plans/real.plan.yaml"]


@pytest.mark.performance  # a tree 1,100 folders deep, as test_graph's long chain
def test_find_plans_is_iterative_on_a_tree_deeper_than_the_recursion_limit(tmp_path: Path) -> None:
    deep = Path("d/" * 1_100)
    folder = tmp_path
    for _ in range(1_100):  # not os.makedirs: it recurses
        folder /= "d"
        folder.mkdir()
    (folder / "plan.yaml").write_text(READY, encoding="utf-8")
    try:
        assert find_plans(str(tmp_path)) == [f"{tmp_path}/{deep.as_posix()}/plan.yaml"]
    finally:  # shutil.rmtree recurses too: pytest's clean-up of tmp_path would fail on this tree
        (folder / "plan.yaml").unlink()
        while folder != tmp_path:
            folder.rmdir()
            folder = folder.parent


def test_a_folder_without_plan_files_is_a_located_input_error(tmp_path: Path) -> None:
    tree(tmp_path, {"notes.yaml": "x: 1", "node_modules/plan.yaml": READY})
    found = find_plans(str(tmp_path))
    assert isinstance(found, Diagnostic)
    assert (found.code, found.severity, str(found.location)) == ("EP001", "error", str(tmp_path))
    assert found.message == ("is a folder that holds no plan files"
                             " (plan.yaml, NAME.plan.yaml, or the same in .yml or .json)")
    assert found.hint is not None and "node_modules" in found.hint


def test_a_walk_past_its_budget_stops_and_says_so_rather_than_check_part_of_a_tree(tmp_path: Path) -> None:
    tree(tmp_path, {f"f{n}/plan.yaml": READY for n in range(30)})
    found = find_plans(str(tmp_path), max_entries=40)  # 30 folders, then 30 files: 60 entries
    assert isinstance(found, Diagnostic)
    assert (found.code, found.message) == ("EP007", "holds more than 40 files and folders: not searched for plans")
    assert len(find_plans(str(tmp_path), max_entries=60)) == 30


def test_expand_keeps_files_as_given_and_checks_each_file_once(tmp_path: Path) -> None:
    tree(tmp_path, {"plan.yaml": READY, "odd-name.yaml": READY})
    found = expand([str(tmp_path / "odd-name.yaml"), str(tmp_path), f"{tmp_path}/plan.yaml", "-", "missing.yaml"])
    assert found.files == [str(tmp_path / "odd-name.yaml"), f"{tmp_path}/plan.yaml", "-", "missing.yaml"]
    assert found.problems == []


# --- check DIR -------------------------------------------------------------------------------------


def test_check_dir_checks_every_plan_under_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, {".git/HEAD": "", "app.py": "def a(): ...\n", "plan.yaml": READY,
                    "plans/b.plan.yaml": BLOCKED, "plans/notes.yaml": "{{{ not a plan"})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "."])
    assert result.exit_code == 1
    assert result.stdout == "plans/b.plan.yaml:2:5: error EP102 b has no proof command\n"
    assert result.stderr == "2 plans: 1 ready, 1 blocked, 0 unreadable (1 error, 0 warnings)\n"


def test_check_of_a_folder_without_plans_is_exit_2_with_a_clear_message(tmp_path: Path) -> None:
    tree(tmp_path, {"notes.yaml": "x: 1"})
    result = CliRunner().invoke(cli, ["check", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stdout.startswith(f"{tmp_path}: error EP001 is a folder that holds no plan files (plan.yaml, ")
    assert "hint: name the plans so, or give their paths" in result.stdout


def test_check_dir_and_a_plan_in_it_checks_the_plan_once(tmp_path: Path) -> None:
    tree(tmp_path, {"app.py": "def a(): ...\n", "plan.yaml": READY})
    result = CliRunner().invoke(cli, ["check", str(tmp_path), str(tmp_path / "plan.yaml")])
    assert (result.exit_code, result.stderr) == (0, "1 plan: 1 ready, 0 blocked, 0 unreadable (0 errors, 0 warnings)\n")


def test_check_dir_never_reads_a_planted_link_to_a_file_outside(tmp_path: Path) -> None:
    outside = tree(tmp_path / "outside", {"secret.plan.yaml": "root:x:0:0:root:/root:/bin/bash\n"})
    repo = tree(tmp_path / "repo", {".git/HEAD": "", "app.py": "def a(): ...\n", "plan.yaml": READY})
    (repo / "evil.plan.yaml").symlink_to(outside / "secret.plan.yaml")
    result = CliRunner().invoke(cli, ["check", str(repo)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "root:x" not in result.stderr and "evil" not in result.stderr
