"""The places of a plan's text that an editor asks about, and where they lead: what the cursor is on
(an evidence entry, an item's id, a ``depends_on`` entry naming one), its definition, its
references, the rename of an id everywhere it is written, and the items as an outline. The hover
is compiler/api/editor_hover.py's. Plain data out; no protocol here (compiler/serve/lsp.py speaks it).

Ranges are compiler/api/editor.py's: 0-based lines and code-point columns, end exclusive. A range
in another file (a definition's target in the repository) uses column 0 only, so that nobody has
to read that file to convert its columns into the client's units. Every function takes a readable
``Analysis`` (the server keeps the last one that could be read) and answers any place, past a
line's end too, without raising; only ``rename`` refuses, with ``RenameRefused``.
"""

from __future__ import annotations

import bisect
import os
import posixpath
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from compiler.api.editor import Analysis, Node, Range, edit_range, item_index, node_at, nodes
from compiler.model.fields import ITEM_FIELDS, by_name, names

if TYPE_CHECKING:
    from compiler.model.values import Item, Plan
    from compiler.repo.repository import Repository

# The keys of an item that name the items it depends on: the field and its alias (``dependencies``).
DEPENDS_KEYS = names((by_name(ITEM_FIELDS)["depends_on"],))
MAX_DETAIL = 80  # what an outline shows of an item's change

Role = Literal["id", "dependency"]  # an item's own id, or a depends_on entry naming one
SymbolKind = Literal["phase", "wave", "item"]


class Target(NamedTuple):
    """Where a definition is: a file (absolute) and a range in it."""

    path: str
    range: Range


class Edit(NamedTuple):
    """Replace the text of ``range`` (in the plan's own text) with ``new_text``."""

    range: Range
    new_text: str


class Symbol(NamedTuple):
    """An entry of the outline: an item, or a group of items (a phase, a wave) holding them."""

    name: str
    detail: str
    kind: SymbolKind
    range: Range  # the whole of it
    selection_range: Range  # what the editor selects when it is chosen: the id's value
    children: tuple[Symbol, ...] = ()


class RenameRefused(Exception):
    """A rename that cannot be made; the message says why, in one sentence."""


# --- what is at a place ------------------------------------------------------------------------------


def value_range(analysis: Analysis, node: Node) -> Range:
    """The node's range, trimmed to its value where the text after it belongs to a flow list that
    began on an earlier line (``[a,`` then ``b]``: the entry is ``b``, not ``b]``)."""
    found = node.range
    if node.key or type(node.value) is not str or found.line >= len(analysis.lines):
        return found
    text = analysis.lines[found.line][found.column:found.end_column]
    value = node.value
    if text == value or text[:1] in "\"'" or not text.startswith(value):
        return found
    if text[len(value):].lstrip(" \t")[:1] in (",", "]", "}"):
        return found._replace(end_column=found.column + len(value))
    return found


def item_at(plan: Plan, index: int) -> Item | None:
    """The item at ``index`` of the plan's item list, read or unnamed; None when it is no item."""
    items = plan.items
    at = bisect.bisect_left(items, index, key=lambda item: item.position)
    if at < len(items) and items[at].position == index:
        return items[at]
    return next((item for item in plan.unnamed if item.position == index), None)


def id_index(plan: Plan, ident: str) -> int | None:
    """The index of the first item whose id is ``ident``, or None."""
    return next((index for known, index in plan.id_indexes if known == ident), None)


def role(analysis: Analysis, node: Node) -> Role | None:
    """Whether a node is an item's id value or a depends_on entry (text either way), else None."""
    if node.key or type(node.value) is not str or analysis.result is None:
        return None
    base = len(analysis.result.plan.items_path)
    path = node.path
    if item_index(analysis, path) is None:
        return None
    if len(path) == base + 2 and path[base + 1] == "id":
        return "id"
    if len(path) == base + 3 and path[base + 1] in DEPENDS_KEYS and type(path[base + 2]) is int:
        return "dependency"
    return None


