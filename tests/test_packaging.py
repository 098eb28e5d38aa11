"""Packaging: what users get from `pip install` and from the pre-commit hook, not the source tree.

The rest of the suite imports the package from the repository (an editable install), so it cannot
notice a wheel that forgets its templates or schemas, a broken console script, or a hook manifest
that pre-commit rejects. These tests build the real artefacts and run them from outside the
repository. They are slow (a wheel build, a virtual environment, hook environments installed by
pre-commit from PyPI), hence `slow`: `pytest -m "not slow"` skips them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from support import precommit_snippets

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the development environment's scripts (pre-commit lives here)

# Variables that would make a subprocess see something other than what a user gets:
# PYTHONPATH/PYTHONHOME could put the source tree back on sys.path, and the GIT_* variables that
# git exports to its hooks (e.g. when this suite runs from a pre-commit hook) would aim our git
# commands, and pre-commit's, at the outer repository instead of the temporary one.
_LEAKY_ENV = (
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_COMMON_DIR",
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LEAKY_ENV}
    env.update(extra)
    return env


def _run(
    args: Sequence[str | os.PathLike[str]],
    cwd: Path,
    *,
    timeout: float = 120,
    env: Mapping[str, str] | None = None,
    merge_stderr: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run a command to completion (never through a shell) and capture its text output."""
    return subprocess.run(
        [os.fspath(a) for a in args],
        cwd=cwd,
        env=dict(env) if env is not None else _env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
    )


def _ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """Assert exit 0, showing everything the command said when it did not."""
    assert result.returncode == 0, (
        f"{result.args} exited {result.returncode}\n"
        f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
    )
    return result


def _source_version() -> str:
    # Read the file rather than `compiler.__version__`: the wheel must carry what the source says,
    # whatever this process happened to import.
    text = (REPO / "compiler" / "core" / "version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    assert match, "compiler/core/version.py has no __version__ line"
    return match.group(1)


# --- 1. the wheel, installed into a fresh virtual environment -------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the working tree, built once (hatchling, in pip's isolated build env)."""
    out = tmp_path_factory.mktemp("wheel")
    _ok(_run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, REPO],
             cwd=out, timeout=600))
    wheels = sorted(out.glob("evidence_plan-*.whl"))
    assert len(wheels) == 1, f"expected one wheel, found {wheels}"
    return wheels[0]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A fresh venv, the wheel installed in it (not editable), runtime deps borrowed not fetched."""
    root = tmp_path_factory.mktemp("fresh") / "venv"
    _ok(_run([sys.executable, "-m", "venv", "--without-pip", root], cwd=root.parent))
    python = root / "bin" / "python"

    # Install before borrowing the dependencies: once the development site-packages is on the new
    # venv's path, pip would see the editable evidence-plan there (same version) and skip or try to
    # replace it. --no-index: the wheel is local and --no-deps needs nothing else.
    _ok(_run([sys.executable, "-m", "pip", "--python", python, "install",
              "--no-deps", "--no-index", wheel], cwd=root.parent, timeout=300))

    # The dependencies (pydantic, click, ...) come from the running environment through a .pth
    # line. site adds that directory to sys.path *after* the venv's own site-packages and does not
    # process the .pth files inside it, so the editable install of this repository stays out;
    # test_fresh_venv_uses_the_wheel checks that.
    site_packages = _ok(_run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=root,
    )).stdout.strip()
    paths = sysconfig.get_paths()
    borrowed = dict.fromkeys([paths["purelib"], paths["platlib"]])  # ordered, without duplicates
    (Path(site_packages) / "_borrowed_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in borrowed), encoding="utf-8"
    )
    return root


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    """An empty working folder outside the repository, so nothing resolves against the source."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


def test_wheel_ships_templates_and_schemas(wheel: Path) -> None:
    # resources.py looks inside the package first; an installed wheel has no source tree to fall
    # back on, so the data must be in the archive at these exact names.
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {"compiler/templates/plan.md.j2", "compiler/explain/examples.json"} | {
        f"compiler/schemas/{p.name}" for p in (REPO / "schemas").glob("*.json")
    }
    # Guard the glob itself: an empty schemas/ would make the check below vacuous.
    assert {"compiler/schemas/plan.schema.json",
            "compiler/schemas/evidence-plan.schema.json"} <= expected
    assert expected <= names, f"missing from the wheel: {sorted(expected - names)}"


