from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:

    class Context:
        name: str


@t.overload
def convert(value: int) -> int: ...
@t.overload
def convert(value: str) -> str: ...
def convert(value):
    def inner():
        return value

    return inner()
