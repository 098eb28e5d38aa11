"""Stage 1: compiler.load (read, json_reader, yaml_reader, document) and compiler.load.sourcemap.

Loading YAML and JSON into plain data, the position (1-based line, column) of every value and
key, format detection, and every way a file is refused as input (EP001..EP005, exit 2; EP004, a
document that is no plan, as compiler.model.validate.build_plan meets it through load.plan_shape).
"""

from __future__ import annotations

import io
import os
import textwrap
from typing import Any

import pytest
from work import count

from compiler.core.diagnostics import Diagnostic, PlanInputError
from compiler.load.document import Document, load, parse_text
from compiler.load.limits import DEFAULT_LIMITS
from compiler.model.validate import build_plan


def yaml(text: str) -> Document:
    return parse_text(textwrap.dedent(text).lstrip("\n"), "plan.yaml", "yaml")


def json_doc(text: str) -> Document:
    return parse_text(textwrap.dedent(text).lstrip("\n"), "plan.json", "json")


def refused(call: Any, *args: Any, **kwargs: Any) -> Diagnostic:
    """The diagnostic of the PlanInputError that ``call(*args, **kwargs)`` raises."""
    with pytest.raises(PlanInputError) as info:
        call(*args, **kwargs)
    return info.value.diagnostic


def where(d: Diagnostic) -> tuple[int | None, int | None]:
    assert d.location is not None
    return d.location.line, d.location.column


# --- loading and positions ---------------------------------------------------------------------

PLAN_YAML = """
plan: demo
items:
  - id: a
    change: Do a
    depends_on: [b, c]
    evidence:
      - app.py:3
  - id: b
"""

PLAN_JSON = """
{
  "plan": "demo",
  "items": [
    {"id": "a", "change": "Do a", "depends_on": ["b", "c"],
     "evidence": ["app.py:3"]},
    {"id": "b"}
  ]
}
"""

PLAN_DATA = {
    "plan": "demo",
    "items": [
        {"id": "a", "change": "Do a", "depends_on": ["b", "c"], "evidence": ["app.py:3"]},
        {"id": "b"},
    ],
}


def test_yaml_loads_plain_data() -> None:
    doc = yaml(PLAN_YAML)
    assert doc.data == PLAN_DATA
    assert (doc.name, doc.format) == ("plan.yaml", "yaml")


def test_json_loads_plain_data() -> None:
    doc = json_doc(PLAN_JSON)
    assert doc.data == PLAN_DATA
    assert (doc.name, doc.format) == ("plan.json", "json")


# (path, position of the value, position of the key); a list entry's "key" is its value.
YAML_POSITIONS = [
    ((), (1, 1), (1, 1)),
    (("plan",), (1, 7), (1, 1)),
    (("items",), (3, 3), (2, 1)),
    (("items", 0), (3, 5), (3, 5)),
    (("items", 0, "id"), (3, 9), (3, 5)),
    (("items", 0, "change"), (4, 13), (4, 5)),
    (("items", 0, "depends_on"), (5, 17), (5, 5)),
    (("items", 0, "depends_on", 0), (5, 18), (5, 18)),  # inside a flow sequence
    (("items", 0, "depends_on", 1), (5, 21), (5, 21)),
    (("items", 0, "evidence", 0), (7, 9), (7, 9)),
    (("items", 1, "id"), (8, 9), (8, 5)),
]


@pytest.mark.parametrize(("path", "value", "key"), YAML_POSITIONS)
def test_yaml_positions(path: tuple[Any, ...], value: tuple[int, int], key: tuple[int, int]) -> None:
    smap = yaml(PLAN_YAML).source_map
    assert smap.value(path) == value
    assert smap.key(path) == key


JSON_POSITIONS = [
    ((), (1, 1), (1, 1)),
    (("plan",), (2, 11), (2, 3)),
    (("items",), (3, 12), (3, 3)),
    (("items", 0), (4, 5), (4, 5)),
    (("items", 0, "id"), (4, 12), (4, 6)),
    (("items", 0, "depends_on"), (4, 49), (4, 35)),
    (("items", 0, "depends_on", 0), (4, 50), (4, 50)),
    (("items", 0, "depends_on", 1), (4, 55), (4, 55)),
    (("items", 0, "evidence"), (5, 18), (5, 6)),
    (("items", 0, "evidence", 0), (5, 19), (5, 19)),
    (("items", 1, "id"), (6, 12), (6, 6)),
]


