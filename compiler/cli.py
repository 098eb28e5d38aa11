"""The command line: a thin shell over the library. Parses options, calls, prints, exits.

Exit codes (every command): 0 ready or done, 1 blocked, 2 input or usage error, 3 internal error.
Data goes to stdout; messages, summaries and errors to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import click

from compiler import __version__
from compiler.api.convert import TARGETS
from compiler.core.diagnostics import Diagnostic, PlanInputError
from compiler.launch import INTERRUPTED
from compiler.report.reporters import FORMATS

if TYPE_CHECKING:
    from compiler.api.convert import Target
    from compiler.core.write import Content
    from compiler.load.document import Limits
    from compiler.report.reporters import Context

EXIT_READY, EXIT_BLOCKED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
# Past this many, compile's summary says how many more there are (all are in the JSON).
SCREEN_DIAGNOSTICS = 40


def _color() -> bool | None:
    return False if os.environ.get("NO_COLOR") else None  # None: click decides by the terminal


def _style(text: str, severity: str) -> str:
    if os.environ.get("NO_COLOR"):
        return text
    return click.style(text, fg="red" if severity == "error" else "yellow", bold=True)


def _err(text: str = "") -> None:
    """One line for people on stderr; whatever of the plan it holds is shown escaped."""
    from compiler.core.display import escape

    click.echo(escape(text), err=True, color=_color())


def _show_input_error(err: PlanInputError) -> None:
    from compiler.report.reporters import text

    click.echo(text([err.diagnostic], _style), err=True, nl=False, color=_color())


def _show_diagnostics(diagnostics: Sequence[Diagnostic], limit: int | None = None) -> None:
    from compiler.report.reporters import text

    shown = diagnostics if limit is None else diagnostics[:limit]
    click.echo(text(shown, _style), err=True, nl=False, color=_color())
    if len(shown) < len(diagnostics):
        _err(f"... and {len(diagnostics) - len(shown)} more")


def _evidence_options(command: Any) -> Any:
    """--root and --no-verify-evidence, shared by the commands that compile."""
    command = click.option(
        "--no-verify-evidence", "no_verify", is_flag=True,
        help="Do not check evidence against the repository (e.g. converting a plan away from it).",
    )(command)
    return click.option(
        "--root", metavar="DIR", default=None,
        help="Repository root for evidence paths (default: the plan's root: key, else the git work "
             "tree holding the plan, else the plan's folder).",
    )(command)


def _whole(value: float | None) -> float | None:
    """--max-spread 100 is 100 in the JSON, as the default is, not 100.0 (None: not given)."""
    return int(value) if value is not None and value.is_integer() else value


def _finite(ctx: Any, param: Any, value: float) -> float:
    """A number option's value, refused when it is nan or infinite (click's ranges let nan by)."""
    import math

    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", ctx=ctx, param=param)
    return value


def _spread_option(command: Any) -> Any:
    """--max-spread: the largest high / low of an estimate or a claim that is not flagged (EP112)."""
    from compiler.model.fields import MAX_SPREAD

    return click.option(
        "--max-spread", "max_spread", type=click.FloatRange(min=1), default=None, callback=_finite, metavar="N",
        help=f"Flag an estimate or claim whose high is more than N times its low (EP112). Default: the max_spread"
             f" setting, else {MAX_SPREAD}.",
    )(command)


def _limit_options(command: Any) -> Any:
    """--max-bytes and --max-items, turned into one ``limits`` argument."""
    import functools

    from compiler.load.document import DEFAULT_LIMITS, Limits

    @functools.wraps(command)
    def wrapper(*args: Any, max_bytes: int, max_items: int, **kwargs: Any) -> Any:
        return command(*args, limits=Limits(max_bytes=max_bytes, max_items=max_items), **kwargs)

    wrapper = click.option(
        "--max-items", type=click.IntRange(min=1), default=DEFAULT_LIMITS.max_items, show_default=True,
        help="Refuse plans with more items (exit 2).",
    )(wrapper)
    return click.option(
        "--max-bytes", type=click.IntRange(min=1), default=DEFAULT_LIMITS.max_bytes, show_default=True,
        help="Refuse larger input files, before reading them (exit 2).",
    )(wrapper)


class _Group(click.Group):
    """The commands defined here, and those of compiler/commands/, imported only when they run or
    the help lists them (click's lazy-loading pattern)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from compiler.commands import COMMANDS

        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        from compiler.commands import COMMANDS

        if cmd_name not in COMMANDS:
            return None
        import importlib

        module, _, attribute = COMMANDS[cmd_name].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Whatever a command prints passes the guard (compiler.core.cilog): no line of it is a GitHub
        # Actions workflow command but the tool's own. (main() below guards its own messages too.)
        from compiler.core.cilog import guarded

        with guarded():
            return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        # Commands return their exit code; make it the process's (and CliRunner's) exit code.
        # A plan that cannot be read, or is not a plan, is exit 2 for every command, here.
        try:
            code = super().invoke(ctx)
        except PlanInputError as err:
            _show_input_error(err)
            code = EXIT_INPUT
        if isinstance(code, int) and code != EXIT_READY:
            ctx.exit(code)
        return code

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Keep the epilog's own line breaks (click would re-wrap it).
        if self.epilog:
            formatter.write("\n" + self.epilog + "\n")


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="""Examples:
  evidence-plan compile plan.yaml              # writes evidence-plan.json and evidence-plan.md
  evidence-plan check plans/*.yaml             # CI or pre-commit: exit 1 when a plan is blocked
  evidence-plan render evidence-plan.json -o PLAN.md
  evidence-plan convert plan.yaml plan.json
  evidence-plan schema input > plan.schema.json

Exit codes: 0 ready, 1 blocked, 2 input or usage error, 3 internal error (a bug).""",
)
@click.version_option(__version__, "-V", "--version", prog_name="evidence-plan")
@click.option("--debug", is_flag=True, help="Show a traceback for internal errors.")
def cli(debug: bool) -> None:
    """Compile evidence-driven plans: validate work items, check their evidence, order them into
    waves, and write evidence-plan.json (ready or blocked) and a Markdown rendering."""


