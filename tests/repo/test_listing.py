"""compiler.repo.listing and compiler.api.where, and the commands over them: `evidence-plan symbols` (what
path::Name resolves in a file, as check finds it) and `evidence-plan where` (a text's places, as
evidence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from support import SEARCH_CORPUS, SEARCH_NEEDLES, git_repo

from compiler.api.where import where
from compiler.cli import cli
from compiler.core.diagnostics import PlanInputError
from compiler.repo.listing import Symbol, list_symbols
from compiler.repo.repository import Repository

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "click-floatrange-nan"


def test_the_symbols_listed_are_the_ones_the_example_plan_resolves() -> None:
    listing = list_symbols(str(EXAMPLE / "src" / "click" / "types.py"), root=str(EXAMPLE))
    assert listing.path == "src/click/types.py" and listing.note is None
    by_name = {s.name: s for s in listing.symbols}
    # The lines tests/test_examples.py pins for the plan's symbol evidence.
    assert by_name["FloatParamType"] == Symbol("FloatParamType", 768, 773)
    assert by_name["_NumberRangeBase.convert"] == Symbol("_NumberRangeBase.convert", 666, 697)
    assert by_name["FloatRange._clamp"] == Symbol("FloatRange._clamp", 809, 816)
    assert by_name["ParamType.__call__"] == Symbol("ParamType.__call__", 159, 167)
    assert [s.first for s in listing.symbols] == sorted(s.first for s in listing.symbols)


def test_toml_and_markdown_files_list_their_tables_and_sections() -> None:
    toml = list_symbols(str(EXAMPLE / "pyproject.toml"), root=str(EXAMPLE))
    assert Symbol("tool.pytest.ini_options", 83, 91) in toml.symbols
    markdown = list_symbols(str(EXAMPLE / "docs" / "parameter-types.md"), root=str(EXAMPLE))
    assert Symbol("Int and Float Ranges", 81, 107) in markdown.symbols


def test_the_root_defaults_to_the_work_tree_that_holds_the_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    assert list_symbols(str(tmp_path / "src" / "a.py")).path == "src/a.py"


@pytest.mark.parametrize(("name", "code"), [("missing.py", "EP201"), ("folder", "EP205")])
def test_a_file_that_cannot_be_listed_is_an_input_error(tmp_path: Path, name: str, code: str) -> None:
    (tmp_path / "folder").mkdir()
    with pytest.raises(PlanInputError) as raised:
        list_symbols(str(tmp_path / name), root=str(tmp_path))
    assert raised.value.diagnostic.code == code


def test_a_file_outside_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(PlanInputError) as raised:
        list_symbols(str(tmp_path / "a.py"), root=str(tmp_path / "repo"))
    assert raised.value.diagnostic.code == "EP204"


def test_the_command_prints_ready_to_paste_entries_and_json_for_agents(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class A:\n    def m(self):\n        return 1\n\n\nX = 2\n", encoding="utf-8")
    runner = CliRunner()
    text = runner.invoke(cli, ["symbols", "--root", str(tmp_path), str(tmp_path / "a.py")])
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines() == ["a.py::A    # lines 1-3", "a.py::A.m  # lines 2-3", "a.py::X    # line 6"]
    as_json = runner.invoke(cli, ["symbols", "--format", "json", "--root", str(tmp_path), str(tmp_path / "a.py")])
    assert json.loads(as_json.stdout)[1] == {"evidence": "a.py::A.m", "path": "a.py", "symbol": "A.m", "lines": "2-3"}
    missing = runner.invoke(cli, ["symbols", "--root", str(tmp_path), str(tmp_path / "b.py")])
    assert missing.exit_code == 2 and "EP201" in missing.stderr


# --- where: a text's places, as evidence ------------------------------------------------------------

def test_where_finds_each_hit_with_its_enclosing_definition_in_the_example() -> None:
    found = where("def _clamp", root=str(EXAMPLE))
    got = [(h.path, h.line, h.definition) for h in found.hits]
    assert got == [
        ("src/click/types.py", 700, Symbol("_NumberRangeBase._clamp", 699, 715)),
        ("src/click/types.py", 761, Symbol("IntRange._clamp", 761, 765)),
        ("src/click/types.py", 809, Symbol("FloatRange._clamp", 809, 816)),
    ]
    assert not found.more and found.files > 10


def test_where_searches_only_in_what_it_is_given_and_stops_at_the_limit(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.py").write_text("NEEDLE\nNEEDLE\n", encoding="utf-8")
    (tmp_path / "b" / "y.md").write_text("# Title\n\nNEEDLE here\n", encoding="utf-8")
    (tmp_path / "b" / "bin.dat").write_bytes(b"\x00NEEDLE")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "z.js").write_text("NEEDLE\n", encoding="utf-8")
    everywhere = where("NEEDLE", root=str(tmp_path))
    assert [(h.path, h.line) for h in everywhere.hits] == [("a/x.py", 1), ("a/x.py", 2), ("b/y.md", 3)]
    assert everywhere.hits[2].definition == Symbol("Title", 1, 3)  # the Markdown section
    assert [h.path for h in where("NEEDLE", root=str(tmp_path), within=[str(tmp_path / "b")]).hits] == ["b/y.md"]
    limited = where("NEEDLE", root=str(tmp_path), max_hits=2)
    assert len(limited.hits) == 2 and limited.more


def test_where_through_the_bytes_first_search_finds_what_find_finds(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo(tmp_path, SEARCH_CORPUS)
    needles = [n for n in SEARCH_NEEDLES if n.strip()]  # where refuses blank text
    fast = [where(needle, root=str(tmp_path), max_hits=limit) for needle in needles for limit in (1, 3, 200)]
    monkeypatch.setattr(Repository, "search", Repository.find)  # the slow path: decode every file
    slow = [where(needle, root=str(tmp_path), max_hits=limit) for needle in needles for limit in (1, 3, 200)]
    assert fast == slow  # the same hits, in the same order, with the same definitions and counts
    assert sum(len(found.hits) for found in fast) > 30


def test_where_refuses_what_it_cannot_search(tmp_path: Path) -> None:
    for text, within, code in (("", (), "EP014"), ("x", (str(tmp_path / "missing"),), "EP201"),
                               ("x", (str(tmp_path.parent),), "EP204")):
        with pytest.raises(PlanInputError) as raised:
            where(text, root=str(tmp_path), within=within)
        assert raised.value.diagnostic.code == code


def test_where_prints_paste_ready_evidence_and_exits_1_when_nothing_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 'NEEDLE'\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["where", "NEEDLE", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["a.py:2", "  a.py::f  # lines 1-2",
                                          '  {path: a.py, lines: 1-2, contains: "NEEDLE"}']
    rows = json.loads(runner.invoke(cli, ["where", "NEEDLE", "--root", str(tmp_path), "--format", "json"]).stdout)
    assert rows == [{"reference": "a.py:2", "path": "a.py", "line": 2,
                     "symbol": {"evidence": "a.py::f", "lines": "1-2"},
                     "contains": {"path": "a.py", "lines": "1-2", "contains": "NEEDLE"}}]
    assert runner.invoke(cli, ["where", "ABSENT", "--root", str(tmp_path)]).exit_code == 1
    # What it prints is evidence the compiler takes: pasted into a plan, it holds.
    (tmp_path / "plan.yaml").write_text(
        "items:\n  - id: a\n    change: c\n    proof: p\n    evidence:\n"
        + "".join(f"      - {line.strip()}\n" for line in result.stdout.splitlines()), encoding="utf-8")
    assert runner.invoke(cli, ["check", "--root", str(tmp_path), str(tmp_path / "plan.yaml")]).exit_code == 0


# --- what symbols and where print, pasted into a plan ---------------------------------------------

# Headings that plain YAML misreads in a plan's evidence list: "Fix: x" became a mapping (an unknown
# field), " #" a comment, a quote or a bracket a flow or quoted scalar of another value.
AWKWARD_HEADINGS = [
    "Fix: wrapping", "Say #1", "Ends with:", "It's", '"Quoted"', "[draft] notes", "{braces}", "a, b",
    "Tab\there", "50% off", "Back `tick`", "Cost: 1:20", "x: y # z", "*star*", "& and", "!bang",
    "|pipe", ">gt", "@at", "? question",
]
AWKWARD_PATHS = ["-dash.md", "[x].md", "%p.md", "&a.md", "*b.md", "!c.md", "yes.md", "@d.md", "docs/a b.md"]


def _pasted(line: str, reader: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The evidence entry that ``line``, pasted into a plan's evidence list, reads back as."""
    from compiler.load import fastyaml
    from compiler.load.document import parse_text

    if reader == "reference":
        monkeypatch.setattr(fastyaml, "parse", lambda *args, **kwargs: None)
    document = parse_text(f"items:\n  - id: a\n    evidence:\n      - {line}\n", "plan.yaml", "yaml")
    entry: str = document.data["items"][0]["evidence"][0]
    return entry


