"""The fast YAML path (libyaml through PyYAML) must read every file exactly as ruamel.yaml does:
the same data and the same positions, or the same input error (it defers to ruamel on any doubt)."""

from __future__ import annotations

from pathlib import Path

import pytest

import compiler.load as load_module
from compiler.diagnostics import PlanInputError
from compiler.load import Document, parse_text

pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parent.parent
FILES = sorted(
    p for folder in ("examples", "tests/cases", "tests/golden", "tests/hostile")
    for p in (REPO / folder).rglob("*.y*ml") if p.is_file()
)


def _parse(text: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Document | PlanInputError:
    monkeypatch.setattr(load_module, "FAST_YAML_MIN_CHARS", 0 if fast else 10**12)
    try:
        return parse_text(text, "plan.yaml", "yaml")
    except PlanInputError as err:
        return err


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_fast_and_reference_paths_agree(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: refused before parsing")
    fast, reference = _parse(text, True, monkeypatch), _parse(text, False, monkeypatch)
    if isinstance(reference, PlanInputError):
        assert isinstance(fast, PlanInputError), f"fast path accepted what ruamel refuses: {reference}"
        assert fast.diagnostic == reference.diagnostic
        return
    assert isinstance(fast, Document), f"fast path refused what ruamel accepts: {fast}"
    assert fast.data == reference.data
    assert fast.source_map._ensure() == reference.source_map._ensure()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("id: no", "no"), ("id: yes", "yes"), ("id: on", "on"), ("id: 012", 12), ("id: 0o12", 10),
        ("id: 1e3", 1000.0), ("id: ~", None), ("id: 'no'", "no"), ("id: !!str 12", "12"),
        ("id: 2024-01-01", "2024-01-01"), ("id: true", True),
    ],
)
def test_plain_scalars_follow_yaml_1_2_on_both_paths(text: str, value: object, monkeypatch: pytest.MonkeyPatch) -> None:
    for fast in (True, False):
        doc = _parse(text + "\n", fast, monkeypatch)
        assert isinstance(doc, Document)
        assert doc.data == {"id": value}, (fast, doc.data)


def test_fast_path_refuses_what_the_reference_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    for text in ("a: !!python/object/apply:os.system [x]\n", "a: &x [1]\n<<: *x\n", "a: 1\na: 2\n",
                 "a: " + "[" * 150 + "]" * 150 + "\n"):
        fast, reference = _parse(text, True, monkeypatch), _parse(text, False, monkeypatch)
        assert isinstance(fast, PlanInputError) and isinstance(reference, PlanInputError), text
        assert fast.diagnostic.code == reference.diagnostic.code, text


def test_small_files_do_not_import_pyyaml() -> None:
    import subprocess
    import sys

    probe = ("import sys; from compiler.load import parse_text; parse_text('a: 1', 'x.yaml', 'yaml');"
             " print('yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "False"
