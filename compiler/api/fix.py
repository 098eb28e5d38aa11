"""`fix`: repair what can be repaired mechanically, and nothing else.

Two repairs, both meaning-preserving, and one rewrite on request:

- an evidence entry whose ``contains`` text moved to exactly one other place in the file gets
  its ``line``/``lines`` shifted whole, so that it covers the same code (see ``moved_range``);
- repeated entries in ``depends_on`` and ``evidence`` are removed (the first is kept), and so
  are dependencies already implied through another (EP306: a -> c when a -> b -> c);
- with ``to_symbols``, line evidence that covers exactly one definition becomes that definition,
  ``path::Name`` (compiler/api/fix_symbols.py).

YAML is edited *in place in the text*: only the characters of the changed scalars (and of a
replaced key), and the lines of removed entries, change; comments, key order, quoting and layout
stay byte for byte. Positions come from the composed nodes on the edits' paths (compiler/
yaml_nodes.py: libyaml's events, or ruamel.yaml's composer where the fast reader would defer).
The edited text is parsed again and must give exactly the intended data, or nothing is written. JSON plans are rewritten
in convert's layout (one key per line).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from compiler.compile.pipeline import CompileResult, compile_document
from compiler.core.display import UNSAFE, clip, quoted
from compiler.load.document import Document, parse_text
from compiler.load.sourcemap import Path, Position, SourceMap
from compiler.model.values import Evidence, Item
from compiler.repo.repository import Repository
from compiler.repo.symbols import heuristic_symbols

Edit = tuple[Path, Any]  # (path in the document, new value), (path, REMOVE) or (path, Rename(...))
REMOVE = object()


class Rename(NamedTuple):
    """An edit's value that replaces the key at the end of its path as well: the mapping keeps
    its order, with ``key: value`` where the old key and its value were."""

    key: str
    value: Any


@dataclass
class FixResult:
    name: str
    original: str
    fixed: str
    changes: list[str] = field(default_factory=list)  # one line per repair, for people
    result: CompileResult | None = None  # the plan compiled after the repairs
    left: list[str] = field(default_factory=list)  # repairs that could not be made safely, and why


class FixError(Exception):
    """The repairs could not be applied safely; nothing was written."""


def plan_edits(result: CompileResult, *, pin: bool = False,
               to_symbols: bool = False) -> tuple[list[Edit], list[str], list[str]]:
    """The repairs a compiled plan allows, as edits to its document, their descriptions, and what
    was left (and why); with ``pin``, also a pin for every entry that cites lines or a symbol,
    holds, and has none; with ``to_symbols``, also the rewrites of line evidence into symbols."""
    from compiler.repo.repository import Repository

    if not result.evidence_verified:
        return (*_edits(result, None, pin), [])
    with Repository(result.root) as repo:
        edits, notes = _edits(result, repo, pin)
        left: list[str] = []
        if to_symbols:
            from compiler.api.fix_symbols import symbol_edits

            more, more_notes, left = symbol_edits(result, repo)
            edits, notes = edits + more, notes + more_notes
        return edits, notes, left


def _edits(result: CompileResult, repo: Repository | None, pin: bool) -> tuple[list[Edit], list[str]]:
    from compiler.analysis.progress import live
    from compiler.checks.context import repeated
    from compiler.checks.dependencies import redundant
    from compiler.checks.evidence import covered_lines, verify
    from compiler.core.pins import pin_of

    plan, base = result.plan, result.plan.items_path
    edits: list[Edit] = []
    notes: list[str] = []
    raw_items = _at(result.document.data, base)
    shifts: dict[str, set[int]] = {}  # path -> how far the pinned lines found at one place moved
    several: list[tuple[Item, Evidence, Path, str, Any, tuple[int, ...]]] = []  # found at several places
    for r in redundant(live(plan.items)):  # as EP306 finds them: a dropped item implies nothing
        edits.append(((*base, r.item.position, r.item.depends_key, r.at), REMOVE))
        notes.append(f"{clip(r.item.id)}: removed dependency {clip(r.dep)}, implied through {clip(r.via)}")
    for item in plan.items:
        raw = raw_items[item.position]
        for j in repeated(item.depends_on):
            edits.append(((*base, item.position, item.depends_key, j), REMOVE))
            notes.append(f"{clip(item.id)}: removed repeated dependency {clip(item.depends_on[j])}")
        repeats = set(repeated(item.evidence))
        for j in sorted(repeats):
            edits.append(((*base, item.position, "evidence", item.evidence_index(j)), REMOVE))
            notes.append(f"{clip(item.id)}: removed repeated evidence {clip(item.evidence[j].ref())}")
        for j, ev in enumerate(item.evidence):
            if j in repeats or repo is None or (ev.start is None and ev.symbol is None):
                continue
            at = (*base, item.position, "evidence", item.evidence_index(j))
            finding = verify(ev, repo, item.id)
            if finding is None:
                if pin and ev.pin is None and (span := covered_lines(ev, repo)) is not None:
                    digest = pin_of(repo.text(ev.path or "", *span) or "")
                    edits.append(_pin_edit(at, raw["evidence"][item.evidence_index(j)], ev, digest))
                    notes.append(f"{clip(item.id)}: pinned {clip(ev.ref())} at {digest}")
                continue
            entry = raw["evidence"][item.evidence_index(j)]  # entries that could not be read are not in item.evidence
            if ev.start is None or ev.end is None or not isinstance(entry, dict):
                continue  # a symbol moves with its name; the string form has no contains or pin
            key = "line" if "line" in entry else "lines"
            if finding.moved_lines is not None:  # pinned lines found whole at one other place: exact
                start, end = finding.moved_lines
                shifts.setdefault(ev.path or "", set()).add(start - ev.start)
                edits.append(((*at, key), _lines_value(entry[key], key, start, end)))
                notes.append(f"{clip(item.id)}: {clip(ev.ref())} -> {clip(ev.path or '')}:{_span(start, end)}"
                             " (the pinned lines moved)")
                continue
            if finding.pinned_at:
                several.append((item, ev, at, key, entry[key], finding.pinned_at))
                continue
            if finding.moved_to is None:
                continue
            found = finding.moved_to
            heads = ev.end > ev.start and bool(heuristic_symbols([repo.text(ev.path or "", found, found) or ""]))
            moved = moved_range(ev.start, ev.end, found, repo.facts(ev.path or "").line_count, heads=heads)
            if moved is None:
                continue
            start, end = moved
            edits.append(((*at, key), _lines_value(entry[key], key, start, end)))
            how = ("" if end == start else ", the first line of the range: it defines something" if heads
                   else f" to line {found}: where it was in the range is not known, so the range is centred on it")
            notes.append(f"{clip(item.id)}: {clip(ev.ref())} -> {clip(ev.path or '')}:{_span(start, end)}"
                         f" ({quoted(ev.contains or '')} moved{how})")
    # Pinned lines found at several places (a `return x`, a closing quote) move only where every
    # pinned entry of the same file that was found at one place moved by the same distance, and
    # that distance leads to one of the places: the file was shifted there, not rewritten.
    for item, ev, at, key, old, places in several:
        moves = shifts.get(ev.path or "", set())
        if len(moves) != 1 or ev.start is None or ev.end is None:
            continue
        delta = next(iter(moves))
        if ev.start + delta not in places:
            continue
        start, end = ev.start + delta, ev.end + delta
        edits.append(((*at, key), _lines_value(old, key, start, end)))
        notes.append(f"{clip(item.id)}: {clip(ev.ref())} -> {clip(ev.path or '')}:{_span(start, end)} (the pinned"
                     f" lines are found at {len(places)} places; this is the one {delta:+} lines away, as far as"
                     f" the file's other pinned entries moved)")
    return edits, notes


def _span(start: int, end: int) -> str:
    return f"{start}" if start == end else f"{start}-{end}"


def _lines_value(old: Any, key: str, start: int, end: int) -> Any:
    """The new value of a ``line``/``lines`` key, in the type the plan gave: a number stays one."""
    if key == "line" or (isinstance(old, int) and start == end):
        return start
    return _span(start, end)


def _pin_edit(at: Path, entry: Any, ev: Evidence, digest: str) -> Edit:
    """The edit that pins one entry: a ``pin`` key added to the object form, or the string form
    replaced by the object form with its pin (a flow mapping in YAML, in the entry's place)."""
    if isinstance(entry, dict):
        return (*at, "pin"), digest
    return at, {**ev.to_dict(), "pin": digest}


def moved_range(start: int, end: int, found: int, line_count: int, *, heads: bool = False) -> tuple[int, int] | None:
    """Where the range ``start``-``end`` goes when its ``contains`` text left it and is now found
    (once) at line ``found``: shifted whole, by the distance the text moved, so that it covers
    the same code and keeps its length. The text was on some line of the old range, but which
    is recorded nowhere (fix reads the plan and the files as they are now, no history), so:

    - a one-line range moves to the text's line (nothing to guess);
    - when the text's line defines something (``heads``: ``def``, ``class``, ``NAME =``, a
      heading: what the symbol finder takes for a definition), the range is taken to start at
      it, as ranges that cite a definition do;
    - otherwise the range is centred on the text (it keeps its middle line, the upper one for
      an even length): a guess never more than half the range off, wherever the text was.

    Kept inside the file (a range centred near its end moves up, still holding the text); None
    when the file is shorter than the range."""
    length = end - start + 1
    if length > line_count:
        return None
    new_start = found - (0 if length == 1 or heads else (length - 1) // 2)
    new_start = max(1, min(new_start, line_count - length + 1))
    return new_start, new_start + length - 1


def _at(data: Any, path: Path) -> Any:
    for part in path:
        data = data[part]
    return data


def apply_to_data(data: Any, edits: list[Edit]) -> Any:
    """The same edits on a copy of plain data; removals last-first so indexes hold. Only the
    containers on an edited path are copied (shallowly, without recursion): the rest is shared,
    so any depth of nesting elsewhere costs nothing."""
    owned: set[int] = set()  # ids of the copies made so far

    def own(container: Any) -> Any:
        if id(container) in owned:
            return container
        copy = container.copy()
        owned.add(id(copy))
        return copy

    out = own(data)
    for path, value in sorted(edits, key=lambda e: e[0], reverse=True):
        parent = out
        for part in path[:-1]:
            child = own(parent[part])
            parent[part] = child
            parent = child
        if value is REMOVE:
            del parent[path[-1]]
        elif isinstance(value, Rename):  # in place: the keys after it stay after it
            pairs = list(parent.items())
            parent.clear()
            parent.update((value if k == path[-1] else (k, v)) for k, v in pairs)
        else:
            parent[path[-1]] = value
    return out


def apply_to_yaml(text: str, edits: list[Edit], *, nodes: tuple[Any, bool] | None = None) -> str:
    """Edit the YAML text itself: scalars are replaced in place (keeping their quotes), a renamed
    key and its value likewise, a scalar replaced by a mapping becomes a flow mapping in its
    place, a key new to a mapping is added after its last entry (a line of its own in block
    style, ``, key: value`` in flow style), and removed sequence entries take their lines (block
    style) or their ', item' (flow style) with them. The positions come from one reading of the
    text (compiler/load/yaml_nodes.py), whatever the number of edits, or from ``nodes``, what its
    ``compose`` gave for paths that include the edits'; raises FixError for a path that is not in
    the text."""
    from compiler.load.yaml_nodes import compose

    root, _ = nodes if nodes is not None else compose(text, [path for path, _ in edits])
    removed: dict[Path, set[int]] = {}  # a sequence's path -> the indexes removed from it
    for path, value in edits:
        if value is REMOVE:
            removed.setdefault(path[:-1], set()).add(path[-1])
    first_kept = {seq: next(i for i in itertools.count() if i not in indexes) for seq, indexes in removed.items()}
    spans: list[tuple[int, int, str]] = []
    for path, value in edits:
        node, parent = _node_at(root, path)
        if node is None:
            spans.append(_added_key(text, parent, path[-1], value))
        elif value is REMOVE:
            spans.append(_removal(text, parent, path[-1], first_kept[path[:-1]]))
        elif isinstance(value, Rename):
            key = next(k for k, _ in parent.value if k.value == path[-1])
            spans.append(_replacement(text, key, value.key))
            spans.append(_replacement(text, node, value.value))
        elif isinstance(value, dict):
            spans.append((node.start_mark.index, node.end_mark.index, _flow_mapping(value)))
        elif node.start_mark.index == node.end_mark.index and isinstance(path[-1], str):
            spans.append(_filled(text, parent, path[-1], value))
        else:
            spans.append(_replacement(text, node, value))
    pieces: list[str] = []  # the text between the spans and their replacements, in order: one join
    end = len(text)
    for start, stop, new in sorted(spans, reverse=True):
        pieces += (text[stop:end], new)
        end = start
    pieces.append(text[:end])
    return "".join(reversed(pieces))


def _child(node: Any, part: Any) -> Any:
    """The child of a composed node at one step of a path (an index, a key), or None."""
    kind = type(node).__name__
    if kind == "SequenceNode" and type(part) is int:
        return node.value[part] if 0 <= part < len(node.value) else None
    if kind == "MappingNode" and type(part) is str:
        return next((v for k, v in node.value if k.value == part), None)
    return None


def _node_at(root: Any, path: Path) -> tuple[Any, Any]:
    """The node at ``path`` and its parent; (None, the mapping) when the last step is a key the
    mapping does not have yet (an edit that adds it). Raises FixError when the path is not in
    the text."""
    node, parent = root, None
    for n, part in enumerate(path):
        parent, node = node, _child(node, part)
        if node is None:
            if n == len(path) - 1 and type(parent).__name__ == "MappingNode" and type(part) is str:
                return None, parent
            raise FixError("the edited file would not read back as intended; nothing was written")
    return node, parent


# Text that reads back as itself, written plain, in YAML 1.2 and 1.1 alike, in block and flow
# context: a line range (11-12), a name or path (app/x.py::Account.create) that is no
# boolean, null, number (.5) or .inf/.nan and does not end in a colon, or lowercase hex with a
# letter (a pin) that is no float (12e4) or binary number (0b101). Anything else is quoted.
_PLAIN = re.compile(r"[0-9]+-[0-9]+|(?![.][0-9_]|[.]$)[A-Za-z_$./][\w$./:-]*(?<!:)"
                    r"|(?![0-9]+e[0-9]+$|0b[01]+$)[0-9a-f]*[a-f][0-9a-f]*")
_NOT_TEXT = re.compile(r"y|n|yes|no|on|off|true|false|null|\.inf|\.nan", re.IGNORECASE)


def _replacement(text: str, node: Any, value: Any) -> tuple[int, int, str]:
    """The span of a scalar node and what replaces it: ``value`` in the node's quotes, escaped
    for them; for a plain node, plain when that reads back as the same text, else quoted. A
    block scalar (``|``, ``>``) becomes a quoted one, keeping the line break it ends with."""
    start, end = node.start_mark.index, node.end_mark.index
    if text[start] in "|>":
        body = text[start:end]
        return start, end, _scalar_text("'", value) + body[len(body.rstrip()):]
    return start, end, _scalar_text(text[start] if text[start] in "'\"" else "", value)


def _filled(text: str, mapping: Any, key: str, value: Any) -> tuple[int, int, str]:
    """A key left blank (``approved_by:`` with nothing after it) given a value: written after its
    colon (an empty scalar's marks point past it, at whatever follows)."""
    node = next(k for k, _ in mapping.value if k.value == key)
    colon = text.index(":", node.end_mark.index)
    return colon + 1, colon + 1, " " + _scalar_text("", value)


# What a single-quoted scalar cannot hold as itself, nor should a plan show raw: what YAML does
# not allow in a file (C0 controls but tab and line breaks, DEL, C1 but NEL, surrogates, U+FFFE,
# U+FFFF), line breaks (folded to a space inside quotes: \n, \r, NEL, U+2028, U+2029) and
# compiler/core/display.py's unsafe characters (bidirectional and invisible controls, the byte-order
# mark, tabs). Such text is written double-quoted, each of these characters as an escape.
_ESCAPED = re.compile(f"{UNSAFE.pattern[:-1]}\ufffe\uffff]")
_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\0"}
_DOUBLE_QUOTED = re.compile(f'[\\\\"{_ESCAPED.pattern[1:-1]}]')


def _yaml_escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _scalar_text(quote: str, value: Any) -> str:
    """``value`` as a YAML scalar that reads back as itself, in both readers: plain where the node
    was plain and that is safe, else in the node's quotes where they can hold it, else
    double-quoted with escapes."""
    if not isinstance(value, str):
        return f"{quote}{value}{quote}"
    if quote != '"' and _ESCAPED.search(value) is None:
        if quote == "" and _PLAIN.fullmatch(value) and not _NOT_TEXT.fullmatch(value):
            return value
        return "'" + value.replace("'", "''") + "'"
    return '"' + _DOUBLE_QUOTED.sub(_yaml_escape, value) + '"'


def _flow_mapping(value: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{key}: {_scalar_text('', v)}" for key, v in value.items()) + "}"


def _added_key(text: str, mapping: Any, key: str, value: Any) -> tuple[int, int, str]:
    """The insertion that adds ``key: value`` to a mapping node, after its last entry."""
    last = mapping.value[-1][1]
    end = last.end_mark.index
    entry = f"{key}: {_scalar_text('', value)}"
    if mapping.flow_style:
        return end, end, f", {entry}"
    indent = " " * mapping.value[0][0].start_mark.column
    eol = "\r\n" if "\r\n" in text else "\n"  # the file's own line ending
    if last.end_mark.column == 0:  # a block value ends at the start of the line after it
        return end, end, f"{indent}{entry}{eol}"
    newline = text.find("\n", end)  # after the rest of the line: a comment there stays with its value
    if newline < 0:
        return len(text), len(text), f"{eol}{indent}{entry}"
    return newline + 1, newline + 1, f"{indent}{entry}{eol}"


def same_key_order(a: Any, b: Any) -> bool:
    """Whether two equal documents also give every mapping's keys in the same order (iterative:
    any depth of nesting)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            stack.extend(zip(x, y, strict=False))
    return True


def _removal(text: str, seq: Any, index: int, first_kept: int) -> tuple[int, int, str]:
    """The span that removing entry ``index`` of a sequence takes, ``first_kept`` being the first
    entry that stays: the spans of several removals never overlap, and together leave the entries
    kept with their separators (``[a, b, c]`` without a and b is ``[c]``)."""
    entries = seq.value
    node = entries[index]
    if seq.flow_style:
        if index > first_kept:  # after a kept entry: its ', item' goes
            return entries[index - 1].end_mark.index, node.end_mark.index, ""
        if index + 1 < len(entries):  # in the leading run of removed entries: 'item, ' goes
            return node.start_mark.index, entries[index + 1].start_mark.index, ""
        return node.start_mark.index, node.end_mark.index, ""  # the last of all: the list is left empty
    # Block style: from the start of the line holding this entry's dash to the start of the
    # line after the entry.
    dash = text.rfind("-", 0, node.start_mark.index)
    line_start = text.rfind("\n", 0, dash) + 1
    end = node.end_mark.index
    if node.end_mark.column != 0 or end == node.start_mark.index:
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    if index + 1 < len(entries):
        next_dash = text.rfind("-", 0, entries[index + 1].start_mark.index)
        end = min(end, text.rfind("\n", 0, next_dash) + 1)
    return line_start, end, ""


def shared_through_alias(text: str, edits: list[Edit], *, nodes: tuple[Any, bool] | None = None) -> list[int]:
    """Indexes of the edits that would change a YAML node written once and used again through an
    alias (``&name`` ... ``*name``): edited in place, it would change every use at once, so such
    edits are left to a person. An edit that adds a key changes the mapping it adds it to. A
    text without aliases costs one pass of libyaml (compiler/load/yaml_nodes.py defers on them);
    ``nodes`` as for ``apply_to_yaml``."""
    from compiler.load.yaml_nodes import compose

    root, reference = nodes if nodes is not None else compose(text, [path for path, _ in edits])
    if not reference:  # composed from libyaml's events, which hold no alias
        return []
    uses: dict[int, int] = {}
    stack = [root]
    while stack:  # iterative, and each shared node walked once
        node = stack.pop()
        uses[id(node)] = uses.get(id(node), 0) + 1
        if uses[id(node)] > 1 or type(node).__name__ == "ScalarNode":
            continue
        if type(node).__name__ == "SequenceNode":
            stack.extend(node.value)
        else:
            for key, value in node.value:
                stack.extend((key, value))
    shared = []
    for n, (path, _) in enumerate(edits):
        node = root
        for part in path:
            child = _child(node, part) if uses.get(id(node), 0) <= 1 else None
            if child is None:  # shared, or a key the edit adds: this node decides
                break
            node = child
        if uses.get(id(node), 0) > 1:
            shared.append(n)
    return shared


class _OnDisk(SourceMap):
    """The positions of the file as it is on disk, for the plan as fix would make it: a path of
    the edited data is read as the path of the same node in the original, which differs only
    where repeated entries were removed (an index past a removed entry counts it back in).
    Replaced values keep their place: they start where the old ones did."""

    def __init__(self, original: SourceMap, edits: list[Edit]) -> None:
        super().__init__({}, {})
        self._original = original
        self._removed: dict[Path, list[int]] = {}  # parent path (original indexes) -> removed indexes
        self._renamed: dict[Path, Any] = {}  # path of a renamed key (its new name) -> the old name
        for edit_path, value in edits:
            if value is REMOVE:
                self._removed.setdefault(edit_path[:-1], []).append(edit_path[-1])
            elif isinstance(value, Rename):
                self._renamed[(*edit_path[:-1], value.key)] = edit_path[-1]
        for indexes in self._removed.values():
            indexes.sort()

    def _original_path(self, path: Path) -> Path:
        out: list[Any] = []
        for part in path:
            step = part
            removed = self._removed.get(tuple(out)) if type(part) is int else None
            for index in removed or ():  # ascending: each removed entry at or before it shifts it on
                if index > step:
                    break
                step += 1
            out.append(step)
        original = tuple(out)
        if original in self._renamed:  # a renamed key is where the old one is
            return (*original[:-1], self._renamed[original])
        return original

    def value(self, path: Path) -> Position | None:
        return self._original.value(self._original_path(path))

    def has(self, path: Path) -> bool:
        return self._original.has(self._original_path(path))

    def key(self, path: Path) -> Position | None:
        return self._original.key(self._original_path(path))


def fix_document(doc: Document, text: str, path: str, *, root: str | None = None,
                 dry_run: bool = False, pin: bool = False, to_symbols: bool = False) -> FixResult:
    """The repairs of a plan (``doc``, read from ``text`` at ``path``), the text they make, and the
    plan compiled after them. Its diagnostics are located in the fixed text, the file as it will
    be; with ``dry_run``, which writes nothing, in ``text``, the file as it stays on disk. With
    ``to_symbols``, line evidence that covers exactly one definition is rewritten as it too. With
    ``pin``, entries that cite lines or a symbol and hold are pinned (compiler/core/pins.py), after the
    other repairs: an entry they moved or rewrote is pinned where, and as, they left it."""
    if pin:
        first = _fix_once(doc, text, path, root=root, to_symbols=to_symbols)
        if first.changes:
            doc = parse_text(first.fixed, doc.name, doc.format)
        second = _fix_once(doc, first.fixed, path, root=root, dry_run=dry_run, pin=True)
        return FixResult(doc.name, text, second.fixed, first.changes + second.changes, second.result,
                         first.left + second.left)
    return _fix_once(doc, text, path, root=root, dry_run=dry_run, to_symbols=to_symbols)


def _fix_once(doc: Document, text: str, path: str, *, root: str | None = None, dry_run: bool = False,
              pin: bool = False, to_symbols: bool = False) -> FixResult:
    result = compile_document(doc, path, root=root)
    edits, notes, left = plan_edits(result, pin=pin, to_symbols=to_symbols)
    nodes = None  # the YAML nodes of the edits' paths, composed once for both uses
    if edits and doc.format == "yaml" and ("&" in text and "*" in text):
        from compiler.load.yaml_nodes import compose

        nodes = compose(text, [at for at, _ in edits])
        shared = set(shared_through_alias(text, edits, nodes=nodes))
        left += [f"it is used again through a YAML alias (&name, *name), so edit it by hand: {notes[n]}"
                 for n in sorted(shared)]
        edits = [e for n, e in enumerate(edits) if n not in shared]
        notes = [note for n, note in enumerate(notes) if n not in shared]
    if not edits:
        return FixResult(doc.name, text, text, [], result, left)
    intended = apply_to_data(doc.data, edits)
    if doc.format == "json":
        from compiler.api.convert import dump_json

        fixed = dump_json(intended)  # the layout convert writes: one key per line
    else:
        fixed = apply_to_yaml(text, edits, nodes=nodes)
    again = parse_text(fixed, doc.name, doc.format)
    # The safety net: never write a file that means something else. Mappings compare equal in
    # any key order, so where a key was renamed the order is compared too.
    renames = any(isinstance(value, Rename) for _, value in edits)
    if again.data != intended or (renames and not same_key_order(again.data, intended)):
        raise FixError("the edited file would not read back as intended; nothing was written")
    if dry_run:
        again = doc._replace(data=intended, source_map=_OnDisk(doc.source_map, edits))
    return FixResult(doc.name, text, fixed, notes, compile_document(again, path, root=root), left)
