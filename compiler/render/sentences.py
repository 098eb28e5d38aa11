"""The sentences that the Markdown page and the HTML page both say, in one wording.

The plan's progress, an estimate's range, the critical path by estimate, the forecast, whether
estimates are grounded, and the revision line: each is made here once, and each page passes the
``Inline`` that marks plan text and code its own way (compiler/render/markdown.py's ``MARKDOWN``,
compiler/render/html.py's ``INLINE``): the escaping is the page's, never this module's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Inline(NamedTuple):
    """How a sentence of the page marks its parts, so that the HTML page says the same sentences:
    ``text`` escapes plan text, ``code`` shows an id or a value as code."""

    text: Callable[[Any], str]
    code: Callable[[Any], str]



def progress_line(progress: dict[str, int] | None) -> str | None:
    """The plan's progress, once anything has started: ``2 of 5 done · 1 doing · 1 dropped``
    (dropped items count in no total: they have left the plan)."""
    if progress is None:
        return None
    live = sum(n for key, n in progress.items() if key != "dropped")
    parts = [f"{progress.get('done', 0):,} of {live:,} done"]
    parts += [f"{progress[key]:,} {key}" for key in ("doing", "dropped") if progress.get(key)]
    return " · ".join(parts)



# Beside the owners of an item whose owners could not all be decided (`owners_incomplete`).
OWNERS_INCOMPLETE = "incomplete: not every CODEOWNERS line could be decided for these paths"


def interval(e: dict[str, Any], fmt: Inline) -> str:
    """``2–3 days (medium confidence)``: an estimate's or a claim's range, escaped."""
    from compiler.analysis.estimates import number

    confidence = f" ({fmt.text(e['confidence'])} confidence)" if e.get("confidence") else ""
    return f"{number(e['low'])}–{number(e['high'])} {fmt.text(e['unit'])}{confidence}"



def schedule_lines(schedule: Any, fmt: Inline) -> list[str]:
    """The critical path by median estimate, in hours, with the best and worst case along it."""
    if not isinstance(schedule, dict) or not schedule.get("critical_path"):
        return []
    from compiler.analysis.estimates import number
    from compiler.render.view import MAX_PATH_SHOWN

    def hours(key: str) -> str:
        value = schedule.get(key)
        return f"{number(round(value, 1))} hours" if isinstance(value, (int, float)) else "unknown"

    path = schedule["critical_path"]
    shown = path if len(path) <= MAX_PATH_SHOWN else [*path[:8], None, *path[-3:]]
    zero = schedule.get("counted_as_zero", 0)
    return [f"Critical path by median estimate ({len(path):,} item{'s' if len(path) != 1 else ''}, marked in the"
            f" graph): {' → '.join('…' if i is None else fmt.code(i) for i in shown)}: median {hours('median_hours')},"
            f" best case {hours('best_hours')}, worst case {hours('worst_hours')}"
            + (f" ({zero:,} item{'s' if zero != 1 else ''} without a usable estimate counted as 0)" if zero else "")
            + counted_text(schedule) + ".", ""]


def counted_text(figures: dict[str, Any]) -> str:
    """What the figures left out as done, or counted in part: ``; of the work left: 18 items done
    counted as 0, 1 doing counted by its left``; '' when the plan tracks no progress."""
    done, partly = figures.get("done_as_zero"), figures.get("partly_done")
    parts = ([f"{done:,} done item{'s' if done != 1 else ''} counted as 0"] if type(done) is int else []) + (
        [f"{partly:,} doing item{'s' if partly != 1 else ''} counted by the share left"] if type(partly) is int else [])
    return f"; of the work left only: {', '.join(parts)}" if parts else ""


# The most critical items the page names (the JSON lists every item that is critical in some run).
CRITICAL_SHOWN = 5


def forecast_lines(forecast: Any, fmt: Inline) -> list[str]:
    """The seeded forecast: its percentiles, how it was run, and the most critical items."""
    if not isinstance(forecast, dict):
        return []
    from compiler.analysis.estimates import number

    def hours(key: str) -> str:
        value = forecast.get(key)
        return f"{number(round(value, 1))} hours" if isinstance(value, (int, float)) else "unknown"

    runs = forecast.get("runs", 0)
    scaled = " (fewer for a plan this large: rough)" if forecast.get("runs_scaled") else ""
    critical = [c for c in forecast.get("criticality", []) if isinstance(c, dict)][:CRITICAL_SHOWN]
    named = ", ".join(f"{fmt.code(c.get('item'))} {number(round(100 * c.get('share', 0), 1))}%" for c in critical)
    zero = forecast.get("counted_as_zero", 0)
    line = (f"Forecast over {fmt.text(f'{runs:,}')} seeded runs{scaled} (seed {fmt.text(forecast.get('seed'))}): P50"
            f" {hours('p50_hours')}, P80 {hours('p80_hours')}, P95 {hours('p95_hours')}"
            + (f"; {zero:,} item{'s' if zero != 1 else ''} without a usable estimate counted as 0" if zero else "")
            + counted_text(forecast)
            + (f". Most often on the critical path: {named}." if named else "."))
    return [line, "", *_by_lines(forecast.get("by"), fmt)]


def _by_lines(by: Any, fmt: Inline) -> list[str]:
    if not isinstance(by, dict):
        return []
    from compiler.analysis.estimates import number

    days = by.get("working_days", 0)
    share = number(round(100 * by.get("probability", 0), 1))
    return [f"Finished by {fmt.text(by.get('by'))} in {share}% of the runs: {days:,} working day"
            f"{'s' if days != 1 else ''} (Monday to Friday) from {fmt.text(by.get('start'))}, at"
            f" {number(by.get('hours_per_day', 0))} hours a day, {number(by.get('hours', 0))} hours.", ""]


def grounded_line(summary: dict[str, Any], fmt: Inline, strong: Callable[[str], str]) -> str:
    """Whether the estimates are grounded (EP112), how many there are, and how units count."""
    return (f"{'Grounded' if summary.get('grounded') else strong('Not grounded')}: {summary.get('estimated', 0):,}"
            f" item{'s' if summary.get('estimated') != 1 else ''} estimated, {summary.get('missing', 0):,} without"
            f" an estimate; a spread over {fmt.text(summary.get('max_spread'))}x is flagged;"
            f" {fmt.text(summary.get('units', ''))}.")



# Ids listed per kind of change on the revision line; the rest are counted (all are in the JSON).
REVISION_IDS = 10


def revision_line(document: dict[str, Any], fmt: Inline) -> str:
    """The revision and what changed since the previous one, escaped: ``3 · since revision 2:
    1 added (`x`), 1 revised (`y`: change)``; '' for a file from before revisions."""
    revision = document.get("revision")
    if type(revision) is not int:
        return ""
    budget = document.get("budget")
    limit = budget.get("max_revisions") if isinstance(budget, dict) else None
    head = f"{revision}" + (f" of {limit:,} allowed" if type(limit) is int else "")  # the plan's budget (EP403)
    changed = document.get("changes")
    if not isinstance(changed, dict):
        return head + (" (the first)" if revision == 1 else "")

    def ids(entries: Any, show: Any) -> tuple[str, str]:
        entries = entries if isinstance(entries, list) else []
        shown = ", ".join(show(e) for e in entries[:REVISION_IDS])
        more = f", … {len(entries) - REVISION_IDS:,} more" if len(entries) > REVISION_IDS else ""
        return f"{len(entries):,}", f"{shown}{more}"

    def revised(entry: Any) -> str:
        names = entry.get("fields") if isinstance(entry, dict) else None
        what = ", ".join(fmt.text(str(n)) for n in names) if isinstance(names, list) else ""
        return fmt.code(str(entry.get("id"))) + (f": {what}" if what else "") if isinstance(entry, dict) else ""

    def renamed(entry: Any) -> str:
        if not isinstance(entry, dict):
            return ""
        return f"{fmt.code(str(entry.get('old')))} → {fmt.code(str(entry.get('new')))}"

    parts = []
    for key, show in (("added", lambda i: fmt.code(str(i))), ("removed", lambda i: fmt.code(str(i))),
                      ("revised", revised), ("renamed", renamed)):
        count, text = ids(changed.get(key), show)
        if count != "0":
            parts.append(f"{count} {key} ({text})")
    edges, waves = (changed.get(key) for key in ("edges", "waves"))
    edges = edges if isinstance(edges, dict) else {}
    waves = waves if isinstance(waves, dict) else {}
    added, removed = (len(e) if isinstance(e, list) else 0 for e in (edges.get("added"), edges.get("removed")))
    if added or removed:
        parts.append(f"{added:,} dependency edges added, {removed:,} removed")
    moved = sum(len(w) if isinstance(w, list) else 0 for w in (waves.get("direct"), waves.get("indirect")))
    if moved:
        parts.append(f"{moved:,} moved to another wave")
    return f"{head} · since the previous: " + ("; ".join(parts) if parts else "no change to the items")

