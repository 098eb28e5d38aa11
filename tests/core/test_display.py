"""Plan text made safe to show (compiler/core/display.py), and the reporters that use it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.core.diagnostics import Diagnostic, Location, Note
from compiler.core.display import UNSAFE, clip, escape, escape_lines, names, quoted
from compiler.report.reporters import github, text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain", "plain"),
        ("a\nb", "a\\nb"),
        ("a\r\nb", "a\\r\\nb"),
        ("tab\there", "tab\\there"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("nul\x00 del\x7f c1\x9b", "nul\\x00 del\\x7f c1\\x9b"),
        ("nel\x85 ls\u2028 ps\u2029", "nel\\x85 ls\\u2028 ps\\u2029"),
        ("bidi\u202e\u2066x", "bidi\\u202e\\u2066x"),
        ("bytes \udcff\udc80", "bytes \\xff\\x80"),  # a file name that is not UTF-8
        ("café ✓ 中文", "café ✓ 中文"),
    ],
)
def test_escape(raw: str, shown: str) -> None:
    assert escape(raw) == shown


@pytest.mark.slow
@given(st.text())
@settings(max_examples=300, deadline=None)
def test_escaped_text_is_one_safe_line(raw: str) -> None:
    shown = escape(raw)
    assert UNSAFE.search(shown) is None
    assert "\n" not in shown
    shown.encode("utf-8")  # surrogates too: always writable
    if UNSAFE.search(raw) is None:
        assert shown == raw


def test_escape_lines_keeps_our_line_breaks() -> None:
    assert escape_lines("a\x1b\nb\r") == "a\\x1b\nb\\r"


def test_clip_quoted_and_names_keep_one_screen() -> None:
    assert clip("x" * 10) == "x" * 10
    assert clip("x" * 1000) == "x" * 120 + "... (880 more characters)"
    assert quoted("a\nb") == "'a\\nb'"
    assert quoted("y" * 200, 10) == "'yyyyyyyyyy'... (190 more characters)"
    assert names(["a", "b"]) == "a, b"
    assert names([f"u{n}" for n in range(100_000)]) == "u0, u1, u2, u3, u4, u5, u6, u7, u8, u9 and 99,990 more"
    assert names(["a", "b", "a"], joiner=" -> ") == "a -> b -> a"
    assert names(["z" * 500]) == clip("z" * 500)


HOSTILE = Diagnostic(
    "EP102", "a\n::error::pwned has no proof command", "a\n::error::pwned",
    Location("plan\x1b[2J.yaml", 3, 5), (Note("see\r::warning::x", Location("p.yaml", 1, 1)),),
    hint="hint\n::add-mask::s",
)


def test_text_report_escapes_every_part() -> None:
    out = text([HOSTILE])
    assert out == (
        "plan\\x1b[2J.yaml:3:5: error EP102 a\\n::error::pwned has no proof command\n"
        "  p.yaml:1:1: note: see\\r::warning::x\n"
        "  hint: hint\\n::add-mask::s\n"
    )


def test_github_report_keeps_one_annotation_per_diagnostic() -> None:
    out = github([HOSTILE])
    assert out.count("\n") == 1 and out.startswith("::error file=plan\\x1b[2J.yaml,line=3,col=5,")
    assert "\r" not in out and "\x1b" not in out
    # The plan's newline is shown as \n; the ones before the note and the hint are ours (%0A).
    assert out.endswith("::a\\n::error::pwned has no proof command%0Ap.yaml:1:1: see\\r::warning::x"
                        "%0Ahint: hint\\n::add-mask::s\n")


def test_text_report_cuts_long_messages_and_many_notes() -> None:
    d = Diagnostic("EP303", "m" * 5000, None, Location("p.yaml", 1, 1),
                   tuple(Note(f"n{k}", Location("p.yaml", k + 1, 1)) for k in range(50)))
    lines = text([d]).splitlines()
    assert len(lines[0]) < 1100 and lines[0].endswith("(4,000 more characters)")
    assert len(lines) == 1 + 10 + 1 and lines[-1] == "  note: ... and 40 more (all are in the JSON reports)"
