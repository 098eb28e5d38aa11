"""Replanning budgets, as a user (or an agent in a plan-execute loop) meets them: EP401 a plan with
no items, EP402 more items than `budget.max_items`, EP403 a compile past `budget.max_revisions`,
EP404 a revision that repeats a blocked one (compiler/checks/budget.py, compiler/compile/history.py)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result
from support import TWO_ITEMS, write_plan

from compiler.cli import cli
from compiler.compile.emit import JSON_NAME
from compiler.compile.history import items_digest
from compiler.compile.pipeline import compile_plan
from compiler.load.document import parse_text
from compiler.model.output_model import CompiledPlan
from compiler.model.validate import build_plan

PLAN = """\
plan: budgeted
budget:
  max_revisions: 3
  max_items: 5
""" + TWO_ITEMS
BROKEN = PLAN.replace("[app.py:5]", "[app.py:50]")  # past the end of app.py: EP202, blocked


class Compiled:
    """One output folder, compiled into again and again, as an agent's loop does."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "app.py").write_text("\n".join(f"line {n}" for n in range(1, 7)) + "\n", encoding="utf-8")

    def __call__(self, text: str) -> tuple[Result, dict]:
        plan = write_plan(self.folder, text)
        result = CliRunner().invoke(cli, ["compile", str(plan), "-o", str(self.folder / "out")])
        assert result.exit_code in (0, 1), result.output
        document = json.loads((self.folder / "out" / JSON_NAME).read_text(encoding="utf-8"))
        CompiledPlan.model_validate(document)
        return result, document


def codes(document: dict) -> list[tuple[str, str | None, int | None]]:
    return [(d["code"], d["item"], (d.get("location") or {}).get("line")) for d in document["issues"]]


def test_a_plan_with_no_items_is_blocked_at_its_items_key(tmp_path: Path) -> None:
    plan = write_plan(tmp_path, "plan: empty\nitems: []\n")
    result = CliRunner().invoke(cli, ["check", "--no-verify-evidence", str(plan)])
    assert result.exit_code == 1
    assert f"{plan}:2:1: error EP401 the plan has no items" in result.output
    assert "recovery plan" in result.output  # the fix is said


def test_an_empty_list_of_items_is_blocked_at_its_start(tmp_path: Path) -> None:
    plan = write_plan(tmp_path, "[]\n", "plan.json")
    (d,) = compile_plan(str(plan), verify_evidence=False).diagnostics
    assert (d.code, d.item, d.location.line if d.location else None) == ("EP401", None, 1)