def test_fresh_venv_uses_the_wheel(venv: Path, cwd: Path) -> None:
    # Without this, every test below could pass against the source tree by accident.
    probe = "import compiler, json, sys; print(json.dumps([compiler.__file__, sys.path]))"
    out = _ok(_run([venv / "bin" / "python", "-c", probe], cwd=cwd)).stdout
    module_file, sys_path = json.loads(out)
    assert Path(module_file).resolve().is_relative_to(venv.resolve()), module_file
    # No entry is the source tree: the editable install's path hook did not come along. (The
    # development environment's site-packages may itself live in the repository, as .venv does
    # in CI: it is on the path for the dependencies only.)
    deps = Path(sysconfig.get_paths()["purelib"]).resolve()
    leaks = [p for p in sys_path if p and Path(p).resolve().is_relative_to(REPO) and Path(p).resolve() != deps]
    assert not leaks, sys_path


@pytest.mark.parametrize(
    ("kind", "committed"),
    [("input", "plan.schema.json"), ("output", "evidence-plan.schema.json")],
)
def test_installed_schema_is_the_committed_file(
    venv: Path, cwd: Path, kind: str, committed: str
) -> None:
    result = _ok(_run([venv / "bin" / "evidence-plan", "schema", kind], cwd=cwd))
    assert result.stdout == (REPO / "schemas" / committed).read_text(encoding="utf-8")


