"""compiler/checks/dependencies.py: the rules about depends_on, seen through compile_document:
unknown ids with a did-you-mean (EP301, bounded on large plans), self-dependencies (EP302), one
diagnostic per cycle with a note at each edge on it (EP303: found by networkx when compile
orders a plan, by a plain topological sort when `check` does not, the same either way), and a
dependency listed twice (EP304, a warning).

The graph algorithms behind them (waves, cycles, critical path) are tests/analysis/test_graph.py.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import compile_yaml, rows
from work import GROWTH_LIMIT, count, growth

from compiler.checks import dependencies
from compiler.compile.pipeline import compile_document
from compiler.load.document import parse_text

BASE = """
items:
  - id: contract
    change: Define it
    evidence: [a.py]
    proof: make a
  - id: implementation
    change: Do it
    evidence: [b.py]
    proof: make b
"""


def test_ep301_unknown_dependency_with_did_you_mean() -> None:
    result = compile_yaml(BASE + "    depends_on: [contrat]\n")
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP301", "implementation", 10, 18)]
    assert d.message == "implementation depends on unknown items: contrat (did you mean contract?)"
    assert result.status == "blocked" and result.waves == () and result.critical_path == ()


def test_ep301_several_unknown_names_one_diagnostic_at_the_first() -> None:
    result = compile_yaml(BASE + "    depends_on: [contract, contrat, zebra, implementaton, zebra]\n")
    assert rows(result.diagnostics) == [("EP301", "implementation", 10, 28), ("EP304", "implementation", 10, 59)]
    assert result.diagnostics[0].message == (
        "implementation depends on unknown items: contrat, zebra, implementaton"
        " (did you mean contract for contrat, implementation for implementaton?)"
    )


def test_ep301_without_a_close_name() -> None:
    result = compile_yaml(BASE + "    depends_on:\n      - x\n      - y\n")
    assert rows(result.diagnostics) == [("EP301", "implementation", 11, 9)]
    assert result.diagnostics[0].message == "implementation depends on unknown items: x, y"


@pytest.mark.performance
def test_ep301_did_you_mean_is_bounded() -> None:
    """4,000 items, each depending on an unknown id: difflib compared every unknown id with every
    id (1,000: 1.3-2.8 s, 2,000: 5.7-9.5 s, 4,000: 22-44 s). One suggester over the ids answers
    the same while its work budget lasts, in plan order, then stops: this plan took 281 s
    before on a loaded machine, 0.6 s after. Counted (tests/work.py): 3.4 million calls, 0.4
    million of them the same plan's without unknown ids; the pairs difflib compared before were
    16 million, each a few calls at least."""
    import difflib

    n = 4000
    ids = [f"step-{k:05d}" for k in range(n)]
    plan = {"items": [{"id": ident, "change": "c", "evidence": ["a.py"], "proof": "true",
                       "depends_on": [f"stp-{k:05d}" if k % 2 else f"unknown-{k:05d}-x"]}
                      for k, ident in enumerate(ids)]}
    doc = parse_text(json.dumps(plan), "plan.json", "json")
    warm_up = parse_text(json.dumps({"items": plan["items"][:2]}), "plan.json", "json")
    compile_document(warm_up, "plan.json", verify_evidence=False)  # the imports, not counted
    counted = count(lambda: compile_document(doc, "plan.json", verify_evidence=False))
    result = counted.value
    found = [d for d in result.diagnostics if d.code == "EP301"]
    assert len(found) == n
    hinted = [d for d in found if "did you mean" in d.message]
    assert hinted and found[:len(hinted) * 2][1::2] == hinted  # the first typos, in plan order
    assert hinted[0].message == f"{ids[1]} depends on unknown items: stp-00001 (did you mean step-00001?)"
    assert difflib.get_close_matches("stp-00001", ids, n=1) == ["step-00001"]
    assert counted.calls < 5_000_000, counted.top()


def test_ep301_through_the_dependencies_alias() -> None:
    result = compile_yaml(BASE + "    dependencies: [contract, nope]\n")
    assert rows(result.diagnostics) == [("EP301", "implementation", 10, 30)]


def test_ep302_self_dependency() -> None:
    result = compile_yaml(BASE + "    depends_on: [contract, implementation, implementation]\n")
    assert [r for r in rows(result.diagnostics) if r[0] == "EP302"] == [("EP302", "implementation", 10, 28)]
    assert result.diagnostics[0].message == "implementation depends on itself"
    assert result.status == "blocked"


CYCLE = """
items:
  - id: a
    change: x
    evidence: [a.py]
    depends_on: [b]
    proof: p
  - id: b
    change: x
    evidence: [a.py]
    depends_on:
      - c
    proof: p
  - id: c
    change: x
    evidence: [a.py]
    dependencies: [ok, a]
    proof: p
  - id: ok
    change: x
    evidence: [a.py]
    proof: p
