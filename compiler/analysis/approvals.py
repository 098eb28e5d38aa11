"""Approval gates: which irreversible items an approval precedes, what it covers, its digest, and
the record that `evidence-plan approve` writes into the plan.

- An item of ``kind: approval`` is a checkpoint a person passes. An ``irreversible: true`` item
  must have one among its transitive dependencies (EP310, compiler/checks/gates.py).
- What an approval *covers*: the irreversible items that depend on it (directly or through
  others), and everything those items depend on, transitively: the approval itself, what precedes
  it, and the other branches that lead into the irreversible items. That is what a person signs
  off when they pass the gate: what will be done, irreversibly, and everything it rests on.
- Its *digest*: 32 hex digits (128 bits) of the SHA-256 of the canonical JSON (sorted keys, no
  spaces, UTF-8) of the covered items' ids, each with the SHA-256 of its content: every item field
  that changes what runs or in what order, as compiler/model/fields.py declares it (``approved=True``):
  its id, change, evidence, dependencies, proof, kind, irreversible flag, paths, and whether it is
  dropped. Normalized, so that a rewrite that means the same is the same: evidence as entries
  (``a.py:3`` is ``{path: a.py, line: 3}``), a pinned entry by its pin and not its lines (lines
  that moved whole are the same content), dependencies and paths as sets. The approval records
  are left out, so that passing one gate never makes another stale; so are progress (todo, doing,
  done), reasons and estimates. Any edit to what a covered item does, an item joining or leaving
  the covered set, changes it; an edit to any other item does not.
- A recorded digest that no longer matches is a stale approval (EP111); so is a record that does
  not hold for another reason (``problems``: one function, for ``check``, the compiled JSON and
  ``diff``'s voided approvals). A digest of the format before this one (12 hex digits, 48 bits,
  over fewer fields) is never current: it is reported as approved under the old format, to be
  approved again. One digest cannot tell which covered item changed; the message names the
  covered items, and the compiled JSON lists them with the digest they have now (``coverage``).

Plain data over the validated items; no networkx, nothing imported that `check` must not import.
Every pass is iterative (no recursion on the graph's depth). The gate check (``ungated``) is one
pass in topological order; a digest is one walk down and one walk up from its approval, so all
the digests of a plan cost O(approvals x (items + dependencies)) in walks, and each item is
digested once however many approvals cover it (``Graph``: a plan of 20,000 items and 49 gates
spent 13 s digesting the same items again, and the JSON's states did it all a second time).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.display import clip, names, quoted
from compiler.model.fields import APPROVAL_RECORD

if TYPE_CHECKING:
    from compiler.model.values import Evidence, Item

APPROVAL = "approval"
RECORD = APPROVAL_RECORD  # the fields `approve` writes, in its order (declared with the fields: the schema says it too)
DIGEST_LENGTH = 32  # hex digits: 128 bits, out of reach of a birthday search for two proofs of one digest
# What `approve` wrote before the digest bound every field that changes what runs: 48 bits.
OLD_DIGEST = re.compile(r"[0-9a-f]{12}")
# ISO 8601 date-time with its offset, to the second or finer: 2026-12-01T15:04:05Z, ...+01:00.
# Compiled on first use: check imports this module for every plan, and most have no approval.
DATE_TIME = (r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
             r"(\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])")


def is_approval(item: Item) -> bool:
    return bool(item.option("kind") == APPROVAL)


def is_irreversible(item: Item) -> bool:
    return item.option("irreversible") is True


def valid_date_time(text: str) -> bool:
    """Whether ``text`` is an ISO 8601 date-time with an offset that names a real moment (the
    grammar, and a day the month has: 2026-02-30 is none)."""
    from datetime import datetime

    if re.fullmatch(DATE_TIME, text) is None:
        return False
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def first_items(items: Iterable[Item]) -> dict[str, Item]:
    """Each id's item: the first that has it (as the graph takes them)."""
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    return first


def ungated(items: tuple[Item, ...]) -> list[Item]:
    """The irreversible items that have no approval among their transitive dependencies, in the
    plan's order.

    An item is gated when one of its dependencies is an approval or is gated itself: every item
    reached from an approval by following its dependents, one step or more. One walk from the
    approvals, linear in items + dependencies, and blind to cycles: an item on or after a cycle
    (EP303) is judged in the same run, gated when an approval precedes it on any path. Unknown
    dependencies and self-dependencies are left out, as the graph leaves them."""
    first = first_items(items)
    irreversible = {ident for ident, item in first.items() if item.options and is_irreversible(item)}
    if not irreversible:
        return []
    dependents: dict[str, list[str]] = {}
    for ident, item in first.items():
        for dep in item.depends_on:
            if dep != ident and dep in first:
                dependents.setdefault(dep, []).append(ident)
    stack = [ident for ident, item in first.items() if item.options and is_approval(item)]
    gated: set[str] = set()
    while stack:
        for after in dependents.get(stack.pop(), ()):
            if after not in gated:
                gated.add(after)
                stack.append(after)
    return [item for ident, item in first.items() if ident in irreversible and ident not in gated]


