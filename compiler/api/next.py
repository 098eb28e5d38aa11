"""The library half of `evidence-plan next`: check a plan as `check` does, then, when it is
ready, the items that can be done now (compiler/analysis/progress.py says which)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.analysis.progress import DEFAULT, DOING, NextItem, counts, next_items, status, tracked, wave_numbers
from compiler.core.diagnostics import Diagnostic

if TYPE_CHECKING:
    from compiler.compile.pipeline import CompileResult
    from compiler.load.limits import Limits


class Next(NamedTuple):
    """What `next` answers for a plan."""

    name: str  # the plan file, as diagnostics name it
    plan: str | None  # the plan's own name
    status: str  # ready or blocked (as `check` says)
    progress: dict[str, int]  # items per status
    remaining: int  # live items not done
    items: list[NextItem]  # empty when blocked, or when nothing is left
    diagnostics: tuple[Diagnostic, ...]


def plan_next(path: str, *, root: str | None = None, verify_evidence: bool = True,
              limits: Limits | None = None) -> Next:
    """Check the plan at ``path`` as `check` does, then, when it is ready, its next items. Raises
    ``PlanInputError`` when the file cannot be read or is not a plan."""
    from compiler.compile.pipeline import compile_plan
    from compiler.load.limits import DEFAULT_LIMITS

    return next_of(compile_plan(path, root=root, verify_evidence=verify_evidence, limits=limits or DEFAULT_LIMITS,
                                order=False))


def next_of(result: CompileResult) -> Next:
    """The next items of a plan compiled as `check` compiles it (none when it is blocked)."""
    items = result.plan.items
    statuses = [status(item) for item in items] if tracked(items) else [DEFAULT] * len(items)
    progress = counts(statuses)
    remaining = progress[DEFAULT] + progress[DOING]
    found = next_items(items, wave_numbers(items)) if result.status == "ready" else []
    return Next(name=result.document.name, plan=result.plan.name, status=result.status, progress=progress,
                remaining=remaining, items=found, diagnostics=result.diagnostics)


def as_json(found: Next) -> dict[str, Any]:
    """The JSON answer of `next --format json` (and of the agent server's next_items); its keys are
    documented in docs/reference/progress.md."""
    return {
        "plan": found.plan,
        "source": found.name,
        "status": found.status,
        "progress": found.progress,
        "remaining": found.remaining,
        "all_done": found.status == "ready" and found.remaining == 0,
        "next": [{"id": n.id, "status": n.status, "wave": n.wave, "change": n.change, "proof": n.proof,
                  "depends_on": list(n.depends_on)} for n in found.items],
        "issues": [d.to_dict() for d in found.diagnostics],
    }
