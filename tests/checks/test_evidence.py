"""compiler/checks/evidence.py: evidence against the repository (EP201-EP207), and EP106 for an
item whose evidence is only external links.

Each code is asserted with its exact item, line and column, in the string form and in the
object form (where a finding points at the field it is about), together with its message: the
did-you-mean of a missing file (EP201), where ``contains`` text was found instead (EP203). The
plans run against ``std_repo`` (tests/conftest.py) or a small repository of their own.

Elsewhere: how the repository reads the files behind these codes (once, streamed, binary,
FIFOs, permissions, symlinks) is tests/repo/test_repository.py; symbol lookup and the did-you-mean of
a symbol (EP206) tests/repo/test_symbols.py; where the root is found (EP006, EP208) tests/compile/test_root.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support import OpenRecorder, compile_in, git_repo, one_item_plan, only, rows, write_plan
from work import count

from compiler.compile.pipeline import compile_plan
from compiler.repo.repository import Repository


def position_of(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first occurrence of ``needle`` in ``text``."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


# --- the acceptance test ------------------------------------------------------------------------

ACCEPTANCE_PLAN = """\
plan: acceptance
items:
  - id: missing-file
    change: c
    proof: pytest
    evidence:
      - app/acounts.py
  - id: past-the-end
    change: c
    proof: pytest
    evidence:
      - a.txt:120
  - id: moved-contains
    change: c
    proof: pytest
    evidence:
      - {path: a.txt, lines: 1-2, contains: gamma}
  - id: dot-dot
    change: c
    proof: pytest
    evidence:
      - ../outside.txt
  - id: absolute
    change: c
    proof: pytest
    evidence:
      - /etc/passwd
  - id: symlink
    change: c
    proof: pytest
    evidence:
      - link.txt
"""


def test_acceptance_blocked_one_diagnostic_per_problem_nothing_outside_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repo(tmp_path / "repo", {"a.txt": "alpha\nbeta\ngamma\n", "app/accounts.py": "x = 1\n"})
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n", encoding="utf-8")
    (root / "link.txt").symlink_to(outside)
    plan = write_plan(root / "plans", ACCEPTANCE_PLAN)  # inside the repository, below its root

    compile_plan(str(plan))  # warm up: lazy imports read the interpreter's own files
    recorder = OpenRecorder(monkeypatch)
    result = compile_plan(str(plan))
    monkeypatch.undo()

    assert result.status == "blocked"
    assert os.path.realpath(result.root) == os.path.realpath(root)  # found through .git
    expected = {
        "missing-file": ("EP201", "app/acounts.py"),
        "past-the-end": ("EP202", "a.txt:120"),
        "moved-contains": ("EP203", "{path: a.txt"),
        "dot-dot": ("EP204", "../outside.txt"),
        "absolute": ("EP204", "/etc/passwd"),
        "symlink": ("EP204", "link.txt"),
    }
    assert len(result.diagnostics) == len(expected)  # one per problem, nothing else
    by_item = {d.item: d for d in result.diagnostics}
    assert set(by_item) == set(expected)
    for item, (code, entry) in expected.items():
        d = by_item[item]
        assert d.code == code
        assert d.severity == "error"
        assert item in d.message  # each names the item
        assert d.location is not None
        assert d.location.line == position_of(ACCEPTANCE_PLAN, entry)[0], (item, d.location)
    assert "(did you mean app/accounts.py?)" in by_item["missing-file"].message
    assert by_item["past-the-end"].message == "past-the-end cites a.txt:120, but a.txt has 3 lines"
    assert "(found at line 3)" in by_item["moved-contains"].message
    # Nothing outside the root was opened; the plan itself (inside the root) was.
    assert recorder.outside(root) == []
    assert os.path.realpath(plan) in recorder.paths
    assert os.path.realpath(outside) not in recorder.paths
    assert "/etc/passwd" not in recorder.paths


def test_recorder_sees_reads_outside_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The acceptance test's recorder is not vacuous: it notices a read outside the root."""
    (tmp_path / "x.txt").write_text("x", encoding="utf-8")
    recorder = OpenRecorder(monkeypatch)
    with open(tmp_path / "x.txt", "rb") as handle:
        handle.read()
    (tmp_path / "x.txt").read_text(encoding="utf-8")
    os.close(os.open(tmp_path / "x.txt", os.O_RDONLY))
    monkeypatch.undo()
    seen = recorder.outside(tmp_path / "sub")
    assert set(seen) == {str((tmp_path / "x.txt").resolve())}
    assert len(seen) >= 3  # each of the three ways was seen (pathlib may go through Path.open too)


