"""The work budget: the calls each pipeline stage makes on fixed plans of 2,000 items, held to
tests/work_budget.json within a margin (benchmarks/stages.py: the stages, the plans, the margin).

Calls, not seconds: the count is exact and the same on every run and machine with the same Python
and packages, so a stage that starts doing more work fails here the commit it happens, however
loaded the machine. A stage that does less fails too, until the budget is regenerated
(``python tests/regenerate.py --work-budget``): the gain is then kept. Seconds stay in the
benchmark (benchmarks/run.py), as ratios measured side by side.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STAGES = REPO / "benchmarks" / "stages.py"
BUDGET = REPO / "tests" / "work_budget.json"
REGENERATE = "python tests/regenerate.py --work-budget"

pytestmark = [pytest.mark.slow, pytest.mark.performance]

sys.path.insert(0, str(REPO / "benchmarks"))
from stages import MARGIN_CALLS, MARGIN_SHARE, environment, over_budget  # noqa: E402


def counts(*argv: str, code: str | None = None) -> dict[str, object]:
    """``benchmarks/stages.py counts ARGV`` in a fresh process (or ``code`` run before it, in the
    same process): what the budget was counted with."""
    prefix = [] if code is None else ["-c", f"{code}\nimport runpy, sys\nsys.argv = sys.argv[1:]\n"
                                           f"runpy.run_path(sys.argv[0], run_name='__main__')", ]
    done = subprocess.run([sys.executable, *prefix, str(STAGES), "counts", *argv], cwd=REPO, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def budget() -> dict[str, object]:
    recorded = json.loads(BUDGET.read_text(encoding="utf-8"))
    if recorded["environment"] != environment():
        pytest.skip(f"the budget was counted with {recorded['environment']}, this is {environment()}: "
                    f"calls inside the packages differ between versions (run {REGENERATE} here to compare)")
    return recorded  # type: ignore[no-any-return]


def test_every_stage_stays_within_its_budget() -> None:
    recorded = budget()
    measured = counts()
    problems = over_budget(recorded["counts"], measured["counts"])  # type: ignore[arg-type]
    assert not problems, (f"the work of these stages moved by more than {MARGIN_SHARE:.0%} (or {MARGIN_CALLS} "
                          f"calls) from tests/work_budget.json; if that is intended, run {REGENERATE} and give "
                          "the new figures in the commit:\n  " + "\n  ".join(problems))


def test_the_budget_names_a_stage_that_gained_a_quadratic_loop() -> None:
    """The guard is only worth its failures: a pairwise pass over the items, planted in one rule
    (as a check that compares every item with every other would be), fails the budget and names
    that rule, and no other stage."""
    recorded = budget()
    plant = """
from compiler.checks import items as family
original = family.no_proof
def no_proof(ctx):
    ids = [item.id for item in ctx.plan.items]
    for a in ids:
        sum(b == a for b in ids)
    return original(ctx)
no_proof.__name__, no_proof.__module__ = "no_proof", family.__name__
family.RULES = tuple(rule._replace(check=no_proof) if rule.check is original else rule for rule in family.RULES)
"""
    measured = counts("chain: check", code=plant)
    problems = over_budget({"chain: check": recorded["counts"]["chain: check"]},  # type: ignore[index]
                           measured["counts"])  # type: ignore[arg-type]
    assert len(problems) == 1 and problems[0].startswith("chain: check / rule items.no_proof: "), problems
    assert "more than the margin allows" in problems[0]


def test_the_margin_lets_small_moves_pass_and_counts_both_ways() -> None:
    was = {"case": {"a": 10_000, "b": 20}}
    assert over_budget(was, {"case": {"a": 10_300, "b": 110}}) == []
    assert over_budget(was, {"case": {"a": 10_301, "b": 20}}) == [
        "case / a: 10,301 calls, budget 10,000 (1.03x: more than the margin allows)"]
    assert over_budget(was, {"case": {"a": 9_600, "b": 20}}) == [
        "case / a: 9,600 calls, budget 10,000 (0.96x: fewer than the margin allows)"]
    assert over_budget(was, {"case": {"a": 10_000, "c": 5}}) == [
        "case / b: not reached now", "case / c: 5 calls and no budget"]
    assert over_budget(was, {}) == ["case: not measured"]


def test_the_benchmarks_stage_table_runs_and_states_each_floor() -> None:
    """``benchmarks/run.py stages`` (the times the budget's stages are measured in), small."""
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py"), "stages", "--runs", "1", "--n", "300",
                           "--shapes", "chain", "--feature-n", "150"], cwd=REPO, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("over their floors: load ") == 2  # the chain, and the plan that uses every feature
    for stage in ("page: evidence-plan.md", "page: evidence-plan.html", "validate", "order: waves",
                  "rule proofs.proof_tests", "forecast: Monte Carlo", "everything else"):
        assert f"  {stage}\n" in done.stdout, stage
