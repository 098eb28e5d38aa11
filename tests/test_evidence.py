"""Evidence is checked against the repository (EP106, EP107, EP201-EP207, EP006).

Every repository fact a plan cites is verified offline, against a root found by a fixed order
(--root, then the plan's ``root:``, then the git work tree holding the plan, then the plan's
folder). These tests build small repositories in ``tmp_path`` (which is not inside a git
repository: the tests create ``.git`` themselves where discovery matters).
"""

from __future__ import annotations

import builtins
import io
import json
import os
import stat
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import compiler.repository as evidence_module
from compiler.checks.items import split_commands
from compiler.compile import CompileResult, compile_plan, find_root
from compiler.diagnostics import Diagnostic, PlanInputError
from compiler.emit import build_output
from compiler.repository import Repository

Row = tuple[str, str | None, int | None, int | None]
Within = Callable[[float, Callable[[], Any]], Any]  # the conftest fixture

# --- helpers ------------------------------------------------------------------------------------


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create ``files`` (relative path -> text or bytes) under ``root``; a path ending in ``/``
    is a folder. Returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        target = root / rel
        if rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def git_repo(root: Path, files: dict[str, str | bytes] | None = None) -> Path:
    """A folder that looks like a git work tree (a ``.git`` folder; git is never run)."""
    make_tree(root, files or {})
    (root / ".git").mkdir(exist_ok=True)
    return root


