"""compiler/repo/symbols.py: where a file defines ``path::Symbol``, seen through the compiled JSON's
``resolved_lines``: Python through its ``ast`` (decorators included, methods and nested functions
named with what holds them, definitions in if/try/with blocks, overloads, re-exports, a module that
does not parse read statement by statement), other files through definition-looking lines, and
the did-you-mean of an unknown symbol (EP206). TOML and Markdown are tests/repo/test_sections.py's.

The plans run against ``std_repo`` (tests/conftest.py), whose app/accounts.py is ``PY_SOURCE``
(tests/support.py), or a small repository of their own. That symbol lookup stays linear on
files built to attack it is tests/test_bounded.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import PY_SOURCE, codes, compile_in, git_repo, one_item_plan, only

from compiler.compile.emit import build_output
from compiler.repo.repository import Repository
from compiler.repo.symbols import python_symbols


def symbol_lines(root: Path, path: str, symbol: str) -> str | None:
    """The compiled JSON's resolved_lines for ``path::symbol``, or None (asserting no other issue)."""
    result = compile_in(root, one_item_plan(f"      - {path}::{symbol}\n"))
    entry = build_output(result, root)["items"][0]["evidence"][0]
    if result.diagnostics:
        assert codes(result) == ["EP206"]
        assert "resolved_lines" not in entry
        return None
    lines: str = entry["resolved_lines"]
    return lines


# --- Python -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("symbol", "lines"), [
    ("LIMIT", "3-3"),  # module-level assignment
    ("TIMEOUT", "4-4"),  # annotated assignment
    ("plain", "7-8"),
    ("decorated", "11-14"),  # the decorators are part of the range
    ("Accounts", "17-26"),
    ("Accounts.kind", "18-18"),  # class-level assignment
    ("Accounts.create", "20-22"),  # method (with its decorator)
    ("Accounts.Inner", "24-26"),
    ("Accounts.Inner.deep", "25-26"),
    ("fetch", "29-32"),  # async def
    ("local", None),  # a nested function is named with the function that holds it
    ("fetch.local", "30-31"),
    ("create", None),  # a method is named with its class
    ("Nope", None),
])
def test_python_symbols(std_repo: Path, symbol: str, lines: str | None) -> None:
    assert symbol_lines(std_repo, "app/accounts.py", symbol) == lines


def test_python_symbol_table_matches_the_source() -> None:
    lines = PY_SOURCE.splitlines()
    assert lines[10] == "@functools.cache" and lines[12] == "def decorated():"
    assert lines[16] == "class Accounts:" and lines[19] == "    @property"
    symbols = python_symbols(PY_SOURCE)
    assert symbols is not None
    assert symbols["decorated"] == (11, 14)
    assert symbols["fetch.local"] == (30, 31) and "local" not in symbols


def test_symbol_did_you_mean(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan("      - app/accounts.py::decorate\n"
                                                "      - app/accounts.py::Accounts.Iner.deep\n"
                                                "      - app/accounts.py::qqqqqqqq\n"))
    assert [d.message for d in result.diagnostics] == [
        "it cites app/accounts.py::decorate, but app/accounts.py defines no decorate (did you mean decorated?)",
        "it cites app/accounts.py::Accounts.Iner.deep, but app/accounts.py defines no Accounts.Iner.deep"
        " (did you mean Accounts.Inner.deep?)",
        "it cites app/accounts.py::qqqqqqqq, but app/accounts.py defines no qqqqqqqq",
    ]


PACKAGE = {
    "src/pkg/__init__.py": "from .report import Report\nfrom pkg.util import helper\nfrom .nowhere import Lost\n"
                           "try:\n    from ._speed import fast\nexcept ImportError:\n    fast = None\n",
    "src/pkg/report.py": "class Report:\n    def done(self):\n        pass\n\n\nclass Other:\n    def done(self):\n"
                         "        pass\n",
    "src/pkg/util.py": "def helper():\n    pass\n",
    "src/pkg/_speed.py": "def fast():\n    pass\n",
}


