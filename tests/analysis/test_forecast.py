"""compiler/analysis/forecast.py: the critical path by median estimate (tests/checks/test_estimates.py
holds it through compile) and the seeded Monte Carlo forecast, held here to closed forms.

Tolerances come from the runs: the p-quantile of n draws has a standard error of
sqrt(p (1 - p) / n) / phi(z_p) in standard-normal units, so a lognormal's estimated quantile is off
by a factor exp(sigma * that) per standard error; the tests allow 4 standard errors (a false
alarm about 1 in 16,000 for a fixed seed: and the seed is fixed, so a pass is a pass forever),
with 20,000 runs.
"""

from __future__ import annotations

import math
from datetime import date
from statistics import NormalDist
from typing import Any

import pytest

from compiler.analysis import forecast
from compiler.analysis.forecast import monte_carlo
from compiler.model.values import Item

RUNS = 20_000
Z = NormalDist()


def _item(ident: str, low: float, high: float, unit: str = "hours", deps: tuple[str, ...] = ()) -> Item:
    estimate = {"low": low, "high": high, "unit": unit, "evidence": "PR 12"}
    return Item(ident, "c", (), deps, "p", 0, options=(("estimate", estimate),))


def _tolerance(p: float, sigma: float, runs: int = RUNS) -> float:
    """4 standard errors of the p-quantile of ``runs`` draws, as a factor on a lognormal's quantile."""
    standard_error = math.sqrt(p * (1 - p) / runs) / Z.pdf(Z.inv_cdf(p))
    return math.exp(4 * sigma * standard_error) - 1


def _lognormal(low: float, high: float, p: float) -> float:
    mu, sigma = (math.log(low) + math.log(high)) / 2, math.log(high / low) / 3.29
    return math.exp(mu + sigma * Z.inv_cdf(p))


PERCENTILES = {"p50_hours": 0.50, "p80_hours": 0.80, "p95_hours": 0.95}


def test_a_single_item_s_percentiles_are_its_lognormal_s_quantiles() -> None:
    result = monte_carlo([_item("a", 2, 8)], [["a"]], runs=RUNS)
    assert result is not None and result["runs"] == RUNS and result["counted_as_zero"] == 0
    sigma = math.log(4) / 3.29
    for key, p in PERCENTILES.items():
        expected = _lognormal(2, 8, p)
        assert result[key] == pytest.approx(expected, rel=_tolerance(p, sigma)), key
    assert result["criticality"] == [{"item": "a", "share": 1.0}]


def test_a_chain_sums_its_items_in_hours() -> None:
    """One uncertain item (1-4 days) and two certain ones (low = high: 30 minutes, 2 hours) in a
    chain: the plan's duration is the uncertain item's plus 2.5 hours, a closed form."""
    items = [_item("a", 0.5, 0.5, "hours"), _item("b", 1, 4, "days", ("a",)), _item("c", 30, 30, "minutes", ("b",)),
             _item("d", 2, 2, "hours", ("c",))]
    result = monte_carlo(items, [["a"], ["b"], ["c"], ["d"]], runs=RUNS)
    assert result is not None
    sigma = math.log(4) / 3.29
    for key, p in PERCENTILES.items():
        expected = _lognormal(8, 32, p) + 3.0
        assert result[key] == pytest.approx(expected, rel=_tolerance(p, sigma)), key
    assert [c["share"] for c in result["criticality"]] == [1.0] * 4


def test_parallel_branches_join_as_the_maximum() -> None:
    """Two independent items of the same interval before a join: the plan's duration is their
    maximum, whose p-quantile is one item's sqrt(p)-quantile; each is critical about half the
    time (binomial: 4 standard errors of a share over 20,000 runs is 0.014)."""
    items = [_item("a", 2, 8), _item("b", 2, 8), _item("join", 1, 1, deps=("a", "b"))]
    result = monte_carlo(items, [["a", "b"], ["join"]], runs=RUNS)
    assert result is not None
    sigma = math.log(4) / 3.29
    for key, p in PERCENTILES.items():
        assert result[key] == pytest.approx(_lognormal(2, 8, math.sqrt(p)) + 1, rel=_tolerance(math.sqrt(p), sigma))
    shares = {c["item"]: c["share"] for c in result["criticality"]}
    assert shares["join"] == 1.0 and shares["a"] + shares["b"] == pytest.approx(1.0, abs=1e-9)
    assert shares["a"] == pytest.approx(0.5, abs=4 * math.sqrt(0.25 / RUNS))


def test_items_without_a_usable_estimate_count_as_zero_and_are_counted() -> None:
    bare = Item("bare", "c", (), ("a",), "p", 1)
    reversed_estimate = _item("odd", 3, 1, deps=("bare",))
    result = monte_carlo([_item("a", 2, 8), bare, reversed_estimate], [["a"], ["bare"], ["odd"]], runs=RUNS)
    alone = monte_carlo([_item("a", 2, 8)], [["a"]], runs=RUNS)
    assert result is not None and alone is not None and result["counted_as_zero"] == 2
    assert [result[k] for k in PERCENTILES] == [alone[k] for k in PERCENTILES]
    assert monte_carlo([bare], [["bare"]]) is None


