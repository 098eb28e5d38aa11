"""compiler/checks/gates.py: an irreversible item needs an approval among its transitive
dependencies (EP310), and a recorded approval must still hold (EP111), seen through
compile_document. What an approval covers and its digest are tests/analysis/test_approvals.py."""

from __future__ import annotations

from support import compile_yaml, rows

from compiler.analysis import approvals
from compiler.load.document import parse_text
from compiler.model.validate import build_plan

GATED = """
items:
  - id: backup
    change: Back up the table
    evidence: [a.py]
    proof: make backup
  - id: sign-off
    kind: approval
    change: A person checks the backup
    evidence: [a.py]
    depends_on: [backup]
    proof: make show
  - id: migrate
    change: Migrate the rows
    evidence: [a.py]
    depends_on: [sign-off]
    proof: make migrate
  - id: drop-table
    change: Drop the old table
    evidence: [a.py]
    depends_on: [migrate]
    proof: make drop
    irreversible: true
"""


def _digest(text: str, approval: str = "sign-off") -> str:
    plan = build_plan(parse_text(text.lstrip("\n"), "plan.yaml", "yaml"))
    return approvals.coverage(plan.items, approval).digest


def _recorded(text: str, digest: str | None = None) -> str:
    digest = digest or _digest(text)
    return text.replace("    proof: make show\n", "    proof: make show\n    approved_by: ana\n"
                        "    approved_at: '2026-12-01T15:04:05Z'\n    approval_digest: " + digest + "\n")


def test_an_irreversible_item_after_an_approval_through_another_item_is_gated() -> None:
    assert compile_yaml(GATED).diagnostics == ()


def test_ep310_an_irreversible_item_without_an_approval_before_it() -> None:
    result = compile_yaml(GATED.replace("    kind: approval\n", ""))
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP310", "drop-table", 21, 5)]  # its irreversible key
    assert d.message == "drop-table is irreversible but no approval precedes it"
    assert d.hint is not None and "kind: approval" in d.hint and d.notes == ()


def test_ep310_an_approval_on_another_branch_does_not_count() -> None:
    """sign-off precedes migrate, but drop-table depends only on backup: still an error, with a
    note at the approval that does not precede it."""
    result = compile_yaml(GATED.replace("    depends_on: [migrate]\n", "    depends_on: [backup]\n"))
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP310", "drop-table", 22, 5)]
    (note,) = d.notes
    assert note.message == "sign-off is an approval, but drop-table does not depend on it"
    assert note.location is not None and (note.location.line, note.location.column) == (7, 11)


def test_ep310_an_irreversible_approval_needs_an_approval_before_it_too() -> None:
    result = compile_yaml(GATED.replace("    kind: approval\n", "    kind: approval\n    irreversible: true\n"))
    assert rows(result.diagnostics) == [("EP310", "sign-off", 8, 5)]


def test_ep310_an_irreversible_item_on_or_after_a_cycle_is_judged_in_the_same_run() -> None:
    """Every problem in one run: backup <-> drop-table is a cycle (EP303), and drop-table, which no
    approval precedes on any path, is EP310 as well."""
    text = GATED.replace("    kind: approval\n", "").replace("    depends_on: [backup]\n",
                                                                "    depends_on: [drop-table]\n")
    result = compile_yaml(text)
    assert sorted(d.code for d in result.diagnostics) == ["EP303", "EP310"]
    assert [r for r in rows(result.diagnostics) if r[0] == "EP310"] == [("EP310", "drop-table", 21, 5)]


def test_an_irreversible_item_after_a_cycle_that_an_approval_precedes_is_gated() -> None:
    # backup <-> migrate is a cycle; sign-off (an approval) depends on backup, and drop-table on it.
    text = GATED.replace("    depends_on: [sign-off]\n", "    depends_on: [backup]\n").replace(
        "    proof: make backup\n", "    proof: make backup\n    depends_on: [migrate]\n").replace(
        "    depends_on: [migrate]\n    proof: make drop", "    depends_on: [sign-off]\n    proof: make drop")
    assert [d.code for d in compile_yaml(text).diagnostics] == ["EP303"]


def test_a_plan_without_gates_pays_one_pass() -> None:
    assert compile_yaml(GATED.replace("    irreversible: true\n", "").replace("    kind: approval\n", "")
                        ).diagnostics == ()


def test_a_current_approval_is_no_problem() -> None:
    assert compile_yaml(_recorded(GATED)).diagnostics == ()


def test_ep111_a_changed_proof_of_a_covered_item_makes_the_approval_stale() -> None:
    recorded = _recorded(GATED)
    result = compile_yaml(recorded.replace("make migrate", "make migrate --all"))
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP111", "sign-off", 14, 22)]  # its approval_digest
    assert d.message.startswith("sign-off is a stale approval: it covers 4 items (backup, sign-off, migrate,"
                                " drop-table), and what it covers changed since it was approved (digest ")
    assert d.hint == "review what it covers, then record it: evidence-plan approve PLAN sign-off --by NAME"


def test_an_unrelated_edit_leaves_the_approval_valid() -> None:
    extra = "  - id: docs\n    change: Write the docs\n    evidence: [a.py]\n    proof: make docs\n"
    recorded = _recorded(GATED + extra)
    assert compile_yaml(recorded.replace("Write the docs", "Write the docs again")).diagnostics == ()
    # and so do the records of other approvals, and the approval's own record
    assert compile_yaml(recorded.replace("approved_by: ana", "approved_by: bo")).diagnostics == ()


def test_ep111_an_irreversible_item_that_joins_what_an_approval_covers_makes_it_stale() -> None:
    extra = ("  - id: purge\n    change: Purge the backups\n    evidence: [a.py]\n    depends_on: [sign-off]\n"
             "    proof: make purge\n    irreversible: true\n")
    result = compile_yaml(_recorded(GATED) + extra)
    assert rows(result.diagnostics) == [("EP111", "sign-off", 14, 22)]


def test_ep111_an_incomplete_record_at_its_first_key() -> None:
    text = GATED.replace("    proof: make show\n", "    proof: make show\n    approved_by: ana\n")
    result = compile_yaml(text)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP111", "sign-off", 12, 5)]
    assert d.message == "sign-off's approval record has no approved_at or approval_digest"


def test_ep111_a_record_on_an_item_that_is_no_approval() -> None:
    text = GATED.replace("    proof: make migrate\n", "    proof: make migrate\n    approved_by: ana\n")
    result = compile_yaml(text)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP111", "migrate", 17, 5)]
    assert d.message == "migrate records an approval (approved_by) but is not kind: approval"


def test_ep111_an_approved_at_that_is_no_date_time_at_its_value() -> None:
    text = _recorded(GATED).replace("'2026-12-01T15:04:05Z'", "'yesterday'")
    result = compile_yaml(text)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [("EP111", "sign-off", 13, 18)]
    assert d.message == ("sign-off: approved_at must be an ISO 8601 date-time with its offset"
                         " (2026-12-01T15:04:05Z), not 'yesterday'")


def test_a_wrong_kind_is_not_also_a_record_on_a_task() -> None:
    text = _recorded(GATED).replace("kind: approval", "kind: gate")
    assert [d.code for d in compile_yaml(text).diagnostics] == ["EP011", "EP310"]


def test_the_gates_look_for_every_field_of_an_approval_record() -> None:
    from compiler.analysis.approvals import RECORD
    from compiler.checks.gates import _GATE_FIELDS

    assert set(RECORD) <= set(_GATE_FIELDS)
