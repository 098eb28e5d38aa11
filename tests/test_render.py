"""Markdown rendering: plan text can never break the page, the tables or the Mermaid graph."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.render import cell, code, evidence_view, link_base, md, mermaid, render_markdown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain words", "plain words"),
        ("a | b", "a \\| b"),
        ("<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"),
        ("*not bold* _nor_ [a](b)", "\\*not bold\\* \\_nor\\_ \\[a\\](b)"),
        ("line\nbreak", "line<br>break"),
        ("&amp;", "&amp;amp;"),
    ],
)
def test_md_escapes_text(text: str, expected: str) -> None:
    assert md(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("make test", "`make test`"),
        ("echo `date`", "`` echo `date` ``"),  # a backtick at an edge: padded, CommonMark strips one space
        ("`x`", "`` `x` ``"),
        ("a ``` b", "````a ``` b````"),
        ("two\nlines", "`two lines`"),
        ("", "` `"),
    ],
)
def test_code_span_holds_any_text(text: str, expected: str) -> None:
    assert code(text) == expected


def test_cell_escapes_pipes_even_inside_code() -> None:
    assert cell(code("a | b")) == "`a \\| b`"


def test_mermaid_labels_cannot_close_the_quote_or_the_fence() -> None:
    assert mermaid('say "hi" <b> # ``` end') == "say #quot;hi#quot; #lt;b#gt; #35; #96;#96;#96; end"


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_escaped_text_has_no_live_markup(text: str) -> None:
    out = md(text)
    assert "<" not in out.replace("<br>", "")
    assert "\n" not in out and "\r" not in out
    assert re.search(r"(?<!\\)[|`*\[\]]", out) is None  # every special character is escaped
    label = mermaid(text)
    assert '"' not in label and "`" not in label and "\n" not in label


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_code_span_is_one_unbroken_span(text: str) -> None:
    out = code(text)
    fence = re.match(r"`+", out).group()  # type: ignore[union-attr]
    assert out.endswith(fence)
    inner = out[len(fence):-len(fence)]
    assert fence not in inner  # the closing fence cannot appear early
    assert "\n" not in out


def test_evidence_links() -> None:
    assert evidence_view({"path": "app/a b.py", "lines": "3-4"}, "../repo") == {
        "text": "app/a b.py:3-4", "href": "../repo/app/a%20b.py#L3-L4", "contains": None,
    }
    assert evidence_view({"path": "x.py", "line": 7, "contains": "def f"}, ".")["href"] == "x.py#L7"
    assert evidence_view({"path": "x.py", "symbol": "C.m"}, ".")["text"] == "x.py::C.m"
    assert evidence_view({"url": "https://e.org/a"}, ".")["href"] == "https://e.org/a"
    assert evidence_view({"url": "javascript://alert(1)"}, ".")["href"] is None  # shown, never linked


def test_link_base_is_relative_between_json_and_markdown_folders() -> None:
    assert link_base("build", "build", "../src") == "../src"
    assert link_base("build", "docs", "..") == ".."
    assert link_base("build", ".", "../repo") == "repo"


def _document(items: list[dict[str, object]], **extra: object) -> dict[str, object]:
    return {
        "format": "evidence-plan/1", "plan": None, "goal": None, "source": "plan.yaml", "root": ".",
        "status": "ready",
        "summary": {"items": len(items), "waves": 1, "widest_wave": len(items), "errors": 0, "warnings": 0},
        "issues": [], "waves": [[i["id"] for i in items]], "critical_path": [], "items": items, **extra,
    }


def test_large_plans_leave_the_graph_out_with_a_sentence() -> None:
    items = [{"id": f"i{n}", "change": "c", "evidence": [], "depends_on": [], "proof": "p", "wave": 1}
             for n in range(301)]
    text = render_markdown(_document(items))
    assert "```mermaid" not in text
    assert "The graph is left out: 301 items are more than Mermaid draws (300)." in text


def test_untitled_plan_and_trailing_newline() -> None:
    item = {"id": "a", "change": "", "evidence": [], "depends_on": [], "proof": "", "wave": 1}
    text = render_markdown(_document([item]))
    assert text.startswith("# Plan\n")
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert "- **Change:** _none_" in text
    assert "- **Proof:** _none_" in text