@pytest.mark.parametrize("reader", ["fast", "reference"])
def test_symbols_prints_entries_that_paste_back_as_themselves(tmp_path: Path, reader: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line `symbols` prints, pasted whole (its comment too) into a plan's evidence list,
    is the entry it lists, with both YAML readers; the plan is ready."""
    text = "".join(f"# {heading}\n\ntext\n\n" for heading in AWKWARD_HEADINGS)
    for path in ["CHANGES.md", *AWKWARD_PATHS]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text if path == "CHANGES.md" else "# Title: one\n", encoding="utf-8")
    runner = CliRunner()
    paths = [str(tmp_path / p) for p in ["CHANGES.md", *AWKWARD_PATHS]]
    result = runner.invoke(cli, ["symbols", "--root", str(tmp_path), *paths])
    assert result.exit_code == 0, result.output
    listings = [list_symbols(p, root=str(tmp_path)) for p in paths]
    expected = [listing.evidence(s) for listing in listings for s in listing.symbols]
    assert len(expected) == len(AWKWARD_HEADINGS) + len(AWKWARD_PATHS)
    lines = result.stdout.splitlines()
    assert [_pasted(line, reader, monkeypatch) for line in lines] == expected
    (tmp_path / "plan.yaml").write_text("items:\n  - id: a\n    change: c\n    proof: p\n    evidence:\n"
                                        + "".join(f"      - {line}\n" for line in lines), encoding="utf-8")
    check = runner.invoke(cli, ["check", "--root", str(tmp_path), str(tmp_path / "plan.yaml")])
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize("reader", ["fast", "reference"])
def test_where_prints_entries_that_paste_back_as_themselves(tmp_path: Path, reader: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A hit under an awkward heading, in a file of an awkward name: each entry `where` prints
    reads back as the entry it stands for."""
    for path in AWKWARD_PATHS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("# Fix: it's [done] #1\n\nNEEDLE here\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["where", "NEEDLE", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = json.loads(runner.invoke(cli, ["where", "NEEDLE", "--root", str(tmp_path), "--format", "json"]).stdout)
    lines = result.stdout.splitlines()
    assert len(lines) == 3 * len(rows) == 3 * len(AWKWARD_PATHS)
    for k, row in enumerate(rows):
        assert _pasted(lines[3 * k], reader, monkeypatch) == row["reference"]
        assert _pasted(lines[3 * k + 1].strip(), reader, monkeypatch) == row["symbol"]["evidence"]
        assert _pasted(lines[3 * k + 2].strip(), reader, monkeypatch) == row["contains"]
    (tmp_path / "plan.yaml").write_text(
        "items:\n  - id: a\n    change: c\n    proof: p\n    evidence:\n"
        + "".join(f"      - {line.strip()}\n" for line in lines), encoding="utf-8")
    check = runner.invoke(cli, ["check", "--root", str(tmp_path), str(tmp_path / "plan.yaml")])
    assert check.exit_code == 0, check.output


def test_symbols_notes_headings_that_no_name_tells_apart(tmp_path: Path) -> None:
    """Two ``## Output`` under one ``# 1.0``: neither has a unique name, so neither is listed, and
    a note says which lines to cite instead."""
    (tmp_path / "CHANGES.md").write_text("# 1.0\n\n## Output\n\na\n\n## Output\n\nb\n\n# 0.9\n\n## Output\n",
                                         encoding="utf-8")
    listing = list_symbols(str(tmp_path / "CHANGES.md"), root=str(tmp_path))
    assert [s.name for s in listing.symbols] == ["1.0", "0.9", "0.9.Output"]
    assert listing.note == ("2 headings of the same text under the same parents have no unique name:"
                            " cite their lines (3-5, 7-9)")
    result = CliRunner().invoke(cli, ["symbols", "--root", str(tmp_path), str(tmp_path / "CHANGES.md")])
    assert result.exit_code == 0
    assert "CHANGES.md: note: 2 headings of the same text" in result.stderr
