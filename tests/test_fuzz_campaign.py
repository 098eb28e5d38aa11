"""The mutation fuzzing campaign (tests/fuzz/campaign.py) keeps up with the CLI: it drives every
command of the group, as click lists it, and says at start which one it cannot drive."""

from __future__ import annotations

import importlib.util
import json
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


@pytest.mark.slow
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


@pytest.mark.parametrize(("kind", "output", "found"), [
    ("text", b"plan.yaml:1:1: error EP101 a\n", []),
    ("text", b"::error::injected\n", ["text-gh-command"]),
    ("text", b"a\x1b[31m\n" + b"x" * 2001 + b"\n", ["text-esc", "text-long-line"]),
    ("text-whole", b"x" * 2001 + b"\n", []),
    ("unified-diff", b"-a: 1\r\n+a: 2\r\n", []),
    ("unified-diff", b"-a: 1\r+a: 2\n", ["text-cr"]),
    ("json", b'{"a": [1]}\n', []),
    ("json", b'{"a": NaN}\n', ["json-invalid"]),
    ("json", b'{"a":\n::error::x\n', ["text-gh-command", "json-invalid"]),
    ("github-notice", b"::notice file=p.yaml,line=3::x\n", []),
    ("github-notice", b"::notice ::x\n::error::y\n", ["github-format"]),
    ("markdown", b"# Plan\n\n[x](javascript:alert(1))\n", ["md-js-link"]),
    ("markdown", b"# Plan\n\nA <script>x</script>\n", ["md-html"]),
    ("markdown", b"- **Proof:** (2 lines)\n  ```\n  a <script>x</script>\n  b\n  ```\n", []),
    ("mermaid", b"flowchart TD\n%%{init: {}}%%\n", ["mermaid-directive"]),
    ("svg", b'<svg xmlns="http://www.w3.org/2000/svg"><text>a</text></svg>\n', []),
    ("svg", b'<svg><text>a</svg>\n', ["svg-invalid"]),
    ("html", b'<p onclick="x()">a\xe2\x80\xae</p><img src="https://e.com/x.png">\n',
     ["markup-bidi", "markup-event-handler", "markup-network"]),
])
def test_fuzz_campaign_judges_each_output_by_its_kind(campaign: ModuleType, kind: str, output: bytes,
                                                      found: list[str]) -> None:
    res = {"name": "graph-fast", "ws": {}}
    assert [f.kind for f in campaign.judge_output(kind, output, "graph", "stdout", res, True)] == found


def _run(name: str, exit_code: int, **extra: object) -> dict[str, object]:
    return {"name": name, "cmd": name.split("-")[0], "exit": exit_code, "stdout": b"", "stderr": b"", **extra}


@pytest.mark.parametrize(("results", "found"), [
    ([_run("compile-fast", 1), _run("graph-svg-fast", 0), _run("diff-text-sm-fast", 1),
      _run("diff-text-ms-fast", 1), _run("diff-text-mm-fast", 0)], []),
    ([_run("diff-text-sm-fast", 1), _run("diff-text-ms-fast", 0)], ["diff-asymmetric"]),
    ([_run("diff-json-mm-fast", 1, stdout=b'{"same": false}')], ["diff-self-differs"]),
    ([_run("diff-json-sm-fast", 0, stdout=b'{"same": false}')], ["diff-json"]),
    ([_run("compile-fast", 2), _run("graph-dot-fast", 0)], ["graph-compile-disagree"]),
    ([_run("check-json-fast", 1), _run("compile-fast", 1), _run("next-text-fast", 0)], ["next-compile-disagree"]),
    ([_run("fix-dry-fast", 0, stdout=b"--- a/p\n"), _run("fix-fast", 0, plan_changed=False)], ["fix-dryrun-disagree"]),
    ([_run("compile-fast", 0, out_files={"evidence-plan.md": b"# a\n"}),
      _run("render-md-fast", 0, files={"\x00out/rendered.md": b"# b\n"})], ["render-differs"]),
    ([_run("check-json-fast", 0, stdout=b"[]"), _run("approve-fast", 0),
      _run("approve-check-fast", 1, stdout=b'[{"code": "EP111", "item": "gate", "severity": "error"}]')],
     ["approve-ready-then-blocked", "approve-then-stale"]),
])
def test_fuzz_campaign_holds_the_commands_to_what_they_must_agree_on(
        campaign: ModuleType, results: list[dict[str, object]], found: list[str]) -> None:
    runs = {r["name"]: {"name": r["name"], "cmd": r["cmd"]} for r in results}
    runs.get("approve-check-fast", {}).update(recheck="approve-fast")
    runs.get("approve-fast", {}).update(ident="gate")
    runs.get("diff-json-mm-fast", {}).update(stdout="json")
    runs.get("diff-json-sm-fast", {}).update(stdout="json")
    by = {r["name"]: r for r in results}
    assert [f.kind for f in campaign.drive_cross_findings({}, by, runs)] == found


def test_fuzz_campaign_takes_dropped_items_out_of_the_waves(campaign: ModuleType) -> None:
    """A dropped item leaves the graph (docs/reference/progress.md): a ready plan's artifact gives it "wave": null."""
    doc = {"status": "ready", "issues": [], "waves": [["a"]], "critical_path": ["a"],
           "summary": {"errors": 0, "warnings": 0, "items": 2},
           "items": [{"id": "a", "wave": 1}, {"id": "b", "status": "dropped", "wave": None}]}
    raw = (json.dumps(doc) + "\n").encode()
    assert [f.sig for f in campaign.artifact_findings(raw, None, 0)] == []
    doc["items"][1]["wave"] = 1
    raw = (json.dumps(doc) + "\n").encode()
    assert [f.sig for f in campaign.artifact_findings(raw, None, 0)] == ["artifact-invariant:dropped-item-with-wave"]


def test_fuzz_campaign_passes_no_id_a_command_line_cannot_hold(campaign: ModuleType) -> None:
    """An id of NUL (a mutant's) is no argument: it would be read as a run's placeholder and the
    worker would die on it (the final campaign's one "crash" was this)."""
    ids, _ = campaign.plan_ids('{"items": [{"id": "\x00"}, {"id": "a"}]}')
    assert ids == ["a"]