@pytest.mark.parametrize(("path", "value", "key"), JSON_POSITIONS)
def test_json_positions(path: tuple[Any, ...], value: tuple[int, int], key: tuple[int, int]) -> None:
    smap = json_doc(PLAN_JSON).source_map
    assert smap.value(path) == value
    assert smap.key(path) == key


@pytest.mark.parametrize("make", [yaml, json_doc], ids=["yaml", "json"])
def test_missing_path_falls_back_to_nearest_known_ancestor(make: Any) -> None:
    doc = make(PLAN_YAML if make is yaml else PLAN_JSON)
    item = doc.source_map.value(("items", 1))
    assert doc.source_map.value(("items", 1, "proof")) == item
    assert doc.source_map.key(("items", 1, "proof")) == item
    assert doc.source_map.value(("items", 1, "evidence", 3, "path")) == item


def test_json_positions_ignore_brackets_and_colons_inside_strings() -> None:
    doc = json_doc('{"a": "x: [y, {z}]", "b\\"": ["q", "r"]}\n')
    assert doc.data == {"a": "x: [y, {z}]", 'b"': ["q", "r"]}
    assert doc.source_map.key(('b"',)) == (1, 22)
    assert doc.source_map.value(('b"', 1)) == (1, 35)


def test_positions_count_characters_not_bytes() -> None:
    doc = yaml('goal: "héllo wörld"\nplan: x\nitems: [{id: ü, proof: p}]\n')
    assert doc.source_map.value(("items", 0, "proof")) == (3, 24)
    doc = json_doc('{"goal": "héllo wörld", "plan": "x"}\n')
    assert doc.source_map.value(("plan",)) == (1, 33)


# --- reading files and standard input ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("plan.yaml", "items: []\n", "yaml"),
        ("plan.yml", "items: []\n", "yaml"),
        ("PLAN.YAML", "items: []\n", "yaml"),
        ("plan.json", '{"items": []}\n', "json"),
        # the extension decides, not the content: JSON is YAML too
        ("plan.yaml", '{"items": []}\n', "yaml"),
    ],
)
def test_format_from_extension(write: Any, name: str, text: str, fmt: str) -> None:
    path = write(name, text)
    doc = load(str(path))
    assert (doc.format, doc.data, doc.name) == (fmt, {"items": []}, str(path))


@pytest.mark.parametrize(
    ("raw", "fmt"),
    [
        (b'{"items": []}\n', "json"),
        (b'\n  [\n{"id": "a"}]', "json"),
        (b"items: []\n", "yaml"),
        (b"- id: a\n", "yaml"),
        (b"# a comment\n{items: []}\n", "yaml"),
    ],
)
def test_format_from_content_for_stdin(raw: bytes, fmt: str) -> None:
    doc = load("-", stdin=io.BytesIO(raw))
    assert doc.format == fmt
    assert doc.name == "<stdin>"


def test_stdin_json_positions() -> None:
    doc = load("-", stdin=io.BytesIO(b'{\n  "items": [\n    {"id": "a"}\n  ]\n}\n'))
    assert doc.source_map.value(("items", 0, "id")) == (3, 12)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_utf8_bom_is_accepted(write: Any, fmt: str) -> None:
    body = b"items:\n  - id: a\n" if fmt == "yaml" else b'{"items":\n [{"id": "a"}]}\n'
    doc = load(str(write(f"plan.{fmt}", b"\xef\xbb\xbf" + body)))
    assert doc.data == {"items": [{"id": "a"}]}
    # the BOM takes no column
    assert doc.source_map.key(("items",)) == ((1, 1) if fmt == "yaml" else (1, 2))
    assert doc.source_map.value(("items", 0, "id")) == ((2, 9) if fmt == "yaml" else (2, 10))


