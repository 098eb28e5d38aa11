"""`compile` records revisions: the evidence-plan.json it replaces gives the revision and the
changes (compiler/compile/history.py: record), as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support import TWO_ITEMS as PLAN
from support import write_plan

from compiler.cli import cli
from compiler.model.output_model import CompiledPlan

NO_CHANGES = {"added": [], "removed": [], "revised": [], "renamed": [], "edges": {"added": [], "removed": []},
              "waves": {"direct": [], "indirect": []}}


def compile_(folder: Path, text: str) -> tuple[Result, dict]:
    (folder / "app.py").write_text("\n".join(f"line {n}" for n in range(1, 7)) + "\n", encoding="utf-8")
    plan = write_plan(folder, text)
    result = CliRunner().invoke(cli, ["compile", str(plan), "-o", str(folder / "out")])
    assert result.exit_code == 0, result.output
    document = json.loads((folder / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    CompiledPlan.model_validate(document)
    return result, document


def files(folder: Path) -> tuple[bytes, bytes]:
    return ((folder / "out" / "evidence-plan.json").read_bytes(), (folder / "out" / "evidence-plan.md").read_bytes())


def test_the_first_compile_is_revision_1_with_no_changes(tmp_path: Path) -> None:
    _, document = compile_(tmp_path, PLAN)
    assert document["revision"] == 1
    assert "changes" not in document
    assert list(document).index("revision") == list(document).index("status") + 1


def test_recompiling_an_unchanged_plan_leaves_both_files_byte_identical(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    compile_(tmp_path, PLAN.replace("second", "second, revised"))  # revision 2, with changes
    before = files(tmp_path)
    compile_(tmp_path, PLAN.replace("second", "second, revised"))
    assert files(tmp_path) == before
    assert json.loads(before[0])["revision"] == 2


def test_changing_one_item_advances_the_revision_by_one_and_lists_it_as_revised(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    _, document = compile_(tmp_path, PLAN.replace("[app.py:5]", "[app.py:6]"))
    assert document["revision"] == 2
    assert document["changes"] == {**NO_CHANGES, "revised": [{"id": "b", "fields": ["evidence"]}]}
    markdown = (tmp_path / "out" / "evidence-plan.md").read_text(encoding="utf-8")
    assert "**Revision** 2 · since the previous: 1 revised (`b`: evidence)." in markdown


def test_a_rename_and_an_added_item_are_recorded_with_the_edges_and_waves(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    new = PLAN.replace("id: a", "id: a2").replace("[a]", "[a2]") + (
        "  - id: c\n    change: third\n    evidence: [app.py:6]\n    depends_on: [b]\n    proof: pytest\n")
    _, document = compile_(tmp_path, new)
    assert document["revision"] == 2
    assert document["changes"] == {**NO_CHANGES, "added": ["c"], "renamed": [{"old": "a", "new": "a2"}],
                                   "edges": {"added": [{"item": "c", "depends_on": "b"}], "removed": []}}
    markdown = (tmp_path / "out" / "evidence-plan.md").read_text(encoding="utf-8")
    assert ("**Revision** 2 · since the previous: 1 added (`c`); 1 renamed (`a` → `a2`); "
            "1 dependency edges added, 0 removed.") in markdown


def test_a_moved_wave_is_recorded_direct_and_indirect(tmp_path: Path) -> None:
    three = PLAN + "  - id: c\n    change: third\n    evidence: [app.py:6]\n    depends_on: [b]\n    proof: pytest\n"
    compile_(tmp_path, three)
    _, document = compile_(tmp_path, three.replace("depends_on: [a]", "depends_on: []"))
    assert document["revision"] == 2
    assert document["changes"]["waves"] == {"direct": [{"id": "b", "old": 2, "new": 1}],
                                            "indirect": [{"id": "c", "old": 3, "new": 2}]}


def test_a_corrupt_previous_file_is_noted_and_replaced_by_revision_1(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "evidence-plan.json").write_text('{"format": "evidence-plan/1", "items": [', encoding="utf-8")
    result, document = compile_(tmp_path, PLAN)
    assert "note: the previous " in result.stderr
    assert "cannot be read (invalid JSON" in result.stderr and "written as revision 1, with no changes" in result.stderr
    assert "Traceback" not in result.output
    assert document["revision"] == 1 and "changes" not in document


def test_a_previous_file_that_is_no_compiled_plan_is_noted(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "evidence-plan.json").write_text('{"something": "else"}', encoding="utf-8")
    result, document = compile_(tmp_path, PLAN)
    assert "is not a compiled evidence-plan.json: written as revision 1" in result.stderr
    assert document["revision"] == 1 and "changes" not in document


def test_a_previous_file_from_before_revisions_counts_as_none_but_is_compared(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    path = tmp_path / "out" / "evidence-plan.json"
    older = json.loads(path.read_text(encoding="utf-8"))
    del older["revision"]
    path.write_text(json.dumps(older), encoding="utf-8")
    _, document = compile_(tmp_path, PLAN.replace("change: first", "change: first!"))
    assert document["revision"] == 1
    assert document["changes"]["revised"] == [{"id": "a", "fields": ["change"]}]


def test_a_previous_revision_that_is_no_number_is_noted_and_counts_from_1(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    path = tmp_path / "out" / "evidence-plan.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"revision": 1', '"revision": "x"'), encoding="utf-8")
    result, document = compile_(tmp_path, PLAN)
    assert "has no usable revision ('x'): written as revision 1" in result.stderr
    assert document["revision"] == 1


def test_render_reads_a_file_from_before_revisions(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    path = tmp_path / "out" / "evidence-plan.json"
    older = json.loads(path.read_text(encoding="utf-8"))
    del older["revision"]
    path.write_text(json.dumps(older), encoding="utf-8")
    result = CliRunner().invoke(cli, ["render", str(path), "-o", str(tmp_path / "r.md")])
    assert result.exit_code == 0, result.output
    assert "Revision" not in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_ids_on_the_revision_line_are_escaped(tmp_path: Path) -> None:
    # ids the compiler writes are plain; a hand-edited file that render reads may hold anything
    compile_(tmp_path, PLAN)
    path = tmp_path / "out" / "evidence-plan.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**document, "revision": 2, "changes": {**NO_CHANGES, "added": ["x`y|*z*"]}}),
                    encoding="utf-8")
    result = CliRunner().invoke(cli, ["render", str(path), "-o", str(tmp_path / "r.md")])
    assert result.exit_code == 0, result.output
    line = next(t for t in (tmp_path / "r.md").read_text(encoding="utf-8").splitlines() if t.startswith("**Revision"))
    assert line == "**Revision** 2 · since the previous: 1 added (``x`y|*z*``)."


def test_a_previous_file_with_changes_compile_did_not_write_is_not_copied_on(tmp_path: Path) -> None:
    compile_(tmp_path, PLAN)
    path = tmp_path / "out" / "evidence-plan.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"revision": 1,', '"revision": 4, "changes": [],'),
                    encoding="utf-8")
    result, document = compile_(tmp_path, PLAN)
    assert "has no usable changes: written as revision 1" in result.stderr
    assert document["changes"] == NO_CHANGES and document["revision"] == 1


def test_a_fifo_at_the_output_path_is_written_not_read(tmp_path: Path, deadline: None) -> None:
    """The FIFO's reader is open before compile runs (non-blocking, in this thread): a reader in a
    thread of its own raced the compile, which, on a loaded machine, could find no reader yet and
    rightly refuse to write ("a FIFO with no reader"). What is written, under the pipe's 64 KiB,
    waits in the pipe until it is read after."""
    import os

    (tmp_path / "out").mkdir()
    fifo = tmp_path / "out" / "evidence-plan.json"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        (tmp_path / "app.py").write_text("\n".join(f"line {n}" for n in range(1, 7)) + "\n", encoding="utf-8")
        result = CliRunner().invoke(cli, ["compile", str(write_plan(tmp_path, PLAN)), "-o", str(tmp_path / "out")])
        chunks = []
        while chunk := os.read(reader, 65536):  # the writer is gone: the pipe ends after what it wrote
            chunks.append(chunk)
    finally:
        os.close(reader)
    assert result.exit_code == 0, result.output
    assert json.loads(b"".join(chunks))["revision"] == 1


# --- the recompile's fast path (compiler/compile/history.py: same_items), held to its slow path --------

def _compiled_and_plan(text: str, folder: Path) -> tuple[dict, object]:
    from compiler.compile.emit import build_output
    from compiler.compile.pipeline import compile_plan

    path = write_plan(folder, text)
    result = compile_plan(str(path), verify_evidence=False)
    document = json.loads(json.dumps(build_output(result, str(folder))))
    return document, result.plan


def _slow_changes(document: dict, plan: object) -> dict:
    from compiler.analysis.revisions import Side, compare
    from compiler.compile.history import changes
    from compiler.load.document import parse_text
    from compiler.model.validate import build_plan

    previous = build_plan(parse_text(json.dumps(document), "evidence-plan.json", "json"))
    return changes(compare(Side("old", previous, None, "", ()), Side("new", plan, None, "", ())))  # type: ignore[arg-type]


@pytest.mark.slow
def test_an_unchanged_recompile_takes_the_fast_path_for_every_bundled_plan(repo: Path, tmp_path: Path) -> None:
    from compiler.compile.emit import build_output
    from compiler.compile.history import plan_changed, same_items
    from compiler.compile.pipeline import compile_plan

    plans = sorted([*repo.glob("examples/*/plan.yaml"), *repo.glob("tests/cases/*/plan.yaml"),
                    *repo.glob("tests/cases/*/plan.json")])
    taken = 0
    for path in plans:
        try:
            result = compile_plan(str(path), verify_evidence=False)
        except Exception:  # noqa: BLE001 - a case of an unreadable plan: no output to compare with
            continue
        document = json.loads(json.dumps(build_output(result, str(tmp_path))))
        assert not plan_changed(_slow_changes(document, result.plan)), path
        assert same_items(document["items"], result.plan), path
        taken += 1
    assert taken >= 40


def test_an_unchanged_recompile_of_verified_evidence_takes_the_fast_path(repo: Path, tmp_path: Path) -> None:
    """Verified evidence is written with its resolved lines and hash, which the plan does not give:
    the fast path reads past them, for an item with options and for one without."""
    from compiler.compile.emit import build_output
    from compiler.compile.history import same_items
    from compiler.compile.pipeline import compile_plan

    for example in ("duplicate-email", "worked"):
        result = compile_plan(str(repo / "examples" / example / "plan.yaml"))
        document = json.loads(json.dumps(build_output(result, str(tmp_path))))
        assert any("hash" in ev for item in document["items"] for ev in item["evidence"]), example
        assert same_items(document["items"], result.plan), example
        document["items"][0]["evidence"][0]["path"] += "x"
        assert not same_items(document["items"], result.plan), example


VARIANTS = [
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest}\n",
    "  - {id: a, change: First, evidence: [app.py:3], proof: pytest}\n",
    "  - {id: a, change: first, evidence: [{path: app.py, line: 3}], proof: pytest}\n",
    "  - {id: a, change: first, evidence: [app.py:3-3], proof: pytest}\n",
    "  - {id: a, change: first, evidence: [app.py:4], proof: pytest}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest, status: todo}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest, status: done}\n",
    "  - {id: a, change: first, evidence: ['app.py::main'], proof: pytest}\n",
    "  - {id: b, change: first, evidence: [app.py:3], proof: pytest}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest, depends_on: [c]}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: [pytest, ruff]}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest, estimate: {low: 1, high: 2, unit: hours}}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest, estimate: {low: 1.0, high: 2, unit: hours}}\n",
    "  - {id: a, change: first, evidence: [app.py:3], proof: pytest, depend_on: [c]}\n",
    "  - 12\n",
    "  - {id: c, change: third, evidence: [app.py:5], proof: pytest}\n",
]


@pytest.mark.slow
@pytest.mark.parametrize("old", range(len(VARIANTS)))
def test_the_fast_path_says_same_only_where_the_slow_path_finds_no_change(old: int, tmp_path: Path) -> None:
    """Every pair of variants of a plan: where same_items says the compiled file holds the new
    items, compare finds no change; an unchanged plan always takes the fast path."""
    from compiler.compile.history import plan_changed, same_items

    document, _ = _compiled_and_plan("items:\n" + VARIANTS[old] + VARIANTS[-1], tmp_path)
    for new, variant in enumerate(VARIANTS):
        _, plan = _compiled_and_plan("items:\n" + variant + VARIANTS[-1], tmp_path)
        fast = same_items(document["items"], plan)  # type: ignore[arg-type]
        if fast:
            assert not plan_changed(_slow_changes(document, plan)), (old, new)
        if new == old:
            assert fast


def test_an_unchanged_recompile_does_not_build_the_previous_plan(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.model import validate

    compile_(tmp_path, PLAN)
    built = []
    real = validate.build_plan
    monkeypatch.setattr(validate, "build_plan", lambda doc: built.append(doc.name) or real(doc))
    compile_(tmp_path, PLAN)
    assert built == []  # the previous file's items are the plan's: read, compared as data, not built
    compile_(tmp_path, PLAN.replace("second", "other"))
    assert [name.endswith("evidence-plan.json") for name in built] == [True]  # changed: the slow path


def test_what_compile_records_leaves_out_the_consequences_diff_shows(repo: Path) -> None:
    """compile records the items' change only: diff's timing (a forecast of each side) and voided
    approvals are not worked out for it (compiler/compile/history.py asks compare without them)."""
    from compiler.analysis.revisions import compare
    from compiler.api.plans import read_side

    old = read_side(str(repo / "examples/worked/plan.yaml"))
    new = read_side(str(repo / "tests/golden/diff/voided.yaml"))
    full, bare = compare(old, new), compare(old, new, consequences=False)
    assert full["timing"] is not None and [a["id"] for a in full["approvals"]["voided"]] == ["sign-off"]
    assert bare["timing"] is None and bare["approvals"] == {"voided": []}
    assert {k: v for k, v in bare.items() if k not in ("timing", "approvals")} == \
        {k: v for k, v in full.items() if k not in ("timing", "approvals")}
