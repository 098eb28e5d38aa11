"""What `verify --against REV` prints (compiler/api/against.py runs it): the dry run's word on
where the proofs would run again, and each item whose proof passes without the change, as a line
and as an annotation. Imported only when --against is given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from compiler.core.display import escape

if TYPE_CHECKING:
    from compiler.api.against import Base
    from compiler.api.verify import Receipt, Step


def _at(base: Base) -> str:
    """REV and its commit, abbreviated; the commit alone when REV is (a prefix of) its id."""
    short = base.commit[:7]
    return short if base.commit.startswith(base.rev.lower()) else f"{escape(base.rev)} {short}"


def dry_run_text(base: Base, steps: Sequence[Step]) -> str:
    tasks = sum(step.approval is None for step in steps)
    where = "its top" if base.folder == "." else escape(base.folder)
    return (f"then, in a temporary worktree of {_at(base)} ({where}), the proof of each task that passes here runs"
            f" again ({tasks:,} at most); one that passes there too passes without the change")


def dry_run_json(base: Base, steps: Sequence[Step]) -> dict[str, Any]:
    return {"rev": base.rev, "commit": base.commit, "folder": base.folder,
            "items": [step.id for step in steps if step.approval is None]}


def passes_line(receipt: Receipt, base: Base) -> str:
    return f"passes without the change: {escape(receipt.step.id)} (its proof also passed at {_at(base)})"


def control_annotations(passing: Sequence[Receipt], base: Base, *, strict: bool) -> list[tuple[Receipt, str, str, str]]:
    """``--format github``: (receipt, kind, title, message) of each item that passes without the
    change, a warning (an error with --strict), for compiler/commands/verify.py's annotations."""
    kind = "error" if strict else "warning"
    return [(r, kind, f"verify: {r.step.id} passes without the change",
             f"its proof also passed at {_at(base)}: a proof that cannot fail proves nothing") for r in passing]
