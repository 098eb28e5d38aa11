"""`evidence-plan init` (compiler/api/init.py, compiler/commands/init.py): a starter plan that
cites real files of the repository and that check finds ready, the snippets that check it, and
never a file written over."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support import git_repo, make_tree, run

from compiler.api.init import PRE_COMMIT, ci_workflow, find_evidence

BLACK = Path(__file__).resolve().parent.parent / "repo" / "black"
HEAD = """\
# A starter plan, written by `evidence-plan init` from the files of this repository. Replace each
# item's change with yours, cite what justifies it (`evidence-plan symbols FILE` and
# `evidence-plan where TEXT` print entries to paste), give each the one command that proves it,
# then: evidence-plan check PLAN. `evidence-plan explain CODE` explains each problem it reports.
"""
SNIPPETS = PRE_COMMIT + "\n" + ci_workflow("plan.yaml")
PASTE = "the pre-commit hook and the CI workflow that check it, to paste (docs/guide/pre-commit.md, docs/guide/ci.md):"


def ready(plan: Path | str) -> None:
    """check finds the plan ready, with nothing to say."""
    result = run("check", str(plan))
    assert (result.exit_code, result.stdout) == (0, ""), result.stdout


@pytest.fixture
def black(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "black"
    shutil.copytree(BLACK, repo)
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.slow
def test_init_cites_a_real_repositorys_test_and_readme_and_check_finds_it_ready(black: Path) -> None:
    result = run("init")
    assert result.exit_code == 0
    assert result.stdout == SNIPPETS
    test = "tests/test_black.py::test_fmt_off_reindent_reports_black_not_the_user"
    assert result.stderr.splitlines() == [
        f"wrote plan.yaml: a starter plan of 2 items, citing {test}, src/black/mode.py::TargetVersion,"
        " README.md::Excerpts of black 26.10.1",
        "  next: edit its changes, then evidence-plan check plan.yaml",
        PASTE]
    assert (black / "plan.yaml").read_text(encoding="utf-8") == HEAD + f"""\
goal: Say what this plan achieves
items:
  - id: test
    change: State the behaviour to change in a test, as test_fmt_off_reindent_reports_black_not_the_user does
    evidence:
      - {test}
    proof: python -m pytest {test}
  - id: change
    change: Make the change the test states, in TargetVersion
    evidence:
      - src/black/mode.py::TargetVersion
      - README.md::Excerpts of black 26.10.1
    depends_on: [test]
    proof: python -m pytest tests/test_black.py
"""
    ready(black / "plan.yaml")


def test_init_never_writes_over_a_file(black: Path) -> None:
    (black / "plan.yaml").write_text("mine\n", encoding="utf-8")
    result = run("init")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "plan.yaml: error: cannot write: it exists, and init never writes over a file",
        "  hint: nothing was written; give another name with -o, or move the file away"]
    assert (black / "plan.yaml").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("kind", ["folder", "dangling symlink", "symlink to a file"])
def test_init_writes_over_nothing_at_all(black: Path, kind: str) -> None:
    target = black / "first.plan.yaml"
    if kind == "folder":
        target.mkdir()
    else:
        target.symlink_to("README.md" if kind == "symlink to a file" else "nowhere.yaml")
    readme = (black / "README.md").read_bytes()
    result = run("init", "-o", "first.plan.yaml")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == \
        "first.plan.yaml: error: cannot write: it exists, and init never writes over a file"
    assert (black / "README.md").read_bytes() == readme and not (black / "nowhere.yaml").exists()


def test_an_empty_folder_gets_a_plan_that_writes_its_first_test(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("init")
    assert result.exit_code == 0 and result.stdout == SNIPPETS
    assert result.stderr.splitlines() == [
        "wrote plan.yaml: a starter plan of 2 items, citing the repository folder",
        "  no test found: its first item writes one (in paths:), which its proof names",
        "  next: edit its changes, then evidence-plan check plan.yaml",
        PASTE]
    assert (tmp_path / "plan.yaml").read_text(encoding="utf-8") == HEAD + """\
goal: Say what this plan achieves
items:
  - id: test
    change: Write the first test, of the behaviour to change
    evidence:
      - '.'
    paths: [tests/test_starter.py]   # what this item writes: its proof may name it
    proof: python -m pytest tests/test_starter.py
  - id: change
    change: Make the change the test states
    evidence:
      - '.'
    depends_on: [test]
    proof: python -m pytest tests/test_starter.py
