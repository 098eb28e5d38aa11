"""How `diff` and `graph` read a plan of git history (compiler/load/gitshow.py, and
compiler/load/arguments.py's ``load_plan_argument``): what the user meant (a name that is a file and a
``REV:path`` too is refused; ``--base`` and ``--rev`` are forms no file can take over), never more
than ``--max-bytes`` read, never the network, never a command of the repository's settings.

Every repository here is made by the test, with the user's git settings out of the way
(GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from support import TWO_ITEMS as V1
from support import run

from compiler.load import arguments

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

V2 = V1.replace("change: second", "change: second, revised")
REVISED = [{"id": "b", "fields": {"change": {"old": "second", "new": "second, revised"}}}]
ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
       "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def diff_json(*args: str) -> tuple[int, dict[str, Any]]:
    result = run("diff", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)
    return done.stdout.decode().strip()


def commit(repo: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    git("add", "--all", cwd=repo)
    git("commit", "-q", "--no-verify", "-m", message, cwd=repo)


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def history(tmp_path: Path, git_env: None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose plan.yaml is V1 at origin/main (the commit before HEAD) and V2 at HEAD
    and in the work tree; the working folder."""
    repo = tmp_path / "repo"
    git("init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    commit(repo, {"plan.yaml": V1}, "plan")
    git("update-ref", "refs/remotes/origin/main", "HEAD", cwd=repo)
    commit(repo, {"plan.yaml": V2}, "revise")
    monkeypatch.chdir(repo)
    return repo


def missing_objects(repo: Path) -> set[str]:
    """The objects the history of ``repo`` names that it has not (rev-list never fetches them)."""
    out = git("-c", "protocol.allow=never", "rev-list", "--objects", "--missing=print", "--all", cwd=repo)
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


def partial_clone(tmp_path: Path, fewer: str) -> Path:
    """A partial clone (``--filter=FEWER``, from a local source that allows filters) of a
    repository whose plan.yaml is V1 at HEAD~1 and V2 at HEAD: the checkout fetched what HEAD
    needs, V1's blob (and with tree:0, HEAD~1's tree) is not in the clone."""
    source = tmp_path / "source"
    git("init", "-q", "-b", "main", str(source), cwd=tmp_path)
    git("config", "uploadpack.allowFilter", "true", cwd=source)
    commit(source, {"plan.yaml": V1}, "plan")
    commit(source, {"plan.yaml": V2}, "revise")
    clone = tmp_path / f"clone-{fewer}"
    git("clone", "-q", f"--filter={fewer}", f"file://{source}", str(clone), cwd=tmp_path)
    lacking = git("rev-parse", "HEAD~1:plan.yaml", cwd=source)
    assert lacking in missing_objects(clone) or fewer == "tree:0"
    return clone


@pytest.fixture
def partial(tmp_path: Path, git_env: None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A blob:none partial clone (partial_clone), the working folder."""
    clone = partial_clone(tmp_path, "blob:none")
    monkeypatch.chdir(clone)
    return clone


# --- what the user meant -----------------------------------------------------------------------

AMBIGUOUS = ("origin/main:plan.yaml: error EP001 ambiguous: a file of this name exists, and git history has plan.yaml"
             " at origin/main; neither is read\n"
             "  hint: for the file, write ./origin/main:plan.yaml; for git history, give the revision by option:"
             " --base origin/main plan.yaml (diff: OLD as it was at that revision) or --rev origin/main plan.yaml"
             " (graph)\n")


def test_a_name_that_is_a_file_and_a_rev_path_git_has_is_refused_as_ambiguous(history: Path) -> None:
    """A pull request adds a file origin/main:plan.yaml holding its own plan: read as the base
    branch's plan it made the documented workflow say "No changes." over a real revision."""
    decoy = history / "origin" / "main:plan.yaml"
    decoy.parent.mkdir()
    decoy.write_text(V2, encoding="utf-8")
    result = run("diff", "origin/main:plan.yaml", "plan.yaml")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", AMBIGUOUS)
    graph = run("graph", "origin/main:plan.yaml")
    assert (graph.exit_code, graph.stdout, graph.stderr) == (2, "", AMBIGUOUS)
    # each meaning, written as the hint says
    file = run("diff", "./origin/main:plan.yaml", "plan.yaml")
    assert file.stdout == "./origin/main:plan.yaml -> plan.yaml: no changes\n"
    code, change = diff_json("--base", "origin/main", "plan.yaml")
    assert code == 1 and change["revision"] == {"old": "origin/main:./plan.yaml", "new": "plan.yaml"}
    assert change["revised"] == REVISED


def test_the_ambiguity_hint_names_the_plan_from_the_working_folder(tmp_path: Path, git_env: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    git("init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    commit(repo, {"plans/plan.yaml": V1}, "plan")
    (repo / "plans" / "HEAD:plans").mkdir()
    (repo / "plans" / "HEAD:plans" / "plan.yaml").write_text(V1, encoding="utf-8")
    monkeypatch.chdir(repo / "plans")
    result = run("diff", "HEAD:plans/plan.yaml", "plan.yaml")
    assert result.exit_code == 2
    assert "--base HEAD plan.yaml (diff: OLD as it was at that revision) or --rev HEAD plan.yaml" in result.stderr
    assert run("diff", "--base", "HEAD", "plan.yaml").stdout == "HEAD:./plan.yaml -> plan.yaml: no changes\n"


def test_a_name_git_cannot_read_is_the_file_of_that_name(history: Path) -> None:
    """Only a name git history has too is ambiguous: an unknown revision leaves the file alone."""
    (history / "nosuch:plan.yaml").write_text(V2, encoding="utf-8")
    assert run("diff", "nosuch:plan.yaml", "plan.yaml").stdout == "nosuch:plan.yaml -> plan.yaml: no changes\n"


def test_a_name_from_here_or_from_the_root_is_always_a_file(history: Path) -> None:
    form = arguments.revision_form
    assert not form("./HEAD:plan.yaml") and not form("../HEAD:plan.yaml")
    assert not form(f"{history}/HEAD:plan.yaml") and form("HEAD:plan.yaml")
    result = run("diff", "./HEAD:plan.yaml", "plan.yaml")
    assert result.exit_code == 2 and "./HEAD:plan.yaml: error EP001 no such file" in result.stderr


def test_base_is_a_form_no_file_can_take_over(history: Path) -> None:
    """`diff --base REV PLAN` reads git history whatever files there are: the documented workflow (docs/guide/ci.md)."""
    for decoy in ("origin/main:plan.yaml", "origin/main:./plan.yaml", "origin/main"):
        path = history / decoy
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(V2, encoding="utf-8")
    code, change = diff_json("--base", "origin/main", "plan.yaml")
    assert code == 1 and change["revised"] == REVISED


def test_base_reads_old_at_the_revision_from_the_working_folder(history: Path) -> None:
    (history / "plan.new.yaml").write_text(V2.replace("change: first", "change: first, revised"), encoding="utf-8")
    code, change = diff_json("--base", "origin/main", "plan.yaml", "plan.new.yaml")
    assert code == 1 and change["revision"] == {"old": "origin/main:./plan.yaml", "new": "plan.new.yaml"}
    assert [r["id"] for r in change["revised"]] == ["a", "b"]
    code, change = diff_json("--base", "origin/main", str(history / "plan.yaml"))  # absolute: from here
    assert code == 1 and change["revision"]["old"] == "origin/main:./plan.yaml"
    result = run("diff", "--base", "origin/main", "other.yaml", "plan.yaml")
    assert result.exit_code == 2
    assert ("origin/main:./other.yaml: error EP001 cannot read it from git history: path 'other.yaml' does not exist"
            " in 'origin/main'") in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("args", "said"), [
    (["plan.yaml"], "diff compares two plans, OLD and NEW; 1 given"),
    (["--base", "HEAD"], "--base REV takes NEW, or OLD and NEW; 0 given"),
    (["--base", "HEAD", "a.yaml", "b.yaml", "c.yaml"], "--base REV takes NEW, or OLD and NEW; 3 given"),
    (["--base", "HEAD", "-", "plan.yaml"], "--base reads OLD from git history: it names a file's path, not -"),
    (["--base", "--output=x", "plan.yaml"], "a revision cannot start with -: '--output=x'"),
    (["--base", "HEAD:x", "plan.yaml"], "a revision has no ':', NUL or line break: 'HEAD:x'"),
    (["--base", "", "plan.yaml"], "the revision is empty"),
])
def test_base_refuses_what_cannot_be_a_revision_or_a_plan(history: Path, args: list[str], said: str) -> None:
    result = run("diff", *args)
    assert result.exit_code == 2 and said in result.stderr and "Traceback" not in result.output


def test_graph_rev_draws_the_plan_as_it_was(history: Path) -> None:
    (history / "plan.yaml").write_text(V1.replace("id: b", "id: c"), encoding="utf-8")
    then = run("graph", "--rev", "origin/main", "plan.yaml", "--format", "json")
    assert then.exit_code == 0, then.output
    assert sorted(box["id"] for box in json.loads(then.stdout)["boxes"]) == ["a", "b"]
    now = json.loads(run("graph", "plan.yaml", "--format", "json").stdout)
    assert sorted(box["id"] for box in now["boxes"]) == ["a", "c"]
    bad = run("graph", "--rev", "-x", "plan.yaml")
    assert bad.exit_code == 2 and "a revision cannot start with -: '-x'" in bad.stderr


# --- never more than --max-bytes ----------------------------------------------------------------


class _Counted:
    """A pipe that counts the bytes read from it."""

    def __init__(self, pipe: Any, log: list[int]) -> None:
        self._pipe, self._log = pipe, log

    def read(self, *args: Any) -> bytes:
        data: bytes = self._pipe.read(*args)
        self._log.append(len(data))
        return data

    def readline(self, *args: Any) -> bytes:
        data: bytes = self._pipe.readline(*args)
        self._log.append(len(data))
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pipe, name)


@pytest.fixture
def batch_reads(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """For each `git cat-file --batch` run, the sizes of the reads from its output pipe."""
    runs: list[list[int]] = []

    class Popen(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
            super().__init__(args, *rest, **kwargs)
            if "cat-file" in args and "--batch" in args:
                runs.append([])
                self.stdout = _Counted(self.stdout, runs[-1])  # type: ignore[assignment]

    monkeypatch.setattr(subprocess, "Popen", Popen)
    return runs


LIMIT = 10_000


def _sized(size: int) -> str:
    """V1 padded with a comment to exactly ``size`` bytes."""
    return V1 + "#" * (size - len(V1) - 1) + "\n"


def test_a_blob_over_max_bytes_is_refused_from_its_header_before_its_content_is_read(
        history: Path, batch_reads: list[list[int]]) -> None:
    commit(history, {"big.yaml": _sized(LIMIT + 1)}, "big")
    header = len(f"{git('rev-parse', 'HEAD:big.yaml', cwd=history)} blob {LIMIT + 1}\n")
    result = run("diff", "--max-bytes", str(LIMIT), "HEAD:big.yaml", "plan.yaml")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == ("HEAD:big.yaml: error EP007 larger than 10,000 bytes"
                                             " (10,001 in git history)")
    assert batch_reads == [[header]]  # the header line, and not one byte of the content


def test_a_blob_within_max_bytes_is_read_to_its_size_and_no_further(history: Path,
                                                                     batch_reads: list[list[int]]) -> None:
    commit(history, {"big.yaml": _sized(LIMIT)}, "big")
    header = len(f"{git('rev-parse', 'HEAD:big.yaml', cwd=history)} blob {LIMIT}\n")
    result = run("diff", "--max-bytes", str(LIMIT), "HEAD:big.yaml", "plan.yaml")
    assert result.exit_code == 1, result.output
    assert batch_reads == [[header, LIMIT]]


def test_a_folder_of_history_is_no_plan(history: Path) -> None:
    commit(history, {"plans/x.yaml": V1}, "folder")
    result = run("diff", "HEAD:plans", "plan.yaml")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == ("HEAD:plans: error EP001 cannot read it from git history: a folder there,"
                                             " not a file")


# --- never the network ---------------------------------------------------------------------------

NOT_LOCAL = "error EP001 cannot read it from git history: not in the local repository: fetch it first"
FETCH_IT_FIRST = f"HEAD~1:plan.yaml: {NOT_LOCAL}"


def test_a_blob_a_partial_clone_lacks_is_ep001_fetch_it_first_and_is_not_fetched(partial: Path) -> None:
    lacking = git("rev-parse", "HEAD~1:plan.yaml", cwd=partial)
    result = run("diff", "HEAD~1:plan.yaml", "plan.yaml")
    assert result.exit_code == 2 and result.stderr.splitlines()[0] == FETCH_IT_FIRST
    assert lacking in missing_objects(partial)  # still not there: nothing was fetched
    based = run("diff", "--base", "HEAD~1", "plan.yaml")
    assert based.exit_code == 2
    assert based.stderr.splitlines()[0] == f"HEAD~1:./plan.yaml: {NOT_LOCAL}"
    # the repository's own settings cannot allow a transport back (-c protocol.allow=never alone
    # is overridden by protocol.file.allow in .git/config)
    git("config", "protocol.allow", "always", cwd=partial)
    git("config", "protocol.file.allow", "always", cwd=partial)
    again = run("graph", "HEAD~1:plan.yaml")
    assert again.exit_code == 2 and again.stderr.splitlines()[0] == FETCH_IT_FIRST
    assert lacking in missing_objects(partial)
    # what the clone has is read as ever
    assert run("diff", "HEAD:plan.yaml", "plan.yaml").exit_code == 0


def test_a_treeless_clone_neither_fetches_the_trees_nor_lets_a_file_stand_in(tmp_path: Path, git_env: None,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With --filter=tree:0, even HEAD~1's tree is not in the clone: git cannot tell whether
    HEAD~1:plan.yaml exists, so it is EP001 "fetch it first", and a file of that name is refused
    as ambiguous rather than read in its place."""
    clone = partial_clone(tmp_path, "tree:0")
    monkeypatch.chdir(clone)
    before = missing_objects(clone)
    result = run("diff", "HEAD~1:plan.yaml", "plan.yaml")
    assert result.exit_code == 2 and result.stderr.splitlines()[0] == FETCH_IT_FIRST
    (clone / "HEAD~1:plan.yaml").write_text(V2, encoding="utf-8")
    decoy = run("diff", "HEAD~1:plan.yaml", "plan.yaml")
    assert decoy.exit_code == 2
    assert decoy.stderr.splitlines()[0] == (
        "HEAD~1:plan.yaml: error EP001 ambiguous: a file of this name exists, and git history may have (the clone has"
        " not fetched the trees to tell) plan.yaml at HEAD~1; neither is read")
    assert missing_objects(clone) == before


# --- never a command of the repository's settings -------------------------------------------------

HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
         "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push",
         "pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
         "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
         "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change")


class _Unauthorized(BaseHTTPRequestHandler):
    """Every request is refused with 401, so that git would ask a credential helper; counted."""

    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.requests.append(self.path)
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="r"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that answers 401 to everything: its URL and the requests it got."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unauthorized)
    _Unauthorized.requests = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/repo.git", _Unauthorized.requests
    finally:
        server.shutdown()
        server.server_close()


# Settings of the clone's .git/config that name a command (each {hook}: a script that leaves a
# mark), and .git/info/attributes that put a filter and a textconv driver on every file.
HOSTILE = {
    "core.fsmonitor": {"core.fsmonitor": "{hook}"},
    "pager": {"core.pager": "{hook}", "pager.show": "{hook}", "pager.cat-file": "{hook}", "pager.rev-parse": "{hook}"},
    "filter": {"filter.x.smudge": "{hook}", "filter.x.clean": "{hook}", "filter.x.process": "{hook}",
               "filter.x.required": "true"},
    "textconv": {"diff.x.textconv": "{hook}", "diff.x.command": "{hook}", "diff.external": "{hook}"},
    "core.hooksPath": {"core.hooksPath": "{hooks}"},
    "core.alternateRefsCommand": {"core.alternateRefsCommand": "{hook}"},
    "uploadpack.packObjectsHook": {"uploadpack.packObjectsHook": "{hook}"},
    "remote uploadpack over file://": {"remote.origin.uploadpack": "{hook}", "protocol.file.allow": "always"},
    "core.sshCommand": {"remote.origin.url": "ssh://example.invalid/repo.git", "core.sshCommand": "{hook}",
                        "protocol.ssh.allow": "always"},
    "ext:: URL": {"remote.origin.url": "ext::{hook}", "protocol.ext.allow": "always"},
    "credential helper over http": {"remote.origin.url": "{http}", "credential.helper": "!{hook}",
                                    "core.askPass": "{hook}", "protocol.http.allow": "always"},
}


@pytest.mark.slow
@pytest.mark.parametrize("settings", list(HOSTILE.values()), ids=list(HOSTILE))
def test_no_setting_of_the_repository_makes_git_run_a_command(partial: Path, tmp_path: Path,
                                                              refusing_server: tuple[str, list[str]],
                                                              settings: dict[str, str]) -> None:
    """Reading a blob the clone has, and one it lacks (where git would fetch it, running what the
    remote's settings say), leaves no mark, and the local server is never asked."""
    url, requests = refusing_server
    mark = tmp_path / "mark"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{mark}'\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        shutil.copy(hook, hooks / name)
    for key, value in settings.items():
        git("config", key, value.format(hook=hook, hooks=hooks, http=url), cwd=partial)
    (partial / ".git" / "info").mkdir(exist_ok=True)
    (partial / ".git" / "info" / "attributes").write_text("* filter=x diff=x\n", encoding="utf-8")
    have, lack = run("diff", "HEAD:plan.yaml", "plan.yaml"), run("diff", "HEAD~1:plan.yaml", "plan.yaml")
    assert not mark.exists(), mark.read_text(encoding="utf-8")
    assert requests == []
    assert have.exit_code == 0, have.output
    assert lack.exit_code == 2 and lack.stderr.splitlines()[0] == FETCH_IT_FIRST
