"""Path helpers shared by emit and render: relative, POSIX, the same on every machine."""

from __future__ import annotations

import os
from pathlib import Path


def relative_posix(target: str | os.PathLike[str], start: str | os.PathLike[str]) -> str:
    """``target`` relative to folder ``start``, with forward slashes."""
    rel = os.path.relpath(os.path.abspath(target), os.path.abspath(start))
    return Path(rel).as_posix()
