"""compiler/checks/status.py: a dropped item says why (EP019, at its status), no live item
depends on a dropped one (EP307, at that depends_on entry, with a note at the dropped item's
status), and a done item whose dependency is not done is a warning (EP308). Dropped items leave
the graph: no wave, not on the critical path, and a cycle among them blocks nothing."""

from __future__ import annotations

import textwrap

from support import compile_yaml, only, rows

from compiler.compile.pipeline import compile_document
from compiler.load.document import parse_text

ITEMS = """
items:
  - id: contract
    change: Define it
    evidence: [a.py]
    proof: make a
    status: {contract}
  - id: implementation
    change: Do it
    evidence: [b.py]
    depends_on: [contract]
    proof: make b
    status: {implementation}
"""


def plan(contract: str = "todo", implementation: str = "todo", extra: str = "") -> str:
    return ITEMS.format(contract=contract, implementation=implementation) + extra


def test_ep019_a_dropped_item_without_a_reason_is_located_at_its_status() -> None:
    result = compile_yaml(plan(implementation="dropped"))
    d = only(result, "EP019")
    assert rows([d]) == [("EP019", "implementation", 12, 13)]
    assert d.message == "implementation is dropped without a reason"
    assert d.hint == "say why in reason: what replaced it, or why it is no longer needed"
    assert result.status == "blocked"


def test_ep019_a_blank_reason_is_no_reason() -> None:
    result = compile_yaml(plan(implementation="dropped", extra='    reason: "  "\n'))
    assert rows(result.diagnostics) == [("EP019", "implementation", 12, 13)]


def test_a_dropped_item_with_a_reason_leaves_the_graph() -> None:
    result = compile_yaml(plan(implementation="dropped", extra="    reason: contract covers it\n"))
    assert result.diagnostics == ()
    assert result.waves == (("contract",),) and result.critical_path == ("contract",)


def test_a_reason_is_allowed_beside_any_status() -> None:
    result = compile_yaml(plan(implementation="doing", extra="    reason: waiting on review\n"))
    assert result.diagnostics == () and result.waves == (("contract",), ("implementation",))


def test_ep307_a_live_item_depending_on_a_dropped_one_at_that_entry_with_a_note() -> None:
    result = compile_yaml(plan(contract="dropped").replace(
        "    status: dropped\n", "    status: dropped\n    reason: superseded by the new API\n", 1))
    d = only(result, "EP307")
    assert rows([d]) == [("EP307", "implementation", 11, 18)]
    assert d.message == "implementation depends on contract, which is dropped"
    assert [(n.message, n.location.line if n.location else None) for n in d.notes] == [
        ("contract is dropped: superseded by the new API", 6)]
    assert d.hint == "drop implementation too, or depend on what replaced contract"
    assert result.status == "blocked" and result.waves == ()


def test_ep307_holds_for_a_done_item_and_not_for_a_dropped_one() -> None:
    dropped_first = plan(contract="dropped").replace("    status: dropped\n",
                                                     "    status: dropped\n    reason: gone\n", 1)
    assert rows(compile_yaml(dropped_first.replace("status: todo", "status: done")).diagnostics) == [
        ("EP307", "implementation", 11, 18)]
    both = dropped_first.replace("    status: todo\n", "    status: dropped\n    reason: gone too\n")
    result = compile_yaml(both)
    assert result.diagnostics == () and result.waves == ()


def test_ep307_once_per_dropped_dependency_even_when_repeated() -> None:
    text = plan(contract="dropped").replace("    status: dropped\n", "    status: dropped\n    reason: gone\n", 1)
    result = compile_yaml(text.replace("depends_on: [contract]", "depends_on: [contract, contract]"))
    assert [d.code for d in result.diagnostics] == ["EP307", "EP304"]


def test_ep308_a_done_item_whose_dependency_is_not_done_is_a_warning() -> None:
    result = compile_yaml(plan(contract="doing", implementation="done"))
    d = only(result, "EP308")
    assert rows([d]) == [("EP308", "implementation", 10, 18)]
    assert d.severity == "warning"
    assert d.message == "implementation is done, but depends on contract, which is doing"
    assert d.hint == "mark contract done too, or implementation doing until contract is done"
    assert result.status == "ready" and result.waves == (("contract",), ("implementation",))


def test_no_ep308_when_the_dependencies_are_done() -> None:
    assert compile_yaml(plan(contract="done", implementation="done")).diagnostics == ()


def test_a_cycle_among_dropped_items_blocks_nothing_on_either_path() -> None:
    text = """
    items:
      - id: a
        change: c
        evidence: [a.py]
        proof: p
        depends_on: [b]
        status: dropped
        reason: r
      - id: b
        change: c
        evidence: [a.py]
        proof: p
        depends_on: [a]
        status: dropped
        reason: r
      - id: c
        change: c
        evidence: [a.py]
        proof: p
    """
    result = compile_yaml(text)
    assert result.diagnostics == () and result.waves == (("c",),)
    doc = parse_text(textwrap.dedent(text).lstrip("\n"), "plan.yaml", "yaml")
    assert compile_document(doc, "plan.yaml", verify_evidence=False, order=False).diagnostics == ()  # `check`


def test_a_plan_without_statuses_is_checked_as_before() -> None:
    text = plan().replace("    status: todo\n", "")
    result = compile_yaml(text)
    assert result.diagnostics == () and result.waves == (("contract",), ("implementation",))
