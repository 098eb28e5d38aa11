"""The mutation fuzzing campaign (tests/fuzz/campaign.py) keeps up with the CLI: it drives every
command of the group, as click lists it, and says at start which one it cannot drive."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

import compiler.commands

CAMPAIGN = Path(__file__).parent / "fuzz" / "campaign.py"


@pytest.fixture(scope="module")
def campaign() -> ModuleType:
    spec = importlib.util.spec_from_file_location("epfuzz_campaign", CAMPAIGN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fuzz_campaign_drives_every_command_of_the_cli_group(campaign: ModuleType) -> None:
    info = campaign.CliInfo()
    assert info.problems == []
    assert sorted(info.names) == sorted(campaign.DRIVERS)
    assert {"check", "compile", "render", "diff", "graph", "fix", "approve", "where"} <= set(info.names)


def test_fuzz_campaign_reports_a_command_it_cannot_drive(campaign: ModuleType,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(compiler.commands.COMMANDS, "zz-new", "compiler.commands.approve:command")
    assert campaign.CliInfo().problems == [
        "command 'zz-new' of the CLI group has no driver: add one to DRIVERS in campaign.py (how a user runs it on a"
        " mutant, and its verdicts)"]


def test_fuzz_campaign_reports_a_format_it_cannot_judge(campaign: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = dict(campaign.CHOICE_KINDS)
    kinds[("graph", "fmt")] = {k: v for k, v in kinds[("graph", "fmt")].items() if k != "svg"}
    monkeypatch.setattr(campaign, "CHOICE_KINDS", kinds)
    assert campaign.CliInfo().problems == [
        "graph --format: svg has no output kind in CHOICE_KINDS of campaign.py"]


def test_fuzz_campaign_draws_the_runs_of_every_command_from_its_seed(campaign: ModuleType) -> None:
    """Over a few hundred mutants every command runs, and the same seed draws the same runs."""
    seeds = campaign.load_seeds()
    info = campaign.CliInfo()
    commands: set[str] = set()
    for index in range(300):
        seed = seeds[index % len(seeds)]
        m = campaign.Mutant(index, seed)
        m.data = seed.data
        m.drive = campaign.draw_drive(info, m, seed, 1)
        assert m.drive == campaign.draw_drive(info, m, seed, 1)
        commands |= {run["cmd"] for run in campaign.run_specs(m.to_dict())}
    assert commands == set(info.names)
