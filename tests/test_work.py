"""The measure of work the speed tests use (tests/work.py): calls, counted, the same on every run.

A guard is only as good as its measure: these hold that the count tells linear work from
quadratic work, that it sees a quadratic step however it is written in Python, that it does not
move from run to run or with the hash seed, and that a whole process is counted too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from work import FACTOR, GROWTH_LIMIT, calls_in, command, count, growth

REPO = Path(__file__).resolve().parent.parent


def _visit(k: int) -> int:
    return k + 1


def linear(n: int) -> int:
    return sum(_visit(k) for k in range(n))


def quadratic(n: int) -> int:
    """A pairwise step, as a comparison of every item with every other item would be."""
    return sum(_visit(j) for k in range(n) for j in range(k))


def linear_with_a_small_quadratic_part(n: int) -> int:
    """Linear work, and a pairwise step that costs a tenth of it at n = 100."""
    return linear(n * 100) + quadratic(n * 45 // 100)


def test_linear_work_grows_tenfold_and_stays_under_the_limit() -> None:
    grew = growth(linear, 1_000)
    assert grew.at_small.calls == 1_000 * 2 + 4  # each _visit and each step of the generator; linear, sum, range
    assert 9.9 < grew.ratio < 10.1 < GROWTH_LIMIT, str(grew)


@pytest.mark.slow
def test_quadratic_work_grows_a_hundredfold_and_trips_the_limit() -> None:
    grew = growth(quadratic, 100)
    assert grew.ratio > 90 > GROWTH_LIMIT, str(grew)
    assert "(_visit) 4,950 -> 499,500" in grew.worst()  # where it grew, named


def test_a_quadratic_part_of_a_tenth_of_the_work_trips_the_limit() -> None:
    """Counts are exact, so the limit can sit at 15x: a quadratic step that costs a tenth of the
    work at the small size shows (any above about 6% does), where a timing's noise would hide it."""
    grew = growth(linear_with_a_small_quadratic_part, 100)
    assert 0.09 < grew.at_small.of("quadratic.<locals>.<genexpr>") * 2 / grew.at_small.calls < 0.1
    assert grew.ratio > GROWTH_LIMIT, str(grew)


def test_the_growth_measure_catches_a_real_quadratic_regression(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The compile growth test of test_performance.py, with the waves' ordering made pairwise
    (each item looks through every item placed before it, as a naive topological sort would):
    the ratio trips the limit. Without the patch it is 9.9x."""
    from compiler.analysis import graph
    from compiler.compile.pipeline import compile_plan

    def plan(n: int) -> str:
        path = tmp_path / f"{n}.json"
        items = [{"id": f"i{k}", "change": "c", "evidence": ["a.py"], "proof": "p",
                  "depends_on": [f"i{k - 1}"] if k else []} for k in range(n)]
        path.write_text(json.dumps({"items": items}), encoding="utf-8")
        return str(path)

    paths = {n: plan(n) for n in (100, 100 * FACTOR)}
    honest = growth(lambda n: compile_plan(paths[n], verify_evidence=False), 100)
    assert honest.ratio < GROWTH_LIMIT, str(honest)
    real_waves = graph.waves

    def pairwise_waves(g: object) -> list[list[str]]:
        result = real_waves(g)  # type: ignore[arg-type]
        placed: list[str] = []
        for wave in result:
            for ident in wave:
                assert not any(other == ident for other in placed)  # every item against every item before it
                placed.append(ident)
        return result

    monkeypatch.setattr(graph, "waves", pairwise_waves)
    slow = growth(lambda n: compile_plan(paths[n], verify_evidence=False), 100)
    assert slow.ratio > GROWTH_LIMIT, str(slow)
    assert "pairwise_waves.<locals>.<genexpr>" in slow.worst()


def test_the_count_is_the_same_on_every_run() -> None:
    from compiler.load.document import parse_text

    text = json.dumps({"items": [{"id": f"i{k}", "change": "c", "evidence": ["a.py"], "proof": "p"}
                                 for k in range(200)]})
    parse_text(text, "plan.json", "json")
    counts = {count(lambda: parse_text(text, "plan.json", "json")).calls for _ in range(3)}
    assert len(counts) == 1, counts


_SEEDED = """
import json, sys
sys.path.insert(0, sys.argv[1])
from work import count
from compiler.compile.pipeline import compile_plan
compile_plan(sys.argv[2], verify_evidence=False)
print(count(lambda: compile_plan(sys.argv[2], verify_evidence=False)).calls)
"""


@pytest.mark.performance
def test_the_count_is_the_same_under_every_hash_seed(tmp_path: Path) -> None:
    """Sets and dicts of strings iterate in an order that PYTHONHASHSEED sets: the compile of a
    layered plan (sets of dependencies, sets of ids) counts the same calls under every seed, in
    process and as a whole process."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from run import write_plan  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    plan = write_plan(tmp_path, "layered", 300, "json")
    inside, whole = set(), set()
    for seed in ("0", "1", "4242", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run([sys.executable, "-c", _SEEDED, str(REPO / "tests"), str(plan)], capture_output=True,
                              text=True, check=True, env=env, cwd=tmp_path, timeout=120)
        inside.add(int(done.stdout))
        counted = tmp_path / "calls"
        subprocess.run(command(counted, "-m", "compiler", "check", "--no-verify-evidence", str(plan)), env=env,
                       capture_output=True, check=True, cwd=REPO, timeout=120)
        whole.add(calls_in(counted))
    assert len(inside) == 1 and len(whole) == 1, (inside, whole)


def test_a_whole_process_is_counted_and_keeps_its_exit_code(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    done = subprocess.run(command(counted, "-c", "import sys; print(len(sys.argv[1:])); sys.exit(3)", "a", "b"),
                          capture_output=True, text=True, check=False, timeout=60)
    assert (done.returncode, done.stdout) == (3, "2\n")
    assert calls_in(counted) == 6  # compile, exec, the program itself, len, print, sys.exit
