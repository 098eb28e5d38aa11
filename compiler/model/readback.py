"""A compiled evidence-plan.json read back as a plan: what its compile could not read stays unread.

The compiled items are normalized and typed, so what the validate stage could not read is not in
the file: an item's keys listed in its ``invalid`` (a misspelt ``depend_on``, a ``proof: 7``), a
plan field that is unknown or of the wrong type, an item that is no mapping. The problems found in
them are recorded in the file's ``issues``, and there only. So a read-back

- takes the validate stage's issues (the codes whose stage is ``validate``) from that record, each
  located at its entry of ``issues`` (the file being read), its hint naming where the compile
  found it;
- marks each item's ``invalid`` keys unread again (``Item.broken``), so that the rules about those
  keys leave them alone as they did (a ``proof: 7`` is EP011, not also "no proof"), and an item
  whose id could not be read stays unnamed, checked no further;
- derives every other issue again from what the file holds (evidence against the repository as it
  is now, the graph, the gates): each fact once, where it can be seen.

A compiled file of a blocked plan therefore reads back blocked, with the same codes.
"""

from __future__ import annotations

import posixpath
from typing import Any

from compiler.core.codes import CODES
from compiler.core.diagnostics import Diagnostic, Location
from compiler.core.display import clip
from compiler.load.document import Document
from compiler.load.read import STDIN_NAME
from compiler.model.values import Item

VALIDATE_CODES = frozenset(code for code, entry in CODES.items() if entry.stage == "validate")


def unread_keys(entry: Any) -> tuple[str, ...]:
    """The keys a compiled item lists as not read (its ``invalid``), each once; () for any other."""
    invalid = entry.get("invalid") if isinstance(entry, dict) else None
    if type(invalid) is not list:
        return ()
    return tuple(dict.fromkeys(key for key in invalid if isinstance(key, str)))


def unnamed_item(entry: Any, index: int, unread: tuple[str, ...]) -> Item:
    """A compiled item whose id could not be read: listed in its place, checked no further."""
    change = entry.get("change") if isinstance(entry, dict) else None
    return Item(id="", change=change if isinstance(change, str) else "", evidence=(), depends_on=(), proof="",
                position=index, broken=unread)


def recorded_issues(doc: Document, meta: dict[str, Any]) -> list[Diagnostic]:
    """The validate stage's issues that a compiled file records, located at their records."""
    issues = meta.get("issues")
    if type(issues) is not list:
        return []
    out = []
    for k, issue in enumerate(issues):
        if not isinstance(issue, dict):
            continue
        code, message, item = issue.get("code"), issue.get("message"), issue.get("item")
        if code not in VALIDATE_CODES or not isinstance(message, str) or not (item is None or isinstance(item, str)):
            continue
        pos = doc.source_map.value(("issues", k))
        where = _recorded_at(doc.name, issue.get("location"))
        hint = f"recorded when the plan was compiled{f', at {where}' if where else ''}: fix the plan and compile again"
        at = Location(doc.name, *pos) if pos else Location(doc.name)
        out.append(Diagnostic(code, message, item=item, location=at, hint=hint))
    return out


def _recorded_at(name: str, location: Any) -> str | None:
    """Where a recorded issue was found, as seen from here (its file is relative to the JSON's folder)."""
    if not isinstance(location, dict) or not isinstance(location.get("file"), str):
        return None
    file = location["file"]
    if file != STDIN_NAME and name != STDIN_NAME and not posixpath.isabs(file):
        file = posixpath.normpath(posixpath.join(posixpath.dirname(name), file))
    line, column = location.get("line"), location.get("column")
    at = [clip(file, 200)]
    if type(line) is int:
        at.append(str(line))
        if type(column) is int:
            at.append(str(column))
    return ":".join(at)
