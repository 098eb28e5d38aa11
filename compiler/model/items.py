"""An item that is not plainly valid, read through the input model: its fields and its evidence entries.

The input model (compiler/model/input_model.py, pydantic) is the validator of record; its errors
become diagnostics in our words (compiler/model/messages.py). One bad field never hides the
item's other problems: the fields that could be read are read again without the others, an
evidence entry that cannot be read is reported and left out, and the item names the keys it
could not read (``Item.broken``), which the rules about those fields leave alone. An item that
nothing can name (not a mapping, no usable id) is reported and left out. Plainly valid items
never come here (compiler/model/plain.py).
"""

from __future__ import annotations

from typing import Any, cast

from compiler.core import globs
from compiler.core.diagnostics import Fix
from compiler.core.display import clip, kind_of, quoted
from compiler.load.sourcemap import Path
from compiler.model import fields
from compiler.model.messages import Collector
from compiler.model.references import EvidenceFields, other_notation, parse_object, parse_reference
from compiler.model.values import Evidence, Item

_ITEM_KEYS = fields.names(fields.ITEM_FIELDS)
_ITEM_ALIASES = fields.aliases(fields.ITEM_FIELDS)
_OPTIONS = tuple(f for f in fields.ITEM_FIELDS if f.name not in fields.COMMITMENTS)


def item_label(raw: Any, index: int) -> tuple[str, str | None]:
    """How messages name an item: its id when it has a usable one, else 'item N'."""
    if isinstance(raw, dict):
        ident = raw.get("id")
        if isinstance(ident, str) and ident.strip():
            return clip(ident), ident
    return f"item {index + 1}", None


def validate_item(raw: Any, index: int, base: Path, col: Collector) -> Item | None:
    label, item_id = item_label(raw, index)
    if not isinstance(raw, dict):
        col.add("EP011", f"{label} must be a mapping with id, change, evidence, depends_on and proof,"
                f" not {kind_of(raw)}", None, base)
        return None
    # A key left blank (`proof:` with nothing after it) means the same as a missing one, so it
    # gets the rule's own message ("a has no proof command"), not a type error about null.
    data = {k: v for k, v in raw.items() if v is not None or k not in _ITEM_KEYS}
    broken: list[str] = []  # the keys, as the file gives them, that could not be read
    used: dict[str, str] = {}  # a field's name -> the key the file gave it under (an alias or its own)
    for alias, name in _ITEM_ALIASES.items():
        if alias not in data:
            continue
        if name in data:
            col.add("EP013", f"{label} gives both {name} and {alias} (an alias): keep one", item_id,
                    (*base, alias), key=True)
            broken.append(alias)
        else:
            data[name] = data[alias]
            used[name] = alias
        del data[alias]
    dep_key = used.get("depends_on", "depends_on")
    parts = 1
    proof = data.get("proof")
    if isinstance(proof, list) and all(isinstance(c, str) for c in proof):
        commands = [c.strip() for c in proof if c.strip()]
        data["proof"], parts = " && ".join(commands), len(commands)
    from pydantic import ValidationError

    from compiler.model.input_model import WorkItem

    try:
        model = WorkItem.model_validate(data)
    except ValidationError as err:
        # Locations and messages use the file's own key (dependencies, when the alias was used).
        col.pydantic(err, data, base, label, item_id, fields.ITEM_FIELDS, rename=used)
        # The rest of the item is still checked, so that one misspelt key does not hide the
        # item's other problems: the fields that could be read, read again without the others.
        failed = {e["loc"][0] for e in err.errors(include_url=False, include_input=False) if e["loc"]}
        broken += [used.get(k, k) for k in data if k in failed or k not in _ITEM_NAMES]
        try:
            model = WorkItem.model_validate({k: v for k, v in data.items() if k in _ITEM_NAMES and k not in failed})
        except ValidationError:
            return None  # the id itself: nothing to name the item by (its one problem is reported)
    return _finish(model, data, index, base, col, label, item_id, dep_key, parts, broken)


_ITEM_NAMES = frozenset(f.name for f in fields.ITEM_FIELDS)


