"""The nodes of a JSON plan that an edit of its text needs (compiler/load/spans.py), shaped as
compiler/load/yaml_nodes.py shapes YAML's: each with its start and end in the text, a mapping's
(key, value) pairs, a sequence's entries, every collection in flow style (JSON is YAML's flow
style). One linear pass over the tokens, no recursion; only the collections on the edits' paths
keep their children. The text is JSON that parsed already (compiler/load/json_reader.py); the
edited text is parsed again before anything is written, so a wrong place cannot write a wrong plan.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from compiler.load.sourcemap import JSON_TOKEN
from compiler.load.yaml_nodes import MappingNode, Mark, ScalarNode, SequenceNode

Path = tuple[Any, ...]


def compose(text: str, paths: Iterable[Path]) -> Any:
    """The root node of the JSON ``text``, with the children of every collection on ``paths``.
    Marks carry the index only (line and column 0): a flow-style edit needs no more."""
    wanted = {path[:n] for path in paths for n in range(len(path) + 1)}
    # A frame: [its node (None: off the paths), its path, is a mapping, pending key node or next index]
    stack: list[list[Any]] = []
    root: Any = None
    for match in JSON_TOKEN.finditer(text):
        token = match.group()
        if token in ",:":
            continue
        if token in "}]":
            closed = stack.pop()[0]
            if closed is not None:
                closed.end_mark = Mark(match.end(), 0, 0)
            continue
        top = stack[-1] if stack else None
        if top is not None and top[2] and top[3] is None:  # a mapping's key
            top[3] = ScalarNode(json.loads(token), Mark(match.start(), 0, 0), Mark(match.end(), 0, 0))
            continue
        path: Path = ()
        key = None
        if top is not None:
            if top[2]:
                key, top[3] = top[3], None
                path = (*top[1], key.value) if top[1] is not None else ()
            else:
                path = (*top[1], top[3]) if top[1] is not None else ()
                top[3] += 1
        kept = top is None or (top[0] is not None and top[1] in wanted)
        start = Mark(match.start(), 0, 0)
        node: Any
        if token in "{[":
            mapping = token == "{"
            node = (MappingNode if mapping else SequenceNode)([], start, start, True) if kept else None
            stack.append([node, path if kept else None, mapping, None if mapping else 0])
        else:
            node = ScalarNode(token, start, Mark(match.end(), 0, 0)) if kept else None
        if top is None:
            root = node
        elif node is not None:
            top[0].value.append(node if key is None else (key, node))
    return root