def test_the_same_plan_gives_the_same_forecast_and_another_seed_another() -> None:
    items = [_item(f"i{n}", 1, 10, deps=(f"i{n - 1}",) if n else ()) for n in range(30)]
    waves = [[f"i{n}"] for n in range(30)]
    first: Any = monte_carlo(items, waves)
    assert first == monte_carlo(items, waves)
    assert first["runs"] == forecast.RUNS and first["seed"] == forecast.SEED and not first["runs_scaled"]
    assert first != monte_carlo(items, waves, seed=forecast.SEED + 1)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
def test_runs_are_scaled_down_for_large_plans_and_say_so() -> None:
    assert forecast.runs_for(1_000) == forecast.RUNS
    assert forecast.runs_for(100_000) == forecast.MIN_RUNS
    assert forecast.runs_for(4_000) == forecast.ITEM_RUNS // 4_000
    items = [_item(f"i{n}", 1, 2) for n in range(4_000)]
    result = monte_carlo(items, [[item.id for item in items]])
    assert result is not None and result["runs"] == 250 and result["runs_scaled"] is True


def test_the_strata_are_the_standard_normal() -> None:
    """A draw is a table lookup: the table's logs are the standard normal's quantiles, symmetric."""
    table = forecast._strata()
    assert len(table) == 1 << 16
    logs = [math.log(v) for v in table]
    assert sum(logs) == pytest.approx(0.0, abs=1e-9)
    assert logs[len(logs) // 2] == pytest.approx(Z.inv_cdf(0.5 + 0.5 / len(logs)))
    assert max(logs) == pytest.approx(Z.inv_cdf(1 - 0.5 / len(logs)))


CHAIN = """\
items:
  - id: design
    change: c
    evidence: [a.py]
    proof: pytest
    estimate: {low: 1, high: 4, unit: days, evidence: PR 12}
  - id: build
    change: c
    evidence: [a.py]
    depends_on: [design]
    proof: pytest
    estimate: {low: 2, high: 8, unit: hours, evidence: PR 13}
"""


def test_two_compiles_write_the_same_bytes(tmp_path: Any) -> None:
    from compiler.cli import main

    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(CHAIN, encoding="utf-8")
    outputs = []
    for n in (1, 2):
        assert main(["compile", str(tmp_path / "plan.yaml"), "-o", str(tmp_path / f"out{n}")]) == 0
        folder = tmp_path / f"out{n}"
        outputs.append([(folder / name).read_bytes() for name in ("evidence-plan.json", "evidence-plan.md")])
    assert outputs[0] == outputs[1]
    assert b'"forecast": {"unit": "hours", "runs": 500, "runs_scaled": false, "seed": 13' in outputs[0][0]
    assert b"Forecast over 500 seeded runs (seed 13): P50 " in outputs[0][1]


@pytest.mark.slow
def test_compile_of_a_plan_without_estimates_imports_no_forecast(tmp_path: Any) -> None:
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(CHAIN.replace("    estimate: {low: 1, high: 4, unit: days, evidence: PR 12}\n",
                                                      "").replace("    estimate: {low: 2, high: 8, unit: hours,"
                                                                  " evidence: PR 13}\n", ""), encoding="utf-8")
    script = ("import sys\nfrom compiler.cli import main\ncode = main(['compile', sys.argv[1], '-o', sys.argv[2]])\n"
              "print(sorted(m for m in sys.modules if m in ('compiler.analysis.forecast',"
              " 'compiler.analysis.estimates')))\n"
              "sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "plan.yaml"), str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- the chance of finishing by a date (compile --start DATE --by DATE --hours-per-day N) ---------


def test_working_days_are_monday_to_friday_both_ends_included() -> None:
    from datetime import date

    friday, monday = date(2026, 12, 4), date(2026, 12, 7)
    assert forecast.working_days(friday, friday) == 1
    assert forecast.working_days(friday, monday) == 2  # the weekend does not count
    assert forecast.working_days(date(2026, 12, 5), date(2026, 12, 6)) == 0  # a weekend alone
    assert forecast.working_days(monday, date(2026, 12, 27)) == 15  # three whole weeks
    assert forecast.working_days(monday, friday) == 0  # by before start
    assert forecast.working_days(date(2026, 1, 1), date(2026, 12, 31)) == 261


def test_the_probability_of_finishing_by_a_date_is_the_lognormal_s_cdf() -> None:
    """2-8 hours, and 6 hours of work on one working day: P(X <= 6) = Phi((ln 6 - mu) / sigma),
    within 4 binomial standard errors of 20,000 runs."""
    from datetime import date

    deadline = forecast.Deadline(date(2026, 12, 4), date(2026, 12, 4), 6)
    result = monte_carlo([_item("a", 2, 8)], [["a"]], runs=RUNS, deadline=deadline)
    assert result is not None
    by = result["by"]
    mu, sigma = (math.log(2) + math.log(8)) / 2, math.log(4) / 3.29
    expected = Z.cdf((math.log(6) - mu) / sigma)
    assert {k: v for k, v in by.items() if k != "probability"} == {
        "start": "2026-12-04", "by": "2026-12-04", "hours_per_day": 6, "working_days": 1, "hours": 6}
    assert by["probability"] == pytest.approx(expected, abs=4 * math.sqrt(expected * (1 - expected) / RUNS))
    assert "by" not in monte_carlo([_item("a", 2, 8)], [["a"]], runs=RUNS)  # type: ignore[operator]


def test_compile_by_a_date_needs_the_start_and_adds_the_probability(tmp_path: Any,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from compiler.cli import main

    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(CHAIN, encoding="utf-8")
    plan, out = str(tmp_path / "plan.yaml"), str(tmp_path / "out")
    assert main(["compile", plan, "-o", out, "--by", "2026-12-08"]) == 2
    assert "--by and --start go together" in capsys.readouterr().err
    assert main(["compile", plan, "-o", out, "--start", "2026-12-08", "--by", "2026-12-07"]) == 2
    assert "--by 2026-12-07 is before --start 2026-12-08" in capsys.readouterr().err
    assert main(["compile", plan, "-o", out, "--start", "2026-12-04", "--by", "2026-12-08", "--hours-per-day",
                 "6"]) == 0
    by = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))["forecast"]["by"]
    assert (by["working_days"], by["hours"], 0 < by["probability"] < 1) == (3, 18, True)
    page = (tmp_path / "out" / "evidence-plan.md").read_text(encoding="utf-8")
    assert f"Finished by 2026-12-08 in {round(100 * by['probability'], 1):g}% of the runs: 3 working days" in page
    assert main(["compile", plan, "-o", out]) == 0
    assert "by" not in json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))["forecast"]


