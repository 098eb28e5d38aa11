"""Stage 4: compiler.analysis.graph: building the dependency graph, waves, cycles, the plain-Python
acyclic check, the critical path, and a compiled plan's waves (examples and a property: any DAG
compiles to a ready plan with consistent waves).

The dependency checks that use the graph (EP301-EP304) are tests/checks/test_dependencies.py.
"""

from __future__ import annotations

import json
import sys
from itertools import pairwise
from typing import Any

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import compile_yaml
from work import GROWTH_LIMIT, growth

from compiler.analysis.graph import acyclic, build_graph, critical_path, find_cycles, waves
from compiler.compile.pipeline import CompileResult, compile_document
from compiler.load.document import parse_text
from compiler.model.values import Item


def item(ident: str, *deps: str, index: int = 0) -> Item:
    return Item(ident, f"change {ident}", (), tuple(deps), "true", index)


def items(spec: dict[str, list[str]]) -> tuple[Item, ...]:
    """{"a": ["b"]} -> items in that order; a depends on b."""
    return tuple(item(k, *v, index=n) for n, (k, v) in enumerate(spec.items()))


DUPLICATE_EMAIL = {
    "contract": [],
    "implementation": ["contract"],
    "docs": ["contract"],
    "integration": ["implementation", "docs"],
}


# --- build_graph --------------------------------------------------------------------------------


def test_build_graph_edges_point_from_dependency_to_dependent() -> None:
    g = build_graph(items(DUPLICATE_EMAIL))
    assert sorted(g.nodes) == ["contract", "docs", "implementation", "integration"]
    assert sorted(g.edges) == [
        ("contract", "docs"), ("contract", "implementation"),
        ("docs", "integration"), ("implementation", "integration"),
    ]


def test_build_graph_skips_self_loops_unknown_ids_and_later_duplicates() -> None:
    g = build_graph((item("a", "a", "ghost"), item("b", "a"), item("a", "b", index=2)))
    assert sorted(g.nodes) == ["a", "b"]
    assert list(g.edges) == [("a", "b")]  # the second `a` (depending on b) is not in the graph


def test_build_graph_keeps_items_without_any_edge() -> None:
    g = build_graph(items({"lone": [], "a": [], "b": ["a"], "other": ["ghost"], "self": ["self"]}))
    assert sorted(g.nodes) == ["a", "b", "lone", "other", "self"]
    assert list(g.edges) == [("a", "b")]


# --- waves --------------------------------------------------------------------------------------


def test_waves_of_the_duplicate_email_plan() -> None:
    assert waves(build_graph(items(DUPLICATE_EMAIL))) == [["contract"], ["docs", "implementation"], ["integration"]]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, []),
        ({"a": []}, [["a"]]),
        ({"z": [], "m": [], "a": []}, [["a", "m", "z"]]),
        ({"c": ["b"], "b": ["a"], "a": []}, [["a"], ["b"], ["c"]]),
        # an item goes in the first wave after all its dependencies, not later
        ({"d": ["a"], "c": ["b"], "b": ["a"], "a": []}, [["a"], ["b", "d"], ["c"]]),
        ({"B": [], "a": [], "_x": [], "1": []}, [["1", "B", "_x", "a"]]),
    ],
)
def test_waves_sorted_within_each_wave(spec: dict[str, list[str]], expected: list[list[str]]) -> None:
    assert waves(build_graph(items(spec))) == expected


def test_waves_of_a_graph_with_a_cycle_raise() -> None:
    with pytest.raises(nx.NetworkXUnfeasible):
        waves(build_graph(items({"a": ["b"], "b": ["a"], "c": []})))


def _chain(n: int) -> tuple[Item, ...]:
    return tuple(Item(f"n{i:06d}", "c", (), (f"n{i - 1:06d}",) if i else (), "p", i) for i in range(n))


@pytest.mark.performance
def test_long_chain_has_no_recursion_limit() -> None:
    """A chain of 100,000 items, ten times the recursion limit, is ordered; its cost grows
    linearly: 10x the items, less than GROWTH_LIMIT times the calls (tests/work.py; 10.0x
    measured at 1,000 and 10,000)."""
    n = 100_000
    assert n > sys.getrecursionlimit() * 10
    result = waves(build_graph(_chain(n)))
    assert len(result) == n
    assert result[0] == ["n000000"] and result[-1] == [f"n{n - 1:06d}"]
    chains = {k: _chain(k) for k in (1_000, 10_000)}
    grew = growth(lambda k: waves(build_graph(chains[k])), 1_000)
    assert grew.ratio < GROWTH_LIMIT, str(grew)