def test_did_you_mean_a_method_by_its_short_name(tmp_path: Path) -> None:
    """``report.py::done`` suggested nothing useful: a method's short name suggests its qualified
    names (each, up to three)."""
    root = git_repo(tmp_path / "repo", PACKAGE)
    result = compile_in(root, one_item_plan("      - src/pkg/report.py::done\n"))
    assert [(d.code, d.item, d.location.line if d.location else None, d.message) for d in result.diagnostics] == [
        ("EP206", "it", 6, "it cites src/pkg/report.py::done, but src/pkg/report.py defines no done"
                           " (did you mean Report.done or Other.done?)"),
    ]


def test_did_you_mean_where_an_imported_name_is_defined(tmp_path: Path) -> None:
    """A name a module only imports is no definition of it; the did-you-mean points at the file of
    the repository that defines it: a relative import from the module's folder, an absolute one
    from a folder above it (``src/``), inside a ``try`` block too. A module not in the
    repository gives the usual did-you-mean."""
    root = git_repo(tmp_path / "repo", PACKAGE)
    result = compile_in(root, one_item_plan("      - src/pkg/__init__.py::Report\n"
                                            "      - src/pkg/__init__.py::Report.done\n"
                                            "      - src/pkg/__init__.py::helper\n"
                                            "      - src/pkg/__init__.py::Lost\n"))
    assert [(d.code, d.item, d.location.line if d.location else None, d.message) for d in result.diagnostics] == [
        ("EP206", "it", 6, "it cites src/pkg/__init__.py::Report, but src/pkg/__init__.py defines no Report"
                           " (did you mean src/pkg/report.py::Report?)"),
        ("EP206", "it", 7, "it cites src/pkg/__init__.py::Report.done, but src/pkg/__init__.py defines no"
                           " Report.done (did you mean src/pkg/report.py::Report.done?)"),
        ("EP206", "it", 8, "it cites src/pkg/__init__.py::helper, but src/pkg/__init__.py defines no helper"
                           " (did you mean src/pkg/util.py::helper?)"),
        ("EP206", "it", 9, "it cites src/pkg/__init__.py::Lost, but src/pkg/__init__.py defines no Lost"),
    ]
    # A name defined in a block (fast = None) is a symbol of the module itself, as before.
    assert compile_in(root, one_item_plan("      - src/pkg/__init__.py::fast\n")).diagnostics == ()


BROKEN_PY = "def ok():\n    pass\n\nclass Broken(:\n    def method(self):\n        pass\n"


def test_python_that_does_not_parse_falls_back_to_the_heuristic(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"bad.py": BROKEN_PY})
    assert python_symbols(BROKEN_PY) is None
    # A top-level definition that parses on its own may get its full range from the parser
    # (1-2); the heuristic alone gives its one line (1-1). Either way it starts at line 1.
    assert (symbol_lines(root, "bad.py", "ok") or "").startswith("1-")
    assert symbol_lines(root, "bad.py", "Broken") == "4-4"
    assert symbol_lines(root, "bad.py", "method") == "5-5"
    assert symbol_lines(root, "bad.py", "missing") is None


def test_python_that_does_not_parse_dotted_name_falls_back_to_last_component(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"bad.py": BROKEN_PY})
    assert symbol_lines(root, "bad.py", "Broken.method") == "5-5"


def test_symbol_lookup_agrees_with_a_full_parse(std_repo: Path) -> None:
    """Whatever shortcut finds a symbol, it finds what parsing the whole module finds."""
    symbols = python_symbols(PY_SOURCE)
    assert symbols is not None and len(symbols) >= 9
    repo = Repository(std_repo)
    assert {name: repo.symbol("app/accounts.py", name) for name in symbols} == symbols


MULTILINE_DECORATOR_PY = """\
import app


@app.route(
    "/x",
    methods=["GET"],
)
def view():
    return 1


@app.one
@app.two(
    1,
)
class Kept:
    pass
"""


def test_multiline_decorators_are_part_of_the_range(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"deco.py": MULTILINE_DECORATOR_PY})
    assert python_symbols(MULTILINE_DECORATOR_PY) == {"view": (4, 9), "Kept": (12, 17)}
    assert symbol_lines(root, "deco.py", "view") == "4-9"
    assert symbol_lines(root, "deco.py", "Kept") == "12-17"


STRING_DEFINITION_PY = '''\
TEMPLATE = """
def fake():
    pass
"""


def fake():
    return 2
'''