def write_plan(folder: Path, text: str, name: str = "plan.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def one_item_plan(evidence_yaml: str, proof: str = "pytest") -> str:
    """A plan with one item ``it``; its evidence list starts on line 6 (entries at column 7)."""
    return (
        "items:\n"
        "  - id: it\n"
        "    change: c\n"
        f"    proof: {proof}\n"
        "    evidence:\n"
        f"{evidence_yaml}"
    )


def rows(result: CompileResult) -> list[Row]:
    return [(d.code, d.item, d.location.line if d.location else None,
             d.location.column if d.location else None) for d in result.diagnostics]


def codes(result: CompileResult) -> list[str]:
    return [d.code for d in result.diagnostics]


def only(result: CompileResult, code: str) -> Diagnostic:
    found = [d for d in result.diagnostics if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in result.diagnostics]
    return found[0]


def position_of(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first occurrence of ``needle`` in ``text``."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


PY_SOURCE = '''\
import functools

LIMIT = 3
TIMEOUT: int = 5


def plain():
    return 1


@functools.cache
@functools.wraps(plain)
def decorated():
    return 2


class Accounts:
    kind = "user"

    @property
    def create(self):
        return 3

    class Inner:
        def deep(self):
            pass


async def fetch():
    def local():
        pass
    return local
'''

# The standard repository of the code tables: root ``repo`` (a git work tree), with a file
# ``outside.txt`` next to it and a symlink ``link.txt`` inside it that leads there.
STANDARD_FILES: dict[str, str | bytes] = {
    "a.txt": "alpha\nbeta\ngamma\n",
    "empty.txt": "",
    "app/accounts.py": PY_SOURCE,
    "docs/guide.md": "# Guide\n\n## Install steps\n",
    "data.bin": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
}


@pytest.fixture
def std_repo(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "repo", STANDARD_FILES)
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    return root


def compile_in(root: Path, plan_text: str, **kwargs: Any) -> CompileResult:
    return compile_plan(str(write_plan(root, plan_text)), **kwargs)


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


class OpenRecorder:
    """Records every path opened through builtins.open, io.open, os.open and pathlib."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real_open = builtins.open
        real_os_open = os.open
        real_read_bytes = Path.read_bytes
        real_read_text = Path.read_text
        real_path_open = Path.open
        recorder = self

        def record(target: Any) -> None:
            if isinstance(target, (str, bytes, os.PathLike)):
                recorder.paths.append(os.path.realpath(os.fsdecode(target)))

        def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
            record(file)
            return real_open(file, *args, **kwargs)

        def fake_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
            record(path)
            return real_os_open(path, *args, **kwargs)

        def fake_read_bytes(self: Path) -> bytes:
            record(self)
            return real_read_bytes(self)

        def fake_read_text(self: Path, *args: Any, **kwargs: Any) -> str:
            record(self)
            return real_read_text(self, *args, **kwargs)

        def fake_path_open(self: Path, *args: Any, **kwargs: Any) -> Any:
            record(self)
            return real_path_open(self, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", fake_open)
        monkeypatch.setattr(io, "open", fake_open)
        monkeypatch.setattr(os, "open", fake_os_open)
        monkeypatch.setattr(Path, "read_bytes", fake_read_bytes)
        monkeypatch.setattr(Path, "read_text", fake_read_text)
        monkeypatch.setattr(Path, "open", fake_path_open)

    def outside(self, root: Path) -> list[str]:
        base = os.path.realpath(root)
        return [p for p in self.paths if p != base and not p.startswith(base + os.sep)]


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
    assert rows(result) == [(code, "it", 6, 9)]
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
    assert rows(result) == [(code, "it", *where)]


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
    assert [r[2] for r in rows(result)] == [6, 7, 8, 9]


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
    assert rows(result) == [("EP201", "it", 6, 9), ("EP202", "it", 7, 9), ("EP204", "it", 8, 9)]


def test_symlink_inside_the_root_is_followed(std_repo: Path) -> None:
    (std_repo / "alias.txt").symlink_to(std_repo / "a.txt")
    (std_repo / "app_link").symlink_to(std_repo / "app")
    (std_repo / "out_dir").symlink_to(std_repo.parent)
    result = compile_in(std_repo, one_item_plan(
        "      - alias.txt:3\n"
        "      - app_link/accounts.py::plain\n"
        "      - out_dir/outside.txt\n"
        "      - out_dir\n"
    ))
    assert rows(result) == [("EP204", "it", 8, 9), ("EP204", "it", 9, 9)]


def test_dangling_symlink_and_symlink_loop(std_repo: Path) -> None:
    (std_repo / "dangling.txt").symlink_to(std_repo / "nowhere.txt")
    (std_repo / "loop_a").symlink_to(std_repo / "loop_b")
    (std_repo / "loop_b").symlink_to(std_repo / "loop_a")
    result = compile_in(std_repo, one_item_plan("      - dangling.txt\n      - loop_a\n"))
    assert [r[0] for r in rows(result)] == ["EP201", "EP207"]


# --- root discovery -------------------------------------------------------------------------------

SIMPLE_ITEMS = """\
items:
  - id: a
    change: c
    proof: pytest
    evidence: [marker.txt]
"""


def same(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """outer/ is a git work tree holding inner/plan.yaml (root: ../sub); other/ is elsewhere."""
    outer = git_repo(tmp_path / "outer", {"marker.txt": "git\n"})
    sub = make_tree(outer / "sub", {"marker.txt": "root key\n"})
    inner = make_tree(outer / "inner", {"marker.txt": "folder\n"})
    other = make_tree(tmp_path / "other", {"marker.txt": "flag\n"})
    with_key = write_plan(inner, "root: ../sub\n" + SIMPLE_ITEMS, "with-key.yaml")
    without_key = write_plan(inner, SIMPLE_ITEMS, "without-key.yaml")
    nogit = make_tree(tmp_path / "nogit", {"marker.txt": "plain folder\n"})
    loose = write_plan(nogit, SIMPLE_ITEMS)
    return {"outer": outer, "sub": sub, "inner": inner, "other": other, "with_key": with_key,
            "without_key": without_key, "nogit": nogit, "loose": loose}


def test_root_flag_beats_root_key(layout: dict[str, Path]) -> None:
    result = compile_plan(str(layout["with_key"]), root=str(layout["other"]))
    assert same(result.root, layout["other"])
    assert result.status == "ready"


def test_root_key_beats_git(layout: dict[str, Path]) -> None:
    assert same(compile_plan(str(layout["with_key"])).root, layout["sub"])


def test_git_beats_plan_folder(layout: dict[str, Path]) -> None:
    assert same(compile_plan(str(layout["without_key"])).root, layout["outer"])


def test_plan_folder_when_no_git(layout: dict[str, Path]) -> None:
    assert same(compile_plan(str(layout["loose"])).root, layout["nogit"])


def test_nearest_git_wins(layout: dict[str, Path]) -> None:
    nested = git_repo(layout["outer"] / "vendor" / "lib", {"marker.txt": "nested\n"})
    plan = write_plan(nested / "deep" / "er", SIMPLE_ITEMS)
    assert same(compile_plan(str(plan)).root, nested)


def test_git_file_marks_a_worktree(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "worktree", {"marker.txt": "x\n", ".git": "gitdir: /elsewhere/.git/worktrees/w\n"})
    plan = write_plan(tree / "plans", SIMPLE_ITEMS)
    result = compile_plan(str(plan))
    assert same(result.root, tree)
    assert result.status == "ready"


def test_git_is_never_run(layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a process was started: {args!r}")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "system", refuse)
    assert same(compile_plan(str(layout["without_key"])).root, layout["outer"])


def test_root_flag_is_relative_to_the_working_folder(layout: dict[str, Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert same(compile_plan(str(layout["with_key"]), root="other").root, layout["other"])


def test_root_key_is_relative_to_the_plan_not_the_working_folder(layout: dict[str, Path],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(layout["other"])
    assert same(compile_plan(str(layout["with_key"])).root, layout["sub"])
    monkeypatch.chdir(layout["inner"])
    assert same(compile_plan("with-key.yaml").root, layout["sub"])


def test_evidence_is_resolved_against_the_root(layout: dict[str, Path]) -> None:
    (layout["outer"] / "only-at-git-root.txt").write_text("x\n", encoding="utf-8")
    plan = write_plan(layout["inner"], SIMPLE_ITEMS.replace("marker.txt", "only-at-git-root.txt"), "p.yaml")
    assert compile_plan(str(plan)).status == "ready"
    blocked = compile_plan(str(plan), root=str(layout["other"]))
    assert codes(blocked) == ["EP201"]


@pytest.mark.parametrize("how", ["flag-missing", "flag-file", "key-missing", "key-file"])
def test_root_that_is_not_a_folder_is_ep006(layout: dict[str, Path], how: str) -> None:
    (layout["inner"] / "a-file").write_text("x\n", encoding="utf-8")
    target = "nowhere" if how.endswith("missing") else "a-file"
    root: str | None = None
    if how.startswith("flag"):
        plan, root = layout["without_key"], str(layout["inner"] / target)
    else:
        plan = write_plan(layout["inner"], f"root: {target}\n" + SIMPLE_ITEMS, "bad-root.yaml")
    with pytest.raises(PlanInputError) as info:
        compile_plan(str(plan), root=root)
    d = info.value.diagnostic
    assert d.code == "EP006"
    assert d.input_error
    assert "is not a folder" in d.message
    assert target in d.message
    assert d.location is not None and d.location.file == str(plan)
    # The plan's root: is pointed at; --root is no place in the plan.
    assert (d.location.line, d.location.column) == ((1, 7) if how.startswith("key") else (None, None))


def test_find_root_directly(layout: dict[str, Path]) -> None:
    name = str(layout["without_key"])
    assert same(find_root(name, None, None, name).path, layout["outer"])
    assert same(find_root(name, "../sub", None, name).path, layout["sub"])
    assert same(find_root(name, "../sub", str(layout["other"]), name).path, layout["other"])


def test_json_root_is_relative(layout: dict[str, Path], tmp_path: Path) -> None:
    result = compile_plan(str(layout["without_key"]))
    for out_dir, expected in [(layout["inner"], ".."), (layout["outer"], "."),
                              (tmp_path / "build", "../outer")]:
        document = build_output(result, out_dir)
        assert document["root"] == expected
        assert not os.path.isabs(document["root"])
        assert document["evidence_verified"] is True
    text = json.dumps(build_output(result, layout["inner"]))
    assert str(tmp_path) not in text  # no absolute path anywhere in the output


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


# --- symbols --------------------------------------------------------------------------------------


def symbol_lines(root: Path, path: str, symbol: str) -> str | None:
    """The compiled JSON's resolved_lines for ``path::symbol``, or None (asserting no other issue)."""
    result = compile_in(root, one_item_plan(f"      - {path}::{symbol}\n"))
    entry = build_output(result, root)["items"][0]["evidence"][0]
    if result.diagnostics:
        assert codes(result) == ["EP206"]
        assert "resolved_lines" not in entry
        return None
    lines: str = entry["resolved_lines"]
    return lines


@pytest.mark.parametrize(("symbol", "lines"), [
    ("LIMIT", "3-3"),  # module-level assignment
    ("TIMEOUT", "4-4"),  # annotated assignment
    ("plain", "7-8"),
    ("decorated", "11-14"),  # the decorators are part of the range
    ("Accounts", "17-26"),
    ("Accounts.kind", "18-18"),  # class-level assignment
    ("Accounts.create", "20-22"),  # method (with its decorator)
    ("Accounts.Inner", "24-26"),
    ("Accounts.Inner.deep", "25-26"),
    ("fetch", "29-32"),  # async def
    ("local", None),  # a local function is not a definition of the module
    ("fetch.local", None),
    ("create", None),  # a method is named with its class
    ("Nope", None),
])
def test_python_symbols(std_repo: Path, symbol: str, lines: str | None) -> None:
    assert symbol_lines(std_repo, "app/accounts.py", symbol) == lines


def test_python_symbol_table_matches_the_source() -> None:
    lines = PY_SOURCE.splitlines()
    assert lines[10] == "@functools.cache" and lines[12] == "def decorated():"
    assert lines[16] == "class Accounts:" and lines[19] == "    @property"
    symbols = evidence_module.python_symbols(PY_SOURCE)
    assert symbols is not None
    assert symbols["decorated"] == (11, 14)
    assert "fetch.local" not in symbols and "local" not in symbols


def test_symbol_did_you_mean(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan("      - app/accounts.py::decorate\n"
                                                "      - app/accounts.py::Accounts.Iner.deep\n"
                                                "      - app/accounts.py::qqqqqqqq\n"))
    assert [d.message for d in result.diagnostics] == [
        "it cites app/accounts.py::decorate, but app/accounts.py defines no decorate (did you mean decorated?)",
        "it cites app/accounts.py::Accounts.Iner.deep, but app/accounts.py defines no Accounts.Iner.deep"
        " (did you mean Accounts.Inner.deep?)",
        "it cites app/accounts.py::qqqqqqqq, but app/accounts.py defines no qqqqqqqq",
    ]


def test_symbol_with_contains_checks_the_symbol_lines(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan(
        "      - {path: app/accounts.py, symbol: plain, contains: return 1}\n"
        "      - {path: app/accounts.py, symbol: plain, contains: return 3}\n"
    ))
    assert [d.message for d in result.diagnostics] == [
        "it: 'return 3' is not in app/accounts.py:7-8 (found at line 22)",
    ]


BROKEN_PY = "def ok():\n    pass\n\nclass Broken(:\n    def method(self):\n        pass\n"


def test_python_that_does_not_parse_falls_back_to_the_heuristic(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"bad.py": BROKEN_PY})
    assert evidence_module.python_symbols(BROKEN_PY) is None
    # A top-level definition that parses on its own may get its full range from the parser
    # (1-2); the heuristic alone gives its one line (1-1). Either way it starts at line 1.
    assert (symbol_lines(root, "bad.py", "ok") or "").startswith("1-")
    assert symbol_lines(root, "bad.py", "Broken") == "4-4"
    assert symbol_lines(root, "bad.py", "method") == "5-5"
    assert symbol_lines(root, "bad.py", "missing") is None


def test_python_that_does_not_parse_dotted_name_falls_back_to_last_component(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"bad.py": BROKEN_PY})
    assert symbol_lines(root, "bad.py", "Broken.method") == "5-5"


