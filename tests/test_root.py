"""How far a plan may move its repository root: a plan's ``root:`` stays inside the git work tree
that holds it (or its folder, outside git); ``--root`` is the user's choice and is trusted (EP208).

The attack: in CI, a plan from a pull request with ``root: ../../../..`` and evidence such as
``etc/passwd:1`` with ``contains:`` would make the compiler an oracle that answers questions
about any file of the runner. (Where the root is found at all is tested in test_evidence.py.)
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from compiler.cli import main
from compiler.compile import compile_plan, find_root
from compiler.diagnostics import Location
from compiler.paths import inside, work_tree

ORACLE = """\
root: {root}
items:
  - id: probe
    change: Ask about a file outside the repository
    evidence:
      - path: {secret}
        line: 1
        contains: "{word}"
    proof: make test
"""


def tree(tmp_path: Path) -> dict[str, Path]:
    """repo/ is a git work tree holding plans/ and docs/; secret.txt lies beside it, outside."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "plans").mkdir()
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("the-password\n", encoding="utf-8")
    return {"repo": repo, "plans": repo / "plans", "docs": repo / "docs", "outside": tmp_path}


def oracle(folder: Path, root: str, secret: str = "secret.txt", word: str = "the-password") -> Path:
    path = folder / "plan.yaml"
    path.write_text(ORACLE.format(root=root, secret=secret, word=word), encoding="utf-8")
    return path


def test_a_root_that_climbs_out_of_the_work_tree_is_refused_and_nothing_outside_is_read(tmp_path: Path) -> None:
    t = tree(tmp_path)
    result = compile_plan(str(oracle(t["plans"], "../..")))
    assert result.status == "blocked"
    assert [(d.code, d.item, d.location.line, d.location.column) for d in result.diagnostics  # type: ignore[union-attr]
            ] == [("EP208", None, 1, 7)]
    message = result.diagnostics[0].message
    assert "root ../.. leads outside the repository" in message and "not checked" in message
    assert "--root" in (result.diagnostics[0].hint or "")
    assert not result.evidence_verified
    # Asked with a wrong word, the answer is the same: nothing about the file leaks.
    again = compile_plan(str(oracle(t["plans"], "../..", word="not-in-the-file")))
    assert [d.message for d in again.diagnostics] == [message]


def test_the_oracle_is_answered_with_the_same_words_whatever_the_file_holds(tmp_path: Path) -> None:
    t = tree(tmp_path)
    deep = "/".join([".."] * 40)  # climbs to / from anywhere
    answers = {compile_plan(str(oracle(t["plans"], deep, "etc/passwd", word))).diagnostics[0].message
               for word in ("root:", "no-such-text-anywhere")}
    assert len(answers) == 1


@pytest.mark.parametrize("root", ["..", ".", "../docs", "../plans/..", "./"])
def test_a_root_inside_the_work_tree_is_followed(tmp_path: Path, root: str) -> None:
    t = tree(tmp_path)
    plan = oracle(t["plans"], root, secret="docs/a.md", word="# A")
    result = compile_plan(str(plan))
    assert "EP208" not in [d.code for d in result.diagnostics]
    assert result.evidence_verified


def test_a_symlinked_folder_cannot_lead_out(tmp_path: Path) -> None:
    t = tree(tmp_path)
    (t["repo"] / "escape").symlink_to(t["outside"], target_is_directory=True)
    result = compile_plan(str(oracle(t["plans"], "../escape")))
    assert [d.code for d in result.diagnostics] == ["EP208"]


def test_an_absolute_root_outside_is_refused_without_reading_it(tmp_path: Path) -> None:
    t = tree(tmp_path)
    start = time.perf_counter()
    result = compile_plan(str(oracle(t["plans"], "/proc", secret="kmsg", word="x")))  # kmsg would block a read
    assert time.perf_counter() - start < 5
    assert [d.code for d in result.diagnostics] == ["EP208"]


