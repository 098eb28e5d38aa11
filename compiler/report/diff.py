"""What `diff` prints, in every format: a revision's change (compiler/analysis/revisions.py's
model) as rows in one order, then as text for people, JSON, a Markdown table for a pull-request
comment, or GitHub ``::notice`` annotations on NEW's lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from compiler.analysis.revisions import Side
    from compiler.core.cilog import Commands


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _issue(d: dict[str, Any]) -> str:
    loc = d.get("location") or {}
    where = ":".join(str(p) for p in (loc.get("file"), loc.get("line"), loc.get("column")) if p is not None)
    return f"{where + ': ' if where else ''}{d['code']} {d['message']}"


class Row(NamedTuple):
    kind: str
    item: str | None  # NEW's item it concerns, if any
    text: str
    line: int | None = None  # its line in NEW, when the change says (an issue's), else the item's


def lines(change: dict[str, Any]) -> list[Row]:
    """The change as rows, in the order every format shows them."""
    rows: list[Row] = []
    for a in change["added"]:
        wave = f" (wave {a['wave']})" if a["wave"] else ""
        rows.append(Row("added", a["id"], f"{a['id']}{wave}: {a['change']}"))
    for r in change["removed"]:
        rows.append(Row("removed", None, f"{r['id']}: {r['change']}"))
    for r in change["renamed"]:
        rows.append(Row("renamed", r["new"], f"{r['old']} -> {r['new']}"))
    for r in change["revised"]:
        for name, values in r["fields"].items():
            was, now = _value(values["old"]), _value(values["new"])
            rows.append(Row("revised", r["id"], f"{r['id']}: {name}: {was} -> {now}"))
    for e in change["edges"]["added"]:
        rows.append(Row("edge added", e["item"], f"{e['item']} depends on {e['depends_on']}"))
    for e in change["edges"]["removed"]:
        rows.append(Row("edge removed", e["item"], f"{e['item']} depends on {e['depends_on']}"))
    for how in ("direct", "indirect"):
        for m in change["waves"][how]:
            rows.append(Row(f"moved ({how})", m["id"], f"{m['id']}: wave {m['old']} -> {m['new']}"))
    status = change["status"]
    if status["old"] != status["new"]:
        rows.append(Row("status", None, f"{status['old']} -> {status['new']}"))
    for a in change["approvals"]["voided"]:
        rows.append(Row("approval voided", a["id"], f"{a['id']}: {a['reason']} ({', '.join(a['covers'])});"
                        f" approve it again"))
    timing = change["timing"]
    if timing is not None and timing["old"] != timing["new"]:
        was, now = timing["old"], timing["new"]
        if was is None or now is None:  # one side is blocked, or gives no estimate
            rows.append(Row("forecast", None, f"{_brief_timing(was)} -> {_brief_timing(now)}"))
        else:
            if was["critical_path"] != now["critical_path"]:
                rows.append(Row("critical path", None, f"{_path(was)} -> {_path(now)}"))
            figures = [f"{label} {_hours(was, key)} -> {_hours(now, key)}" for label, key in _FIGURES
                       if _hours(was, key) != _hours(now, key)]
            if figures:
                rows.append(Row("forecast", None, ", ".join(figures)))
    for d in change["issues"]["added"]:
        rows.append(Row(kind="new issue", item=d["item"], text=_issue(d), line=(d.get("location") or {}).get("line")))
    for d in change["issues"]["resolved"]:
        rows.append(Row("resolved issue", None, _issue(d)))
    return rows


_FIGURES = (("median", "median_hours"), ("P50", "p50_hours"), ("P80", "p80_hours"), ("P95", "p95_hours"))


def _path(timing: dict[str, Any]) -> str:
    """A critical path's ids (its ends, when it is long)."""
    path = timing["critical_path"]
    return " -> ".join(path) if len(path) <= 8 else " -> ".join([*path[:5], "...", *path[-2:]])


def _hours(timing: dict[str, Any], key: str) -> str:
    """One figure of a plan's timing in hours, to a tenth (the JSON has it exactly)."""
    value = timing.get(key)
    return "none" if value is None else f"{value:,.1f} h"


