"""Stage 2: plain data -> a validated Plan, every problem a located diagnostic.

The fields are declared in compiler/model/fields.py. ``build_plan`` reads the plan's own fields
(its name, goal, root, claims and budget, any other declared one by its kind) here, and each item
by one of two paths:

- the fast path (compiler/model/plain.py): a plainly valid item becomes an Item without pydantic;
- the input model (compiler/model/items.py) reads every other item, its errors said in our words
  (compiler/model/messages.py): one bad item never hides the others, and no pydantic text
  reaches a user.

A differential property test (tests/model/test_fields.py) holds the fast path to the input model: every
item it accepts, the input model accepts with the same result and no diagnostic.
"""

from __future__ import annotations

from typing import Any, cast

from compiler.core.diagnostics import closest
from compiler.core.display import kind_of, quoted
from compiler.load.document import Document, plan_shape
from compiler.model import fields
from compiler.model.items import item_label, strip_compiled, validate_item
from compiler.model.kinds import CLAIM_UNIT, KIND_SPECS, plain_parts
from compiler.model.messages import Collector, meant_field, renamed
from compiler.model.plain import plain_item, plain_item_with_unknown_keys
from compiler.model.values import PLAN_ATTRIBUTES, Item, Plan

_PLAN_KEYS = fields.names(fields.PLAN_FIELDS)
_COMPILED_KEYS = _PLAN_KEYS + fields.COMPILED_PLAN_KEYS
_PLAN_TEXT = tuple(f.name for f in fields.PLAN_FIELDS if f.kind == "optional-text")
# The declared plan fields that are not the Plan's own attributes: read by their kind, kept as options.
_PLAN_OPTIONS = tuple(f for f in fields.PLAN_FIELDS if f.kind != "items" and f.name not in PLAN_ATTRIBUTES)


def build_plan(doc: Document) -> Plan:
    """Validate a loaded document. Bad items become diagnostics; only a non-plan raises."""
    meta, raw_items, items_path = plan_shape(doc)
    col = Collector(doc)
    compiled = isinstance(meta.get("format"), str) and meta["format"].startswith("evidence-plan")
    allowed = _COMPILED_KEYS if compiled else _PLAN_KEYS
    for key in meta:
        if key not in allowed:
            meant = meant_field(key, fields.PLAN_FIELDS) if not compiled else closest(key, allowed)
            fix = None if compiled else renamed("plan", meta, (key,), meant, fields.PLAN_FIELDS)
            col.add("EP010", f"unknown plan field {quoted(key)}" + (f" (did you mean {meant}?)" if meant else ""), None,
                    (key,), key=True, fix=fix)
    text_meta: dict[str, str | None] = {}
    for key in _PLAN_TEXT:
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            col.add("EP011", f"plan field {key} must be text, not {kind_of(value)}", None, (key,))
            value = None
        text_meta[key] = value

    claims = _claims(meta.get("claims"), col) if meta.get("claims") is not None else ()
    budget = _budget(meta["budget"], col) if meta.get("budget") is not None else None
    options = tuple((f.name, value) for f in _PLAN_OPTIONS
                    if (value := _plan_option(f, meta, text_meta, col)) is not None)
    unread: list[tuple[str, ...]] = []
    if compiled:  # compiler/model/readback.py: what the compile could not read stays unread
        from compiler.model import readback

        col.out.extend(readback.recorded_issues(doc, meta))
        unread = [readback.unread_keys(entry) for entry in raw_items]
        raw_items = [strip_compiled(entry) for entry in raw_items]
    items: list[Item] = []
    unnamed: list[Item] = []
    id_indexes: list[tuple[str, int]] = []
    for index, raw in enumerate(raw_items):
        if unread and unread[index]:
            read = _unread(raw, index, unread[index], (*items_path, index), col)
            if read.id:
                items.append(read)
                id_indexes.append((read.id, index))
            else:
                unnamed.append(read)
            continue
        item = plain_item(raw, index)
        if item is None:
            item = plain_item_with_unknown_keys(raw, index, (*items_path, index), col)
        if item is not None:
            items.append(item)
            id_indexes.append((item.id, index))
            continue
        _, ident = item_label(raw, index)
        if ident is not None:
            id_indexes.append((ident, index))
        # Anything unusual: the input model validates it and says where it is wrong.
        item = validate_item(raw, index, (*items_path, index), col)
        if item is not None:
            items.append(item)
        else:
            change = raw.get("change") if isinstance(raw, dict) else None
            unnamed.append(Item(id=ident or "", change=change if isinstance(change, str) else "", evidence=(),
                                depends_on=(), proof="", position=index, broken=("id",)))
    return Plan(
        name=text_meta["plan"],
        goal=text_meta["goal"],
        root=text_meta["root"],
        items=tuple(items),
        item_count=len(raw_items),
        known_ids=frozenset([ident for ident, _ in id_indexes]),
        id_indexes=tuple(id_indexes),
        items_path=items_path,
        diagnostics=tuple(col.out),
        unnamed=tuple(unnamed),
        claims=claims,
        budget=budget,
        options=options,
        item_options=frozenset([key for item in items if item.options for key, _ in item.options]),
    )


