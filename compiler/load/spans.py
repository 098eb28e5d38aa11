"""Where a change of a plan's data falls in its text, and what replaces it: the text edits of
every fix (compiler/core/diagnostics.py ``Fix``), made once a compile is done, from one reading
of the text whatever the number of fixes.

A YAML plan keeps every byte but the changed scalars (in their quotes, escaped for them; a plain
one stays plain when that reads back as the same text), a replaced key, and the lines of removed
entries (block style) or their ``, item`` (flow style); a scalar replaced by a list or a mapping
becomes a flow collection in its place, and a key new to a mapping is added after its last entry.
A JSON plan, YAML's flow style, is edited the same way with JSON's own spelling of each value.
Positions come from the composed nodes on the changes' paths (compiler/load/yaml_nodes.py,
compiler/load/json_nodes.py). `fix` parses the edited text again and compares it with the changed
data before anything is written.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from compiler.core.diagnostics import Diagnostic, Fix, TextEdit
from compiler.core.edits import KEEP, REMOVE, SOURCE_TEXT, Change, EditError, Path, Rename
from compiler.core.scalars import json_value, scalar_text, yaml_scalar, yaml_value

Span = tuple[int, int, str]  # (start offset, end offset, new text)


def compose(text: str, fmt: str, paths: list[Path]) -> tuple[Any, bool]:
    """The root node of ``text`` with the collections on ``paths`` composed, and whether YAML's
    reference composer made it (then a node used again through an alias is one object)."""
    if fmt == "json":
        from compiler.load.json_nodes import compose as compose_json

        return compose_json(text, paths), False
    from compiler.load.yaml_nodes import compose as compose_yaml

    return compose_yaml(text, paths)


def spans(text: str, fmt: str, changes: Sequence[Change], root: Any) -> list[Span]:
    """The spans of ``changes``, made together (several removals from one list keep the entries
    left with their separators); ``root`` from ``compose``. Raises EditError for a path that is
    not in the text."""
    removed: dict[Path, set[int]] = {}  # a sequence's path -> the indexes removed from it
    for path, value in changes:
        if value is REMOVE:
            removed.setdefault(path[:-1], set()).add(path[-1])
    first_kept = {seq: next(i for i in itertools.count() if i not in indexes) for seq, indexes in removed.items()}
    json = fmt == "json"
    out: list[Span] = []
    for path, value in changes:
        node, parent = _node_at(root, path)
        if node is None:
            out.append(_added_key(text, parent, path[-1], value, json))
        elif value is REMOVE:
            out.append(_removal(text, parent, path[-1], first_kept[path[:-1]]))
        elif isinstance(value, Rename):
            key = next(k for k, _ in parent.value if k.value == path[-1])
            out.append(_replacement(text, key, value.key, json))
            if value.value is not KEEP:
                out.append(_replacement(text, node, value.value, json))
        elif not json and type(node).__name__ != "ScalarNode" and not node.flow_style:
            out.append(_block_replaced(text, parent, path[-1], node, value))
        elif not json and node.start_mark.index == node.end_mark.index and isinstance(path[-1], str):
            out.append(_filled(text, parent, path[-1], value))
        else:
            out.append(_replacement(text, node, value, json, parent))
    return out


def splice(text: str, replaced: Sequence[Span]) -> str:
    """``text`` with each span replaced (spans that do not overlap), in one join."""
    pieces: list[str] = []
    end = len(text)
    for start, stop, new in sorted(replaced, reverse=True):
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
    mapping does not have yet (a change that adds it). Raises EditError when the path is not in
    the text."""
    node, parent = root, None
    for n, part in enumerate(path):
        parent, node = node, _child(node, part)
        if node is None:
            if n == len(path) - 1 and type(parent).__name__ == "MappingNode" and type(part) is str and parent.value:
                return None, parent
            raise EditError("the edited file would not read back as intended; nothing was written")
    return node, parent


def _written(text: str, start: int, value: Any, json: bool, flow: bool = True) -> str:
    """``value`` as it replaces a node that starts at ``start``: JSON's spelling, or YAML's in
    the node's quotes (a list or a mapping in flow style); text that replaces a plain scalar stays
    plain where that is sure (``yaml_scalar``: words and spaces too, ``flow`` for a node inside a
    flow collection), else it is quoted."""
    if json:
        return json_value(value)
    if isinstance(value, (dict, list)):
        return yaml_value(value)
    quote = text[start] if text[start] in "'\"" else ""
    written = scalar_text(quote, value)
    if quote == "" and isinstance(value, str) and written[:1] in "'\"":
        return yaml_scalar(value, flow)
    return written


def _replacement(text: str, node: Any, value: Any, json: bool = False, parent: Any = None) -> Span:
    """The span of a node and what replaces it: ``value`` in the node's quotes, escaped for them;
    for a plain node, plain when that reads back as the same text, else quoted. A block scalar
    (``|``, ``>``) becomes a quoted one, keeping the line break it ends with."""
    start, end = node.start_mark.index, node.end_mark.index
    if not json and text[start] in "|>":
        body = text[start:end]
        return start, end, scalar_text("'", value) + body[len(body.rstrip()):]
    return start, end, _written(text, start, value, json, parent is None or bool(parent.flow_style))


