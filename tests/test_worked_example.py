"""The worked example (examples/worked, docs/guide/worked-example.md): a plan that uses pins,
estimates and a claim, an approval gate, paths with CODEOWNERS, progress and the repository's
settings at once. The outputs the page shows are held to what the commands print."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import docs_block, docs_page

PAGE = "guide/worked-example.md"
REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "worked"


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compiler", *args], cwd=cwd, capture_output=True, text=True,
                          check=False)


def test_the_worked_example_is_ready_without_a_warning() -> None:
    checked = run("check", "examples/worked/plan.yaml")
    assert checked.returncode == 0 and checked.stdout == "", checked.stdout


def test_next_prints_what_the_page_shows() -> None:
    result = run("next", "examples/worked/plan.yaml")
    assert result.returncode == 0
    shown = docs_block(PAGE, "worked-next").split("\n", 1)[1]  # after the "$ evidence-plan next" line
    assert result.stdout + result.stderr == shown


@pytest.mark.slow
def test_the_compiled_example_states_complexity_progress_schedule_forecast_and_owners(tmp_path: Path) -> None:
    assert run("compile", "examples/worked/plan.yaml", "-o", str(tmp_path)).returncode == 0
    document = json.loads((tmp_path / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["complexity"]["tier"] == "medium"
    assert document["progress"] == {"todo": 4, "doing": 1, "done": 1, "dropped": 0}
    assert document["schedule"]["critical_path"] == ["contract", "reject-duplicates", "sign-off", "unique-index"]
    assert document["estimates"]["grounded"] is True and document["estimates"]["max_spread"] == 50  # the setting
    items = {item["id"]: item for item in document["items"]}
    assert items["unique-index"]["owners"] == ["@acme/dba", "@acme/backend"]
    assert items["sign-off"]["approval_state"] == "current"
    assert all("pin" in ev for item in document["items"] for ev in item["evidence"])
    markdown = (tmp_path / "evidence-plan.md").read_text(encoding="utf-8")
    page = docs_page(PAGE)
    for line in markdown.split("\n"):
        if line.startswith(("Complexity:", "Critical path by median", "Forecast over")):
            assert line in page, line  # the page quotes these lines as they are


@pytest.fixture
def edited(tmp_path: Path) -> Path:
    """The example after three edits that look harmless."""
    copy = tmp_path / "worked"
    shutil.copytree(EXAMPLE, copy)
    (copy / ".git").mkdir()
    accounts = copy / "app" / "accounts.py"
    accounts.write_text(accounts.read_text(encoding="utf-8").replace(
        "        account = Account(email=email, name=name)",
        "        email = normalize_email(email)\n        account = Account(email=email, name=name)"), encoding="utf-8")
    plan = copy / "plan.yaml"
    text = plan.read_text(encoding="utf-8").replace("    paths: [docs/api.md]", "    paths: [docs/api.md, app/]")
    plan.write_text(re.sub(r"(proof: python3 -m unittest tests\.test_accounts)$", r"\1 -v", text, flags=re.M),
                    encoding="utf-8")
    return copy


def test_check_of_the_edited_example_prints_what_the_page_shows(edited: Path) -> None:
    result = run("check", "plan.yaml", cwd=edited)
    assert result.returncode == 1
    assert result.stdout == docs_block(PAGE, "worked-check")
