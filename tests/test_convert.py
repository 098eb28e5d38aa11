"""compiler.convert.convert: the library half of `evidence-plan convert`, called from Python."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.cli import cli
from compiler.convert import TARGETS, convert, dump_json, dump_yaml, target_for
from compiler.diagnostics import PlanInputError

PLAN = """\
plan: Small
root: .
items:
  - id: a
    change: Do a
    evidence: [README.md:1]
    proof: pytest
  - id: b
    change: Do b
    evidence: [README.md:1]
    depends_on: [a]
    proof: pytest
"""


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# Small\n")
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN)
    return path


def test_every_target_has_an_extension() -> None:
    assert {target_for(f"x.{kind}") for kind in TARGETS} == set(TARGETS)
    assert target_for("x.YML") == "yaml" and target_for("x.txt") is None and target_for(".yaml") is None


def test_json_holds_the_items_and_the_root_seen_from_the_output_folder(plan: Path, tmp_path: Path) -> None:
    converted = convert(str(plan), "json", str(tmp_path / "out"))
    assert converted.name == str(plan) and converted.diagnostics == ()
    data = json.loads(converted.text or "")
    assert data["root"] == ".."  # the plan's folder, seen from out/
    assert [item["id"] for item in data["items"]] == ["a", "b"]
    assert data["items"][1]["depends_on"] == ["a"]


def test_yaml_converts_back_to_the_same_items(plan: Path, tmp_path: Path) -> None:
    yaml_text = convert(str(plan), "yaml", str(plan.parent)).text or ""
    again = tmp_path / "again.yaml"
    again.write_text(yaml_text)
    assert convert(str(again), "json", str(plan.parent)) == convert(str(plan), "json", str(plan.parent))._replace(
        name=str(again))


def test_markdown_is_the_rendering_of_the_compiled_plan(plan: Path) -> None:
    text = convert(str(plan), "md", str(plan.parent)).text or ""
    assert text.startswith("# Small\n\n**Status: ready** · 2 items · 2 waves")
    assert "[`README.md:1`](README.md#L1)" in text


def test_a_plan_whose_items_do_not_fit_is_not_converted_and_says_why(plan: Path) -> None:
    plan.write_text(PLAN.replace("depends_on: [a]", "depends_on: 3"))
    converted = convert(str(plan), "yaml", str(plan.parent))
    assert converted.text is None
    assert [(d.code, d.item, d.location and d.location.line) for d in converted.diagnostics] == [("EP011", "b", 11)]


def test_an_unreadable_plan_raises_the_input_error(tmp_path: Path) -> None:
    with pytest.raises(PlanInputError) as raised:
        convert(str(tmp_path / "missing.yaml"), "json", str(tmp_path))
    assert raised.value.diagnostic.code == "EP001"


# --- the command, as a user runs it -----------------------------------------------------------------

def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


COMMENTED = """\
# Why this plan exists: a comment convert cannot keep.
items:
  - id: a
    change: |
      A block scalar,
      over two lines.
    evidence: [README.md:1]
    proof: pytest
