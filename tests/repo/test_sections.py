"""compiler/repo/sections.py: ``path::Name`` in TOML (tables, arrays of tables, dotted keys, read by
``tomllib`` and located by a scan of the file) and in Markdown (a heading's section), seen through
the compiled JSON's ``resolved_lines`` and the diagnostics of what is not there (EP206) or cannot
be searched (EP207).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import compile_in, git_repo, one_item_plan, rows
from test_symbols import symbol_lines

from compiler.repo import sections, symbols

PYPROJECT = '''\
[build-system]
requires = ["setuptools"]

[project]
name = "demo"
dependencies = [
    "click>=8",  # [not.a.header]
    "pyyaml",
]
description = """
[fake.table]
fake_key = 1
"""

# The test runner: this comment belongs to the table below it
[tool.pytest.ini_options]
addopts = "-q"
markers = [
    "slow: builds wheels",
]


[[tool.mypy.overrides]]
module = "a.*"

[[tool.mypy.overrides]]
module = "b.*"

[tool."evidence-plan"]
strict = true
'''


@pytest.mark.parametrize(("symbol", "lines"), [
    ("tool.pytest.ini_options", "16-20"),  # header to its last key: not the blank lines after it
    ("build-system", "1-2"),
    ("project", "4-13"),  # a multi-line string holding a header-looking line does not end it
    ("project.name", "5-5"),  # a dotted key inside a table
    ("project.dependencies", "6-9"),  # to the end of its value
    ("project.description", "10-13"),
    ("tool.mypy.overrides", "23-24"),  # an array of tables: its first table
    ("tool.mypy.overrides.module", "24-24"),
    ("tool.pytest.ini_options.markers", "18-20"),
    ("tool", "16-30"),  # a table made only of its sub-tables: their run of headers
    ("tool.mypy", "23-27"),
    ('tool."evidence-plan"', "29-30"),  # a quoted key, cited as written
    ("tool.evidence-plan", "29-30"),  # or bare
    ("tool.evidence-plan.strict", "30-30"),
    ("fake.table", None),  # inside a string: no table, and tomllib agrees
    ("fake_key", None),
    ("not.a.header", None),  # inside a comment
    ("name", None),  # a key is named with its table
    ("tool.black", None),
])
def test_toml_tables_and_keys(tmp_path: Path, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    assert PYPROJECT.splitlines()[15] == "[tool.pytest.ini_options]"
    assert symbol_lines(root, "pyproject.toml", symbol) == lines


def test_toml_unknown_table_did_you_mean(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    result = compile_in(root, one_item_plan("      - pyproject.toml::tool.pytest.ini_option\n"
                                            "      - pyproject.toml::project.nme\n"))
    assert rows(result.diagnostics) == [("EP206", "it", 6, 9), ("EP206", "it", 7, 9)]
    assert [d.message for d in result.diagnostics] == [
        "it cites pyproject.toml::tool.pytest.ini_option, but pyproject.toml defines no tool.pytest.ini_option"
        " (did you mean tool.pytest.ini_options?)",
        "it cites pyproject.toml::project.nme, but pyproject.toml defines no project.nme (did you mean project.name?)",
    ]


def test_toml_that_is_not_toml_is_a_clear_diagnostic(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"pyproject.toml": "[tool.x]\nkey = \nother = 1\n", "ok.toml": "[a]\n"})
    result = compile_in(root, one_item_plan("      - pyproject.toml::tool.x\n"
                                            "      - {path: pyproject.toml, lines: 1-2}\n"
                                            "      - ok.toml::a\n"))
    assert rows(result.diagnostics) == [("EP207", "it", 6, 9)]
    assert result.diagnostics[0].message == (
        "it cites pyproject.toml::tool.x, but pyproject.toml cannot be searched for tool.x: it is not valid TOML"
        " (Invalid value (at line 2, column 7)); fix the file or cite its lines")


def test_toml_nested_too_deeply_for_tomllib_is_a_clear_diagnostic(tmp_path: Path) -> None:
    """tomllib reads nested arrays by recursion: 5,000 levels raised RecursionError (a traceback)."""
    root = git_repo(tmp_path / "repo", {"deep.toml": "a = " + "[" * 5000 + "]" * 5000 + "\n"})
    result = compile_in(root, one_item_plan("      - deep.toml::a\n"))
    assert rows(result.diagnostics) == [("EP207", "it", 6, 9)]
    assert result.diagnostics[0].message == (
        "it cites deep.toml::a, but deep.toml cannot be searched for a: it is not valid TOML (its arrays or"
        " inline tables are nested too deeply to read); fix the file or cite its lines")


def test_toml_over_the_parse_limit_is_not_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    monkeypatch.setattr(symbols, "MAX_PARSE_BYTES", 100)
    result = compile_in(root, one_item_plan("      - pyproject.toml::project\n"))
    assert rows(result.diagnostics) == [("EP207", "it", 6, 9)]
    assert result.diagnostics[0].message == (
        "it cites pyproject.toml::project, but pyproject.toml is too large to search for project"
        " (TOML over 0 MiB is not parsed whole): cite its lines")


def test_toml_scan_follows_strings_and_brackets() -> None:
    text = ("a = '''\n[x]\n'''\n"  # 1-3: a literal multi-line string
            'b = """one "" two \\""" [y]\n"""\n'  # 4-5: quotes and an escaped quote inside
            "c = [\n  [1, 2],\n  [[3]],\n]\n"  # 6-9: nested arrays that look like headers
            "d = { e = 1 }\n"  # 10
            "[t]\n")  # 11
    table = sections.toml_symbols(text)
    assert table == {"a": (1, 3), "b": (4, 5), "c": (6, 9), "d": (10, 10), "d.e": (10, 10), "t": (11, 11)}


