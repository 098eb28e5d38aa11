"""Bounded work on every evidence path: what anyone can put in a plan, or in the files it cites,
costs time and memory in proportion to its size.

`check` runs in CI and pre-commit on plans anyone can write, so each attack here was measured on
the code before its fix (the numbers are in the docstrings) and is held to a budget that the old
code misses by a wide margin, yet generous enough for a loaded two-core machine. Each generated
input is small (kilobytes, a few megabytes at most) and made in ``tmp_path``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import evidence
from compiler.compile import CompileResult, compile_plan

T = TypeVar("T")


def timed(run: Callable[[], T]) -> tuple[float, T]:
    started = time.perf_counter()
    value = run()
    return time.perf_counter() - started, value


def repository(root: Path, files: dict[str, str | bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def compile_items(root: Path, items: list[dict[str, Any]]) -> CompileResult:
    plan = root / "plan.json"
    plan.write_text(json.dumps({"items": items}), encoding="utf-8")
    return compile_plan(str(plan))


def item(ident: str, *evidence_entries: object, **fields: object) -> dict[str, Any]:
    return {"id": ident, "change": "c", "proof": "pytest", "evidence": list(evidence_entries), **fields}


def messages(result: CompileResult) -> list[str]:
    return [f"{d.code} {d.message}" for d in result.diagnostics]


# --- 1. the patterns applied to evidence files -------------------------------------------------------

# The expressions that were applied before: the specification of what the plain parses find.
REFERENCE_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
REFERENCE_STRINGS = re.compile(
    r'#[^\n]*|"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'',
    re.DOTALL,
)


def reference_heading(line: str) -> str | None:
    m = REFERENCE_HEADING.match(line)
    return m.group(1) if m else None


@pytest.mark.parametrize(("line", "text"), [
    ("# Title", "Title"),
    ("###### Six", "Six"),
    ("####### Seven", None),
    ("#Title", None),
    ("## Closed ##", "Closed"),
    ("## Closed ##   ", "Closed"),
    ("# C# and F#", "C# and F"),  # the closing-#s rule, as before
    ("#   spaced   out   ", "spaced   out"),
    ("# #", "#"),
    ("#  ", " "),
    ("# ", None),
    ("#\tTab", "Tab"),
    ("#\u00a0No-break", "No-break"),
    ("", None),
    ("text", None),
])
def test_headings(line: str, text: str | None) -> None:
    assert evidence.heading(line) == text == reference_heading(line)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="# \t\u00a0\rab", max_size=24))
def test_heading_parse_finds_what_the_expression_found(line: str) -> None:
    assert evidence.heading(line) == reference_heading(line)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(['"', "'", "\\", "\n", "#", "x", '"""', "'''", '\\"', "\\'", "\\\n", " "]),
                max_size=40).map("".join))
def test_string_spans_are_what_the_expression_found(text: str) -> None:
    assert evidence.string_spans(text) == [m.span() for m in REFERENCE_STRINGS.finditer(text)]


def test_heading_symbol_in_a_file_of_long_headings(tmp_path: Path) -> None:
    """A 9 KB Markdown file of headings with 1,500 spaces inside each: 32-34 s before (the
    expression backtracked cubically over the spaces), 0.014 s after (over 2,000x)."""
    line = "# a" + " " * 1500 + "b"
    doc = "\n".join([line] * 6) + "\n## Real heading ##\n"
    root = repository(tmp_path / "repo", {"doc.md": doc})
    seconds, result = timed(lambda: compile_items(root, [item("i", "doc.md::Real heading", "doc.md::Nope")]))
    assert messages(result) == ["EP206 i cites doc.md::Nope, but doc.md defines no Nope"]
    assert seconds < 1.0, seconds


def test_definition_patterns_on_hostile_lines(tmp_path: Path) -> None:
    """Long runs of spaces, brackets and colons in definition-looking lines: the expressions for
    definitions and assignments are anchored and stay linear (this guards that they stay so)."""
    n = 20_000
    lines = [
        "fn" + " " * n + "!",
        "pub(" + "x" * n,
        "export" + " " * n + "default" + " " * n + "async" + " " * n + "!",
        "a" * n + " " * n + "!",
        "a:" + "x" * n,
        "func (" + " " * n,
        " " * n + "x",
        "#" * n,
        "#" + " " * n,
    ]
    root = repository(tmp_path / "repo", {"code.txt": "\n".join(lines) + "\nfunction real() {}\n"})
    seconds, result = timed(lambda: compile_items(root, [item("i", "code.txt::real", "code.txt::nope")]))
    assert [d.code for d in result.diagnostics] == ["EP206"]
    assert seconds < 1.0, seconds


def test_python_file_of_escaped_quotes(tmp_path: Path) -> None:
    """A 64 KB line of escaped quotes that never close (``'\\'\\'\\'...``): finding its strings
    took 15 s before (each escaped quote started a scan to the end of the line), 0.02 s after."""
    source = "def f():\n    pass\n\nx = '" + "\\'" * 32_000 + "\n\ndef g():\n    pass\n"
    root = repository(tmp_path / "repo", {"mod.py": source})
    seconds, result = timed(lambda: compile_items(root, [item("i", "mod.py::g")]))
    assert result.diagnostics == ()
    assert seconds < 1.0, seconds
