"""evidence-plan.json: its contract (the schema models), determinism, and atomic writes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.compile import compile_plan
from compiler.emit import build_output, dumps, write_atomic
from compiler.output_model import CompiledPlan


@pytest.mark.parametrize("plan", ["examples/duplicate-email/plan.yaml", "examples/blocked/plan.yaml"])
def test_every_document_matches_the_output_schema(repo: Path, plan: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    document = build_output(compile_plan(plan), "outputs")
    CompiledPlan.model_validate(document)  # raises on any difference from schemas/evidence-plan.schema.json


def test_output_is_byte_identical_across_runs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    first = dumps(build_output(compile_plan("examples/blocked/plan.yaml"), "."))
    second = dumps(build_output(compile_plan("examples/blocked/plan.yaml"), "."))
    assert first == second
    assert first.endswith("}\n")


def test_issue_locations_are_relative_to_the_json_folder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    document = build_output(compile_plan("examples/blocked/plan.yaml"), "outputs")
    files = {i["location"]["file"] for i in document["issues"]}
    files |= {r["location"]["file"] for i in document["issues"] for r in i.get("related", [])}
    assert files == {"../examples/blocked/plan.yaml"}


def test_atomic_write_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomic(target, "old\n")
    write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left behind
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def test_atomic_write_in_slices_writes_every_character(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler import emit

    monkeypatch.setattr(emit, "WRITE_CHUNK", 3)  # slices that end inside multi-byte characters' runs
    text = "a→é😀\n" * 5 + "tail"
    write_atomic(tmp_path / "out.md", text)
    assert (tmp_path / "out.md").read_bytes() == text.encode("utf-8")


def test_texts_given_as_functions_are_made_one_at_a_time(tmp_path: Path) -> None:
    """compile passes its JSON and Markdown as functions: each text is made just before it is
    written, so a large plan's two texts are never held at once."""
    from compiler.emit import write_all_atomic

    made: list[str] = []

    def text(name: str) -> Callable[[], str]:
        def make() -> str:
            made.append(name)
            assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == []
            assert len([p for p in tmp_path.iterdir() if p.name.startswith(".")]) == len(made) - 1
            return f"{name}\n"
        return make

    write_all_atomic({tmp_path / "a.json": text("a"), tmp_path / "b.md": text("b")})
    assert made == ["a", "b"]
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "a\n"
    assert (tmp_path / "b.md").read_text(encoding="utf-8") == "b\n"


def test_a_text_that_fails_to_be_made_changes_nothing(tmp_path: Path) -> None:
    from compiler.emit import write_all_atomic

    write_atomic(tmp_path / "a.json", "previous\n")

    def broken() -> str:
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        write_all_atomic({tmp_path / "a.json": "new\n", tmp_path / "b.md": broken})
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_result_for_output_drops_the_parsed_values_and_emits_the_same(repo: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.render import render_markdown

    monkeypatch.chdir(repo)
    for plan in ("examples/duplicate-email/plan.yaml", "examples/blocked/plan.yaml"):
        result = compile_plan(plan)
        slim = result.for_output()
        assert slim.document.data is None and slim.document.text == "" and slim.document.name == plan
        assert (slim.plan, slim.diagnostics, slim.waves) == (result.plan, result.diagnostics, result.waves)
        full, lean = build_output(result, "outputs"), build_output(slim, "outputs")
        assert dumps(lean) == dumps(full)
        assert render_markdown(lean) == render_markdown(full)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_write_that_fails_half_way_keeps_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "evidence-plan.json"
    write_atomic(target, "previous\n")

    def fail(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)  # the data is half written when this fails
    with pytest.raises(OSError):
        write_atomic(target, "x" * 100_000)
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["evidence-plan.json"]


def test_compile_that_fails_to_write_exits_2_and_keeps_both_artifacts(
    write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from compiler.cli import main

    plan = write("plan.yaml", "items:\n  - {id: a, change: c, evidence: [x], proof: p}\n")
    assert main(["compile", "--no-verify-evidence", str(plan)]) == 0
    before = {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")}
    plan.write_text("items:\n  - {id: b, change: c, evidence: [x], proof: p}\n", encoding="utf-8")
    capsys.readouterr()
    real_fsync = os.fsync
    calls = []

    def fsync_fails_on_the_second_file(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync_fails_on_the_second_file)
    assert main(["compile", "--no-verify-evidence", str(plan)]) == 2
    assert {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")} == before
    assert sorted(p.name for p in plan.parent.iterdir()) == ["evidence-plan.json", "evidence-plan.md", "plan.yaml"]
    err = capsys.readouterr().err
    assert "error: cannot write: No space left on device" in err
    assert "Traceback" not in err


def test_dumps_puts_each_list_element_on_its_own_line() -> None:
    document = {"a": [], "b": ["x", "é\n\"q\""], "c": [[1, 2], {"k": [True, None]}], "d": {"e": 1.5}}
    assert dumps(document) == (
        '{\n'
        '  "a": [],\n'
        '  "b": [\n'
        '    "x",\n'
        '    "é\\n\\"q\\""\n'
        '  ],\n'
        '  "c": [\n'
        '    [1, 2],\n'
        '    {"k": [true, null]}\n'
        '  ],\n'
        '  "d": {"e": 1.5}\n'
        '}\n'
    )
    assert dumps(["not", "an", "object"]) == '["not", "an", "object"]\n'
    with pytest.raises(TypeError):
        dumps({"items": [object()]})


def test_resolved_lines_go_to_the_right_item_when_an_earlier_item_is_invalid(
    write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Symbols are keyed by the item's place in the file, which an invalid item before it shifts
    away from its place among the valid items."""
    folder = write("app.py", "x = 1\n\n\ndef f():\n    return 2\n").parent
    (folder / ".git").mkdir()  # the repository root
    write("plan.yaml", """
        items:
          - {id: bad, change: 12, evidence: [app.py], proof: p}
          - {id: good, change: c, evidence: [app.py:1, app.py::f], proof: p}
    """)
    monkeypatch.chdir(folder)
    document = build_output(compile_plan("plan.yaml"), ".")
    assert [i["id"] for i in document["items"]] == ["good"]
    assert document["items"][0]["evidence"] == [
        {"path": "app.py", "line": 1},
        {"path": "app.py", "symbol": "f", "resolved_lines": "4-5"},
    ]
