"""evidence-plan.json: its contract (the schema models), determinism, and atomic writes."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import hidden_names

from compiler.compile.emit import build_output, dumps
from compiler.compile.pipeline import compile_plan
from compiler.core.write import WriteError, write_all_atomic, write_atomic
from compiler.model.output_model import CompiledPlan


@pytest.mark.parametrize("plan", ["examples/duplicate-email/plan.yaml", "examples/blocked/plan.yaml"])
def test_every_document_matches_the_output_schema(repo: Path, plan: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    document = build_output(compile_plan(plan), "outputs")
    CompiledPlan.model_validate(document)  # raises on any difference from schemas/evidence-plan.schema.json


def test_output_is_byte_identical_across_runs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    first = dumps(build_output(compile_plan("examples/blocked/plan.yaml"), "."))
    second = dumps(build_output(compile_plan("examples/blocked/plan.yaml"), "."))
    assert first == second
    assert first.endswith("}\n")


def test_issue_locations_are_relative_to_the_json_folder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    document = build_output(compile_plan("examples/blocked/plan.yaml"), "outputs")
    files = {i["location"]["file"] for i in document["issues"]}
    files |= {r["location"]["file"] for i in document["issues"] for r in i.get("related", [])}
    assert files == {"../examples/blocked/plan.yaml"}


def test_atomic_write_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomic(target, "old\n")
    write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left behind
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def test_atomic_write_in_slices_writes_every_character(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.core import write

    monkeypatch.setattr(write, "WRITE_CHUNK", 3)  # slices that end inside multi-byte characters' runs
    text = "a→é😀\n" * 5 + "tail"
    write_atomic(tmp_path / "out.md", text)
    assert (tmp_path / "out.md").read_bytes() == text.encode("utf-8")


def test_texts_given_as_functions_are_made_one_at_a_time(tmp_path: Path) -> None:
    """compile passes its JSON and Markdown as functions: each text is made just before it is
    written, so a large plan's two texts are never held at once."""
    made: list[str] = []

    def text(name: str) -> Callable[[], str]:
        def make() -> str:
            made.append(name)
            assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == []
            assert len([p for p in tmp_path.iterdir() if p.name.startswith(".")]) == len(made) - 1
            return f"{name}\n"
        return make

    write_all_atomic({tmp_path / "a.json": text("a"), tmp_path / "b.md": text("b")})
    assert made == ["a", "b"]
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "a\n"
    assert (tmp_path / "b.md").read_text(encoding="utf-8") == "b\n"


