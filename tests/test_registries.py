"""Every registry of formats is a dict from name to function, the CLI offers exactly its keys, and
every key renders the bundled example: a format added without its function, or a function without
its choice, fails here (before, a graph format listed without a renderer printed the JSON layout
and exited 0)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from compiler.api import convert
from compiler.cli import cli
from compiler.commands import COMMANDS
from compiler.model import json_schema
from compiler.render import picture
from compiler.report import diff as diff_report
from compiler.report import reporters

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "duplicate-email"


def _option_choices(command_name: str, option: str) -> tuple[str, ...]:
    command = cli.get_command(click.Context(cli), command_name)
    assert command is not None
    for param in command.params:
        if option in getattr(param, "opts", ()) or param.name == option:
            assert isinstance(param.type, click.Choice)
            return tuple(param.type.choices)
    raise AssertionError(f"{command_name} has no {option}")


def _format_registry(name: str) -> dict[str, Callable[..., object]]:
    import importlib

    return importlib.import_module(f"compiler.commands.{name}").FORMATS  # type: ignore[no-any-return]


REGISTRIES: list[tuple[str, str, tuple[str, ...]]] = [
    ("check", "--format", ("auto", *reporters.REPORTERS)),
    ("graph", "--format", tuple(picture.FORMATS)),
    ("diff", "--format", tuple(diff_report.FORMATS)),
    ("convert", "--to", convert.TARGETS),
    ("schema", "kind", tuple(json_schema.SCHEMAS)),
    *((name, "--format", tuple(_format_registry(name))) for name in ("next", "symbols", "where")),
]


@pytest.mark.parametrize(("command", "option", "keys"), REGISTRIES, ids=[f"{c} {o}" for c, o, _ in REGISTRIES])
def test_the_cli_offers_exactly_the_registrys_keys(command: str, option: str, keys: tuple[str, ...]) -> None:
    assert _option_choices(command, option) == keys


PLAN = "examples/duplicate-email/plan.yaml"
BLOCKED = "examples/blocked/plan.yaml"
REVISED = "tests/golden/diff/revised.yaml"


def _invocations() -> list[tuple[str, list[str], int]]:
    """Every key of every registry, as a read-only command line from the repository's top, and
    its exit code: plans that give each format something to say (a blocked plan for check's
    reports, a revision for diff's)."""
    out: list[tuple[str, list[str], int]] = []
    out += [(f"check {f}", ["check", "--format", f, BLOCKED], 1) for f in reporters.REPORTERS]
    out += [(f"graph {f}", ["graph", "--format", f, PLAN], 0) for f in picture.FORMATS]
    out += [(f"diff {f}", ["diff", "--format", f, PLAN, REVISED], 1) for f in diff_report.FORMATS]
    out += [(f"convert {t}", ["convert", PLAN, "-", "--to", t], 0) for t in convert.TARGETS]
    out += [(f"schema {k}", ["schema", k], 0) for k in json_schema.SCHEMAS]
    out += [(f"next {f}", ["next", "--format", f, PLAN], 0) for f in _format_registry("next")]
    out += [(f"symbols {f}", ["symbols", "--format", f, "examples/duplicate-email/app/accounts.py"], 0)
            for f in _format_registry("symbols")]
    out += [(f"where {f}", ["where", "--format", f, "--root", "examples/duplicate-email", "def create_account"], 0)
            for f in _format_registry("where")]
    return out


@pytest.mark.parametrize(("name", "args", "code"), _invocations(), ids=[name for name, _, _ in _invocations()])
def test_every_key_of_every_registry_renders_the_example(name: str, args: list[str], code: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == code, (name, result.output)
    assert result.stdout.strip(), f"{name} printed nothing"
    if name.split()[-1] in ("json", "sarif", "input", "output"):
        json.loads(result.stdout)


def test_every_command_is_in_the_table_and_none_else() -> None:
    """The group lists exactly compiler/commands/'s modules, each with its command."""
    modules = sorted(p.stem for p in (REPO / "compiler" / "commands").glob("*.py") if not p.stem.startswith("_"))
    assert sorted(COMMANDS) == modules
    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        assert isinstance(cli.get_command(ctx, name), click.Command)
