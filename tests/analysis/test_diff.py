"""`evidence-plan diff OLD NEW` and its model (compiler/analysis/revisions.py). The example against its
hand-written revision, in every format, is compared byte for byte by test_generated.py
(tests/golden/diff/, written by tests/regenerate.py); here, what those files must say."""

from __future__ import annotations

import json
import os
import shutil
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from support import MENTION, docs_block, git_commit, shown, write_plan
from support import TWO_ITEMS as PLAN
from support import run as run_cli

from compiler.cli import cli
from compiler.load.arguments import is_revision

EXAMPLE = "examples/duplicate-email/plan.yaml"
REVISED = "tests/golden/diff/revised.yaml"


run = partial(run_cli, "diff")  # `diff` as a user runs it (tests/support.py)


def as_json(*args: str, input: str | None = None) -> tuple[int, dict]:
    result = run(*args, "--format", "json", input=input)
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture
def at_top(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(repo)
    return repo


def test_the_example_against_its_revision_reports_exactly_the_expected_changes(at_top: Path) -> None:
    code, change = as_json(EXAMPLE, REVISED)
    assert code == 1 and change["same"] is False
    assert change["revision"] == {"old": EXAMPLE, "new": REVISED}
    assert [a["id"] for a in change["added"]] == ["changelog"] and change["added"][0]["wave"] == 5
    assert change["removed"] == []
    assert change["renamed"] == [{"old": "contract", "new": "spec"}]
    # The evidence rewritten in the object form is the same evidence: only the change is revised.
    assert change["revised"] == [
        {"id": "implementation", "fields": {"change": {
            "old": "Reject normalized duplicates in create_account",
            "new": "Reject normalized duplicates in create_account with a 409"}}},
        {"id": "docs", "fields": {"depends_on": {"old": ["contract"], "new": ["implementation"]}}},
    ]
    assert change["edges"] == {
        "added": [{"item": "changelog", "depends_on": "integration"}, {"item": "docs", "depends_on": "implementation"}],
        "removed": [{"item": "docs", "depends_on": "spec"}],
    }
    assert change["waves"] == {"direct": [{"id": "docs", "old": 2, "new": 3}],
                               "indirect": [{"id": "integration", "old": 3, "new": 4}]}
    assert change["status"] == {"old": "ready", "new": "ready"}
    assert [(d["code"], d["item"], d["location"]["line"]) for d in change["issues"]["added"]] == [
        ("EP306", "integration", 38)]


def test_github_annotations_sit_on_the_new_plans_changed_items_lines(at_top: Path) -> None:
    out = run(EXAMPLE, REVISED, "--format", "github").stdout.splitlines()
    assert f"::notice file={REVISED},line=11,title=plan renamed::contract -> spec" in out
    assert f"::notice file={REVISED},line=34,title=plan moved (indirect)::integration: wave 3 -> 4" in out
    assert any(line.startswith(f"::notice file={REVISED},line=38,title=plan new issue::") for line in out)
    assert all(line.startswith("::notice file=") for line in out)


def test_a_plan_against_itself_reports_nothing_and_exits_0(at_top: Path) -> None:
    for fmt in ("text", "json", "markdown", "github"):
        result = run(EXAMPLE, EXAMPLE, "--format", fmt)
        assert result.exit_code == 0, result.output
        if fmt == "json":
            change = json.loads(result.stdout)
            assert change["same"] is True and change["added"] == change["revised"] == change["renamed"] == []
        elif fmt == "github":
            assert result.stdout == ""
    assert run(EXAMPLE, EXAMPLE).stdout == f"{EXAMPLE} -> {EXAMPLE}: no changes\n"


def test_a_compiled_json_and_standard_input_compare_equal_to_the_plan(at_top: Path, tmp_path: Path) -> None:
    from compiler.compile.emit import build_output, dumps
    from compiler.compile.pipeline import compile_plan

    compiled = tmp_path / "evidence-plan.json"
    compiled.write_text(dumps(build_output(compile_plan(EXAMPLE), str(tmp_path))), encoding="utf-8")
    assert run(str(compiled), EXAMPLE).exit_code == 0
    text = Path(EXAMPLE).read_text(encoding="utf-8")
    assert run("-", str(compiled), input=text).exit_code == 0
    assert run(EXAMPLE, "-", input=text).stdout == f"{EXAMPLE} -> <stdin>: no changes\n"


def test_evidence_is_compared_normalized_and_an_absent_field_as_its_default(tmp_path: Path) -> None:
    old = write_plan(tmp_path, PLAN, "old.yaml")
    new = write_plan(tmp_path, PLAN.replace("[app.py:3]", "[{path: app.py, line: 3}]")
                     .replace("change: second", "change: second\n    status: todo"), "new.yaml")
    code, change = as_json(str(old), str(new))
    assert (code, change["same"], change["revised"]) == (0, True, [])


def test_a_revised_field_shows_old_and_new_value(tmp_path: Path) -> None:
    old = write_plan(tmp_path, PLAN, "old.yaml")
    new = write_plan(tmp_path, PLAN.replace("[app.py:5]", "[app.py:6]"), "new.yaml")
    code, change = as_json(str(old), str(new))
    assert code == 1
    assert change["revised"] == [{"id": "b", "fields": {"evidence": {
        "old": [{"path": "app.py", "line": 5}], "new": [{"path": "app.py", "line": 6}]}}}]
    assert change["waves"] == {"direct": [], "indirect": []}


def test_each_item_is_renamed_at_most_once(tmp_path: Path) -> None:
    twins = PLAN.replace("change: second", "change: first").replace("[app.py:5]", "[app.py:3]")
    old = write_plan(tmp_path, twins, "old.yaml")
    new = write_plan(tmp_path, twins.replace("id: a", "id: a2").replace("[a]", "[a2]")
                     .replace("id: b", "id: b2"), "new.yaml")
    code, change = as_json(str(old), str(new))
    assert code == 1
    assert change["renamed"] == [{"old": "a", "new": "a2"}, {"old": "b", "new": "b2"}]
    assert change["edges"] == {"added": [], "removed": []}  # b -> a is b2 -> a2, mapped
    # One added item with the content of two removed ones: one rename, one removal.
    lone = write_plan(tmp_path, "items:\n  - id: z\n    change: first\n    evidence: [app.py:3]\n    proof: pytest\n",
                      "lone.yaml")
    code, change = as_json(str(old), str(lone))
    assert change["renamed"] == [{"old": "a", "new": "z"}]
    assert [r["id"] for r in change["removed"]] == ["b"]


def test_a_blocked_new_plan_shows_the_status_change_and_its_issues(tmp_path: Path) -> None:
    old = write_plan(tmp_path, PLAN, "old.yaml")
    new = write_plan(tmp_path, PLAN.replace("    depends_on: [a]\n    proof: pytest\n", "    depends_on: [a]\n"),
                     "new.yaml")
    code, change = as_json(str(old), str(new))
    assert code == 1
    assert change["status"] == {"old": "ready", "new": "blocked"}
    assert [(d["code"], d["item"], d["location"]["line"]) for d in change["issues"]["added"]] == [("EP102", "b", 6)]
    rows = [" ".join(line.split()) for line in run(str(old), str(new)).stdout.splitlines()]
    assert "status ready -> blocked" in rows
    assert f"new issue {new}:6:5: EP102 b has no proof command" in rows


def test_bad_input_exits_2_with_a_located_message_and_no_traceback(tmp_path: Path) -> None:
    old = write_plan(tmp_path, PLAN, "old.yaml")
    bad = write_plan(tmp_path, "items:\n  - id: a\n    change: [\n", "bad.yaml")
    result = run(str(old), str(bad))
    assert result.exit_code == 2
    assert f"{bad}:4:1: error EP002" in result.stderr and "Traceback" not in result.output
    missing = run(str(old), str(tmp_path / "nope.yaml"))
    assert missing.exit_code == 2 and "EP001 no such file" in missing.stderr
    both = run("-", "-", input=PLAN)
    assert both.exit_code == 2 and "only one of OLD and NEW can be -" in both.stderr


def test_rev_path_needs_no_existing_file_and_is_not_a_windows_drive(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert is_revision("HEAD:plan.yaml") and is_revision("main~1:plans/a.json")
    assert not is_revision("C:\\x.yaml") and not is_revision("C:/x.yaml") and not is_revision("-")
    assert not is_revision(":plan.yaml") and not is_revision("HEAD:") and not is_revision("plan.yaml")
    # git would read these as its own options (--output=FILE writes a file): never passed to it
    assert not is_revision("--output=/tmp/x:plan.yaml") and not is_revision("-p:plan.yaml")
    Path("a:b.yaml").write_text(PLAN, encoding="utf-8")
    assert not is_revision("a:b.yaml")  # a file of that name exists: it is read
    assert run("a:b.yaml", "a:b.yaml").exit_code == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_rev_path_reads_the_plan_from_git_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    plan = write_plan(repo / "plans", PLAN)
    git_commit(repo)
    plan.write_text(PLAN.replace("change: second", "change: second, revised"), encoding="utf-8")
    monkeypatch.chdir(repo / "plans")
    code, change = as_json("HEAD:plans/plan.yaml", "plan.yaml")
    assert code == 1 and change["revision"]["old"] == "HEAD:plans/plan.yaml"
    assert change["revised"] == [{"id": "b", "fields": {"change": {"old": "second", "new": "second, revised"}}}]
    assert run("HEAD:./plan.yaml", "HEAD:plans/plan.yaml").exit_code == 0  # ./ is the working folder
    unknown = run("nosuch:plans/plan.yaml", "plan.yaml")
    assert unknown.exit_code == 2
    assert "nosuch:plans/plan.yaml: error EP001 cannot read it from git history" in unknown.stderr
    absent = run("HEAD:plans/other.yaml", "plan.yaml")
    assert absent.exit_code == 2 and "EP001" in absent.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_rev_path_outside_a_git_repository_is_a_clear_input_error(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    write_plan(tmp_path, PLAN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = run("HEAD:plan.yaml", "plan.yaml")
    assert result.exit_code == 2
    assert "HEAD:plan.yaml: error EP001 cannot read it from git history: not a git repository" in result.stderr
    assert "hint: run it inside the git repository" in result.stderr


def test_the_docs_show_the_real_output_of_the_example_diff(repo: Path) -> None:
    command, shown = docs_block("reference/revisions.md", "diff-example").split("\n", 1)
    assert command == f"$ evidence-plan diff {EXAMPLE} {REVISED}"
    assert shown == (repo / "tests" / "golden" / "diff" / "revised.txt").read_text(encoding="utf-8")


def test_evidence_is_checked_only_with_root(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("\n".join(f"line {n}" for n in range(1, 7)) + "\n", encoding="utf-8")
    old = write_plan(tmp_path, PLAN, "old.yaml")
    new = write_plan(tmp_path, PLAN.replace("[app.py:5]", "[gone.py:5]"), "new.yaml")
    assert as_json(str(old), str(new))[1]["status"] == {"old": "ready", "new": "ready"}
    code, change = as_json(str(old), str(new), "--root", str(tmp_path))
    assert code == 1 and change["status"] == {"old": "ready", "new": "blocked"}
    assert [(d["code"], d["item"]) for d in change["issues"]["added"]] == [("EP201", "b")]


def test_github_file_names_are_relative_to_the_workspace(at_top: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(at_top / "tests")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(at_top))
    out = run(f"../{EXAMPLE}", "golden/diff/revised.yaml", "--format", "github").stdout.splitlines()
    assert f"::notice file={REVISED},line=11,title=plan renamed::contract -> spec" in out


def test_a_name_with_a_nul_is_never_handed_to_git() -> None:
    assert not is_revision("HEAD:pl\x00an.yaml")  # subprocess would raise on it


WORKED = "examples/worked/plan.yaml"


def test_a_revised_estimate_moves_the_critical_path_and_the_forecast(at_top: Path) -> None:
    code, change = as_json(WORKED, "tests/golden/diff/timing.yaml")
    assert code == 1 and [r["id"] for r in change["revised"]] == ["docs"]
    old, new = change["timing"]["old"], change["timing"]["new"]
    assert old["critical_path"] == ["contract", "reject-duplicates", "sign-off", "unique-index"]
    assert new["critical_path"] == ["contract", "docs"]
    assert new["median_hours"] > old["median_hours"] and new["p80_hours"] > old["p80_hours"]
    assert change["approvals"] == {"voided": []}  # an estimate is not what an approval binds


def test_the_timing_is_the_one_compile_writes(at_top: Path, tmp_path: Path) -> None:
    """diff orders the plan without networkx; the critical path and forecast are compile's."""
    result = CliRunner().invoke(cli, ["compile", WORKED, "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    compiled = json.loads((tmp_path / "evidence-plan.json").read_text(encoding="utf-8"))
    timing = as_json(WORKED, "tests/golden/diff/timing.yaml")[1]["timing"]["old"]
    assert timing["critical_path"] == compiled["schedule"]["critical_path"]
    assert timing["median_hours"] == compiled["schedule"]["median_hours"]
    assert [timing[k] for k in ("p50_hours", "p80_hours", "p95_hours")] == \
        [compiled["forecast"][k] for k in ("p50_hours", "p80_hours", "p95_hours")]


def test_an_edit_to_what_an_approval_covers_voids_it(at_top: Path) -> None:
    code, change = as_json(WORKED, "tests/golden/diff/voided.yaml")
    assert code == 1 and change["status"] == {"old": "ready", "new": "blocked"}
    assert [a["id"] for a in change["approvals"]["voided"]] == ["sign-off"]
    assert "unique-index" in change["approvals"]["voided"][0]["covers"]
    assert change["timing"]["new"] is None  # blocked: no forecast
    shown = run(WORKED, "tests/golden/diff/voided.yaml").stdout
    assert "approval voided  sign-off: what it covers changed" in shown


def test_an_approval_that_was_already_stale_is_not_voided_again(at_top: Path, tmp_path: Path) -> None:
    text = (at_top / "tests/golden/diff/voided.yaml").read_text(encoding="utf-8")
    stale = write_plan(tmp_path, text, "stale.yaml")
    again = write_plan(tmp_path, text.replace("one paragraph", "one paragraph, reviewed"), "again.yaml")
    code, change = as_json(str(stale), str(again))
    assert code == 1 and change["approvals"] == {"voided": []}


GATE = """\
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
    change: Copy the rows
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


def _approved(text: str) -> str:
    from compiler.analysis import approvals
    from compiler.load.document import parse_text
    from compiler.model.validate import build_plan

    digest = approvals.coverage(build_plan(parse_text(text, "p.yaml", "yaml")).items, "sign-off").digest
    return text.replace("    proof: make show\n", "    proof: make show\n    approved_by: ana\n"
                        f"    approved_at: '2026-12-01T15:04:05Z'\n    approval_digest: {digest}\n")


@pytest.mark.parametrize(("edit", "reason"), [
    (("depends_on: [migrate]", "depends_on: [sign-off]"), "what it covers changed"),  # the drop before the copy
    (("    approved_by: ana\n", ""), "its record has no approved_by"),
    (("'2026-12-01T15:04:05Z'", "'yesterday'"), "its approved_at is no date-time"),
    (("    kind: approval\n", ""), "it is not kind: approval"),
    (("Drop the old table", "Drop the old table and its backups"), "what it covers changed"),
    (("make backup", "make backup --fast"), "what it covers changed"),
    (("Copy the rows", "Copy the rows again"), "what it covers changed"),
])
def test_diff_voids_an_approval_exactly_when_check_calls_it_stale(tmp_path: Path, edit: tuple[str, str],
                                                                  reason: str) -> None:
    """One judgement (compiler/analysis/approvals.py's problems) behind check's EP111 and diff's voided
    approvals: every way a held record stops holding is listed, with why."""
    old_text = _approved(GATE)
    assert old_text.count(edit[0]) == 1
    old, new = write_plan(tmp_path, old_text, "old.yaml"), write_plan(tmp_path, old_text.replace(*edit), "new.yaml")
    checked = CliRunner().invoke(cli, ["check", "--format", "json", "--no-verify-evidence", str(new)])
    stale = {d["item"] for d in json.loads(checked.stdout) if d["code"] == "EP111"}
    assert stale == {"sign-off"}
    code, change = as_json(str(old), str(new))
    assert code == 1
    assert [(a["id"], a["reason"]) for a in change["approvals"]["voided"]] == [("sign-off", reason)]


def test_diff_voids_no_approval_when_check_calls_none_stale(tmp_path: Path) -> None:
    old_text = _approved(GATE)
    new_text = old_text.replace("depends_on: [migrate]", "depends_on: [migrate, migrate]")  # the same edges
    old, new = write_plan(tmp_path, old_text, "old.yaml"), write_plan(tmp_path, new_text, "new.yaml")
    checked = CliRunner().invoke(cli, ["check", "--format", "json", "--no-verify-evidence", str(new)])
    assert not [d for d in json.loads(checked.stdout) if d["code"] == "EP111"]
    assert as_json(str(old), str(new))[1]["approvals"] == {"voided": []}


def test_plans_without_estimates_have_no_timing(tmp_path: Path) -> None:
    old = write_plan(tmp_path, PLAN, "old.yaml")
    new = write_plan(tmp_path, PLAN.replace("change: second", "change: other"), "new.yaml")
    assert as_json(str(old), str(new))[1]["timing"] is None


def test_gits_fatal_line_is_the_reason_not_its_advice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git says why on its "fatal:" line and then gives advice (for a repository that another user
    owns, a safe.directory command): the message names the reason, the hint says what to do."""
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho \"fatal: detected dubious ownership in repository at '/r'\" >&2\n"
                    "echo 'To add an exception for this directory, call:' >&2\necho >&2\n"
                    "printf '\\tgit config --global --add safe.directory /r\\n' >&2\nexit 128\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    new = write_plan(tmp_path, PLAN, "new.yaml")
    result = run("HEAD:plan.yaml", str(new))
    assert result.exit_code == 2
    assert ("HEAD:plan.yaml: error EP001 cannot read it from git history: detected dubious ownership in repository"
            " at '/r'") in result.stderr
    assert "hint: git refuses a repository another user owns" in result.stderr


def test_a_revision_that_keeps_the_graph_and_estimates_forecasts_once(at_top: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a change's words differ: the schedule and the seeded forecast are the same, so the
    forecast (seconds at 100,000 items) runs once, and NEW's timing is OLD's."""
    from compiler.analysis import forecast

    text = (at_top / WORKED).read_text(encoding="utf-8").replace("root: .", "root: ../../examples/worked")
    new = write_plan(tmp_path, text.replace("The API documents the 409", "The API now documents the 409"),
                     "reworded.yaml")
    runs = []
    real = forecast.monte_carlo
    monkeypatch.setattr(forecast, "monte_carlo", lambda *a, **k: runs.append(1) or real(*a, **k))
    code, change = as_json(WORKED, str(new))
    assert code == 1 and [r["id"] for r in change["revised"]] == ["docs"]
    assert len(runs) == 1 and change["timing"]["old"] == change["timing"]["new"] is not None
    runs.clear()
    as_json(WORKED, "tests/golden/diff/timing.yaml")  # an estimate revised: both are forecast
    assert len(runs) == 2


@pytest.mark.slow
def test_the_markdown_of_a_large_revision_fits_a_pull_request_comment(tmp_path: Path) -> None:
    """GitHub takes at most 65,536 characters in a comment: 3,000 revised items (and one change
    of 5,000 characters) are cut at a row, and the rows left out are counted."""
    from compiler.report.diff import MAX_MARKDOWN

    rows = [f"  - {{id: i{n}, change: c{n}, evidence: [a.py], proof: p}}\n" for n in range(3000)]
    old = write_plan(tmp_path, "items:\n" + "".join(rows), "old.yaml")
    revised = [row.replace("change: c", "change: revised ") for row in rows]
    revised[0] = revised[0].replace("change: revised 0", "change: " + "x" * 5000)
    new = write_plan(tmp_path, "items:\n" + "".join(revised), "new.yaml")
    shown = run(str(old), str(new), "--format", "markdown").stdout
    assert len(shown) <= MAX_MARKDOWN < 65_536
    kept = shown.count("\n| revised |")
    assert 100 < kept < 3000 and f"… and {3000 - kept:,} more changes, left out" in shown
    assert "x" * 1000 not in shown and "x" * 900 in shown  # a cell is cut too, not left out
    assert run(str(old), str(new), "--format", "text").stdout.count("\nrevised") == 3000  # text holds them all


def test_github_notices_index_the_items_once_not_once_a_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each notice's line comes from one index of NEW's items: indexing them for every row made
    3,031 rows of a 100,000-item plan take 91 s (6.3 s now)."""
    from compiler.analysis import revisions

    rows = [f"  - {{id: i{n}, change: c{n}, evidence: [a.py], proof: p}}\n" for n in range(300)]
    old = write_plan(tmp_path, "items:\n" + "".join(rows), "old.yaml")
    new = write_plan(tmp_path, "items:\n" + "".join(r.replace("change: c", "change: d") for r in rows), "new.yaml")
    calls = []
    real = revisions._first
    monkeypatch.setattr(revisions, "_first", lambda items: calls.append(1) or real(items))
    before = len(calls)
    result = run(str(old), str(new), "--format", "github")
    assert result.stdout.count("::notice ") == 300 and "line=300," in result.stdout
    assert len(calls) - before <= 3  # compare's two and the notices' one, whatever the rows


def test_the_markdown_of_a_diff_mentions_nobody_and_reads_the_same(tmp_path: Path) -> None:
    """Posted as a pull-request comment, plan text must notify nobody: GitHub shows the row as
    the plan says it, `@octocat` and all, without a mention."""
    said = "ask @octocat and @github/security (ana@example.com)"
    old = write_plan(tmp_path, PLAN, "old.yaml")
    new = write_plan(tmp_path, PLAN.replace("change: first", f"change: {said}"), "new.yaml")
    result = run(str(old), str(new), "--format", "markdown")
    assert result.exit_code == 1
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("| revised |")]
    assert row == ('| revised | a: change: "first" -&gt; "ask @&#8288;octocat and @&#8288;github/security '
                   '(ana@&#8288;example.com)" |')
    assert MENTION.search(shown(result.stdout)) is None
    assert shown(row).replace("\u2060", "") == f'| revised | a: change: "first" -> "{said}" |'
