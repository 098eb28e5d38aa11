"""compiler/load/spans.py and json_nodes.py: where a change of the data falls in the text, for a
JSON plan as for a YAML one, and what replaces it reads back as exactly the changed data."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from compiler.core.diagnostics import Fix
from compiler.core.edits import REMOVE, SOURCE_TEXT, Rename, apply_text_edits, apply_to_data
from compiler.load.json_nodes import compose
from compiler.load.spans import make_edits

AWKWARD = ["a: b # c", 'say "hi"', "back\\slash", "line\nbreak", "tab\there", "\u2028sep", "\U0001f642 and é",
           "[flow, {x: 1}]", "- dash", "", " padded ", "null", "12", "it's"]
DATA = {"items": [{"id": "a", "change": "c", "evidence": ["x.py", "y.py", "z.py"], "depends_on": [], "proof": "p",
                   "phase": 12}]}


def _applied(text: str, fmt: str, changes: tuple[tuple[tuple[Any, ...], Any], ...]) -> str:
    (fix,) = make_edits(text, fmt, "plan", [Fix(message="m", applicability="safe", changes=changes)])
    assert fix is not None and fix.edits
    return apply_text_edits(text, fix.edits, "plan")


@pytest.mark.parametrize("fmt", ["json", "yaml"])
@pytest.mark.parametrize("value", AWKWARD)
def test_an_awkward_value_reads_back_as_itself(fmt: str, value: str) -> None:
    text = json.dumps(DATA, indent=2) if fmt == "json" else yaml.safe_dump(DATA, sort_keys=False)
    changes = ((("items", 0, "change"), value), (("items", 0, "evidence", 1), value))
    fixed = _applied(text, fmt, changes)
    assert (json.loads(fixed) if fmt == "json" else yaml.safe_load(fixed)) == apply_to_data(DATA, changes)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_removals_renames_additions_and_source_text_in_both_formats(fmt: str) -> None:
    text = json.dumps(DATA) if fmt == "json" else yaml.safe_dump(DATA, sort_keys=False, default_flow_style=None)
    changes = ((("items", 0, "evidence", 0), REMOVE), (("items", 0, "evidence", 2), REMOVE),
               (("items", 0, "proof"), Rename("check")), (("items", 0, "pin"), "abc"),
               (("items", 0, "depends_on"), ["a", "b c"]))
    fixed = _applied(text, fmt, changes)
    read = json.loads(fixed) if fmt == "json" else yaml.safe_load(fixed)
    assert read == apply_to_data(DATA, changes)
    assert list(read["items"][0]) == ["id", "change", "evidence", "depends_on", "check", "phase", "pin"]
    (fix,) = make_edits(text, fmt, "plan", [Fix(message="m", applicability="safe",
                                                 changes=((("items", 0, "phase"), SOURCE_TEXT),))])
    assert fix is not None and fix.changes == ((("items", 0, "phase"), "12"),)  # the number as the file spells it


def test_a_change_whose_path_is_not_in_the_text_makes_no_fix() -> None:
    assert make_edits(json.dumps(DATA), "json", "plan",
                      [Fix(message="m", applicability="safe", changes=((("items", 3, "id"), "x"),))]) == [None]


def test_json_nodes_keep_the_children_of_the_paths_only() -> None:
    text = json.dumps({"a": {"b": [1, 2]}, "c": {"d": [3]}})
    root = compose(text, [("a", "b", 0)])
    (a_key, a), (c_key, c) = root.value
    assert (a_key.value, c_key.value) == ("a", "c")
    assert [n.value for n in a.value[0][1].value] == ["1", "2"]
    assert c.value == [] and text[c.start_mark.index:c.end_mark.index] == '{"d": [3]}'