# --- the work left: done items count 0, a doing item its `left` share ------------------------------

def _tracked(ident: str, status: str, deps: tuple[str, ...] = (), left: float | None = None) -> Item:
    estimate: dict[str, Any] = {"low": 2, "high": 6, "unit": "hours", "evidence": "PR 12"}
    if left is not None:
        estimate["left"] = left
    return Item(ident, "c", (), deps, "p", 0, options=(("estimate", estimate), ("status", status)))


def _chain(statuses: list[str], left: float | None = None) -> tuple[list[Item], list[list[str]]]:
    items = [_tracked(f"i{n}", state, (f"i{n - 1}",) if n else (), left if state == "doing" else None)
             for n, state in enumerate(statuses)]
    return items, [[item.id] for item in items]


def test_the_forecast_answers_when_the_rest_will_be_done_not_the_whole() -> None:
    # 18 of 19 items done, 2-6 hours left: the median is one item's (sqrt(2 x 6) = 3.46 h), not 19 x it.
    items, waves = _chain(["done"] * 18 + ["todo"])
    planned = forecast.schedule(items, waves)
    assert planned is not None
    assert (planned["median_hours"], planned["best_hours"], planned["worst_hours"]) == (3.4641, 2.0, 6.0)
    assert (planned["estimated"], planned["counted_as_zero"], planned["done_as_zero"]) == (1, 0, 18)
    today = date(2026, 12, 2)
    result = monte_carlo(items, waves, runs=RUNS, deadline=forecast.Deadline(start=today, by=today))
    assert result is not None and result["done_as_zero"] == 18 and result["counted_as_zero"] == 0
    assert abs(result["p50_hours"] / math.sqrt(12) - 1) < _tolerance(0.5, math.log(3) / 3.29)
    assert result["by"]["probability"] > 0.95  # 8 hours today against 2-6 hours left
    assert [c["item"] for c in result["criticality"]] == ["i18"]  # finished work is on no path of the rest


def test_a_doing_item_counts_in_full_unless_its_estimate_says_what_is_left() -> None:
    items, waves = _chain(["done", "doing"])
    full = forecast.schedule(items, waves)
    assert full is not None and full["median_hours"] == 3.4641 and "partly_done" not in full
    items, waves = _chain(["done", "doing"], left=0.25)
    quarter = forecast.schedule(items, waves)
    assert quarter is not None and (quarter["best_hours"], quarter["worst_hours"]) == (0.5, 1.5)
    assert quarter["partly_done"] == 1 and quarter["done_as_zero"] == 1
    items, waves = _chain(["doing"], left=0)
    nothing = forecast.schedule(items, waves)
    assert nothing is not None and nothing["median_hours"] == 0 and nothing["counted_as_zero"] == 0
    assert monte_carlo(items, waves) is None  # nothing left to draw


def test_a_left_share_outside_0_to_1_is_counted_in_full() -> None:
    items, waves = _chain(["doing"], left=1.5)
    planned = forecast.schedule(items, waves)
    assert planned is not None and planned["median_hours"] == 3.4641 and "partly_done" not in planned


def test_a_plan_that_tracks_no_progress_writes_what_it_wrote_before() -> None:
    items = [_item("a", 2, 8), _item("b", 1, 4, deps=("a",))]
    planned = forecast.schedule(items, [["a"], ["b"]])
    result = monte_carlo(items, [["a"], ["b"]])
    assert planned is not None and result is not None
    assert not {"done_as_zero", "partly_done"} & (set(planned) | set(result))