def _block_replaced(text: str, mapping: Any, key: str, node: Any, value: Any) -> Span:
    """A block-style list or mapping replaced by a value (``lines:`` with ``- 970`` and ``- 1041``
    under it, by ``970-1041``): from after the key's colon to the end of the collection's last
    line, the value on the key's line."""
    key_node = next(k for k, _ in mapping.value if k.value == key)
    colon = text.index(":", key_node.end_mark.index) + 1
    end = node.end_mark.index
    if node.end_mark.column == 0 and end > 0:  # it ends at the start of the line after it
        end -= 2 if text[end - 2:end] == "\r\n" else 1
    else:
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline - (text[newline - 1:newline] == "\r")
    return colon, end, " " + _written(text, colon, value, False)


def _filled(text: str, mapping: Any, key: str, value: Any) -> Span:
    """A key left blank (``approved_by:`` with nothing after it) given a value: written after its
    colon (an empty scalar's marks point past it, at whatever follows)."""
    node = next(k for k, _ in mapping.value if k.value == key)
    colon = text.index(":", node.end_mark.index)
    return colon + 1, colon + 1, " " + yaml_value(value)


def _added_key(text: str, mapping: Any, key: str, value: Any, json: bool) -> Span:
    """The insertion that adds ``key: value`` to a mapping node, after its last entry."""
    last = mapping.value[-1][1]
    end = last.end_mark.index
    if json:
        return end, end, f", {json_value(key)}: {json_value(value)}"
    entry = f"{key}: {yaml_value(value)}"  # a field's name: plain
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


def _removal(text: str, seq: Any, index: int, first_kept: int) -> Span:
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


def shared_through_alias(changes: Sequence[Change], nodes: tuple[Any, bool]) -> list[int]:
    """Indexes of the changes that would change a YAML node written once and used again through
    an alias (``&name`` ... ``*name``): edited in place, it would change every use at once, so
    such a fix is only shown. A change that adds a key changes the mapping it adds it to. Nodes
    composed from libyaml's events hold no alias (compiler/load/yaml_nodes.py defers on them)."""
    root, reference = nodes
    if not reference:
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
    for n, (path, _) in enumerate(changes):
        node = root
        for part in path:
            child = _child(node, part) if uses.get(id(node), 0) <= 1 else None
            if child is None:  # shared, or a key the change adds: this node decides
                break
            node = child
        if uses.get(id(node), 0) > 1:
            shared.append(n)
    return shared


def _edit(name: str, start: tuple[int, int], end: tuple[int, int], new: str) -> TextEdit:
    return TextEdit(file=name, start_line=start[0], start_column=start[1], end_line=end[0], end_column=end[1],
                    new_text=new)


def _source_text(text: str, root: Any, path: Path) -> str:
    """The text of the plain scalar at ``path`` as the file spells it (``SOURCE_TEXT``)."""
    node, _ = _node_at(root, path)
    spelled = text[node.start_mark.index:node.end_mark.index] if type(node).__name__ == "ScalarNode" else ""
    if not spelled or spelled[0] in "'\"|>" or spelled != spelled.strip() or "\n" in spelled:
        raise EditError("not a plain scalar on one line")
    return spelled


ALIASED = "it is used again through a YAML alias (&name, *name), so edit it by hand"


def make_edits(text: str, fmt: str, name: str, fixes: Sequence[Fix]) -> list[Fix | None]:
    """Each fix with the text edits of its changes, from one composition of ``text`` (the file
    ``name``) for them all; a fix that would edit a node used again through a YAML alias becomes
    display-only, saying so; None for one whose changes are not in the text (a rule's mistake:
    no fix is better than a wrong one)."""
    from compiler.core.edits import line_starts

    every = [change for fix in fixes for change in fix.changes]
    if not every:
        return list(fixes)
    nodes = compose(text, fmt, [path for path, _ in every])
    if nodes[0] is None:  # no document: nothing to edit
        return [None] * len(fixes)
    shared = set(shared_through_alias(every, nodes)) if fmt == "yaml" and nodes[1] else set()
    starts = line_starts(text)

    def place(at: int) -> tuple[int, int]:
        import bisect

        line = bisect.bisect_right(starts, at)
        return line, at - starts[line - 1] + 1

    out: list[Fix | None] = []
    first = 0  # the index in ``every`` of the fix's first change
    for given in fixes:
        mine = range(first, first + len(given.changes))
        first += len(given.changes)
        fix = given
        try:
            if any(value is SOURCE_TEXT for _, value in fix.changes):
                fix = fix._replace(changes=tuple((path, _source_text(text, nodes[0], path) if value is SOURCE_TEXT
                                                  else value) for path, value in fix.changes))
            made = spans(text, fmt, fix.changes, nodes[0])
        except (EditError, StopIteration, IndexError, ValueError):
            out.append(None)
            continue
        edits = tuple(_edit(name, place(start), place(end), new) for start, end, new in sorted(made))
        if shared.intersection(mine):
            out.append(fix._replace(edits=edits, applicability="display-only", message=f"{fix.message} ({ALIASED})"))
        else:
            out.append(fix._replace(edits=edits))
    return out


def with_edits(text: str, fmt: str, name: str, diagnostics: Sequence[Diagnostic]) -> tuple[Diagnostic, ...]:
    """The diagnostics, each fix with its text edits (``make_edits``); nothing is read for
    diagnostics without a fix (the commonest plan)."""
    pending = [n for n, d in enumerate(diagnostics) if d.fix is not None and not d.fix.edits]
    if not pending:
        return tuple(diagnostics)
    made = make_edits(text, fmt, name, [diagnostics[n].fix for n in pending])  # type: ignore[misc]
    out = list(diagnostics)
    for n, fix in zip(pending, made, strict=True):
        out[n] = out[n]._replace(fix=fix)
    return tuple(out)
