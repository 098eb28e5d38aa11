"""How complex a compiled plan is: a tier (simple, medium, complex) and the measures that decided
it, so that a CI policy can ask for a split before review.

Each measure (config.MEASURES) has two thresholds, from the repository's settings
(compiler/model/config.py): at or above the first the plan is at least medium, at or above the second
complex. The tier is the highest any measure reaches, and ``why`` names each measure that reached
it. Plain data in, plain data out: the measures come from the compile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from compiler.core.diagnostics import Diagnostic
from compiler.model.config import MEASURES, TIERS, Settings
from compiler.model.values import Item


class Complexity(NamedTuple):
    tier: str
    measures: dict[str, int]  # measure -> value (waves and widest_wave absent when the plan is blocked)
    why: tuple[str, ...]  # the measures that reached the tier, each as "12 items (medium from 10)"

    def to_dict(self) -> dict[str, Any]:
        return {"tier": self.tier, "why": list(self.why), **self.measures}


_WORDS = {"items": ("item", "items"), "waves": ("wave", "waves"),
          "widest_wave": ("item in the widest wave", "items in the widest wave"),
          "irreversible": ("irreversible item", "irreversible items"), "files": ("distinct file", "distinct files")}


def measure(items: Iterable[Item], waves: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    """The measures of a plan: waves only when it was ordered (a blocked plan has none). Dropped
    items have left the plan: not counted."""
    count = irreversible = 0
    files: set[str] = set()
    add = files.add
    for item in items:
        if item.options:  # most items of a large plan give none: their options are not looked for
            if item.option("status") == "dropped":
                continue
            irreversible += item.option("irreversible", False) is True
            paths = item.option("paths", ())
            if isinstance(paths, (list, tuple)):
                files.update(p for p in paths if isinstance(p, str))
        count += 1
        for ev in item.evidence:
            if ev.path is not None:
                add(ev.path)
    out = {"items": count, "irreversible": irreversible, "files": len(files)}
    if waves:
        out["waves"] = len(waves)
        out["widest_wave"] = max(map(len, waves))
    return out


def assess(measures: dict[str, int], settings: Settings) -> Complexity:
    level = 0
    reasons: dict[int, list[str]] = {1: [], 2: []}
    for name in MEASURES:
        if name not in measures:
            continue
        value = measures[name]
        medium, complex_ = settings.get(f"tiers.{name}")
        reached = 2 if value >= complex_ else 1 if value >= medium else 0
        if reached:
            threshold = complex_ if reached == 2 else medium
            reasons[reached].append(f"{value:,} {_WORDS[name][value != 1]} ({TIERS[reached]} from {threshold:,})")
            level = max(level, reached)
    return Complexity(TIERS[level], {k: measures[k] for k in MEASURES if k in measures},
                      tuple(reasons.get(level, ())))


def above_max_tier(complexity: Complexity, settings: Settings) -> Diagnostic | None:
    """EP311 (warning), unlocated (the caller places it at the plan's items): the plan is above
    the tier the repository's settings allow."""
    allowed = settings.get("max_tier")
    if TIERS.index(complexity.tier) <= TIERS.index(allowed):
        return None
    source = settings.source or "the settings"
    return Diagnostic("EP311", f"the plan is {complexity.tier}: {'; '.join(complexity.why)}; {source} allows"
                      f" {allowed} at most",
                      hint=f"split the plan into smaller ones, or raise max_tier in {source}")
