"""The fast path: a plainly valid item becomes an Item without pydantic.

A mapping whose keys are all declared fields of kinds this module knows, each of exactly its
type, is read here; it decides nothing else and returns None for anything it is not sure of,
which then goes to the input model (compiler/model/items.py), the validator of record and the
source of every message. A field of a kind without a fast check (compiler/model/kinds.py:
``plain``) sends its items to the input model: a new field costs speed there, never correctness.

A differential property test (tests/model/test_fields.py) holds the fast path to the input model: every
item it accepts, the input model accepts with the same result and no diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compiler.core.display import clip, quoted
from compiler.load.sourcemap import Path
from compiler.model import fields
from compiler.model.kinds import KIND_SPECS
from compiler.model.messages import Collector, meant_field, renamed
from compiler.model.references import parse_object, parse_reference
from compiler.model.values import Evidence, Item

_ITEM_KEYS = fields.names(fields.ITEM_FIELDS)
_ITEM_ALIASES = fields.aliases(fields.ITEM_FIELDS)
_OPTIONS = tuple(f for f in fields.ITEM_FIELDS if f.name not in fields.COMMITMENTS)

# An option's kind says whether the fast path can decide it (compiler/model/kinds.py: ``plain``): a
# kind without a fast check is not the fast path's to decide, and an item that gives such a field
# goes to the input model.
_PLAIN_OPTIONS: dict[str, Callable[[Any], bool]] = {
    kind: check for kind, spec in KIND_SPECS.items() if (check := spec.plain) is not None}


def _plain_check(field: fields.Field) -> Callable[[Any], bool]:
    """The fast path's check of an option: its kind's, and for a choice, one of its words."""
    plain = _PLAIN_OPTIONS[field.kind]
    if not field.choices:
        return plain
    words = frozenset(field.choices)
    return lambda value: plain(value) and value in words


# The keys the fast path decides: the five commitments (checked below) and the options it can.
PLAIN_KEYS = frozenset((*fields.COMMITMENTS, *_ITEM_ALIASES,
                        *(f.name for f in _OPTIONS if f.kind in _PLAIN_OPTIONS)))
_PLAIN_OPTION_CHECKS = tuple((f.name, _plain_check(f), KIND_SPECS[f.kind].remade) for f in _OPTIONS
                             if f.kind in _PLAIN_OPTIONS)
_COMMITMENT_KEYS = frozenset(fields.COMMITMENTS)


def plain_item(raw: Any, index: int) -> Item | None:
    """The common case, without pydantic: a mapping of exactly-typed declared fields whose
    evidence is all in the string form or plain objects. Returns None for anything else, which then
    goes through the input model (the validator of record, and the source of every message)."""
    if type(raw) is not dict or not raw.keys() <= PLAIN_KEYS:
        return None
    ident, change, proof = raw.get("id"), raw.get("change", ""), raw.get("proof", "")
    evidence, depends_on = raw.get("evidence", []), raw.get("depends_on", [])
    depends_key = "depends_on"
    if "dependencies" in raw:  # the alias: alone it is depends_on; beside it, the input model's to refuse
        if "depends_on" in raw:
            return None
        depends_on, depends_key = raw["dependencies"], "dependencies"
    if (type(ident) is not str or type(change) is not str or type(proof) is not str
            or type(evidence) is not list or type(depends_on) is not list or not ident.strip()):
        return None
    for dep in depends_on:
        if type(dep) is not str:
            return None
    parsed = []
    for entry in evidence:
        ev = parse_reference(entry)[0] if type(entry) is str else _plain_evidence(entry)
        if ev is None:
            return None
        parsed.append(ev)
    options: tuple[tuple[str, Any], ...] = ()
    if _PLAIN_OPTION_CHECKS and not raw.keys() <= _COMMITMENT_KEYS:  # an option is given: by its kind
        found = []
        for name, plain, remade in _PLAIN_OPTION_CHECKS:
            if name in raw:
                if not plain(raw[name]):
                    return None
                found.append((name, raw[name] if remade is None else remade(raw[name])))
        options = tuple(found)
    # Item.__new__ called directly takes keywords without the dict that Item(...) gathers them in
    # (type.__call__): by name, and faster than by position (compiler/model/values.py: Item).
    return Item.__new__(Item, id=ident, change=change, evidence=tuple(parsed), depends_on=tuple(depends_on),
                        proof=proof, position=index, depends_key=depends_key, options=options)


def plain_item_with_unknown_keys(raw: Any, index: int, base: Path, col: Collector) -> Item | None:
    """The commonest mistake, decided without pydantic: a plainly valid item but for keys the
    format does not define (a misspelt ``depend_on``). Reports each as the input model's path
    does (EP010, with the same did-you-mean) and returns the item as read without them, or None
    when the rest is not plainly valid either. The differential test holds the two paths to the
    same diagnostics and the same item (tests/model/test_fields.py)."""
    if type(raw) is not dict:
        return None
    unknown = [key for key in raw if key not in _ITEM_KEYS]
    if not unknown or not all(type(key) is str for key in unknown):
        return None
    item = plain_item({k: v for k, v in raw.items() if k in _ITEM_KEYS}, index)
    if item is None:
        return None
    label = clip(item.id)
    for key in unknown:
        meant = meant_field(key, fields.ITEM_FIELDS)
        col.add("EP010", f"{label} has unknown field {quoted(key)}" + (f" (did you mean {meant}?)" if meant else ""),
                item.id, (*base, key), key=True, fix=renamed(label, raw, (*base, key), meant, fields.ITEM_FIELDS))
    return item._replace(broken=tuple(unknown))


# The evidence object's fields, by their kinds, as the fast path takes them.
_EVIDENCE_TYPES = {f.name: plain_type for f in fields.EVIDENCE_FIELDS
                   if (plain_type := KIND_SPECS[f.kind].plain_type) is not None}


class _Fields:
    """Attribute access to an evidence mapping, as parse_object expects of a validated model."""

    __slots__ = tuple(f.name for f in fields.EVIDENCE_FIELDS)

    def __init__(self, entry: dict[str, Any]) -> None:
        for key in self.__slots__:
            setattr(self, key, entry.get(key))


def _plain_evidence(entry: Any) -> Evidence | None:
    """The object form without pydantic, when every field has exactly its type (else None)."""
    if type(entry) is not dict:
        return None
    for key, value in entry.items():
        expected = _EVIDENCE_TYPES.get(key)
        if expected is None or value is None or type(value) is bool or not isinstance(value, expected):
            return None
    return parse_object(_Fields(entry))[0]  # type: ignore[arg-type]
