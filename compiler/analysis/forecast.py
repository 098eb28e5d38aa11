"""The schedule of a ready plan by its estimates: the critical path by median estimate, with the
best and worst case along it. Plain functions over the validated items and the waves (a
topological order: every dependency is in an earlier wave); linear in items and dependencies.
Imported only when a ready plan gives an estimate.

An estimate's median is the geometric mean of its low and high (the median of the lognormal whose
90% interval they are), in hours (compiler/model/fields.py: UNIT_HOURS). An item without an estimate, or
whose estimate cannot be a 90% interval (low <= 0 or high < low: EP112; or past MAX_HOURS or
MAX_FORECAST_SPREAD), counts as zero, and the schedule says how many did.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from datetime import date
from typing import Any, NamedTuple

from compiler.model.fields import UNIT_HOURS, UNITS_STATED
from compiler.model.values import Item

# An estimate past either bound is not used (counted as zero): a billion hours (114,000 years), or
# a spread of a million (EP112 flags far less), which keeps every draw and sum finite.
MAX_HOURS = 1e9
MAX_FORECAST_SPREAD = 1e6


def interval_hours(estimate: Any) -> tuple[float, float] | None:
    """An estimate's (low, high) in hours, or None when it is not a usable 90% interval."""
    if not isinstance(estimate, dict):
        return None
    low, high = estimate["low"], estimate["high"]
    per = UNIT_HOURS[estimate["unit"]]
    if not low > 0 or high < low or high * per > MAX_HOURS or high > low * MAX_FORECAST_SPREAD:
        return None
    return low * per, high * per


class Counted(NamedTuple):
    """What the schedule and the forecast counted of the items in the graph: the hours left (low,
    high) of those with a usable estimate that are not done, by id; how many were done (counted as
    0: the forecast answers when the rest will be done); how many doing items said how much was
    ``left``; and how many had no usable estimate (counted as 0 too)."""

    left: dict[str, tuple[float, float]]
    done: frozenset[str]
    partly: int
    zero: int

    def to_dict(self) -> dict[str, int]:
        """The counts the output states, each only when there is one (a plan that tracks no
        progress writes what it wrote before)."""
        return {**({"done_as_zero": len(self.done)} if self.done else {}),
                **({"partly_done": self.partly} if self.partly else {})}


def counted(by_id: dict[str, Item], order: Sequence[str]) -> Counted:
    """The work left of each item of ``order`` (the ids in the waves: dropped items are in none):
    none for a done one; for a doing one whose estimate gives ``left`` (0 to 1), that share of its
    interval; else the whole interval."""
    from compiler.analysis.progress import DOING, DONE

    left: dict[str, tuple[float, float]] = {}
    done: list[str] = []
    partly = nothing_left = 0
    for ident in order:
        item = by_id[ident]
        if not item.options:
            continue
        estimate: Any = None
        state: Any = None
        for key, value in item.options:  # one pass, no call: this runs for every item of a large plan
            if key == "estimate":
                estimate = value
            elif key == "status":
                state = value
        if state == DONE:
            done.append(ident)
            continue
        usable = interval_hours(estimate) if estimate is not None else None
        if usable is None:
            continue
        share = estimate["left"] if state == DOING and "left" in estimate else None
        if share is not None and 0 <= share <= 1:  # out of range: flagged (EP112), counted in full
            partly += 1
            if share == 0:
                nothing_left += 1
                continue
            usable = (usable[0] * share, usable[1] * share)
        left[item.id] = usable
    return Counted(left=left, done=frozenset(done), partly=partly,
                   zero=len(order) - len(left) - len(done) - nothing_left)


def _hours(value: float) -> float:
    """Hours as the output writes them: to the second (1/3600 h is 0.0003), no float noise."""
    return round(value, 4)