"""


def test_ep303_cycle_message_and_one_note_per_edge() -> None:
    result = compile_yaml(CYCLE)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP303", "a", 5, 18)]
    assert d.message == "dependency cycle among: a, b, c (a -> b -> c -> a)"
    assert [(n.message, n.location.line, n.location.column) for n in d.notes if n.location] == [
        ("a depends on b", 5, 18),
        ("b depends on c", 11, 9),
        ("c depends on a", 16, 24),
    ]
    assert result.status == "blocked" and result.waves == ()


def test_ep303_two_cycles_two_diagnostics() -> None:
    result = compile_yaml("""
        items:
          - {id: y, change: x, evidence: [a.py], proof: p, depends_on: [x]}
          - {id: x, change: x, evidence: [a.py], proof: p, depends_on: [y]}
          - {id: b, change: x, evidence: [a.py], proof: p, depends_on: [a]}
          - {id: a, change: x, evidence: [a.py], proof: p, depends_on: [b]}
    """)
    assert [(d.code, d.item, d.message) for d in result.diagnostics] == [
        ("EP303", "x", "dependency cycle among: x, y (x -> y -> x)"),
        ("EP303", "a", "dependency cycle among: a, b (a -> b -> a)"),
    ]
    assert rows(result.diagnostics) == [("EP303", "x", 3, 65), ("EP303", "a", 5, 65)]


def test_compile_orders_with_one_graph_and_no_separate_cycle_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan that is ready after the other checks is ordered by networkx, which finds any cycle
    as it goes: the plain-Python check that `check` uses does not run as well."""
    def refuse(*_: object) -> bool:
        raise AssertionError("acyclic() ran during compile")

    monkeypatch.setattr(dependencies, "acyclic", refuse)
    with pytest.raises(AssertionError, match="acyclic"):  # what `check` runs, and compile must not
        compile_document(parse_text(textwrap.dedent(CYCLE), "plan.yaml", "yaml"), "plan.yaml",
                         verify_evidence=False, order=False)
    assert compile_yaml(CYCLE).diagnostics[0].message == "dependency cycle among: a, b, c (a -> b -> c -> a)"
    ready = compile_yaml(BASE + "    depends_on: [contract]\n")
    assert ready.waves == (("contract",), ("implementation",))
    assert ready.critical_path == ("contract", "implementation")


BLOCKED_WITH_CYCLES = CYCLE + """
  - id: lost
    change: x
    proof: p
    depends_on: [x, y]
  - id: x
    change: x
    evidence: [a.py]
    depends_on: [y]
    proof: p
  - id: y
    change: x
    evidence: [a.py]
    depends_on: [x]
    proof: p
"""


@pytest.mark.parametrize("text", [CYCLE, BLOCKED_WITH_CYCLES, BASE])
def test_check_and_compile_report_the_same_cycles(text: str) -> None:
    """compile finds cycles while ordering a plan (networkx), check and a plan blocked already
    without ordering it (a plain topological sort first): the same diagnostics either way."""
    doc = parse_text(textwrap.dedent(text).lstrip("\n"), "plan.yaml", "yaml")
    compiled = compile_document(doc, "plan.yaml", verify_evidence=False)
    checked = compile_document(doc, "plan.yaml", verify_evidence=False, order=False)
    assert compiled.diagnostics == checked.diagnostics
    assert checked.waves == () and checked.critical_path == ()


def test_a_blocked_plan_still_reports_each_cycle() -> None:
    result = compile_yaml(BLOCKED_WITH_CYCLES)
    assert [d.code for d in result.diagnostics].count("EP303") == 2
    assert "EP101" in [d.code for d in result.diagnostics]
    assert result.status == "blocked" and result.waves == ()


def test_duplicate_ids_do_not_make_phantom_cycles() -> None:
    # only the first `a` is in the graph; the second one's dependency on b is no edge
    result = compile_yaml("""
        items:
          - {id: a, change: x, evidence: [a.py], proof: p}
          - {id: b, change: x, evidence: [a.py], proof: p, depends_on: [a]}
          - {id: a, change: x, evidence: [a.py], proof: p, depends_on: [b]}
    """)
    assert [d.code for d in result.diagnostics] == ["EP104"]


def test_warnings_ep304_and_ep105_leave_the_plan_ready() -> None:
    result = compile_yaml("""
        items:
          - id: a
            change: x
            evidence: [a.py:3, {path: a.py, line: 3}, a.py:3-4]
            proof: p
          - id: b
            change: y
            evidence: [b.py]
            depends_on: [a, a]
            proof: p
    """)
    assert rows(result.diagnostics) == [("EP105", "a", 4, 24), ("EP304", "b", 9, 21)]
    assert [d.message for d in result.diagnostics] == ["a cites a.py:3 twice", "b lists dependency a twice"]
    assert {d.severity for d in result.diagnostics} == {"warning"}
    assert result.status == "ready"
    assert result.waves == (("a",), ("b",))
    assert result.count("warning") == 2 and result.count("error") == 0


# --- EP306: a dependency already implied through another -------------------------------------------