def named_at(analysis: Analysis, line: int, column: int) -> tuple[Node, Role] | None:
    """The id value or depends_on entry under the place, with its role."""
    if not analysis.readable:
        return None
    node = node_at(analysis, line, column)
    if node is None:
        return None
    found = role(analysis, node)
    return (node, found) if found is not None else None


def evidence_at(analysis: Analysis, node: Node) -> tuple[Item, int] | None:
    """The item and the index in ``item.evidence`` of the evidence entry a node is part of (the
    string form's value, or any key or value of the object form); None for an entry that could
    not be read."""
    if analysis.result is None:
        return None
    path = node.path
    index = item_index(analysis, path)
    if index is None:
        return None
    rest = path[len(analysis.result.plan.items_path) + 1:]
    if len(rest) < 2 or rest[0] != "evidence" or type(rest[1]) is not int:
        return None
    item = item_at(analysis.result.plan, index)
    if item is None:
        return None
    entry = rest[1]
    if item.evidence_at:
        return (item, item.evidence_at.index(entry)) if entry in item.evidence_at else None
    return (item, entry) if entry < len(item.evidence) else None


def _places(analysis: Analysis, ident: str, wanted: tuple[Role, ...]) -> list[Node]:
    """The nodes of the given roles whose text is ``ident``, in the document's order."""
    return [node for node in nodes(analysis) if node.value == ident and role(analysis, node) in wanted]


# --- definition and references -----------------------------------------------------------------------


def definition(analysis: Analysis, line: int, column: int) -> list[Target]:
    """Where the thing under the place is defined: for an evidence entry, the file it cites and its
    cited lines (a symbol's lines; line 0 for a path alone, or the first line holding its
    ``contains``); for a depends_on entry, the id of the item it names; for an id, itself. Never a
    file outside the repository root or one it refuses to read; nothing for a URL, a folder or a
    binary file."""
    if not analysis.readable:
        return []
    node = node_at(analysis, line, column)
    if node is None:
        return []
    found = role(analysis, node)
    if found == "id":
        return [Target(analysis.path, value_range(analysis, node))]
    if found == "dependency":
        return [Target(analysis.path, value_range(analysis, n)) for n in _places(analysis, node.value, ("id",))]
    entry = evidence_at(analysis, node)
    if entry is None:
        return []
    target = evidence_target(analysis, *entry)
    return [target] if target is not None else []


def evidence_target(analysis: Analysis, item: Item, j: int) -> Target | None:
    """The file and lines the j-th evidence entry of ``item`` cites, when the repository holds it."""
    from compiler.repo.repository import Repository

    result = analysis.result
    ev = item.evidence[j]
    if result is None or not result.evidence_verified or ev.path is None:
        return None
    repo = Repository(result.root)
    try:
        facts = repo.facts(ev.path)
        if facts.kind != "file" or facts.binary:  # a binary file has no lines to go to
            return None
        cited = posixpath.normpath(ev.path.replace("\\", "/"))
        path = os.path.join(result.root, *cited.split("/"))
        return Target(path, _cited_range(repo, ev.path, item, j, result.resolved))
    finally:
        repo.close()


def _cited_range(repo: Repository, path: str, item: Item, j: int,
                 resolved: dict[tuple[int, int], tuple[int, int, str]]) -> Range:
    """The cited lines as a range of whole lines (column 0 only), or line 0 where none are cited
    or they cannot be found."""
    from compiler.checks.evidence import covered_lines

    ev = item.evidence[j]
    if ev.symbol is None and ev.start is None:
        found = repo.find(path, ev.contains, limit=1) if ev.contains else []
        first = found[0] - 1 if found else 0
        return Range(line=first, column=0, end_line=first, end_column=0)
    known = resolved.get((item.position, j))
    span = known[:2] if known is not None else covered_lines(ev, repo)
    if span is None:
        return Range(line=0, column=0, end_line=0, end_column=0)
    return Range(line=span[0] - 1, column=0, end_line=span[1], end_column=0)


def references(analysis: Analysis, line: int, column: int, include_declaration: bool) -> list[Range]:
    """Every depends_on entry (or ``dependencies`` entry) naming the id under the place (the place
    being the id's value or such an entry), in the document's order; with
    ``include_declaration``, the id's value too."""
    found = named_at(analysis, line, column)
    if found is None:
        return []
    wanted: tuple[Role, ...] = ("id", "dependency") if include_declaration else ("dependency",)
    return [value_range(analysis, node) for node in _places(analysis, found[0].value, wanted)]


