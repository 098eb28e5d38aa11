"""Grounded estimates: the order-of-magnitude check (EP112) over items' estimates and the plan's
claims. Plain functions over the plain values compiler/model/ reads (dicts of an estimate's parts,
compiler/model/fields.py: ESTIMATE_PARTS and CLAIM_PARTS); imported only when a plan gives one.

An estimate is a 90% interval, low to high. It is *flagged* (ungrounded) when low <= 0, high <
low, high / low is more than the spread limit (fields.MAX_SPREAD, or --max-spread), or its
evidence is empty: each a reason, naming the rule and the figures.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, NamedTuple

from compiler.model import fields


class Flag(NamedTuple):
    part: str  # the part of the estimate the reason is about: where its diagnostic points
    reason: str


def number(value: float) -> str:
    """A bound as people write it: 2, 2.5, 0.25, 5,000 (never 2.0); past a quadrillion or under a
    millionth, 1.5e+20 and 3e-07; a ratio too large for a float, "more than 1e308"."""
    value = float(value)
    if not math.isfinite(value):
        return "more than 1e308"
    if value and not 1e-6 <= abs(value) < 1e15:
        return f"{value:.3g}"
    if value.is_integer():
        return f"{int(value):,}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def flags(estimate: dict[str, Any], max_spread: float = fields.MAX_SPREAD) -> Iterator[Flag]:
    """Why an estimate (or a claim) is ungrounded; nothing when it is grounded."""
    low, high = estimate["low"], estimate["high"]
    if low <= 0:
        yield Flag("low", f"low is {number(low)}: a 90% interval starts above 0 (the rule: 0 < low <= high)")
    elif high < low:
        yield Flag("high", f"high {number(high)} is below low {number(low)} (the rule: low <= high)")
    elif high / low > max_spread:
        yield Flag("high", f"high / low is {number(round(high / low, 2))}x ({number(high)} / {number(low)}),"
                           f" over the limit of {number(max_spread)}x: an interval that wide is a guess"
                           f" (the spread rule: high / low <= {number(max_spread)})")
    if "left" in estimate and not 0 <= estimate["left"] <= 1:  # `in`, not get(): no call for the other estimates
        yield Flag("left", f"left is {number(estimate['left'])}: the share of the work still to do is between 0 and 1"
                           " (counted in full)")
    if not str(estimate.get("evidence") or "").strip():
        yield Flag("evidence", "no evidence for the range (the rule: say what justifies it)")
