"""The workflow `ci github` writes, run as GitHub's runner runs it: each job of the matrix with
its own values, each step's script in bash as the workflow's `defaults` say, `if: always()`,
`needs:` (a job whose needed job did not succeed is skipped), the artifacts kept in a folder and
found by the download's pattern, real `evidence-plan` and real proofs that count their runs. The
tool's expressions are evaluated here (test_ci.EXPRESSIONS); any other fails the test. What it
shows: no item runs twice across the fan-out, a failure stops the later waves and fails the last
job, and a job run again runs the same items."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import run
from test_ci import repository

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bash") is None, reason="the workflow's scripts run in bash")]


class Runner:
    """One workflow run: the jobs' results, the artifacts (name -> folder), the summary."""

    def __init__(self, tmp: Path, repo: Path, text: str) -> None:
        self.tmp, self.repo = tmp, repo
        self.workflow: dict[str, Any] = yaml.safe_load(text)
        self.artifacts: dict[str, Path] = {}
        self.results: dict[str, str] = {}
        self.steps: dict[str, list[tuple[str, int | None]]] = {}  # job/chunk -> (step, exit code; None: skipped)
        self.attempts = 0
        self.merges = "--merge" in run("verify", "--help").stdout  # verify --merge: its own branch of issue 24
        shim = tmp / "bin" / "evidence-plan"  # what `--install` would put on PATH
        shim.parent.mkdir()
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m compiler "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        self.path = f"{shim.parent}{os.pathsep}{os.environ['PATH']}"

    def evaluate(self, value: Any, matrix: dict[str, Any], temp: Path, needs: list[str]) -> str:
        def one(match: re.Match[str]) -> str:
            expression = match.group(1).strip()
            known = {"matrix.chunk": lambda: str(matrix["chunk"]), "join(matrix.ids, ' ')": lambda: " ".join(
                matrix["ids"]), "runner.temp": lambda: str(temp),
                     "join(needs.*.result, ' ')": lambda: " ".join(self.results[n] for n in needs)}
            assert expression in known, f"an expression the test cannot evaluate: {expression}"
            return known[expression]()
        return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))

    def job(self, name: str, entries: list[dict[str, Any]] | None = None) -> str:
        """Run a job (each of ``entries`` of its matrix, default all); its result, as GitHub names it."""
        job = self.workflow["jobs"][name]
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        if job.get("if") != "always()" and any(self.results.get(n) != "success" for n in needs):
            self.results[name] = "skipped"
            return "skipped"
        include = entries if entries is not None else job.get("strategy", {}).get("matrix", {}).get("include", [{}])
        ok = all([self._entry(name, job, entry, needs) for entry in include])
        self.results[name] = "success" if ok else "failure"
        return self.results[name]

    def _entry(self, name: str, job: dict[str, Any], matrix: dict[str, Any], needs: list[str]) -> bool:
        self.attempts += 1
        temp = self.tmp / "runner" / str(self.attempts)  # RUNNER_TEMP: a new one for each job
        temp.mkdir(parents=True)
        failed = False
        log = self.steps[f"{name}/{matrix.get('chunk', '')}"] = []
        for step in job["steps"]:
            label = step.get("name") or step["uses"].split("@")[0]
            if (failed and step.get("if") != "always()") or (label.startswith("merge the receipts")
                                                             and not self.merges):
                log.append((label, None))  # skipped; or verify --merge, not on this branch yet
                continue
            code = self._step(step, matrix, temp, needs)
            log.append((label, code))
            failed = failed or code != 0
        return not failed

    def _step(self, step: dict[str, Any], matrix: dict[str, Any], temp: Path, needs: list[str]) -> int:
        given = {k: self.evaluate(v, matrix, temp, needs) for k, v in step.get("with", {}).items()}
        action = step.get("uses", "@").split("@")[0]
        if action in ("actions/checkout", "actions/setup-python") or step.get("name") == "install evidence-plan":
            return 0  # the work tree is the repository; evidence-plan is on PATH
        if action == "actions/upload-artifact":
            assert given["overwrite"] == "True"  # a job run again replaces its artifact (else the upload fails)
            if Path(given["path"]).is_dir():
                shutil.rmtree(self.tmp / "artifacts" / given["name"], ignore_errors=True)
                self.artifacts[given["name"]] = Path(shutil.copytree(given["path"],
                                                                     self.tmp / "artifacts" / given["name"]))
            return 0
        if action == "actions/download-artifact":
            assert given["merge-multiple"] == "True"
            for artifact, folder in sorted(self.artifacts.items()):
                if fnmatch.fnmatchcase(artifact, given["pattern"]):
                    shutil.copytree(folder, given["path"], dirs_exist_ok=True)
            return 0
        assert not action, f"an action the test does not know: {action}"
        script = self.tmp / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = {**os.environ, "PATH": self.path, "RUNNER_TEMP": str(temp), "GITHUB_WORKSPACE": str(self.repo),
               "GITHUB_STEP_SUMMARY": str(self.tmp / "summary.md"),
               "GITHUB_WORKFLOW_REF": "octo/repo/.github/workflows/evidence-plan.yml@refs/pull/7/merge",
               **self.workflow["env"],
               **{k: self.evaluate(v, matrix, temp, needs) for k, v in step.get("env", {}).items()}}
        env.pop("GITHUB_ACTIONS", None)
        shell = self.workflow["defaults"]["run"]["shell"]
        assert shell == "bash"
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.repo,
                              env=env, capture_output=True, text=True, timeout=120, check=False)
        return done.returncode

    def chunk_ids(self, artifact: str) -> list[str]:
        import json

        (receipts,) = self.artifacts[artifact].glob("*/evidence-plan.verify.json")
        return [item["id"] for item in json.loads(receipts.read_text(encoding="utf-8"))["items"]]