# --- rename ----------------------------------------------------------------------------------------------


def prepare_rename(analysis: Analysis, line: int, column: int) -> Range | None:
    """The range of the id under the place (its value, or a depends_on entry naming it) when it is
    an item's id that can be renamed; else None."""
    found = named_at(analysis, line, column)
    if found is None or analysis.result is None or found[0].value not in analysis.result.plan.known_ids:
        return None
    return value_range(analysis, found[0])


def rename(analysis: Analysis, line: int, column: int, new_id: str) -> list[Edit]:
    """The edits that rename the id under the place to ``new_id``: its value and every depends_on
    entry naming it, each written for its place as `fix` writes a value (compiler/load/spans.py:
    in its quotes where they can hold it, plain where that reads back the same, JSON's spelling
    in JSON). Refused (``RenameRefused``) for a new id the plan would refuse (the id grammar,
    mixed scripts, a look-alike or the id of another item), a place that names no item, or an id
    the text writes through a YAML alias; the edited text is read again, and must give the same
    plan with the id renamed."""
    from compiler.core.diagnostics import Fix, PlanInputError
    from compiler.core.display import quoted
    from compiler.core.edits import EditError, apply_text_edits, apply_to_data
    from compiler.load.document import parse_text
    from compiler.load.spans import make_edits

    found = named_at(analysis, line, column)
    if found is None or analysis.result is None:
        raise RenameRefused("there is no item id here to rename")
    old = found[0].value
    plan = analysis.result.plan
    if old not in plan.known_ids:
        raise RenameRefused(f"no item of the plan has the id {quoted(old)}")
    refusal = new_id_problem(plan, old, new_id)
    if refusal is not None:
        raise RenameRefused(refusal)
    doc = analysis.document
    changes = tuple((path, new_id) for path in _named_paths(plan, doc.data, old))
    made = make_edits(analysis.text, doc.format, analysis.name,
                      [Fix(message="rename", applicability="safe", changes=changes)])[0]
    if made is None:
        raise RenameRefused(f"the places of {quoted(old)} could not all be found in the text")
    if made.applicability == "display-only":
        raise RenameRefused(f"{quoted(old)} is written through a YAML alias (&name, *name): rename it by hand")
    try:
        edited = apply_text_edits(analysis.text, made.edits, analysis.name)
        again = parse_text(edited, analysis.name, doc.format).data
    except (EditError, PlanInputError):
        again = None
    if again != apply_to_data(doc.data, changes):
        raise RenameRefused(f"the plan would not read back with {quoted(new_id)} in place of {quoted(old)}")
    return [Edit(edit_range(edit), edit.new_text) for edit in made.edits]


def new_id_problem(plan: Plan, old: str, new: str) -> str | None:
    """Why ``new`` cannot replace the id ``old`` in the plan (one sentence), or None."""
    from compiler.core import ids
    from compiler.core.display import quoted

    if not new.strip():
        return "the new id is empty"
    problem = ids.grammar_problem(new)
    if problem is not None:
        return f"the new id {quoted(new)} {problem}"
    mixed = ids.mixed_scripts(new)
    if mixed is not None:
        return f"the new id {quoted(new)} mixes {mixed[0].title()} and {mixed[1].title()} letters"
    if new != old and new in plan.known_ids:
        return f"{quoted(new)} is already the id of another item"
    shape = ids.skeleton(new)
    other = next((known for known in plan.known_ids if known not in (old, new) and ids.skeleton(known) == shape), None)
    if other is not None:
        return f"the new id {quoted(new)} looks like {quoted(other)}, the id of another item"
    return None


