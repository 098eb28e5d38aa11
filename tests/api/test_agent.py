"""compiler/api/agent.py and compiler/api/agent_tools.py: the agent server's tools as library
calls. Each answers with the object its command prints with --format json, compiles a plan given
as text without writing anything, and refuses, in a sentence, what it will not do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import REPO, SLOPPY_PLAN, git_commit, run, sloppy_repository

from compiler.api import agent
from compiler.api.agent_tools import RESOURCES, TOOLS
from compiler.api.workspace import Refused, Workspace
from compiler.core.diagnostics import PlanInputError

EXAMPLE = REPO / "examples" / "duplicate-email"


@pytest.fixture
def sloppy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """The sloppy plan's repository, the working folder, as the server makes its root."""
    root = sloppy_repository(tmp_path / "repo")
    monkeypatch.chdir(root)
    return Workspace.at(str(root))


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return Workspace.at(str(root))


def answer(name: str, ws: Workspace, **arguments: Any) -> dict[str, Any]:
    """A tool's answer, its arguments and the answer each held to the tool's schemas."""
    tool = TOOLS[name]
    jsonschema.validate(arguments, tool.input_schema)
    out = tool.run(ws, **arguments)
    jsonschema.validate(out, tool.output_schema)
    json.dumps(out)  # plain JSON data
    return out


