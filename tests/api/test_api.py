"""The library halves of the commands (compiler/api/), used from Python as the CLI uses them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler import compile_to_folder
from compiler.api.compile import prepare
from compiler.cli import cli
from compiler.core.write import WriteError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "duplicate-email"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    (folder / ".git").mkdir()
    return folder


def test_compile_to_folder_writes_what_the_cli_writes(example: Path, tmp_path: Path) -> None:
    compiled = compile_to_folder(str(example / "plan.yaml"), str(tmp_path / "py"), html=True)
    assert [Path(p).name for p in compiled.files] == ["evidence-plan.json", "evidence-plan.md", "evidence-plan.html"]
    assert compiled.result.status == "ready" and compiled.document["revision"] == 1
    result = CliRunner().invoke(cli, ["compile", str(example / "plan.yaml"), "-o", str(tmp_path / "cli"), "--html"])
    assert result.exit_code == 0, result.output
    for name in ("evidence-plan.json", "evidence-plan.md", "evidence-plan.html"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_the_revision_is_recorded_against_the_folder(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    compile_to_folder(str(example / "plan.yaml"), str(out))
    plan = example / "plan.yaml"
    plan.write_text(plan.read_text(encoding="utf-8").replace("Reject normalized duplicates",
                                                             "Reject normalized duplicates at once"), encoding="utf-8")
    again = compile_to_folder(str(plan), str(out))
    assert again.document["revision"] == 2
    written = json.loads((out / "evidence-plan.json").read_text(encoding="utf-8"))
    assert written["changes"]["revised"] == [{"id": "implementation", "fields": ["change"]}]


def test_prepare_writes_nothing(example: Path, tmp_path: Path) -> None:
    compiled = prepare(str(example / "plan.yaml"), str(tmp_path / "out"))
    assert compiled.result.status == "ready" and not (tmp_path / "out").exists()


def test_write_never_writes_over_the_plan(example: Path) -> None:
    """A planted evidence-plan.md that is a link to the plan: the set is refused, nothing written."""
    (example / "evidence-plan.md").symlink_to(example / "plan.yaml")
    before = (example / "plan.yaml").read_bytes()
    with pytest.raises(WriteError):
        compile_to_folder(str(example / "plan.yaml"))
    assert (example / "plan.yaml").read_bytes() == before
    assert not (example / "evidence-plan.json").exists()


def test_check_plans_from_python_checks_every_file_and_counts_each_outcome(tmp_path: Path) -> None:
    """compiler/api/check.py: the library half of `check`, each file whatever happened before."""
    from compiler.api.check import check_plans

    repo = Path(__file__).resolve().parents[2]
    missing = str(tmp_path / "missing.yaml")
    checked = check_plans([str(repo / "examples/duplicate-email/plan.yaml"), missing,
                           str(repo / "examples/blocked/plan.yaml")])
    assert (checked.ready, checked.blocked, checked.unreadable) == (1, 1, 1)
    assert [r.status for r in checked.reports] == ["ready", "unreadable", "blocked"]
    assert any(d.code == "EP001" for d in checked.diagnostics)
    assert list(checked.diagnostics) == sorted(checked.diagnostics, key=lambda d: d.sort_key())
