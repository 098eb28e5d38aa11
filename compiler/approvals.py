"""Approval gates: which irreversible items an approval precedes, what it covers, its digest, and
the record that `evidence-plan approve` writes into the plan.

- An item of ``kind: approval`` is a checkpoint a person passes. An ``irreversible: true`` item
  must have one among its transitive dependencies (EP310, compiler/checks/gates.py).
- What an approval *covers*: the irreversible items that depend on it (directly or through
  others), and everything those items depend on, transitively: the approval itself, what precedes
  it, and the other branches that lead into the irreversible items. That is what a person signs
  off when they pass the gate: what will be done, irreversibly, and everything it rests on.
- Its *digest*: the first 12 hex digits of the SHA-256 of the canonical JSON (sorted keys, no
  spaces, UTF-8) of the covered items' ids and the digest of each one's content (its change,
  evidence as normalized entries, proof and irreversible flag; the approval records are left
  out, so that passing one gate never makes another stale). Any edit to a covered item, an item
  joining or leaving the covered set, changes it; an edit to any other item does not.
- A recorded digest that no longer matches is a stale approval (EP111). One digest cannot tell
  which covered item changed; the message names the covered items, and the compiled JSON lists
  them with the digest they have now (see ``coverage``).

Plain data over the validated items; no networkx, nothing imported that `check` must not import.
Every pass is iterative (no recursion on the graph's depth). The gate check (``ungated``) is one
pass in topological order; a digest is one walk down and one walk up from its approval, so all
the digests of a plan cost O(approvals x (items + dependencies)).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from compiler.values import Item

APPROVAL = "approval"
RECORD = ("approved_by", "approved_at", "approval_digest")  # the fields `approve` writes, in its order
DIGEST_LENGTH = 12
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

    One pass in topological order, carrying for each item whether an approval precedes it: an
    item is gated when one of its dependencies is an approval or is gated itself. Linear in items
    + dependencies. The order is compiler/graph.py's plain_waves (one pass for a plan written in
    order, else Kahn's algorithm). Items on or after a cycle are never reached: the cycle is reported (EP303), and
    they are not judged here. Unknown dependencies and self-dependencies are left out, as the
    graph leaves them."""
    first = first_items(items)
    irreversible = {ident for ident, item in first.items() if item.options and is_irreversible(item)}
    if not irreversible:
        return []
    from compiler.graph import plain_waves

    order = list(plain_waves(first.values()))  # a topological order, without what a cycle holds back
    passes: set[str] = set()  # the items whose dependents are gated: approvals, and gated items
    ungated_ids = []
    for ident in order:
        item = first[ident]
        gated = False
        for dep in item.depends_on:
            if dep in passes and dep != ident:
                gated = True
                break
        if gated or (item.options and is_approval(item)):
            passes.add(ident)
        if ident in irreversible and not gated:
            ungated_ids.append(ident)
    if len(order) < len(first):  # not reached: on or after a cycle
        ungated_ids = [ident for ident in ungated_ids if ident in set(order)]
    chosen = set(ungated_ids)
    return [item for ident, item in first.items() if ident in chosen]


def item_digest(item: Item) -> str:
    """The digest of one item's content, as an approval binds it: its change, evidence
    (normalized: the same entry written another way is the same), proof and irreversible flag."""
    content = {"id": item.id, "change": item.change, "evidence": [e.to_dict() for e in item.evidence],
               "proof": item.proof, "irreversible": is_irreversible(item)}
    return _digest(content)


def _digest(value: Any) -> str:
    import hashlib  # on first use: 3 ms of start-up that a plan without approvals does not pay
    import json

    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_LENGTH]


class Coverage(NamedTuple):
    """What one approval covers, and its digest as the plan stands."""

    gates: tuple[str, ...]  # the irreversible items that depend on it, in the plan's order
    covers: tuple[str, ...]  # those and everything they depend on, in the plan's order
    digest: str


def coverage(items: tuple[Item, ...], approval: str) -> Coverage:
    """What the approval with id ``approval`` covers (see the module's docstring) and its digest."""
    return _Graph(items).coverage(approval)


class _Graph:
    """Each id's first item and its dependents, built once for all of a plan's approvals."""

    def __init__(self, items: tuple[Item, ...]) -> None:
        self.first = first_items(items)
        self.dependents: dict[str, list[str]] = {}
        for ident, item in self.first.items():
            for dep in item.depends_on:
                if dep != ident and dep in self.first:
                    self.dependents.setdefault(dep, []).append(ident)

    def coverage(self, approval: str) -> Coverage:
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
        digest = _digest(sorted([ident, item_digest(first[ident])] for ident in order))
        return Coverage(tuple(gates), tuple(order), digest)


