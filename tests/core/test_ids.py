"""compiler/core/ids.py: all_plain, the one-match gate of EP015, is grammar_problem over every id."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from compiler.core import ids

_IDS = st.lists(st.text(alphabet="aZ09-_./:\n é\tа", min_size=0, max_size=6), max_size=5)


@given(_IDS)
@example(["a" * 128, "b"])
@example(["a" * 129])
@example(["a\nb"])
@example([])
@example(["-a"])
def test_all_plain_is_every_id_valid_and_ascii(idents: list[str]) -> None:
    every_valid = all(ids.grammar_problem(i) is None for i in idents)
    if ids.all_plain(idents):
        assert every_valid
    elif idents and all(i and i.isascii() and "\n" not in i for i in idents):
        assert not every_valid
