"""The YAML nodes an edit of the text needs (compiler/api/edit.py, the editor of fix and approve), with their marks.

An edit in place needs, along its path, each node's start and end in the text, its keys, its
neighbours and whether it is in flow style: what ruamel.yaml's composer gives. But that pure-Python
composer reads about 150 KB a second, whole seconds for a plan of a few thousand items, so the
nodes are composed here from libyaml's events, which carry the same marks (index, line, column)
and come about 30x faster, wherever the fast reader (compiler/load/fastyaml.py) would read the text
(``event_parser``: no tab, no ``%YAML``, none of the characters the two readers read differently)
and the text has no anchor, alias or explicit tag: anything else, and any error, goes to the
reference composer, which decides, and keeps the aliases' sharing that fix must see. Marks are
held to the reference by a differential test on every corpus plan and on mutations of them.

Only the containers on the edits' paths are composed with their children; every other node
is its marks alone (its text for a key), so that the work is one pass over the events and the
memory that of the paths' containers. The edited text is read back before anything is written,
and must give exactly the intended data, so a mark that went wrong cannot write a wrong plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Path = tuple[Any, ...]


class ScalarNode:
    """A node as ruamel.yaml's composer names and shapes it, as far as an edit reads it: ``value``
    (a scalar's text; a sequence's nodes; a mapping's (key, value) pairs; empty for a collection
    off the edits' paths), its ``start_mark`` and ``end_mark``, and a collection's ``flow_style``."""

    __slots__ = ("end_mark", "flow_style", "start_mark", "value")

    def __init__(self, value: Any, start_mark: Any, end_mark: Any, flow_style: bool | None = None) -> None:
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.flow_style = flow_style


class SequenceNode(ScalarNode):
    __slots__ = ()


class MappingNode(ScalarNode):
    __slots__ = ()


def compose(text: str, paths: Iterable[Path]) -> tuple[Any, bool]:
    """The root node of ``text`` (None for no document), composed with the children of every
    collection on ``paths``; and whether the reference composed it (then every node is there, and
    a node used again through an alias is the same object at each use)."""
    root = _from_events(text, {path[:n] for path in paths for n in range(len(path) + 1)})
    if root is not None:
        return root, False
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).compose(text), True


class _Defer(Exception):
    """Not for this path: the reference composes the text."""


def _from_events(text: str, wanted: set[Path]) -> Any:
    from compiler.load.fastyaml import event_parser

    parser = event_parser(text)
    if parser is None:
        return None
    from yaml import events

    try:
        return _compose(text, parser.get_event, events, wanted)
    except _Defer:
        return None
    except Exception:  # noqa: BLE001 - libyaml's errors: the reference reads the text and says what is wrong
        return None
    finally:
        parser.dispose()


class Mark:
    """A place in the text, as the readers' marks give it: index, line and column (0-based)."""

    __slots__ = ("column", "index", "line")

    def __init__(self, index: int, line: int, column: int) -> None:
        self.index, self.line, self.column = index, line, column


def _end_of(text: str) -> Mark:
    """The mark of the end of the text as the reference gives it: libyaml counts a last line
    without a line break as ended (the next line, column 0), where an edit would add a line."""
    line_start = max(text.rfind("\n"), text.rfind("\r")) + 1
    return Mark(len(text), text.count("\n") + text.count("\r") - text.count("\r\n"), len(text) - line_start)


_OFF: list[Any] = [None, None, None, None]  # the frame of a collection nothing under which is kept


def _compose(text: str, get_event: Any, events: Any, wanted: set[Path]) -> Any:
    """One pass over the events. The open collections, innermost last, are frames: [its node, its
    path (None: its children are not kept), whether it is a mapping, the pending key of a mapping
    (None while a key is expected) or the next index of a sequence]."""
    scalar, mapping_start, sequence_start = events.ScalarEvent, events.MappingStartEvent, events.SequenceStartEvent
    mapping_end, sequence_end = events.MappingEndEvent, events.SequenceEndEvent
    stack: list[list[Any]] = []
    root: Any = None
    end: Mark | None = None
    documents = 0
    while True:
        event = get_event()
        kind = type(event)
        if kind is mapping_end or kind is sequence_end:
            node = stack.pop()[0]
            if node is not None:
                node.end_mark = event.end_mark
                if event.end_mark.index >= len(text):  # the end of the text: its mark computed once
                    node.end_mark = end = end or _end_of(text)
            continue
        if kind is not scalar and kind is not mapping_start and kind is not sequence_start:
            if kind is events.StreamEndEvent:
                return root
            if kind is events.AliasEvent:
                raise _Defer  # a shared node: the reference keeps the sharing
            if kind is events.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _Defer
            continue
        if event.anchor is not None or event.tag is not None:
            raise _Defer
        path: Path
        parent: Any = None
        if not stack:
            path, key = (), None
        else:
            top = stack[-1]
            parent = top[0]
            if top[1] is None:  # under a collection off the paths: nothing kept
                if kind is not scalar:
                    stack.append(_OFF)
                continue
            if top[2]:
                if top[3] is None:  # a key: text, kept for the lookup of the value that follows
                    if kind is not scalar:
                        raise _Defer
                    top[3] = ScalarNode(event.value, event.start_mark, event.end_mark)
                    continue
                key, top[3] = top[3], None
                path = (*top[1], key.value)
            else:
                key, path = None, (*top[1], top[3])
                top[3] += 1
        if kind is scalar:
            node = ScalarNode(event.value, event.start_mark, event.end_mark)
        else:
            mapping = kind is mapping_start
            node = (MappingNode if mapping else SequenceNode)([], event.start_mark, event.end_mark, event.flow_style)
            stack.append([node, path if path in wanted else None, mapping, None if mapping else 0])
        if parent is None:
            root = node
        else:
            parent.value.append(node if key is None else (key, node))