# --- every code, exactly located ------------------------------------------------------------------

# String form: the diagnostic sits at the evidence entry, line 6 column 9 of one_item_plan.
STRING_FORM = [
    ("missing.txt", "EP201", "it cites missing.txt, but missing.txt does not exist"),
    ("a.txt:4", "EP202", "it cites a.txt:4, but a.txt has 3 lines"),
    ("a.txt:2-9", "EP202", "it cites a.txt:2-9, but a.txt has 3 lines"),
    ("empty.txt:1", "EP202", "it cites empty.txt:1, but empty.txt has 0 lines"),
    ("../outside.txt", "EP204", "it cites ../outside.txt, which leaves the repository root; it was not read"),
    ("app/../../outside.txt", "EP204", "leaves the repository root"),
    ("/etc/passwd", "EP204", "it cites /etc/passwd, which is an absolute path"),
    ("link.txt", "EP204", "it cites link.txt, which is a symlink that leads outside the repository root"),
    ("link.txt:1", "EP204", "symlink that leads outside"),
    ("docs:1", "EP205", "it cites docs:1, but docs is a folder"),
    ("docs::Guide", "EP205", "docs is a folder"),
    ("app/accounts.py::Accounts.creat", "EP206",
     "it cites app/accounts.py::Accounts.creat, but app/accounts.py defines no Accounts.creat"
     " (did you mean Accounts.create?)"),
    ("data.bin:1", "EP207", "it cites data.bin:1, but data.bin is a binary file: cite it as a whole"),
    ("data.bin::x", "EP207", "binary file"),
]


@pytest.mark.parametrize(("entry", "code", "message"), STRING_FORM, ids=[r[0] for r in STRING_FORM])
def test_string_form_code_and_location(std_repo: Path, entry: str, code: str, message: str) -> None:
    result = compile_in(std_repo, one_item_plan(f"      - {entry}\n"))
    assert rows(result.diagnostics) == [(code, "it", 6, 9)]
    assert message in result.diagnostics[0].message
    assert result.status == "blocked"


# Object form: (fields in order, code, the field located, its (line, column)). The entry starts
# on line 6 (`- path: ...`, value at column 15); each further field is on its own line, key at
# column 9.
OBJECT_FORM: list[Any] = [  # rows: (fields, code, field, (line, column)), some marked
    ({"path": "missing.txt"}, "EP201", "path", (6, 15)),
    ({"path": "../outside.txt"}, "EP204", "path", (6, 15)),
    ({"path": "/etc/passwd", "lines": "1-2"}, "EP204", "path", (6, 15)),
    ({"path": "link.txt", "contains": "secret"}, "EP204", "path", (6, 15)),
    ({"path": "a.txt", "lines": "2-9"}, "EP202", "lines", (7, 16)),
    ({"path": "a.txt", "lines": "1-2", "contains": "gamma"}, "EP203", "contains", (8, 19)),
    ({"path": "a.txt", "contains": "delta"}, "EP203", "contains", (7, 19)),
    ({"path": "app/accounts.py", "symbol": "Accounts.creat"}, "EP206", "symbol", (7, 17)),
    ({"path": "app/accounts.py", "symbol": "plain", "contains": "return 2"}, "EP203", "contains", (8, 19)),
    ({"path": "docs", "lines": "1"}, "EP205", "lines", (7, 16)),
    ({"path": "data.bin", "lines": "1"}, "EP207", "path", (6, 15)),
    ({"path": "data.bin", "contains": "PNG"}, "EP207", "path", (6, 15)),
    ({"path": "a.txt", "line": "9"}, "EP202", "line", (7, 15)),
    ({"path": "docs", "contains": "x"}, "EP205", "contains", (7, 19)),
    ({"path": "docs", "symbol": "Guide"}, "EP205", "symbol", (7, 17)),
]


def object_yaml(fields: dict[str, str]) -> str:
    lines = []
    for n, (key, value) in enumerate(fields.items()):
        lead = "      - " if n == 0 else "        "
        lines.append(f"{lead}{key}: {json.dumps(value) if key in ('contains', 'path') and ' ' in value else value}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("fields", "code", "field", "where"), OBJECT_FORM,
                         ids=lambda v: v.get("path", "") + "/" + "+".join(v) if isinstance(v, dict) else None)
def test_object_form_code_and_field_location(std_repo: Path, fields: dict[str, str], code: str, field: str,
                                             where: tuple[int, int]) -> None:
    text = one_item_plan(object_yaml(fields))
    assert position_of(text, f"{field}: ")[0] == where[0]  # the table points at the field named
    result = compile_in(std_repo, text)
    assert rows(result.diagnostics) == [(code, "it", *where)]


