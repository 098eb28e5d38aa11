"""Completion in a plan's text, for `evidence-plan lsp`: what may be typed at the cursor, read from
the place there (compiler/api/editor_place.py: the text around the cursor, never a parse) and the
plan format's declarations (compiler/model/fields.py), so that a new field, choice or unit needs
no edit here. No protocol here (compiler/serve/lsp.py speaks it).

What is offered, by place:

- a ``depends_on`` entry (or its alias's): the ids of the last plan that could be read, but the
  item's own and those the list gives already; the detail is the item's change;
- an evidence entry, or an evidence object's ``path``: the entries of one folder of the
  repository, one level at a time (``src/pk`` offers what ``src`` holds that starts with ``pk``),
  walked as `check DIR` walks (compiler/repo/discover.py): no tool or vendored folder, no virtual
  environment, no symlink that leads out of the root, hidden names only when a dot is typed, at
  most MAX_LISTED names;
- after ``::`` in an evidence entry, or an evidence object's ``symbol`` beside its ``path``: the
  symbols of that file as `evidence-plan symbols` lists them, with their lines;
- a key of a mapping the format declares (the plan's, an item's, an evidence object's, an
  estimate's, a claim's, a budget's): its fields but those given, aliases left out;
- the value of a choice field (``status``, ``kind``) and an estimate's words (its unit and
  confidence): the declared words.

A value's ``new_text`` reads back as the text it names: quoted where YAML would read it as
something else (``yes``, ``1.0``), escaped inside the quotes typed, a JSON string in JSON
(compiler/core/scalars.py). Its ``range`` is the word typed so far, inside its quotes: a path's
last part, what follows ``::``; the whole value when it must be quoted. A key's range is the key
as typed, its quotes and the rest of its word after the cursor included, and its ``new_text``
brings the colon unless the line has one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Literal, NamedTuple

from compiler.api.editor import Range
from compiler.api.editor_place import ENTRY, Place, place_at
from compiler.core.paths import inside, is_absolute, leaves_root
from compiler.core.scalars import scalar_text, yaml_scalar
from compiler.model import fields
from compiler.repo.discover import SKIPPED_FOLDERS
from compiler.repo.repository import is_text

if TYPE_CHECKING:
    from compiler.api.editor import Analysis

Kind = Literal["id", "file", "folder", "symbol", "field", "word"]
KINDS: tuple[Kind, ...] = ("id", "file", "folder", "symbol", "field", "word")

MAX_LISTED = 500
"""Names of one folder offered at most (the first by name, of those that start as typed)."""
MAX_SCANNED = 20_000
"""Entries of one folder looked at at most (a few milliseconds): a larger folder offers part of itself."""

DEPENDS_ON = "depends_on"  # the item field whose entries are item ids (``locks`` are ids of another kind)
PATH, SYMBOL = "path", "symbol"  # the evidence object's fields that name a file and a symbol in it


class Completion(NamedTuple):
    """One thing that may be typed: ``new_text`` in place of ``range``."""

    label: str
    kind: Kind
    detail: str | None
    range: Range
    new_text: str


def complete(text: str, line: int, column: int, *, fmt: str, root: str | None,
             good: Analysis | None) -> list[Completion]:
    """What may be typed at (line, column) of ``text`` (the editor's, ``fmt`` ``yaml`` or
    ``json``): ``good``, the last analysis that could be read, gives the ids; ``root``, the plan's
    repository root (absolute), the paths and symbols (none without one). Empty where nothing fits."""
    place = place_at(text, line, column, fmt)
    if place is None:
        return []
    shape = _shape_at(place.path)
    if shape is None:
        return []
    if place.role == "key" or (place.role == "entry" and shape.scalar is None):
        return _keys(place, shape, fmt)
    if shape.scalar is None:
        return []
    return SCALARS[shape.scalar](place, shape, fmt, root, good)


# --- what the format declares at a place ------------------------------------------------------------


class _Shape(NamedTuple):
    """What a place of a plan holds by the declarations: a mapping's keys (name, alias, detail),
    the shape at each of its keys or entries (``child``), what a scalar there is (SCALARS' key)."""

    keys: tuple[tuple[str, str | None, str | None], ...] = ()
    child: Callable[[str], _Shape | None] | None = None
    scalar: str | None = None
    words: tuple[str, ...] = ()
    default: object = None


def _shape_at(path: tuple[str, ...]) -> _Shape | None:
    # The root: the plan's mapping, or a list of items (a plan may be its item list).
    shape: _Shape | None = _Shape(keys=_declared(fields.PLAN_FIELDS),
                                  child=lambda part: _item() if part == ENTRY else _value(fields.PLAN_FIELDS, part))
    for part in path:
        if shape is None or shape.child is None:
            return None
        shape = shape.child(part)
    return shape


def _declared(declared: tuple[fields.Field, ...]) -> tuple[tuple[str, str | None, str | None], ...]:
    return tuple((f.name, f.alias, f.description) for f in declared)


def _value(declared: tuple[fields.Field, ...], key: str) -> _Shape | None:
    for f in declared:
        if key == f.name or (f.alias is not None and key == f.alias):
            return VALUES[f.kind](f)
    return None


def _list(entry: _Shape) -> _Shape:
    return _Shape(child=lambda part: entry if part == ENTRY else None)


def _item() -> _Shape:
    return _Shape(keys=_declared(fields.ITEM_FIELDS), child=lambda part: _value(fields.ITEM_FIELDS, part))


def _evidence_entry() -> _Shape:
    """A reference (``path``, ``path::Name``) or an evidence object."""
    scalars = {PATH: "path", SYMBOL: "symbol"}
    return _Shape(keys=_declared(fields.EVIDENCE_FIELDS), scalar="reference",
                  child=lambda part: _Shape(scalar=scalars[part]) if part in scalars else None)


def _parts(parts: tuple[tuple[str, bool], ...], words: Mapping[str, tuple[str, ...]]) -> _Shape:
    """An estimate's or a claim's mapping: its parts, those that are words with them."""
    return _Shape(keys=tuple((name, None, "required" if needed else None) for name, needed in parts),
                  child=lambda part: _Shape(scalar="word", words=words[part]) if part in words else None)


def _nothing(field: fields.Field) -> _Shape | None:
    return None


# The parts of an estimate that are words; a claim's unit is any text (requests per second, rows).
ESTIMATE_WORDS = {"unit": tuple(fields.UNIT_HOURS), "confidence": fields.CONFIDENCES}
CLAIM_WORDS = {"confidence": fields.CONFIDENCES}

# What a value of each kind of field holds that completion offers, None for none.
VALUES: dict[fields.Kind, Callable[[fields.Field], _Shape | None]] = {
    "text": _nothing,
    "optional-text": _nothing,
    "ids": lambda f: _list(_Shape(scalar="id")) if f.name == DEPENDS_ON else None,
    "evidence": lambda f: _list(_evidence_entry()),
    "proof": _nothing,
    "optional-line": _nothing,
    "optional-lines": _nothing,
    "items": lambda f: _list(_item()),
    "choice": lambda f: _Shape(scalar="word", words=f.choices, default=f.default),
    "flag": _nothing,
    "optional-estimate": lambda f: _parts(fields.ESTIMATE_PARTS, ESTIMATE_WORDS),
    "claims": lambda f: _list(_parts(fields.CLAIM_PARTS, CLAIM_WORDS)),
    "paths": _nothing,
    "budget": lambda f: _Shape(keys=tuple((name, None, about) for name, about in fields.BUDGET_PARTS)),
}


# --- keys -----------------------------------------------------------------------------------------

_REST_OF_KEY = {"": re.compile(r"[^\s:#,\[\]{}\"']*"), '"': re.compile(r'(?:[^"\\]|\\.)*"'),
                "'": re.compile(r"(?:[^']|'')*'")}


def _keys(place: Place, shape: _Shape, fmt: str) -> list[Completion]:
    if not shape.keys or _spaced(place.typed):
        return []
    cursor = place.start + len(place.typed)
    rest = _REST_OF_KEY[place.quote].match(place.rest)
    end = cursor + (rest.end() if rest else 0)
    colon = place.rest[end - cursor:].lstrip(" \t").startswith(":")
    where = Range.on(place.line, place.start - len(place.quote), end)
    out = []
    for name, alias, detail in shape.keys:
        if name in place.siblings or (alias is not None and alias in place.siblings):
            continue
        written = json.dumps(name, ensure_ascii=False) if fmt == "json" else yaml_scalar(name)
        out.append(Completion(label=name, kind="field", detail=detail, range=where,
                              new_text=written if colon else f"{written}: "))
    return out


# --- values ---------------------------------------------------------------------------------------

Completer = Callable[[Place, _Shape, str, "str | None", "Analysis | None"], list[Completion]]


def _ids(place: Place, shape: _Shape, fmt: str, root: str | None, good: Analysis | None) -> list[Completion]:
    if good is None or good.result is None or _spaced(place.typed):
        return []
    plan = good.result.plan
    changes = {item.id: item.change for item in plan.items}
    raw = good.document.data
    for part in plan.items_path:
        raw = raw.get(part) if isinstance(raw, dict) else None
    skip = {*place.listed, place.item}
    out = []
    for ident, index in plan.id_indexes:
        if ident in skip:
            continue
        skip.add(ident)
        change = changes.get(ident)
        if change is None and isinstance(raw, list) and index < len(raw) and isinstance(raw[index], dict):
            given = raw[index].get("change")
            change = given if isinstance(given, str) else None
        out.extend(_value_completion(place, fmt, ident, "id", change or None))
    return out


def _words(place: Place, shape: _Shape, fmt: str, root: str | None, good: Analysis | None) -> list[Completion]:
    if _spaced(place.typed):
        return []
    return [found for word in shape.words
            for found in _value_completion(place, fmt, word, "word", "default" if word == shape.default else None)]


def _references(place: Place, shape: _Shape, fmt: str, root: str | None,
                good: Analysis | None) -> list[Completion]:
    at = place.typed.find("::")
    if at < 0:
        return _paths(place, shape, fmt, root, good)
    return _symbols(place, fmt, root, _decoded(place, place.typed[:at]), at + 2)


def _paths(place: Place, shape: _Shape, fmt: str, root: str | None, good: Analysis | None) -> list[Completion]:
    if root is None:
        return []
    cut = place.typed.rfind("/") + 1
    out = []
    for name, folder in folder_entries(root, _decoded(place, place.typed[:cut]), _decoded(place, place.typed[cut:])):
        piece = f"{name}/" if folder else name
        out.extend(_value_completion(place, fmt, piece, "folder" if folder else "file", None, cut))
    return out


def _symbol_value(place: Place, shape: _Shape, fmt: str, root: str | None,
                  good: Analysis | None) -> list[Completion]:
    return _symbols(place, fmt, root, place.siblings.get(PATH), 0)


def _symbols(place: Place, fmt: str, root: str | None, path: str | None, offset: int) -> list[Completion]:
    if root is None or not path:
        return []
    out = []
    for name, first, last in file_symbols(root, path):
        lines = f"line {first}" if first == last else f"lines {first}-{last}"
        out.extend(_value_completion(place, fmt, name, "symbol", lines, offset))
    return out


# What a scalar of each shape completes (_Shape.scalar).
SCALARS: dict[str, Completer] = {"id": _ids, "word": _words, "reference": _references, "path": _paths,
                                 "symbol": _symbol_value}


def _value_completion(place: Place, fmt: str, piece: str, kind: Kind, detail: str | None,
                      offset: int = 0) -> list[Completion]:
    """``piece`` written in place of what is typed from ``offset`` (into the typed text) to the
    cursor, so that the whole value reads back as the text typed before it and ``piece``: escaped
    inside the quotes typed; plain YAML where it stays plain, else the whole value quoted; in
    JSON, a string. Nothing when the single quotes typed cannot hold it."""
    line, cursor = place.line, place.start + len(place.typed)
    tail = Range.on(line, place.start + offset, cursor)
    whole = Range.on(line, place.start, cursor)
    if place.quote == '"':
        written = json.dumps(piece, ensure_ascii=False) if fmt == "json" else scalar_text('"', piece)
        found = (tail, written[1:-1])
    elif place.quote == "'":
        written = scalar_text("'", piece)
        if not written.startswith("'"):
            return []
        found = (tail, written[1:-1])
    elif fmt == "json":
        found = (whole, json.dumps(place.typed[:offset] + piece, ensure_ascii=False))
    else:
        value = place.typed[:offset] + piece
        written = yaml_scalar(value, flow=place.flow)
        found = (tail, piece) if written == value else (whole, written)
    return [Completion(label=piece, kind=kind, detail=detail, range=found[0], new_text=found[1])]


def _decoded(place: Place, raw: str) -> str:
    """Typed text as the value it spells (escapes undone)."""
    if place.quote == "'":
        return raw.replace("''", "'")
    if place.quote == '"':
        try:
            value = json.loads(f'"{raw}"')
        except ValueError:
            return raw
        return value if isinstance(value, str) else raw
    return raw


def _spaced(typed: str) -> bool:
    return any(char.isspace() for char in typed)


# --- the repository -------------------------------------------------------------------------------


def folder_entries(root: str, folder: str, prefix: str) -> list[tuple[str, bool]]:
    """The names in ``folder`` (relative to ``root``, POSIX; empty for the root) that start with
    ``prefix``, with whether each is a folder, sorted, at most MAX_LISTED: only that folder is
    read. Nothing for a folder outside the root (``..``, absolute, through a symlink that leads
    out), under a tool or vendored folder or a virtual environment; left out: such folders, a
    symlink that leads out of the root, what is neither file nor folder, hidden names unless
    ``prefix`` starts with a dot, names that are not text."""
    if "\x00" in folder + prefix or "/" in prefix or is_absolute(folder) or leaves_root(folder or "."):
        return []
    parts = [part for part in folder.split("/") if part not in ("", ".")]
    if any(part == ".." or part in SKIPPED_FOLDERS for part in parts):
        return []
    base = os.path.realpath(root)
    here = base
    found: list[tuple[str, bool]] = []
    try:
        for part in parts:
            here = os.path.realpath(os.path.join(here, part))
            if not inside(here, base) or not os.path.isdir(here) or os.path.lexists(os.path.join(here, "pyvenv.cfg")):
                return []
        with os.scandir(here) as listing:
            for seen, entry in enumerate(listing):
                if seen == MAX_SCANNED:
                    break
                name = entry.name
                if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
                    continue
                folder_entry = _folder(entry, base)
                if folder_entry is not None and is_text(name) and not (folder_entry and name in SKIPPED_FOLDERS):
                    found.append((name, folder_entry))
    except OSError:
        return []
    found.sort()
    out = []
    for name, folder_entry in found:
        if folder_entry and os.path.lexists(os.path.join(here, name, "pyvenv.cfg")):
            continue  # a virtual environment
        out.append((name, folder_entry))
        if len(out) == MAX_LISTED:
            break
    return out


def _folder(entry: os.DirEntry[str], base: str) -> bool | None:
    """Whether an entry is a folder (True) or a file (False), a symlink judged by what it leads
    to inside the root; None for anything else, and for a symlink that leads out."""
    try:
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if not inside(real, base):
                return None
            return True if os.path.isdir(real) else False if os.path.isfile(real) else None
        return True if entry.is_dir(follow_symlinks=False) else False if entry.is_file(follow_symlinks=False) else None
    except OSError:
        return None


def file_symbols(root: str, path: str) -> list[tuple[str, int, int]]:
    """The symbols of the file at ``path`` (relative to ``root``) as `evidence-plan symbols` lists
    them: (name, first line, last line) in the file's order. Nothing for a path that is missing,
    outside the root, refused or binary."""
    from compiler.repo.repository import Repository

    with Repository(root) as repo:
        facts = repo.facts(path)
        if facts.kind != "file" or facts.binary:
            return []
        found = repo.symbols(path)
    return sorted(((name, first, last) for name, (first, last) in found.items()),
                  key=lambda symbol: (symbol[1], -symbol[2], symbol[0]))