def test_more_items_than_the_budget_is_blocked_at_max_items(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    result, document = compile_(PLAN.replace("max_items: 5", "max_items: 1"))
    assert result.exit_code == 1 and document["status"] == "blocked"
    assert codes(document) == [("EP402", None, 4)]
    message = document["issues"][0]["message"]
    assert "the plan has 2 items, more than its budget of 1 (budget.max_items; reason: step_budget)" in message
    assert "shorten the plan" in document["issues"][0]["hint"]
    assert compile_(PLAN)[0].exit_code == 0  # within it: ready


def test_a_compile_past_max_revisions_is_blocked_at_max_revisions(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    for n, change in enumerate(("first", "one", "two"), 1):
        result, document = compile_(PLAN.replace("change: first", f"change: {change}"))
        assert (result.exit_code, document["revision"], document["issues"]) == (0, n, [])
    result, document = compile_(PLAN.replace("change: first", "change: three"))
    assert result.exit_code == 1 and document["status"] == "blocked" and document["revision"] == 4
    assert codes(document) == [("EP403", None, 3)]
    assert document["issues"][0]["message"] == ("this compile would be revision 4, past the plan's budget of 3"
                                                 " revisions (budget.max_revisions; reason: replan_budget)")
    assert "feed the last error back" in document["issues"][0]["hint"]
    assert "**Revision** 4 of 3 allowed" in (tmp_path / "out" / "evidence-plan.md").read_text(encoding="utf-8")


def test_recompiling_the_last_allowed_revision_stays_ready(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    text = PLAN.replace("max_revisions: 3", "max_revisions: 1")
    assert compile_(text)[0].exit_code == 0
    before = (tmp_path / "out" / JSON_NAME).read_bytes()
    assert compile_(text)[0].exit_code == 0  # the same items: no new revision
    assert (tmp_path / "out" / JSON_NAME).read_bytes() == before


def test_a_revision_that_repeats_a_blocked_one_is_a_warning(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    assert compile_(BROKEN)[1]["status"] == "blocked"  # revision 1
    assert compile_(PLAN)[1]["status"] == "ready"  # revision 2
    _, document = compile_(BROKEN)  # revision 3: the agent resubmits revision 1
    assert document["revision"] == 3
    assert [c for c in codes(document) if c[0] == "EP404"] == [("EP404", None, 5)]
    warning = next(d for d in document["issues"] if d["code"] == "EP404")
    assert warning["severity"] == "warning"
    assert warning["message"].startswith("replan repeats revision 1: ")
    assert [(h["revision"], h["status"]) for h in document["history"]] == [(1, "blocked"), (2, "ready"),
                                                                          (3, "blocked")]
    assert document["history"][0]["digest"] == document["history"][2]["digest"]


def test_returning_to_a_ready_revision_is_no_warning(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    compile_(PLAN)
    compile_(BROKEN)
    result, document = compile_(PLAN)
    assert result.exit_code == 0 and document["revision"] == 3 and document["issues"] == []


def test_the_same_compile_twice_does_not_repeat_itself(tmp_path: Path) -> None:
    """A recompile of the same blocked items is not a replan: no EP404 against its own revision."""
    compile_ = Compiled(tmp_path)
    compile_(BROKEN)
    _, document = compile_(BROKEN)
    assert document["revision"] == 1 and "EP404" not in {c[0] for c in codes(document)}
    assert [h["revision"] for h in document["history"]] == [1]


def test_a_status_change_without_an_edit_updates_the_last_history_entry(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    compile_(BROKEN)
    (tmp_path / "app.py").write_text("\n".join(f"line {n}" for n in range(1, 60)) + "\n", encoding="utf-8")
    _, document = compile_(BROKEN)  # the repository grew: the same items are ready now
    assert document["status"] == "ready" and document["revision"] == 1
    assert [(h["revision"], h["status"]) for h in document["history"]] == [(1, "ready")]


def test_a_previous_file_without_history_starts_it_from_its_revision(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    compile_(BROKEN)
    path = tmp_path / "out" / JSON_NAME
    older = json.loads(path.read_text(encoding="utf-8"))
    del older["history"]  # as a compile from before the history wrote it
    path.write_text(json.dumps(older), encoding="utf-8")
    compile_(PLAN)
    _, document = compile_(BROKEN)
    assert document["revision"] == 3 and "EP404" in {c[0] for c in codes(document)}


def test_a_hand_edited_history_is_not_carried_on(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    compile_(PLAN)
    path = tmp_path / "out" / JSON_NAME
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["history"] = [{"revision": 7, "status": "blocked", "digest": "x"}]  # past its own revision
    path.write_text(json.dumps(edited), encoding="utf-8")
    result, document = compile_(PLAN.replace("second", "other"))
    assert "no usable history: it starts again at revision 1" in result.stderr
    assert [h["revision"] for h in document["history"]] == [1, 2]  # the previous revision, as it was, and this


def test_a_plan_read_back_from_its_compiled_json_has_its_digest(repo: Path, tmp_path: Path) -> None:
    for example in ("examples/duplicate-email/plan.yaml", "examples/worked/plan.yaml"):
        source = repo / example
        result = CliRunner().invoke(cli, ["compile", str(source), "-o", str(tmp_path)])
        assert result.exit_code == 0, result.output
        compiled = (tmp_path / JSON_NAME).read_text(encoding="utf-8")
        original = build_plan(parse_text(source.read_text(encoding="utf-8"), str(source), "yaml"))
        again = build_plan(parse_text(compiled, "evidence-plan.json", "json"))
        assert items_digest(again) == items_digest(original)
        assert json.loads(compiled)["history"][-1]["digest"] is None  # ready: only blocked revisions are compared
        (tmp_path / JSON_NAME).unlink()


def test_the_digest_changes_with_any_field_of_any_item() -> None:
    def digest(text: str) -> str:
        return items_digest(build_plan(parse_text(text, "plan.yaml", "yaml")))

    base = digest(PLAN)
    for edit in (("change: second", "change: Second"), ("[app.py:5]", "[app.py:6]"), ("depends_on: [a]", ""),
                 ("proof: pytest\n", "proof: pytest -x\n"), ("id: b", "id: c"),
                 ("    proof: pytest\n", "    proof: pytest\n    status: doing\n")):
        assert digest(PLAN.replace(*edit, 1)) != base, edit
    assert digest(PLAN.replace("[app.py:5]", "[{path: app.py, line: 5}]")) == base  # the same evidence
    as_default = PLAN.replace("    proof: pytest\n", "    proof: pytest\n    status: todo\n", 1)
    assert digest(as_default) == base  # an option given as its default


def test_the_digest_sees_an_edit_past_the_first_batch_of_items() -> None:
    def plan(last: str) -> str:
        rows = [f"  - {{id: i{n}, change: c, evidence: [a.py], proof: p}}\n" for n in range(2999)]
        return "items:\n" + "".join(rows) + f"  - {{id: last, change: {last}, evidence: [a.py], proof: p}}\n"

    first, second = (items_digest(build_plan(parse_text(plan(c), "plan.yaml", "yaml"))) for c in ("x", "y"))
    assert first != second


def test_a_blocked_revision_records_its_digest_and_a_ready_one_none(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    _, blocked = compile_(BROKEN)
    assert blocked["history"] == [{"revision": 1, "status": "blocked",
                                   "digest": items_digest(build_plan(parse_text(BROKEN, "p.yaml", "yaml")))}]
    _, ready = compile_(PLAN)
    assert ready["history"][-1] == {"revision": 2, "status": "ready", "digest": None}


def test_the_budget_is_in_the_compiled_json_and_survives_convert(tmp_path: Path) -> None:
    _, document = Compiled(tmp_path)(PLAN)
    assert document["budget"] == {"max_revisions": 3, "max_items": 5}
    out = tmp_path / "again.yaml"
    result = CliRunner().invoke(cli, ["convert", str(tmp_path / "out" / JSON_NAME), str(out), "--no-verify-evidence"])
    assert result.exit_code == 0, result.output
    assert build_plan(parse_text(out.read_text(encoding="utf-8"), str(out), "yaml")).budget == document["budget"]


def test_the_library_counts_revisions_from_the_previous_file(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("\n".join(f"line {n}" for n in range(1, 7)) + "\n", encoding="utf-8")
    plan = write_plan(tmp_path, PLAN)
    result = compile_plan(str(plan), previous=str(tmp_path / "none" / JSON_NAME))
    assert result.revision is not None and result.revision.number == 1 and result.revision.changes is None
    assert compile_plan(str(plan)).revision is None  # not asked: not counted


def test_items_that_could_not_be_read_count_in_the_digest() -> None:
    """A blocked plan often holds an item that cannot be read: two plans that differ only there
    are different revisions, not a repeat."""
    def digest(extra: str) -> str:
        return items_digest(build_plan(parse_text(PLAN + extra, "plan.yaml", "yaml")))

    assert digest("  - 12\n") != digest("")  # an entry that is no item counts (what it was is not kept)
    assert digest("  - {id: c, change: x, depend_on: [a]}\n") != digest("  - {id: c, change: x, needs: [a]}\n")


def test_another_plan_compiled_into_the_same_folder_starts_at_revision_1(tmp_path: Path) -> None:
    """Two plans compiled into one folder in turn: the second is not a revision of the first (it
    would be one that removed every item), and the first's budget does not count against it."""
    compile_ = Compiled(tmp_path)
    compile_(PLAN)
    other = write_plan(tmp_path, PLAN.replace("plan: budgeted", "plan: other"), "other.yaml")
    result = CliRunner().invoke(cli, ["compile", str(other), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "out" / JSON_NAME).read_text(encoding="utf-8"))
    assert document["revision"] == 1 and "changes" not in document
    assert "is of another plan (budgeted, from " in result.stderr


def test_a_renamed_plan_and_a_moved_plan_are_the_same_plan(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    compile_(PLAN)
    renamed = PLAN.replace("plan: budgeted", "plan: renamed").replace("change: first", "change: one")
    assert compile_(renamed)[1]["revision"] == 2  # the same file
    moved = write_plan(tmp_path, renamed.replace("change: one", "change: two"), "moved.yaml")
    result = CliRunner().invoke(cli, ["compile", str(moved), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out" / JSON_NAME).read_text(encoding="utf-8"))["revision"] == 3  # the same name
    assert "another plan" not in result.stderr


# The plan-execute loop's failure words (no_plan, step_budget, replan_budget): an agent harness keys
# on them, so a blocked evidence-plan.json says which one at its top, and so do the messages.

def test_the_loops_words_are_the_reason_of_a_blocked_json_and_end_the_message(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    result, document = compile_("plan: empty\nitems: []\n")
    assert (document["status"], document["reason"]) == ("blocked", "no_plan")
    assert list(document)[list(document).index("status") + 1] == "reason"  # at the top, beside the status
    assert document["issues"][0]["message"].endswith("(reason: no_plan)")
    assert "blocked: 1 error, reason: no_plan" in result.output
    _, document = compile_(PLAN.replace("max_items: 5", "max_items: 1"))
    assert document["reason"] == "step_budget"
    assert document["issues"][0]["message"].endswith("(budget.max_items; reason: step_budget)")


def test_replan_budget_is_the_reason_past_max_revisions_and_step_budget_comes_first(tmp_path: Path) -> None:
    compile_ = Compiled(tmp_path)
    for change in ("first", "one", "two"):
        compile_(PLAN.replace("change: first", f"change: {change}"))
    _, document = compile_(PLAN.replace("change: first", "change: three"))
    assert document["reason"] == "replan_budget"
    assert "(budget.max_revisions; reason: replan_budget)" in document["issues"][0]["message"]
    _, document = compile_(PLAN.replace("change: first", "change: four").replace("max_items: 5", "max_items: 1"))
    assert sorted(d["code"] for d in document["issues"]) == ["EP402", "EP403"]
    assert document["reason"] == "step_budget"  # the first the loop meets: too many steps, then replans


def test_a_plan_blocked_for_another_cause_has_no_reason(tmp_path: Path) -> None:
    _, document = Compiled(tmp_path)(BROKEN)
    assert document["status"] == "blocked" and "reason" not in document
    _, document = Compiled(tmp_path)(PLAN)
    assert document["status"] == "ready" and "reason" not in document


def test_every_diagnostic_in_json_carries_its_rule_name(tmp_path: Path) -> None:
    plan = write_plan(tmp_path, "plan: empty\nitems: []\n")
    result = CliRunner().invoke(cli, ["check", "--no-verify-evidence", "--format", "json", str(plan)])
    (issue,) = json.loads(result.stdout)
    assert (issue["code"], issue["name"]) == ("EP401", "no-plan")