def test_long_chain_critical_path_and_no_cycles() -> None:
    n = 10_000
    chain = tuple(Item(f"n{i:06d}", "c", (), (f"n{i - 1:06d}",) if i else (), "p", i) for i in range(n))
    graph = build_graph(chain)
    assert find_cycles(graph) == []
    path = critical_path(graph, waves(graph))
    assert len(path) == n and path[0] == "n000000" and path[-1] == f"n{n - 1:06d}"


# --- find_cycles --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (DUPLICATE_EMAIL, []),
        ({"a": ["b"], "b": ["a"]}, [["a", "b", "a"]]),
        ({"b": ["a"], "a": ["b"]}, [["a", "b", "a"]]),  # starts at the smallest id, whatever the order
        ({"c": ["a"], "b": ["c"], "a": ["b"]}, [["a", "b", "c", "a"]]),
        # two separate cycles: two lists, sorted
        ({"x": ["y"], "y": ["x"], "a": ["b"], "b": ["c"], "c": ["a"]}, [["a", "b", "c", "a"], ["x", "y", "x"]]),
        # one strongly connected component with several loops: one cycle, the shortest through its smallest id
        ({"a": ["c"], "b": ["c"], "c": ["a", "b"]}, [["a", "c", "a"]]),
        ({"a": ["b", "d"], "b": ["c"], "c": ["a"], "d": ["a"]}, [["a", "d", "a"]]),
        # a self-loop is not in the graph (EP302 reports it), so it is no cycle here
        ({"s": ["s"]}, []),
        # a tail into a cycle is not part of it
        ({"t": ["a"], "a": ["b"], "b": ["a"]}, [["a", "b", "a"]]),
    ],
)
def test_find_cycles(spec: dict[str, list[str]], expected: list[list[str]]) -> None:
    cycles = find_cycles(build_graph(items(spec)))
    assert cycles == expected
    for cycle in cycles:
        assert cycle[0] == cycle[-1] == min(cycle)
        for a, b in pairwise(cycle):  # each step is a "depends on" edge
            assert b in spec[a]


def test_find_cycles_is_deterministic_under_input_order() -> None:
    spec = {"e": ["d"], "d": ["c", "e"], "c": ["b"], "b": ["a", "d"], "a": ["e"]}
    expected = find_cycles(build_graph(items(spec)))
    for rotation in range(1, len(spec)):
        keys = list(spec)[rotation:] + list(spec)[:rotation]
        assert find_cycles(build_graph(items({k: spec[k] for k in keys}))) == expected
    assert len(expected) == 1 and expected[0][0] == "a"


def test_big_ring_is_one_cycle() -> None:
    n = 10_000
    ring = tuple(Item(f"n{i:05d}", "c", (), (f"n{(i + 1) % n:05d}",), "p", i) for i in range(n))
    (cycle,) = find_cycles(build_graph(ring))
    assert len(cycle) == n + 1 and cycle[0] == cycle[-1] == "n00000" and cycle[1] == "n00001"


# --- acyclic (check's answer without networkx) ----------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, True),
        (DUPLICATE_EMAIL, True),
        ({"a": [], "b": ["a", "a", "a"], "c": ["b", "a", "b"]}, True),  # repeats count once each way
        ({"s": ["s"], "t": ["ghost", "s"]}, True),  # self-loops and unknown ids are no edges
        ({"a": ["b"], "b": ["c", "c"], "c": ["a"]}, False),
        ({"x": [], "a": ["b"], "b": ["a"]}, False),
    ],
)
def test_acyclic(spec: dict[str, list[str]], expected: bool) -> None:
    assert acyclic(items(spec)) is expected


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefg"), st.lists(st.sampled_from("abcdefgh"), max_size=4), max_size=7))
def test_acyclic_agrees_with_networkx(spec: dict[str, list[str]]) -> None:
    plan = items(spec)
    assert acyclic(plan) == (find_cycles(build_graph(plan)) == [])