def test_installed_compile_and_render(venv: Path, cwd: Path, tmp_path: Path) -> None:
    # A copy, so that the evidence is checked against files that exist but are not the repo's.
    example = tmp_path / "duplicate-email"
    shutil.copytree(REPO / "examples" / "duplicate-email", example)
    out = tmp_path / "out"
    tool = venv / "bin" / "evidence-plan"

    compiled = _ok(_run([tool, "compile", example / "plan.yaml", "-o", out], cwd=cwd))
    assert "ready: 4 items in 3 waves" in compiled.stderr
    document = json.loads((out / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["status"] == "ready", document["issues"]
    assert document["waves"] == [["contract"], ["docs", "implementation"], ["integration"]]
    assert "```mermaid" in (out / "evidence-plan.md").read_text(encoding="utf-8")

    # render needs the template from inside the installed package, and nothing but the JSON.
    rendered = _ok(_run([tool, "render", out / "evidence-plan.json"], cwd=cwd))
    assert rendered.stdout.startswith("# ")
    assert "```mermaid" in rendered.stdout
    assert "contract" in rendered.stdout


def test_installed_explain_shows_the_pages_examples(venv: Path, cwd: Path) -> None:
    """The examples are real runs of tests/cases, which the wheel does not carry: it ships them."""
    result = _ok(_run([venv / "bin" / "evidence-plan", "explain", "--all", "--format", "markdown"], cwd=cwd))
    from compiler.core.codes import CODES

    assert result.stdout == "\n".join((REPO / "docs" / "codes" / f"{code}.md").read_text(encoding="utf-8")
                                      for code in CODES)


def test_installed_init_writes_a_plan_that_check_finds_ready(venv: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "examples" / "duplicate-email", repo)
    (repo / "plan.yaml").unlink()
    tool = venv / "bin" / "evidence-plan"
    _ok(_run([tool, "init", "--root", repo], cwd=tmp_path))
    checked = _ok(_run([tool, "check", repo / "plan.yaml"], cwd=tmp_path))
    assert checked.stdout == ""


def test_installed_module_version(venv: Path, cwd: Path) -> None:
    result = _ok(_run([venv / "bin" / "python", "-m", "compiler", "--version"], cwd=cwd))
    assert result.stdout == f"evidence-plan, version {_source_version()}\n"


# --- 2. the pre-commit hook, through pre-commit itself --------------------------------------------

READY_PLAN = """\
plan: ready
items:
  - id: add-endpoint
    change: Add the endpoint
    evidence: [app.py:1]
    proof: python3 -m unittest
"""

BLOCKED_PLAN = """\
items:
  - id: ship-it
    change: Ship without a proof
    evidence: [app.py:1]
"""

# The file both plans cite: evidence is checked against the repository (the git work tree).
EVIDENCE = {"app.py": "print('hello')\n"}

# Not plans, and not valid ones either: if the hook's `files` pattern let them through, `check`
# would report them as unreadable (exit 2) and the hook would fail.
NOT_PLANS = {
    "notes.yaml": "items: [unclosed\n  - : :\n",
    "myplan.yaml": "{{{ not yaml\n",
}


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's cache and log folder, in tmp: the user's ~/.cache/pre-commit is never touched.

    Shared by the module, but note that `try-repo` keeps its hook environment in a store of its
    own under a temporary folder, so each try-repo run still installs the hook environment.
    """
    return tmp_path_factory.mktemp("pre-commit-home")


def _git_repo(path: Path, files: Mapping[str, str]) -> Path:
    """A committed git repository holding `files` (pre-commit --all-files runs on tracked files)."""
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    for args in (
        ["git", "init", "-q"],
        ["git", "config", "user.name", "evidence-plan tests"],
        ["git", "config", "user.email", "tests@example.invalid"],
        ["git", "add", "--all"],
        ["git", "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "plans"],
    ):
        _ok(_run(args, cwd=path))
    return path


def _try_repo(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """`pre-commit try-repo` of this repository's hook on every file of `repo`, output merged."""
    pre_commit = BIN / "pre-commit"
    assert pre_commit.exists(), f"{pre_commit} is missing: install the test extras ('.[test]')"
    # --verbose shows the hook's own output (the check summary) even when it passes.
    return _run(
        [pre_commit, "try-repo", REPO, "evidence-plan", "--all-files", "--verbose"],
        cwd=repo,
        env=_env(PRE_COMMIT_HOME=str(home)),
        timeout=900,  # installs the hook environment with pip from PyPI
        merge_stderr=True,
    )


_SUMMARY = re.compile(r"^(\d+) plans?: (\d+) ready, (\d+) blocked, (\d+) unreadable", re.MULTILINE)


def _checked(output: str) -> tuple[int, int, int, int]:
    """(plans, ready, blocked, unreadable) over every `check` run: pre-commit may split the files
    into parallel chunks, one summary line each."""
    counts = [[int(n) for n in m.groups()] for m in _SUMMARY.finditer(output)]
    assert counts, f"no check summary in the hook output:\n{output}"
    plans, ready, blocked, unreadable = (sum(column) for column in zip(*counts, strict=True))
    return plans, ready, blocked, unreadable


def test_pre_commit_hook_passes_ready_plans_and_skips_other_yaml(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    repo = _git_repo(tmp_path / "repo", {
        "plan.yaml": READY_PLAN,
        "plans/release.plan.yml": READY_PLAN,  # NAME.plan.yml, in a subfolder, matches too
        **EVIDENCE,
        **NOT_PLANS,
    })
    result = _try_repo(repo, pre_commit_home)
    assert result.returncode == 0, result.stdout
    assert re.search(r"^evidence-plan\.+Passed$", result.stdout, re.MULTILINE), result.stdout
    # Exactly the two plan files were checked: not the other YAML files.
    assert _checked(result.stdout) == (2, 2, 0, 0), result.stdout
    for name in NOT_PLANS:
        assert name not in result.stdout


def test_pre_commit_hook_fails_a_blocked_plan(tmp_path: Path, pre_commit_home: Path) -> None:
    repo = _git_repo(tmp_path / "repo", {
        "plan.yaml": READY_PLAN,
        "other.plan.yaml": BLOCKED_PLAN,
        **EVIDENCE,
        **NOT_PLANS,
    })
    result = _try_repo(repo, pre_commit_home)
    assert result.returncode == 1, result.stdout
    assert re.search(r"^evidence-plan\.+Failed$", result.stdout, re.MULTILINE), result.stdout
    assert re.search(
        r"^other\.plan\.yaml:\d+:\d+: error EP102 ship-it has no proof command$",
        result.stdout, re.MULTILINE,
    ), result.stdout
    assert _checked(result.stdout) == (2, 1, 1, 0), result.stdout
    assert not re.search(r"^plan\.yaml:", result.stdout, re.MULTILINE), result.stdout
    for name in NOT_PLANS:
        assert name not in result.stdout


# --- 3. the all-plans hook, and what the docs say about pinning the hooks (docs/guide/pre-commit.md) -

# A plan whose evidence holds until the code it cites moves: then EP203, "found at line 4".
CITING_PLAN = """\
items:
  - id: greet
    change: Say hello
    evidence: [{path: app.py, line: 1, contains: "def greet"}]
    proof: python3 -m unittest
"""
CODE = "def greet():\n    return 'hello'\n"
MOVED_CODE = "import os\n\n\ndef greet():\n    return 'hello'\n"

_PLAN_HOOK = r"^evidence-plan\.+"
_ALL_HOOK = r"^evidence-plan \(all plans\)\.+"
_MOVED = r"^plan\.yaml:\d+:\d+: error EP203 greet: 'def greet' is not in app\.py:1 \(found at line 4\)$"


def _git(repo: Path, *args: str) -> str:
    return _ok(_run(["git", "-c", "commit.gpgsign=false", *args], cwd=repo)).stdout


def _docs_snippets() -> list[str]:
    """The YAML blocks of the pre-commit guide, in order (the README's is the first: test_docs.py)."""
    return precommit_snippets()


def test_only_the_all_plans_hook_fails_a_commit_that_moves_cited_code(tmp_path: Path, pre_commit_home: Path) -> None:
    # Both hooks of this repository's manifest, as pre-commit installs them (try-repo, no hook
    # id: every hook), on what is staged: a code change, no plan.
    repo = _git_repo(tmp_path / "repo", {"plan.yaml": CITING_PLAN, "app.py": CODE})
    (repo / "app.py").write_text(MOVED_CODE, encoding="utf-8")
    _git(repo, "add", "app.py")
    result = _run([BIN / "pre-commit", "try-repo", REPO, "--verbose"], cwd=repo,
                  env=_env(PRE_COMMIT_HOME=str(pre_commit_home)), timeout=900, merge_stderr=True)
    assert result.returncode == 1, result.stdout
    assert re.search(_PLAN_HOOK + r"\(no files to check\)Skipped$", result.stdout, re.MULTILINE), result.stdout
    assert re.search(_ALL_HOOK + r"Failed$", result.stdout, re.MULTILINE), result.stdout
    assert re.search(_MOVED, result.stdout, re.MULTILINE), result.stdout
    assert _checked(result.stdout) == (1, 0, 1, 0), result.stdout


def test_documented_local_hooks_gate_git_commit(tmp_path: Path, pre_commit_home: Path) -> None:
    # The pre-commit guide's `repo: local` snippet, installed as the git hook, with the development
    # environment's evidence-plan on PATH (language: system: no environment is built).
    (local,) = [s for s in _docs_snippets() if "repo: local" in s]
    repo = _git_repo(tmp_path / "repo", {".pre-commit-config.yaml": local, "plan.yaml": CITING_PLAN, "app.py": CODE})
    env = _env(PRE_COMMIT_HOME=str(pre_commit_home), PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    _ok(_run([BIN / "pre-commit", "install"], cwd=repo, env=env))

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return _run(["git", "-c", "commit.gpgsign=false", "commit", "-m", message], cwd=repo, env=env,
                    merge_stderr=True)

    (repo / "app.py").write_text(MOVED_CODE, encoding="utf-8")
    _git(repo, "add", "app.py")
    refused = commit("code that moves the cited lines")
    assert refused.returncode == 1, refused.stdout
    assert re.search(_PLAN_HOOK + r"\(no files to check\)Skipped$", refused.stdout, re.MULTILINE), refused.stdout
    assert re.search(_ALL_HOOK + r"Failed$", refused.stdout, re.MULTILINE), refused.stdout
    assert re.search(_MOVED, refused.stdout, re.MULTILINE), refused.stdout
    assert _git(repo, "rev-list", "--count", "HEAD") == "1\n"  # nothing was committed

    # `fix` moves the cited line to where the code now is; with the plan staged, both hooks run.
    _ok(_run([BIN / "evidence-plan", "fix", "plan.yaml"], cwd=repo, env=env))
    _git(repo, "add", "plan.yaml")
    accepted = commit("code, and the plan that follows it")
    assert accepted.returncode == 0, accepted.stdout
    assert re.search(_PLAN_HOOK + r"Passed$", accepted.stdout, re.MULTILINE), accepted.stdout
    assert re.search(_ALL_HOOK + r"Passed$", accepted.stdout, re.MULTILINE), accepted.stdout
    assert _git(repo, "rev-list", "--count", "HEAD") == "2\n"


def test_documented_rev_is_pinned_by_autoupdate_freeze_to_a_commit_that_installs(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    """What the docs tell a user to do with `rev`, against this repository as a remote. The
    remote is the repository's last commit (what a user would fetch), not the working tree."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: no commit to pin")
    remote = next(s for s in _docs_snippets() if "repo: local" not in s)
    assert "https://github.com/OWNER/evidence-plan" in remote
    import yaml

    assert isinstance(yaml.safe_load(remote)["repos"][0]["rev"], str)  # pre-commit refuses any other
    config = remote.replace("https://github.com/OWNER/evidence-plan", REPO.as_uri())
    repo = _git_repo(tmp_path / "repo", {".pre-commit-config.yaml": config, "plan.yaml": CITING_PLAN, "app.py": CODE})
    env = _env(PRE_COMMIT_HOME=str(pre_commit_home))
    _ok(_run([BIN / "pre-commit", "autoupdate", "--freeze"], cwd=repo, env=env, merge_stderr=True))
    head = _ok(_run(["git", "rev-parse", "HEAD"], cwd=REPO)).stdout.strip()
    pinned = re.findall(r"^\s+rev: (\S+)", (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8"), re.MULTILINE)
    assert pinned == [head]
    ran = _run([BIN / "pre-commit", "run", "--all-files", "--verbose"], cwd=repo, env=env, timeout=900,
               merge_stderr=True)
    assert ran.returncode == 0, ran.stdout
    assert re.search(_ALL_HOOK + r"Passed$", ran.stdout, re.MULTILINE), ran.stdout
