"""compiler/core/edits.py: text edits applied all at once, on the plan's own file only, never two
that overlap; and edits of the data."""

from __future__ import annotations

import pytest

from compiler.core.diagnostics import TextEdit
from compiler.core.edits import KEEP, REMOVE, EditError, Rename, apply_text_edits, apply_to_data, overlaps

TEXT = "items:\n  - id: a\n    proof: p\n"


def edit(sl: int, sc: int, el: int, ec: int, new: str, file: str = "plan.yaml") -> TextEdit:
    return TextEdit(file=file, start_line=sl, start_column=sc, end_line=el, end_column=ec, new_text=new)


def test_edits_are_made_together_on_the_text_as_it_is() -> None:
    assert apply_text_edits(TEXT, [edit(3, 12, 3, 13, "make test"), edit(2, 9, 2, 10, "b")], "plan.yaml") == \
        "items:\n  - id: b\n    proof: make test\n"


def test_an_insertion_comes_before_a_replacement_at_its_place_and_after_one_that_ends_there() -> None:
    assert apply_text_edits("abc", [edit(1, 2, 1, 3, "X"), edit(1, 2, 1, 2, "<")], "plan.yaml") == "a<Xc"
    assert apply_text_edits("abc", [edit(1, 2, 1, 3, "X"), edit(1, 3, 1, 3, ">")], "plan.yaml") == "aX>c"


def test_a_line_s_end_and_the_end_of_the_text_are_places() -> None:
    assert apply_text_edits("ab\ncd", [edit(1, 3, 2, 1, " "), edit(2, 3, 2, 3, "!")], "plan.yaml") == "ab cd!"
    assert apply_text_edits("ab\n", [edit(2, 1, 2, 1, "c\n")], "plan.yaml") == "ab\nc\n"


def test_the_same_edit_twice_is_made_once() -> None:
    assert apply_text_edits("abc", [edit(1, 2, 1, 3, ""), edit(1, 2, 1, 3, "")], "plan.yaml") == "ac"


@pytest.mark.parametrize("edits", [
    [edit(1, 1, 1, 3, "x"), edit(1, 2, 1, 4, "y")],  # sharing a character
    [edit(1, 1, 1, 4, "x"), edit(1, 2, 1, 2, "y")],  # an insertion inside a replaced span
    [edit(1, 2, 1, 2, "x"), edit(1, 2, 1, 2, "y")],  # two insertions at one place: their order a guess
    [edit(1, 2, 1, 3, "x"), edit(1, 2, 1, 3, "y")],  # one span, two texts
])
def test_overlapping_edits_are_refused(edits: list[TextEdit]) -> None:
    with pytest.raises(EditError, match="overlap"):
        apply_text_edits("abcdef", edits, "plan.yaml")


@pytest.mark.parametrize("bad", [
    edit(1, 5, 1, 5, "x"),  # past the end of line 1 ("abc" + its \n: column 4 is the last place)
    edit(3, 1, 3, 1, "x"),  # past the end of the text
    edit(0, 1, 1, 1, "x"),
    edit(1, 3, 1, 2, "x"),  # ends before it starts
])
def test_a_place_the_text_does_not_have_is_refused(bad: TextEdit) -> None:
    with pytest.raises(EditError):
        apply_text_edits("abc\nd", [bad], "plan.yaml")


def test_an_edit_of_another_file_is_refused_and_nothing_is_made() -> None:
    with pytest.raises(EditError, match="outside"):
        apply_text_edits(TEXT, [edit(2, 9, 2, 10, "b"), edit(1, 1, 1, 1, "x", file="../other.yaml")], "plan.yaml")


def test_overlaps_judges_as_the_applier_does_or_more_strictly() -> None:
    assert overlaps([(0, 3)], [(2, 4)]) and overlaps([(2, 2)], [(2, 5)]) and not overlaps([(0, 2)], [(2, 4)])


def test_changes_of_the_data_copy_only_what_they_change() -> None:
    data = {"items": [{"id": "a", "files": ["x"], "depends_on": ["b", "b"]}], "plan": {"deep": 1}}
    out = apply_to_data(data, [(("items", 0, "depends_on", 1), REMOVE), (("items", 0, "files"), Rename("paths")),
                               (("items", 0, "id"), "c")])
    assert out == {"items": [{"id": "c", "paths": ["x"], "depends_on": ["b"]}], "plan": {"deep": 1}}
    assert list(out["items"][0]) == ["id", "paths", "depends_on"]  # the renamed key in its place
    assert out["plan"] is data["plan"] and data["items"][0]["depends_on"] == ["b", "b"]
    assert Rename("paths").value is KEEP
