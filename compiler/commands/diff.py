"""`evidence-plan diff OLD NEW`: what a revision did to a plan (compiler/analysis/revisions.py's model)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from compiler.commands._options import limit_options

if TYPE_CHECKING:
    from compiler.analysis.revisions import Side
    from compiler.core.cilog import Commands
    from compiler.load.limits import Limits

FORMATS = ("text", "json", "markdown", "github")


def revision_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A ``--base`` / ``--rev`` revision, refused before git sees it when it cannot be one."""
    from compiler.load.gitshow import revision_problem

    problem = None if value is None else revision_problem(value)
    if problem is not None:
        raise click.BadParameter(problem, ctx=ctx, param=param)
    return value


@click.command("diff")
@click.argument("plans", nargs=-1, metavar="OLD NEW")
@click.option("--base", metavar="REV", default=None, callback=revision_option,
              help="Read OLD as it was at git revision REV (OLD from the working folder: REV:./OLD); OLD may be "
                   "left out, and is then NEW: --base origin/main plan.yaml is what a branch did to plan.yaml.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: for people; json: one object with stable keys; markdown: for a pull-request comment or "
                   "$GITHUB_STEP_SUMMARY; github: ::notice annotations on NEW's changed items' lines.")
@click.option("--root", metavar="DIR", default=None,
              help="Also check both plans' evidence against this repository root (default: not checked).")
@limit_options
def command(plans: tuple[str, ...], base: str | None, fmt: str, root: str | None, limits: Limits) -> int:
    """Compare two plans by item id: items added, removed, revised (each field, old and new
    value) and renamed (same content under a new id), dependency edges added and removed, items
    that moved to another wave (direct: the item was revised; indirect: something it depends on
    changed), and the status with the issues NEW has that OLD had not.

    OLD and NEW are plan files or compiled evidence-plan.json files, in any mix; - reads one of
    them from standard input. --base REV reads OLD from git history, as it was at REV, and OLD
    may then be left out (NEW's path at REV): the form for a pull request, which no file can
    stand in for. Either may also be REV:path, read with git (path from the repository's top;
    REV:./path from the working folder) when no file has that name; a name that is both a file
    and a REV:path git has is refused (exit 2): ./NAME is always the file, and C:\\x a Windows
    path. git reads the local repository only: nothing is fetched. Evidence is not checked
    unless --root is given: the diff is about the plans, and an old revision's evidence would be
    judged against today's files. Exit 0 the same, 1 different (like diff), 2 input error.

    \b
    Examples:
      evidence-plan diff plan.yaml plan.new.yaml
      evidence-plan diff --base origin/main plan.yaml --format markdown >> "$GITHUB_STEP_SUMMARY"
      evidence-plan diff main:plans/plan.yaml plans/plan.yaml
      evidence-plan diff evidence-plan.json plan.yaml --format json | jq '.revised[].id'
    """
    from compiler.analysis.revisions import compare
    from compiler.api.plans import read_side

    if base is None and len(plans) != 2:
        raise click.UsageError(f"diff compares two plans, OLD and NEW; {len(plans)} given "
                               "(or --base REV NEW: NEW as it was at REV against NEW)")
    if base is not None and len(plans) not in (1, 2):
        raise click.UsageError(f"--base REV takes NEW, or OLD and NEW; {len(plans)} given")
    old, new = plans if len(plans) == 2 else (plans[0], plans[0])
    if base is not None and old == "-":
        raise click.UsageError("--base reads OLD from git history: it names a file's path, not - (standard input)")
    if old == "-" and new == "-":
        raise click.UsageError("only one of OLD and NEW can be - (standard input)")
    verify = root is not None
    before = read_side(old, root=root, verify_evidence=verify, limits=limits, rev=base)
    after = read_side(new, root=root, verify_evidence=verify, limits=limits)
    change = compare(before, after)
    if fmt == "json":
        from compiler.core.cilog import json_safe

        click.echo(json_safe(json.dumps(change, indent=2, ensure_ascii=False)))
    elif fmt == "markdown":
        click.echo(markdown(change), nl=False)
    elif fmt == "github":
        from compiler.core.cilog import echo_commands

        echo_commands(github(change, after))
    else:
        click.echo(text(change), nl=False)
    return 0 if change["same"] else 1


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
        rows.append(Row("new issue", d["item"], _issue(d), (d.get("location") or {}).get("line")))
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
# it): the Markdown stays under this many, its last rows left out and counted, so that the README's
# recipe posts a large revision too. The JSON and the text formats hold every row.
MAX_MARKDOWN = 60_000
# A cell's text at most (a revised field can hold a whole plan's worth of text).
MAX_CELL = 1_000


def markdown(change: dict[str, Any], budget: int = MAX_MARKDOWN) -> str:
    from compiler.core.markdown import cell, md

    rev = change["revision"]
    out = [f"### Plan revision: {md(rev['old'])} → {md(rev['new'])}", ""]
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