@cli.command("compile")
@click.argument("plan", metavar="PLAN")
@click.option("-o", "--output-dir", "output_dir", metavar="DIR", default=None,
              help="Folder for evidence-plan.json and evidence-plan.md (default: the plan's folder).")
@_evidence_options
@_spread_option
@click.option("--start", metavar="DATE", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="With --by: the first day of work (YYYY-MM-DD; no clock is read).")
@click.option("--by", "by", metavar="DATE", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="With --start: add the chance of finishing by this day (included), Monday to Friday.")
@click.option("--hours-per-day", metavar="N", type=click.FloatRange(min=0, min_open=True, max=24), default=8,
              show_default=True, callback=_finite, help="With --by: hours of work in a working day.")
@click.option("--html", "html", is_flag=True,
              help="Also write evidence-plan.html: the plan as one self-contained page, with its graph.")
@_limit_options
def compile_command(plan: str, output_dir: str | None, root: str | None, no_verify: bool, max_spread: float,
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
    from compiler.compile.emit import JSON_NAME, MARKDOWN_NAME, build_output, dump_pieces
    from compiler.compile.pipeline import compile_plan
    from compiler.render.markdown import render_pieces

    out_dir = output_dir if output_dir is not None else (
        "." if plan == "-" else os.path.dirname(plan) or "."
    )
    json_path = os.path.join(out_dir, JSON_NAME)
    md_path = os.path.join(out_dir, MARKDOWN_NAME)
    # Never rewritten silently: the evidence-plan.json there gives the revision and what changed.
    result = compile_plan(plan, root=root, verify_evidence=not no_verify, limits=limits,
                          max_spread=_whole(max_spread), deadline=deadline, previous=json_path).for_output()
    from compiler.compile.history import record

    assert result.revision is not None  # compiled with previous
    if result.revision.note is not None:
        _err(f"note: {result.revision.note}")
    document = record(build_output(result, out_dir), result.revision, result.plan)
    # Each text is made just before it is written, and dropped after: never both at once.
    files: dict[str, Content] = {json_path: lambda: dump_pieces(document),
                                 md_path: lambda: render_pieces(document, base=document["root"])}
    html_path = None
    if html:
        from compiler.render import html as html_page

        html_path = os.path.join(out_dir, html_page.HTML_NAME)
        files[html_path] = lambda: html_page.render_pieces(document)
    if not _write(files, inputs=[plan]):
        return EXIT_INPUT

    _show_diagnostics(result.diagnostics, SCREEN_DIAGNOSTICS)
    _err(_summary(result.document.name, document))
    if result.status == "ready":
        for n, wave in enumerate(result.waves, 1):
            _err(f"  wave {n}: {_ids_line(wave)}")
            if n == 10 and len(result.waves) > 11:
                _err(f"  ... {len(result.waves) - 10} more waves")
                break
    _err(f"wrote {json_path}")
    _err(f"wrote {md_path}")
    if html_path is not None:
        _err(f"wrote {html_path}")
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


def _write(files: Mapping[str, Content], inputs: Sequence[str] = ()) -> bool:
    """Write files as a set (compiler.core.write decides what may be written and how), creating
    folders on the way, never over one of ``inputs`` (what the command read; ``-`` standard
    input) under any name; a failure is reported, not raised."""
    from compiler.core.cilog import shown
    from compiler.core.write import write_all_atomic

    # A page or a picture in a file reads as it would on stdout (a file may be printed in a CI
    # log too); JSON and YAML are already free of workflow commands, so they are left as made.
    guarded = {path: shown(content) for path, content in files.items()}
    return _reported(lambda: write_all_atomic(guarded, make_folders=True, inputs=inputs))  # type: ignore[arg-type]


def _reported(write: Callable[[], None]) -> bool:
    from compiler.core.write import WriteError

    try:
        write()
    except WriteError as err:
        _err(f"{err.path}: error: {err.message}")
        _err(f"  hint: {err.hint}")
        return False
    return True


def _echo_report(report: str) -> None:
    """A report to stdout: the tool's own workflow commands (``--format github``) as they are,
    anything else through the guard."""
    from compiler.core.cilog import Commands, echo_commands

    if isinstance(report, Commands):
        echo_commands(report)
    else:
        click.echo(report, nl=False, color=_color())


def _output(target: str, text: str, inputs: Sequence[str] = ()) -> int:
    """Data to stdout (``-``) or to a file (never one of ``inputs``); the exit code."""
    if target == "-":
        click.echo(text, nl=False)
        return EXIT_READY
    if not _write({target: text}, inputs):
        return EXIT_INPUT
    _err(f"wrote {target}")
    return EXIT_READY


def _rewrite(plan: str, text: str, original: str) -> bool:
    """Replace a plan file's text as the file it is, if it still holds ``original``, the text
    read (see compiler.core.write.rewrite)."""
    from compiler.core.write import rewrite

    return _reported(lambda: rewrite(plan, text, original))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(name: str, document: dict[str, Any]) -> str:
    s = document["summary"]
    if document["status"] == "ready":
        text = f"{name}: ready: {_plural(s['items'], 'item')} in {_plural(s['waves'], 'wave')}"
        text += f" (widest {s['widest_wave']})"
        if s["warnings"]:
            text += f", {_plural(s['warnings'], 'warning')}"
        return text
    parts = [_plural(s["errors"], "error")]
    if s["warnings"]:
        parts.append(_plural(s["warnings"], "warning"))
    return f"{name}: blocked: {', '.join(parts)}"


def _append_step_summary(fmt: str, context: Context, ordered: Sequence[Diagnostic]) -> None:
    """Under GitHub Actions (the github format), the whole report also goes to the job's summary
    page: GitHub shows only 10 error annotations of a step. Appended: other steps write there too."""
    from compiler.report import reporters

    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt != "github" or not path:
        return
    summary = reporters.step_summary(context.plans, ordered, cwd=context.cwd, base=context.base)
    try:
        with open(path, "a", encoding="utf-8", errors="surrogateescape") as out:
            out.write(summary)
    except OSError as err:
        _err(f"{path}: cannot append the step summary: {err.strerror or err}")


@cli.command("check")
@click.argument("plans", nargs=-1, required=True, metavar="PLAN_OR_DIR...")
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              default="auto", show_default=True,
              help="Report format; auto is github under GitHub Actions, else text.")
