"""Stage 2: plain data -> validated work items, every problem a located diagnostic.

pydantic (compiler/plan_schema.py) checks the shape of each item that is not plainly valid
(types, unknown fields); this module translates its errors into the project's diagnostics and
parses evidence references, so that one bad item never hides the others and no raw pydantic text
ever reaches a user.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.diagnostics import Diagnostic, Location, PlanInputError, did_you_mean
from compiler.display import clip, quoted
from compiler.load import Document
from compiler.sourcemap import Path

if TYPE_CHECKING:
    from pydantic import ValidationError

    from compiler.plan_schema import EvidenceObject, WorkItem

FORMAT = "evidence-plan/1"

ITEM_FIELDS = ("id", "change", "evidence", "depends_on", "proof")
_BLANK_IS_MISSING = frozenset((*ITEM_FIELDS, "dependencies"))
ITEM_ALIASES = {"dependencies": "depends_on"}
PLAN_FIELDS = ("plan", "goal", "root", "items")
# Keys of a compiled evidence-plan.json that are read past when it is used as input.
COMPILED_FIELDS = ("format", "status", "source", "evidence_verified", "issues", "waves", "summary", "critical_path")


# --- Normalized values that later stages use ----------------------------------------------------


class Evidence(NamedTuple):
    """One normalized evidence entry. A NamedTuple: plans hold hundreds of thousands of these,
    and a tuple is built several times faster than a frozen dataclass."""

    path: str | None = None  # None for a URL
    start: int | None = None
    end: int | None = None
    symbol: str | None = None
    contains: str | None = None
    url: str | None = None

    def ref(self) -> str:
        """The compact text form: app/accounts.py:18-24, app/x.py::sym, or the URL."""
        if self.url is not None:
            return self.url
        text = self.path or ""
        if self.symbol:
            return f"{text}::{self.symbol}"
        if self.start is not None:
            text += f":{self.start}" if self.end == self.start else f":{self.start}-{self.end}"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url} if self.url is not None else {"path": self.path}
        if self.start is not None:
            if self.end == self.start:
                out["line"] = self.start
            else:
                out["lines"] = f"{self.start}-{self.end}"
        if self.symbol is not None:
            out["symbol"] = self.symbol
        if self.contains is not None:
            out["contains"] = self.contains
        return out

    def to_input(self) -> str | dict[str, Any]:
        """Compact string when it reads back to the same evidence, else the object form."""
        if self.contains is None and parse_reference(self.ref())[0] == self:
            return self.ref()
        return self.to_dict()


class Item(NamedTuple):
    """One validated work item (a NamedTuple, for the same reason as Evidence)."""

    id: str
    change: str
    evidence: tuple[Evidence, ...]
    depends_on: tuple[str, ...]
    proof: str
    position: int  # where it is in the plan's item list (0-based)
    depends_key: str = "depends_on"  # the key the file used (dependencies is an alias)
    proof_parts: int = 1  # commands in a proof given as a list (joined with &&)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "change": self.change,
            "evidence": [e.to_dict() for e in self.evidence],
            "depends_on": list(self.depends_on),
            "proof": self.proof,
        }

    def to_input(self) -> dict[str, Any]:
        out = self.to_dict()
        out["evidence"] = [e.to_input() for e in self.evidence]
        return out


class Plan(NamedTuple):
    """The validated plan: metadata, items (valid ones), and what went wrong."""

    name: str | None
    goal: str | None
    root: str | None
    items: tuple[Item, ...]
    item_count: int  # items in the file, valid or not
    known_ids: frozenset[str]  # ids of every item that has one, valid or not
    id_indexes: tuple[tuple[str, int], ...]  # (id, index) of every item that has one, valid or not
    items_path: Path  # where the item list sits in the document: ("items",) or ()
    diagnostics: tuple[Diagnostic, ...]


# --- Evidence references --------------------------------------------------------------------------

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://\S+$")
_LINE_SUFFIX = re.compile(r":(-?\d+)(?:-(-?\d+))?$")
_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:-\s*(-?\d+)\s*)?$")


def _line_numbers(first: str, last: str | None) -> tuple[int, int] | str:
    """Two line numbers from their digits, or why not."""
    if len(first.lstrip("-")) > MAX_LINE_DIGITS or (last is not None and len(last.lstrip("-")) > MAX_LINE_DIGITS):
        return f"a line number has more than {MAX_LINE_DIGITS} digits"
    start = int(first)
    return start, int(last) if last is not None else start


def _check_range(start: int, end: int) -> str | None:
    if start < 1 or end < 1:
        return "line numbers start at 1"
    if end < start:
        return f"the range {start}-{end} is reversed"
    return None


# The common forms, path / path:LINE / path:START-END with no colon in the path, in one match.
_SIMPLE_REFERENCE = re.compile(r"([^\s:][^:]*?)(?::([1-9]\d{0,8})(?:-([1-9]\d{0,8}))?)?")
# Line numbers have at most nine digits: no file has a billion lines, and int() refuses
# numbers of more than 4,300 digits with an exception, not an answer.
MAX_LINE_DIGITS = 9


def parse_reference(text: str) -> tuple[Evidence | None, str | None]:
    """Parse the string form. Returns (evidence, None) or (None, why it is invalid)."""
    m = _SIMPLE_REFERENCE.fullmatch(text)
    if m is not None:
        path, start, end = m.groups()
        if path[-1] not in " \t":
            if start is None:
                return Evidence(path), None
            first = int(start)
            last = int(end) if end is not None else first
            if last >= first:
                return Evidence(path, first, last), None
    text = text.strip()
    if not text:
        return None, "evidence is empty"
    if _URL.match(text):
        return Evidence(url=text), None
    if "::" in text:
        path, _, symbol = text.partition("::")
        if not path or not symbol:
            return None, f"evidence {quoted(text)} needs both a path and a symbol (path::symbol)"
        return Evidence(path=path, symbol=symbol), None
    m = _LINE_SUFFIX.search(text)
    if m is None:
        return Evidence(path=text), None
    path = text[: m.start()]
    if not path:
        return None, f"evidence {quoted(text)} has no path"
    numbers = _line_numbers(m.group(1), m.group(2))
    if isinstance(numbers, str):
        return None, f"evidence {quoted(text, 80)}: {numbers}"
    start, end = numbers
    problem = _check_range(start, end)
    if problem:
        return None, f"evidence {quoted(text)}: {problem}"
    return Evidence(path=path, start=start, end=end), None


def _parse_object(obj: EvidenceObject) -> tuple[Evidence | None, str | None, str | None]:
    """(evidence, problem, field the problem is in)."""
    if obj.url is not None:
        if obj.path is not None or obj.line is not None or obj.lines is not None or obj.symbol is not None:
            return None, "evidence with a url takes no path, line, lines or symbol", "url"
        if not _URL.match(obj.url.strip()):
            return None, f"{quoted(obj.url)} is not a URL", "url"
        return Evidence(url=obj.url.strip(), contains=obj.contains), None, None
    if obj.path is None or not obj.path.strip():
        return None, "evidence needs a path (or a url)", "path"
    if obj.line is not None and obj.lines is not None:
        return None, "give either line or lines, not both", "lines"
    start = end = None
    if obj.line is not None:
        if obj.line < 1:
            return None, "line numbers start at 1", "line"
        start = end = obj.line
    elif obj.lines is not None:
        m = _RANGE.match(str(obj.lines))
        if m is None:
            return None, f"lines {str(obj.lines)[:40]!r} must be START-END, e.g. 18-24", "lines"
        numbers = _line_numbers(m.group(1), m.group(2))
        if isinstance(numbers, str):
            return None, numbers, "lines"
        start, end = numbers
        problem = _check_range(start, end)
        if problem:
            return None, problem, "lines"
    if obj.symbol is not None and start is not None:
        return None, "give either a symbol or lines, not both", "symbol"
    return Evidence(path=obj.path.strip(), start=start, end=end, symbol=obj.symbol, contains=obj.contains), None, None


# --- Validation -----------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int) and value.bit_length() > 400:
        # repr() of an int of more than 4,300 digits raises; past 120 digits it is no message
        return f"a number of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


_EXPECTED = {
    "string_type": "text",
    "list_type": "a list",
    "int_type": "a whole number",
    "model_type": "a mapping",
    "dict_type": "a mapping",
    "greater_than_equal": "at least 1",
}


def _at(data: Any, loc: tuple[Any, ...]) -> Any:
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
                 fields: tuple[str, ...], rename: dict[str, str] | None = None) -> None:
        for e in err.errors(include_url=False, include_input=False):
            value = _at(raw, tuple(e["loc"]))
            loc = tuple(e["loc"])
            if rename and loc and loc[0] in rename:
                loc = (rename[loc[0]], *loc[1:])
            kind = e["type"]
            if kind == "extra_forbidden":
                name = str(loc[-1])
                hint = did_you_mean(name, fields)
                self.add("EP010", f"{label} has unknown field {quoted(name)}{hint}", item, (*base, *loc), key=True)
            elif kind == "missing" and loc == ("id",):
                self.add("EP012", f"{label} has no id", item, base)
            elif kind == "missing":
                self.add("EP012", f"{label} has no {_field_name(loc)}", item, base)
            else:
                expected = _EXPECTED.get(kind, e["msg"].lower())
                actual = _kind(value)
                # YAML reads 12, 1e3, true (and, under %YAML 1.1, yes/no/on/off) as numbers and
                # booleans: never turned into text silently, but the fix is one pair of quotes.
                quote = kind == "string_type" and isinstance(value, (bool, int, float))
                self.add("EP011", f"{label}: {_field_name(loc)} must be {expected}, not {actual}", item,
                         (*base, *loc), hint="put it in quotes to keep it as text" if quote else None)


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
        col.add("EP011", f"{label} must be a mapping with id, change, evidence, depends_on and proof, not {_kind(raw)}",
                None, base)
        return None
    # A key left blank (`proof:` with nothing after it) means the same as a missing one, so it
    # gets the rule's own message ("a has no proof command"), not a type error about null.
    data = {k: v for k, v in raw.items() if v is not None or k not in _BLANK_IS_MISSING}
    ok = True
    if "dependencies" in data:
        if "depends_on" in data:
            col.add("EP013", f"{label} gives both depends_on and dependencies (an alias): keep one", item_id,
                    (*base, "dependencies"), key=True)
            ok = False
        else:
            data["depends_on"] = data["dependencies"]
        del data["dependencies"]
    dep_key = "dependencies" if "dependencies" in raw and "depends_on" not in raw else "depends_on"
    parts = 1
    proof = data.get("proof")
    if isinstance(proof, list) and all(isinstance(c, str) for c in proof):
        commands = [c.strip() for c in proof if c.strip()]
        data["proof"], parts = " && ".join(commands), len(commands)
    from pydantic import ValidationError

    from compiler.plan_schema import WorkItem

    try:
        model = WorkItem.model_validate(data)
    except ValidationError as err:
        # Locations and messages use the file's own key (dependencies, when the alias was used).
        col.pydantic(err, data, base, label, item_id, (*ITEM_FIELDS, *ITEM_ALIASES),
                     rename={"depends_on": dep_key})
        return None
    item = _finish(model, index, base, col, label, item_id, dep_key, parts)
    return item if ok else None


def _finish(model: WorkItem, index: int, base: Path, col: _Collector, label: str, item_id: str | None,
            dep_key: str = "depends_on", parts: int = 1) -> Item | None:
    """A validated model -> an Item: the empty-id rule and the evidence references."""
    ok = True
    if not model.id.strip():
        col.add("EP012", f"{label} has an empty id", None, (*base, "id"))
        ok = False
    evidence: list[Evidence] = []
    for j, entry in enumerate(model.evidence):
        epath = (*base, "evidence", j)
        if isinstance(entry, str):
            ev, problem = parse_reference(entry)
            if problem:
                col.add("EP014", f"{label}: {problem}", item_id, epath)
                ok = False
            elif ev is not None:
                evidence.append(ev)
        elif isinstance(entry, dict):
            from pydantic import ValidationError

            from compiler.plan_schema import EvidenceObject

            try:
                obj = EvidenceObject.model_validate(entry)
            except ValidationError as err:
                col.pydantic(err, entry, epath, f"{label} evidence {j + 1}", item_id,
                             tuple(EvidenceObject.model_fields))
                ok = False
                continue
            ev, problem, field = _parse_object(obj)
            if problem:
                col.add("EP014", f"{label}: {problem}", item_id, (*epath, field) if field in entry else epath)
                ok = False
            elif ev is not None:
                evidence.append(ev)
        else:
            col.add("EP011", f"{label}: evidence[{j}] must be text or a mapping, not {_kind(entry)}", item_id, epath)
            ok = False
    if not ok:
        return None
    return Item(model.id, model.change, tuple(evidence), tuple(model.depends_on), model.proof, index, dep_key, parts)


def _not_a_plan(doc: Document, path: Path, message: str, hint: str | None = None) -> PlanInputError:
    from compiler.load import with_excerpt

    pos = doc.source_map.value(path)
    where = Location(doc.name, *pos) if pos else Location(doc.name)
    return with_excerpt(PlanInputError(Diagnostic("EP004", f"not a plan: {message}", None, where, hint=hint)),
                        doc.text)


_SHAPE_HINT = "a plan is a mapping with items: [...], or a list of items"


def _top_level(doc: Document) -> tuple[dict[str, Any], list[Any], Path]:
    """Find the item list. Raises PlanInputError (EP004) when the document is not a plan."""
    data = doc.data
    if isinstance(data, list):
        if data and not any(isinstance(entry, dict) for entry in data):
            kinds = sorted({_kind(entry) for entry in data})
            raise _not_a_plan(doc, (), f"a list of {', '.join(kinds)}, not of items", _SHAPE_HINT)
        return {}, data, ()
    if isinstance(data, dict):
        if "items" not in data:
            hint = "a single item? put it in a list under items:" if "id" in data else _SHAPE_HINT
            raise _not_a_plan(doc, (), "no items", hint)
        items = data["items"]
        if not isinstance(items, list):
            raise _not_a_plan(doc, ("items",), f"items must be a list, not {_kind(items)}")
        return data, items, ("items",)
    if data is None:
        content = [line for line in doc.text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        what = ("the file is empty" if doc.empty else "the document is null" if content
                else "the file holds only comments")
    else:
        what = f"the document is {_kind(data)}"
    raise _not_a_plan(doc, (), what, _SHAPE_HINT)


def _strip_compiled(entry: Any) -> Any:
    """A compiled file's items carry output-only facts (their wave, where a symbol was found):
    dropped on the way back in."""
    if not isinstance(entry, dict):
        return entry
    out = {k: v for k, v in entry.items() if k != "wave"}
    if isinstance(out.get("evidence"), list):
        out["evidence"] = [
            {k: v for k, v in ev.items() if k != "resolved_lines"} if isinstance(ev, dict) else ev
            for ev in out["evidence"]
        ]
    return out


_PLAIN_KEYS = frozenset(ITEM_FIELDS)


def _plain_item(raw: Any, index: int) -> Item | None:
    """The common case, without pydantic: a mapping of exactly-typed canonical fields whose
    evidence is all in the string form. Returns None for anything else, which then goes through
    pydantic (the validator of record, and the source of every message). A property test checks
    that both paths agree on every input this one accepts."""
    if type(raw) is not dict or not raw.keys() <= _PLAIN_KEYS:
        return None
    ident, change, proof = raw.get("id"), raw.get("change", ""), raw.get("proof", "")
    evidence, depends_on = raw.get("evidence", []), raw.get("depends_on", [])
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
    return Item(ident, change, tuple(parsed), tuple(depends_on), proof, index)


_EVIDENCE_TYPES: dict[str, type | tuple[type, ...]] = {
    "path": str, "line": int, "lines": (str, int), "symbol": str, "contains": str, "url": str,
}


class _Fields:
    """Attribute access to an evidence mapping, as _parse_object expects of a validated model."""

    __slots__ = ("contains", "line", "lines", "path", "symbol", "url")

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
    return _parse_object(_Fields(entry))[0]  # type: ignore[arg-type]


def build_plan(doc: Document) -> Plan:
    """Validate a loaded document. Bad items become diagnostics; only a non-plan raises."""
    meta, raw_items, items_path = _top_level(doc)
    col = _Collector(doc)
    compiled = isinstance(meta.get("format"), str) and meta["format"].startswith("evidence-plan")
    allowed = PLAN_FIELDS + COMPILED_FIELDS if compiled else PLAN_FIELDS
    for key in meta:
        if key not in allowed:
            col.add("EP010", f"unknown plan field {quoted(key)}{did_you_mean(key, allowed)}", None, (key,), key=True)
    text_meta: dict[str, str | None] = {}
    for key in ("plan", "goal", "root"):
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            col.add("EP011", f"plan field {key} must be text, not {_kind(value)}", None, (key,))
            value = None
        text_meta[key] = value

    if compiled:
        raw_items = [_strip_compiled(entry) for entry in raw_items]
    items: list[Item] = []
    id_indexes: list[tuple[str, int]] = []
    for index, raw in enumerate(raw_items):
        item = _plain_item(raw, index)
        if item is not None:
            items.append(item)
            id_indexes.append((item.id, index))
            continue
        _, ident = _label(raw, index)
        if ident is not None:
            id_indexes.append((ident, index))
        # Anything unusual: pydantic validates it and says where it is wrong.
        item = _item(raw, index, (*items_path, index), col)
        if item is not None:
            items.append(item)
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
    )