def _entry(evidence: Evidence) -> dict[str, Any]:
    """An evidence entry as an approval binds it: a pinned entry by its pin, not by its lines."""
    out = evidence.to_dict()
    if evidence.pin is not None:
        out.pop("line", None)
        out.pop("lines", None)
    return out


def _sorted_set(values: Iterable[str]) -> list[str]:
    return sorted(set(values))


def _runs(status: str) -> bool:
    return status != "dropped"


# How a field enters an item's digest when not as its normalized value (compiler/model/values.py's
# field_value): what a rewrite that changes nothing that runs would change otherwise.
_BOUND_AS: dict[str, Callable[[Any], Any]] = {"depends_on": _sorted_set, "paths": _sorted_set, "status": _runs}


def item_content(item: Item) -> dict[str, Any]:
    """What an approval binds of one item: each field declared ``approved`` (compiler/model/fields.py)."""
    from compiler.model.fields import ITEM_FIELDS
    from compiler.model.values import field_value

    out: dict[str, Any] = {}
    for field in ITEM_FIELDS:
        if not field.approved:
            continue
        if field.name == "evidence":
            out["evidence"] = [_entry(e) for e in item.evidence]
            continue
        value = field_value(item, field)
        bound = _BOUND_AS.get(field.name)
        out[field.name] = value if bound is None else bound(value)
    return out


def item_digest(item: Item) -> str:
    """The SHA-256 of one item's content as an approval binds it (``item_content``)."""
    return _hash(item_content(item))


def _hash(value: Any) -> str:
    import hashlib  # on first use: 3 ms of start-up that a plan without approvals does not pay
    import json

    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Coverage(NamedTuple):
    """What one approval covers, and its digest as the plan stands."""

    gates: tuple[str, ...]  # the irreversible items that depend on it, in the plan's order
    covers: tuple[str, ...]  # those and everything they depend on, in the plan's order
    digest: str


def coverage(items: tuple[Item, ...], approval: str) -> Coverage:
    """What the approval with id ``approval`` covers (see the module's docstring) and its digest."""
    return graph_of(items).coverage(approval)


_last: tuple[tuple[Item, ...], Graph] | None = None  # the last plan's graph: see graph_of


def graph_of(items: tuple[Item, ...]) -> Graph:
    """The Graph of a plan's items, made once for the same tuple: a compile asks for each
    approval's coverage in its checks (EP111) and again for evidence-plan.json, and the digests
    are most of their cost. Kept for the last tuple only (by identity: a tuple of items never
    changes)."""
    global _last  # noqa: PLW0603 - one entry, for the plan being compiled
    if _last is None or _last[0] is not items:
        _last = (items, Graph(items))
    return _last[1]


class Graph:
    """Each id's first item and its dependents, built once for all of a plan's approvals."""

    def __init__(self, items: tuple[Item, ...]) -> None:
        self.first = first_items(items)
        self.covered: dict[str, Coverage] = {}
        self.digests: dict[str, str] = {}  # item id -> item_digest, made on first need
        self.dependents: dict[str, list[str]] = {}
        for ident, item in self.first.items():
            for dep in item.depends_on:
                if dep != ident and dep in self.first:
                    self.dependents.setdefault(dep, []).append(ident)

    def coverage(self, approval: str) -> Coverage:
        """What ``approval`` covers, worked out once (``_coverage``)."""
        found = self.covered.get(approval)
        if found is None:
            found = self.covered[approval] = self._coverage(approval)
        return found

    def _coverage(self, approval: str) -> Coverage:
        """One walk down the approval's dependents, one walk up from the irreversible ones among
        them. Iterative, each item visited once per walk; a cycle (reported elsewhere) ends a
        walk, not the program."""
        first, dependents = self.first, self.dependents
        below: set[str] = set()
        stack = [approval]
        while stack:
            for nxt in dependents.get(stack.pop(), ()):
                if nxt not in below:
                    below.add(nxt)
                    stack.append(nxt)
        gates = [ident for ident in first if ident in below and is_irreversible(first[ident])]
        covered: set[str] = set(gates)
        stack = list(gates)
        while stack:
            for dep in first[stack.pop()].depends_on:
                if dep in first and dep not in covered:
                    covered.add(dep)
                    stack.append(dep)
        order = [ident for ident in first if ident in covered]
        digests = self.digests  # an item covered by several approvals is digested once
        pairs = []
        for ident in order:
            found = digests.get(ident)
            if found is None:
                found = digests[ident] = item_digest(first[ident])
            pairs.append([ident, found])
        digest = _hash(sorted(pairs))[:DIGEST_LENGTH]
        return Coverage(tuple(gates), tuple(order), digest)


