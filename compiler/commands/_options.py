"""The options that several commands share, declared once: the evidence options (--root,
--no-verify-evidence), --max-spread, and the input limits (--max-bytes, --max-items)."""

from __future__ import annotations

from typing import Any

import click


def evidence_options(command: Any) -> Any:
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


def whole(value: float | None) -> float | None:
    """--max-spread 100 is 100 in the JSON, as the default is, not 100.0 (None: not given)."""
    return int(value) if value is not None and value.is_integer() else value


def finite(ctx: Any, param: Any, value: float) -> float:
    """A number option's value, refused when it is nan or infinite (click's ranges let nan by)."""
    import math

    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", ctx=ctx, param=param)
    return value


def spread_option(command: Any) -> Any:
    """--max-spread: the largest high / low of an estimate or a claim that is not flagged (EP112)."""
    from compiler.model.fields import MAX_SPREAD

    return click.option(
        "--max-spread", "max_spread", type=click.FloatRange(min=1), default=None, callback=finite, metavar="N",
        help=f"Flag an estimate or claim whose high is more than N times its low (EP112). Default: the max_spread"
             f" setting, else {MAX_SPREAD}.",
    )(command)


def limit_options(command: Any) -> Any:
    """--max-bytes and --max-items, turned into one ``limits`` argument."""
    import functools

    from compiler.load.limits import DEFAULT_LIMITS, Limits

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


def revision_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A ``--base`` / ``--rev`` / ``--against`` revision, refused before git sees it when it cannot be one."""
    if value is None:  # nothing imported for an option not given
        return None
    from compiler.load.gitshow import revision_problem

    problem = revision_problem(value)
    if problem is not None:
        raise click.BadParameter(problem, ctx=ctx, param=param)
    return value
