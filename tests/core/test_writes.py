"""Writes that cannot be turned against the user (issue 20): an output folder reached through a
planted symlink, a command writing over its own input under another name, and `fix` or `approve`
replacing a plan that changed after they read it. The rules for the output file itself are in
tests/compile/test_emit.py; compiler/core/targets.py and compiler/core/write.py hold them all."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from support import TWO_ITEMS, git_repo, hidden_names, run

from compiler.core import write
from compiler.core.write import WriteError, rewrite, write_all_atomic, write_atomic

FOLLOW = ("nothing was written; a symlink is followed only within the git work tree that holds it (else its own "
          "folder), never into .git: remove the link, or write to the file itself")
APP = "".join(f"line {n}\n" for n in range(1, 7))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A checkout (a work tree) holding a ready plan, and a folder outside it."""
    repo = git_repo(tmp_path / "repo", {"app.py": APP, "plan.yaml": TWO_ITEMS})
    (tmp_path / "outside").mkdir()
    return repo


# --- an output folder reached through a symlink -----------------------------------------------------


def test_an_output_folder_linked_out_of_the_work_tree_is_refused_and_nothing_is_written(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pull request plants `build -> ~/.config` (here: a folder outside the checkout); CI runs
    `compile plan.yaml -o build`. Neither artifact may land outside the work tree."""
    outside = tree.parent / "outside"
    (tree / "build").symlink_to(outside)
    monkeypatch.chdir(tree)
    result = run("compile", "plan.yaml", "-o", "build")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"build/evidence-plan.json: error: cannot write: its folder build is a symlink to {outside}, "
        f"which is outside the git work tree {tree}",
        f"  hint: {FOLLOW}",
    ]
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("into", [".git", ".git/hooks"])
def test_an_output_folder_linked_into_git_is_refused(tree: Path, into: str) -> None:
    (tree / ".git" / "hooks").mkdir()
    (tree / "docs").symlink_to(into)
    with pytest.raises(WriteError) as caught:
        write_atomic(tree / "docs" / "pre-commit", "#!/bin/sh\necho pwned\n")
    assert caught.value.message == (f"cannot write: its folder {tree / 'docs'} is a symlink to {tree / into}, "
                                    "which is inside a .git folder")
    assert caught.value.hint == FOLLOW
    assert not (tree / into / "pre-commit").exists() and hidden_names(tree / into) == []


def test_a_chain_of_folder_links_is_judged_where_it_ends(tree: Path) -> None:
    """`a -> b` stays inside, but `b` leads out: the folder `a` is outside the work tree."""
    outside = tree.parent / "outside"
    (tree / "b").symlink_to(outside)
    (tree / "a").symlink_to("b")
    with pytest.raises(WriteError, match=re.escape(f"its folder {tree / 'a'} is a symlink to {outside}, which is")):
        write_atomic(tree / "a" / "evidence-plan.md", "x\n")
    assert list(outside.iterdir()) == []


def test_folders_to_be_made_under_a_link_out_of_the_work_tree_are_never_made(tree: Path) -> None:
    outside = tree.parent / "outside"
    (tree / "out").symlink_to(outside)
    with pytest.raises(WriteError, match=re.escape(f"its folder {tree / 'out'} is a symlink to {outside}")):
        write_all_atomic({tree / "out" / "deep" / "er" / "evidence-plan.json": "{}\n"}, make_folders=True)
    assert list(outside.iterdir()) == []


def test_a_folder_link_is_judged_by_the_path_the_kernel_follows(tree: Path) -> None:
    """`out/../x` goes through `out` first: to the link's target's parent, not back to the tree."""
    outside = tree.parent / "outside"
    (outside / "deep").mkdir()
    (tree / "out").symlink_to(outside / "deep")
    with pytest.raises(WriteError, match="which is outside the git work tree"):
        write_atomic(f"{tree}/out/../evidence-plan.md", "x\n")
    assert list(outside.iterdir()) == [outside / "deep"]


def test_folder_links_inside_the_work_tree_and_outside_any_work_tree_are_followed(tree: Path) -> None:
    """Within the checkout, a link may lead anywhere in it; outside any work tree (the user's own
    folders, /tmp -> /private/tmp on macOS) links are the user's: no pull request planted them."""
    (tree / "docs" / "site").mkdir(parents=True)
    (tree / "public").symlink_to("docs/site")
    write_atomic(tree / "public" / "evidence-plan.md", "inside\n")
    assert (tree / "docs" / "site" / "evidence-plan.md").read_text(encoding="utf-8") == "inside\n"
    mine = tree.parent / "mine"
    (mine / "real").mkdir(parents=True)
    (tree.parent / "outside" / "link").symlink_to(mine / "real")
    write_atomic(tree.parent / "outside" / "link" / "x.md", "mine\n")
    assert (mine / "real" / "x.md").read_text(encoding="utf-8") == "mine\n"


# --- no command writes over its own input -------------------------------------------------------------


def test_compile_never_writes_over_its_plan_through_a_planted_artifact_link(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`evidence-plan.md -> plan.yaml` is a link inside its work tree, which the output rules
    follow; but it leads to the plan compile reads: exit 2, neither artifact written."""
    (tree / "evidence-plan.md").symlink_to("plan.yaml")
    monkeypatch.chdir(tree)
    result = run("compile", "plan.yaml")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        "./evidence-plan.md: error: cannot write: it is the same file as plan.yaml, which this command reads",
        "  hint: nothing was written; an input is never written over: write to another file (to repair a plan in "
        "place, use evidence-plan fix)",
    ]
    assert (tree / "plan.yaml").read_text(encoding="utf-8") == TWO_ITEMS
    assert not (tree / "evidence-plan.json").exists() and hidden_names(tree) == [".git"]


@pytest.mark.parametrize("alias", ["same path", "dot slash", "symlink", "hard link"])
def test_graph_never_writes_over_its_plan_under_any_name(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                        alias: str) -> None:
    monkeypatch.chdir(tree)
    out = {"same path": "plan.yaml", "dot slash": "./plan.yaml", "symlink": "link.yaml",
           "hard link": "hard.yaml"}[alias]
    if alias == "symlink":
        (tree / "link.yaml").symlink_to("plan.yaml")
    elif alias == "hard link":
        os.link(tree / "plan.yaml", tree / "hard.yaml")
    result = run("graph", "plan.yaml", "-o", out)
    assert result.exit_code == 2, result.output
    assert f"{out}: error: cannot write: it is the same file as plan.yaml, which this command reads" in result.stderr
    assert (tree / "plan.yaml").read_text(encoding="utf-8") == TWO_ITEMS


@pytest.mark.parametrize("html", [False, True])
def test_render_never_writes_over_its_json(tree: Path, monkeypatch: pytest.MonkeyPatch, html: bool) -> None:
    monkeypatch.chdir(tree)
    assert run("compile", "plan.yaml").exit_code == 0
    compiled = (tree / "evidence-plan.json").read_bytes()
    os.link(tree / "evidence-plan.json", tree / "copy.json")
    result = run("render", "evidence-plan.json", "-o", "copy.json", *(["--html"] if html else []))
    assert result.exit_code == 2, result.output
    assert ("copy.json: error: cannot write: it is the same file as evidence-plan.json, which this command reads"
            in result.stderr)
    assert (tree / "evidence-plan.json").read_bytes() == compiled


def test_an_input_read_from_standard_input_is_not_written_over_either(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`render - -o x.json < x.json`: standard input is the file x.json."""
    target = tmp_path / "x.json"
    target.write_text("{}\n", encoding="utf-8")
    with open(target, "rb") as held:
        monkeypatch.setattr(sys, "stdin", held)
        with pytest.raises(WriteError) as caught:
            write_all_atomic({target: "# page\n"}, inputs=["-"])
        monkeypatch.undo()
    assert caught.value.message == "cannot write: it is the same file as standard input, which this command reads"
    assert target.read_text(encoding="utf-8") == "{}\n"


def test_compile_of_a_compiled_json_in_its_own_folder_is_refused_with_a_way_out(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    assert run("compile", "plan.yaml").exit_code == 0
    compiled = (tree / "evidence-plan.json").read_bytes()
    result = run("compile", "evidence-plan.json")
    assert result.exit_code == 2, result.output
    assert ("./evidence-plan.json: error: cannot write: it is the same file as evidence-plan.json, which this command"
            " reads" in result.stderr)
    assert (tree / "evidence-plan.json").read_bytes() == compiled
    assert run("compile", "evidence-plan.json", "-o", "again").exit_code == 0


# --- fix and approve never replace a plan that changed after they read it ----------------------------


PLAN_TO_FIX = """\
items:
  - id: a
    change: first
    evidence: [app.py:3, app.py:3]   # a repeat: fix removes it
    proof: pytest
"""
APPROVAL = """\
items:
  - id: sign-off
    kind: approval
    change: A person checks
    evidence: [app.py:1]
    proof: make show
  - id: drop
    change: Drop it
    evidence: [app.py:1]
    depends_on: [sign-off]
    proof: make drop
    irreversible: true
"""
MEANWHILE = "# an edit saved by someone else meanwhile\n"
CHANGED = [
    "error: cannot write: it changed after it was read",
    "  hint: nothing was written; run the command again on the file as it is now",
]


def _edit_during(monkeypatch: pytest.MonkeyPatch, plan: Path, when: str) -> None:
    """Someone saves the plan between the command's read and its write: while the command works
    out its edit (``fix_document``, ``approve_document``), or while it writes the new text beside
    the file, just before the rename."""
    import compiler.api.approve
    import compiler.api.fix

    def save() -> None:
        plan.write_text(plan.read_text(encoding="utf-8") + MEANWHILE, encoding="utf-8")

    module, name = {"writing": (write, "_write_temporary"), "fixing": (compiler.api.fix, "fix_document"),
                    "approving": (compiler.api.approve, "approve_document")}[when]
    original = getattr(module, name)

    def meanwhile(*args: object, **kwargs: object) -> object:
        if when == "writing":
            save()
        done = original(*args, **kwargs)
        if when != "writing":
            save()
        return done

    monkeypatch.setattr(module, name, meanwhile)


@pytest.mark.parametrize("when", ["fixing", "writing"])
def test_fix_never_replaces_a_plan_that_changed_after_it_was_read(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  when: str) -> None:
    plan = tree / "plan.yaml"
    plan.write_text(PLAN_TO_FIX, encoding="utf-8")
    _edit_during(monkeypatch, plan, when)
    result = run("fix", str(plan))
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [f"{plan}: {CHANGED[0]}", CHANGED[1]]
    assert plan.read_text(encoding="utf-8") == PLAN_TO_FIX + MEANWHILE  # the other edit, and nothing of fix's
    assert hidden_names(tree) == [".git"]


@pytest.mark.parametrize("when", ["approving", "writing"])
def test_approve_never_replaces_a_plan_that_changed_after_it_was_read(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      when: str) -> None:
    plan = tree / "plan.yaml"
    plan.write_text(APPROVAL, encoding="utf-8")
    _edit_during(monkeypatch, plan, when)
    result = run("approve", str(plan), "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [f"{plan}: {CHANGED[0]}", CHANGED[1]]
    assert plan.read_text(encoding="utf-8") == APPROVAL + MEANWHILE
    assert hidden_names(tree) == [".git"]


@pytest.mark.parametrize("now", [b"a: 1\n", b"a: 0\r\n", b"a: 0\n\n", b"", b"a: 0\n" * 100])
def test_rewrite_compares_the_bytes_right_before_the_rename(tmp_path: Path, now: bytes) -> None:
    """Another value, other line ends, one more byte, none at all, much more: each is a change."""
    path = tmp_path / "plan.yaml"
    path.write_bytes(now)
    with pytest.raises(WriteError, match="it changed after it was read"):
        rewrite(str(path), "a: 2\n", original="a: 0\n")
    assert path.read_bytes() == now and hidden_names(tmp_path) == []


def test_rewrite_replaces_a_plan_that_still_holds_what_was_read(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 0\n")
    rewrite(str(path), "a: 2\n", original="a: 0\n")
    assert path.read_bytes() == b"\xef\xbb\xbfa: 2\n"


# --- write_new: a file created, never over anything -------------------------------------------------


def test_write_new_creates_the_file_whole(tmp_path: Path) -> None:
    write.write_new(tmp_path / "plan.yaml", "items: []\n", hint="h")
    assert (tmp_path / "plan.yaml").read_text(encoding="utf-8") == "items: []\n"
    assert sorted(os.listdir(tmp_path)) == ["plan.yaml"]  # no temporary file left
    assert (tmp_path / "plan.yaml").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_write_new_never_replaces_a_file_that_appears_before_the_link(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Created by another program between the check and the link: the kernel refuses the name."""
    target = tmp_path / "plan.yaml"
    real_link = os.link

    def racing(src: str, dst: str, **kwargs: object) -> None:
        target.write_text("theirs\n", encoding="utf-8")
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(write.os, "link", racing)
    with pytest.raises(WriteError) as caught:
        write.write_new(target, "mine\n", hint="give another name")
    assert (str(caught.value), caught.value.hint) == (
        f"{target}: cannot write: it exists, and is never written over", "nothing was written; give another name")
    assert target.read_text(encoding="utf-8") == "theirs\n" and sorted(os.listdir(tmp_path)) == ["plan.yaml"]


@pytest.mark.parametrize("there", [False, True])
def test_write_new_without_hard_links_takes_the_name_exclusively(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 there: bool) -> None:
    target = tmp_path / "plan.yaml"

    def no_links(src: str, dst: str, **kwargs: object) -> None:
        if there:
            target.write_text("theirs\n", encoding="utf-8")
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(write.os, "link", no_links)
    if there:
        with pytest.raises(WriteError):
            write.write_new(target, "mine\n", hint="h")
    else:
        write.write_new(target, "mine\n", hint="h")
    assert target.read_text(encoding="utf-8") == ("theirs\n" if there else "mine\n")
    assert sorted(os.listdir(tmp_path)) == ["plan.yaml"]