def _named_paths(plan: Plan, data: Any, ident: str) -> list[tuple[Any, ...]]:
    """The paths of every item's id that is ``ident`` and of every depends_on entry naming it."""
    entries = data
    for part in plan.items_path:
        entries = entries[part]
    out: list[tuple[Any, ...]] = [(*plan.items_path, index, "id") for known, index in plan.id_indexes
                                     if known == ident]
    for index, raw in enumerate(entries if isinstance(entries, list) else ()):
        for key in DEPENDS_KEYS if isinstance(raw, dict) else ():
            named = raw.get(key)
            if isinstance(named, list):
                out.extend((*plan.items_path, index, key, k) for k, entry in enumerate(named) if entry == ident)
    return out


# --- the outline ---------------------------------------------------------------------------------------------


def outline(analysis: Analysis) -> list[Symbol]:
    """The plan's items for the editor's outline: grouped by phase (the plan's phases in order of
    first appearance, items of none after them) when the plan gives phases, else by wave when it
    was ordered (dropped items, in no wave, after them), else a flat list, in the file's order.
    An item is its id, its change (cut to one line) and its whole mapping."""
    from compiler.analysis.phases import phase_of

    result = analysis.result
    if result is None:
        return []
    plan = result.plan
    spans = _item_spans(analysis)
    items = [(item, _item_symbol(item, spans[item.position])) for item in plan.every_item() if item.position in spans]
    if plan.gives("phase"):
        groups: dict[str | None, list[Symbol]] = {}
        for item, symbol in items:
            groups.setdefault(phase_of(item), []).append(symbol)
        named = [(name, members) for name, members in groups.items() if name is not None]
        out = [_group(name, f"phase {n}", "phase", members) for n, (name, members) in enumerate(named, 1)]
        if None in groups:
            out.append(_group("no phase", "items of no phase", "phase", groups[None]))
        return out
    if result.waves:
        wave_of = result.wave_of()
        waves: dict[int, list[Symbol]] = {}
        for item, symbol in items:
            waves.setdefault(wave_of.get(item.id, 0), []).append(symbol)
        out = [_group(f"Wave {n}", f"wave {n} of {len(result.waves)}", "wave", waves[n])
               for n in range(1, len(result.waves) + 1) if n in waves]
        if 0 in waves:
            out.append(_group("no wave", "dropped items", "wave", waves[0]))
        return out
    return [symbol for _, symbol in items]


def _item_spans(analysis: Analysis) -> dict[int, tuple[Range, Range | None]]:
    """Each item's index -> its whole range (its first key to its last scalar's end) and the range
    of its id's value, from one walk of the nodes."""
    assert analysis.result is not None
    base = len(analysis.result.plan.items_path)
    starts: dict[int, Range] = {}
    ends: dict[int, tuple[int, int]] = {}
    selections: dict[int, Range] = {}
    for node in nodes(analysis):
        index = item_index(analysis, node.path)
        if index is None:
            continue
        found = value_range(analysis, node)
        starts.setdefault(index, found)
        ends[index] = max(ends.get(index, (0, 0)), (found.end_line, found.end_column))
        if not node.key and len(node.path) == base + 2 and node.path[base + 1] == "id":
            selections.setdefault(index, found)
    return {index: (Range(line=start.line, column=start.column, end_line=ends[index][0], end_column=ends[index][1]),
                    selections.get(index)) for index, start in starts.items()}


def _item_symbol(item: Item, span: tuple[Range, Range | None]) -> Symbol:
    from compiler.core.display import cut

    whole, selection = span
    change = " ".join(item.change.split())
    return Symbol(name=cut(item.id, 128) if item.id else "(no id)", detail=cut(change, MAX_DETAIL), kind="item",
                  range=whole, selection_range=selection if selection is not None else whole)


def _group(name: str, detail: str, kind: SymbolKind, members: list[Symbol]) -> Symbol:
    """A group spanning its members (from the first one's start to the last one's end)."""
    from compiler.core.display import cut

    start = min(members, key=lambda s: (s.range.line, s.range.column)).range
    end = max(members, key=lambda s: (s.range.end_line, s.range.end_column)).range
    whole = Range(line=start.line, column=start.column, end_line=end.end_line, end_column=end.end_column)
    return Symbol(name=cut(name, 128), detail=f"{detail} ({len(members):,} item{'' if len(members) == 1 else 's'})",
                  kind=kind, range=whole, selection_range=members[0].selection_range, children=tuple(members))