@click.option("--strict", is_flag=True, help="Warnings block too (exit 1); also the `strict` setting.")
@_evidence_options
@_spread_option
@_limit_options
def check_command(plans: tuple[str, ...], fmt: str, strict: bool, root: str | None, no_verify: bool,
                  max_spread: float, limits: Limits) -> int:
    """Check one or more plans without writing anything (for CI and pre-commit).

    A folder stands for the plan files under it (plan.yaml, NAME.plan.yaml, or .yml, .json;
    not searched: symlinks, .git, node_modules, virtual environments and tool caches); a folder
    with none is exit 2. Every file is checked, even after a bad one. The report goes to stdout;
    with text, a summary line follows on stderr. Exit 0 all ready, 1 any blocked, 2 any unreadable.

    \b
    Examples:
      evidence-plan check plan.yaml
      evidence-plan check --strict plans/*.yaml
      evidence-plan check .                   # every plan file of the repository
      evidence-plan check --format sarif plan.yaml > evidence-plan.sarif
    """
    from compiler.compile.pipeline import compile_plan
    from compiler.core.diagnostics import sort_diagnostics
    from compiler.repo.discover import expand
    from compiler.report import reporters

    found = expand(plans)
    diagnostics: list[Diagnostic] = list(found.problems)
    reports: list[reporters.PlanReport] = [
        reporters.PlanReport(d.location.file if d.location is not None else "", "unreadable", (d,))
        for d in found.problems]
    input_errors, blocked = len(found.problems), 0
    # What the summary counts: each file checked, and each folder that stood for none.
    plans = (*found.files, *(d.location.file for d in found.problems if d.location is not None))
    for plan in found.files:
        try:
            result = compile_plan(plan, root=root, verify_evidence=not no_verify, limits=limits, order=False,
                                  max_spread=_whole(max_spread))
        except PlanInputError as err:
            diagnostics.append(err.diagnostic)
            input_errors += 1
            reports.append(reporters.PlanReport(plan, "unreadable", (err.diagnostic,)))
            continue
        diagnostics.extend(result.diagnostics)
        strict_here = strict or bool(result.settings.get("strict"))  # the option, or the repository's setting
        is_blocked = result.status == "blocked" or bool(strict_here and result.count("warning"))
        blocked += is_blocked
        reports.append(reporters.PlanReport(plan, "blocked" if is_blocked else "ready", tuple(result.diagnostics)))
    ordered = sort_diagnostics(diagnostics) if len(plans) > 1 else tuple(diagnostics)
    fmt = reporters.resolve_format(fmt, dict(os.environ))
    cwd = reporters.working_folder()
    context = reporters.Context(reports, cwd, reporters.base_folder(os.environ, cwd))
    _echo_report(reporters.report(fmt, ordered, _style, context))
    _append_step_summary(fmt, context, ordered)
    if fmt == "text":
        errors = sum(1 for d in ordered if d.severity == "error")
        warnings = len(ordered) - errors
        ready = len(plans) - blocked - input_errors
        _err(f"{_plural(len(plans), 'plan')}: {ready} ready, {blocked} blocked, {input_errors} unreadable"
             f" ({_plural(errors, 'error')}, {_plural(warnings, 'warning')})")
    if input_errors:
        return EXIT_INPUT
    return EXIT_BLOCKED if blocked else EXIT_READY