def schedule(items: Sequence[Item], waves: Sequence[Sequence[str]]) -> dict[str, Any] | None:
    """The critical path by median estimate of a ready plan, or None when no item gives an
    estimate. It ends at the last item (in wave order) to finish when the plan does, so the items
    without an estimate that close the chain are on it; of dependencies that finish together, the
    first listed is on it."""
    by_id = {item.id: item for item in items}
    if not any(item.options and item.option("estimate") is not None for item in items):
        return None
    count = counted(by_id, [ident for wave in waves for ident in wave])
    bounds = count.left
    finish: dict[str, float] = {}
    before: dict[str, str | None] = {}
    end, longest = None, -1.0
    for wave in waves:
        for ident in wave:
            start, first = 0.0, None
            for dep in by_id[ident].depends_on:
                if first is None or finish[dep] > start:
                    start, first = finish[dep], dep
            low_high = bounds.get(ident)
            finish[ident] = start + (math.sqrt(low_high[0] * low_high[1]) if low_high else 0.0)
            before[ident] = first
            if finish[ident] >= longest:
                end, longest = ident, finish[ident]
    path: list[str] = []
    at = end
    while at is not None:
        path.append(at)
        at = before[at]
    path.reverse()
    return {
        "unit": "hours",
        "units": UNITS_STATED,
        "critical_path": path,
        "median_hours": _hours(longest),
        "best_hours": _hours(sum(bounds[i][0] for i in path if i in bounds)),
        "worst_hours": _hours(sum(bounds[i][1] for i in path if i in bounds)),
        "estimated": len(bounds),
        "counted_as_zero": count.zero,
        **count.to_dict(),
    }


# --- the Monte Carlo forecast -------------------------------------------------------------------

# Runs of a forecast, and the most item-runs (items x runs) one may take: a plan of more than
# ITEM_RUNS / RUNS items gets fewer runs (at least MIN_RUNS), and the output says so. Pure Python
# does about 3 million item-runs a second here (benchmarks/run.py forecast).
RUNS = 500
ITEM_RUNS = 1_000_000
MIN_RUNS = 20
SEED = 13  # random.Random(SEED): the same plan gives the same forecast, to the byte
# The standard normal as 2**16 strata of equal probability, each drawn as its median: a draw is
# one table lookup (C speed) instead of random.gauss (Python). It moves a quantile by at most one
# stratum (1/65,536 in probability), far below the sampling error of the runs (0.01 at P95 over
# 500 runs), and cuts the tails at 4.3 standard deviations.
_STRATA_BITS = 16
Z_90 = 3.29  # the width of a 90% interval in standard deviations (2 x 1.645): sigma = ln(H / L) / 3.29