def test_utf8_bom_on_stdin() -> None:
    doc = load("-", stdin=io.BytesIO(b'\xef\xbb\xbf{"items": []}'))
    assert (doc.format, doc.data) == ("json", {"items": []})


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_crlf_is_accepted_with_the_same_positions(write: Any, fmt: str) -> None:
    if fmt == "yaml":
        body = "items:\n  - id: a\n    depends_on: [b]\n"
        expected = (3, 18)
    else:
        body = '{"items": [\n  {"id": "a",\n   "depends_on": ["b"]}]}\n'
        expected = (3, 19)
    doc = load(str(write(f"plan.{fmt}", body.replace("\n", "\r\n").encode())))
    assert doc.data == {"items": [{"id": "a", "depends_on": ["b"]}]}
    assert doc.source_map.value(("items", 0, "depends_on", 0)) == expected


# --- EP001: the file cannot be read -------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "byte", "line", "column"),
    [
        (b"items:\n  - id: \xff\n", "0xff", 2, 9),
        (b"\xfe", "0xfe", 1, 1),
        (b"items:\n  - id: caf\xe9\n", "0xe9", 2, 12),  # Latin-1, not UTF-8
        ("items:\n  - id: é\n".encode() + b"    proof: \x80\n", "0x80", 3, 12),
    ],
)
def test_not_utf8_is_ep001_with_a_line(write: Any, raw: bytes, byte: str, line: int, column: int) -> None:
    path = str(write("plan.yaml", raw))
    d = refused(load, path)
    assert d.code == "EP001"
    assert d.message == f"not UTF-8 (byte {byte})"
    assert d.location is not None and d.location.file == path
    assert where(d) == (line, column)
    assert d.hint


def test_not_utf8_on_stdin() -> None:
    d = refused(load, "-", stdin=io.BytesIO(b'{"items": [\n  "\x80"]}'))
    assert (d.code, d.location.file if d.location else None) == ("EP001", "<stdin>")
    assert where(d) == (2, 4)


def test_missing_file_is_ep001(tmp_path: Any) -> None:
    path = str(tmp_path / "nope.yaml")
    d = refused(load, path)
    assert (d.code, d.message) == ("EP001", "no such file")
    assert d.location is not None and d.location.file == path and d.location.line is None


def test_folder_is_ep001(tmp_path: Any) -> None:
    folder = tmp_path / "plan.yaml"
    folder.mkdir()
    d = refused(load, str(folder))
    assert d.code == "EP001"
    assert "folder" in d.message


@pytest.mark.parametrize(("name", "shown"), [("plan.txt", "'.txt'"), ("plan", "(none)"), ("plan.toml", "'.toml'")])
def test_unknown_extension_is_ep001(write: Any, name: str, shown: str) -> None:
    d = refused(load, str(write(name, "items: []\n")))
    assert d.code == "EP001"
    assert "unknown extension" in d.message and shown in d.message
    assert d.hint is not None and ".yaml" in d.hint


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions, not root")
def test_unreadable_file_is_ep001(write: Any) -> None:
    path = write("plan.yaml", "items: []\n")
    path.chmod(0)
    try:
        d = refused(load, str(path))
    finally:
        path.chmod(0o644)
    assert d.code == "EP001"
    assert "cannot read" in d.message


# --- EP002: syntax errors -----------------------------------------------------------------------

YAML_SYNTAX = [
    ("items: [a, b\n", 1, 8),  # an unclosed bracket or quote is located where it opens
    ("items:\n  - id: a\n   change: b\n", 3, 4),
    ("items:\n  - id: a\n    change: \"unclosed\n", 3, 13),
    ("a: b\n  c: d\n", 2, 4),
    ("items:\n\t- id: a\n", 2, 1),
]


@pytest.mark.parametrize(("text", "line", "column"), YAML_SYNTAX)
def test_yaml_syntax_error_is_ep002_with_line_and_column(text: str, line: int, column: int) -> None:
    d = refused(parse_text, text, "plan.yaml", "yaml")
    assert d.code == "EP002"
    assert d.message.startswith("invalid YAML: ")
    assert where(d) == (line, column)


JSON_SYNTAX = [
    ('{"items": [\n  {"id": "a",}\n]}', "a comma before the closing }", 2, 13),  # at the comma
    ('{"items": []', "the { opened here is never closed", 1, 1),  # where it opens
    ('{"items": [\n  {"id": \'a\'}]}', "a string in single quotes", 2, 10),
    ('{"items": [\n  // a note\n]}', "a comment", 2, 3),
    ("", "Expecting value", 1, 1),
    ('{"items": []}\n{}', "Extra data", 2, 1),
    ("items: []", "Expecting value", 1, 1),
]


