"""Rules about approval gates (compiler/approvals.py): an irreversible item needs an approval
before it (EP310), and a recorded approval must still hold (EP111)."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks import CheckContext
from compiler.diagnostics import Diagnostic, Note
from compiler.display import clip, quoted
from compiler.display import names as shown_names
from compiler.values import Item


def _uses_gates(ctx: CheckContext) -> bool:
    """Whether any item gives an option at all: most plans give none, and pay one pass."""
    return any(item.options for item in ctx.plan.items)


def unapproved_irreversible(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP310: an irreversible item with no approval among its transitive dependencies. One pass
    in topological order (approvals.ungated); an approval on another branch does not count, and
    the note names one, so that the reader sees the dependency that is missing."""
    if not _uses_gates(ctx):
        return
    from compiler import approvals  # on first use: most plans have no gate

    elsewhere = next((item for item in ctx.plan.items if approvals.is_approval(item)), None)
    for item in approvals.ungated(ctx.plan.items):
        notes: tuple[Note, ...] = ()
        if elsewhere is not None:
            notes = (Note(f"{clip(elsewhere.id)} is an approval, but {clip(item.id)} does not depend on it",
                          ctx.loc(elsewhere, "kind")),)
        yield Diagnostic(
            "EP310", f"{clip(item.id)} is irreversible but no approval precedes it", item.id,
            ctx.loc(item, "irreversible", key=True), notes,
            hint=f"add an item with kind: approval (a checkpoint a person passes) and make {clip(item.id)}"
                 " depend on it, directly or through the items before it",
        )


def _approve_hint(ident: str) -> str:
    return f"review what it covers, then record it: evidence-plan approve PLAN {clip(ident)} --by NAME"


def approval_records(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP111: a recorded approval that does not hold: on an item that is no approval, incomplete,
    with an approved_at that is no ISO 8601 date-time, or stale (its digest no longer matches
    what it covers)."""
    if not _uses_gates(ctx):
        return
    from compiler import approvals

    graph_states: dict[str, approvals.State] | None = None
    firsts: dict[str, Item] = {}
    for item in ctx.plan.items:
        if not item.options:
            continue
        given = [key for key in approvals.RECORD if item.option(key) is not None]
        if not given or "kind" in item.broken:
            continue
        label = clip(item.id)
        if not approvals.is_approval(item):
            yield Diagnostic("EP111", f"{label} records an approval ({', '.join(given)}) but is not kind: approval",
                             item.id, ctx.loc(item, given[0], key=True),
                             hint="make it kind: approval, or remove the record")
            continue
        missing = [key for key in approvals.RECORD if key not in given and key not in item.broken]
        if missing:
            yield Diagnostic("EP111", f"{label}'s approval record has no {' or '.join(missing)}", item.id,
                             ctx.loc(item, given[0], key=True), hint=_approve_hint(item.id))
        at = item.option("approved_at")
        if at is not None and not approvals.valid_date_time(at):
            yield Diagnostic("EP111", f"{label}: approved_at must be an ISO 8601 date-time with its offset"
                             f" (2026-12-01T15:04:05Z), not {quoted(clip(at))}", item.id,
                             ctx.loc(item, "approved_at"))
        recorded = item.option("approval_digest")
        if recorded is None:
            continue
        if graph_states is None:
            graph_states = approvals.states(ctx.plan.items)
            firsts = approvals.first_items(ctx.plan.items)
        state = graph_states.get(item.id)
        # A repeated id (EP104) is judged as its first item: the one the graph holds.
        if state is None or state.state != "stale" or firsts[item.id] is not item:
            continue
        covers = state.coverage.covers
        what = (f"it covers {len(covers)} item{'' if len(covers) == 1 else 's'} ({shown_names(covers)})"
                if covers else "it covers nothing now (no irreversible item depends on it)")
        yield Diagnostic(
            "EP111", f"{label} is a stale approval: {what}, and what it covers changed since it was approved"
            f" (digest {quoted(clip(recorded))} recorded, {state.coverage.digest} now)", item.id,
            ctx.loc(item, "approval_digest"), hint=_approve_hint(item.id),
        )


CHECKS = [unapproved_irreversible, approval_records]