def _strata() -> list[float]:
    """exp(z) of each stratum's median z: a lognormal draw is then exp(mu) * exp(z) ** sigma."""
    from statistics import NormalDist

    count = 1 << _STRATA_BITS
    upper = list(map(NormalDist().inv_cdf, [(k + 0.5) / count for k in range(count // 2, count)]))
    return list(map(math.exp, [-z for z in reversed(upper)] + upper))  # symmetric about the median


def runs_for(items: int) -> int:
    return max(MIN_RUNS, min(RUNS, ITEM_RUNS // max(items, 1)))


def _percentile(ordered: list[float], p: float) -> float:
    """The nearest-rank percentile of sorted values."""
    return ordered[max(0, math.ceil(p * len(ordered)) - 1)]


def working_days(start: date, by: date) -> int:
    """Monday to Friday from ``start`` to ``by``, both included (no holidays: a calendar is the
    plan's to state, and no clock or locale is read)."""
    if by < start:
        return 0
    days = (by - start).days + 1
    weeks, rest = divmod(days, 7)
    return weeks * 5 + sum(1 for k in range(rest) if (start.weekday() + k) % 7 < 5)


class Deadline(NamedTuple):
    """`compile --start DATE --by DATE --hours-per-day N`: the hours of work the plan may take."""

    start: date
    by: date
    hours_per_day: float = 8

    def to_dict(self) -> dict[str, Any]:
        days = working_days(self.start, self.by)
        return {"start": self.start.isoformat(), "by": self.by.isoformat(), "hours_per_day": self.hours_per_day,
                "working_days": days, "hours": days * self.hours_per_day}


def monte_carlo(items: Sequence[Item], waves: Sequence[Sequence[str]], *, runs: int | None = None,
                seed: int = SEED, deadline: Deadline | None = None) -> dict[str, Any] | None:
    """P50, P80 and P95 of the plan's duration in hours over seeded runs, each an estimate drawn
    from the lognormal fitted to its 90% interval (mu = (ln L + ln H) / 2, sigma = ln(H / L) /
    3.29), the plan's duration in a run its longest path (every item's finish, in wave order: one
    pass over the dependencies per run, done for all runs at once); and each item's criticality
    index, the share of runs in which it lies on a longest path (its finish plus the longest
    tail after it is the plan's duration). None when no item has a usable estimate."""
    from array import array
    from itertools import chain, repeat
    from operator import add, ge, mul

    order = [ident for wave in waves for ident in wave]
    by_id = {item.id: item for item in items}
    count = runs if runs is not None else runs_for(len(order))
    rng = random.Random(seed)
    fitted: list[tuple[str, float, float]] = []  # (id, exp(mu), sigma) of each usable estimate, in wave order
    count_left = counted(by_id, order)
    for ident in order:
        usable = count_left.left.get(ident)
        if usable is not None:
            low, high = usable
            fitted.append((ident, math.sqrt(low * high), math.log(high / low) / Z_90))  # exp(mu) is sqrt(L H)
    if not fitted:
        return None
    # Every draw at once, at C speed: one stream of random strata, each item's runs a slice of it,
    # exp(mu) * exp(z) ** sigma (an item per `count` values of the repeated parameters).
    strata = _strata()
    total_draws = count * len(fitted)
    index = array("H", rng.getrandbits(_STRATA_BITS * total_draws).to_bytes(2 * total_draws, "little"))
    scales = chain.from_iterable(map(repeat, [f[1] for f in fitted], repeat(count)))
    sigmas = chain.from_iterable(map(repeat, [f[2] for f in fitted], repeat(count)))
    every = array("d", map(mul, scales, map(pow, map(strata.__getitem__, index), sigmas)))
    del index
    draws = {ident: every[k * count:(k + 1) * count] for k, (ident, _, _) in enumerate(fitted)}
    del every
    zero = array("d", bytes(8 * count))
    finish: dict[str, array[float]] = {}
    successors: dict[str, list[str]] = {}
    for ident in order:
        deps = by_id[ident].depends_on
        for dep in deps:
            successors.setdefault(dep, []).append(ident)
        start = (finish[deps[0]] if len(deps) == 1 else array("d", map(max, *(finish[d] for d in deps)))) if deps \
            else zero
        own = draws.get(ident)
        finish[ident] = start if own is None else (own if not deps else array("d", map(add, start, own)))
    total = zero
    for ident in order:
        if ident not in successors:
            total = array("d", map(max, total, finish[ident]))
    # A run's longest paths: an item is on one when its finish plus the longest tail after it
    # reaches the plan's duration (to a billionth: the two sums are added in different orders).
    reach = array("d", map((1 - 1e-9).__mul__, total))
    tail: dict[str, array[float]] = {}
    critical: dict[str, int] = {}
    for ident in reversed(order):
        after = successors.get(ident)
        if after is None:
            rest = zero
        else:
            parts = [array("d", map(add, tail[s], draws[s])) if s in draws else tail[s] for s in after]
            rest = parts[0] if len(parts) == 1 else array("d", map(max, *parts))
        tail[ident] = rest
        on = sum(map(ge, map(add, finish[ident], rest), reach))
        if on and ident not in count_left.done:  # finished work is on no path of the work left
            critical[ident] = on
    ordered = sorted(total)
    position = {ident: n for n, ident in enumerate(order)}
    by = None
    if deadline is not None:  # the share of runs that finish within the working hours to the date
        by = deadline.to_dict()
        by["probability"] = round(bisect_right(ordered, by["hours"]) / count, 4)
    return {
        "unit": "hours",
        "runs": count,
        "runs_scaled": count < RUNS,
        "seed": seed,
        "counted_as_zero": count_left.zero,
        **count_left.to_dict(),
        "p50_hours": _hours(_percentile(ordered, 0.50)),
        "p80_hours": _hours(_percentile(ordered, 0.80)),
        "p95_hours": _hours(_percentile(ordered, 0.95)),
        "criticality": [{"item": ident, "share": round(on / count, 4)} for ident, on in
                        sorted(critical.items(), key=lambda pair: (-pair[1], position[pair[0]]))],
        **({"by": by} if by is not None else {}),
    }
