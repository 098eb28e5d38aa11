"""compiler/checks/paths.py: EP305, two items of one wave whose `paths` can overlap, named with a
path both may write and located at the later item's entry, with a note at the other's. The
overlap decision itself is tests/core/test_globs.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import compile_yaml, deep_glob, rows
from work import GROWTH_LIMIT, growth

from compiler.analysis.graph import build_graph, plain_waves, waves
from compiler.checks.context import CheckContext
from compiler.checks.paths import path_conflicts
from compiler.load.document import parse_text
from compiler.model.validate import build_plan


def _plan(*items: tuple[str, list[str], list[str]]) -> str:
    lines = ["items:"]
    for ident, deps, paths in items:
        lines += [f"  - id: {ident}", "    change: c", "    evidence: [a.py]", f"    depends_on: {json.dumps(deps)}",
                  f"    paths: {json.dumps(paths)}", "    proof: p"]
    return "\n".join(lines) + "\n"


def test_a_folder_and_a_file_below_it_in_one_wave_conflict_with_the_file_as_witness() -> None:
    result = compile_yaml(_plan(("schema", [], ["app/"]), ("validation", [], ["app/models/user.py"])))
    (d,) = result.diagnostics
    assert rows([d]) == [("EP305", "validation", 12, 13)]
    assert d.message == ("schema and validation may run in parallel (wave 1) and both may write app/models/user.py"
                         " (schema: 'app/', validation: 'app/models/user.py')")
    (note,) = d.notes
    assert note.location.line == 6 and note.message == "schema writes 'app/'"
    assert d.hint is not None and "add a dependency" in d.hint and "split ownership" in d.hint
    assert result.status == "blocked"


def test_two_globs_that_overlap_are_reported_with_a_path_both_cover() -> None:
    result = compile_yaml(_plan(("a", [], ["src/*/models.py"]), ("b", [], ["src/billing/*.py"])))
    (d,) = result.diagnostics
    assert (d.code, d.item) == ("EP305", "b") and "both may write src/billing/models.py" in d.message


def test_the_same_file_named_twice_conflicts() -> None:
    (d,) = compile_yaml(_plan(("a", [], ["app/x.py"]), ("b", [], ["docs/", "app/x.py"]))).diagnostics
    assert rows([d]) == [("EP305", "b", 12, 22)]  # the second entry of b's paths


def test_a_dependency_between_them_resolves_it() -> None:
    result = compile_yaml(_plan(("schema", [], ["app/"]), ("validation", ["schema"], ["app/models/user.py"])))
    assert result.diagnostics == () and result.waves == (("schema",), ("validation",))


@pytest.mark.parametrize("paths", [["app/*.py", "app/sub/x.py"], ["app/", "apps/"], ["*.py", "*.js"],
                                   ["src/a.py", "src/b.py"]])
def test_disjoint_paths_in_one_wave_are_fine(paths: list[str]) -> None:
    assert compile_yaml(_plan(("a", [], [paths[0]]), ("b", [], [paths[1]]))).diagnostics == ()


def test_one_item_may_name_overlapping_paths_of_its_own() -> None:
    assert compile_yaml(_plan(("a", [], ["app/", "app/x.py"]))).diagnostics == ()


def test_each_pair_of_items_is_reported_once_and_each_item_against_the_folder() -> None:
    result = compile_yaml(_plan(("root", [], ["src/"]), ("x", [], ["src/x.py"]), ("y", [], ["src/y.py"])))
    assert [(d.code, d.item) for d in result.diagnostics] == [("EP305", "x"), ("EP305", "y")]


def test_check_reports_it_too_without_ordering_the_plan() -> None:
    doc = parse_text(_plan(("a", [], ["app/"]), ("b", [], ["app/"])), "plan.yaml", "yaml")
    plan = build_plan(doc)
    (d,) = path_conflicts(CheckContext(plan, doc))
    assert (d.code, d.item, "both may write app" in d.message) == ("EP305", "b", True)


def test_items_on_a_cycle_are_left_to_ep303() -> None:
    result = compile_yaml(_plan(("a", ["b"], ["app/"]), ("b", ["a"], ["app/"])))
    assert [d.code for d in result.diagnostics] == ["EP303"]


def test_the_waves_of_the_check_are_compiles_waves() -> None:
    text = _plan(("a", [], []), ("b", ["a"], []), ("c", ["a", "b"], []), ("d", [], []), ("e", ["d", "a"], []))
    plan = build_plan(parse_text(text, "plan.yaml", "yaml"))
    ours = plain_waves(plan.items)
    theirs = {ident: n for n, wave in enumerate(waves(build_graph(plan.items)), 1) for ident in wave}
    assert ours == theirs == {"a": 1, "d": 1, "b": 2, "e": 2, "c": 3}


def _wide(n: int, shared: bool = False) -> str:
    items = [{"id": f"i{k}", "change": "c", "evidence": ["a.py"], "proof": "p",
              "paths": [f"src/mod{k}/", f"tests/mod{k}/test_*.py", f"docs/mod{k}.md"]} for k in range(n)]
    if shared:
        items[-1]["paths"] = ["src/mod0/models.py"]
    return json.dumps({"items": items})


def _check(text: str) -> list[object]:
    doc = parse_text(text, "plan.json", "json")
    return list(path_conflicts(CheckContext(build_plan(doc), doc)))


def test_a_conflict_in_a_wide_wave_is_found() -> None:
    found = _check(_wide(1_000, shared=True))
    assert [(d.code, d.item) for d in found] == [("EP305", "i999")]  # type: ignore[attr-defined]


@pytest.mark.performance
def test_a_wave_of_10000_items_is_checked_without_comparing_every_pair() -> None:
    """10,000 items, 30,000 paths in one wave: 45,000,000 pairs if compared blindly; bucketed by
    their leading literal segments, each path meets only its own bucket's: 10x the items make
    10.0x the calls (tests/work.py), not the 100x of comparing pairs."""
    prepared = {}
    for n in (1_000, 10_000):
        doc = parse_text(_wide(n), "plan.json", "json")
        prepared[n] = CheckContext(build_plan(doc), doc)
    grew = growth(lambda n: list(path_conflicts(prepared[n])), 1_000)
    print(f"EP305: {grew}")
    assert list(path_conflicts(prepared[10_000])) == []
    assert grew.ratio < GROWTH_LIMIT, str(grew)


def test_convert_keeps_paths_both_ways(tmp_path: Path) -> None:
    from compiler.api.convert import convert

    plan = tmp_path / "plan.yaml"
    plan.write_text(_plan(("a", [], ["app/", "docs/**/*.md"])), encoding="utf-8")
    as_json = convert(str(plan), "json", str(tmp_path), verify_evidence=False)
    assert as_json.text is not None and json.loads(as_json.text)["items"][0]["paths"] == ["app/", "docs/**/*.md"]
    (tmp_path / "plan.json").write_text(as_json.text, encoding="utf-8")
    back = convert(str(tmp_path / "plan.json"), "yaml", str(tmp_path), verify_evidence=False)
    assert back.text is not None and "  paths:\n  - app/\n  - docs/**/*.md\n" in back.text


def test_check_on_the_command_line_reports_ep305_with_its_item_and_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from compiler.cli import cli

    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text(_plan(("schema", [], ["app/"]), ("validation", [], ["app/models/user.py"])), encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--root", str(tmp_path), str(plan)])
    assert result.exit_code == 1, result.output
    (found,) = json.loads(result.stdout)
    assert (found["code"], found["item"], found["location"]["line"], found["location"]["column"]) == (
        "EP305", "validation", 12, 13)
    assert found["related"][0]["location"]["line"] == 6


def test_comparisons_are_bounded_and_a_warning_says_what_was_not_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.checks import paths

    monkeypatch.setattr(paths, "MAX_COMPARISONS", 50)
    text = _plan(*((f"i{k}", [], [f"**/*.m{k}"]) for k in range(20)))  # 190 pairs, all disjoint
    (d,) = compile_yaml(text).diagnostics
    assert (d.code, d.severity, d.item) == ("EP309", "warning", None)
    assert d.message.startswith("paths were compared 50 times, and those of wave 1 onwards were not all compared")
    assert "20 paths start with a wildcard" in d.message
    monkeypatch.setattr(paths, "MAX_COMPARISONS", 380)  # each pair of one bucket is compared from both sides
    assert compile_yaml(text).diagnostics == ()  # within the budget: every pair compared, none overlaps


def test_a_dropped_item_writes_nothing() -> None:
    from support import compile_yaml

    plan = """
        items:
          - {id: a, change: x, evidence: [https://x.org], proof: p, paths: [app/models/]}
          - {id: b, change: x, evidence: [https://x.org], proof: p, paths: [app/models/user.py]%s}
    """
    assert [d.code for d in compile_yaml(plan % "").diagnostics if d.code == "EP305"] == ["EP305"]
    assert [d.code for d in compile_yaml(plan % ", status: dropped, reason: r").diagnostics if d.code == "EP305"] == []


# --- bounded work: the steps of each pair, and of the check -------------------------------------------

def test_a_pair_of_paths_too_costly_to_decide_is_ep309_at_the_later_items_path() -> None:
    result = compile_yaml(_plan(("one", [], [deep_glob("abc", first=True)]),
                                ("two", [], [deep_glob("ijk", first=False)])))
    assert rows(result.diagnostics) == [("EP309", "two", 12, 13)]
    (d,) = result.diagnostics
    assert d.severity == "warning"
    assert d.message.startswith("one and two may run in parallel (wave 1), and whether their paths overlap was not"
                                " decided in 50,000 steps of the search (one: '**/*a?*a?")
    assert d.message.endswith("): they were compared partly, and a conflict may be missed")
    assert [(n.message[:17], n.location.line if n.location else None) for n in d.notes] == [("one writes '**/*a", 6)]


def test_the_other_pairs_are_still_compared_after_one_is_undecided() -> None:
    result = compile_yaml(_plan(("one", [], ["x/" + deep_glob("abc", first=True)]),
                                ("two", [], ["x/" + deep_glob("ijk", first=False)]),
                                ("three", [], ["src/"]), ("four", [], ["src/x.py"])))
    assert [(d.code, d.item) for d in result.diagnostics] == [("EP309", "two"), ("EP305", "four")]


def test_a_pair_found_to_conflict_is_ep305_not_ep309() -> None:
    """two's first path cannot be decided against one's, its second conflicts: one report, EP305."""
    result = compile_yaml(_plan(("one", [], [deep_glob("abc", first=True)]),
                                ("two", [], [deep_glob("ijk", first=False), "**/*.py"])))
    assert [(d.code, d.item) for d in result.diagnostics] == [("EP305", "two")]


def test_the_worst_4kb_plan_costs_the_steps_of_one_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two items, one path each of 8 names of 253 characters: 18-30 s of CPU before the bound.
    Each pair of entries left undecided is not asked again from the other side."""
    from compiler.core import globs

    spent = []
    spend = globs.Steps.spend

    def counted(self: globs.Steps, n: int) -> None:
        spent.append(n)
        spend(self, n)

    monkeypatch.setattr(globs.Steps, "spend", counted)
    text = _plan(("one", [], [deep_glob("abcdefgh", first=True)]), ("two", [], [deep_glob("ijklmnop", first=False)]))
    assert len(text) < 4500
    assert [d.code for d in compile_yaml(text).diagnostics] == ["EP309"]
    assert globs.MAX_STEPS < sum(spent) <= 2 * globs.MAX_STEPS + 1


def test_the_steps_of_all_comparisons_are_bounded_and_ep309_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.core import globs

    monkeypatch.setattr(globs, "MAX_SEARCH", 100)
    text = _plan(*((f"i{k}", [], [f"**/*.m{k}"]) for k in range(20)))  # 190 pairs, all disjoint, 18 steps each
    (d,) = compile_yaml(text).diagnostics
    assert (d.code, d.severity, d.item) == ("EP309", "warning", None)
    assert d.message.startswith("paths were compared 6 times in 100 steps of the search, and those of wave 1 onwards"
                                " were not all compared")
