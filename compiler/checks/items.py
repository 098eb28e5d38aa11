"""Rules about one item's commitments: evidence, proof, change, and a unique id."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks import CheckContext
from compiler.diagnostics import Diagnostic, Note


def no_evidence(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP101: every item cites at least one repository fact."""
    for item in ctx.plan.items:
        if not item.evidence:
            yield Diagnostic("EP101", f"{item.id} has no repository evidence", item.id,
                             ctx.loc(item, "evidence"))


def no_proof(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP102: every item closes with one exact proof command (located at `proof`, else the item)."""
    for item in ctx.plan.items:
        if not item.proof.strip():
            yield Diagnostic("EP102", f"{item.id} has no proof command", item.id, ctx.loc(item, "proof"))


def no_change(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP103: every item states the change it makes."""
    for item in ctx.plan.items:
        if not item.change.strip():
            yield Diagnostic("EP103", f"{item.id} has no change", item.id, ctx.loc(item, "change"))


def duplicate_ids(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP104: ids are unique; the second and later uses point back at the first."""
    first: dict[str, int] = {}
    by_index = {item.index: item for item in ctx.plan.items}
    for item in ctx.plan.items:
        if item.id not in first:
            first[item.id] = item.index
            continue
        original = by_index[first[item.id]]
        where = ctx.loc(original, "id")
        yield Diagnostic(
            "EP104",
            f"duplicate id {item.id} (first defined at line {where.line})",
            item.id,
            ctx.loc(item, "id"),
            (Note(f"{item.id} first defined here", where),),
        )


def duplicate_evidence(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP105 (warning): the same evidence cited twice by one item."""
    for item in ctx.plan.items:
        seen: set[object] = set()
        for j, ev in enumerate(item.evidence):
            if ev in seen:
                yield Diagnostic("EP105", f"{item.id} cites {ev.ref()} twice", item.id,
                                 ctx.loc(item, "evidence", j))
            seen.add(ev)


CHECKS = [no_evidence, no_proof, no_change, duplicate_ids, duplicate_evidence]
