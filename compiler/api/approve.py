"""The library half of `evidence-plan approve`: the record of an approval (``approved_by``,
``approved_at``, ``approval_digest``) written into the plan, keeping every other byte, and read
back before it is returned. What an approval covers and its digest: compiler/analysis/approvals.py."""

from __future__ import annotations

from typing import Any, NamedTuple

from compiler.analysis.approvals import Coverage, coverage, first_items, is_approval, states


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
    added after its last key. A YAML plan keeps every other byte (compiler/api/edit.py); a
    JSON plan is rewritten in convert's layout. The edited text is read back, and must give exactly
    the intended data and an approval that is current, or nothing is returned.

    A plan blocked by anything but this approval's own record (EP111, which recording it mends)
    is refused: the digest binds the covered items' content, and a person should not sign off
    content that must still change to compile, nor a graph whose cycle makes "what it covers"
    meaningless. Raises Refused."""
    from compiler.api.edit import apply_to_data, apply_to_yaml
    from compiler.compile.pipeline import compile_document
    from compiler.core.diagnostics import Location, did_you_mean
    from compiler.core.display import quoted
    from compiler.load.document import parse_text

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
        from compiler.api.convert import dump_json

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
    return Approved(name=doc.name, original=text, fixed=fixed, coverage=cover, record=record)
