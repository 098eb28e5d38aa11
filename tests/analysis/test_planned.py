"""compiler/analysis/planned.py: a proof may run what the plan creates. A script (EP209) or a test
file, folder or test (EP210) that is missing is no error when the item itself, or an item it
depends on transitively, lists it (or a folder or glob that covers it) in ``paths:``; an unrelated
item's paths do not count. Without such an entry the message says where a file the plan creates
belongs, and offers a did-you-mean only for a plausible typo.

The rules' side (EP209, EP210 at large) is tests/analysis/test_proofs.py and tests/checks/test_evidence.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import git_repo, rows, write_plan
from work import GROWTH_LIMIT, count, growth

from compiler.analysis.planned import planned
from compiler.compile.pipeline import compile_plan
from compiler.model.values import Item

PLAN_IT = "; if the plan creates it, list it in the paths: of this item or of an item it depends on"


def _repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path, {
        "src/app.py": "def f():\n    pass\n",
        "src/features.py": "x = 1\n",
        "src/trans.py": "y = 2\n",
        "tests/test_trans.py": "def test_t():\n    pass\n",
        "tests/test_app.py": "def test_a():\n    pass\n",
        "scripts/tool.py": "print()\n",
    })


def test_a_proof_may_run_a_test_file_and_a_script_its_own_item_creates(tmp_path: Path) -> None:
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src/app.py], paths: [tests/test_new.py], proof: pytest tests/test_new.py}
          - {id: b, change: c, evidence: [src/app.py], paths: [scripts/new_tool.py], proof: python3 scripts/new_tool.py}
          - id: c
            change: c
            evidence: [src/app.py]
            depends_on: [a, b]
            paths: ["tests/**"]
            proof: pytest tests/test_other.py::test_x
        """)
    assert compile_plan(str(plan)).diagnostics == ()


def test_a_proof_may_run_what_a_transitive_dependency_creates(tmp_path: Path) -> None:
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src/app.py], paths: [tests/planner/nodes/test_n.py, scripts/], proof: pytest}
          - {id: b, change: c, evidence: [src/app.py], depends_on: [a], proof: pytest}
          - {id: c, change: c, evidence: [src/app.py], depends_on: [b], proof: pytest tests/planner -q}
          - {id: d, change: c, evidence: [src/app.py], depends_on: [b], proof: pytest tests/planner/nodes/test_n.py::t}
          - {id: e, change: c, evidence: [src/app.py], depends_on: [c], proof: ./scripts/gen.sh}
        """)
    assert compile_plan(str(plan)).diagnostics == ()


def test_a_unittest_module_the_plan_creates_is_planned(tmp_path: Path) -> None:
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src/app.py], paths: [tests/test_new.py], proof: pytest}
          - {id: b, change: c, evidence: [src], depends_on: [a], proof: python -m unittest tests.test_new.Case.test_y}
        """)
    assert compile_plan(str(plan)).diagnostics == ()


def test_a_new_test_in_a_file_the_item_writes_is_accepted(tmp_path: Path) -> None:
    """tests/test_app.py exists and does not define test_new yet: the item writes the file."""
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src], paths: [tests/test_app.py], proof: pytest tests/test_app.py::test_new}
          - {id: b, change: c, evidence: [src/app.py], proof: pytest tests/test_app.py::test_new}
        """)
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [("EP210", "b", 3, 55)]


def test_an_unrelated_items_paths_do_not_plan_a_file(tmp_path: Path) -> None:
    """c creates tests/test_new.py, but a does not depend on it: it may not exist when a's proof runs."""
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src/app.py], proof: pytest tests/test_new.py}
          - {id: b, change: c, evidence: [src/app.py], proof: python3 scripts/new_tool.py}
          - {id: c, change: c, evidence: [src/app.py], paths: [tests/test_new.py, scripts/new_tool.py], proof: pytest}
          - {id: d, change: c, evidence: [src/app.py], depends_on: [a, b], proof: pytest}
        """)
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [("EP210", "a", 2, 55), ("EP209", "b", 3, 55)]
    assert [d.message for d in result.diagnostics] == [
        "a proof runs tests/test_new.py, but tests/test_new.py does not exist" + PLAN_IT,
        "b proof runs scripts/new_tool.py, but scripts/new_tool.py does not exist" + PLAN_IT,
    ]


def test_a_did_you_mean_is_offered_only_for_a_plausible_typo(tmp_path: Path) -> None:
    """test_features.py is not a typo of test_trans.py (the one file beside it); test_tarns.py is."""
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src/app.py], proof: pytest tests/test_features.py}
          - {id: b, change: c, evidence: [src/app.py], proof: pytest tests/test_tarns.py}
          - {id: c, change: c, evidence: [src/app.py], proof: python3 scripts/tol.py}
        """)
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [("EP210", "a", 2, 55), ("EP210", "b", 3, 55), ("EP209", "c", 4, 55)]
    assert [d.message for d in result.diagnostics] == [
        "a proof runs tests/test_features.py, but tests/test_features.py does not exist" + PLAN_IT,
        "b proof runs tests/test_tarns.py, but tests/test_tarns.py does not exist"
        " (did you mean tests/test_trans.py?)" + PLAN_IT,
        "c proof runs scripts/tol.py, but scripts/tol.py does not exist (did you mean scripts/tool.py?)" + PLAN_IT,
    ]


