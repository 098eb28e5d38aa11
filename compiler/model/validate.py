"""Stage 2: plain data -> validated work items, every problem a located diagnostic.

The fields are declared in compiler/model/fields.py. Two paths read them:

- the fast path (``plain_item``): a mapping whose keys are all declared fields of kinds it knows,
  each of exactly its type, becomes an Item without pydantic; it decides nothing else and returns
  None for anything it is not sure of;
- the input model (compiler/model/input_model.py, pydantic) validates every other item, and this module
  turns its errors into the project's diagnostics, in our words: one bad item never hides the
  others, and no pydantic text reaches a user.

A differential property test (tests/test_fields.py) holds the fast path to the input model: every
item it accepts, the input model accepts with the same result and no diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from compiler.core import globs
from compiler.core.diagnostics import Diagnostic, Location, did_you_mean
from compiler.core.display import clip, kind_of, quoted
from compiler.load.document import Document, plan_shape
from compiler.load.sourcemap import Path
from compiler.model import fields
from compiler.model.references import EvidenceFields, parse_object, parse_reference
from compiler.model.values import Evidence, Item, Plan

if TYPE_CHECKING:
    from pydantic import ValidationError

_ITEM_KEYS = fields.names(fields.ITEM_FIELDS)
_ITEM_ALIASES = fields.aliases(fields.ITEM_FIELDS)
# The five commitments are the Item's own attributes; any other declared item field is an option.
COMMITMENTS = ("id", "change", "evidence", "depends_on", "proof")
_OPTIONS = tuple(f for f in fields.ITEM_FIELDS if f.name not in COMMITMENTS)

# What pydantic calls each kind of type it expects, in our words.
_EXPECTED = {
    "string_type": "text",
    "list_type": "a list",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "model_type": "a mapping",
    "dict_type": "a mapping",
    "number_type": "a number",
    "finite_number": "a finite number",
}
# The parts of the item fields that are objects, for did-you-mean inside them.
_PARTS_OF = {f.name: tuple(part for part, _ in fields.ESTIMATE_PARTS) for f in fields.ITEM_FIELDS
             if f.kind == "optional-estimate"}


def expected_words(error: dict[str, Any]) -> str:
    """What a pydantic error says was expected, in our words (never pydantic's sentence)."""
    kind = error["type"]
    if kind == "union":
        return str(error["words"])
    if kind in _EXPECTED:
        return _EXPECTED[kind]
    if kind in ("literal_error", "enum"):
        choices = (error.get("ctx") or {}).get("expected", "")
        return str(choices) if " or " in str(choices) else f"one of {choices}" if choices else "one of its values"
    if kind.startswith("greater_than") or kind.startswith("less_than"):
        limit = (error.get("ctx") or {})
        bound = limit.get("ge", limit.get("gt", limit.get("le", limit.get("lt", ""))))
        words = {"greater_than_equal": "at least", "greater_than": "more than", "less_than_equal": "at most",
                 "less_than": "less than"}
        return f"{words.get(kind, kind)} {bound}"
    return "a value of its field's type"  # never pydantic's own sentence


def value_at(data: Any, loc: tuple[Any, ...]) -> Any:
    """The value at a path of keys and indexes, or None where there is none."""
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _field_name(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")


class _Collector:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.out: list[Diagnostic] = []

    def loc(self, path: Path, *, key: bool = False) -> Location:
        smap = self.doc.source_map
        pos = smap.key(path) if key else smap.value(path)
        return Location(self.doc.name, *pos) if pos else Location(self.doc.name)

    def add(self, code: str, message: str, item: str | None, path: Path, *, key: bool = False,
            hint: str | None = None) -> None:
        self.out.append(Diagnostic(code, message, item, self.loc(path, key=key), hint=hint))

    def pydantic(self, err: ValidationError, raw: Any, base: Path, label: str, item: str | None,
                 declared: tuple[fields.Field, ...], rename: dict[str, str] | None = None) -> None:
        for e in _unions_joined(err.errors(include_url=False, include_input=False), raw):
            value = value_at(raw, tuple(e["loc"]))
            loc = tuple(e["loc"])
            if rename and loc and loc[0] in rename:
                loc = (rename[loc[0]], *loc[1:])
            kind = e["type"]
            if kind == "extra_forbidden" and len(loc) > 1:  # inside an object field (an estimate)
                name = str(loc[-1])
                hint = did_you_mean(name, _PARTS_OF.get(str(loc[0]), ()))
                self.add("EP010", f"{label} {_field_name(loc[:-1])} has unknown field {quoted(name)}{hint}", item,
                         (*base, *loc), key=True)
            elif kind == "extra_forbidden":
                name = str(loc[-1])
                hint = suggest_field(name, declared)
                self.add("EP010", f"{label} has unknown field {quoted(name)}{hint}", item, (*base, *loc), key=True)
            elif kind == "missing" and loc == ("id",):
                self.add("EP012", f"{label} has no id", item, base)
            elif kind == "missing":
                self.add("EP017", f"{label} has no {_field_name(loc)}", item, (*base, *loc[:-1]))
            else:
                expected = expected_words(dict(e))
                # A word that is not one of a choice's is named: "not 'gate'", not "not text".
                named = kind in ("literal_error", "bool_type") and isinstance(value, str)
                actual = quoted(value) if named else kind_of(value)
                # YAML reads 12, 1e3, true (and, under %YAML 1.1, yes/no/on/off) as numbers and
                # booleans: never turned into text silently, but the fix is one pair of quotes.
                quote = kind == "string_type" and isinstance(value, (bool, int, float))
                fix = ("put it in quotes to keep it as text" if quote else
                       "write true or false, without quotes" if named and kind == "bool_type" else
                       _shape_hint(loc, value))
                if kind == "literal_error" and len(loc) == 1:  # a choice's wrong word: the one meant
                    fix = choice_hint(fields.by_name(declared).get(str(loc[0])), value) or fix
                self.add("EP011", f"{label}: {_field_name(loc)} must be {expected}, not {actual}", item,
                         (*base, *loc), hint=fix)


def _shape_hint(loc: tuple[Any, ...], value: Any) -> str | None:
    """The fix for the shapes people write for a field: one string where a list is meant, and a
    range as a list of two numbers."""
    name = loc[-1] if loc else None
    if name in ("depends_on", "dependencies", "evidence", "paths") and isinstance(value, str):
        return f"a list, even of one: write [{clip(value, 60)}]"
    if (name == "lines" and isinstance(value, list) and len(value) == 2
            and all(type(v) is int for v in value)):
        return f"a range is text: write lines: {value[0]}-{value[1]}"
    return None


def choice_hint(field: fields.Field | None, value: Any) -> str | None:
    """The value meant by a wrong value of a choice field: the word writers use for it
    (``finished``: done), the same in another case (``Done``), or the closest spelling."""
    if field is None or not field.choices or type(value) is not str:
        return None
    word = value.strip().lower()
    meant = dict(field.meant).get(word) or (word if word in field.choices else None)
    if meant is None:
        from compiler.core.diagnostics import closest

        meant = closest(word, field.choices)
    return f"did you mean {meant}?" if meant else None


def suggest_field(key: str, declared: tuple[fields.Field, ...]) -> str:
    """' (did you mean X?)' for an unknown key: the field it is a common synonym of, else the
    closest spelling."""
    meant = fields.synonym(key, declared)
    return f" (did you mean {meant}?)" if meant else did_you_mean(key, fields.names(declared))


def _unions_joined(errors: list[Any], raw: Any) -> list[dict[str, Any]]:
    """pydantic reports a value that fits no member of a union (``str | int``) once per member,
    each at the field's path plus the member's name (``lines.str``, ``lines.int``): one error at
    the field's own path, expecting any of them."""
    out: list[dict[str, Any]] = []
    for error in errors:
        loc = tuple(error["loc"])
        member = loc and type(loc[-1]) is str and type(value_at(raw, loc[:-1])) is not dict
        if member and out and out[-1]["loc"] == loc[:-1] and out[-1].get("union"):
            out[-1]["expected"].append(expected_words(dict(error)))
        elif member:
            out.append({**error, "loc": loc[:-1], "union": True, "expected": [expected_words(dict(error))]})
        else:
            out.append(dict(error))
    for error in out:
        if error.pop("union", False):
            error["type"] = "union"
            error["words"] = " or ".join(dict.fromkeys(error.pop("expected")))
    return out


def _label(raw: Any, index: int) -> tuple[str, str | None]:
    """How messages name an item: its id when it has a usable one, else 'item N'."""
    if isinstance(raw, dict):
        ident = raw.get("id")
        if isinstance(ident, str) and ident.strip():
            return clip(ident), ident
    return f"item {index + 1}", None


def _item(raw: Any, index: int, base: Path, col: _Collector) -> Item | None:
    label, item_id = _label(raw, index)
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


def _finish(model: Any, data: dict[str, Any], index: int, base: Path, col: _Collector, label: str,
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
                col.add("EP014", f"{label}: {problem}", item_id, epath)
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
                    col.add("EP018", f"{label}: {why}", item_id, (*base, f.name, j))
                    broken.append(f.name)
    if "id" in broken:
        return None  # nothing to name the item by: its problems are reported, and it is checked no further
    options = tuple((f.name, getattr(model, f.name)) for f in _OPTIONS if f.name in data and f.name not in broken)
    return Item(model.id, model.change, tuple(evidence), tuple(model.depends_on), model.proof, index, dep_key, parts,
                options, tuple(dict.fromkeys(broken)), tuple(at) if len(at) < len(model.evidence) else ())


def _strip_compiled(entry: Any) -> Any:
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


# --- the fast path ----------------------------------------------------------------------------------

# An option's value, by its kind, when it is plainly valid as it stands. A kind that is not here
# is not the fast path's to decide: an item that gives such a field goes to the input model.
_PLAIN_OPTIONS: dict[str, Callable[[Any], bool]] = {
    "text": lambda value: type(value) is str,
    "optional-text": lambda value: type(value) is str,
    "ids": lambda value: type(value) is list and all(type(v) is str for v in value),
    "optional-line": lambda value: type(value) is int and value >= 1,
    "choice": lambda value: type(value) is str,  # and one of the field's words: _plain_check
    "flag": lambda value: type(value) is bool,
    "optional-estimate": lambda value: plain_parts(value, fields.ESTIMATE_PARTS) is not None,
    "paths": lambda value: type(value) is list and all(type(v) is str and globs.problem(v) is None for v in value),
}
# The kinds whose plain value is remade as the input model makes it (its parts in their declared order).
_REMADE: dict[str, Callable[[Any], Any]] = {
    "optional-estimate": lambda value: plain_parts(value, fields.ESTIMATE_PARTS),
}


def _plain_number(value: Any) -> bool:
    return (type(value) is int or type(value) is float) and value - value == 0  # finite: inf - inf is nan


_PLAIN_PARTS: dict[str, Callable[[Any], bool]] = {
    "description": lambda value: type(value) is str,
    "low": _plain_number,
    "high": _plain_number,
    "unit": lambda value: type(value) is str and value in fields.UNIT_HOURS,
    "confidence": lambda value: type(value) is str and value in fields.CONFIDENCES,
    "evidence": lambda value: type(value) is str,
}
_CLAIM_UNIT = {"unit": lambda value: type(value) is str}  # a claim's unit is any text


def plain_parts(value: Any, parts: tuple[tuple[str, bool], ...],
                checks: dict[str, Callable[[Any], bool]] = _PLAIN_PARTS) -> dict[str, Any] | None:
    """An estimate's or a claim's mapping, when every part is exactly of its type and the needed
    ones are there: the same dict, parts in their declared order, as the input model makes. Else None."""
    if type(value) is not dict:
        return None
    out = {}
    for name, needed in parts:
        if name in value:
            part = value[name]
            if not checks.get(name, _PLAIN_PARTS[name])(part):
                return None
            out[name] = part
        elif needed:
            return None
    return out if len(out) == len(value) else None


def _plain_check(field: fields.Field) -> Callable[[Any], bool]:
    """The fast path's check of an option: its kind's, and for a choice, one of its words."""
    plain = _PLAIN_OPTIONS[field.kind]
    if not field.choices:
        return plain
    words = frozenset(field.choices)
    return lambda value: plain(value) and value in words


# The keys the fast path decides: the five commitments (checked below) and the options it can.
PLAIN_KEYS = frozenset((*COMMITMENTS, *_ITEM_ALIASES, *(f.name for f in _OPTIONS if f.kind in _PLAIN_OPTIONS)))
_PLAIN_OPTION_CHECKS = tuple((f.name, _plain_check(f), _REMADE.get(f.kind)) for f in _OPTIONS
                             if f.kind in _PLAIN_OPTIONS)
_COMMITMENT_KEYS = frozenset(COMMITMENTS)


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
    return Item(ident, change, tuple(parsed), tuple(depends_on), proof, index, depends_key, options=options)

def plain_item_with_unknown_keys(raw: Any, index: int, base: Path, col: _Collector) -> Item | None:
    """The commonest mistake, decided without pydantic: a plainly valid item but for keys the
    format does not define (a misspelt ``depend_on``). Reports each as the input model's path
    does (EP010, with the same did-you-mean) and returns the item as read without them, or None
    when the rest is not plainly valid either. The differential test holds the two paths to the
    same diagnostics and the same item (tests/test_fields.py)."""
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
        col.add("EP010", f"{label} has unknown field {quoted(key)}{suggest_field(key, fields.ITEM_FIELDS)}", item.id,
                (*base, key), key=True)
    return item._replace(broken=tuple(unknown))


# The evidence object's fields, by their kinds, as the fast path takes them.
_EVIDENCE_KIND_TYPES: dict[str, type | tuple[type, ...]] = {"optional-text": str, "optional-line": int,
                                                              "optional-lines": (str, int)}
_EVIDENCE_TYPES = {f.name: _EVIDENCE_KIND_TYPES[f.kind] for f in fields.EVIDENCE_FIELDS}


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


# --- the plan ---------------------------------------------------------------------------------------

_PLAN_KEYS = fields.names(fields.PLAN_FIELDS)
_COMPILED_KEYS = _PLAN_KEYS + fields.COMPILED_PLAN_KEYS
_PLAN_TEXT = tuple(f.name for f in fields.PLAN_FIELDS if f.kind == "optional-text")


def build_plan(doc: Document) -> Plan:
    """Validate a loaded document. Bad items become diagnostics; only a non-plan raises."""
    meta, raw_items, items_path = plan_shape(doc)
    col = _Collector(doc)
    compiled = isinstance(meta.get("format"), str) and meta["format"].startswith("evidence-plan")
    allowed = _COMPILED_KEYS if compiled else _PLAN_KEYS
    for key in meta:
        if key not in allowed:
            hint = suggest_field(key, fields.PLAN_FIELDS) if not compiled else did_you_mean(key, allowed)
            col.add("EP010", f"unknown plan field {quoted(key)}{hint}", None, (key,), key=True)
    text_meta: dict[str, str | None] = {}
    for key in _PLAN_TEXT:
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            col.add("EP011", f"plan field {key} must be text, not {kind_of(value)}", None, (key,))
            value = None
        text_meta[key] = value

    claims = _claims(meta.get("claims"), col) if meta.get("claims") is not None else ()
    budget = _budget(meta["budget"], col) if meta.get("budget") is not None else None
    if compiled:
        raw_items = [_strip_compiled(entry) for entry in raw_items]
    items: list[Item] = []
    unnamed: list[Item] = []
    id_indexes: list[tuple[str, int]] = []
    for index, raw in enumerate(raw_items):
        item = plain_item(raw, index)
        if item is None:
            item = plain_item_with_unknown_keys(raw, index, (*items_path, index), col)
        if item is not None:
            items.append(item)
            id_indexes.append((item.id, index))
            continue
        _, ident = _label(raw, index)
        if ident is not None:
            id_indexes.append((ident, index))
        # Anything unusual: the input model validates it and says where it is wrong.
        item = _item(raw, index, (*items_path, index), col)
        if item is not None:
            items.append(item)
        else:
            change = raw.get("change") if isinstance(raw, dict) else None
            unnamed.append(Item(ident or "", change if isinstance(change, str) else "", (), (), "", index,
                                broken=("id",)))
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
    )


_CLAIM_FIELDS = tuple(fields.Field(part, "text", "") for part, _ in fields.CLAIM_PARTS)
_BUDGET_FIELDS = tuple(fields.Field(part, "optional-line", "") for part, _ in fields.BUDGET_PARTS)
_BUDGET_NAMES = frozenset(part for part, _ in fields.BUDGET_PARTS)


def _budget(raw: Any, col: _Collector) -> dict[str, int] | None:
    """The plan's budget: plainly valid (known parts, each a whole number of at least 1), or as the
    input model reads it, its errors in our words; None when it cannot be read (nothing is limited)."""
    if type(raw) is dict and all(key in _BUDGET_NAMES and type(value) is int and value >= 1
                                 for key, value in raw.items()):
        return dict(raw)
    if not isinstance(raw, dict):
        parts = ", ".join(part for part, _ in fields.BUDGET_PARTS)
        col.add("EP011", f"plan field budget must be a mapping with {parts}, not {kind_of(raw)}", None, ("budget",))
        return None
    from pydantic import TypeAdapter, ValidationError

    from compiler.model.input_model import Budget

    try:
        return cast(dict[str, int], TypeAdapter(Budget).validate_python(raw))
    except ValidationError as err:
        col.pydantic(err, raw, ("budget",), "budget", None, _BUDGET_FIELDS)
        return None


def _claims(raw: Any, col: _Collector) -> tuple[tuple[int, dict[str, Any]], ...]:
    """The plan's claims: each plainly valid one as it is, any other through the input model (the
    validator of record), whose errors are said in our words; a claim that cannot be read is left out."""
    if type(raw) is not list:
        col.add("EP011", f"plan field claims must be a list, not {kind_of(raw)}", None, ("claims",))
        return ()
    out = []
    for j, entry in enumerate(raw):
        claim = plain_parts(entry, fields.CLAIM_PARTS, _CLAIM_UNIT)
        if claim is None:
            claim = _model_claim(entry, j, col)
        if claim is not None:
            out.append((j, claim))
    return tuple(out)


def _model_claim(entry: Any, j: int, col: _Collector) -> dict[str, Any] | None:
    label = f"claim {j + 1}"
    if not isinstance(entry, dict):
        col.add("EP011", f"{label} must be a mapping with {', '.join(p for p, _ in fields.CLAIM_PARTS)}, not"
                f" {kind_of(entry)}", None, ("claims", j))
        return None
    from pydantic import TypeAdapter, ValidationError

    from compiler.model.input_model import Claim

    try:
        return cast(dict[str, Any], TypeAdapter(Claim).validate_python(entry))
    except ValidationError as err:
        col.pydantic(err, entry, ("claims", j), label, None, _CLAIM_FIELDS)
        return None
