"""Issue 23's promises on a real repository nobody here wrote: excerpts of black 26.10.1
(tests/repo/black/README.md), where the tool once said ready on wrong citations."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import run

BLACK = Path(__file__).resolve().parent / "black"


@pytest.fixture
def black(tmp_path: Path) -> Path:
    repo = tmp_path / "black"
    shutil.copytree(BLACK, repo)
    (repo / ".git").mkdir()  # the repository's root
    return repo


def _check(repo: Path, *entries: str, proof: str = "python -m pytest tests -q") -> list[str]:
    items = "".join(f"  - id: item-{n}\n    change: c\n    evidence: ['{entry}']\n    proof: {proof}\n"
                    for n, entry in enumerate(entries, 1))
    (repo / "plan.yaml").write_text("items:\n" + items, encoding="utf-8")
    result = run("check", str(repo / "plan.yaml"))
    return [line for line in result.stdout.splitlines() if " error " in line]


def test_a_wrapped_bullet_and_a_line_of_fenced_code_are_no_markdown_symbols(black: Path) -> None:
    # CHANGES.md line 83 is "  type parameters (#5429)", a bullet's second line; "preview" is a
    # word of the_basics.md's prose and code, never a heading of its own ("`--preview`" is).
    errors = _check(black, "CHANGES.md::parameters", "docs/usage_and_configuration/the_basics.md::preview")
    assert [e.split(" error ")[1].split(" ")[0] for e in errors] == ["EP206", "EP206"]
    assert "did you mean `--preview`?" in errors[1]
    assert _check(black, "docs/usage_and_configuration/the_basics.md::`--preview`") == []


def test_a_heading_under_every_release_is_ambiguous_until_qualified(black: Path) -> None:
    (error,) = _check(black, "CHANGES.md::Output")
    assert " error EP212 item-1 cites CHANGES.md::Output" in error
    assert _check(black, "CHANGES.md::Version 26.10.0.Output") == []


def test_a_misspelt_test_of_a_case_whose_base_the_repository_defines_is_caught(black: Path) -> None:
    # BlackTestCase(BlackBaseTestCase), imported from tests.util: its tests are known.
    assert _check(black, "tests/util.py", proof="python -m pytest tests/test_black.py::BlackTestCase::test_piping") \
        == []
    (error,) = _check(black, "tests/util.py",
                      proof="python -m pytest tests/test_black.py::BlackTestCase::test_pipng")
    assert " error EP210 " in error and "did you mean BlackTestCase::test_piping?" in error
    # A method of the base class is the subclass's too.
    assert _check(black, "tests/util.py",
                  proof="python -m pytest tests/test_black.py::BlackTestCase::assertFormatEqual") == []