HEURISTIC_FILES: dict[str, str | bytes] = {
    "web/app.js": (
        "import x from 'x';\n"
        "export default function render(props) {\n"
        "  return props;\n"
        "}\n"
        "export const LIMIT = 3;\n"
        "class Widget extends Base {\n"
        "  method() {}\n"
        "}\n"
        "async function load() {}\n"
        "let count = 0;\n"
    ),
    "srv/main.go": (
        "package main\n"
        "\n"
        "type Server struct {\n"
        "}\n"
        "\n"
        "func (s *Server) Serve() error {\n"
        "\treturn nil\n"
        "}\n"
        "\n"
        "func main() {\n"
        "}\n"
    ),
    "core/lib.rs": (
        "pub struct Config {\n"
        "}\n"
        "impl Config {\n"
        "    pub(crate) fn parse() {}\n"
        "}\n"
        "enum Mode {}\n"
        "trait Run {}\n"
    ),
    "docs/guide.md": "# Guide\n\nText.\n\n## Install steps\n\n### FAQ ###\n",
    "conf/settings.toml": "name = \"x\"\nversion = \"1\"\n",
}


@pytest.mark.parametrize(("path", "symbol", "lines"), [
    ("web/app.js", "render", "2-2"),
    ("web/app.js", "LIMIT", "5-5"),
    ("web/app.js", "Widget", "6-6"),
    ("web/app.js", "load", "9-9"),
    ("web/app.js", "count", "10-10"),
    ("web/app.js", "Widget.render", "2-2"),  # dotted: the last component
    ("web/app.js", "rendr", None),
    ("srv/main.go", "Server", "3-3"),
    ("srv/main.go", "Serve", "6-6"),  # a method with a receiver
    ("srv/main.go", "Server.Serve", "6-6"),
    ("srv/main.go", "main", "10-10"),
    ("core/lib.rs", "Config", "1-1"),  # the first definition-looking line wins
    ("core/lib.rs", "parse", "4-4"),  # pub(crate) fn
    ("core/lib.rs", "Config.parse", "4-4"),
    ("core/lib.rs", "Mode", "6-6"),
    ("core/lib.rs", "Run", "7-7"),
    ("docs/guide.md", "Guide", "1-1"),
    ("docs/guide.md", "Install steps", "5-5"),
    ("docs/guide.md", "FAQ", "7-7"),
    ("docs/guide.md", "Text", None),
    ("conf/settings.toml", "version", "2-2"),
])
def test_heuristic_symbols(tmp_path: Path, path: str, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", HEURISTIC_FILES)
    assert symbol_lines(root, path, symbol) == lines


def test_symbol_lookup_agrees_with_a_full_parse(std_repo: Path) -> None:
    """Whatever shortcut finds a symbol, it finds what parsing the whole module finds."""
    symbols = evidence_module.python_symbols(PY_SOURCE)
    assert symbols is not None and len(symbols) >= 9
    repo = Repository(std_repo)
    assert {name: repo.symbol("app/accounts.py", name) for name in symbols} == symbols


MULTILINE_DECORATOR_PY = """\
import app


@app.route(
    "/x",
    methods=["GET"],
)
def view():
    return 1


@app.one
@app.two(
    1,
)
class Kept:
    pass
"""


def test_multiline_decorators_are_part_of_the_range(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"deco.py": MULTILINE_DECORATOR_PY})
    assert evidence_module.python_symbols(MULTILINE_DECORATOR_PY) == {"view": (4, 9), "Kept": (12, 17)}
    assert symbol_lines(root, "deco.py", "view") == "4-9"
    assert symbol_lines(root, "deco.py", "Kept") == "12-17"