def test_outside_git_the_plan_folder_is_the_boundary(tmp_path: Path) -> None:
    loose = tmp_path / "loose" / "plans"
    (loose / "sub").mkdir(parents=True)
    (loose / "sub" / "a.md").write_text("# A\n", encoding="utf-8")
    assert [d.code for d in compile_plan(str(oracle(loose, ".."))).diagnostics] == ["EP208"]
    inner = compile_plan(str(oracle(loose, "sub", secret="a.md", word="# A")))
    assert inner.status == "ready"


def test_the_command_line_root_is_trusted(tmp_path: Path) -> None:
    t = tree(tmp_path)
    plan = oracle(t["plans"], "../..")
    result = compile_plan(str(plan), root=str(t["outside"]))
    assert result.status == "ready"
    assert result.evidence_verified


def test_standard_input_is_bounded_by_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    t = tree(tmp_path)
    monkeypatch.chdir(t["plans"])
    text = ORACLE.format(root="../..", secret="secret.txt", word="the-password").encode()
    result = compile_plan("-", stdin=io.BytesIO(text))
    assert [d.code for d in result.diagnostics] == ["EP208"]


def test_compile_writes_the_blocked_report_and_check_exits_1(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    t = tree(tmp_path)
    plan = oracle(t["plans"], "../..")
    assert main(["check", "--format", "text", str(plan)]) == 1
    out, _ = capsys.readouterr()
    assert out.startswith(f"{plan}:1:7: error EP208 the plan's root ../.. leads outside")
    assert "  hint: a plan's root: stays inside the git work tree" in out
    assert main(["compile", str(plan), "-o", str(tmp_path / "out")]) == 1
    document = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert document["status"] == "blocked"
    assert document["evidence_verified"] is False
    assert [issue["code"] for issue in document["issues"]] == ["EP208"]
    assert [item["id"] for item in document["items"]] == ["probe"]


def test_find_root_reports_the_refusal_and_work_tree_finds_git(tmp_path: Path) -> None:
    t = tree(tmp_path)
    assert work_tree(str(t["plans"])) == str(t["repo"])
    assert work_tree(str(tmp_path)) is None or not inside(str(tmp_path), str(t["repo"]))
    found = find_root(str(t["plans"] / "plan.yaml"), "../..", None, Location("plan.yaml"))
    assert found.refused is not None and "../.." in found.refused
    trusted = find_root(str(t["plans"] / "plan.yaml"), "../..", str(tmp_path), Location("plan.yaml"))
    assert trusted.refused is None and os.path.samefile(trusted.path, tmp_path)


def test_inside_is_by_whole_path_parts() -> None:
    assert inside("/a/b", "/a") and inside("/a", "/a") and inside("/a/b", "/")
    assert not inside("/ab", "/a") and not inside("/", "/a")


def test_without_verification_the_root_is_only_recorded(tmp_path: Path) -> None:
    # Nothing is read, so nothing is refused: a compiled evidence-plan.json in a build folder
    # outside the repository reads back with its root pointing there.
    t = tree(tmp_path)
    result = compile_plan(str(oracle(t["plans"], "../..")), verify_evidence=False)
    assert result.status == "ready"


@pytest.mark.parametrize("in_git", [False, True])
def test_standard_input_outside_any_repository_says_so_where_a_file_is_missing(
        in_git: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    folder = tmp_path / "somewhere"
    folder.mkdir()
    if in_git:
        (folder / ".git").mkdir()
    monkeypatch.chdir(folder)
    text = b"items:\n  - id: a\n    change: c\n    evidence: [no/such/file.py]\n    proof: p\n"
    result = compile_plan("-", stdin=io.BytesIO(text))
    (missing,) = result.diagnostics
    assert (missing.code, missing.item, missing.location.line) == ("EP201", "a", 4)  # type: ignore[union-attr]
    if in_git:
        assert missing.hint is None
    else:
        assert missing.hint is not None
        assert "standard input is in no repository" in missing.hint and "--root" in missing.hint