@pytest.mark.parametrize(("text", "fragment", "line", "column"), JSON_SYNTAX)
def test_json_syntax_error_is_ep002_with_line_and_column(text: str, fragment: str, line: int, column: int) -> None:
    d = refused(parse_text, text, "plan.json", "json")
    assert d.code == "EP002"
    assert d.message == f"invalid JSON: {fragment}"
    assert where(d) == (line, column)


@pytest.mark.parametrize(("text", "hint"), [
    ('{"items": [1,]}', "JSON allows no comma after the last entry: remove it"),
    ('{"items": [{"id": "a"}\n', "add the ] it needs (or a missing comma or quote before the end)"),
    ("{'items': []}", "JSON strings take double quotes"),
    ('/* plan */ {"items": []}', "JSON has no comments: remove it (a YAML plan may have # comments)"),
])
def test_json_written_as_other_formats_allow_gets_the_fix(text: str, hint: str) -> None:
    assert refused(parse_text, text, "plan.json", "json").hint == hint


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_ep002(constant: str) -> None:
    d = refused(parse_text, f'{{"items": [\n  {{"id": {constant}}}]}}', "plan.json", "json")
    assert d.code == "EP002"
    assert constant.lstrip("-") in d.message


def test_json_nan_error_is_located() -> None:
    d = refused(parse_text, '{"items": [\n  {"id": NaN}]}', "plan.json", "json")
    assert where(d) == (2, 10)


# --- EP003: duplicate keys ----------------------------------------------------------------------


def test_yaml_duplicate_key_is_ep003_naming_the_key_and_the_first_line() -> None:
    d = refused(yaml, """
        items:
          - id: a
            proof: one
            change: x
            proof: two
    """)
    assert d.code == "EP003"
    assert d.message == "duplicate key 'proof' (first at line 3)"
    assert where(d) == (5, 5)


def test_yaml_duplicate_top_level_key() -> None:
    d = refused(yaml, "items: []\nplan: x\nitems: []\n")
    assert (d.code, d.message, where(d)) == ("EP003", "duplicate key 'items' (first at line 1)", (3, 1))


def test_yaml_duplicate_key_in_flow_mapping() -> None:
    d = refused(yaml, "items:\n  - {id: a, id: b}\n")
    assert (d.code, d.message, where(d)) == ("EP003", "duplicate key 'id' (first at line 2)", (2, 13))


def test_json_duplicate_key_is_ep003_naming_the_key_and_the_first_line() -> None:
    d = refused(json_doc, """
        {"items": [
          {"id": "a",
           "proof": "one",
           "proof": "two"}
        ]}
    """)
    assert d.code == "EP003"
    assert d.message == "duplicate key 'proof' (first at line 3)"
    assert where(d) == (4, 4)


def test_json_same_key_in_sibling_objects_is_not_a_duplicate() -> None:
    doc = json_doc('[{"id": "a"}, {"id": "b", "x": {"id": "c"}}]')
    assert doc.data == [{"id": "a"}, {"id": "b", "x": {"id": "c"}}]


def test_json_duplicate_key_in_a_later_object() -> None:
    d = refused(json_doc, '{"x": {"a": 1}, "y": {"a": 1,\n "a": 3}}')
    assert (d.code, d.message, where(d)) == ("EP003", "duplicate key 'a' (first at line 1)", (2, 2))


# --- EP004: not a plan (plan_shape, as build_plan calls it) ---------------------------------------

NOT_A_PLAN = [
    ("42\n", "not a plan: the document is the number 42", (1, 1)),
    ("just text\n", "not a plan: the document is text", (1, 1)),
    ("", "not a plan: the file is empty", (1, 1)),
    ("# nothing but a comment\n", "not a plan: the file holds only comments", (1, 1)),
    ("- a\n- 2\n", "not a plan: a list of text, the number 2, not of items", (1, 1)),
    ("plan: x\ngoal: y\n", "not a plan: no items", (1, 1)),
    ("id: a\nchange: x\n", "not a plan: no items", (1, 1)),
    ("plan: x\nitems: a, b\n", "not a plan: items must be a list, not text", (2, 8)),
    ("items:\n  a: 1\n", "not a plan: items must be a list, not a mapping", (2, 3)),
    pytest.param(
        "items:\n", "not a plan: items must be a list, not null", (1, None),
    ),
]


