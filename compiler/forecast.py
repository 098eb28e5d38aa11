"""The schedule of a ready plan by its estimates: the critical path by median estimate, with the
best and worst case along it. Plain functions over the validated items and the waves (a
topological order: every dependency is in an earlier wave); linear in items and dependencies.
Imported only when a ready plan gives an estimate.

An estimate's median is the geometric mean of its low and high (the median of the lognormal whose
90% interval they are), in hours (compiler/fields.py: UNIT_HOURS). An item without an estimate, or
whose estimate cannot be a 90% interval (low <= 0 or high < low: EP112), counts as zero, and the
schedule says how many did.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from compiler.fields import UNIT_HOURS, UNITS_STATED
from compiler.values import Item


def interval_hours(estimate: Any) -> tuple[float, float] | None:
    """An estimate's (low, high) in hours, or None when it is not a usable 90% interval."""
    if not isinstance(estimate, dict):
        return None
    low, high = estimate["low"], estimate["high"]
    if not low > 0 or high < low:
        return None
    per = UNIT_HOURS[estimate["unit"]]
    return low * per, high * per


def _hours(value: float) -> float:
    """Hours as the output writes them: to the second (1/3600 h is 0.0003), no float noise."""
    return round(value, 4)


def schedule(items: Sequence[Item], waves: Sequence[Sequence[str]]) -> dict[str, Any] | None:
    """The critical path by median estimate of a ready plan, or None when no item gives an
    estimate. It ends at the last item (in wave order) to finish when the plan does, so the items
    without an estimate that close the chain are on it; of dependencies that finish together, the
    first listed is on it."""
    by_id = {item.id: item for item in items}
    bounds: dict[str, tuple[float, float]] = {}
    given = 0
    for item in items:
        estimate = item.option("estimate") if item.options else None
        if estimate is not None:
            given += 1
            usable = interval_hours(estimate)
            if usable is not None:
                bounds[item.id] = usable
    if not given:
        return None
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
        "counted_as_zero": len(items) - len(bounds),
    }
