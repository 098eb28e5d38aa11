"""examples/done, the bundled example whose proofs pass: `verify` runs them for real (subprocesses,
a git repository) on a copy of it, every item passes, and what docs/reference/verify.md shows of
the run and of the page it leaves is what the commands print and write, but for the times, the
commit and the order of the lines within a wave (the order the proofs end in)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, docs_block, git_commit

PAGE = "reference/verify.md"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")]


def _normal(text: str) -> str:
    """What may differ between two runs made the same: times, durations and the commit."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", text)
    text = re.sub(r"\b\d+\.\d s\b", "N s", text)
    return re.sub(r"at commit `[0-9a-f]{12}`", "at commit `COMMIT`", text)


def _by_wave(lines: list[str]) -> list[str]:
    """``lines`` with each run of item lines of one wave sorted (they come as the proofs end)."""
    out: list[str] = []
    run: list[str] = []
    wave = None
    for line in [*lines, ""]:
        found = re.match(r"\S+\s+wave (\d+)  ", line)
        if found is not None and found.group(1) == wave:
            run.append(line)
            continue
        out += sorted(run)
        run, wave = ([line], found.group(1)) if found is not None else ([], None)
        if found is None:
            out.append(line)
    return out[:-1]


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository holding a copy of examples/done where the bundled one is, committed."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "examples" / "done", root / "examples" / "done",
                    ignore=shutil.ignore_patterns("__pycache__", "evidence-plan.*"))
    return git_commit(root)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"NO_COLOR": "1", "PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "compiler", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, env=env, timeout=300)


def test_verify_on_the_done_example_passes_every_item_and_prints_what_the_docs_show(repository: Path) -> None:
    block = docs_block(PAGE, "verify-done")
    sessions = re.findall(r"^\$ evidence-plan (.*)\n((?:(?!\$ ).*\n)*)", block, re.M)
    assert [command for command, _ in sessions] == ["verify examples/done/plan.yaml -o build/done",
                                                    "compile examples/done/plan.yaml -o build/done",
                                                    "verify examples/done/plan.yaml -o build/done"]
    receipts_of = []
    for command, shown in sessions:
        done = _run(command.split(), repository)
        assert done.returncode == 0, done.stdout + done.stderr
        printed = _by_wave(_normal(done.stdout + done.stderr).splitlines())
        assert printed == _by_wave(_normal(shown).splitlines()), command
        if command.startswith("verify"):
            receipts = json.loads((repository / "build/done/evidence-plan.verify.json").read_text(encoding="utf-8"))
            receipts_of.append(receipts)
    first, second = receipts_of
    assert first["status"] == "passed" and first["interrupted"] is False
    assert {item["id"]: item["result"] for item in first["items"]} == dict.fromkeys(
        ["contract", "docs", "implementation", "integration"], "passed")
    assert all(item["attempts"][0]["exit_code"] == 0 for item in first["items"])
    assert first["commit"] == subprocess.run(["git", "rev-parse", "HEAD"], cwd=repository, capture_output=True,
                                             text=True, check=True).stdout.strip()
    assert first["dirty"] is False
    assert second["status"] == "passed" and {item["result"] for item in second["items"]} == {"cached"}


def test_the_page_after_the_run_shows_what_the_docs_show(repository: Path) -> None:
    for args in (["verify", "examples/done/plan.yaml", "-o", "build/done"],
                 ["compile", "examples/done/plan.yaml", "-o", "build/done", "--html"]):
        done = _run(args, repository)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "note:" not in done.stderr
    page = (repository / "build/done/evidence-plan.md").read_text(encoding="utf-8")
    heads = ("## Last verify", "Started ", "### ", "- **Last verified:**")
    shown = [line for line in page.splitlines() if line.startswith(heads)]
    assert _normal("\n".join(shown)) == _normal(docs_block(PAGE, "verify-done-page").rstrip("\n"))
    html = (repository / "build/done/evidence-plan.html").read_text(encoding="utf-8")
    assert html.count('<span class="tag">passed</span>') == 4 and "tag flag" not in html