STRING_DEFINITION_PY = '''\
TEMPLATE = """
def fake():
    pass
"""


def fake():
    return 2
'''


def test_definition_inside_a_string_is_not_a_symbol(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"tmpl.py": STRING_DEFINITION_PY})
    assert (evidence_module.python_symbols(STRING_DEFINITION_PY) or {}).get("fake") == (7, 8)
    assert symbol_lines(root, "tmpl.py", "fake") == "7-8"


STRAY_QUOTES_PY = '''\
QUOTES = '"""'
"""
def fake():
    pass
"""


def fake():
    return 2
'''


def test_triple_quote_inside_an_ordinary_string_does_not_fool_symbols(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"quotes.py": STRAY_QUOTES_PY})
    assert (evidence_module.python_symbols(STRAY_QUOTES_PY) or {}).get("fake") == (8, 9)
    assert symbol_lines(root, "quotes.py", "fake") == "8-9"


def test_heuristic_did_you_mean(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", HEURISTIC_FILES)
    result = compile_in(root, one_item_plan("      - web/app.js::rendr\n"))
    assert only(result, "EP206").message == (
        "it cites web/app.js::rendr, but web/app.js defines no rendr (did you mean render?)")


def test_resolved_lines_only_for_symbols_and_only_when_verified(std_repo: Path) -> None:
    plan = one_item_plan(
        "      - app/accounts.py::Accounts.create\n"
        "      - a.txt:2\n"
        "      - {path: app/accounts.py, symbol: decorated, contains: \"@functools.cache\"}\n"
    )
    result = compile_in(std_repo, plan)
    evidence = build_output(result, std_repo)["items"][0]["evidence"]
    assert evidence == [
        {"path": "app/accounts.py", "symbol": "Accounts.create", "resolved_lines": "20-22"},
        {"path": "a.txt", "line": 2},
        {"path": "app/accounts.py", "symbol": "decorated", "contains": "@functools.cache",
         "resolved_lines": "11-14"},
    ]
    unverified = compile_in(std_repo, plan, verify_evidence=False)
    document = build_output(unverified, std_repo)
    assert document["evidence_verified"] is False
    assert all("resolved_lines" not in ev for ev in document["items"][0]["evidence"])


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
    assert rows(result) == [("EP106", "it", 6, 7)]
    d = result.diagnostics[0]
    assert d.severity == "warning"
    assert d.message == "it has no repository evidence: only external links"
    assert result.status == "ready"


def test_urls_next_to_a_repository_fact_are_fine(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan("      - https://example.com/a\n      - a.txt:1\n"))
    assert result.diagnostics == ()


# --- reading: once, binary, empty, CRLF, streaming, special files ---------------------------------


def test_each_file_is_read_once(std_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    real_read = Repository._read

    def counting(self: Repository, path: str) -> Any:
        reads.append(path)
        return real_read(self, path)

    monkeypatch.setattr(Repository, "_read", counting)
    recorder = OpenRecorder(monkeypatch)
    shapes = ["app/accounts.py:{n}", "./app/accounts.py:2-{n}", "app/accounts.py::Accounts.create",
              "{{path: app/accounts.py, lines: 1-{n}, contains: import}}",
              "{{path: app/accounts.py, symbol: plain, contains: return 1}}"]
    body = ["items:"]
    for n in range(1, 51):
        body += [f"  - id: item-{n}", "    change: c", "    proof: pytest",
                 f"    evidence: [{shapes[n % len(shapes)].format(n=min(max(n, 2), 30))}]"]
    plan = write_plan(std_repo, "\n".join(body) + "\n")
    result = compile_plan(str(plan))
    monkeypatch.undo()
    assert result.diagnostics == ()
    assert reads == ["app/accounts.py"]
    target = os.path.realpath(std_repo / "app" / "accounts.py")
    assert recorder.paths.count(target) == 1


@pytest.mark.parametrize(("content", "count"), [
    (b"", 0),
    (b"a", 1),
    (b"a\n", 1),
    (b"\n", 1),
    (b"\n\n", 2),
    (b"a\nb", 2),
    (b"a\nb\n", 2),
    (b"a\r\nb\r\n", 2),
    (b"a\r\nb", 2),
    (b"a\r\n\r\n", 2),
    (b"caf\xc3\xa9\n\xff\xfe bad utf-8\n", 2),
])
@pytest.mark.parametrize("streamed", [False, True])
def test_line_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, count: int,
                     streamed: bool) -> None:
    if streamed:
        monkeypatch.setattr(evidence_module, "MAX_TEXT_BYTES", -1)
    root = git_repo(tmp_path / "repo", {"f.txt": content})
    facts = Repository(root).facts("f.txt")
    assert (facts.kind, facts.binary, facts.line_count) == ("file", False, count)
    assert (facts.lines is None) == (streamed and bool(content))  # an empty file has nothing to map
    plan = one_item_plan(f"      - f.txt:{count + 1}\n" + (f"      - f.txt:{count}\n" if count else ""))
    result = compile_in(root, plan)
    noun = "line" if count == 1 else "lines"
    assert [d.message for d in result.diagnostics] == [f"it cites f.txt:{count + 1}, but f.txt has {count} {noun}"]


@pytest.mark.parametrize("streamed", [False, True])
def test_crlf_contains_and_symbols(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool) -> None:
    if streamed:
        monkeypatch.setattr(evidence_module, "MAX_TEXT_BYTES", 8)
    source = b"import os\r\n\r\ndef handler(event):\r\n    return event\r\n\r\nclass Box:\r\n    size = 2\r\n"
    root = git_repo(tmp_path / "repo", {"crlf.py": source})
    result = compile_in(root, one_item_plan(
        "      - crlf.py:7\n"
        "      - {path: crlf.py, lines: 3-4, contains: \"event):\\n    return event\"}\n"
        "      - {path: crlf.py, symbol: handler, contains: \"return event\"}\n"
        "      - {path: crlf.py, lines: 1, contains: size}\n"
        "      - crlf.py:8\n"
    ))
    symbol_in_a_large_file = [
        "it cites crlf.py::handler, but crlf.py is too large to search for symbols (over 0 MiB): cite its lines",
    ]
    assert [d.message for d in result.diagnostics] == [
        *(symbol_in_a_large_file if streamed else []),
        "it: 'size' is not in crlf.py:1 (found at line 7)",
        "it cites crlf.py:8, but crlf.py has 7 lines",
    ]
    if not streamed:
        document = build_output(result, root)
        assert document["items"][0]["evidence"][2]["resolved_lines"] == "3-4"


def test_binary_files_are_evidence_as_a_whole_only(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan(
        "      - data.bin\n"
        "      - data.bin:1\n"
        "      - data.bin::main\n"
        "      - {path: data.bin, contains: PNG}\n"
    ))
    assert rows(result) == [("EP207", "it", 7, 9), ("EP207", "it", 8, 9), ("EP207", "it", 9, 16)]
    facts = Repository(std_repo).facts("data.bin")
    assert facts.binary and facts.lines is None


def test_binary_detected_when_streamed(std_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evidence_module, "MAX_TEXT_BYTES", 4)
    result = compile_in(std_repo, one_item_plan("      - data.bin\n      - data.bin:1\n"))
    assert codes(result) == ["EP207"]


def test_empty_file(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan(
        "      - empty.txt\n"
        "      - empty.txt:1\n"
        "      - {path: empty.txt, contains: x}\n"
        "      - empty.txt::main\n"
    ))
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("EP202", "it cites empty.txt:1, but empty.txt has 0 lines"),
        ("EP203", "it: 'x' is not in empty.txt"),
        ("EP206", "it cites empty.txt::main, but empty.txt defines no main"),
    ]


