"""Runtime data (templates, schemas, the examples `explain` shows) shipped inside the package.

In a built wheel, templates/, schemas/ and explain/ sit inside the ``compiler`` package (see
pyproject.toml); in a source checkout or an editable install they sit beside it, at the top of
the repository. Both are looked up here and nowhere else.
"""

from __future__ import annotations


def read_text(folder: str, name: str) -> str:
    from importlib.resources import files  # on first use: check reads no resource
    from pathlib import Path

    packaged = files("compiler").joinpath(folder, name)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    source_tree = Path(__file__).resolve().parents[2] / folder / name  # compiler/core/ -> the top
    return source_tree.read_text(encoding="utf-8")