@cli.command("render")
@click.argument("compiled", metavar="EVIDENCE_PLAN_JSON")
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True,
              help="Where to write the Markdown (or the HTML); - is stdout.")
@click.option("--html", "html", is_flag=True, help="Write the HTML page (as compile --html does) instead of Markdown.")
@_limit_options
def render_command(compiled: str, output: str, html: bool, limits: Limits) -> int:
    """Render a compiled evidence-plan.json as Markdown, or with --html as one self-contained
    HTML page (inline CSS and SVG, no script, nothing from the network). The JSON is the source
    of truth.

    \b
    Examples:
      evidence-plan render evidence-plan.json > PLAN.md
      evidence-plan render build/evidence-plan.json -o docs/plan.md
      evidence-plan render evidence-plan.json --html -o evidence-plan.html
    """
    from compiler.model.output_model import read_compiled
    from compiler.render.markdown import link_base, render_markdown

    document = read_compiled(compiled, limits)
    if html:
        from compiler.render.html import render_pieces as html_pieces

        if output == "-":
            for piece in html_pieces(document):
                click.echo(piece, nl=False)
            return EXIT_READY
        if not _write({output: lambda: html_pieces(document)}, inputs=[compiled]):
            return EXIT_INPUT
        _err(f"wrote {output}")
        return EXIT_READY
    json_dir = "." if compiled == "-" else os.path.dirname(compiled) or "."
    md_dir = "." if output == "-" else os.path.dirname(output) or "."
    markdown = render_markdown(document, base=link_base(json_dir, md_dir, document["root"]))
    return _output(output, markdown, inputs=[compiled])