@pytest.fixture
def big_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 200-line file well above a lowered MAX_TEXT_BYTES: it is streamed."""
    monkeypatch.setattr(evidence_module, "MAX_TEXT_BYTES", 256)
    text = "".join(f"# row {n:04d}\n" for n in range(1, 201)) + "def tail():\n    return 'end'"
    return git_repo(tmp_path / "repo", {"big.py": text})


def test_large_files_are_streamed_not_held(big_repo: Path) -> None:
    facts = Repository(big_repo).facts("big.py")
    assert facts.size > evidence_module.MAX_TEXT_BYTES
    assert facts.lines is None
    assert facts.line_count == 202  # no final newline: the last line still counts


def test_large_file_checks(big_repo: Path) -> None:
    result = compile_in(big_repo, one_item_plan(
        "      - big.py:202\n"
        "      - big.py:150-202\n"
        "      - big.py:203\n"
        "      - big.py:200-203\n"
        "      - {path: big.py, lines: 150, contains: row 0150}\n"
        "      - {path: big.py, lines: 10-12, contains: row 0150}\n"
        "      - {path: big.py, contains: row 0199}\n"
        "      - {path: big.py, contains: row 9999}\n"
        "      - big.py::tail\n"
        "      - {path: big.py, symbol: tail, contains: \"return 'end'\"}\n"
        "      - big.py::head\n"
    ))
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("EP202", "it cites big.py:203, but big.py has 202 lines"),
        ("EP202", "it cites big.py:200-203, but big.py has 202 lines"),
        ("EP203", "it: 'row 0150' is not in big.py:10-12 (found at line 150)"),
        ("EP203", "it: 'row 9999' is not in big.py"),
        # Symbols are not looked up in files over MAX_TEXT_BYTES (documented): cite their lines.
        *[("EP207", f"it cites big.py::{name}, but big.py is too large to search for symbols (over 0 MiB):"
                    " cite its lines") for name in ("tail", "tail", "head")],
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_never_opened(std_repo: Path, within: Within) -> None:
    os.mkfifo(std_repo / "pipe")
    plan = write_plan(std_repo, one_item_plan(
        "      - pipe\n"
        "      - pipe:1\n"
        "      - {path: pipe, contains: x}\n"
        "      - pipe::main\n"
    ))
    started = time.monotonic()
    result = within(5, lambda: compile_plan(str(plan)))
    assert time.monotonic() - started < 5
    assert rows(result) == [("EP207", "it", 6, 9), ("EP207", "it", 7, 9), ("EP207", "it", 8, 16),
                            ("EP207", "it", 9, 9)]
    assert all("pipe cannot be read: is not a regular file" in d.message for d in result.diagnostics)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_nearby_does_not_block_suggestions(std_repo: Path, within: Within) -> None:
    os.mkfifo(std_repo / "pipe")
    plan = write_plan(std_repo, one_item_plan("      - pipes\n"))
    result = within(5, lambda: compile_plan(str(plan)))
    assert only(result, "EP201").message == "it cites pipes, but pipes does not exist (did you mean pipe?)"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs POSIX permissions and a non-root user (root reads anything)")
def test_permission_denied_is_ep207(std_repo: Path) -> None:
    secret = std_repo / "secret.txt"
    secret.write_text("x\n", encoding="utf-8")
    secret.chmod(0)
    try:
        result = compile_in(std_repo, one_item_plan("      - secret.txt:1\n"))
    finally:
        secret.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert rows(result) == [("EP207", "it", 6, 9)]
    assert "Permission denied" in result.diagnostics[0].message


def test_permission_denied_is_ep207_simulated(std_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same rule as root can see it: open() (and os.open, which evidence uses) refuses the file."""
    denied = os.path.realpath(std_repo / "a.txt")
    real_open = builtins.open
    real_os_open = os.open

    def refusing_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == denied:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    def refusing_os_open(file: Any, *args: Any, **kwargs: Any) -> int:
        if isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == denied:
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, *args, **kwargs)

    plan = write_plan(std_repo, one_item_plan("      - a.txt:1\n      - {path: a.txt, contains: beta}\n"))
    monkeypatch.setattr(builtins, "open", refusing_open)
    monkeypatch.setattr(os, "open", refusing_os_open)
    result = compile_plan(str(plan))
    monkeypatch.undo()
    assert rows(result) == [("EP207", "it", 6, 9), ("EP207", "it", 7, 16)]
    assert result.diagnostics[0].message == "it cites a.txt:1, but a.txt cannot be read: Permission denied"


