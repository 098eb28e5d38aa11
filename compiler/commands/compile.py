"""`evidence-plan compile PLAN`: evidence-plan.json and evidence-plan.md (and with --html the page)
in a folder, with the plan's revision recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from compiler.commands._options import evidence_options, finite, limit_options, spread_option, whole
from compiler.commands._output import err, plural, reported, show_diagnostics
from compiler.core.exits import EXIT_BLOCKED, EXIT_INPUT, EXIT_READY

if TYPE_CHECKING:
    from compiler.load.limits import Limits

# Past this many, compile's summary says how many more there are (all are in the JSON).
SCREEN_DIAGNOSTICS = 40


@click.command("compile")
@click.argument("plan", metavar="PLAN")
@click.option("-o", "--output-dir", "output_dir", metavar="DIR", default=None,
              help="Folder for evidence-plan.json and evidence-plan.md (default: the plan's folder).")
@evidence_options
@spread_option
@click.option("--start", metavar="DATE", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="With --by: the first day of work (YYYY-MM-DD; no clock is read).")
@click.option("--by", "by", metavar="DATE", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="With --start: add the chance of finishing by this day (included), Monday to Friday.")
@click.option("--hours-per-day", metavar="N", type=click.FloatRange(min=0, min_open=True, max=24), default=8,
              show_default=True, callback=finite, help="With --by: hours of work in a working day.")
@click.option("--html", "html", is_flag=True,
              help="Also write evidence-plan.html: the plan as one self-contained page, with its graph.")
@limit_options
def command(plan: str, output_dir: str | None, root: str | None, no_verify: bool, max_spread: float,
                    start: Any, by: Any, hours_per_day: float, html: bool, limits: Limits) -> int:
    """Compile PLAN (.yaml, .yml, .json, or - for stdin) into evidence-plan.json and evidence-plan.md.

    Both files are written even when the plan is blocked (the JSON says why); nothing is written
    when PLAN cannot be read. Exit 0 ready, 1 blocked, 2 input error.

    \b
    Examples:
      evidence-plan compile plan.yaml
      evidence-plan compile examples/duplicate-email/plan.yaml -o outputs
      cat plan.yaml | evidence-plan compile - -o build
      evidence-plan compile plan.yaml --start 2026-12-01 --by 2026-12-18 --hours-per-day 6
      evidence-plan compile plan.yaml --html       # and evidence-plan.html, to open in a browser
    """
    deadline = None
    if (start is None) != (by is None):
        raise click.UsageError("--by and --start go together: the forecast reads no clock, so give the first day too")
    if start is not None:
        from compiler.analysis.forecast import Deadline

        if by < start:
            raise click.UsageError(f"--by {by.date()} is before --start {start.date()}")
        hours = int(hours_per_day) if hours_per_day.is_integer() else hours_per_day  # 6 in the JSON, not 6.0
        deadline = Deadline(start.date(), by.date(), hours)
    from compiler.api import compile as folder

    compiled = folder.prepare(plan, output_dir, html=html, root=root, verify_evidence=not no_verify, limits=limits,
                              max_spread=whole(max_spread), deadline=deadline)
    result, document = compiled.result, compiled.document
    assert result.revision is not None  # compiled for a folder
    if result.revision.note is not None:
        err(f"note: {result.revision.note}")
    if compiled.note is not None:
        err(f"note: {compiled.note}")
    if not reported(lambda: folder.write(compiled)):
        return EXIT_INPUT

    show_diagnostics(result.diagnostics, SCREEN_DIAGNOSTICS)
    err(_summary(result.document.name, document))
    if result.status == "ready":
        for n, wave in enumerate(result.waves, 1):
            err(f"  wave {n}: {_ids_line(wave)}")
            if n == 10 and len(result.waves) > 11:
                err(f"  ... {len(result.waves) - 10} more waves")
                break
    for path in compiled.files:
        err(f"wrote {path}")
    return EXIT_READY if result.status == "ready" else EXIT_BLOCKED


def _ids_line(ids: Sequence[str], width: int = 90) -> str:
    """Ids joined by commas, as many whole ones as fit in ``width``, then how many more: an id is
    never cut in half (the first is shown whole, however long: it is escaped when printed)."""
    shown: list[str] = []
    used = 0
    for n, ident in enumerate(ids):
        rest = len(ids) - n - 1
        tail = len(f", ... and {rest} more") if rest else 0
        if shown and used + 2 + len(ident) + tail > width:
            return ", ".join(shown) + f", ... and {len(ids) - n} more"
        shown.append(ident)
        used += len(ident) + (2 if n else 0)
    return ", ".join(shown)


def _summary(name: str, document: dict[str, Any]) -> str:
    s = document["summary"]
    if document["status"] == "ready":
        text = f"{name}: ready: {plural(s['items'], 'item')} in {plural(s['waves'], 'wave')}"
        text += f" (widest {s['widest_wave']})"
        if s["warnings"]:
            text += f", {plural(s['warnings'], 'warning')}"
        return text
    parts = [plural(s["errors"], "error")]
    if s["warnings"]:
        parts.append(plural(s["warnings"], "warning"))
    if "reason" in document:  # the loop's word, where an agent harness keys on it
        parts.append(f"reason: {document['reason']}")
    return f"{name}: blocked: {', '.join(parts)}"
