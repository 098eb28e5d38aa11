"""compiler.api.convert.convert: the library half of `evidence-plan convert`, called from Python."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from support import git_repo, run, write_plan

from compiler.api.convert import TARGETS, convert, dump_json, dump_yaml, target_for
from compiler.cli import cli
from compiler.core.diagnostics import PlanInputError

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
    assert result.stderr.splitlines() == [
        f"{out}: error: cannot write: it is the same file as plan.yaml, which this command reads",
        "  hint: nothing was written; an input is never written over: write to another file (to repair a plan in "
        "place, use evidence-plan fix)",
    ]
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


@pytest.mark.slow
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

    from compiler.load.document import parse_text

    return [yaml.safe_load(text)["k"], YAML(typ="safe", pure=True).load(text)["k"],
            parse_text(text, "plan.yaml", "yaml").data["k"]]


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@given(st.one_of(YAML11_LOOKALIKES, st.text(), st.text(alphabet="0123456789:._-+xobeE ~=<>TZ\n\t#'\"", max_size=12)))
@settings(max_examples=300, deadline=None)
def test_every_string_written_as_yaml_reads_back_as_the_same_string_in_yaml_1_1_and_1_2(value: str) -> None:
    assert read_back(dump_yaml({"k": value})) == [value, value, value]


@pytest.mark.parametrize("value", ["1:20", "12:30", "190:20:30", "012", "0b1", "0x1F", "1_000", ".inf", "~", "=",
                                   "<<", "2001-12-14", "no", "on", "null", ".", "-.", "+.", "1.2.3", ".nan",
                                   "0o7", "1e3", "y", "n", "yes", "off"])
def test_yaml_1_1_lookalikes_are_quoted(value: str) -> None:
    assert dump_yaml({"id": value}) == f"id: '{value}'\n"


# What the specifications' resolvers read as non-text (YAML 1.1: https://yaml.org/type/; YAML 1.2:
# the core schema), where PyYAML's own regular expressions are narrower: 1.1's float has optional
# digits on both sides of the point, so `.`, `-.`, `+.` and `1.2.3` are numbers to a reader that
# follows it (issue 23: `.` is the repository root, a real evidence path).
SPEC_LOOKALIKES = st.one_of(
    st.from_regex(r"\A[-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?\Z"),  # 1.1 float: `.`, `-.`, `1.2.3`
    st.from_regex(r"\A[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z"),  # 1.2 float: `1e3`
    st.from_regex(r"\A(0o[0-7]+|0x[0-9a-fA-F]+|[-+]?[0-9]+)\Z"),  # 1.2 int: `0o7`
    st.sampled_from([".", "-.", "+.", "..", ".nan", ".NaN", "-.inf", "+.Inf", "~", "null", "=", "<<", "1_000",
                     "0x1", "1e3", "12:30", "2001-12-14", "yes", "No", "on", "OFF", "y", "n"]),
)


def _plain(text: str) -> bool:
    """Whether the value of ``k`` is written plain (no quotes), as PyYAML's composer sees it."""
    node = yaml.compose(text)
    return next(value for key, value in node.value if key.value == "k").style is None


@pytest.mark.slow  # a property's examples: the full suite runs it
@given(SPEC_LOOKALIKES)
@settings(max_examples=300, deadline=None)
def test_convert_quotes_every_scalar_a_yaml_1_1_or_1_2_resolver_reads_as_non_text(value: str) -> None:
    """Quoted, and read back by PyYAML's SafeLoader (YAML 1.1) and ruamel.yaml (YAML 1.2) as the
    same string."""
    text = dump_yaml({"k": value})
    assert not _plain(text), text
    assert read_back(text) == [value, value, value]


