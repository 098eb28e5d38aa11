"""Committed generated files (schemas/, outputs/, the tables and the pages of docs/ made from the
code, golden files, the hostile corpus) match the code.

When one of these fails, run `python tests/regenerate.py` and review the diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import regenerate

CASES = regenerate.everything()


@pytest.mark.parametrize("path", sorted(CASES), ids=lambda p: str(p.relative_to(regenerate.REPO)))
def test_generated_file_is_current(path: Path) -> None:
    assert path.exists(), f"{path} is missing: run python tests/regenerate.py"
    assert path.read_bytes() == CASES[path], (
        f"{path.relative_to(regenerate.REPO)} is stale: run python tests/regenerate.py and review the diff"
    )


@pytest.mark.slow
def test_check_mode_writes_nothing_and_finds_nothing_stale(capsys: pytest.CaptureFixture[str]) -> None:
    assert regenerate.main(["--check"]) == 0
    assert capsys.readouterr().out == ""


def test_outputs_hold_the_ready_example() -> None:
    document = json.loads((regenerate.REPO / "outputs" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["status"] == "ready"
    assert document["waves"] == [["contract"], ["docs", "implementation"], ["integration"]]
    assert [i["wave"] for i in document["items"]] == [1, 2, 2, 3]


def test_every_code_is_listed_once_in_the_docs_with_a_link_to_its_page() -> None:
    from compiler.core.codes import CODES

    index = (regenerate.DOCS / "reference" / "codes.md").read_text(encoding="utf-8")
    for code in CODES:
        assert index.count(f"| [`{code}`](../codes/{code}.md) |") == 1, code


def test_every_code_and_every_command_has_its_generated_page_and_no_other() -> None:
    """The staleness test above covers every page regenerate.py writes; these are all the pages
    of docs/codes/ and docs/commands/, so a page left from a code or a command that is gone fails."""
    from compiler.commands import COMMANDS
    from compiler.core.codes import CODES

    generated = {path for path in CASES if path.suffix == ".md"}
    assert set((regenerate.DOCS / "codes").glob("*.md")) == {regenerate.DOCS / "codes" / f"{c}.md" for c in CODES}
    assert set((regenerate.DOCS / "commands").glob("*.md")) == {
        regenerate.DOCS / "commands" / f"{name}.md" for name in COMMANDS}
    assert set((regenerate.DOCS / "codes").glob("*.md")) | set((regenerate.DOCS / "commands").glob("*.md")) <= generated


def test_every_emitted_code_is_registered() -> None:
    """A code used in the source but missing from the registry would crash at report time."""
    import re

    from compiler.core.codes import CODES

    used = set()
    for path in (regenerate.REPO / "compiler").rglob("*.py"):
        used |= set(re.findall(r'"(EP\d{3})"', path.read_text(encoding="utf-8")))
    assert used <= set(CODES), used - set(CODES)
    assert set(CODES) <= used | {"EP001"}, set(CODES) - used