def cli_json(*argv: str) -> Any:
    result = run(*argv)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` with ``edits`` made, as a client makes them: positions 1-based, end exclusive."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: dict[str, int]) -> int:
        return starts[position["line"] - 1] + position["column"] - 1 if position["line"] <= len(lines) else len(text)

    for edit in sorted(edits, key=lambda e: (e["start"]["line"], e["start"]["column"]), reverse=True):
        text = text[:offset(edit["start"])] + edit["new_text"] + text[offset(edit["end"]):]
    return text


# --- the tools' declarations -----------------------------------------------------------------------


def test_six_tools_each_with_valid_schemas_and_only_fix_plan_may_write() -> None:
    assert list(TOOLS) == ["check_plan", "fix_plan", "next_items", "diff_plans", "find_evidence", "explain"]
    for tool in TOOLS.values():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.input_schema["additionalProperties"] is False
        assert tool.read_only == (tool.name != "fix_plan")
        assert "$ref" not in json.dumps(tool.input_schema) + json.dumps(tool.output_schema)


def test_the_resources_are_the_schemas_and_the_format_summary() -> None:
    from compiler.model.json_schema import committed
    from compiler.model.summary import plan_summary

    texts = {uri: resource.read() for uri, resource in RESOURCES.items()}
    assert texts == {"evidence-plan://plan-format": plan_summary(), "evidence-plan://schema/input": committed("input"),
                     "evidence-plan://schema/output": committed("output")}


# --- check_plan ------------------------------------------------------------------------------------


def test_check_plan_answers_what_check_format_json_prints(sloppy: Workspace) -> None:
    checked = answer("check_plan", sloppy, path="plan.yaml")
    assert checked["diagnostics"] == cli_json("check", "--format", "json", "--root", ".", "plan.yaml")
    assert (checked["plan"], checked["status"], checked["waves"], checked["errors"], checked["warnings"]) == (
        "plan.yaml", "blocked", [], 4, 3)
    assert [d["code"] for d in checked["diagnostics"]] == ["EP105", "EP203", "EP201", "EP304", "EP102", "EP306",
                                                          "EP301"]
    assert checked["diagnostics"][1]["location"] == {"file": "plan.yaml", "line": 10, "column": 19}


def test_a_plan_given_as_text_is_checked_as_the_file_and_written_nowhere(sloppy: Workspace) -> None:
    before = sorted(p.name for p in Path(sloppy.root).rglob("*"))
    by_path = answer("check_plan", sloppy, path="plan.yaml")
    by_text = answer("check_plan", sloppy, text=SLOPPY_PLAN)
    assert by_text["plan"] == "<text>"
    assert all(d["location"]["file"] == "<text>" and d["plan"] == "<text>" for d in by_text["diagnostics"])
    assert json.loads(json.dumps(by_text["diagnostics"]).replace('"<text>"', '"plan.yaml"')) == by_path["diagnostics"]
    assert answer("check_plan", sloppy, text=json.dumps({"items": []}))["diagnostics"] == answer(
        "check_plan", sloppy, text="{'items': []}", format="yaml")["diagnostics"]  # JSON by content; yaml when told
    assert sorted(p.name for p in Path(sloppy.root).rglob("*")) == before


def test_a_ready_plan_has_its_waves(example: Workspace) -> None:
    checked = answer("check_plan", example, path="plan.yaml")
    assert (checked["status"], checked["waves"], checked["diagnostics"]) == (
        "ready", [["contract"], ["docs", "implementation"], ["integration"]], [])


@pytest.mark.parametrize(("arguments", "code", "location"), [
    ({"text": "items: [", "format": "yaml"}, "EP002", {"file": "<text>", "line": 1, "column": 9}),
    ({"text": '{"items": [}'}, "EP002", {"file": "<text>", "line": 1, "column": 12}),
    ({"path": "missing.yaml"}, "EP001", {"file": "missing.yaml", "line": None, "column": None}),
    ({"path": "README.md"}, "EP001", {"file": "README.md", "line": None, "column": None}),
])
def test_a_plan_that_cannot_be_read_is_unreadable_with_its_located_diagnostic(
        sloppy: Workspace, arguments: dict[str, str], code: str, location: dict[str, Any]) -> None:
    checked = answer("check_plan", sloppy, **arguments)
    assert (checked["status"], checked["waves"], checked["errors"]) == ("unreadable", [], 1)
    (diagnostic,) = checked["diagnostics"]
    assert (diagnostic["code"], diagnostic["location"], diagnostic["plan_status"]) == (code, location, "unreadable")


@pytest.mark.parametrize(("name", "arguments", "said"), [
    ("check_plan", {}, "give the plan's path (under the root) or its text, one of them"),
    ("check_plan", {"path": "plan.yaml", "text": "items: []"}, "give the plan's path (under the root) or its text"),
    ("check_plan", {"path": "../plan.yaml"}, "../plan.yaml is outside the root "),
    ("fix_plan", {"text": SLOPPY_PLAN, "write": True}, "write rewrites the plan file: give its path, not its text"),
    ("next_items", {"path": "/etc/passwd"}, "/etc/passwd is outside the root "),
    ("diff_plans", {"old": {"text": "items: []", "rev": "HEAD"}, "new": {"path": "plan.yaml"}},
     "rev reads a path at a git revision: give path with it, not text"),
    ("diff_plans", {"old": {"path": "../x.yaml", "rev": "HEAD"}, "new": {"path": "plan.yaml"}},
     "../x.yaml is outside the root "),
    ("diff_plans", {"old": {"path": "plan.yaml", "rev": "--output=x"}, "new": {"path": "plan.yaml"}},
     "a revision cannot start with -: '--output=x'"),
    ("diff_plans", {"old": {"path": "plan.yaml", "rev": "HEAD:x"}, "new": {"path": "plan.yaml"}},
     "a revision has no ':', NUL or line break: 'HEAD:x'"),
    ("find_evidence", {}, "give text to look for, or paths of files to list the symbols of (or both)"),
    ("find_evidence", {"text": "x", "within": [".."]}, ".. is outside the root "),
    ("find_evidence", {"paths": ["/etc/passwd"]}, "/etc/passwd is outside the root "),
    ("explain", {"code": "EP20l"}, "no code or rule is named 'EP20l' (did you mean EP201?)"),  # l typed for 1
])
def test_what_a_tool_will_not_do_is_refused_in_a_sentence(sloppy: Workspace, name: str, arguments: dict[str, Any],
                                                          said: str) -> None:
    jsonschema.validate(arguments, TOOLS[name].input_schema)
    with pytest.raises(Refused) as refused:
        TOOLS[name].run(sloppy, **arguments)
    assert str(refused.value).startswith(said)


# --- fix_plan --------------------------------------------------------------------------------------


def test_fix_plan_answers_what_fix_writes_and_writes_only_when_told(sloppy: Workspace) -> None:
    plan = Path(sloppy.root) / "plan.yaml"
    shutil.copyfile(plan, Path(sloppy.root) / "copy.yaml")
    assert run("fix", "--root", ".", "copy.yaml").exit_code == 1  # problems left
    fixed = answer("fix_plan", sloppy, path="plan.yaml")
    assert plan.read_text(encoding="utf-8") == SLOPPY_PLAN  # not written
    assert fixed["text"] == (Path(sloppy.root) / "copy.yaml").read_text(encoding="utf-8")
    assert (fixed["changed"], fixed["written"], fixed["errors"], fixed["warnings"]) == (True, False, 3, 0)
    assert fixed["applied"] == [  # in fix's rounds: EP306 once the repeated dependency is gone
        "contract: removed repeated evidence tests/test_accounts.py:4",
        "contract: app/accounts.py:5 -> app/accounts.py:11 ('def create_account' moved)",
        "implementation: removed repeated dependency contract",
        "docs: removed dependency contract, implied through implementation"]
    assert [d["code"] for d in fixed["diagnostics"]] == ["EP201", "EP102", "EP301"]  # located in the fixed text
    assert apply_edits(SLOPPY_PLAN, fixed["edits"]) == fixed["text"]
    assert fixed["edits"][0] == {"start": {"line": 7, "column": 1}, "end": {"line": 8, "column": 1}, "new_text": ""}
    written = answer("fix_plan", sloppy, path="plan.yaml", write=True)
    assert {**written, "written": False} == fixed
    assert plan.read_text(encoding="utf-8") == fixed["text"]
    again = answer("fix_plan", sloppy, path="plan.yaml", write=True)
    assert (again["changed"], again["written"], again["edits"], again["applied"]) == (False, False, [], [])


def test_fix_plan_of_a_text_repairs_it_the_same(sloppy: Workspace) -> None:
    by_text = answer("fix_plan", sloppy, text=SLOPPY_PLAN)
    by_path = answer("fix_plan", sloppy, path="plan.yaml")
    assert (by_text["text"], by_text["edits"], by_text["applied"]) == (by_path["text"], by_path["edits"],
                                                                      by_path["applied"])


def test_the_agent_loop_reaches_the_fewest_errors_fix_can_in_one_round(sloppy: Workspace) -> None:
    """check, apply the safe fixes, check again: the second round finds nothing more to repair."""
    first = answer("check_plan", sloppy, path="plan.yaml")
    rounds, checked = 0, first
    while rounds < 2:
        rounds += 1
        if not answer("fix_plan", sloppy, path="plan.yaml", write=True)["changed"]:
            break
        checked = answer("check_plan", sloppy, path="plan.yaml")
    assert rounds == 2  # the second round changed nothing
    text = SLOPPY_PLAN
    for _ in range(10):  # the fixed point of the safe repairs, from the draft
        fixed = answer("fix_plan", sloppy, text=text)
        if not fixed["changed"]:
            break
        text = fixed["text"]
    assert checked["errors"] == fixed["errors"] < first["errors"]
    assert checked["errors"] == 3 and checked["warnings"] == 0


_LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "a", "\n", "x y\n"]), max_size=8)


@settings(max_examples=60, deadline=None)
@given(before=_LINES, after=_LINES)
def test_the_edits_make_the_new_text_from_the_old(before: list[str], after: list[str]) -> None:
    old, new = "".join(before), "".join(after)
    assert apply_edits(old, agent.text_edits(old, new)) == new


# --- next_items, diff_plans, find_evidence, explain ------------------------------------------------


def test_next_items_answers_what_next_format_json_prints(example: Workspace, sloppy: Workspace) -> None:
    import os

    os.chdir(example.root)
    found = answer("next_items", example, path="plan.yaml")
    assert found == cli_json("next", "--format", "json", "--root", ".", "plan.yaml")
    assert [n["id"] for n in found["next"]] == ["contract"]
    os.chdir(sloppy.root)
    blocked = answer("next_items", sloppy, text=SLOPPY_PLAN)
    assert (blocked["status"], blocked["next"]) == ("blocked", [])


def test_diff_plans_answers_what_diff_format_json_prints(sloppy: Workspace) -> None:
    root = Path(sloppy.root)
    git_commit(root)
    (root / "new.yaml").write_text(SLOPPY_PLAN.replace("Release it", "Release it, twice"), encoding="utf-8")
    change = answer("diff_plans", sloppy, old={"path": "plan.yaml"}, new={"path": "new.yaml"})
    assert change == cli_json("diff", "--format", "json", "plan.yaml", "new.yaml")
    assert [r["id"] for r in change["revised"]] == ["release"]
    (root / "plan.yaml").write_text(SLOPPY_PLAN.replace("Document it", "Document it well"), encoding="utf-8")
    at_head = answer("diff_plans", sloppy, old={"path": "plan.yaml", "rev": "HEAD"}, new={"path": "plan.yaml"})
    assert at_head == cli_json("diff", "--format", "json", "--base", "HEAD", "plan.yaml")
    assert [r["id"] for r in at_head["revised"]] == ["docs"]
    texts = answer("diff_plans", sloppy, old={"text": SLOPPY_PLAN}, new={"text": SLOPPY_PLAN})
    assert (texts["same"], texts["revision"]) == (True, {"old": "<old>", "new": "<new>"})


def test_find_evidence_answers_what_where_and_symbols_print(sloppy: Workspace) -> None:
    found = answer("find_evidence", sloppy, text="def create_account", paths=["app/accounts.py"])
    assert found["hits"] == cli_json("where", "--root", ".", "--format", "json", "def create_account")
    assert found["symbols"] == cli_json("symbols", "--root", ".", "--format", "json", "app/accounts.py")
    assert [h["reference"] for h in found["hits"]] == ["plan.yaml:10", "app/accounts.py:11"]
    assert found["hits"][1]["symbol"] == {"evidence": "app/accounts.py::Accounts.create_account", "lines": "11-15"}
    within = answer("find_evidence", sloppy, text="Accounts", within=["tests"], max_hits=1)
    assert ([h["reference"] for h in within["hits"]], within["more"]) == (["tests/test_accounts.py:1"], True)
    with pytest.raises(PlanInputError, match="does not exist"):
        agent.find_evidence(sloppy, paths=["app/missing.py"])


@pytest.mark.parametrize("word", ["EP201", "ep201", "missing-file", " EP201 "])
def test_explain_takes_a_code_or_a_rule_name(sloppy: Workspace, word: str) -> None:
    from support import docs_page

    explained = answer("explain", sloppy, code=word)
    assert (explained["code"], explained["name"], explained["severity"]) == ("EP201", "missing-file", "error")
    assert explained["page"] == docs_page("codes/EP201.md")  # `explain --format markdown`, the docs' page
    assert explained["why"] and explained["fix"] and explained["examples"]