INLINE = """\
[tool.x]
options = { debug_level = "0", deep = { a = 1 } }
name = "n"
"""


@pytest.mark.parametrize(("symbol", "lines"), [
    ("tool.x.options.debug_level", "2-2"),  # a key inside an inline table: the inline table's line
    ("tool.x.options.deep.a", "2-2"),  # nested
    ('tool.x.options."debug_level"', "2-2"),
    ("tool.x.options.nope", None),
    ("tool.x.name.n", None),  # a string has no keys
])
def test_toml_key_inside_an_inline_table(tmp_path: Path, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", {"pyproject.toml": INLINE})
    assert symbol_lines(root, "pyproject.toml", symbol) == lines


def test_toml_header_with_many_parts_names_no_deep_symbols() -> None:
    deep = ".".join(["p"] * 1000)
    table = sections.toml_symbols(f"[{deep}]\nk = 1\n[q]\n")
    assert isinstance(table, dict)
    assert table["p"] == (1, 2) and table["q"] == (3, 3)
    assert max(len(name.split(".")) for name in table) < sections.MAX_KEY_PARTS


# --- Markdown -----------------------------------------------------------------------------------------

README = """\
# Project

Intro.

## Installation

```sh
# not a heading, a shell comment
pip install demo
```

### From source

Clone it.

## Usage ##

Run it.


# Appendix

## Installation
"""


@pytest.mark.parametrize(("symbol", "lines"), [
    ("Project.Installation", "5-14"),  # to the line before the next heading of its level, not one line
    ("From source", "12-14"),  # blank lines before the next heading are not the section's
    ("Installation.From source", "12-14"),  # qualified by its parent
    ("Project.Installation.From source", "12-14"),  # and by all of them
    ("Usage", "16-18"),
    ("Project", "1-18"),  # a top heading runs to the next top heading
    ("Appendix", "21-23"),  # the last one to the end of the file
    ("Appendix.Installation", "23-23"),
    ("not a heading, a shell comment", None),  # a line in a code block is no heading
    ("Intro", None),
    ("Project.Usage.Installation", None),  # not its parents
])
def test_markdown_sections(tmp_path: Path, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", {"README.md": README})
    assert README.splitlines()[4] == "## Installation"
    assert symbol_lines(root, "README.md", symbol) == lines


def test_markdown_section_did_you_mean(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"docs/guide.markdown": README})
    result = compile_in(root, one_item_plan("      - docs/guide.markdown::Instalation\n"))
    assert rows(result.diagnostics) == [("EP206", "it", 6, 9)]
    assert result.diagnostics[0].message == (
        "it cites docs/guide.markdown::Instalation, but docs/guide.markdown defines no Instalation"
        " (did you mean Project.Installation?)")


def test_markdown_heading_written_twice_is_ambiguous(tmp_path: Path) -> None:
    """Two ``## Installation``: the name resolved silently to the first. It names neither now (EP212,
    at the entry), and the message offers each by its unique, parent-qualified name."""
    root = git_repo(tmp_path / "repo", {"README.md": README})
    result = compile_in(root, one_item_plan("      - README.md::Installation\n"))
    assert rows(result.diagnostics) == [("EP212", "it", 6, 9)]
    diagnostic = result.diagnostics[0]
    assert diagnostic.message == ("it cites README.md::Installation, but README.md has 2 sections named Installation"
                                  " (at lines 5, 23): it names none of them for sure")
    assert diagnostic.hint == ("cite the one meant by a unique name or by its lines:"
                               " README.md::Project.Installation (lines 5-14),"
                               " README.md::Appendix.Installation (line 23)")


def test_markdown_ambiguous_with_no_unique_name_offers_lines(tmp_path: Path) -> None:
    """Two ``## Output`` under one parent: no name tells them apart, so the lines are offered."""
    root = git_repo(tmp_path / "repo", {"CHANGES.md": "# 1.0\n\n## Output\n\na\n\n## Output\n\nb\n"})
    result = compile_in(root, one_item_plan("      - CHANGES.md::1.0.Output\n"))
    assert rows(result.diagnostics) == [("EP212", "it", 6, 9)]
    assert result.diagnostics[0].hint == ("cite the one meant by a unique name or by its lines: CHANGES.md:3-5,"
                                          " CHANGES.md:7-9")


def test_markdown_heading_of_the_same_text_inside_its_own_section() -> None:
    """The outer ``Notes`` has no unique name (``Notes`` is both): it is listed under none."""
    listing, names = sections.markdown_sections(["## Notes", "", "### Notes", "x", "## Next"])
    assert listing == {"Notes.Notes": (3, 4), "Next": (5, 5)}
    assert names["Notes"] == [(1, 4), (3, 4)]


@pytest.mark.parametrize(("text", "expected"), [
    # Only headings: a wrapped bullet or prose that looks like a definition is none (black's
    # CHANGES.md::parameters), nor is a line in a fenced or an indented code block.
    ("# A\n\n- Fix the type\n  parameters of x\n", {"A": (1, 4)}),
    ("# A\n\n```python\ndef preview():\n# not either\n```\n", {"A": (1, 6)}),
    ("# A\n\n~~~\nclass B:\n~~~\n", {"A": (1, 5)}),
    ("# A\n\n    def f():\n    # no heading\n", {"A": (1, 4)}),
    ("# A\n\nvar x = 1\nlet y = 2\n", {"A": (1, 4)}),
    # Setext headings, one or more lines underlined; up to three spaces before an ATX heading.
    ("Title\n=====\n\ntext\n\nSub: part\n---\nx\n", {"Title": (1, 8), "Sub: part": (6, 8)}),
    ("Two\nlines\n===\n", {"Two lines": (1, 3)}),
    ("   ## Indented\nx\n", {"Indented": (1, 2)}),
    # No setext heading from a list item, a quote, a table row, or a thematic break after a blank.
    ("- item\n---\n", {}),
    ("> quote\n===\n", {}),
    ("| a | b |\n---\n", {}),
    ("text\n\n---\n", {}),
    # Front matter is not a heading of its last key.
    ("---\ntitle: x\n---\n\n# A\n", {"A": (5, 5)}),
])
def test_markdown_headings_only(text: str, expected: dict[str, tuple[int, int]]) -> None:
    assert sections.markdown_symbols(text.split("\n")) == expected


def test_markdown_unclosed_fence_hides_the_rest() -> None:
    assert sections.markdown_symbols(["# A", "~~~", "# B", "````", "# C"]) == {"A": (1, 5)}


def test_markdown_ambiguous_hint_names_three_and_counts_the_rest(tmp_path: Path) -> None:
    text = "".join(f"## {v}.0\n\n### Output\n\nx\n\n" for v in range(5, 0, -1))
    root = git_repo(tmp_path / "repo", {"CHANGES.md": text})
    result = compile_in(root, one_item_plan("      - CHANGES.md::Output\n"))
    assert rows(result.diagnostics) == [("EP212", "it", 6, 9)]
    assert result.diagnostics[0].message == ("it cites CHANGES.md::Output, but CHANGES.md has 5 sections named Output"
                                             " (at lines 3, 9, 15, 21, 27): it names none of them for sure")
    assert result.diagnostics[0].hint == (
        "cite the one meant by a unique name or by its lines: CHANGES.md::5.0.Output (lines 3-5),"
        " CHANGES.md::4.0.Output (lines 9-11), CHANGES.md::3.0.Output (lines 15-17) and 2 more"
        " (evidence-plan symbols CHANGES.md lists them)")


def test_a_section_added_above_leaves_a_qualified_name_where_it_was(tmp_path: Path) -> None:
    """The issue's sequence: ``::Output`` meant the first ``### Output``, then a new release's
    ``### Output`` above it. A qualified name still means its own section after that."""
    old = "# Log\n\n## 1.0\n\n### Output\n\n- a\n"
    root = git_repo(tmp_path / "repo", {"CHANGES.md": old})
    assert symbol_lines(root, "CHANGES.md", "1.0.Output") == "5-7"
    (root / "CHANGES.md").write_text("# Log\n\n## 2.0\n\n### Output\n\n- b\n\n## 1.0\n\n### Output\n\n- a\n",
                                     encoding="utf-8")
    assert symbol_lines(root, "CHANGES.md", "1.0.Output") == "11-13"
    result = compile_in(root, one_item_plan("      - CHANGES.md::Output\n"))
    assert rows(result.diagnostics) == [("EP212", "it", 6, 9)]