@pytest.mark.parametrize(("text", "message", "position"), NOT_A_PLAN)
def test_ep004_not_a_plan(text: str, message: str, position: tuple[int, int | None]) -> None:
    with pytest.raises(PlanInputError) as info:
        build_plan(parse_text(text, "plan.yaml", "yaml"))
    d = info.value.diagnostic
    assert (d.code, d.item, d.message) == ("EP004", None, message)
    assert d.location is not None
    line, column = position
    assert d.location.line == line
    if column is not None:
        assert d.location.column == column
    assert d.input_error


def test_ep004_single_item_gets_a_hint() -> None:
    with pytest.raises(PlanInputError) as info:
        build_plan(yaml("id: a\nchange: x\n"))
    assert info.value.diagnostic.hint == "a single item? put it in a list under items:"


def test_ep004_in_json() -> None:
    with pytest.raises(PlanInputError) as info:
        build_plan(json_doc('{"plan": "x",\n "items": {"a": 1}}'))
    d = info.value.diagnostic
    assert d.location is not None
    assert (d.code, d.location.line, d.location.column) == ("EP004", 2, 11)


# --- EP005: YAML features that plans refuse ------------------------------------------------------


@pytest.fixture
def no_system(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record any call of os.system / subprocess: an explicit tag must never be constructed."""
    import subprocess

    calls: list[Any] = []
    monkeypatch.setattr(os, "system", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: calls.append(a))
    return calls


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('a: !!python/object/apply:os.system ["echo pwned"]\n', 1, 4),
        ("a: !!python/object/apply:os.system\n  args: [echo pwned]\n", 1, 4),
        ("items:\n  - id: a\n    proof: !!python/object/apply:os.system 'echo pwned'\n", 3, 12),
        ("items:\n  - !!python/object:builtins.dict {id: a}\n", 2, 5),
    ],
)
def test_python_tags_are_ep005_and_never_constructed(no_system: list[Any], text: str, line: int, column: int) -> None:
    d = refused(parse_text, text, "plan.yaml", "yaml")
    assert d.code == "EP005"
    assert "unsupported tag" in d.message and "python/object" in d.message
    assert where(d) == (line, column)
    assert no_system == []


@pytest.mark.parametrize("text", ["a: !foo bar\n", "a: !!binary aGVsbG8=\n", "a: !!set {x, y}\n", "a: !custom [1]\n"])
def test_other_explicit_tags_are_ep005(text: str) -> None:
    d = refused(parse_text, text, "plan.yaml", "yaml")
    assert (d.code, where(d)) == ("EP005", (1, 4))
    assert "unsupported tag" in d.message


def test_tagged_collection_message_matches_tagged_scalar() -> None:
    scalar = refused(parse_text, "a: !!python/object/apply:os.system 'x'\n", "plan.yaml", "yaml")
    seq = refused(parse_text, "a: !!python/object/apply:os.system ['x']\n", "plan.yaml", "yaml")
    assert scalar.message == "unsupported tag !!python/object/apply:os.system"
    assert seq.message == scalar.message
    assert seq.hint == scalar.hint


def test_merge_key_is_ep005() -> None:
    d = refused(yaml, """
        defaults: &defaults
          proof: make test
        items:
          - <<: *defaults
            id: a
    """)
    assert (d.code, d.message, where(d)) == ("EP005", "merge keys (<<) are not supported", (4, 5))


def test_non_scalar_key_is_ep005() -> None:
    d = refused(yaml, "items:\n  - ? [a, b]\n    : c\n")
    assert (d.code, d.message, where(d)) == ("EP005", "a key must be plain text", (2, 7))


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['l0: &l0 ["lol"]']
    for n in range(1, levels + 1):
        lines.append(f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * width) + "]")
    lines.append("items: []")
    return "\n".join(lines) + "\n"


@pytest.mark.hostile
def test_alias_bomb_is_refused_quickly() -> None:
    """Refused once the aliases have expanded to max_alias_nodes nodes, not after the 9^9 the
    document holds: at most 20 calls a node allowed (tests/work.py; 9.9 measured)."""
    bomb = billion_laughs()
    refused(parse_text, bomb, "plan.yaml", "yaml")  # the imports, not counted
    counted = count(lambda: refused(parse_text, bomb, "plan.yaml", "yaml"))
    assert counted.calls < 20 * DEFAULT_LIMITS.max_alias_nodes, counted.top()
    d = counted.value
    assert d.code == "EP005"
    assert d.message == f"aliases expand to more than {DEFAULT_LIMITS.max_alias_nodes:,} nodes"
    assert d.location is not None and d.location.line is not None and d.location.line <= 10
    assert d.hint


def test_a_few_aliases_are_fine() -> None:
    doc = yaml("""
        common: &ev [app.py:1]
        items:
          - {id: a, evidence: *ev}
          - {id: b, evidence: *ev}
    """)
    assert doc.data["items"][1] == {"id": "b", "evidence": ["app.py:1"]}
    assert doc.source_map.value(("items", 1, "evidence")) == (1, 9)  # the anchored node, where its anchor is


@pytest.mark.parametrize("text", ["- " * 3000 + "x\n", "".join("  " * i + "a:\n" for i in range(1200))],
                         ids=["block-sequences", "block-mappings"])
def test_deep_yaml_nesting_is_ep005(text: str) -> None:
    """Refused at the 101st level, whatever lies deeper: the work of reading 100 levels, at most
    50,000 calls (tests/work.py; 28,665 and 660 measured)."""
    refused(parse_text, text, "plan.yaml", "yaml")  # the imports, not counted
    counted = count(lambda: refused(parse_text, text, "plan.yaml", "yaml"))
    d = counted.value
    assert (d.code, d.message) == ("EP005", "nesting deeper than 100 levels")
    assert d.location is not None and d.location.line is not None  # where it goes too deep
    assert counted.calls < 50_000, counted.top()


def test_deep_json_nesting_is_an_input_error() -> None:
    d = refused(parse_text, "[" * 100_000 + "]" * 100_000, "plan.json", "json")
    assert d.input_error


def test_deep_json_nesting_says_too_deep() -> None:
    d = refused(parse_text, "[" * 100_000 + "]" * 100_000, "plan.json", "json")
    assert "recursion" not in d.message
    assert "too deep" in d.message


# --- YAML 1.2 scalars ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("on", "on"),
        ("off", "off"),
        ("no", "no"),
        ("yes", "yes"),
        ("y", "y"),
        ("true", True),
        ("false", False),
        ("null", None),
        ("~", None),
        ("", None),
        ("12", 12),
        ("1.5", 1.5),
        ("2024-01-05", "2024-01-05"),  # an unquoted date is the text the user wrote
        ("2024-1-5", "2024-1-5"),
        ("2024-01-05 10:30:00", "2024-01-05 10:30:00"),
        ('"2024-01-05"', "2024-01-05"),
        ("'no'", "no"),
    ],
)
def test_yaml_scalars(scalar: str, value: Any) -> None:
    doc = yaml(f"v: {scalar}\n")
    assert doc.data == {"v": value}
    assert type(doc.data["v"]) is type(value)


def test_yaml_ids_on_no_yes_are_text() -> None:
    doc = yaml("items:\n  - id: on\n    depends_on: [no, yes]\n")
    assert doc.data == {"items": [{"id": "on", "depends_on": ["no", "yes"]}]}


def test_scalar_keys_are_the_text_written() -> None:
    assert yaml("1: a\ntrue: b\nno: c\n").data == {"1": "a", "true": "b", "no": "c"}


def test_empty_yaml_document_is_none() -> None:
    for text in ("", "# only a comment\n"):
        doc = parse_text(text, "plan.yaml", "yaml")
        assert doc.data is None
        assert doc.source_map.value(()) == (1, 1)


def test_empty_value_is_located_on_its_own_line() -> None:
    doc = yaml("""
        items:
          - id: a
            proof:
            change: x
          - id:
    """)
    assert doc.source_map.value(("items", 0, "proof"))[0] == 3  # type: ignore[index]
    assert doc.source_map.value(("items", 1, "id"))[0] == 5  # type: ignore[index]