def _brief_timing(timing: dict[str, Any] | None) -> str:
    if timing is None:
        return "none (blocked, or no estimate)"
    return f"critical path {_path(timing)}, " + ", ".join(f"{label} {_hours(timing, key)}" for label, key in _FIGURES)


def _counts(change: dict[str, Any]) -> str:
    parts = [f"{len(change[k])} {k}" for k in ("added", "removed", "revised", "renamed")]
    edges = change["edges"]
    parts.append(f"{len(edges['added'])}+{len(edges['removed'])}- edges")
    waves = change["waves"]
    parts.append(f"{len(waves['direct']) + len(waves['indirect'])} moved")
    return ", ".join(parts)


def text(change: dict[str, Any]) -> str:
    from compiler.core.display import escape

    rev = change["revision"]
    head = f"{escape(rev['old'])} -> {escape(rev['new'])}: "
    if change["same"]:
        return head + "no changes\n"
    rows = lines(change)
    width = max(len(row.kind) for row in rows)
    body = "".join(f"{row.kind.ljust(width)}  {escape(row.text)}\n" for row in rows)
    return head + _counts(change) + "\n" + body


# GitHub refuses a pull-request comment of more than 65,536 characters (and `gh pr comment` with
# it): the Markdown stays under this many, its last rows left out and counted, so that the CI guide's
# recipe posts a large revision too. The JSON and the text formats hold every row.
MAX_MARKDOWN = 60_000
# A cell's text at most (a revised field can hold a whole plan's worth of text).
MAX_CELL = 1_000


def markdown(change: dict[str, Any], budget: int = MAX_MARKDOWN) -> str:
    from compiler.core.markdown import cell, md, one_line

    rev = change["revision"]
    out = [f"### Plan revision: {one_line(md(rev['old']))} → {one_line(md(rev['new']))}", ""]
    if change["same"]:
        return "\n".join([*out, "No changes.", ""])
    status = change["status"]
    out += [f"{_counts(change)}; status {md(status['old'])} → **{md(status['new'])}**", "",
            "| change | what |", "|---|---|"]
    rows = lines(change)
    used = sum(len(line) + 1 for line in out) + 200  # and room for the line that counts what is left out
    for n, row in enumerate(rows):
        text = row.text if len(row.text) <= MAX_CELL else row.text[:MAX_CELL - 1] + "…"
        line = f"| {row.kind} | {cell(md(text))} |"
        if used + len(line) + 1 > budget:
            out += ["", f"… and {len(rows) - n:,} more changes, left out to fit a pull-request comment:"
                        " `evidence-plan diff OLD NEW` (text or json) lists them all."]
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join([*out, ""])


def github(change: dict[str, Any], new: Side) -> Commands:
    """One ``::notice`` per change, at the line of NEW's item it concerns (from the source map);
    a removed item, or NEW read from standard input or git history, has no line."""
    import os

    from compiler.analysis.revisions import item_lines
    from compiler.core.cilog import Commands, command
    from compiler.core.display import escape
    from compiler.report.reporters import base_folder, working_folder, workspace_path

    on_disk = os.path.isfile(new.name)
    cwd = working_folder()
    # Relative to the folder GitHub resolves it against (the workspace), as `check`'s annotations.
    file = workspace_path(new.name, cwd, base_folder(os.environ, cwd))[0]
    item_line = item_lines(new)
    out = []
    for row in lines(change):
        props = []
        if on_disk:
            props.append(("file", escape(file)))
            line = row.line if row.line is not None else item_line(row.item) if row.item is not None else None
            if line is not None:
                props.append(("line", str(line)))
        props.append(("title", f"plan {row.kind}"))
        out.append(command("notice", props, escape(row.text)))
    return Commands("".join(out))


def as_json(change: dict[str, Any]) -> str:
    """The change as one JSON object, its keys documented with `diff`."""
    from compiler.core.cilog import json_safe

    return json_safe(json.dumps(change, indent=2, ensure_ascii=False)) + "\n"


# `diff --format`: name -> the report of a change (and NEW, for the lines of its items). The
# github format's text is the tool's own workflow commands (compiler/core/cilog.py's Commands).
FORMATS: dict[str, Callable[[dict[str, Any], Side], str]] = {
    "text": lambda change, new: text(change),
    "json": lambda change, new: as_json(change),
    "markdown": lambda change, new: markdown(change),
    "github": github,
}