def test_contains_messages_say_where_the_text_is(std_repo: Path) -> None:
    (std_repo / "b.txt").write_text("x\nneedle\ny\nneedle\n", encoding="utf-8")
    result = compile_in(std_repo, one_item_plan(
        "      - {path: a.txt, lines: 1-2, contains: gamma}\n"
        "      - {path: b.txt, lines: 1, contains: needle}\n"
        "      - {path: a.txt, lines: 1-3, contains: delta}\n"
        "      - {path: a.txt, contains: delta}\n"
        "      - {path: a.txt, lines: 2-3, contains: \"beta\\ngamma\"}\n"  # spans two lines: holds
        "      - {path: a.txt, lines: 2, contains: eta}\n"  # a part of the line: holds
    ))
    messages = [d.message for d in result.diagnostics]
    assert messages == [
        "it: 'gamma' is not in a.txt:1-2 (found at line 3)",
        "it: 'needle' is not in b.txt:1 (found at lines 2, 4)",
        "it: 'delta' is not in a.txt:1-3",
        "it: 'delta' is not in a.txt",
    ]
    assert [r[2] for r in rows(result.diagnostics)] == [6, 7, 8, 9]


def test_symbol_with_contains_checks_the_symbol_lines(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan(
        "      - {path: app/accounts.py, symbol: plain, contains: return 1}\n"
        "      - {path: app/accounts.py, symbol: plain, contains: return 3}\n"
    ))
    assert [d.message for d in result.diagnostics] == [
        "it: 'return 3' is not in app/accounts.py:7-8 (found at line 22)",
    ]


def test_valid_evidence_of_every_shape_is_ready(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan(
        "      - a.txt\n"
        "      - a.txt:3\n"
        "      - a.txt:1-3\n"
        "      - ./a.txt:2\n"
        "      - app/../a.txt:1\n"
        "      - docs\n"
        "      - docs/\n"
        "      - empty.txt\n"
        "      - data.bin\n"
        "      - app/accounts.py::Accounts.create\n"
        "      - docs/guide.md::Install steps\n"
        "      - {path: a.txt, line: 2, contains: beta}\n"
        "      - {path: app/accounts.py, symbol: decorated, contains: \"@functools.cache\"}\n"
        "      - https://example.com/spec\n"
    ))
    assert result.diagnostics == ()
    assert result.status == "ready"
    assert result.evidence_verified is True


def test_several_problems_in_one_item_are_all_reported(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan(
        "      - missing.txt\n"
        "      - a.txt:4\n"
        "      - /etc/passwd\n"
    ))
    assert rows(result.diagnostics) == [("EP201", "it", 6, 9), ("EP202", "it", 7, 9), ("EP204", "it", 8, 9)]


# --- did-you-mean ---------------------------------------------------------------------------------

SUGGEST_FILES: dict[str, str | bytes] = {
    "app/accounts.py": "x = 1\n",
    "README.md": "# R\n",
    "node_modules/pkg/vendored.js": "x\n",
    ".git/config": "[core]\n",
}


@pytest.mark.parametrize(("cited", "suggestion"), [
    ("App/Accounts.py", "app/accounts.py"),  # case differences
    ("readme.md", "README.md"),
    ("accounts.py", "app/accounts.py"),  # the same name elsewhere
    ("lib/accounts.py", "app/accounts.py"),
    ("app/acounts.py", "app/accounts.py"),  # close spelling
    ("app/accounts.pyy", "app/accounts.py"),
    ("zzz/qqq.bin", None),  # nothing close
    ("vendored.js", None),  # vendored trees are not searched
    ("config", None),  # nor .git
])
def test_missing_file_did_you_mean(tmp_path: Path, cited: str, suggestion: str | None) -> None:
    root = git_repo(tmp_path / "repo", SUGGEST_FILES)
    result = compile_in(root, one_item_plan(f"      - {cited}\n"))
    d = only(result, "EP201")
    base = f"it cites {cited}, but {cited} does not exist"
    assert d.message == (base if suggestion is None else f"{base} (did you mean {suggestion}?)")


# --- verification off, URLs -------------------------------------------------------------------------


def test_no_verification_reports_no_repository_problems(std_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Repository, path: str) -> Any:
        raise AssertionError("the repository was read with verify_evidence=False")

    monkeypatch.setattr(Repository, "_read", refuse)
    result = compile_in(std_repo, one_item_plan("      - missing.txt\n      - /etc/passwd\n      - a.txt:99\n"),
                        verify_evidence=False)
    assert result.diagnostics == ()
    assert result.evidence_verified is False
    assert result.status == "ready"