"""


@pytest.mark.parametrize("alias", ["same path", "dot slash", "symlink", "hard link", "other extension link"])
def test_convert_onto_the_plan_itself_is_refused_and_leaves_it_byte_for_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alias: str) -> None:
    (tmp_path / "README.md").write_text("# Small\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text(COMMENTED)
    monkeypatch.chdir(tmp_path)
    if alias == "same path":
        out = "plan.yaml"
    elif alias == "dot slash":
        out = "./plan.yaml"
    elif alias == "symlink":
        (tmp_path / "link.yaml").symlink_to(plan)
        out = "link.yaml"
    elif alias == "hard link":
        os.link(plan, tmp_path / "hard.yaml")
        out = "hard.yaml"
    else:
        (tmp_path / "plan.json").symlink_to(plan)
        out = "plan.json"
    result = run("convert", "plan.yaml", out)
    assert result.exit_code == 2, result.output
    assert f"{out}: error: OUT is the plan itself (plan.yaml)" in result.stderr
    assert "hint: write to another file; to repair a plan in place, use evidence-plan fix" in result.stderr
    assert plan.read_text() == COMMENTED
    assert not result.stdout


def test_convert_to_a_new_file_beside_the_plan_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "README.md").write_text("# Small\n")
    (tmp_path / "plan.yaml").write_text(COMMENTED)
    monkeypatch.chdir(tmp_path)
    result = run("convert", "plan.yaml", "./plan.json")
    assert result.exit_code == 0, result.output
    item = json.loads((tmp_path / "plan.json").read_text())["items"][0]
    assert item["change"] == "A block scalar,\nover two lines.\n"


def test_converted_json_has_one_key_per_line_so_diagnostics_have_short_columns(plan: Path, tmp_path: Path) -> None:
    plan.write_text(PLAN.replace("[README.md:1]", "[{path: README.md, line: 1, contains: Small}]", 1))
    text = convert(str(plan), "json", str(plan.parent)).text or ""
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert '      "evidence": [\n        {\n          "path": "README.md",\n          "line": 1,' in text
    assert max(map(len, text.splitlines())) < 40
    broken = tmp_path / "broken.json"
    broken.write_text(text.replace('"proof": "pytest"', '"proof": ""', 1))
    result = run("check", str(broken))
    assert result.exit_code == 1
    line = next(n for n, row in enumerate(broken.read_text().splitlines(), 1) if '"proof": ""' in row)
    assert f"{broken}:{line}:16: error EP102 a has no proof command" in result.stdout


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                    max_leaves=12))
def test_plan_json_is_what_json_dumps_indent_2_writes_for_any_data(data: object) -> None:
    assert dump_json(data) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_plan_json_of_deeply_nested_data_needs_no_recursion() -> None:
    deep: object = "x"
    for _ in range(5_000):
        deep = [deep]
    lines = dump_json(deep).splitlines()  # (json itself cannot read it back: it recurses)
    assert len(lines) == 10_001 and lines[4_999] == " " * 9_998 + "[" and lines[5_000] == " " * 10_000 + '"x"'


# YAML 1.1's implicit types (https://yaml.org/type/), as strings a plan may hold: what a YAML 1.1
# reader would otherwise take for a number, a date, a boolean, null, a merge key or a value key.
YAML11_LOOKALIKES = st.one_of(
    st.from_regex(r"\A[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?\Z"),  # base 60: 1:20, 190:20:30
    st.from_regex(r"\A[-+]?(0b[0-1_]+|0[0-7_]+|0x[0-9a-fA-F_]+|[1-9][0-9_]*|0)\Z"),  # 0b1, 012, 0x1F, 1_000
    st.from_regex(r"\A[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?\Z"),
    st.from_regex(r"\A[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)\Z"),
    st.from_regex(r"\A[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?( ?Z)?)?\Z"),
    st.sampled_from(["~", "null", "Null", "NULL", "=", "<<", "y", "Y", "n", "N", "yes", "No", "ON", "off",
                     "True", "FALSE", "12:30", "1:20", "190:20:30", "012", "0b1", "0x1F", "1_000", ".inf"]),
)


def read_back(text: str) -> list[object]:
    """The one value of ``text`` as three readers see it: PyYAML (YAML 1.1), ruamel.yaml (YAML
    1.2) and this package's own reader."""
    import yaml
    from ruamel.yaml import YAML

    from compiler.load import parse_text

    return [yaml.safe_load(text)["k"], YAML(typ="safe", pure=True).load(text)["k"],
            parse_text(text, "plan.yaml", "yaml").data["k"]]


@given(st.one_of(YAML11_LOOKALIKES, st.text(), st.text(alphabet="0123456789:._-+xobeE ~=<>TZ\n\t#'\"", max_size=12)))
@settings(max_examples=600, deadline=None)
def test_every_string_written_as_yaml_reads_back_as_the_same_string_in_yaml_1_1_and_1_2(value: str) -> None:
    assert read_back(dump_yaml({"k": value})) == [value, value, value]


@pytest.mark.parametrize("value", ["1:20", "12:30", "190:20:30", "012", "0b1", "0x1F", "1_000", ".inf", "~", "=",
                                   "<<", "2001-12-14", "no", "on", "null"])
def test_yaml_1_1_lookalikes_are_quoted(value: str) -> None:
    assert dump_yaml({"id": value}) == f"id: '{value}'\n"


def test_a_converted_plan_with_the_id_12_30_keeps_it_as_text_for_pyyaml(plan: Path, tmp_path: Path) -> None:
    import yaml

    plan.write_text(PLAN.replace("id: b", "id: '12:30'"))
    text = convert(str(plan), "yaml", str(plan.parent)).text or ""
    assert "\n- id: '12:30'\n" in text
    assert [item["id"] for item in yaml.safe_load(text)["items"]] == ["a", "12:30"]