def _counts(repo: Path) -> dict[str, int]:
    return {p.stem: len(p.read_text(encoding="utf-8").splitlines()) for p in sorted(repo.glob("*.count"))}


def _plan(tmp_path: Path) -> tuple[Path, Runner]:
    """Wave 1: a b c d (b passes once `fixed` is there); wave 2: e (a), f (b c); wave 3: g (e f)."""
    items = [("a", "", ""), ("b", "", "test -f fixed"), ("c", "", ""), ("d", "", ""), ("e", "a", ""),
             ("f", "b c", ""), ("g", "e f", "")]
    repo = tmp_path / "repo"
    plan = repository(repo, [(i, deps, f"echo x >> {i}.count" + (f" && {more}" if more else ""))
                             for i, deps, more in items])
    assert run("ci", "github", str(plan), "--max-jobs", "2").exit_code == 0
    text = (repo / ".github" / "workflows" / "evidence-plan.yml").read_text(encoding="utf-8")
    return plan, Runner(tmp_path, repo, text)


def test_the_fanned_out_run_verifies_each_item_once_and_its_last_job_passes(tmp_path: Path) -> None:
    plan, runner = _plan(tmp_path)
    (plan.parent.parent / "fixed").touch()
    assert [runner.job(name) for name in runner.workflow["jobs"]] == ["success"] * 4
    assert _counts(plan.parent.parent) == dict.fromkeys("abcdefg", 1)  # no item ran twice
    assert {a: runner.chunk_ids(a) for a in sorted(runner.artifacts)} == {
        "evidence-plan-receipts-wave-1-chunk-1": ["a", "c"], "evidence-plan-receipts-wave-1-chunk-2": ["b", "d"],
        "evidence-plan-receipts-wave-2-chunk-1": ["e"], "evidence-plan-receipts-wave-2-chunk-2": ["f"],
        "evidence-plan-receipts-wave-3-chunk-1": ["g"]}
    last = dict(runner.steps["receipts/"])
    assert last["the workflow still verifies every item of the plan in its wave"] == 0
    assert last["every wave's job succeeded"] == 0
    if runner.merges:
        assert last["merge the receipts: the JUnit file, the job summary; fails when a proof failed"] == 0


def test_a_failure_skips_the_later_waves_fails_the_last_job_and_a_run_again_reruns_the_same_items(
        tmp_path: Path) -> None:
    plan, runner = _plan(tmp_path)
    repo = plan.parent.parent
    assert [runner.job(name) for name in runner.workflow["jobs"]] == ["failure", "skipped", "skipped", "failure"]
    last = dict(runner.steps["receipts/"])
    assert last["every wave's job succeeded"] == 1 and last["the workflow still verifies every item of the plan in"
                                                              " its wave"] == 0
    if runner.merges:
        assert last["merge the receipts: the JUnit file, the job summary; fails when a proof failed"] == 1
    assert _counts(repo) == dict.fromkeys("abcd", 1)
    # Re-run failed jobs: the failed chunk of wave 1 (the same items, as the file names them), then the rest.
    (repo / "fixed").touch()
    entries = runner.workflow["jobs"]["wave-1"]["strategy"]["matrix"]["include"]
    assert [e["ids"] for e in entries] == [["a", "c"], ["b", "d"]]
    assert runner.job("wave-1", [entries[1]]) == "success"
    assert [runner.job(name) for name in ("wave-2", "wave-3", "receipts")] == ["success"] * 3
    assert _counts(repo) == {"a": 1, "b": 2, "c": 1, "d": 2, "e": 1, "f": 1, "g": 1}
    assert runner.chunk_ids("evidence-plan-receipts-wave-1-chunk-2") == ["b", "d"]  # replaced: overwrite
    assert dict(runner.steps["receipts/"])["every wave's job succeeded"] == 0
