"""`evidence-plan fix PLAN`: repair a plan in place where the repair is mechanical, and report the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from compiler.commands._options import limit_options
from compiler.commands._output import err, plural, rewrite_plan, show_diagnostics
from compiler.core.exits import EXIT_BLOCKED, EXIT_INPUT, EXIT_READY

if TYPE_CHECKING:
    from compiler.load.limits import Limits

@click.command("fix")
@click.argument("plan", metavar="PLAN")
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@click.option("--pin", is_flag=True, help="Also pin every entry that cites lines or a symbol, holds, and has no pin.")
@click.option("--to-symbols", is_flag=True,
              help="Also rewrite line evidence that covers exactly one definition as path::Name.")
@click.option("--unsafe-fixes", "unsafe", is_flag=True,
              help="Also apply the unsafe fixes, the guesses (a did-you-mean, a range moved without history); each"
                   " says so.")
@click.option("--root", metavar="DIR", default=None, help="Repository root for evidence paths (as for compile).")
@limit_options
def command(plan: str, dry_run: bool, pin: bool, to_symbols: bool, unsafe: bool, root: str | None,
            limits: Limits) -> int:
    """Repair PLAN in place where the repair is mechanical, and report the rest.

    Applies the fixes the diagnostics carry, the same edits that check --format json and sarif
    show: the safe ones (another notation of the same lines, a repeat removed, an entry moved to
    where its pinned lines or its `contains` text, found once, now are), and with --unsafe-fixes
    the guesses too (a did-you-mean; a range shifted without history); display-only ones never. A
    range of several lines whose `contains` text moved is carried through the cited file's change
    since the plan's commit, as git blame carries lines, when the plan is in git and unchanged
    since: the same lines, moved whole, and safe. Fixes are applied in rounds, checking again
    between them, and the summary says how many were left and why. With --pin, adds a pin (a hash
    of the cited lines) to every entry that cites lines or a symbol and holds, so that a later
    change under it is reported (EP211). Comments, key order, quoting and layout are kept byte for
    byte, YAML and JSON alike; the edited file must read back as intended, or nothing is written.
    Never runs anything. Exit 0 when the plan is ready afterwards, 1 when problems remain
    (listed), 2 input error.

    With --to-symbols, evidence whose lines are exactly those of one definition (a decorated
    function from its first decorator; a method as Class.method), as check finds it, becomes
    that definition: app/x.py:10-24 -> app/x.py::Name, which still holds when code above it
    moves. Entries that do not verify now are left as they are.

    \b
    Examples:
      evidence-plan fix plan.yaml
      evidence-plan fix --dry-run plan.yaml | less
      evidence-plan fix --pin plan.yaml
      evidence-plan fix --to-symbols --dry-run plan.yaml
      evidence-plan fix --unsafe-fixes --dry-run plan.yaml
    """
    from compiler.api.fix import FixError, fix_document
    from compiler.load.document import load_with_text

    if plan == "-":
        raise click.UsageError("fix edits a file in place: give its path, not -")
    doc, text = load_with_text(plan, limits=limits)
    try:
        outcome = fix_document(doc, text, plan, root=root, dry_run=dry_run, pin=pin, to_symbols=to_symbols,
                               unsafe=unsafe)
    except FixError as error:
        err(f"{plan}: error: {error}")
        return EXIT_BLOCKED
    if dry_run:
        click.echo(_diff(outcome.original, outcome.fixed, plan), nl=False)
    elif outcome.changes and not rewrite_plan(plan, outcome.fixed, text):
        return EXIT_INPUT
    for change in outcome.changes:
        err(f"{'would fix' if dry_run else 'fixed'}: {change}")
    for change in outcome.left:
        err(f"not fixed: {change}")
    result = outcome.result
    remaining = result.diagnostics if result is not None else ()
    if remaining:
        show_diagnostics(remaining)
    if not outcome.changes:
        err(f"{plan}: nothing to fix")
    if outcome.unapplied:
        guesses = sum(1 for f in outcome.unapplied if f.applicability == "unsafe")
        why = [f"{guesses} guess{'' if guesses == 1 else 'es'} (fix --unsafe-fixes applies them)"] if guesses else []
        if len(outcome.unapplied) > guesses:
            why.append(f"{len(outcome.unapplied) - guesses} shown only (display-only)")
        err(f"{plan}: {'would fix' if dry_run else 'fixed'} {len(outcome.changes)}; left"
            f" {len(outcome.unapplied)} fix{'' if len(outcome.unapplied) == 1 else 'es'}: {', '.join(why)}")
    errors = sum(1 for d in remaining if d.severity == "error")
    if errors:
        err(f"{plan}: {plural(errors, 'problem')} left that fix cannot repair" if not outcome.unapplied else
            f"{plan}: {plural(errors, 'problem')} left")
        return EXIT_BLOCKED
    return EXIT_READY


def _diff(before: str, after: str, name: str) -> str:
    """A unified diff, line by line as YAML reads lines (only at \\n: a U+2028 inside a value
    is no line break), each line shown escaped like every other output."""
    import difflib

    from compiler.core.display import escape

    def lines(text: str) -> list[str]:
        parts = text.split("\n")
        return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

    out = []
    for line in difflib.unified_diff(lines(before), lines(after), fromfile=f"a/{name}", tofile=f"b/{name}"):
        if line.endswith("\r\n"):  # a CRLF file: its line ends stay, they redraw nothing
            out.append(escape(line[:-2]) + "\r\n")
        elif line.endswith("\n"):
            out.append(escape(line[:-1]) + "\n")
        else:  # the file's last line, without a newline: as diff(1) says it
            out.append(escape(line) + "\n\\ No newline at end of file\n")
    return "".join(out)