def test_streamed_file_cited_by_lines_is_opened_once(big_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = ["items:"]
    for n in range(1, 51):
        body += [f"  - id: item-{n}", "    change: c", "    proof: pytest", f"    evidence: [big.py:{n}-{n + 100}]"]
    plan = write_plan(big_repo, "\n".join(body) + "\n")
    assert Repository(big_repo).facts("big.py").lines is None  # streamed
    recorder = OpenRecorder(monkeypatch)
    result = compile_plan(str(plan))
    monkeypatch.undo()
    assert result.diagnostics == ()
    assert recorder.paths.count(os.path.realpath(big_repo / "big.py")) == 1


def test_streamed_file_cited_with_contains_is_opened_once(big_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = ["items:"]
    for n in range(1, 21):
        body += [f"  - id: item-{n}", "    change: c", "    proof: pytest",
                 f"    evidence: [{{path: big.py, lines: {n}, contains: row {n:04d}}}]"]
    plan = write_plan(big_repo, "\n".join(body) + "\n")
    recorder = OpenRecorder(monkeypatch)
    result = compile_plan(str(plan))
    monkeypatch.undo()
    assert result.diagnostics == ()
    assert recorder.paths.count(os.path.realpath(big_repo / "big.py")) == 1


@pytest.mark.parametrize("streamed", [False, True])
def test_dotted_paths_through_symlinks_never_open_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          streamed: bool) -> None:
    """`ol/../big.txt` is normalized to `big.txt` inside the root; the operating system would
    resolve it through the symlink `ol` to a file outside. Either way, no outside file is opened,
    and paths whose folders do not exist never crash the streamed reader."""
    if streamed:
        monkeypatch.setattr(evidence_module, "MAX_TEXT_BYTES", 16)
    root = git_repo(tmp_path / "repo", {"big.txt": "".join(f"row {n}\n" for n in range(100))})
    outdir = make_tree(tmp_path / "outdir", {"big.txt": "SECRET\n" * 100})
    (root / "ol").symlink_to(outdir)
    plan = write_plan(root, one_item_plan(
        "      - {path: ol/../big.txt, contains: SECRET}\n"
        "      - {path: nothere/../big.txt, contains: row 5}\n"
        "      - {path: ./big.txt, lines: 7, contains: row 6}\n"
        "      - ol/big.txt\n"
    ))
    compile_plan(str(plan), verify_evidence=False)  # warm up lazy imports
    recorder = OpenRecorder(monkeypatch)
    result = compile_plan(str(plan))
    monkeypatch.undo()
    assert recorder.outside(root) == []
    assert [d.code for d in result.diagnostics] == ["EP203", "EP204"]


def test_stdin_plan_finds_the_root_from_the_working_folder(layout: dict[str, Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(layout["inner"])
    result = compile_plan("-", stdin=io.BytesIO(SIMPLE_ITEMS.encode()))
    assert same(result.root, layout["outer"])
    assert result.status == "ready"
    assert build_output(result, layout["inner"])["root"] == ".."


def test_cli_root_option_and_bad_root(layout: dict[str, Path]) -> None:
    from click.testing import CliRunner

    from compiler.cli import cli

    runner = CliRunner()
    plan = str(layout["without_key"])
    assert runner.invoke(cli, ["check", plan]).exit_code == 0  # the git root has marker.txt
    (layout["other"] / "marker.txt").unlink()
    missing = runner.invoke(cli, ["check", "--root", str(layout["other"]), plan])
    assert missing.exit_code == 1
    assert "EP201" in missing.output
    assert runner.invoke(cli, ["check", "--no-verify-evidence", "--root", str(layout["other"]), plan]).exit_code == 0
    bad = runner.invoke(cli, ["check", "--root", str(layout["inner"] / "nowhere"), plan])
    assert bad.exit_code == 2
    assert "EP006" in bad.output


# --- compound proofs (EP107) ----------------------------------------------------------------------

SPLIT_TABLE: list[tuple[str, list[str]]] = [
    ("pytest -q", ["pytest -q"]),
    ("", []),
    ("   ", []),
    ("make && make test", ["make", "make test"]),
    ("a; b", ["a", "b"]),
    ("a || b", ["a", "b"]),
    ("a\nb", ["a", "b"]),
    ("a && b; c || d", ["a", "b", "c", "d"]),
    ("a &&\n  b", ["a", "b"]),
    ("pytest | tee log.txt", ["pytest | tee log.txt"]),  # a pipeline is one command
    ("pytest 2>&1 | tee log", ["pytest 2>&1 | tee log"]),
    ("echo 'a && b'", ["echo 'a && b'"]),
    ('echo "a; b || c"', ['echo "a; b || c"']),
    ("python -c 'import x; x.run()'", ["python -c 'import x; x.run()'"]),
    ("echo $(a && b)", ["echo $(a && b)"]),
    ("echo $(printf '%s' ')'; b)", ["echo $(printf '%s' ')'; b)"]),
    ("echo $((1 + 2)); b", ["echo $((1 + 2))", "b"]),
    ("echo `a; b`", ["echo `a; b`"]),
    ("echo a \\; b", ["echo a \\; b"]),
    ("echo a \\&\\& b", ["echo a \\&\\& b"]),
    ("echo \"it's\" && b", ["echo \"it's\"", "b"]),
    ("echo 'a\\' && b", ["echo 'a\\'", "b"]),  # no escapes inside single quotes
    ('echo "a \\" && b" && c', ['echo "a \\" && b"', "c"]),
    ("a;", ["a"]),
    ("a\r\nb", ["a", "b"]),
]


@pytest.mark.parametrize(("proof", "commands"), SPLIT_TABLE, ids=[repr(p) for p, _ in SPLIT_TABLE])
def test_split_commands(proof: str, commands: list[str]) -> None:
    assert split_commands(proof) == commands


@pytest.mark.parametrize(("proof_yaml", "warned", "message"), [
    ("pytest -q", False, None),
    ("pytest | tee log", False, None),
    ("\"pytest -k 'a and b'\"", False, None),
    ("make && make test", True, "it proof runs 2 commands (make && make test)"),
    ("\"a; b\"", True, "it proof runs 2 commands (a; b)"),
    ("[make, make test]", True, "it proof is a list of 2 commands"),
    ("[make test]", False, None),
    ("[\"a || b\"]", True, "it proof runs 2 commands (a || b)"),
    ("|\n      make\n      make test", True, None),
])
def test_compound_proof_through_compile(std_repo: Path, proof_yaml: str, warned: bool, message: str | None) -> None:
    text = one_item_plan("      - a.txt\n", proof=proof_yaml)
    result = compile_in(std_repo, text)
    assert result.status == "ready"  # a warning never blocks
    found = [d for d in result.diagnostics if d.code == "EP107"]
    assert len(found) == int(warned)
    assert len(result.diagnostics) == len(found)
    if warned:
        d = found[0]
        assert (d.item, d.severity, d.location.line if d.location else None) == ("it", "warning", 4)
        assert d.message.endswith(": split the item, one proof each")
        if message is not None:
            assert d.message.startswith(message)


def test_proof_list_is_joined_in_the_output(std_repo: Path) -> None:
    text = one_item_plan("      - a.txt\n", proof="\n      - make\n      - make test")
    result = compile_in(std_repo, text)
    assert result.plan.items[0].proof == "make && make test"
    assert build_output(result, std_repo)["items"][0]["proof"] == "make && make test"
    assert rows(result) == [("EP107", "it", 5, 7)]


# --- speed ------------------------------------------------------------------------------------------


@pytest.mark.performance
def test_verification_is_fast(tmp_path: Path) -> None:
    """2,000 files, 4,000 evidence entries: verification costs well under two seconds. Generous
    on purpose (a noisy 2-core machine); the real measurement belongs to the benchmark."""
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

    def timed(verify: bool) -> tuple[float, CompileResult]:
        started = time.perf_counter()
        result = compile_plan(str(plan), verify_evidence=verify)
        return time.perf_counter() - started, result

    unverified_time, unverified = timed(False)
    verified_time, verified = timed(True)
    assert sum(len(item.evidence) for item in verified.plan.items) == 4000
    assert unverified.status == verified.status == "ready", verified.diagnostics[:3]
    assert verified_time - unverified_time < 2.0, (verified_time, unverified_time)
