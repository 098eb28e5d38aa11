"""compiler/repo/files.py, under Repository: reading the files that evidence cites, seen through compiled plans and
``Repository.facts``: each file is read once however many items cite it; line counts (empty
files, CRLF, no final newline, bad UTF-8), in memory and streamed (files over a lowered
``MAX_TEXT_BYTES``, opened once too); binary files, valid only as a whole (EP207); FIFOs never
opened, unreadable files (EP207); and symlinks: followed inside the root, refused when they lead
out (EP204), dotted paths through them never opening a file outside.

What the evidence check reports for each code, and where, is tests/checks/test_evidence.py;
files that change while they are read, and reads held to a budget, are tests/test_bounded.py.
"""

from __future__ import annotations

import builtins
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import (
    SEARCH_CORPUS,
    SEARCH_NEEDLES,
    OpenRecorder,
    codes,
    compile_in,
    git_repo,
    make_tree,
    one_item_plan,
    only,
    rows,
    write_plan,
)

import compiler.repo.files as files_module
from compiler.compile.emit import build_output
from compiler.compile.pipeline import compile_plan
from compiler.repo.repository import Repository

Within = Callable[[Callable[[], Any]], Any]  # the conftest fixture

# --- reading: once, binary, empty, CRLF, streaming, special files ---------------------------------


SETTINGS_FILES = [".evidence-plan.toml", "pyproject.toml"]


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
    assert reads == [*SETTINGS_FILES, "app/accounts.py"]  # the settings are looked for once (compiler/model/config.py)
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
        monkeypatch.setattr(files_module, "MAX_TEXT_BYTES", -1)
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
        monkeypatch.setattr(files_module, "MAX_TEXT_BYTES", 8)
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
    assert rows(result.diagnostics) == [("EP207", "it", 7, 9), ("EP207", "it", 8, 9), ("EP207", "it", 9, 16)]
    facts = Repository(std_repo).facts("data.bin")
    assert facts.binary and facts.lines is None


def test_binary_detected_when_streamed(std_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_module, "MAX_TEXT_BYTES", 4)
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
    monkeypatch.setattr(files_module, "MAX_TEXT_BYTES", 256)
    text = "".join(f"# row {n:04d}\n" for n in range(1, 201)) + "def tail():\n    return 'end'"
    return git_repo(tmp_path / "repo", {"big.py": text})


def test_large_files_are_streamed_not_held(big_repo: Path) -> None:
    facts = Repository(big_repo).facts("big.py")
    assert facts.size > files_module.MAX_TEXT_BYTES
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
    result = within(lambda: compile_plan(str(plan)))  # an open of the FIFO would block: the guard fails it
    assert rows(result.diagnostics) == [("EP207", "it", 6, 9), ("EP207", "it", 7, 9), ("EP207", "it", 8, 16),
                            ("EP207", "it", 9, 9)]
    assert all("pipe cannot be read: is not a regular file" in d.message for d in result.diagnostics)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_nearby_does_not_block_suggestions(std_repo: Path, within: Within) -> None:
    os.mkfifo(std_repo / "pipe")
    plan = write_plan(std_repo, one_item_plan("      - pipes\n"))
    result = within(lambda: compile_plan(str(plan)))
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
    assert rows(result.diagnostics) == [("EP207", "it", 6, 9)]
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
    assert rows(result.diagnostics) == [("EP207", "it", 6, 9), ("EP207", "it", 7, 16)]
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


# --- symlinks and dotted paths ----------------------------------------------------------------------


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
    assert rows(result.diagnostics) == [("EP204", "it", 8, 9), ("EP204", "it", 9, 9)]


def test_dangling_symlink_and_symlink_loop(std_repo: Path) -> None:
    (std_repo / "dangling.txt").symlink_to(std_repo / "nowhere.txt")
    (std_repo / "loop_a").symlink_to(std_repo / "loop_b")
    (std_repo / "loop_b").symlink_to(std_repo / "loop_a")
    result = compile_in(std_repo, one_item_plan("      - dangling.txt\n      - loop_a\n"))
    assert [r[0] for r in rows(result.diagnostics)] == ["EP201", "EP207"]


@pytest.mark.parametrize("streamed", [False, True])
def test_dotted_paths_through_symlinks_never_open_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          streamed: bool) -> None:
    """`ol/../big.txt` is normalized to `big.txt` inside the root; the operating system would
    resolve it through the symlink `ol` to a file outside. Either way, no outside file is opened,
    and paths whose folders do not exist never crash the streamed reader."""
    if streamed:
        monkeypatch.setattr(files_module, "MAX_TEXT_BYTES", 16)
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