def test_convert_to_yaml_keeps_the_root_evidence_path_dot_as_text(tmp_path: Path) -> None:
    """`.` (the repository root), `-.` and `+.`: written quoted, read back as the same strings."""
    from ruamel.yaml import YAML

    git_repo(tmp_path, {"app.py": "x = 1\n"})
    plan = write_plan(tmp_path, "items:\n  - id: a\n    change: c\n    evidence: ['.', app.py]\n"
                                "    proof: pytest\n  - id: '-.'\n    change: '+.'\n    evidence: ['.']\n"
                                "    proof: pytest\n")
    result = run("convert", str(plan), str(tmp_path / "out.yaml"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "- '.'" in text and "- id: '-.'" in text and "change: '+.'" in text
    for data in (yaml.load(text, Loader=yaml.SafeLoader), YAML(typ="safe", pure=True).load(text)):
        items = data["items"]
        assert items[0]["evidence"][0] == "."
        assert (items[1]["id"], items[1]["change"], items[1]["evidence"]) == ("-.", "+.", ["."])


def test_a_converted_plan_with_the_id_12_30_keeps_it_as_text_for_pyyaml(plan: Path, tmp_path: Path) -> None:
    import yaml

    plan.write_text(PLAN.replace("id: b", "id: '12:30'"))
    text = convert(str(plan), "yaml", str(plan.parent)).text or ""
    assert "\n- id: '12:30'\n" in text
    assert [item["id"] for item in yaml.safe_load(text)["items"]] == ["a", "12:30"]


# --- the root a converted plan needs ------------------------------------------------------------------

ROOTLESS = """\
items:
  - id: a
    change: Do a
    evidence: [app.py:1, app.py::create]
    proof: pytest
"""


def check(plan: Path, *args: str) -> Result:
    return run("check", *args, str(plan))


def written(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(
        path.read_text())
    return data


def test_a_plan_without_root_converted_into_another_folder_points_back_at_its_evidence(tmp_path: Path) -> None:
    """Outside git the plan's folder is the root: the output, compiled from its own folder, would
    have looked for app.py there, and every evidence entry would have been missing."""
    plan = write_plan(tmp_path / "a" / "sub", ROOTLESS)
    (tmp_path / "a" / "sub" / "app.py").write_text("def create():\n    pass\n")
    for name in ("plan.json", "plan.yaml"):
        out = tmp_path / "a" / name
        result = run("convert", str(plan), str(out))
        assert result.exit_code == 0, result.output
        assert "warning" not in result.stderr
        assert written(out)["root"] == "sub"
        assert check(out).exit_code == 0, check(out).output


def test_a_root_outside_the_outputs_folder_is_written_with_a_warning_that_it_is_refused_there(tmp_path: Path) -> None:
    """Outside git, a plan's root: may not leave its folder (EP208): a plan converted into a
    sibling folder gets the root its evidence needs, and the warning says that compiling it
    there takes --root."""
    plan = write_plan(tmp_path / "a", ROOTLESS)
    (tmp_path / "a" / "app.py").write_text("def create():\n    pass\n")
    out = tmp_path / "b" / "plan.yaml"
    result = run("convert", str(plan), str(out))
    assert result.exit_code == 0, result.output
    assert written(out)["root"] == "../a"
    assert f"{out}: warning: root: ../a leads outside the repository that holds it" in result.stderr
    assert check(out, "--root", str(tmp_path / "a")).exit_code == 0


def test_a_plan_converted_into_its_own_folder_or_work_tree_gets_no_root(tmp_path: Path) -> None:
    """The output finds the same root by itself: nothing is written that is not needed."""
    repo = git_repo(tmp_path / "repo", {"app.py": "def create():\n    pass\n"})
    plan = write_plan(repo / "plans", ROOTLESS)
    for out in (repo / "plans" / "plan.json", repo / "elsewhere" / "deep" / "plan.yaml"):
        assert run("convert", str(plan), str(out)).exit_code == 0
        assert "root" not in written(out)
        assert check(out).exit_code == 0
    outside = write_plan(tmp_path / "loose", ROOTLESS)
    (tmp_path / "loose" / "app.py").write_text("def create():\n    pass\n")
    assert run("convert", str(outside), str(tmp_path / "loose" / "plan.json")).exit_code == 0
    assert "root" not in written(tmp_path / "loose" / "plan.json")


def test_the_plans_own_root_is_rewritten_from_the_output_folder_inside_the_work_tree(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"src/app.py": "def create():\n    pass\n"})
    plan = write_plan(repo / "plans", "root: ../src\n" + ROOTLESS)
    out = repo / "docs" / "plan.json"
    assert run("convert", str(plan), str(out)).exit_code == 0
    assert written(out)["root"] == "../src"  # inside the work tree: no EP208 when compiled there
    assert check(out).exit_code == 0


def test_a_root_given_with_root_option_is_written_for_the_output(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"src/app.py": "def create():\n    pass\n"})
    plan = write_plan(repo / "plans", ROOTLESS)
    out = repo / "plans" / "out.yaml"
    assert run("convert", "--root", str(repo / "src"), str(plan), str(out)).exit_code == 0
    assert written(out)["root"] == "../src"
    assert check(out).exit_code == 0


def test_output_into_another_repository_keeps_the_root_and_warns_that_it_is_refused_there(tmp_path: Path) -> None:
    """The root is written anyway (the evidence is there, and OUT is the user's choice), and the
    warning says what compiling the output there will answer: EP208, unless given --root."""
    repo = git_repo(tmp_path / "repo", {"app.py": "def create():\n    pass\n"})
    plan = write_plan(repo, ROOTLESS)
    out = git_repo(tmp_path / "other") / "plan.json"
    result = run("convert", str(plan), str(out))
    assert result.exit_code == 0, result.output
    assert written(out)["root"] == "../repo"
    assert (f"{out}: warning: root: ../repo leads outside the repository that holds it: compiled there, it is"
            " refused (EP208)") in result.stderr
    assert "EP208" in check(out).stdout and check(out).exit_code == 1
    assert check(out, "--root", str(repo)).exit_code == 0


def test_a_refused_root_is_carried_over_as_it_was_not_made_acceptable(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (tmp_path / "secret").mkdir()
    plan = write_plan(repo, "root: ../secret\n" + ROOTLESS)
    out = repo / "sub" / "plan.json"
    assert run("convert", str(plan), str(out)).exit_code == 0
    assert written(out)["root"] == "../../secret"
    assert "EP208" in check(out).stdout


def test_a_root_that_is_no_folder_is_exit_2_at_the_root_key_unless_evidence_is_not_verified(tmp_path: Path) -> None:
    plan = write_plan(tmp_path, "root: missing\n" + ROOTLESS)
    result = run("convert", str(plan), str(tmp_path / "out" / "plan.json"))
    assert result.exit_code == 2
    assert f"{plan}:1:7: error EP006 the repository root missing is not a folder" in result.stderr
    result = run("convert", "--no-verify-evidence", str(plan), str(tmp_path / "out" / "plan.json"))
    assert result.exit_code == 0, result.output
    assert written(tmp_path / "out" / "plan.json")["root"] == "../missing"


def test_status_and_reason_are_kept_both_ways_and_through_a_compiled_file(tmp_path: Path) -> None:
    """Progress fields are plan data: YAML -> JSON -> YAML keeps them, and so does reading back the
    evidence-plan.json a compile wrote (an item that gave no status still gives none)."""
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    source = write_plan(tmp_path, "items:\n"
                        "  - {id: a, change: c, evidence: [a.py], proof: p, status: done}\n"
                        "  - {id: b, change: c, evidence: [a.py], proof: p, status: dropped, reason: not needed}\n"
                        "  - {id: c, change: c, evidence: [a.py], depends_on: [a], proof: p}\n")
    as_json = convert(str(source), "json", str(tmp_path))
    assert as_json.text is not None
    items = json.loads(as_json.text)["items"]
    assert [(i.get("status"), i.get("reason")) for i in items] == [("done", None), ("dropped", "not needed"),
                                                                 (None, None)]
    (tmp_path / "plan.json").write_text(as_json.text, encoding="utf-8")
    back = convert(str(tmp_path / "plan.json"), "yaml", str(tmp_path))
    assert back.text is not None and yaml.safe_load(back.text)["items"] == items
    assert CliRunner().invoke(cli, ["compile", str(source), "-o", str(tmp_path / "out")]).exit_code == 0
    compiled = convert(str(tmp_path / "out" / "evidence-plan.json"), "yaml", str(tmp_path))
    assert compiled.text is not None and yaml.safe_load(compiled.text)["items"] == items