def test_acyclic_decides_a_plan_written_in_order_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.analysis import graph

    assert graph._in_order(items(DUPLICATE_EMAIL))
    out_of_order = items({"integration": ["implementation"], "implementation": ["contract"], "contract": []})
    assert not graph._in_order(out_of_order)
    assert acyclic(out_of_order)  # Kahn's algorithm answers for it
    # Only an id's first item is in the graph: a later duplicate's dependencies are no edges.
    assert graph._in_order((item("a", index=0), item("b", "a", index=1), item("a", "b", index=2)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcde"), st.lists(st.sampled_from("abcdef"), max_size=3)), max_size=7))
def test_acyclic_agrees_with_networkx_with_repeated_ids(spec: list[tuple[str, list[str]]]) -> None:
    plan = tuple(item(ident, *deps, index=n) for n, (ident, deps) in enumerate(spec))
    assert acyclic(plan) == (find_cycles(build_graph(plan)) == [])


# --- critical_path ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, []),
        ({"a": []}, ["a"]),
        (DUPLICATE_EMAIL, ["contract", "docs", "integration"]),  # of two longest chains, the smaller ids
        ({"a": [], "b": ["a"], "c": ["b"], "x": [], "y": ["x"]}, ["a", "b", "c"]),
    ],
)
def test_critical_path(spec: dict[str, list[str]], expected: list[str]) -> None:
    graph = build_graph(items(spec))
    assert critical_path(graph, waves(graph)) == expected


# --- a compiled plan's waves and critical path ------------------------------------------------------


def test_ready_plan_waves_and_critical_path() -> None:
    result = compile_yaml("""
        plan: duplicate-email
        items:
          - {id: contract, change: x, evidence: [a.py], proof: p}
          - {id: implementation, change: x, evidence: [a.py], proof: p, depends_on: [contract]}
          - {id: docs, change: x, evidence: [a.py], proof: p, depends_on: [contract]}
          - {id: integration, change: x, evidence: [a.py], proof: p, depends_on: [implementation, docs]}
    """)
    assert result.diagnostics == ()
    assert result.status == "ready"
    assert result.waves == (("contract",), ("docs", "implementation"), ("integration",))
    assert result.critical_path == ("contract", "docs", "integration")
    assert result.wave_of() == {"contract": 1, "docs": 2, "implementation": 2, "integration": 3}


# --- property: any DAG compiles to a ready plan with consistent waves ------------------------------

IDS = st.lists(st.from_regex(r"[a-z][a-z0-9_-]{0,5}", fullmatch=True), min_size=1, max_size=12, unique=True)


@st.composite
def dags(draw: Any) -> list[dict[str, Any]]:
    """Items where each depends only on earlier ones (in generation order), then shuffled."""
    ids = draw(IDS)
    out = []
    for n, ident in enumerate(ids):
        deps = draw(st.lists(st.sampled_from(ids[:n]), unique=True, max_size=4)) if n else []
        out.append({"id": ident, "change": f"change {ident}", "evidence": [f"src/{ident}.py:1"],
                    "depends_on": deps, "proof": "true"})
    shuffled: list[dict[str, Any]] = draw(st.permutations(out))
    return shuffled


def compile_json(raw: list[dict[str, Any]]) -> CompileResult:
    text = json.dumps({"plan": "random", "items": raw}, indent=1)
    return compile_document(parse_text(text, "plan.json", "json"), "plan.json", verify_evidence=False)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags())
def test_random_dags_are_ready_with_consistent_waves(raw: list[dict[str, Any]]) -> None:
    result = compile_json(raw)
    # A random DAG may list a dependency that another already implies (EP306, a warning): nothing else.
    assert {d.code for d in result.diagnostics} <= {"EP306"}
    assert result.status == "ready"
    wave_of = result.wave_of()
    flat = [ident for wave in result.waves for ident in wave]
    assert sorted(flat) == sorted(i["id"] for i in raw)  # every item in exactly one wave
    for wave in result.waves:
        assert list(wave) == sorted(wave)
    for entry in raw:
        deps = entry["depends_on"]
        assert all(wave_of[d] < wave_of[entry["id"]] for d in deps)
        # the first wave after all its dependencies
        assert wave_of[entry["id"]] == 1 + max((wave_of[d] for d in deps), default=0)
    by_id = {i["id"]: i for i in raw}
    path = result.critical_path
    assert len(path) == len(result.waves)
    assert all(a in by_id[b]["depends_on"] for a, b in pairwise(path))

    again = compile_json(raw)
    assert (again.plan, again.diagnostics, again.waves, again.critical_path) == (
        result.plan, result.diagnostics, result.waves, result.critical_path,
    )