"""
    ready(tmp_path / "plan.yaml")


def test_a_repository_without_tests_gets_one_named_for_its_source(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    make_tree(tmp_path, {"geometry/__init__.py": "", "geometry/shapes.py": "def area(w, h):\n    return w * h\n",
                         "README.rst": "Geometry\n========\n\nAreas.\n",
                         "tests/test_shapes.py": "# not written yet\n"})  # taken: the new test is named apart
    monkeypatch.chdir(tmp_path)
    assert run("init").exit_code == 0
    assert (tmp_path / "plan.yaml").read_text(encoding="utf-8") == HEAD + """\
goal: Say what this plan achieves
items:
  - id: test
    change: Write the first test, of the behaviour to change
    evidence:
      - geometry/shapes.py::area
      - README.rst:1-4
    paths: [tests/test_shapes_1.py]   # what this item writes: its proof may name it
    proof: python -m pytest tests/test_shapes_1.py
  - id: change
    change: Make the change the test states, in area
    evidence:
      - geometry/shapes.py::area
      - README.rst:1-4
    depends_on: [test]
    proof: python -m pytest tests/test_shapes_1.py
"""
    ready(tmp_path / "plan.yaml")


UNITTEST = "import unittest\n\n\nclass Area(unittest.TestCase):\n    def test_square(self):\n        pass\n"


@pytest.mark.parametrize(("extra", "proofs"), [
    ({}, ["python -m unittest tests.test_shapes.Area.test_square", "python -m unittest tests.test_shapes"]),
    ({"conftest.py": ""}, ["python -m pytest tests/test_shapes.py::Area::test_square",
                           "python -m pytest tests/test_shapes.py"]),
    ({"pyproject.toml": "[tool.pytest.ini_options]\n"}, ["python -m pytest tests/test_shapes.py::Area::test_square",
                                                         "python -m pytest tests/test_shapes.py"]),
])
def test_a_unittest_test_is_run_as_the_repository_runs_its_tests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  extra: dict[str, str], proofs: list[str]) -> None:
    git_repo(tmp_path, {"shapes.py": "class Square:\n    side = 1\n", "tests/test_shapes.py": UNITTEST, **extra})
    monkeypatch.chdir(tmp_path)
    assert run("init").exit_code == 0
    text = (tmp_path / "plan.yaml").read_text(encoding="utf-8")
    assert [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("    proof: ")] == proofs
    assert "      - tests/test_shapes.py::Area.test_square\n" in text and "      - shapes.py::Square\n" in text
    ready(tmp_path / "plan.yaml")


def test_the_test_cited_is_one_a_runner_collects_preferably_of_the_source_cited(tmp_path: Path) -> None:
    git_repo(tmp_path, {
        "src/pkg/__init__.py": "", "src/pkg/util.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n",
        "src/pkg/_private.py": "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n",
        "bench/test_speed.py": "def test_fast():\n    pass\n",
        "tests/test_aaa.py": "class Helper:\n    def test_not_collected(self):\n        pass\n\n\n"
                             "class TestCollected:\n    def test_yes(self):\n        pass\n",
        "tests/test_util.py": "import pytest\n\n\ndef helper():\n    pass\n\n\ndef test_one():\n    pass\n",
        ".venv/lib/test_vendored.py": "def test_vendored():\n    pass\n",
        "node_modules/x/test_x.py": "def test_x():\n    pass\n",
    })
    found = find_evidence(str(tmp_path))
    assert found.source == "src/pkg/util.py::one"  # a private module is not the one
    assert found.test is not None and found.test.evidence == "tests/test_util.py::test_one"
    assert found.test.proof == "python -m pytest tests/test_util.py::test_one"
    (tmp_path / "tests" / "test_util.py").unlink()  # then a test folder's, a class pytest collects
    found = find_evidence(str(tmp_path))
    assert found.test is not None and found.test.evidence == "tests/test_aaa.py::TestCollected.test_yes"


def test_names_that_would_need_quoting_are_not_cited(tmp_path: Path) -> None:
    git_repo(tmp_path, {"tests/test_a b.py": "def test_x():\n    pass\n",
                        "tests/test_##[error]x.py": "def test_y():\n    pass\n",
                        "README.md": "# Title\n\n## Usage: the ::error:: way\n\nText.\n"})
    found = find_evidence(str(tmp_path))
    assert (found.test, found.source, found.readme) == (None, None, "README.md::Title")


def test_a_readme_section_about_usage_is_preferred(tmp_path: Path) -> None:
    git_repo(tmp_path, {"readme.MD": "# Tool\n\n## Sponsors\n\nUs.\n\n## Getting started\n\nRun it.\n"})
    assert find_evidence(str(tmp_path)).readme == "readme.MD::Getting started"


def test_a_root_below_the_top_of_a_work_tree_is_named_by_the_plan(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo(tmp_path, {"svc/app.py": "def f():\n    return 1\n", "svc/tests/test_app.py": "def test_f():\n    pass\n"})
    monkeypatch.chdir(tmp_path / "svc" / "tests")
    result = run("init", "--root", "..")
    assert result.exit_code == 0
    assert result.stdout == PRE_COMMIT + "\n" + ci_workflow("svc/plan.yaml")  # CI runs at the top of the checkout
    assert result.stderr.splitlines()[:2] == [
        "wrote ../plan.yaml: a starter plan of 2 items, citing tests/test_app.py::test_f, app.py::f",
        "  next: edit its changes, then evidence-plan check ../plan.yaml"]
    assert "\nroot: '.'   # the repository, from this file's folder\n" in (tmp_path / "svc" / "plan.yaml").read_text()
    monkeypatch.chdir(tmp_path)
    ready("svc/plan.yaml")
    assert run("check", ".").exit_code == 0  # as the pre-commit hook runs it


def test_from_a_folder_of_a_work_tree_the_plan_goes_to_its_top(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo(tmp_path, {"docs/guide.md": "# Guide\n\nText.\n"})
    monkeypatch.chdir(tmp_path / "docs")
    result = run("init")
    assert result.stderr.splitlines()[0] == \
        "wrote ../plan.yaml: a starter plan of 2 items, citing the repository folder"
    assert (tmp_path / "plan.yaml").is_file()


def test_a_plan_in_a_subfolder_of_the_work_tree_needs_no_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """check finds the work tree around the plan: the root, so the plan says no root:."""
    git_repo(tmp_path, {"plans/": "", "tool.py": "def run():\n    pass\n"})
    monkeypatch.chdir(tmp_path)
    result = run("init", "-o", "plans/first.plan.yaml")
    assert result.exit_code == 0 and result.stdout == PRE_COMMIT + "\n" + ci_workflow("plans/first.plan.yaml")
    assert "\nroot:" not in (tmp_path / "plans" / "first.plan.yaml").read_text(encoding="utf-8")
    ready("plans/first.plan.yaml")


def test_a_name_the_hooks_do_not_find_is_said(black: Path) -> None:
    result = run("init", "-o", "starter.yaml")
    assert result.exit_code == 0 and result.stdout == PRE_COMMIT + "\n" + ci_workflow("starter.yaml")
    assert result.stderr.splitlines()[2] == (
        "  note: the pre-commit hooks find plans by name (plan.yaml, NAME.plan.yaml, .yml, .json): give starter.yaml"
        " to the hook's args")


@pytest.mark.parametrize(("args", "lines"), [
    (["-o", "../outside.plan.yaml"], ["../outside.plan.yaml: error: cannot write: it is outside the repository it"
                                      " cites, {root}",
                                      "  hint: nothing was written; write the plan inside it (the default is plan.yaml"
                                      " at its top)"]),
    (["-o", "my plan.yaml"], ["my plan.yaml: error: cannot write: the CI workflow names the plan in a shell line, and"
                              " this name would need quoting",
                              "  hint: nothing was written; name it with letters, digits and . _ + - / (the default is"
                              " plan.yaml)"]),
    (["-o", "none/first.plan.yaml"], ["none/first.plan.yaml: error: cannot write: its folder none does not exist",
                                      "  hint: nothing was written; make the folder first, or write elsewhere"]),
    (["--root", "missing"], ["missing: error EP006 the repository root missing is not a folder", "  hint: fix --root"]),
])
def test_init_refuses_where_no_plan_can_be_checked_and_writes_nothing(black: Path, args: list[str],
                                                                      lines: list[str]) -> None:
    before = sorted(p.name for p in black.parent.iterdir()), sorted(p.name for p in black.iterdir())
    result = run("init", *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [line.replace("{root}", str(black)) for line in lines]
    assert (sorted(p.name for p in black.parent.iterdir()), sorted(p.name for p in black.iterdir())) == before


def test_a_plan_below_the_top_of_a_folder_that_is_no_work_tree_is_refused(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    make_tree(tmp_path, {"plans/": ""})
    monkeypatch.chdir(tmp_path)
    result = run("init", "-o", "plans/first.plan.yaml")
    assert result.exit_code == 2 and result.stderr.splitlines()[0] == (
        "plans/first.plan.yaml: error: cannot write: outside a git work tree, a plan below the top of"
        f" {tmp_path} cannot name its root")
    assert os.listdir(tmp_path / "plans") == []


def test_standard_output_is_no_plan_file(black: Path) -> None:
    result = run("init", "-o", "-")
    assert result.exit_code == 2 and result.stderr.splitlines()[-1] == (
        "Error: Invalid value for -o: init writes the plan to a file: give its name (stdout is for the snippets)")
