"""The example against a real project's layout: examples/click-floatrange-nan, a plan for a bug
fix to click 8.5.1 over unchanged copies of the files it cites. It compiles ready, and its symbol
evidence resolves to the lines that were read by hand (a Python method and function, an
``if TYPE_CHECKING:`` class, ``@overload``ed callables, a TOML table and a Markdown section)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli

PLAN = "examples/click-floatrange-nan/plan.yaml"

# Each symbol the plan cites, and the lines it was read to be in click 8.5.1.
SYMBOLS = {
    "src/click/types.py::FloatParamType": "768-773",
    "src/click/types.py::_NumberRangeBase.convert": "666-697",
    "src/click/types.py::FloatRange._clamp": "809-816",
    "src/click/types.py::IntRange._clamp": "761-765",
    # In `if t.TYPE_CHECKING:` (616) and again in its `else:` (624): the first in the file wins.
    "src/click/types.py::NumberRangeInfoDict": "616-621",
    # Two @t.overload stubs (143-157) and the implementation, which is what is meant.
    "src/click/types.py::ParamType.__call__": "159-167",
    # Three @t.overload stubs (1346-1355) and the implementation.
    "src/click/types.py::convert_type": "1356-1397",
    "pyproject.toml::tool.pytest.ini_options": "83-91",
    "docs/parameter-types.md::Int and Float Ranges": "81-107",
}

WAVES = [
    ["contract", "float-unchanged", "prompt-contract"],
    ["docstring", "fix-range-check"],
    ["fix-clamp", "info-dict", "int-range", "prompt"],
    ["changelog", "docs"],
    ["suite"],
]

# The copies, byte for byte as in the click-8.5.1 sdist: the cited lines stay the lines read.
COPIES = {
    "CHANGES.md": "4ec23f3df8366d10435ecf58d60307c39352c5cc602bd4abdc40ad4054465d76",
    "LICENSE.txt": "9a8ad106a394e853bfe21f42f4e72d592819a22805d991b5f3275029292b658d",
    "docs/parameter-types.md": "877103da442254e54c85d63dd5a284c5b6c46e76978ec981d147627d4fcac0af",
    "pyproject.toml": "065139a409d3a70ebc14d554922e9dbc8a2d0f05ab751b9d7425e1c067aae074",
    "src/click/termui.py": "16f6546b36d647d191788fc912e32d93e8b64289517f004e6d9604f4896ad1ca",
    "src/click/types.py": "30a39185da37bbd98ef47153f7bfd310b04eac44bd9b9b2fe15998406337757e",
    "tests/test_basic.py": "426d272517757ff8f202ffba9d1964645ca3e553a80d162bc82bacdd430392f0",
    "tests/test_info_dict.py": "11cf88b0a4e6989dab1e1c1101266ba48f281f56f1062a6e38189b47e1fa1b21",
    "tests/test_types/test_FloatRange.py": "b2744a9ada9809ae7331e7d203b21917b313073968ada6d5cb71f04bdc3a4bfe",
    "tests/test_types/test_IntRange.py": "b986a2438d9e41724153c7c60b64f23854f9732eb00d22c13d2f8e116f75d7eb",
    "tests/test_utils/test_prompt.py": "5112b833b5befd5303972ef5319939dbb54ab89d31a4c90943f6ef631cf0c11e",
}


@pytest.fixture
def compiled(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, str, str]:
    """The click example compiled from the repository root into tmp_path: (the JSON document,
    the Markdown, stderr)."""
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(cli, ["compile", PLAN, "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.stderr
    document = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    return document, (tmp_path / "out" / "evidence-plan.md").read_text(encoding="utf-8"), result.stderr


def test_click_example_compiles_ready_in_five_waves(compiled: tuple[dict, str, str]) -> None:
    document, _, stderr = compiled
    assert stderr.startswith(f"{PLAN}: ready: 12 items in 5 waves (widest 4)")
    assert document["status"] == "ready"
    assert document["evidence_verified"] is True
    assert document["issues"] == []
    assert document["summary"] == {"items": 12, "waves": 5, "widest_wave": 4, "errors": 0, "warnings": 0}
    assert document["waves"] == WAVES
    assert document["critical_path"] == ["contract", "fix-range-check", "fix-clamp", "changelog", "suite"]


def test_click_example_check_has_no_warnings(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(cli, ["check", "--format", "json", PLAN])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == []  # no diagnostic at all, not even a warning
    text = CliRunner().invoke(cli, ["check", "--format", "text", PLAN])
    assert (text.exit_code, text.stdout) == (0, "")
    assert "1 ready, 0 blocked, 0 unreadable (0 errors, 0 warnings)" in text.stderr


def test_click_example_root_is_its_folder_not_the_repository(compiled: tuple[dict, str, str]) -> None:
    document, _, _ = compiled
    assert document["root"].endswith("examples/click-floatrange-nan")


def test_click_example_symbols_resolve_to_the_lines_read_by_hand(compiled: tuple[dict, str, str]) -> None:
    document, _, _ = compiled
    found = {f"{e['path']}::{e['symbol']}": e["resolved_lines"]
             for item in document["items"] for e in item["evidence"] if "symbol" in e}
    assert found == SYMBOLS


def test_click_example_markdown_links_to_the_resolved_lines(compiled: tuple[dict, str, str]) -> None:
    _, markdown, _ = compiled
    for reference, lines in SYMBOLS.items():
        path = reference.split("::")[0]
        start, end = lines.split("-")
        assert f"[`{reference}`](" in markdown
        assert f"examples/click-floatrange-nan/{path}#L{start}-L{end})" in markdown


def test_click_example_exercises_every_kind_of_evidence(compiled: tuple[dict, str, str]) -> None:
    document, _, _ = compiled
    evidence = [e for item in document["items"] for e in item["evidence"]]
    assert any("line" in e for e in evidence)
    assert any("lines" in e and "contains" not in e for e in evidence)
    assert any("contains" in e for e in evidence)
    assert any(e.get("url", "").startswith("https://") for e in evidence)


def test_click_example_copies_are_unchanged(repo: Path) -> None:
    """A formatter or a hand edit on a copy would move the lines the plan cites: the copies are
    the sdist's bytes (the folder's ruff.toml keeps `ruff check .`, and click's `fix = true`,
    away from them)."""
    folder = repo / "examples" / "click-floatrange-nan"
    copies = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()
                    and p.name not in ("plan.yaml", "README.md", "ruff.toml"))
    assert copies == sorted(COPIES)
    for name, digest in COPIES.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