def _notation_fix(label: str, entry: str, path: Path) -> Fix | None:
    """EP014's fix for another tool's line notation (``src/x.py#L73-L239``): the reference it
    means (``src/x.py:73-239``), the same lines, so safe; none when that does not read either."""
    other = other_notation(entry.strip())
    if other is None or parse_reference(other[1])[1] is not None:
        return None
    return Fix(message=f"{label}: {quoted(entry)} -> {quoted(other[1])}", applicability="safe",
               changes=((path, other[1]),))


def _finish(model: Any, data: dict[str, Any], index: int, base: Path, col: Collector, label: str,
            item_id: str | None, dep_key: str = "depends_on", parts: int = 1,
            broken: list[str] | None = None) -> Item | None:
    """A validated model -> an Item: the empty-id rule and the evidence references. Evidence
    entries that cannot be read are reported and left out; the others are still checked."""
    broken = broken if broken is not None else []
    if not model.id.strip():
        col.add("EP012", f"{label} has an empty id", None, (*base, "id"))
        broken.append("id")
    evidence: list[Evidence] = []
    at: list[int] = []
    bad = False
    for j, entry in enumerate(model.evidence):
        epath = (*base, "evidence", j)
        if isinstance(entry, str):
            ev, problem = parse_reference(entry)
            if problem:
                col.add("EP014", f"{label}: {problem}", item_id, epath, fix=_notation_fix(label, entry, epath))
                bad = True
            elif ev is not None:
                evidence.append(ev)
                at.append(j)
        elif isinstance(entry, dict):
            from pydantic import ValidationError

            from compiler.model.input_model import EvidenceObject

            try:
                obj = EvidenceObject.model_validate(entry)
            except ValidationError as err:
                col.pydantic(err, entry, epath, f"{label} evidence {j + 1}", item_id, fields.EVIDENCE_FIELDS)
                bad = True
                continue
            ev, problem, field = parse_object(cast(EvidenceFields, obj))
            if problem:
                col.add("EP014", f"{label}: {problem}", item_id, (*epath, field) if field in entry else epath)
                bad = True
            elif ev is not None:
                evidence.append(ev)
                at.append(j)
        else:
            col.add("EP011", f"{label}: evidence[{j}] must be text or a mapping, not {kind_of(entry)}", item_id,
                    epath)
            bad = True
    if bad:
        broken.append("evidence")
    for f in _OPTIONS:  # what a kind's type cannot say: a path's grammar (EP018), each entry at its place
        if f.kind == "paths" and f.name in data and f.name not in broken:
            for j, text in enumerate(getattr(model, f.name)):
                if (why := globs.problem(text)) is not None:
                    meant = globs.repaired(text)
                    col.add("EP018", f"{label}: {why}", item_id, (*base, f.name, j), fix=None if meant is None else Fix(
                        message=f"{label}: {quoted(text)} -> {quoted(meant)}", applicability="safe",
                        changes=(((*base, f.name, j), meant),)))
                    broken.append(f.name)
    if "id" in broken:
        return None  # nothing to name the item by: its problems are reported, and it is checked no further
    options = tuple((f.name, getattr(model, f.name)) for f in _OPTIONS if f.name in data and f.name not in broken)
    return Item(id=model.id, change=model.change, evidence=tuple(evidence), depends_on=tuple(model.depends_on),
                proof=model.proof, position=index, depends_key=dep_key, proof_parts=parts, options=options,
                broken=tuple(dict.fromkeys(broken)), evidence_at=tuple(at) if len(at) < len(model.evidence) else ())


def strip_compiled(entry: Any) -> Any:
    """A compiled file's items carry output-only facts (their wave, where a symbol was found):
    dropped on the way back in."""
    if not isinstance(entry, dict):
        return entry
    out = {k: v for k, v in entry.items() if k not in fields.COMPILED_ITEM_KEYS}
    if isinstance(out.get("evidence"), list):
        out["evidence"] = [
            {k: v for k, v in ev.items() if k not in fields.COMPILED_EVIDENCE_KEYS} if isinstance(ev, dict) else ev
            for ev in out["evidence"]
        ]
    return out
