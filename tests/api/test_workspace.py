"""compiler/api/workspace.py: every path a server is given resolves under its root, symlinks too, or
is refused in a sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import make_tree

from compiler.api.workspace import Refused, Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = make_tree(tmp_path / "repo", {"plan.yaml": "items: []\n", "sub/a.py": "x = 1\n"})
    (tmp_path / "outside.yaml").write_text("secret\n", encoding="utf-8")
    (root / "out").symlink_to(tmp_path / "outside.yaml")
    (root / "up").symlink_to(tmp_path)
    (root / "near").symlink_to(root / "sub" / "a.py")
    (root / "dangling").symlink_to(tmp_path / "gone.yaml")
    return Workspace.at(str(root))


def test_paths_inside_the_root_are_named_from_it(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ws.root)
    assert ws.path("plan.yaml") == "plan.yaml"
    assert ws.path("./sub/../plan.yaml") == "plan.yaml"
    assert ws.path(os.path.join(ws.root, "sub", "a.py")) == os.path.join("sub", "a.py")  # absolute, inside
    assert ws.path("near") == "near"  # a symlink to a file inside: kept as given
    assert ws.path("missing.yaml") == "missing.yaml"  # the reader says it is missing, located
    assert ws.path(".") == "."


def test_from_another_working_folder_the_path_is_absolute(ws: Workspace, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ws.path("plan.yaml") == os.path.join(ws.root, "plan.yaml")


@pytest.mark.parametrize(("given", "said"), [
    ("../outside.yaml", "../outside.yaml is outside the root "),
    ("/etc/passwd", "/etc/passwd is outside the root "),
    ("sub/../../outside.yaml", "sub/../../outside.yaml is outside the root "),
    ("out", "out is outside the root "),  # a symlink that leads out
    ("up/outside.yaml", "up/outside.yaml is outside the root "),  # through a folder's symlink
    ("dangling", "dangling is outside the root "),  # where it would lead, not whether it is there
])
def test_paths_that_leave_the_root_are_refused_with_where_they_lead(ws: Workspace, given: str, said: str) -> None:
    with pytest.raises(Refused) as refused:
        ws.path(given)
    assert str(refused.value).startswith(said)
    assert str(refused.value).endswith(": this server reads and writes only under it; give a path relative to the root")
    if given in ("out", "up/outside.yaml", "dangling"):
        assert "(it leads to " in str(refused.value)


@pytest.mark.parametrize("given", ["", "  ", "plan\x00.yaml"])
def test_an_empty_path_or_one_with_a_nul_is_refused(ws: Workspace, given: str) -> None:
    with pytest.raises(Refused, match=r"^give a path: a file under the root, relative to it$"):
        ws.path(given)


def test_a_root_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refused, match=r"is not a folder$"):
        Workspace.at(str(tmp_path / "nowhere"))
    assert Workspace.at(str(tmp_path)).root == os.path.realpath(tmp_path)


def test_a_path_of_git_history_is_judged_by_its_text(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ws.root)
    assert ws.revision_path("sub/./a.py") == os.path.join("sub", "a.py")
    for given in ("../x.yaml", "/etc/passwd", "a/../../x.yaml"):
        with pytest.raises(Refused, match=r"outside the root|relative to the root"):
            ws.revision_path(given)