def test_a_text_that_fails_to_be_made_changes_nothing(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a.json", "previous\n")

    def broken() -> str:
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        write_all_atomic({tmp_path / "a.json": "new\n", tmp_path / "b.md": broken})
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_result_for_output_drops_the_parsed_values_and_emits_the_same(repo: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.render.markdown import render_markdown

    monkeypatch.chdir(repo)
    for plan in ("examples/duplicate-email/plan.yaml", "examples/blocked/plan.yaml"):
        result = compile_plan(plan)
        slim = result.for_output()
        assert slim.document.data is None and slim.document.text == "" and slim.document.name == plan
        assert (slim.plan, slim.diagnostics, slim.waves) == (result.plan, result.diagnostics, result.waves)
        full, lean = build_output(result, "outputs"), build_output(slim, "outputs")
        assert dumps(lean) == dumps(full)
        assert render_markdown(lean) == render_markdown(full)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_write_that_fails_half_way_keeps_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "evidence-plan.json"
    write_atomic(target, "previous\n")

    def fail(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)  # the data is half written when this fails
    with pytest.raises(OSError):
        write_atomic(target, "x" * 100_000)
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["evidence-plan.json"]


def test_compile_that_fails_to_write_exits_2_and_keeps_both_artifacts(
    write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from compiler.cli import main

    plan = write("plan.yaml", "items:\n  - {id: a, change: c, evidence: [x], proof: p}\n")
    assert main(["compile", "--no-verify-evidence", str(plan)]) == 0
    before = {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")}
    plan.write_text("items:\n  - {id: b, change: c, evidence: [x], proof: p}\n", encoding="utf-8")
    capsys.readouterr()
    real_fsync = os.fsync
    calls = []

    def fsync_fails_on_the_second_file(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync_fails_on_the_second_file)
    assert main(["compile", "--no-verify-evidence", str(plan)]) == 2
    assert {p.name: p.read_bytes() for p in plan.parent.glob("evidence-plan.*")} == before
    assert sorted(p.name for p in plan.parent.iterdir()) == ["evidence-plan.json", "evidence-plan.md", "plan.yaml"]
    err = capsys.readouterr().err
    assert "error: cannot write: No space left on device" in err
    assert "Traceback" not in err


def test_dumps_puts_each_list_element_on_its_own_line() -> None:
    document = {"a": [], "b": ["x", "é\n\"q\""], "c": [[1, 2], {"k": [True, None]}], "d": {"e": 1.5}}
    assert dumps(document) == (
        '{\n'
        '  "a": [],\n'
        '  "b": [\n'
        '    "x",\n'
        '    "é\\n\\"q\\""\n'
        '  ],\n'
        '  "c": [\n'
        '    [1, 2],\n'
        '    {"k": [true, null]}\n'
        '  ],\n'
        '  "d": {"e": 1.5}\n'
        '}\n'
    )
    assert dumps(["not", "an", "object"]) == '["not", "an", "object"]\n'
    with pytest.raises(TypeError):
        dumps({"items": [object()]})


def test_resolved_lines_go_to_the_right_item_when_an_earlier_item_is_invalid(
    write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Symbols are keyed by the item's place in the file, which an item left unread before it
    (no usable id) shifts away from its place among the checked items."""
    folder = write("app.py", "x = 1\n\n\ndef f():\n    return 2\n").parent
    (folder / ".git").mkdir()  # the repository root
    write("plan.yaml", """
        items:
          - {id: 12, change: c, evidence: [app.py], proof: p}
          - {id: bad, change: 12, evidence: [app.py], proof: p}
          - {id: good, change: c, evidence: [app.py:1, app.py::f], proof: p}
    """)
    monkeypatch.chdir(folder)
    document = build_output(compile_plan("plan.yaml"), ".")
    assert [(i["id"], i.get("invalid")) for i in document["items"]] == [("", ["id"]), ("bad", ["change"]),
                                                                        ("good", None)]
    assert [(ev.get("line"), ev.get("symbol"), ev["resolved_lines"]) for ev in document["items"][2]["evidence"]] == [
        (1, None, "1-1"),
        (None, "f", "4-5"),
    ]


# --- what a write may reach: the file meant, never another (compiler/core/targets.py) --------------
# CI runs the compiler, often as root, on plans from untrusted pull requests, which may plant a
# link, a folder or a FIFO under an output's name. None of these tests writes to a real /dev entry
# other than through a link made here to /dev/null or /dev/full, which writing into cannot harm;
# renames are forbidden wherever a device is the target, so that a regression fails, not replaces.


def _no_renames(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a device or FIFO must be written into, not renamed over: {args}")

    monkeypatch.setattr(os, "replace", forbidden)
    monkeypatch.setattr(os, "rename", forbidden)


def _fifo_with_reader(path: Path) -> int:
    """A FIFO at ``path`` with a reader already open (non-blocking, so no thread is needed): what
    is written, up to the pipe's 64 KiB, waits in it for ``_drain``."""
    os.mkfifo(path)
    return os.open(path, os.O_RDONLY | os.O_NONBLOCK)


def _drain(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    finally:
        os.close(fd)
    return b"".join(chunks)


def test_a_symlink_to_dev_null_is_written_into_and_stays_a_link(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`render -o /dev/null` used to replace the device by a regular file (as root, for every
    later step of the machine). The same through a link made here, the /dev/stdout case."""
    link = tmp_path / "out.md"
    link.symlink_to(os.devnull)
    _no_renames(monkeypatch)
    write_atomic(link, "text\n" * 1000)
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]  # no temporary file


def test_a_full_device_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    link = tmp_path / "out.md"
    link.symlink_to("/dev/full")
    _no_renames(monkeypatch)
    with pytest.raises(WriteError) as caught:
        write_atomic(link, "text\n")
    assert (caught.value.path, caught.value.message) == (str(link), "cannot write: No space left on device")
    assert link.is_symlink()


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="making a device node needs root")
def test_a_character_device_is_written_into_not_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = tmp_path / "null"
    device = os.stat(os.devnull).st_rdev
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(os.major(device), os.minor(device)))  # /dev/null's number
    _no_renames(monkeypatch)
    write_atomic(node, "text\n")
    assert stat.S_ISCHR(node.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_is_written_into(tmp_path: Path, through_link: bool, monkeypatch: pytest.MonkeyPatch,
                                deadline: None) -> None:
    """`convert plan.yaml /dev/stdout | less`: /dev/stdout links to /proc/self/fd/1, a pipe."""
    fifo = tmp_path / "pipe"
    reader = _fifo_with_reader(fifo)
    target = tmp_path / "stdout" if through_link else fifo
    if through_link:
        target.symlink_to(fifo)
    _no_renames(monkeypatch)
    write_atomic(target, "é text\n")
    assert _drain(reader) == "é text\n".encode()
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert target.is_symlink() == through_link


@pytest.mark.parametrize("via", ["/proc/self/fd", "/dev/fd"])
def test_a_link_to_this_process_s_own_pipe_is_written_into(tmp_path: Path, via: str, monkeypatch: pytest.MonkeyPatch,
                                                          deadline: None) -> None:
    """What /dev/stdout is when the output is piped: a link to /proc/self/fd/1, itself a pipe."""
    if not os.path.isdir(via):
        pytest.skip(f"no {via} here")
    read_end, write_end = os.pipe()
    link = tmp_path / "stdout"
    link.symlink_to(f"{via}/{write_end}")
    _no_renames(monkeypatch)
    try:
        write_atomic(link, "text\n")
        os.close(write_end)
        assert _drain(read_end) == b"text\n"
    finally:
        for fd in (read_end, write_end):
            try:
                os.close(fd)
            except OSError:
                pass
    assert link.is_symlink()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_planted_link_to_a_device_or_fifo_elsewhere_is_refused(tmp_path: Path, kind: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing into /dev/watchdog arms it, into /dev/sg0 sends SCSI commands: a link planted in a
    checkout may lead only to /dev/null and its kin, a terminal, or our own descriptors. (The
    device here is /dev/null's number under another name, so that a regression does no harm.)"""
    elsewhere = tmp_path / "devices" / "watchdog"
    elsewhere.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(elsewhere)
    elif hasattr(os, "getuid") and os.getuid() == 0:
        device = os.stat(os.devnull).st_rdev
        os.mknod(elsewhere, 0o666 | stat.S_IFCHR, os.makedev(os.major(device), os.minor(device)))
    else:
        pytest.skip("making a device node needs root")
    link = tmp_path / "checkout" / "evidence-plan.md"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    _no_renames(monkeypatch)
    with pytest.raises(WriteError) as caught:
        write_atomic(link, "text\n")
    what = "a FIFO" if kind == "fifo" else "a device"
    assert caught.value.message == (f"cannot write: it is a symlink to {elsewhere}, {what} "
                                    f"outside the link's folder {link.parent}")
    assert "only /dev/null, /dev/zero, /dev/full, a terminal" in caught.value.hint


def test_a_fifo_without_reader_is_an_error_not_a_hang(tmp_path: Path, deadline: None) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(WriteError) as caught:
        write_atomic(fifo, "text\n")
    assert caught.value.message == "cannot write: it is a FIFO with no reader"
    assert caught.value.hint.startswith("nothing was written; start its reader first")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def _socket(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return sock


@pytest.mark.parametrize("kind", ["folder", "socket", "block device", "link to a folder"])
def test_folders_sockets_and_block_devices_are_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out.md"
    sock = None
    if kind == "folder":
        target.mkdir()
        (target / "inside").write_text("kept\n", encoding="utf-8")
    elif kind == "socket":
        sock = _socket(target)
    elif kind == "block device":
        if not hasattr(os, "getuid") or os.getuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, 0o600 | stat.S_IFBLK, os.makedev(0, 0))  # no such device: nothing to reach
    else:
        (tmp_path / "folder").mkdir()
        target.symlink_to("folder")
    before = target.lstat()
    try:
        with pytest.raises(WriteError) as caught:
            write_atomic(target, "text\n")
    finally:
        if sock is not None:
            sock.close()
    what = "a symlink to " + str(tmp_path / "folder") + ", which is a folder" if kind.startswith("link") else kind
    assert caught.value.message == f"cannot write: it is {'a ' if not kind.startswith('link') else ''}{what}"
    assert caught.value.hint.startswith("nothing was written")
    after = target.lstat()
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert hidden_names(tmp_path) == []


def test_a_symlink_to_a_file_in_its_folder_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "sub" / "real.md"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "evidence-plan.md"
    link.symlink_to(Path("sub") / "real.md")
    write_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"
    assert hidden_names(tmp_path) == hidden_names(real.parent) == []


def test_a_symlink_to_a_file_outside_its_folder_is_refused(tmp_path: Path) -> None:
    """A planted `evidence-plan.md -> ~/.bashrc` must not overwrite ~/.bashrc (no work tree here:
    tmp_path is in none, so the link's own folder is the limit)."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    bashrc = tmp_path / "bashrc"
    bashrc.write_text("export SAFE=1\n", encoding="utf-8")
    link = folder / "evidence-plan.md"
    link.symlink_to(bashrc)
    with pytest.raises(WriteError) as caught:
        write_atomic(link, "pwned\n")
    assert caught.value.path == str(link)
    assert caught.value.message == (f"cannot write: it is a symlink to {bashrc}, "
                                    f"which is outside the link's folder {folder}")
    assert caught.value.hint.startswith("nothing was written; a symlink is followed only within the git work tree")
    assert bashrc.read_text(encoding="utf-8") == "export SAFE=1\n"
    assert link.is_symlink() and hidden_names(folder) == []


def test_a_link_to_a_file_through_this_process_s_descriptors_is_refused(tmp_path: Path) -> None:
    """/dev/stdout when a shell redirects it to a file (even one in the link's folder): replacing
    that file would break `>>`; `-` writes to standard output."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd here")
    log = tmp_path / "log.md"
    log.write_text("earlier lines\n", encoding="utf-8")
    link = tmp_path / "stdout"
    with open(log, "ab") as held:
        link.symlink_to(f"/proc/self/fd/{held.fileno()}")
        with pytest.raises(WriteError) as caught:
            write_atomic(link, "text\n")
    assert caught.value.message == (f"cannot write: it is a symlink to {log}, "
                                    "a file open as this process's own descriptor")
    assert caught.value.hint == "nothing was written; for standard output, give -"
    assert log.read_text(encoding="utf-8") == "earlier lines\n"


def test_in_a_work_tree_a_symlink_is_followed_inside_it_and_never_into_git(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    (tree / ".git" / "hooks").mkdir(parents=True)
    (tree / "docs").mkdir()
    hook = tree / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("kept\n", encoding="utf-8")
    elsewhere_in_tree = tree / "PLAN.md"
    elsewhere_in_tree.write_text("old\n", encoding="utf-8")

    inside = tree / "docs" / "inside.md"
    inside.symlink_to("../PLAN.md")  # another folder, but the same work tree: followed
    write_atomic(inside, "new\n")
    assert elsewhere_in_tree.read_text(encoding="utf-8") == "new\n" and inside.is_symlink()

    leaving = tree / "docs" / "leaving.md"
    leaving.symlink_to(outside)
    with pytest.raises(WriteError, match=re.escape(f"which is outside the git work tree {tree}") + "$"):
        write_atomic(leaving, "pwned\n")
    into_git = tree / "docs" / "hook.md"
    into_git.symlink_to("../.git/hooks/pre-commit")
    with pytest.raises(WriteError, match=r"which is inside a \.git folder$"):
        write_atomic(into_git, "pwned\n")
    assert outside.read_text(encoding="utf-8") == "kept\n"
    assert hook.read_text(encoding="utf-8") == "#!/bin/sh\n"


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_dangling_and_looping_symlinks_are_refused(tmp_path: Path, kind: str) -> None:
    link = tmp_path / "evidence-plan.md"
    if kind == "dangling":
        link.symlink_to(tmp_path / "nowhere" / "x.md")
    else:
        link.symlink_to("evidence-plan.md")
    with pytest.raises(WriteError) as caught:
        write_atomic(link, "text\n")
    expected = (f"it is a symlink to {tmp_path / 'nowhere' / 'x.md'}, which does not exist" if kind == "dangling"
                else "it is a symlink loop")
    assert caught.value.message == f"cannot write: {expected}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evidence-plan.md"]  # nothing created elsewhere
    assert link.is_symlink()


# --- compile's two artifacts: both replaced, or neither ------------------------------------------


@pytest.fixture
def pair(tmp_path: Path) -> dict[str, Path]:
    """An earlier compile's two artifacts."""
    files = {"json": tmp_path / "evidence-plan.json", "md": tmp_path / "evidence-plan.md"}
    files["json"].write_text("old json\n", encoding="utf-8")
    files["md"].write_text("old md\n", encoding="utf-8")
    return files


def _fail_on_call(monkeypatch: pytest.MonkeyPatch, name: str, failing: set[int]) -> list[tuple[object, ...]]:
    """os.<name> fails (EPERM, as over an immutable file) on the calls numbered in ``failing``."""
    real = getattr(os, name)
    calls: list[tuple[object, ...]] = []

    def maybe(*args: object, **kwargs: object) -> object:
        calls.append(args)
        if len(calls) in failing:
            raise PermissionError(1, "Operation not permitted")
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, maybe)
    return calls


def test_a_folder_in_the_pair_is_refused_before_anything_is_written(tmp_path: Path, pair: dict[str, Path]) -> None:
    pair["md"].unlink()
    pair["md"].mkdir()
    made: list[str] = []

    def text(name: str) -> Callable[[], str]:
        return lambda: made.append(name) or f"new {name}\n"

    with pytest.raises(WriteError) as caught:
        write_all_atomic({pair["json"]: text("json"), pair["md"]: text("md")})
    assert (caught.value.path, caught.value.message) == (str(pair["md"]), "cannot write: it is a folder")
    assert caught.value.hint.startswith("nothing was written")
    assert made == []  # checked first: not even made
    assert pair["json"].read_text(encoding="utf-8") == "old json\n"
    assert hidden_names(tmp_path) == []


def test_a_failed_second_rename_puts_the_first_file_back(tmp_path: Path, pair: dict[str, Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    json_inode = pair["json"].stat().st_ino
    calls = _fail_on_call(monkeypatch, "replace", {2})
    with pytest.raises(WriteError) as caught:
        write_all_atomic({pair["json"]: "new json\n", pair["md"]: "new md\n"})
    assert len(calls) == 3  # json renamed, md failed, json's backup renamed back
    assert (caught.value.path, caught.value.message) == (str(pair["md"]), "cannot write: Operation not permitted")
    assert caught.value.hint == (f"nothing was replaced ({pair['json']} put back as it was); check the output folder")
    assert pair["json"].read_text(encoding="utf-8") == "old json\n"
    assert pair["md"].read_text(encoding="utf-8") == "old md\n"
    assert pair["json"].stat().st_ino == json_inode  # the very file, from its hard link
    assert hidden_names(tmp_path) == []


def test_a_first_file_that_was_new_is_removed_again(tmp_path: Path, pair: dict[str, Path],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pair["json"].unlink()
    _fail_on_call(monkeypatch, "replace", {2})
    with pytest.raises(WriteError) as caught:
        write_all_atomic({pair["json"]: "new json\n", pair["md"]: "new md\n"})
    assert f"({pair['json']} removed (it was new))" in caught.value.hint
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evidence-plan.md"]
    assert pair["md"].read_text(encoding="utf-8") == "old md\n"


def test_without_hard_links_the_backup_is_a_copy(tmp_path: Path, pair: dict[str, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_on_call(monkeypatch, "link", {1, 2})
    _fail_on_call(monkeypatch, "replace", {2})
    with pytest.raises(WriteError, match="Operation not permitted"):
        write_all_atomic({pair["json"]: "new json\n", pair["md"]: "new md\n"})
    assert pair["json"].read_text(encoding="utf-8") == "old json\n"
    assert pair["md"].read_text(encoding="utf-8") == "old md\n"
    assert hidden_names(tmp_path) == []


def test_when_putting_back_fails_the_error_says_which_file_is_which(tmp_path: Path, pair: dict[str, Path],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_on_call(monkeypatch, "replace", {2, 3})  # md's rename fails, and so does json's way back
    with pytest.raises(WriteError) as caught:
        write_all_atomic({pair["json"]: "new json\n", pair["md"]: "new md\n"})
    (backup,) = [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert backup.name.startswith(f".evidence-plan.json.{os.getpid()}.") and backup.suffix == ".bak"
    assert backup.read_text(encoding="utf-8") == "old json\n"  # kept for the user
    assert caught.value.hint == (
        f"NOT all files are as before: {pair['json']} is the NEW file (putting back the old one failed: "
        f"Operation not permitted; its old text is in {backup} until the next write); "
        f"{pair['md']}: unchanged"
    )
    assert pair["json"].read_text(encoding="utf-8") == "new json\n"
    assert pair["md"].read_text(encoding="utf-8") == "old md\n"


def test_two_names_for_one_file_are_refused(tmp_path: Path, pair: dict[str, Path]) -> None:
    pair["md"].unlink()
    pair["md"].symlink_to("evidence-plan.json")
    with pytest.raises(WriteError, match=r"which .*evidence-plan\.json writes too"):
        write_all_atomic({pair["json"]: "new json\n", pair["md"]: "new md\n"})
    assert pair["json"].read_text(encoding="utf-8") == "old json\n"


# --- temporary files a killed writer left ---------------------------------------------------------


def test_temporary_files_are_named_by_their_writers_pid(tmp_path: Path) -> None:
    seen: list[str] = []

    def text() -> str:
        seen.extend(hidden_names(tmp_path))
        return "a\n"

    write_all_atomic({tmp_path / "a.json": "a\n", tmp_path / "b.md": text})
    assert len(seen) == 1 and seen[0].startswith(f".a.json.{os.getpid()}.") and seen[0].endswith(".tmp")


def test_a_write_removes_what_dead_writers_left_and_keeps_live_ones(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # reaped: its pid runs nothing now
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],  # alive until killed
                            stdin=subprocess.PIPE)
    try:
        stale = [tmp_path / f".evidence-plan.json.{dead.pid}.k3x9_q2a.tmp",
                 tmp_path / f".evidence-plan.json.{dead.pid}.0a1b2c3d.bak"]
        kept = [tmp_path / f".evidence-plan.json.{live.pid}.zz8h1kpw.tmp",  # a parallel run, still writing
                tmp_path / f".evidence-plan.md.{dead.pid}.k3x9_q2a.tmp",  # another file's: its own write cleans it
                tmp_path / ".evidence-plan.json.k3x9_q2a.tmp"]  # no pid: nobody can tell, so it stays
        for path in stale + kept:
            path.write_text("partial", encoding="utf-8")
        write_atomic(tmp_path / "evidence-plan.json", "{}\n")
        assert hidden_names(tmp_path) == sorted(p.name for p in kept)
    finally:
        live.kill()
        live.communicate()  # reaped, its stdin closed
