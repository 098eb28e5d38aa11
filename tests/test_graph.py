"""Stage 4: compiler.graph (waves, cycles, critical path) and the dependency and item checks
(EP1xx, EP3xx) seen through compiler.compile.compile_document.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from itertools import pairwise
from typing import Any

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.checks import dependencies
from compiler.compile import CompileResult, compile_document
from compiler.diagnostics import Diagnostic
from compiler.graph import acyclic, build_graph, critical_path, find_cycles, waves
from compiler.load import parse_text
from compiler.values import Item


def item(ident: str, *deps: str, index: int = 0) -> Item:
    return Item(ident, f"change {ident}", (), tuple(deps), "true", index)


def items(spec: dict[str, list[str]]) -> tuple[Item, ...]:
    """{"a": ["b"]} -> items in that order; a depends on b."""
    return tuple(item(k, *v, index=n) for n, (k, v) in enumerate(spec.items()))


def compile_yaml(text: str) -> CompileResult:
    doc = parse_text(textwrap.dedent(text).lstrip("\n"), "plan.yaml", "yaml")
    return compile_document(doc, "plan.yaml", verify_evidence=False)


def rows(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[str, str | None, int | None, int | None]]:
    return [(d.code, d.item, d.location.line if d.location else None, d.location.column if d.location else None)
            for d in diagnostics]


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


@pytest.mark.performance
def test_long_chain_has_no_recursion_limit() -> None:
    n = 100_000
    assert n > sys.getrecursionlimit() * 10
    chain = tuple(Item(f"n{i:06d}", "c", (), (f"n{i - 1:06d}",) if i else (), "p", i) for i in range(n))
    start = time.perf_counter()
    graph = build_graph(chain)
    result = waves(graph)
    assert time.perf_counter() - start < 4
    assert len(result) == n
    assert result[0] == ["n000000"] and result[-1] == [f"n{n - 1:06d}"]


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


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefg"), st.lists(st.sampled_from("abcdefgh"), max_size=4), max_size=7))
def test_acyclic_agrees_with_networkx(spec: dict[str, list[str]]) -> None:
    plan = items(spec)
    assert acyclic(plan) == (find_cycles(build_graph(plan)) == [])


def test_acyclic_decides_a_plan_written_in_order_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler import graph

    assert graph._in_order(items(DUPLICATE_EMAIL))
    out_of_order = items({"integration": ["implementation"], "implementation": ["contract"], "contract": []})
    assert not graph._in_order(out_of_order)
    assert acyclic(out_of_order)  # Kahn's algorithm answers for it
    # Only an id's first item is in the graph: a later duplicate's dependencies are no edges.
    assert graph._in_order((item("a", index=0), item("b", "a", index=1), item("a", "b", index=2)))


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


# --- dependency checks through compile_document --------------------------------------------------

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
    before on a loaded machine, 0.6 s after."""
    import difflib

    n = 4000
    ids = [f"step-{k:05d}" for k in range(n)]
    plan = {"items": [{"id": ident, "change": "c", "evidence": ["a.py"], "proof": "true",
                       "depends_on": [f"stp-{k:05d}" if k % 2 else f"unknown-{k:05d}-x"]}
                      for k, ident in enumerate(ids)]}
    doc = parse_text(json.dumps(plan), "plan.json", "json")
    started = time.perf_counter()
    result = compile_document(doc, "plan.json", verify_evidence=False)
    seconds = time.perf_counter() - started
    found = [d for d in result.diagnostics if d.code == "EP301"]
    assert len(found) == n
    hinted = [d for d in found if "did you mean" in d.message]
    assert hinted and found[:len(hinted) * 2][1::2] == hinted  # the first typos, in plan order
    assert hinted[0].message == f"{ids[1]} depends on unknown items: stp-00001 (did you mean step-00001?)"
    assert difflib.get_close_matches("stp-00001", ids, n=1) == ["step-00001"]
    assert seconds < 2.0, seconds


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


# --- item checks through compile_document ---------------------------------------------------------

ITEM_CHECKS = [
    # (the second item's body, code, message, line, column)
    ("    change: x\n    evidence: []\n    proof: p\n", "EP101", "b has no repository evidence", 8, 15),
    ("    change: x\n    proof: p\n", "EP101", "b has no repository evidence", 6, 5),
    ("    change: x\n    evidence: [a.py]\n", "EP102", "b has no proof command", 6, 5),
    ("    change: x\n    evidence: [a.py]\n    proof: '  '\n", "EP102", "b has no proof command", 9, 12),
    ("    evidence: [a.py]\n    proof: p\n", "EP103", "b has no change", 6, 5),
    ("    change: ''\n    evidence: [a.py]\n    proof: p\n", "EP103", "b has no change", 7, 13),
]


@pytest.mark.parametrize(("body", "code", "message", "line", "column"), ITEM_CHECKS)
def test_item_checks(body: str, code: str, message: str, line: int, column: int) -> None:
    text = "items:\n  - id: a\n    change: x\n    evidence: [a.py]\n    proof: p\n  - id: b\n" + body
    result = compile_document(parse_text(text, "plan.yaml", "yaml"), "plan.yaml", verify_evidence=False)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [(code, "b", line, column)]
    assert d.message == message
    assert result.status == "blocked"


def test_item_with_nothing_gets_three_errors() -> None:
    result = compile_yaml("items:\n  - id: a\n")
    assert rows(result.diagnostics) == [("EP101", "a", 2, 5), ("EP102", "a", 2, 5), ("EP103", "a", 2, 5)]


def test_ep104_duplicate_id_names_the_first_line() -> None:
    result = compile_yaml("""
        items:
          - id: a
            change: x
            evidence: [a.py]
            proof: p
          - id: b
            change: x
            evidence: [a.py]
            proof: p
          - id: a
            change: again
            evidence: [a.py]
            proof: p
          - {id: a, change: thrice, evidence: [a.py], proof: p}
    """)
    assert rows(result.diagnostics) == [("EP104", "a", 10, 9), ("EP104", "a", 14, 10)]
    for d in result.diagnostics:
        assert d.message == "duplicate id a (first defined at line 2)"
        assert [(n.message, n.location.line, n.location.column) for n in d.notes if n.location] == [
            ("a first defined here", 2, 9),
        ]


def test_duplicate_ids_do_not_make_phantom_cycles() -> None:
    # only the first `a` is in the graph; the second one's dependency on b is no edge
    result = compile_yaml("""
        items:
          - {id: a, change: x, evidence: [a.py], proof: p}
          - {id: b, change: x, evidence: [a.py], proof: p, depends_on: [a]}
          - {id: a, change: x, evidence: [a.py], proof: p, depends_on: [b]}
    """)
    assert [d.code for d in result.diagnostics] == ["EP104"]


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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags())
def test_random_dags_are_ready_with_consistent_waves(raw: list[dict[str, Any]]) -> None:
    result = compile_json(raw)
    assert result.diagnostics == ()
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