def test_only_urls_is_ep106_warning(std_repo: Path) -> None:
    text = one_item_plan("      - https://example.com/a\n      - {url: \"https://example.com/b\"}\n")
    result = compile_in(std_repo, text)
    assert rows(result.diagnostics) == [("EP106", "it", 6, 7)]
    d = result.diagnostics[0]
    assert d.severity == "warning"
    assert d.message == "it has no repository evidence: only external links"
    assert result.status == "ready"


def test_urls_next_to_a_repository_fact_are_fine(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan("      - https://example.com/a\n      - a.txt:1\n"))
    assert result.diagnostics == ()


# --- speed ------------------------------------------------------------------------------------------


CALLS_PER_ENTRY = 250


@pytest.mark.performance
def test_verification_is_fast(tmp_path: Path) -> None:
    """2,000 files, 4,000 evidence entries: verification costs a bounded number of calls an entry
    (tests/work.py; 150 measured: the file read once, its lines, its symbols, the pin), at most
    CALLS_PER_ENTRY. The time belongs to the benchmark (`verify`)."""
    root = git_repo(tmp_path / "repo")
    body = "".join(f"def f{k}():\n    return {k}\n\n" for k in range(20))
    for n in range(2000):
        folder = root / f"pkg{n % 40}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{n}.py").write_text(body, encoding="utf-8")
    items = []
    for n in range(2000):
        path = f"pkg{n % 40}/mod{n}.py"
        items.append({"id": f"i{n}", "change": "c", "proof": "pytest", "depends_on": [f"i{n - 1}"] if n else [],
                      "evidence": [f"{path}:{n % 60 + 1}",
                                   {"path": path, "symbol": f"f{n % 20}", "contains": f"return {n % 20}"}
                                   if n % 2 else f"{path}::f{n % 20}"]})
    plan = root / "plan.json"
    plan.write_text(json.dumps({"items": items}), encoding="utf-8")

    compile_plan(str(plan), verify_evidence=True)  # the imports, not counted
    unverified = count(lambda: compile_plan(str(plan), verify_evidence=False))
    verified = count(lambda: compile_plan(str(plan), verify_evidence=True))
    entries = sum(len(item.evidence) for item in verified.value.plan.items)
    assert entries == 4000
    assert unverified.value.status == verified.value.status == "ready", verified.value.diagnostics[:3]
    assert verified.calls - unverified.calls < CALLS_PER_ENTRY * entries, verified.top()


def test_when_no_cited_path_exists_one_hint_asks_whether_the_root_is_right(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "plan.yaml").write_text(
        "items:\n"
        "  - {id: a, change: c, evidence: [src/a.py:1, src/b.py], proof: p}\n"
        "  - {id: b, change: c, evidence: ['src/c.py::f'], proof: p}\n", encoding="utf-8")
    result = compile_plan(str(tmp_path / "plan.yaml"))
    assert rows(result.diagnostics) == [("EP201", "a", 2, 35), ("EP201", "a", 2, 47), ("EP201", "b", 3, 35)]
    hints = [d.hint for d in result.diagnostics]
    assert hints[1:] == [None, None]
    assert hints[0] == (f"none of the 3 cited paths exists under {os.path.realpath(tmp_path)}: is the root right?"
                        " (--root DIR, or the plan's root: key)")


def test_one_existing_path_is_enough_to_trust_the_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(
        "items:\n  - {id: a, change: c, evidence: [a.py:1, src/b.py, src/c.py], proof: p}\n", encoding="utf-8")
    result = compile_plan(str(tmp_path / "plan.yaml"))
    assert [(d.code, d.hint) for d in result.diagnostics] == [("EP201", None), ("EP201", None)]


def test_ep209_a_proof_that_runs_a_missing_script_is_located_at_the_proof(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "check.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(
        "items:\n"
        "  - {id: a, change: c, evidence: [tools/check.sh], proof: ./tools/check.sh}\n"
        "  - {id: b, change: c, evidence: [tools/check.sh], proof: ./tools/chek.sh}\n", encoding="utf-8")
    result = compile_plan(str(tmp_path / "plan.yaml"))
    assert rows(result.diagnostics) == [("EP209", "b", 3, 59)]
    assert result.diagnostics[0].message == ("b proof runs ./tools/chek.sh, but tools/chek.sh does not exist"
                                             " (did you mean tools/check.sh?); if the plan creates it, list it"
                                             " in the paths: of this item or of an item it depends on")
    assert compile_plan(str(tmp_path / "plan.yaml"), verify_evidence=False).diagnostics == ()
