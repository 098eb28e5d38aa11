"""compiler/core/lazy.py: a pattern compiled on its first use, once."""

from __future__ import annotations

import re

from compiler.core.lazy import lazy


def test_a_lazy_pattern_is_compiled_on_first_use_and_kept(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda pattern, flags=0: compiled.append(pattern) or real(pattern, flags))
    get = lazy(r"a+", re.I)
    assert compiled == []
    first = get()
    assert get() is first and compiled == ["a+"]
    assert first.fullmatch("AaA") is not None