def test_definition_inside_a_string_is_not_a_symbol(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"tmpl.py": STRING_DEFINITION_PY})
    assert (python_symbols(STRING_DEFINITION_PY) or {}).get("fake") == (7, 8)
    assert symbol_lines(root, "tmpl.py", "fake") == "7-8"


STRAY_QUOTES_PY = '''\
QUOTES = '"""'
"""
def fake():
    pass
"""


def fake():
    return 2
'''


def test_triple_quote_inside_an_ordinary_string_does_not_fool_symbols(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"quotes.py": STRAY_QUOTES_PY})
    assert (python_symbols(STRAY_QUOTES_PY) or {}).get("fake") == (8, 9)
    assert symbol_lines(root, "quotes.py", "fake") == "8-9"


# --- Python as it is really written: blocks, overloads, re-exports, nested definitions --------------

REAL_PY = """\
from __future__ import annotations

import typing
import typing as t
import os.path as path
from typing import TYPE_CHECKING, overload
from .types import DateTime as DateTime
from .types import Zone as TimeZone, Plain
from .types import (
    Parsed as Parsed,
)

if TYPE_CHECKING:
    from .core import Context as Context

    def only_typed() -> int: ...
elif os.name == "nt":
    WINDOWS = True
else:
    class Fallback:
        pass

try:
    import ujson
except ImportError:
    def ujson():
        return None
finally:
    CLEANED = True

with open(__file__) as handle:
    HANDLE_NAME = handle.name


@overload
def convert(value: int) -> int: ...
@typing.overload
def convert(value: str) -> str: ...
def convert(value):
    def inner():
        class Local:
            def method(self):
                pass
        return Local
    hidden = 1
    return value


class Widget:
    if TYPE_CHECKING:
        def typed(self) -> int: ...
    else:
        typed = None

    @overload
    def get(self, key: int) -> int: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return key


@overload
def stub_only(x: int) -> int: ...
@overload
def stub_only(x: str) -> str: ...
"""


@pytest.mark.parametrize(("symbol", "lines"), [
    ("Context", "14-14"),  # if TYPE_CHECKING:
    ("only_typed", "16-16"),
    ("WINDOWS", "18-18"),  # elif
    ("Fallback", "20-21"),  # else
    ("ujson", "26-27"),  # try: import x / except ImportError: def x()
    ("CLEANED", "29-29"),  # finally
    ("HANDLE_NAME", "32-32"),  # with
    ("convert", "39-46"),  # the implementation, not the first @overload stub (36)
    ("convert.inner", "40-44"),  # a function inside a function
    ("convert.inner.Local", "41-43"),
    ("convert.inner.Local.method", "42-43"),
    ("convert.hidden", None),  # a function's local variable is no symbol
    ("Widget.typed", "51-51"),  # a block inside a class
    ("Widget.get", "59-60"),  # an overloaded method: its implementation
    ("stub_only", "63-64"),  # only stubs (a .pyi file): the first
    ("DateTime", "7-7"),  # re-exports: the import's line, never followed into .types
    ("TimeZone", "8-8"),  # from m import A as B: B
    ("Zone", None),
    ("Plain", None),  # an import without `as` is not a re-export
    ("Parsed", "10-10"),  # the alias's own line of a parenthesized import
    ("path", "5-5"),  # import os.path as path
    ("t", None),  # import typing as t: a short name, not a re-export
    ("typing", None),
])
def test_python_as_it_is_really_written(tmp_path: Path, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", {"real.py": REAL_PY})
    assert REAL_PY.splitlines()[38] == "def convert(value):"
    assert symbol_lines(root, "real.py", symbol) == lines


def test_python_blocks_agree_with_a_full_parse(tmp_path: Path) -> None:
    """The shortcut that parses one top-level statement gives what the whole module's walk gives,
    overloads included (there it must look further than the first stub)."""
    root = git_repo(tmp_path / "repo", {"real.py": REAL_PY})
    symbols = python_symbols(REAL_PY)
    assert symbols is not None and symbols["convert"] == (39, 46)
    repo = Repository(root)
    assert {name: repo.symbol("real.py", name) for name in symbols} == symbols


def test_a_direct_definition_wins_over_one_in_a_block_and_over_a_re_export() -> None:
    source = ("if TYPE_CHECKING:\n    Alias = int\n"  # 1-2
              "from m import Alias as Alias\n"  # 3
              "Alias = str\n"  # 4: the module's own, unconditional definition
              "try:\n    from fast import dumps as dumps\nexcept ImportError:\n    def dumps(x):\n        pass\n")
    assert python_symbols(source) == {"Alias": (4, 4), "dumps": (8, 9)}


def test_in_a_block_a_function_wins_over_an_assignment_that_stands_in_for_it() -> None:
    source = ("try:\n    from ctypes import pythonapi\nexcept ImportError:\n    get_buffer = None\n"  # 1-4
              "else:\n    def get_buffer(obj):\n        return obj\n"  # 5-7
              "if FAST:\n    LIMIT = 1\nelse:\n    LIMIT = 2\n")  # 8-11: assignments alike: the first
    assert python_symbols(source) == {"get_buffer": (6, 7), "LIMIT": (9, 9)}


def test_blocked_definitions_did_you_mean(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"real.py": REAL_PY})
    result = compile_in(root, one_item_plan("      - real.py::only_type\n"
                                            "      - real.py::convert.iner\n"
                                            "      - real.py::Widget.typd\n"))
    assert [(d.code, d.item, d.location.line if d.location else None, d.message) for d in result.diagnostics] == [
        ("EP206", "it", 6, "it cites real.py::only_type, but real.py defines no only_type (did you mean only_typed?)"),
        ("EP206", "it", 7, "it cites real.py::convert.iner, but real.py defines no convert.iner"
                           " (did you mean convert.inner?)"),
        ("EP206", "it", 8, "it cites real.py::Widget.typd, but real.py defines no Widget.typd"
                           " (did you mean Widget.typed?)"),
    ]


