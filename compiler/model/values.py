"""The normalized values that the stages after validation use: an evidence entry, a work item,
the plan. NamedTuples: plans hold hundreds of thousands of them, and a tuple is built several
times faster than a frozen dataclass (and defining one costs no import time)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from compiler.core.diagnostics import Diagnostic
from compiler.load.sourcemap import Path
from compiler.model import fields


class Evidence(NamedTuple):
    """One normalized evidence entry. A NamedTuple: plans hold hundreds of thousands of these,
    and a tuple is built several times faster than a frozen dataclass."""

    path: str | None = None  # None for a URL
    start: int | None = None
    end: int | None = None
    symbol: str | None = None
    contains: str | None = None
    url: str | None = None
    pin: str | None = None  # the hash of the cited lines (compiler/core/pins.py), when the plan pins them

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
        if self.pin is not None:
            out["pin"] = self.pin
        return out


class Item(NamedTuple):
    """One validated work item (a NamedTuple, for the same reason as Evidence). Built by keyword
    (tests/test_architecture.py); where items are built by the hundred thousand, as
    ``Item.__new__(Item, id=..., ...)``: ``Item(id=...)`` goes through ``type.__call__``, which
    gathers the keywords in a dict first and costs 1.5x a positional call, while the constructor
    called directly binds them as fast as positions."""

    id: str
    change: str
    evidence: tuple[Evidence, ...]
    depends_on: tuple[str, ...]
    proof: str
    position: int  # where it is in the plan's item list (0-based)
    depends_key: str = "depends_on"  # the key the file used (dependencies is an alias)
    proof_parts: int = 1  # commands in a proof given as a list (joined with &&)
    # The declared fields beyond the five commitments that the item gives, in declaration order
    # (compiler/model/fields.py): a field that needs no rule of its own is carried here, no edit needed.
    options: tuple[tuple[str, Any], ...] = ()
    # An item the plan gives with problems in some of its fields is still checked, by what could
    # be read of it, so that every problem shows in one run: ``broken`` names the keys (as the file
    # gives them) that could not be read, and the rules about those fields leave them alone.
    broken: tuple[str, ...] = ()
    # Where each evidence entry sits in the file's list, when entries that could not be read were
    # left out (empty: the same places).
    evidence_at: tuple[int, ...] = ()

    def evidence_index(self, j: int) -> int:
        """The place in the file's evidence list of the j-th evidence entry that was read."""
        return self.evidence_at[j] if self.evidence_at else j

    def option(self, name: str, default: Any = None) -> Any:
        """The value of an optional field, or ``default`` when the item does not give it."""
        for key, value in self.options:
            if key == name:
                return value
        return default

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "change": self.change,
            "evidence": [e.to_dict() for e in self.evidence],
            "depends_on": list(self.depends_on),
            "proof": self.proof,
        }
        if self.options:
            out.update(self.options)
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
    # The items that could not be read at all (not a mapping, or no usable id): not checked
    # (their problems are reported), but listed in the compiled report, in their places.
    unnamed: tuple[Item, ...] = ()
    # The plan's claims that could be read (compiler/model/fields.py: CLAIM_PARTS): each claim's place in
    # the file's list, and a dict of its parts.
    claims: tuple[tuple[int, dict[str, Any]], ...] = ()
    # The plan's budget (compiler/model/fields.py: BUDGET_PARTS), when it gives one that could be read.
    budget: dict[str, int] | None = None
    # Every other declared plan field the plan gives, that could be read: (name, value) in the
    # declarations' order, as plain JSON data (an Item's options, for the plan).
    options: tuple[tuple[str, Any], ...] = ()
    # The names of the options any of its items gives (build_plan's): a feature the plan does not
    # use costs its checks and outputs one look here (``gives``). None: not known, looked for.
    item_options: frozenset[str] | None = None

    def gives(self, name: str) -> bool:
        """Whether any item of the plan gives the option ``name`` (``status``, ``estimate``, ``kind``...)."""
        if self.item_options is not None:
            return name in self.item_options
        return any(key == name for item in self.items for key, _ in item.options)

    def every_item(self) -> tuple[Item, ...]:
        """Every item of the file, in the file's order: the checked ones and the unnamed."""
        if not self.unnamed:
            return self.items
        return tuple(sorted((*self.items, *self.unnamed), key=lambda item: item.position))


# The plan fields that are the Plan's own attributes, as plain JSON data (absent: None); every other
# declared plan field is one of its ``options``. The item list is the plan's items.
PLAN_ATTRIBUTES: dict[str, Callable[[Plan], Any]] = {
    "plan": lambda plan: plan.name,
    "goal": lambda plan: plan.goal,
    "root": lambda plan: plan.root,
    "claims": lambda plan: [dict(claim) for _, claim in plan.claims] or None,
    "budget": lambda plan: dict(plan.budget) if plan.budget is not None else None,
}


def plan_values(plan: Plan) -> dict[str, Any]:
    """Each declared plan field the plan gives (but its items), in the declarations' order, as
    plain JSON data: what a converted plan and evidence-plan.json write of it."""
    options = dict(plan.options)
    out = {}
    for field in fields.PLAN_FIELDS:
        if field.kind == "items":
            continue
        value = PLAN_ATTRIBUTES[field.name](plan) if field.name in PLAN_ATTRIBUTES else options.get(field.name)
        if value is not None:
            out[field.name] = value
    return out


def field_default(field: fields.Field) -> Any:
    default = field.default
    return list(default) if isinstance(default, tuple) else default


def field_value(item: Item, field: fields.Field) -> Any:
    """An item's value of ``field`` as plain JSON data, normalized: evidence as objects, an
    absent optional field as its default."""
    name = field.name
    if name == "id":
        return item.id
    if name == "change":
        return item.change
    if name == "proof":
        return item.proof
    if name == "evidence":
        return [e.to_dict() for e in item.evidence]
    if name == "depends_on":
        return list(item.depends_on)
    value = item.option(name, fields.REQUIRED)
    return field_default(field) if value is fields.REQUIRED else value