@cli.command("convert")
@click.argument("source", metavar="IN")
@click.argument("target", metavar="OUT")
@click.option("--to", "to", type=click.Choice(TARGETS), default=None,
              help="Output format; needed when OUT is -, else taken from OUT's extension.")
@_evidence_options
@_limit_options
def convert_command(source: str, target: str, to: str | None, root: str | None, no_verify: bool,
                    limits: Limits) -> int:
    """Convert a plan between YAML and JSON, or render it as Markdown, file in, file out.

    IN is .yaml, .yml or .json (a plan, or a compiled evidence-plan.json); - reads stdin.
    OUT is .yaml, .yml, .json or .md; - writes stdout (then give --to). Items are normalized;
    every item field is kept, so YAML -> JSON -> YAML gives the same plan, with the root: that
    OUT needs to find the same evidence. A plan whose items do not fit the format is not
    converted (exit 1); OUT may not be IN (use fix to edit a plan in place). Never touches the
    network.

    \b
    Examples:
      evidence-plan convert plan.yaml plan.json
      evidence-plan convert evidence-plan.json plan.yaml
      evidence-plan convert plan.yaml - --to md | less
      evidence-plan convert --no-verify-evidence plan.yaml /tmp/PLAN.md
    """
    from compiler.api.convert import convert, target_for

    kind = cast("Target | None", to) or (None if target == "-" else target_for(target))
    if kind is None:
        raise click.UsageError(
            f"give --to {'|'.join(TARGETS)} when OUT is -" if target == "-"
            else f"cannot tell the format of {target!r}: use .yaml, .yml, .json or .md, or --to"
        )
    if to and target != "-" and target_for(target) not in (None, to):
        raise click.UsageError(f"--to {to} disagrees with the extension of {target!r}")
    if target != "-" and not _reported(lambda: _check_targets([target], inputs=[source])):
        return EXIT_INPUT  # refused before converting: OUT is IN under some name, or may not be written
    out_dir = "." if target == "-" else os.path.dirname(target) or "."
    converted = convert(source, kind, out_dir, root=root, verify_evidence=not no_verify, limits=limits)
    if converted.text is None:
        _show_diagnostics(converted.diagnostics)
        _err(f"{converted.name}: not converted: fix the items above first")
        return EXIT_BLOCKED
    code = _output(target, converted.text, inputs=[source])
    if code == EXIT_READY and converted.root_outside is not None:
        # Written anyway: it is where the evidence is, and OUT is the user's choice.
        _err(f"{'<stdout>' if target == '-' else target}: warning: root: {converted.root_outside} leads outside"
             " the repository that holds it: compiled there, it is refused (EP208)")
        _err("  hint: compile it with --root, or convert into the repository the evidence is in")
    return code


def _check_targets(paths: Sequence[str], inputs: Sequence[str]) -> None:
    from compiler.core.targets import check_targets

    check_targets(paths, inputs)


@cli.command("fix")
@click.argument("plan", metavar="PLAN")
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@click.option("--pin", is_flag=True, help="Also pin every entry that cites lines or a symbol, holds, and has no pin.")
@click.option("--to-symbols", is_flag=True,
              help="Also rewrite line evidence that covers exactly one definition as path::Name.")