def test_paths_that_do_not_cover_the_file_do_not_plan_it(tmp_path: Path) -> None:
    plan = write_plan(_repo(tmp_path), """
        items:
          - {id: a, change: c, evidence: [src/app.py], paths: ["tests/*.txt", tests/unit/, src/], proof: pytest}
          - {id: b, change: c, evidence: [src/app.py], depends_on: [a], proof: pytest tests/test_new.py}
        """)
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [("EP210", "b", 3, 72)]


def _item(k: int, deps: tuple[str, ...], paths: tuple[str, ...] = ()) -> Item:
    return Item(id=f"i{k}", change="c", evidence=(), depends_on=deps, proof="p", position=k,
                options=(("paths", paths),) if paths else ())


def test_planned_answers_only_the_item_and_its_ancestors() -> None:
    items = (_item(0, (), ("tests/a.py",)), _item(1, ("i0",)), _item(2, (), ("tests/b.py",)), _item(3, ("i1",)),
             _item(4, ("i3", "i2")))
    asks = {"i3": ["tests/a.py", "tests/b.py"], "i4": ["tests/a.py", "tests/b.py"], "i1": ["tests"]}
    assert planned(items, asks) == {("i3", "tests/a.py"), ("i4", "tests/a.py"), ("i4", "tests/b.py"),
                                    ("i1", "tests")}


def test_a_plan_without_paths_pays_one_look() -> None:
    items = tuple(_item(k, (f"i{k - 1}",) if k else ()) for k in range(1_000))
    work = count(lambda: planned(items, {"i999": ["tests/a.py"]}))
    assert work.calls < 2_000, work.top()


@pytest.mark.performance
def test_planned_grows_linearly_on_a_chain_that_runs_what_each_item_before_it_creates() -> None:
    """Each item writes tests/test_k.py and its proof runs the file of the item before it: the
    bits are retired as they are read, so the sets stay one bit wide (quadratic would be 100x)."""
    def chain(n: int) -> tuple[tuple[Item, ...], dict[str, list[str]]]:
        items = tuple(_item(k, (f"i{k - 1}",) if k else (), (f"tests/test_{k}.py",)) for k in range(n))
        return items, {f"i{k}": [f"tests/test_{k - 1}.py"] for k in range(1, n)}

    made = {n: chain(n) for n in (1_000, 10_000)}
    grew = growth(lambda n: planned(*made[n]), 1_000)
    assert grew.ratio < GROWTH_LIMIT, str(grew)
    items, asks = made[10_000]
    assert len(planned(items, asks)) == 9_999


def test_a_dropped_item_writes_nothing_for_the_items_after_it(tmp_path: Path) -> None:
    plan = write_plan(_repo(tmp_path), """
        items:
          - id: a
            change: c
            evidence: [src/app.py]
            paths: [tests/test_new.py]
            status: dropped
            reason: not needed
            proof: pytest tests/test_new.py
          - {id: b, change: c, evidence: [src/app.py], depends_on: [a], proof: pytest tests/test_new.py}
        """)
    result = compile_plan(str(plan))
    assert [(d.code, d.item, d.location.line) for d in result.diagnostics if d.code.startswith("EP2")] == [
        ("EP210", "b", 9)]


@pytest.mark.performance
def test_the_sets_are_dropped_once_read_so_memory_grows_linearly() -> None:
    """One item writes every file and each later item of a chain runs one: the first set holds all
    the bits, and a set kept for every item would take n^2 / 16 bytes (25 MB at 20,000, 600 MB at
    100,000). Dropped once read, 10x the items take about 10x the memory (9.6x measured)."""
    import tracemalloc

    def peak(n: int) -> int:
        items = (_item(0, (), tuple(f"tests/test_{k}.py" for k in range(n))),
                 *(_item(k, (f"i{k - 1}",)) for k in range(1, n)))
        asks = {f"i{k}": [f"tests/test_{k}.py"] for k in range(1, n)}
        tracemalloc.start()
        try:
            assert len(planned(items, asks)) == n - 1
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(20_000) < 13 * peak(2_000)
