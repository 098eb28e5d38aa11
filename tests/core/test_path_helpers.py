"""compiler/core/paths.py: path helpers that give what pathlib gives, without importing it."""

from __future__ import annotations

import os
from pathlib import PurePosixPath

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.core.paths import relative_posix, suffix


@settings(max_examples=1000)
@given(st.text(alphabet="ab./ ", max_size=12))
@example("a.json")
@example("dir.d/plan")
@example("x.json/.")
@example("a.")
@example(".json")
@example("a..json")
@example("plan.YAML/")
@example("")
@example("a.a/a/..")
def test_suffix_is_pathlibs(path: str) -> None:
    assert suffix(path) == PurePosixPath(path).suffix


def test_relative_posix(tmp_path: os.PathLike[str]) -> None:
    base = os.fspath(tmp_path)
    assert relative_posix(os.path.join(base, "a", "b.json"), base) == "a/b.json"
    assert relative_posix(base, os.path.join(base, "out")) == ".."
    assert relative_posix(base, base) == "."