class Problem(NamedTuple):
    """One reason an approval record does not hold (EP111)."""

    field: str  # the key it is located at
    at_key: bool  # at the key itself, not its value
    reason: str  # short, after the item's id: "what it covers changed"
    message: str  # the whole message, naming the item
    hint: str | None


def _approve_hint(ident: str) -> str:
    return f"review what it covers, then record it: evidence-plan approve PLAN {clip(ident)} --by NAME"


def problems(item: Item, cover: Callable[[], Coverage] | None) -> list[Problem]:
    """Why ``item``'s approval record does not hold; empty when it holds or the item records none.
    The one judgement behind EP111, the compiled JSON's ``approval_state`` and ``diff``'s voided
    approvals: a record on an item that is no approval, an incomplete one, an ``approved_at`` that
    is no ISO 8601 date-time, a digest of the old format, or a digest that no longer matches what
    the approval covers. ``cover`` gives that coverage (made only when a digest is compared); None
    leaves the digest unjudged: a repeated id (EP104) is judged as its first item, the one the
    graph holds."""
    given = [key for key in RECORD if item.option(key) is not None]
    if not given or "kind" in item.broken:
        return []
    label = clip(item.id)
    if not is_approval(item):
        return [Problem(field=given[0], at_key=True, reason="it is not kind: approval",
                        message=f"{label} records an approval ({', '.join(given)}) but is not kind: approval",
                        hint="make it kind: approval, or remove the record")]
    out: list[Problem] = []
    missing = [key for key in RECORD if key not in given and key not in item.broken]
    if missing:
        what = " or ".join(missing)
        out.append(Problem(field=given[0], at_key=True, reason=f"its record has no {what}",
                           message=f"{label}'s approval record has no {what}", hint=_approve_hint(item.id)))
    at = item.option("approved_at")
    if at is not None and not valid_date_time(at):
        out.append(Problem(field="approved_at", at_key=False, reason="its approved_at is no date-time",
                           message=f"{label}: approved_at must be an ISO 8601 date-time with its offset"
                           f" (2026-12-01T15:04:05Z), not {quoted(clip(at))}", hint=None))
    recorded = item.option("approval_digest")
    if recorded is None or cover is None:
        return out
    if OLD_DIGEST.fullmatch(recorded):
        out.append(Problem(field="approval_digest", at_key=False,
                           reason="it was approved under the old digest format",
                           message=f"{label} was approved under the old digest format ({quoted(recorded)}: 48 bits,"
                           " blind to dependencies and paths), which binds too little to be current: approve it again",
                           hint=_approve_hint(item.id)))
        return out
    coverage = cover()
    if recorded == coverage.digest:
        return out
    covers = coverage.covers
    what = (f"it covers {len(covers)} item{'' if len(covers) == 1 else 's'} ({names(covers)})"
            if covers else "it covers nothing now (no irreversible item depends on it)")
    out.append(Problem(field="approval_digest", at_key=False, reason="what it covers changed",
                       message=f"{label} is a stale approval: {what}, and what it covers changed since it was approved"
                       f" (digest {quoted(clip(recorded))} recorded, {coverage.digest} now)",
                       hint=_approve_hint(item.id)))
    return out


class State(NamedTuple):
    """An item that records an approval, or is one, as the compiled plan and ``diff`` see it."""

    state: str  # "current" (recorded, and it holds), "stale" (recorded, and it does not: EP111), "unrecorded"
    coverage: Coverage | None  # None for an item that records an approval but is none
    reasons: tuple[str, ...]  # why it is stale (Problem.reason)


def states(items: tuple[Item, ...]) -> dict[str, State]:
    """The state of each approval item, and of each item that records an approval without being
    one, by id (the first item of an id): none for a plan without either."""
    out: dict[str, State] = {}
    for ident, item in first_items(items).items():
        if not item.options:
            continue
        approval = is_approval(item)
        recorded = any(item.option(key) is not None for key in RECORD)
        if not approval and not recorded:
            continue
        cover: Coverage | None = None
        if approval:
            cover = graph_of(items).coverage(ident)
        found = problems(item, (lambda c=cover: c) if cover is not None else None)  # type: ignore[misc]
        state = "unrecorded" if not recorded else "stale" if found else "current"
        out[ident] = State(state, cover, tuple(p.reason for p in found))
    return out