def _unread(raw: Any, index: int, unread: tuple[str, ...], base: tuple[Any, ...], col: Collector) -> Item:
    """A compiled item that lists keys it could not read: read as it stands, those keys marked unread
    again; one whose id could not be read stays unnamed."""
    from compiler.model.readback import unnamed_item

    if "id" in unread:
        return unnamed_item(raw, index, unread)
    item = plain_item(raw, index) or validate_item(raw, index, base, col)
    if item is None:  # a compiled item edited by hand so that nothing names it
        return unnamed_item(raw, index, ("id", *unread))
    return item._replace(broken=tuple(dict.fromkeys((*item.broken, *unread))))


def _plan_option(field: fields.Field, meta: dict[str, Any], text_meta: dict[str, str | None],
                 col: Collector) -> Any:
    """A declared plan field that is no attribute of the Plan, by its kind: a plainly valid value as
    it stands (compiler/model/kinds.py), any other through the input model, its errors in our words;
    None when the plan does not give it or it cannot be read."""
    if field.name in text_meta:  # text: read above
        return text_meta[field.name]
    raw = meta.get(field.name)
    if raw is None:
        return None
    kind = KIND_SPECS[field.kind]
    if kind.plain is not None and kind.plain(raw):
        return raw if kind.remade is None else kind.remade(raw)
    from pydantic import ValidationError

    from compiler.model.input_model import PlanFile

    try:
        return getattr(PlanFile.model_validate({field.name: raw, "items": []}), field.name)
    except ValidationError as err:
        col.pydantic(err, {field.name: raw}, (), "plan", None, fields.PLAN_FIELDS)
        return None


_CLAIM_FIELDS = tuple(fields.Field(part, "text", "") for part, _ in fields.CLAIM_PARTS)
_BUDGET_FIELDS = tuple(fields.Field(part, "optional-line", "") for part, _ in fields.BUDGET_PARTS)


def _budget(raw: Any, col: Collector) -> dict[str, int] | None:
    """The plan's budget: plainly valid (known parts, each a whole number of at least 1), or as the
    input model reads it, its errors in our words; None when it cannot be read (nothing is limited)."""
    if KIND_SPECS["budget"].plain(raw):  # type: ignore[misc]  # the budget's kind has a fast check
        return dict(raw)
    if not isinstance(raw, dict):
        parts = ", ".join(part for part, _ in fields.BUDGET_PARTS)
        col.add("EP011", f"plan field budget must be a mapping with {parts}, not {kind_of(raw)}", None, ("budget",))
        return None
    from pydantic import TypeAdapter, ValidationError

    from compiler.model.annotations import Budget

    try:
        return cast(dict[str, int], TypeAdapter(Budget).validate_python(raw))
    except ValidationError as err:
        col.pydantic(err, raw, ("budget",), "budget", None, _BUDGET_FIELDS)
        return None


def _claims(raw: Any, col: Collector) -> tuple[tuple[int, dict[str, Any]], ...]:
    """The plan's claims: each plainly valid one as it is, any other through the input model (the
    validator of record), whose errors are said in our words; a claim that cannot be read is left out."""
    if type(raw) is not list:
        col.add("EP011", f"plan field claims must be a list, not {kind_of(raw)}", None, ("claims",))
        return ()
    out = []
    for j, entry in enumerate(raw):
        claim = plain_parts(entry, fields.CLAIM_PARTS, CLAIM_UNIT)
        if claim is None:
            claim = _model_claim(entry, j, col)
        if claim is not None:
            out.append((j, claim))
    return tuple(out)


def _model_claim(entry: Any, j: int, col: Collector) -> dict[str, Any] | None:
    label = f"claim {j + 1}"
    if not isinstance(entry, dict):
        col.add("EP011", f"{label} must be a mapping with {', '.join(p for p, _ in fields.CLAIM_PARTS)}, not"
                f" {kind_of(entry)}", None, ("claims", j))
        return None
    from pydantic import TypeAdapter, ValidationError

    from compiler.model.annotations import Claim

    try:
        return cast(dict[str, Any], TypeAdapter(Claim).validate_python(entry))
    except ValidationError as err:
        col.pydantic(err, entry, ("claims", j), label, None, _CLAIM_FIELDS)
        return None