BROKEN_BLOCKS_PY = """\
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import Context as Context

try:
    import simplejson
except ImportError:
    def simplejson():
        return None


def broken(:
    pass


@decorated
class Later:
    def method(self):
        pass
"""


@pytest.mark.parametrize(("symbol", "lines"), [
    ("Context", "4-4"),  # each top-level statement is parsed alone: the block parses
    ("simplejson", "9-10"),  # try/except is one statement
    ("Later", "17-20"),  # a class after the broken function keeps its range, decorator included
    ("Later.method", "19-20"),
    ("broken", "13-13"),  # the statement that does not parse: its definition-looking line
    ("Other.broken", "13-13"),  # ... where a dotted name falls back to its last part
    ("nothere", None),
])
def test_python_that_does_not_parse_keeps_what_parses_statement_by_statement(
        tmp_path: Path, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", {"broken.py": BROKEN_BLOCKS_PY})
    assert python_symbols(BROKEN_BLOCKS_PY) is None
    assert symbol_lines(root, "broken.py", symbol) == lines


def test_python_that_does_not_parse_did_you_mean_points_into_blocks(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"broken.py": BROKEN_BLOCKS_PY})
    result = compile_in(root, one_item_plan("      - broken.py::Contxt\n      - broken.py::Later.methd\n"))
    assert [(d.code, d.item, d.location.line if d.location else None, d.message) for d in result.diagnostics] == [
        ("EP206", "it", 6, "it cites broken.py::Contxt, but broken.py defines no Contxt (did you mean Context?)"),
        ("EP206", "it", 7, "it cites broken.py::Later.methd, but broken.py defines no Later.methd"
                           " (did you mean Later.method?)"),
    ]


# --- other files: definition-looking lines and headings ---------------------------------------------

HEURISTIC_FILES: dict[str, str | bytes] = {
    "web/app.js": (
        "import x from 'x';\n"
        "export default function render(props) {\n"
        "  return props;\n"
        "}\n"
        "export const LIMIT = 3;\n"
        "class Widget extends Base {\n"
        "  method() {}\n"
        "}\n"
        "async function load() {}\n"
        "let count = 0;\n"
    ),
    "srv/main.go": (
        "package main\n"
        "\n"
        "type Server struct {\n"
        "}\n"
        "\n"
        "func (s *Server) Serve() error {\n"
        "\treturn nil\n"
        "}\n"
        "\n"
        "func main() {\n"
        "}\n"
    ),
    "core/lib.rs": (
        "pub struct Config {\n"
        "}\n"
        "impl Config {\n"
        "    pub(crate) fn parse() {}\n"
        "}\n"
        "enum Mode {}\n"
        "trait Run {}\n"
    ),
    "docs/guide.md": "# Guide\n\nText.\n\n## Install steps\n\n### FAQ ###\n",
    "conf/settings.toml": "name = \"x\"\nversion = \"1\"\n",
}


