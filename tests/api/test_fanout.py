"""`verify PLAN ID... --receipts-from DIR` (compiler/api/fanout.py): the IDs run alone, their
dependencies settled only by receipts of the same plan that say they passed. Real proofs, which
count their runs in files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import run

from compiler.api.fanout import settled_from
from compiler.api.receipts import RECEIPTS
from compiler.api.verify import Step
from compiler.core.diagnostics import PlanInputError

pytestmark = pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="verify runs proofs through /bin/sh")


def _plan(folder: Path) -> Path:
    """base <- middle <- top, and other (wave 1, no one needs it); each proof counts its runs."""
    (folder / ".git").mkdir()
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    items = []
    for ident, deps in (("base", ""), ("other", ""), ("middle", "base"), ("top", "middle")):
        depends = f"\n    depends_on: [{deps}]" if deps else ""
        items.append(f"  - id: {ident}\n    change: c\n    evidence: [a.py]{depends}\n"
                     f"    proof: echo x >> {ident}.count\n")
    plan = folder / "plan.yaml"
    plan.write_text("items:\n" + "".join(items), encoding="utf-8")
    return plan


def _counts(folder: Path) -> dict[str, int]:
    return {p.stem: len(p.read_text(encoding="utf-8").splitlines()) for p in sorted(folder.glob("*.count"))}


def _items(path: Path) -> dict[str, dict]:
    return {item["id"]: item for item in json.loads(path.read_text(encoding="utf-8"))["items"]}


def test_each_wave_runs_only_its_own_items_as_the_jobs_of_a_workflow_do(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    earlier = tmp_path / "earlier"
    for wave, ids in enumerate((["base", "other"], ["middle"], ["top"]), start=1):
        out = earlier / f"wave-{wave}-chunk-1"
        args = ["--receipts-from", str(earlier)] if wave > 1 else []
        result = run("verify", str(plan), *ids, "-o", str(out), *args)
        assert result.exit_code == 0, result.output
        assert sorted(_items(out / RECEIPTS)) == sorted(ids)  # the chunk's items alone, no dependency again
    assert _counts(tmp_path) == {"base": 1, "middle": 1, "other": 1, "top": 1}
    assert "plan.yaml: dependencies from 2 receipts files of this plan in" in result.stderr


def test_a_dependency_counts_as_passed_only_by_a_receipt_of_this_plan_that_says_so(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    earlier = tmp_path / "earlier"
    assert run("verify", str(plan), "base", "-o", str(earlier / "one")).exit_code == 0
    # A receipt of another plan (another digest) that says middle passed counts for nothing ...
    forged = json.loads((earlier / "one" / RECEIPTS).read_text(encoding="utf-8"))
    forged["plan_digest"] = "0" * 32
    forged["items"] = [{**forged["items"][0], "id": "middle"}]
    (earlier / "two").mkdir()
    (earlier / "two" / RECEIPTS).write_text(json.dumps(forged), encoding="utf-8")
    (earlier / "three").mkdir()
    (earlier / "three" / RECEIPTS).write_text("not json", encoding="utf-8")
    result = run("verify", str(plan), "top", "-o", str(tmp_path / "out"), "--receipts-from", str(earlier))
    assert result.exit_code == 1
    assert _items(tmp_path / "out" / RECEIPTS)["top"]["reason"] == "depends on middle, which did not run"
    assert "1 receipts file of this plan in" in result.stderr
    assert "(2 other files ignored: another plan's, or not receipts)" in result.stderr
    assert "top" not in _counts(tmp_path) and "middle" not in _counts(tmp_path)  # not run: neither was it
    # ... and one of this plan that says it failed makes it a failure, named.
    assert run("verify", str(plan), "middle", "-o", str(earlier / "four"), "--receipts-from",
               str(earlier)).exit_code == 0
    failed = json.loads((earlier / "four" / RECEIPTS).read_text(encoding="utf-8"))
    failed["items"][0]["result"] = "failed"
    (earlier / "five").mkdir()
    (earlier / "five" / RECEIPTS).write_text(json.dumps(failed), encoding="utf-8")
    result = run("verify", str(plan), "top", "-o", str(tmp_path / "out"), "--receipts-from", str(earlier))
    assert result.exit_code == 1
    assert _items(tmp_path / "out" / RECEIPTS)["top"]["reason"] == "depends on middle, which failed"


def test_without_receipts_from_the_ids_still_run_with_their_dependencies(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    assert run("verify", str(plan), "top").exit_code == 0
    assert _counts(tmp_path) == {"base": 1, "middle": 1, "top": 1}
    assert sorted(_items(tmp_path / RECEIPTS)) == ["base", "middle", "top"]


def test_the_folder_must_exist_and_the_dry_run_lists_the_ids_alone(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    result = run("verify", str(plan), "top", "--receipts-from", str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "does not exist" in result.stderr
    (tmp_path / "empty").mkdir()
    result = run("verify", str(plan), "top", "--dry-run", "--receipts-from", str(tmp_path / "empty"))
    assert result.exit_code == 0 and result.stdout == "wave 3  top  runs: echo x >> top.count\n"


def _step(ident: str, *deps: str) -> Step:
    return Step(id=ident, wave=len(deps) + 1, proof="true", depends_on=deps, approval=None, line=None)


def test_settled_reads_every_receipts_file_at_any_depth_and_no_symlink(tmp_path: Path) -> None:
    def receipts(folder: Path, **results: str) -> None:
        folder.mkdir(parents=True)
        items = [{"id": i, "result": r} for i, r in results.items()]
        (folder / RECEIPTS).write_text(json.dumps({"format": "evidence-plan-verify/1", "plan_digest": "d",
                                                   "items": items}), encoding="utf-8")

    receipts(tmp_path / "a" / "deep", x="passed", y="cached", z="flaky")
    receipts(tmp_path / "b", y="failed", w="approved")
    receipts(tmp_path.parent / f"{tmp_path.name}-outside", v="passed")
    (tmp_path / "c").symlink_to(tmp_path.parent / f"{tmp_path.name}-outside")
    found = settled_from(str(tmp_path), "d", [_step("t", "v", "w", "x", "y", "z")])
    # y passed in one file and failed in another: not passed. v is only behind a symlink.
    assert found.results == {"w": "passed", "x": "passed", "y": "failed", "z": "passed"}
    assert (found.read, found.other) == (2, 0)
    assert settled_from(str(tmp_path), "another digest", [_step("t", "x")]) == ({}, 0, 2)


def test_a_folder_of_too_many_receipts_files_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.api.fanout

    monkeypatch.setattr(compiler.api.fanout, "MAX_FILES", 2)
    for n in range(3):
        (tmp_path / str(n)).mkdir()
        (tmp_path / str(n) / RECEIPTS).write_text("{}", encoding="utf-8")
    with pytest.raises(PlanInputError, match="more than 2 receipts files under this folder"):
        settled_from(str(tmp_path), "d", [_step("t", "x")])
