"""compiler/model/readback.py: a compiled evidence-plan.json of a blocked plan reads back blocked,
with the same issues (issue 23: `diff plan.yaml evidence-plan.json` said "blocked -> ready")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import git_repo, run, write_plan

ITEM = """\
  - id: a
    change: first
    evidence: [app.py:1]
    proof: pytest
"""

# Each kind of blocking problem: the plan, and the codes its compile records.
BLOCKED = {
    "unknown-item-field": (f"items:\n{ITEM}  - id: b\n    change: c\n    evidence: [app.py]\n"
                           "    depend_on: [a]\n    proof: pytest\n", ["EP010"]),
    "wrong-type": (f"items:\n{ITEM}    depends_on: 5\n", ["EP011"]),
    "bad-evidence-entry": ("items:\n  - id: a\n    change: c\n    evidence: [app.py:1, 5]\n    proof: pytest\n",
                           ["EP011"]),
    "proof-not-text": ("items:\n  - id: a\n    change: c\n    evidence: [app.py:1]\n    proof: 7\n", ["EP011"]),
    "missing-id": (f"items:\n{ITEM}  - change: x\n    evidence: [app.py]\n    proof: pytest\n", ["EP012"]),
    "item-not-a-mapping": (f"items:\n  - 5\n{ITEM}", ["EP011"]),
    "unknown-plan-field": (f"gaol: g\nitems:\n{ITEM}", ["EP010"]),
    "plan-field-wrong-type": (f"goal: 5\nitems:\n{ITEM}", ["EP011"]),
    "missing-file": ("items:\n  - id: a\n    change: c\n    evidence: [missing.py]\n    proof: pytest\n", ["EP201"]),
    "cycle": (f"items:\n{ITEM}    depends_on: [b]\n  - id: b\n    change: c\n    evidence: [app.py]\n"
              "    depends_on: [a]\n    proof: pytest\n", ["EP303"]),
    "no-items": ("plan: empty\nitems: []\n", ["EP401"]),
    "unknown-and-missing": ("items:\n  - id: a\n    change: c\n    evidence: [missing.py]\n    depend_on: [a]\n"
                            "    proof: pytest\n", ["EP010", "EP201"]),
}


def _compiled(tmp_path: Path, text: str) -> Path:
    git_repo(tmp_path, {"app.py": "def f():\n    pass\n"})
    plan = write_plan(tmp_path, text)
    run("compile", str(plan), "-o", str(tmp_path / "out"))
    return tmp_path / "out" / "evidence-plan.json"


def _codes(output: str) -> list[str]:
    return sorted(issue["code"] for issue in json.loads(output))


@pytest.mark.parametrize("kind", list(BLOCKED))
def test_compiled_blocked_plan_reads_back_blocked_with_the_same_codes(tmp_path: Path, kind: str) -> None:
    text, expected = BLOCKED[kind]
    compiled = _compiled(tmp_path, text)
    recorded = json.loads(compiled.read_text(encoding="utf-8"))
    assert recorded["status"] == "blocked"
    assert sorted(issue["code"] for issue in recorded["issues"]) == expected
    result = run("check", "--format", "json", str(compiled))
    assert result.exit_code == 1, result.output
    assert _codes(result.stdout) == expected
    # diff (which checks no evidence) sees no change of status and no issue resolved between the
    # plan and its compiled file
    diff = run("diff", "--format", "json", str(tmp_path / "plan.yaml"), str(compiled))
    change = json.loads(diff.stdout)
    assert change["status"]["old"] == change["status"]["new"], diff.stdout
    assert change["issues"] == {"added": [], "resolved": []}


def test_compiled_blocked_plan_compiles_again_to_the_same_record(tmp_path: Path) -> None:
    """Compiled again from its compiled file, a blocked plan records the same codes and items."""
    compiled = _compiled(tmp_path, BLOCKED["unknown-and-missing"][0])
    again = run("compile", str(compiled), "-o", str(tmp_path / "again"))
    assert again.exit_code == 1
    first = json.loads(compiled.read_text(encoding="utf-8"))
    second = json.loads((tmp_path / "again" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert second["status"] == "blocked"
    issues = [sorted((i["code"], i["item"]) for i in doc["issues"]) for doc in (first, second)]
    assert issues[0] == issues[1]
    assert [item.get("invalid") for item in second["items"]] == [item.get("invalid") for item in first["items"]]


def test_recorded_issue_is_located_at_its_record_and_names_the_plan(tmp_path: Path) -> None:
    compiled = _compiled(tmp_path, BLOCKED["unknown-item-field"][0])
    result = run("check", str(compiled))
    line = next(row for row in result.stdout.splitlines() if "EP010" in row)
    text = compiled.read_text(encoding="utf-8").splitlines()
    at = int(line.split(":")[1])
    assert '"code": "EP010"' in text[at - 1] or text[at - 1].strip() == "{"
    assert line.startswith(f"{compiled}:") and "b has unknown field 'depend_on'" in line
    assert f"at {tmp_path / 'plan.yaml'}:9:5" in result.stdout


def test_unread_key_stays_unread_on_read_back(tmp_path: Path) -> None:
    """`proof: 7` is EP011 and not also EP102 "no proof": read back, the proof is still unread."""
    compiled = _compiled(tmp_path, BLOCKED["proof-not-text"][0])
    result = run("check", "--format", "json", str(compiled))
    assert _codes(result.stdout) == ["EP011"]


def test_hand_edited_compiled_item_is_still_validated(tmp_path: Path) -> None:
    """Issues are taken from the record only for what the file lists as unread: a compiled item
    edited by hand is read and checked as it stands."""
    compiled = _compiled(tmp_path, f"items:\n{ITEM}")
    data = json.loads(compiled.read_text(encoding="utf-8"))
    data["items"][0]["depends_on"] = 5
    compiled.write_text(json.dumps(data, indent=2), encoding="utf-8")
    result = run("check", "--format", "json", str(compiled))
    assert _codes(result.stdout) == ["EP011"]