@click.option("--root", metavar="DIR", default=None, help="Repository root for evidence paths (as for compile).")
@_limit_options
def fix_command(plan: str, dry_run: bool, pin: bool, to_symbols: bool, root: str | None, limits: Limits) -> int:
    """Repair PLAN in place where the repair is mechanical, and report the rest.

    Moves an evidence entry's line or lines to where its pinned lines (exactly) or its
    `contains` text (found exactly once) now are, and removes repeated depends_on and evidence
    entries. With --pin, adds a pin (a hash of the cited lines) to every entry that cites lines
    or a symbol and holds, so that a later change under it is reported (EP211). Comments, key
    order, quoting and layout of a YAML plan are kept byte for byte; a JSON plan is rewritten
    one key per line. Never changes what the plan means; never runs anything. Exit 0 when
    the plan is ready afterwards, 1 when problems remain (listed), 2 input error.

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
    """
    from compiler.api.fix import FixError, fix_document
    from compiler.load.document import load_with_text

    if plan == "-":
        raise click.UsageError("fix edits a file in place: give its path, not -")
    doc, text = load_with_text(plan, limits=limits)
    try:
        outcome = fix_document(doc, text, plan, root=root, dry_run=dry_run, pin=pin, to_symbols=to_symbols)
    except FixError as err:
        _err(f"{plan}: error: {err}")
        return EXIT_BLOCKED
    if dry_run:
        click.echo(_diff(outcome.original, outcome.fixed, plan), nl=False)
    elif outcome.changes and not _rewrite(plan, outcome.fixed, text):
        return EXIT_INPUT
    for change in outcome.changes:
        _err(f"{'would fix' if dry_run else 'fixed'}: {change}")
    for change in outcome.left:
        _err(f"not fixed: {change}")
    result = outcome.result
    remaining = result.diagnostics if result is not None else ()
    if remaining:
        _show_diagnostics(remaining)
    if not outcome.changes:
        _err(f"{plan}: nothing to fix")
    errors = sum(1 for d in remaining if d.severity == "error")
    if errors:
        _err(f"{plan}: {_plural(errors, 'problem')} left that fix cannot repair")
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


@cli.command("schema")
@click.argument("kind", type=click.Choice(["input", "output"]), default="input")
def schema_command(kind: str) -> int:
    """Print the JSON Schema of a plan file (input) or of evidence-plan.json (output).

    \b
    Examples:
      evidence-plan schema > plan.schema.json      # for editor completion and validation
      evidence-plan schema output
    """
    from compiler.model.json_schema import committed

    click.echo(committed(kind), nl=False)  # type: ignore[arg-type]
    return EXIT_READY


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code: the one place that turns click's exits, Ctrl-C, a
    closed pipe and bugs into codes (a plan's input errors are the command group's, above)."""
    import gc

    # One short-lived process that builds millions of objects and few reference cycles: with
    # the default thresholds the cyclic garbage collector's passes over them were ~40% of the
    # time of a 100,000-item compile. Collecting 140x less often keeps the speed of no collector
    # at all (measured: 7.7 s -> 4.6 s; off: 5.2 s) and still frees what cycles there are.
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    args = list(sys.argv[1:] if argv is None else argv)
    from compiler.core.cilog import guarded

    # Every line, click's own messages and a traceback too, passes the guard (compiler.core.cilog).
    with guarded():
        try:
            code = cli.main(args=args, prog_name="evidence-plan", standalone_mode=False)
        except click.exceptions.Exit as exc:
            return exc.exit_code
        except click.ClickException as exc:
            exc.show()
            return EXIT_INPUT
        except (click.exceptions.Abort, KeyboardInterrupt):  # Abort: click's name for Ctrl-C
            _err("interrupted")
            return INTERRUPTED
        except BrokenPipeError:
            # The reader went away (e.g. `| head`): not an error of ours.
            sys.stderr.close()
            return EXIT_READY
        except Exception as exc:  # noqa: BLE001 - the single place that reports bugs
            if "--debug" in args:
                import traceback

                traceback.print_exc()
            _err(f"evidence-plan: internal error: {type(exc).__name__}: {exc}")
            _err(f"This is a bug in evidence-plan {__version__}: please report it with the output of"
                 " the same command run with --debug (which shows the traceback).")
            return EXIT_INTERNAL
        finally:
            gc.set_threshold(*thresholds)  # as it was, for callers that run main() in-process (the tests)
    return code if isinstance(code, int) else EXIT_READY
