"""Rules about approval gates (compiler/analysis/approvals.py): an irreversible item needs an approval
before it (EP310), and a recorded approval must still hold (EP111)."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks.context import CheckContext, Rule
from compiler.core.diagnostics import Diagnostic, Note
from compiler.core.display import clip
from compiler.model.values import Item

# The fields of the gates (approvals.RECORD among them, which tests/checks/test_gates.py holds to it):
# named here, so that a plan without gates does not import approvals.
_GATE_FIELDS = ("kind", "irreversible", "approved_by", "approved_at", "approval_digest")


def _uses_gates(ctx: CheckContext) -> bool:
    """Whether any item gives a field of the gates: most plans give none, and pay nothing more."""
    return any(ctx.plan.gives(name) for name in _GATE_FIELDS)


def unapproved_irreversible(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP310: an irreversible item with no approval among its transitive dependencies. One pass
    in topological order (approvals.ungated); an approval on another branch does not count, and
    the note names one, so that the reader sees the dependency that is missing."""
    if not _uses_gates(ctx):
        return
    from compiler.analysis import approvals  # on first use: most plans have no gate

    elsewhere = next((item for item in ctx.plan.items if approvals.is_approval(item)), None)
    for item in approvals.ungated(ctx.plan.items):
        notes: tuple[Note, ...] = ()
        if elsewhere is not None:
            notes = (Note(f"{clip(elsewhere.id)} is an approval, but {clip(item.id)} does not depend on it",
                          ctx.loc(elsewhere, "kind")),)
        yield Diagnostic(
            "EP310", f"{clip(item.id)} is irreversible but no approval precedes it", item=item.id,
            location=ctx.loc(item, "irreversible", key=True), notes=notes,
            hint=f"add an item with kind: approval (a checkpoint a person passes) and make {clip(item.id)}"
                 " depend on it, directly or through the items before it",
        )


def approval_records(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP111: a recorded approval that does not hold (compiler/analysis/approvals.py's ``problems``, the
    one judgement that the compiled JSON and ``diff`` share): on an item that is no approval,
    incomplete, with an approved_at that is no ISO 8601 date-time, with a digest of the old
    format, or stale (its digest no longer matches what it covers)."""
    if not _uses_gates(ctx):
        return
    from compiler.analysis import approvals

    firsts: dict[str, Item] | None = None

    def cover_of(ident: str) -> approvals.Coverage:
        return approvals.coverage(ctx.plan.items, ident)

    for item in ctx.plan.items:
        if not item.options or all(item.option(key) is None for key in approvals.RECORD):
            continue
        firsts = firsts or approvals.first_items(ctx.plan.items)
        first = firsts[item.id] is item  # a repeated id (EP104) is judged as its first item: the graph's
        cover = (lambda ident=item.id: cover_of(ident)) if first else None
        for problem in approvals.problems(item, cover):
            yield Diagnostic("EP111", problem.message, item=item.id,
                             location=ctx.loc(item, problem.field, key=problem.at_key), hint=problem.hint)


RULES = (
    Rule(unapproved_irreversible, ("EP310",)),
    Rule(approval_records, ("EP111",)),
)