# --- search: find, bytes first (the fast path of `where`), held to find ---------------------------

def _read_facts(repo: Repository, path: str) -> tuple[object, ...]:
    """What reading a file found (not what later queries remembered)."""
    f = repo.facts(path)
    return f.kind, f.problem, f.size, f.binary, f.line_count, f.lines, f.real


def test_search_answers_what_find_answers_for_every_file_needle_and_limit(tmp_path: Path) -> None:
    root = git_repo(tmp_path, SEARCH_CORPUS)
    (root / "folder").mkdir()
    os.symlink("plain.py", root / "link.py")
    os.symlink("/etc/hostname", root / "outside.txt")
    os.mkfifo(root / "pipe")
    paths = [*SEARCH_CORPUS, "folder", "link.py", "outside.txt", "pipe", "missing.txt", "../escape.txt", "./plain.py"]
    compared = 0
    for needle in SEARCH_NEEDLES:
        for limit in (1, 2, 1000):
            fast, slow = Repository(root), Repository(root)
            for path in paths:
                assert fast.search(path, needle, limit) == slow.find(path, needle, limit), (path, needle, limit)
                assert _read_facts(fast, path) == _read_facts(slow, path), (path, needle)  # and what is kept
                compared += 1
    assert compared == len(SEARCH_NEEDLES) * 3 * len(paths)
    assert Repository(root).search("crlf.txt", "needle") == [1, 3]
    assert Repository(root).search("broken.txt", "\ufffd") == [1]  # U+FFFD is find's answer, not the bytes'


def test_search_of_a_streamed_file_answers_what_find_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_module, "MAX_TEXT_BYTES", 64)
    root = git_repo(tmp_path, {"big.txt": b"a\r\n" * 40 + b"needle \xff\n" * 3 + b"needle"})
    for needle in ("needle", "\ufffd", "a\r"):
        assert Repository(root).search("big.txt", needle, 10) == Repository(root).find("big.txt", needle, 10)
    assert Repository(root).search("big.txt", "needle") == [41, 42, 43, 44]


def test_search_never_decodes_a_file_whose_bytes_lack_the_needle(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repo(tmp_path, {"a.py": "nothing here\n", "b.py": "needle\n"})
    decoded: list[bytes] = []
    real = Repository._text_facts

    def recording(raw: bytes, full: str) -> Any:
        decoded.append(raw)
        return real(raw, full)

    monkeypatch.setattr(Repository, "_text_facts", staticmethod(recording))
    repo = Repository(root)
    assert repo.search("a.py", "needle") == []
    assert repo.search("b.py", "needle") == [1]
    assert decoded == [b"needle\n"]
    assert "a.py" not in repo._facts  # a file without the needle leaves nothing behind


_FRAGMENTS = st.sampled_from([b"a", b"b", b" ", b"\n", b"\r", b"\r\n", b"\x00", b"\xff", b"\xe9", b"\xc3",
                              "é".encode(), "€".encode(), "€".encode()[:2], "東".encode(), b"\xef\xbf\xbd",
                              b"ab\r", b"\xed\xb3\xa9"])
_NEEDLE_CHARS = st.sampled_from(["a", "b", " ", "\r", "é", "€", "東", "\ufffd", "\udce9", "\x00"])


@settings(derandomize=True, database=None, deadline=None, max_examples=300)
@given(st.lists(_FRAGMENTS, max_size=40), st.lists(_NEEDLE_CHARS, min_size=1, max_size=4),
       st.integers(min_value=1, max_value=4))
@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
def test_search_equals_find_on_random_bytes(fragments: list[bytes], chars: list[str], limit: int) -> None:
    needle = "".join(chars)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "f.txt").write_bytes(b"".join(fragments))
        assert Repository(tmp).search("f.txt", needle, limit) == Repository(tmp).find("f.txt", needle, limit)


def test_a_missing_folder_is_suggested_among_the_folders_that_hold_files(tmp_path: Path) -> None:
    """suggest_folder (EP210's did-you-mean for a test folder): every folder of a listed file and
    its parents are candidates; folders skipped by the walk (.git, node_modules) are not."""
    make_tree(tmp_path, {"tests/unit/test_a.py": "", "tests/integration/api/test_b.py": "",
                         "node_modules/tests/units/x.js": ""})
    repo = Repository(tmp_path)
    assert repo.suggest_folder("tests/units") == "tests/unit"
    assert repo.suggest_folder("tests/integraton") == "tests/integration"
    assert repo.suggest_folder("test") == "tests"
    assert repo.suggest_folder("docs/build") is None
