"""The editor that `fix` and `approve` share: changes of a plan's data (compiler/core/edits.py),
applied to its data and to its YAML text *in place*: only the characters of the changed scalars
(and of a replaced key), and the lines of removed entries, change; comments, key order, quoting and
layout stay byte for byte. Where each change falls in the text is compiler/load/spans.py's; what
to change is decided elsewhere (the rules' fixes, compiler/api/fix_symbols.py, approve.py); the
callers parse the edited text again and compare it with ``apply_to_data``'s result before
anything is written.
"""

from __future__ import annotations

from typing import Any

from compiler.core.edits import REMOVE, Change, EditError, Rename, apply_to_data, same_key_order
from compiler.core.scalars import yaml_scalar
from compiler.load.sourcemap import Path, Position, SourceMap

__all__ = ["REMOVE", "Edit", "EditError", "OnDisk", "Rename", "apply_to_data", "apply_to_yaml", "same_key_order",
           "yaml_scalar"]

Edit = Change  # (path in the document, new value), (path, REMOVE) or (path, Rename(...))


def apply_to_yaml(text: str, edits: list[Edit], *, nodes: tuple[Any, bool] | None = None) -> str:
    """Edit the YAML text itself (compiler/load/spans.py says how each change is written), the
    edits made together; ``nodes``: what ``compiler.load.spans.compose`` gave for paths that
    include the edits'. Raises EditError for a path that is not in the text."""
    from compiler.load.spans import compose, spans, splice

    root, _ = nodes if nodes is not None else compose(text, "yaml", [path for path, _ in edits])
    return splice(text, spans(text, "yaml", edits, root))


class OnDisk(SourceMap):
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