@pytest.mark.parametrize(("path", "symbol", "lines"), [
    ("web/app.js", "render", "2-2"),
    ("web/app.js", "LIMIT", "5-5"),
    ("web/app.js", "Widget", "6-6"),
    ("web/app.js", "load", "9-9"),
    ("web/app.js", "count", "10-10"),
    ("web/app.js", "Widget.render", "2-2"),  # dotted: the last component
    ("web/app.js", "rendr", None),
    ("srv/main.go", "Server", "3-3"),
    ("srv/main.go", "Serve", "6-6"),  # a method with a receiver
    ("srv/main.go", "Server.Serve", "6-6"),
    ("srv/main.go", "main", "10-10"),
    ("core/lib.rs", "Config", "1-1"),  # the first definition-looking line wins
    ("core/lib.rs", "parse", "4-4"),  # pub(crate) fn
    ("core/lib.rs", "Config.parse", "4-4"),
    ("core/lib.rs", "Mode", "6-6"),
    ("core/lib.rs", "Run", "7-7"),
    ("docs/guide.md", "Text", None),
    ("conf/settings.toml", "version", "2-2"),
])
def test_heuristic_symbols(tmp_path: Path, path: str, symbol: str, lines: str | None) -> None:
    root = git_repo(tmp_path / "repo", HEURISTIC_FILES)
    assert symbol_lines(root, path, symbol) == lines


def test_heuristic_did_you_mean(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", HEURISTIC_FILES)
    result = compile_in(root, one_item_plan("      - web/app.js::rendr\n"))
    assert only(result, "EP206").message == (
        "it cites web/app.js::rendr, but web/app.js defines no rendr (did you mean render?)")


# --- resolved_lines in the output -------------------------------------------------------------------


def test_every_entry_records_its_resolved_lines_and_their_hash_only_when_verified(std_repo: Path) -> None:
    from compiler.core.pins import pin_of

    plan = one_item_plan(
        "      - app/accounts.py::Accounts.create\n"
        "      - a.txt:2\n"
        "      - {path: app/accounts.py, symbol: decorated, contains: \"@functools.cache\"}\n"
        "      - a.txt\n"
        "      - app\n"
    )
    result = compile_in(std_repo, plan)
    evidence = build_output(result, std_repo)["items"][0]["evidence"]
    accounts = (std_repo / "app/accounts.py").read_text().split("\n")
    a_txt = (std_repo / "a.txt").read_text().rstrip("\n")

    def lines_hash(text: list[str], start: int, end: int) -> str:
        return pin_of("\n".join(text[start - 1:end]))

    assert evidence == [
        {"path": "app/accounts.py", "symbol": "Accounts.create", "resolved_lines": "20-22",
         "hash": lines_hash(accounts, 20, 22)},
        {"path": "a.txt", "line": 2, "resolved_lines": "2-2", "hash": lines_hash(a_txt.split("\n"), 2, 2)},
        {"path": "app/accounts.py", "symbol": "decorated", "contains": "@functools.cache",
         "resolved_lines": "11-14", "hash": lines_hash(accounts, 11, 14)},
        {"path": "a.txt", "resolved_lines": f"1-{len(a_txt.split(chr(10)))}", "hash": pin_of(a_txt)},
        {"path": "app"},  # a folder has no lines
    ]
    unverified = compile_in(std_repo, plan, verify_evidence=False)
    document = build_output(unverified, std_repo)
    assert document["evidence_verified"] is False
    assert all("resolved_lines" not in ev and "hash" not in ev for ev in document["items"][0]["evidence"])


def test_imports_are_read_once_however_many_entries_ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fifty unknown names of one module: its imports are parsed once, not once an entry."""
    from compiler.repo import symbols as module

    calls: list[int] = []
    real = module.imported_names
    monkeypatch.setattr(module, "imported_names", lambda text: calls.append(1) or real(text))
    root = git_repo(tmp_path / "repo", PACKAGE)
    result = compile_in(root, one_item_plan("".join(f"      - src/pkg/__init__.py::Missing{k}\n" for k in range(50))))
    assert codes(result) == ["EP206"] * 50
    assert len(calls) == 1