class State(NamedTuple):
    """An approval item as the compiled plan shows it."""

    state: str  # "current" (recorded, digest matches), "stale" (recorded, it does not), "unrecorded"
    coverage: Coverage


def states(items: tuple[Item, ...]) -> dict[str, State]:
    """Each approval item's state, by id (the first item of an id): none for a plan without one."""
    out: dict[str, State] = {}
    graph: _Graph | None = None
    for ident, item in first_items(items).items():
        if not is_approval(item):
            continue
        graph = graph or _Graph(items)
        cover = graph.coverage(ident)
        recorded = item.option("approval_digest")
        state = "unrecorded" if recorded is None else "current" if recorded == cover.digest else "stale"
        out[ident] = State(state, cover)
    return out


# --- recording an approval: `evidence-plan approve` ---------------------------------------------


class Refused(Exception):
    """An approval that cannot be recorded: an unknown id, an item that is no approval, or a plan
    blocked by other problems (``blocking``); nothing was written."""

    def __init__(self, message: str, location: Any = None, blocking: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.location = location
        self.blocking = blocking


class Approved(NamedTuple):
    name: str
    original: str
    fixed: str  # the plan's text with the record written
    coverage: Coverage
    record: tuple[tuple[str, str], ...]  # (field, value), in the order written


def now() -> str:
    """The current UTC time to the second, as ``approve`` records it by default: the only clock
    any command reads (compile's output stays the same for the same plan)."""
    from datetime import UTC, datetime

    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def approve_document(doc: Any, text: str, path: str, ident: str, by: str, at: str, *,
                     root: str | None = None) -> Approved:
    """The plan's text with the approval ``ident`` recorded: ``approved_by``, ``approved_at`` and
    the ``approval_digest`` of what it covers now, each replaced where the item gives it, else
    added after its last key. A YAML plan keeps every other byte (compiler/fix.py's editor); a
    JSON plan is rewritten in convert's layout. The edited text is read back, and must give exactly
    the intended data and an approval that is current, or nothing is returned.

    A plan blocked by anything but this approval's own record (EP111, which recording it mends)
    is refused: the digest binds the covered items' content, and a person should not sign off
    content that must still change to compile, nor a graph whose cycle makes "what it covers"
    meaningless. Raises Refused."""
    from compiler.compile import compile_document
    from compiler.diagnostics import Location, did_you_mean
    from compiler.display import quoted
    from compiler.fix import apply_to_data, apply_to_yaml
    from compiler.load import parse_text

    result = compile_document(doc, path, root=root, order=False)
    plan = result.plan
    item = first_items(plan.items).get(ident)
    if item is None:
        candidates = [i.id for i in plan.items if is_approval(i)] or [i.id for i in plan.items]
        raise Refused(f"the plan has no item {quoted(ident)}{did_you_mean(ident, candidates)}", Location(doc.name))
    smap = doc.source_map

    def where(*rest: Any, key: bool = False) -> Location:
        at_path = (*plan.items_path, item.position, *rest)
        pos = smap.key(at_path) if key else smap.value(at_path)
        return Location(doc.name, *pos) if pos else Location(doc.name)

    if not is_approval(item):
        raise Refused(f"{quoted(ident)} is not an approval: only an item with kind: approval is approved", where("id"))
    blocking = tuple(d for d in result.diagnostics
                     if d.severity == "error" and not (d.code == "EP111" and d.item == ident))
    if blocking:
        raise Refused(f"the plan is blocked by {len(blocking)} other problem{'' if len(blocking) == 1 else 's'}:"
                      " fix them first (an approval binds the content it covers)", Location(doc.name), blocking)
    cover = coverage(plan.items, ident)
    record = (("approved_by", by), ("approved_at", at), ("approval_digest", cover.digest))
    base = (*plan.items_path, item.position)
    edits = [((*base, key), value) for key, value in record]
    intended = apply_to_data(doc.data, edits)
    if doc.format == "json":
        from compiler.convert import dump_json

        fixed = dump_json(intended)
    else:
        fixed = text
        for edit in edits:  # one at a time: each added key goes after the one before
            fixed = apply_to_yaml(fixed, [edit])
    again = parse_text(fixed, doc.name, doc.format)
    if again.data != intended:
        raise Refused("the edited file would not read back as intended; nothing was written", Location(doc.name))
    after = compile_document(again, path, root=root, order=False, verify_evidence=False)
    state = states(after.plan.items).get(ident)
    if state is None or state.state != "current":
        raise Refused("the recorded approval would not be current; nothing was written", Location(doc.name))
    return Approved(doc.name, text, fixed, cover, record)
