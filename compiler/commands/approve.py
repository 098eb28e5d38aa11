"""`evidence-plan approve PLAN ID --by NAME`: record that a person passed an approval gate."""

from __future__ import annotations

import click


@click.command("approve")
@click.argument("plan", metavar="PLAN")
@click.argument("ident", metavar="ID")
@click.option("--by", "by", metavar="NAME", required=True, help="Who approves (recorded as approved_by).")
@click.option("--at", "at", metavar="ISO", default=None,
              help="When, an ISO 8601 date-time with its offset (default: now, UTC, to the second).")
@click.option("--root", metavar="DIR", default=None, help="Repository root for evidence paths (as for compile).")
def command(plan: str, ident: str, by: str, at: str | None, root: str | None) -> int:
    """Record in PLAN that NAME approved the approval item ID: approved_by, approved_at and the
    digest of what it covers (the irreversible items that depend on it and everything they depend
    on). When any of that content changes later, check reports the approval as stale (EP111).
    A YAML plan keeps every other byte; a JSON plan is rewritten one key per line. The only
    command that reads the clock (for --at's default). Exit 0 when recorded, 1 when the plan is
    blocked by other problems (listed; nothing written), 2 for an unknown id, an item that is no
    approval, or a bad option.

    \b
    Examples:
      evidence-plan approve plan.yaml sign-off --by "Ana Lima"
      evidence-plan approve plan.yaml sign-off --by ana --at 2026-12-01T15:04:05Z
    """
    from compiler.analysis import approvals
    from compiler.api import approve
    from compiler.commands._output import err, rewrite_plan, show_diagnostics
    from compiler.core.display import UNSAFE, escape, quoted
    from compiler.load.document import load_with_text

    if plan == "-":
        raise click.UsageError("approve edits a file in place: give its path, not -")
    if not by.strip():
        raise click.BadParameter("give the name of who approves", param_hint="--by")
    unsafe = UNSAFE.search(by)
    if unsafe is not None:  # a name, recorded in the plan and shown in logs: nothing that redraws or hides text
        raise click.BadParameter(f"give a person's name: {quoted(by)} holds the control or invisible character"
                                 f" {escape(unsafe.group())}", param_hint="--by")
    if at is None:
        at = approve.now()
    elif not approvals.valid_date_time(at):
        raise click.BadParameter(f"{at!r} is not an ISO 8601 date-time with its offset (2026-12-01T15:04:05Z)",
                                 param_hint="--at")
    doc, text = load_with_text(plan)
    try:
        done = approve.approve_document(doc, text, plan, ident, by, at, root=root)
    except approve.Refused as error:
        location = error.location if error.location is not None else plan
        err(f"{location}: error: {error}")
        if error.blocking:
            show_diagnostics(error.blocking)
            return 1
        return 2
    if not rewrite_plan(plan, done.fixed, text):
        return 2
    covers = done.coverage.covers
    err(f"{plan}: approved {ident} by {by} at {at}, digest {done.coverage.digest}")
    err(f"  covers {len(covers)} item{'' if len(covers) == 1 else 's'}: {', '.join(covers) or 'none'}"
         + ("" if done.coverage.gates else " (no irreversible item depends on it yet)"))
    return 0