REDUNDANT = """
items:
  - id: c
    change: c
    evidence: [a.py]
    proof: p
  - id: b
    change: c
    evidence: [a.py]
    depends_on: [c]
    proof: p
  - id: a
    change: c
    evidence: [a.py]
    depends_on: [b, c]
    proof: p
"""


def test_ep306_a_dependency_implied_through_another_is_a_warning_at_its_entry() -> None:
    result = compile_yaml(REDUNDANT)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP306", "a", 14, 21)]
    assert d.severity == "warning" and result.status == "ready"
    assert d.message == "a depends on c, which it already depends on through b (a -> b -> c)"
    (note,) = d.notes
    assert (note.message, note.location.line, note.location.column) == ("a depends on b", 14, 18)
    assert d.hint is not None and "evidence-plan fix" in d.hint


def test_ep306_through_a_longer_chain_says_so() -> None:
    text = REDUNDANT.replace("depends_on: [c]", "depends_on: [d]") + (
        "  - id: d\n    change: c\n    evidence: [a.py]\n    depends_on: [c]\n    proof: p\n")
    (d,) = [d for d in compile_yaml(text).diagnostics if d.code == "EP306"]
    assert d.message == "a depends on c, which it already depends on through b (a -> b -> ... -> c)"


def test_ep306_is_reported_under_the_alias_too_and_not_for_independent_dependencies() -> None:
    text = REDUNDANT.replace("depends_on: [b, c]", "dependencies: [b, c]")
    assert rows(compile_yaml(text).diagnostics) == [("EP306", "a", 14, 23)]
    assert compile_yaml(REDUNDANT.replace("    depends_on: [c]\n", "")).diagnostics == ()


def test_ep306_leaves_items_on_a_cycle_to_ep303() -> None:
    text = REDUNDANT.replace("    depends_on: [c]\n", "    depends_on: [c, a]\n").replace(
        "  - id: c\n    change: c\n", "  - id: c\n    change: c\n    depends_on: [b]\n")
    assert "EP306" not in [d.code for d in compile_yaml(text).diagnostics]


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.integers(0, 11), max_size=4), min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_redundant_edges_are_exactly_those_a_transitive_reduction_removes(raw: list[list[int]], rnd: Any) -> None:
    """Held to networkx's transitive_reduction on random DAGs (each item depends on earlier ones),
    written in order or shuffled (the other way of ordering them)."""
    import networkx as nx

    from compiler.model.values import Item

    made = [(f"n{i}", tuple(f"n{d % i}" for d in deps) if i else ()) for i, deps in enumerate(raw)]
    if rnd.random() < 0.5:
        rnd.shuffle(made)
    items = tuple(Item(ident, "c", (), deps, "p", k) for k, (ident, deps) in enumerate(made))
    graph = nx.DiGraph([(item.id, dep) for item in items for dep in item.depends_on])
    graph.add_nodes_from(item.id for item in items)
    kept = set(nx.transitive_reduction(graph).edges)
    found = {(r.item.id, r.dep) for r in dependencies.redundant(items)}
    assert found == set(graph.edges) - kept
    for r in dependencies.redundant(items):
        assert nx.has_path(graph, r.via, r.dep) and r.via != r.dep


def _shaped(shape: str, n: int) -> tuple[object, ...]:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from run import dependencies as shaped  # type: ignore[import-not-found]

    from compiler.model.values import Item

    return tuple(Item(f"i{k}", "c", (), tuple(f"i{d}" for d in deps), "p", k)
                 for k, deps in enumerate(shaped(shape, n)))


@pytest.mark.performance
@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_ep306_grows_linearly(shape: str) -> None:
    """10x the items, well under GROWTH_LIMIT times the calls (9.9-10.0x measured; quadratic would
    be 100x). The benchmark's `reduction` case times it at 100,000 items."""
    items = {n: _shaped(shape, n) for n in (1_000, 10_000)}
    grew = growth(lambda n: dependencies.redundant(items[n]), 1_000)  # type: ignore[arg-type]
    print(f"EP306 {shape}: {grew}")
    assert grew.ratio < GROWTH_LIMIT, str(grew)


def test_a_dependency_implied_only_through_a_dropped_item_is_not_redundant() -> None:
    """a -> c and a -> b -> c, with b dropped: b has left the graph, so a -> c is what holds a
    after c; EP306 would tell the user to remove the one dependency that still orders it."""
    from support import compile_yaml

    result = compile_yaml("""
        items:
          - {id: c, change: x, evidence: [https://x.org], proof: p}
          - {id: b, change: x, evidence: [https://x.org], proof: p, depends_on: [c], status: dropped, reason: r}
          - {id: a, change: x, evidence: [https://x.org], proof: p, depends_on: [c]}
          - {id: d, change: x, evidence: [https://x.org], proof: p, depends_on: [c, a]}
    """)
    redundant = [(d.code, d.item) for d in result.diagnostics if d.code == "EP306"]
    assert redundant == [("EP306", "d")]  # d -> c is implied through a, which is live
