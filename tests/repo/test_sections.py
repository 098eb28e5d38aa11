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
    assert table == {"a": (1, 3), "b": (4, 5), "c": (6, 9), "d": (10, 10), "t": (11, 11)}


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
    ("Installation", "5-14"),  # to the line before the next heading of its level, not one line
    ("From source", "12-14"),  # blank lines before the next heading are not the section's
    ("Usage", "16-18"),
    ("Project", "1-18"),  # a top heading runs to the next top heading
    ("Appendix", "21-23"),  # the last one to the end of the file
    ("not a heading, a shell comment", None),  # a line in a code block is no heading
    ("Intro", None),
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
        " (did you mean Installation?)")


def test_markdown_heading_of_the_same_text_inside_its_own_section_first_wins() -> None:
    assert sections.markdown_symbols(["## Notes", "", "### Notes", "x", "## Next"]) == {
        "Notes": (1, 4), "Next": (5, 5)}


def test_markdown_unclosed_fence_hides_the_rest() -> None:
    assert sections.markdown_symbols(["# A", "~~~", "# B", "````", "# C"]) == {"A": (1, 5)}
