"""Markdown rendering (compiler/render/markdown.py, its escaping compiler/core/markdown.py) and the Mermaid
graph (compiler/render/mermaid.py): plan text can never break the page, the tables or the graph."""

from __future__ import annotations

import posixpath
import re
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import MENTION, commonmark_html, compile_in, git_repo, one_item_plan
from support import shown as as_shown

from compiler.compile.emit import build_output
from compiler.core.display import UNSAFE
from compiler.core.markdown import HARD_BREAK, cell, code, md
from compiler.core.write import PIECE
from compiler.render import markdown as render
from compiler.render import mermaid as graphs
from compiler.render.markdown import (
    evidence_line,
    item_rows,
    link_base,
    render_markdown,
    repository_link,
)
from compiler.render.mermaid import label as mermaid


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain words", "plain words"),
        ("a | b", "a \\| b"),
        ("<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"),
        ("*not bold* _nor_ [a](b)", "\\*not bold\\* \\_nor\\_ \\[a\\](b)"),
        ("line\nbreak", "line\\\nbreak"),  # a hard break (CommonMark 6.7): no HTML
        ("line\n\nbreak\n", "line\\\n\\\nbreak"),  # a break at the end shows nothing: left out
        ("&amp;", "&amp;amp;"),
        ("bell\x07 esc\x1b[2J", "bell\\\\x07 esc\\\\x1b\\[2J"),  # Markdown's \\x07 shows as \x07
        ("right\u202eleft", "right\\\\u202eleft"),
        ("a\u2028b", "a\\\\u2028b"),
    ],
)
def test_md_escapes_text(text: str, expected: str) -> None:
    assert md(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("# Heading", "\\# Heading"), ("Title #", "Title \\#"), ("- list", "\\- list"), ("+ plus", "\\+ plus"),
    ("1. ordered", "1\\. ordered"), ("12) ordered", "12\\) ordered"), ("---", "\\---"), ("=== x", "\\=== x"),
    ("    code", "&#32;&#32;&#32;&#32;code"), ("a\n# b", "a\\\n\\# b"),
    ("2024-01-01 ships", "2024-01-01 ships"), ("v1.2 ships", "v1.2 ships"),  # not a block: as it is
])
def test_md_text_never_starts_a_block(text: str, expected: str) -> None:
    """The goal is the first text of a quote's line (``> goal``), and the title follows ``# ``: a
    heading, a list, a rule or a code block from the plan would be one in the page."""
    assert md(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("make test", "`make test`"),
        ("echo `date`", "`` echo `date` ``"),  # a backtick at an edge: padded, CommonMark strips one space
        ("`x`", "`` `x` ``"),
        ("a ``` b", "````a ``` b````"),
        ("two\nlines", "`two\\nlines`"),  # a line break shown as one, never a raw one
        ("colour \x1b[31mred", "`colour \\x1b[31mred`"),
        ("", "` `"),
    ],
)
def test_code_span_holds_any_text(text: str, expected: str) -> None:
    assert code(text) == expected


def test_cell_escapes_pipes_even_inside_code() -> None:
    assert cell(code("a | b")) == "`a \\| b`"


def test_mermaid_labels_cannot_close_the_quote_or_the_fence() -> None:
    assert mermaid('say "hi" <b> # ``` end') == "say #quot;hi#quot; #lt;b#gt; #35; #96;#96;#96; end"


def test_mermaid_labels_hold_no_directive() -> None:
    # %%{init: ...}%% is applied by Mermaid wherever it stands, inside a quoted label too.
    label = mermaid('x%%{init: {"theme": "dark"}}%%\ny')
    assert label == "x#37;#37;{init#58; {#quot;theme#quot;#58; #quot;dark#quot;}}#37;#37;#92;ny"


@pytest.mark.parametrize(("text", "label"), [
    ("a\\nb", "a#92;nb"),  # Mermaid would read \n as a line break
    ("style n1 fill:#f00;", "style n1 fill#58;#35;f00;"),  # its style pass would eat the ;
    ("ﬂ°lt¶ßimg", "ﬂ#92;u00b0lt#92;u00b6ßimg"),  # its own entity markers, typed: shown, not decoded
])
def test_mermaid_labels_show_what_mermaid_would_read_as_its_own(text: str, label: str) -> None:
    assert mermaid(text) == label


@pytest.mark.parametrize(("text", "expected"), [
    ("ask @octocat", "ask @&#8288;octocat"),
    ("@github/security reviews", "@&#8288;github/security reviews"),  # a team
    ("mail ana@example.com", "mail ana@&#8288;example.com"),
    ("*@x*", "\\*@&#8288;x\\*"),
    ("@ alone, @_x, @-y", "@ alone, @\\_x, @-y"),  # nothing GitHub would take for a name: as it is
    ("run `@decorator` then @a", "run `@decorator` then @&#8288;a"),  # a code span mentions nobody: kept
])
def test_md_never_forms_a_github_mention(text: str, expected: str) -> None:
    """A word joiner (U+2060, written as its entity: the Markdown holds no invisible character)
    between `@` and a name: GitHub shows `@octocat` and notifies nobody. `&#64;` would not do:
    GitHub decodes entities before it looks for mentions."""
    assert md(text) == expected


@given(st.text(alphabet="@aZ09_-/.:; \\&#*<>|\n", max_size=40))
@settings(max_examples=300, deadline=None)
def test_md_text_mentions_nobody_and_reads_the_same(text: str) -> None:
    seen = as_shown(md(text))
    assert MENTION.search(seen) is None
    assert seen.replace("\u2060", "") == text.rstrip("\r\n")  # a line break at the end shows nothing


def test_the_plan_page_mentions_nobody(tmp_path: Path) -> None:
    """evidence-plan.md, shown on GitHub or pasted into a comment: its text notifies nobody."""
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    plan = ("plan: '@team rollout'\ngoal: ask @octocat\n"
            + one_item_plan("      - a.py:1\n").replace("change: c", "change: '@github/security reviews'"))
    page = render_markdown(build_output(compile_in(tmp_path, plan), str(tmp_path)))
    assert "# @&#8288;team rollout" in page and "> ask @&#8288;octocat" in page
    assert "**Change:** @&#8288;github/security reviews" in page
    assert MENTION.search(as_shown(page)) is None


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_escaped_text_has_no_live_markup(text: str) -> None:
    out = md(text)
    assert "\n" not in out.replace(HARD_BREAK, "") and "\r" not in out
    for line in re.split(r"\r\n|\r|\n", text):  # md() joins its lines with hard breaks
        outside = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", md(line))  # what is left once code spans are cut out
        assert "<" not in outside
        assert re.search(r"(?<!\\)[|`*\[\]]", outside) is None  # every special character is escaped
    label = mermaid(text)
    assert '"' not in label and "`" not in label and "%" not in label
    for shown in (out.replace(HARD_BREAK, ""), label, code(text)):
        assert UNSAFE.search(shown) is None  # no control character, raw line break or bidi control


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
    def line(ev: dict[str, object], base: str = ".") -> str:
        return evidence_line(ev, repository_link(base))

    assert line({"path": "app/a b.py", "lines": "3-4"}, "../repo") == "[`app/a b.py:3-4`](../repo/app/a%20b.py#L3-L4)"
    assert line({"path": "x.py", "line": 7, "contains": "def f"}) == "[`x.py:7`](x.py#L7) contains `def f`"
    assert line({"path": "x.py", "symbol": "C.m"}, "..") == "[`x.py::C.m`](../x.py)"  # not verified
    assert line({"path": "docs/"}, "../r") == "[`docs/`](../r/docs)"  # joined and normalized
    assert line({"url": "https://e.org/a"}) == "[`https://e.org/a`](https://e.org/a)"
    assert line({"url": "javascript://alert(1)"}) == "`javascript://alert(1)`"  # shown, never linked
    assert line({"url": "HTTPS://E.ORG/a"}) == "[`HTTPS://E.ORG/a`](HTTPS://E.ORG/a)"
    assert line({"path": ""}) == "` `"  # nothing to link to


def test_symbol_evidence_links_to_its_resolved_lines() -> None:
    link = repository_link("..")
    assert evidence_line({"path": "x.py", "symbol": "C.m", "resolved_lines": "511-579"}, link) == (
        "[`x.py::C.m`](../x.py#L511-L579)")
    assert evidence_line({"path": "x.py", "symbol": "LIMIT", "resolved_lines": "3-3"}, link) == (
        "[`x.py::LIMIT`](../x.py#L3)")
    assert evidence_line({"path": "README.md", "symbol": "Usage", "resolved_lines": "5-9", "contains": "run"},
                         link) == "[`README.md::Usage`](../README.md#L5-L9) contains `run`"
    # A hand-written JSON's resolved_lines that are no START-END give no anchor: never raw text.
    for bad in ("0-1", "1-2)(javascript:x", "x", "", "3"):
        assert evidence_line({"path": "x.py", "symbol": "C", "resolved_lines": bad}, link) == "[`x.py::C`](../x.py)"


def test_symbol_evidence_links_to_its_resolved_lines_in_the_compiled_page(std_repo: Path) -> None:
    result = compile_in(std_repo, one_item_plan("      - app/accounts.py::Accounts.create\n"
                                                "      - docs/guide.md::Guide\n"))
    page = render_markdown(build_output(result, std_repo))
    assert "[`app/accounts.py::Accounts.create`](app/accounts.py#L20-L22)" in page
    assert "[`docs/guide.md::Guide`](docs/guide.md#L1-L3)" in page


@pytest.mark.parametrize("path", ["javascript:alert(1)", "data:text/html,<b>x</b>", "vbscript:msgbox", "JaVaScRiPt:x"])
@pytest.mark.parametrize("base", ["", "."])
def test_a_path_that_looks_like_a_url_scheme_is_linked_as_a_relative_path(path: str, base: str) -> None:
    out = evidence_line({"path": path}, repository_link(base))
    target = re.fullmatch(r"\[.*\]\((.*)\)", out).group(1)  # type: ignore[union-attr]
    assert target.startswith("./")
    assert re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) is None


@pytest.mark.parametrize("url", ["https://example.com/a)[x](javascript:alert(1)", "https://example.com/a)<img src=x>",
                                 "https://e.org/\x1b[31m\u202eevil", "https://e.org/a b"])
def test_a_url_cannot_end_its_link_early_or_carry_raw_characters(url: str) -> None:
    out = evidence_line({"url": url}, repository_link("."))
    target = out[out.rindex("](") + 2:-1]
    assert re.fullmatch(r"[A-Za-z0-9/:?#\[\]@!$&'*+,;=%~._-]+", target), target
    assert "(" not in target and ")" not in target and "<" not in target


@pytest.mark.parametrize("path", ["javascript&colon;alert(1)", "data&colon;text/html,x", "a&amp;b.py"])
def test_an_entity_in_a_path_stays_text_in_its_link(path: str) -> None:
    # Markdown decodes entities in a link target: javascript&colon;x would link to javascript:x.
    out = evidence_line({"path": path}, repository_link("."))
    target = out[out.rindex("](") + 2:-1]
    assert "&" not in target and ":" not in target, target


@pytest.mark.parametrize("path", ["/etc/passwd", "../../../etc/passwd", "a/../../x", "\\\\server\\x", "C:/x",
                                  "//evil.example/x"])
@pytest.mark.parametrize("base", ["", ".", "..", "../repo"])
def test_a_path_outside_the_repository_is_shown_never_linked(path: str, base: str) -> None:
    out = evidence_line({"path": path, "line": 1}, repository_link(base))
    assert out == code(f"{path}:1")


def _reference_link(path: str, base: str) -> str:
    """The link target by definition: joined, normalized, then percent-quoted unless plainly safe."""
    target = posixpath.normpath(posixpath.join(base, path)) if base not in ("", ".") else path
    target = target if re.fullmatch(r"[A-Za-z0-9/._-]*", target) else quote(target, safe="/-._~!$&'*+,;=:@")
    return "./" + target if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) else target


BASES = ["", ".", "..", "../..", "../repo", "a/b", "/abs", "/", "a/./b", "../x y", "x/", "./x", "a//b"]


@pytest.mark.slow
@given(st.text(alphabet="ab./_- %#:", max_size=12), st.sampled_from(BASES))
@settings(max_examples=500, deadline=None)
def test_repository_link_takes_its_shortcut_only_where_it_gives_the_same_target(path: str, base: str) -> None:
    assert repository_link(base)(path) == _reference_link(path, base)


@pytest.mark.parametrize("path", ["src/app.py", "./src/app.py", "src/../app.py", "a//b.py", ".github/x.yml",
                                  "src/a b.py", "/etc/passwd", "../up.py", "dir/", "é.py"])
@pytest.mark.parametrize("base", BASES)
def test_repository_link_on_tricky_paths(path: str, base: str) -> None:
    assert repository_link(base)(path) == _reference_link(path, base)


def test_item_rows_escape_each_part_and_join_the_evidence() -> None:
    item = {"id": "a|b", "change": "x *y*", "evidence": [{"path": "a.py", "line": 1}, {"url": "ftp://f"}],
            "depends_on": ["c", "d`e"], "proof": "make `t`",
            "estimate": {"low": 1, "high": 2.5, "unit": "days", "confidence": "high", "evidence": "PR *12*"},
            "ungrounded": ["no <b>"]}
    empty = {"id": "z", "change": "", "evidence": [], "depends_on": [], "proof": ""}
    assert list(item_rows([item, empty], repository_link(".."))) == [
        ("`a|b`", "x \\*y\\*", "[`a.py:1`](../a.py#L1)\n  - `ftp://f`", "`c`, ``d`e``", "`` make `t` ``", "", "",
         "\n- **Estimate:** 1–2.5 days (high confidence) · evidence: PR \\*12\\* · **ungrounded:** no &lt;b&gt;",
         "", ""),
        ("`z`", "_none_", "", "_nothing_", "_none_", "", "", "", "", ""),
    ]


def test_item_rows_show_the_paths_an_item_writes_and_their_owners_as_code() -> None:
    item = {"id": "a", "change": "c", "evidence": [], "depends_on": [], "proof": "p",
            "paths": ["app/", "docs/**/*.md"], "owners": ["@org/team", "@dev`x"]}
    (row,) = item_rows([item], repository_link("."))
    assert (row.paths, row.owners) == ("`app/`, `docs/**/*.md`", "`@org/team`, ``@dev`x``")


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


def test_a_large_wave_is_folded_with_a_sentence_instead_of_leaving_the_graph_out() -> None:
    items = [{"id": f"i{n}", "change": "c", "evidence": [], "depends_on": [], "proof": "p", "wave": 1}
             for n in range(301)]
    text = render_markdown(_document(items))
    assert '```mermaid\nflowchart TD\n  w1[["Wave 1#58; 301 items"]]\n```\n' in text
    assert "Folded to stay legible: a wave of more than 8 items is drawn as one node." in text


def test_untitled_plan_and_trailing_newline() -> None:
    item = {"id": "a", "change": "", "evidence": [], "depends_on": [], "proof": "", "wave": 1}
    text = render_markdown(_document([item]))
    assert text.startswith("# Plan\n")
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert "- **Change:** _none_" in text
    assert "- **Proof:** _none_" in text


def _documents() -> list[dict[str, object]]:
    """Documents that exercise every optional block of the template."""
    item = {"id": "a", "change": "c", "evidence": [{"path": "a.py"}], "depends_on": [], "proof": "p", "wave": 1}
    second = {"id": "b", "change": "c", "evidence": [], "depends_on": ["a"], "proof": "p", "wave": 2}
    issue = {"code": "EP101", "severity": "error", "message": "b has no repository evidence", "item": "b",
             "location": {"file": "plan.yaml", "line": 3, "column": 5}}
    blocked = {"status": "blocked", "waves": [], "issues": [issue]}
    return [
        _document([item, second], waves=[["a"], ["b"]], critical_path=["a", "b"], goal="g"),
        _document([item, second], **blocked),
        _document([], **blocked),
        _document([]),
        _document([dict(item, id=f"i{n}") for n in range(301)], critical_path=["i0"]),
    ]


@pytest.mark.parametrize("document", _documents())
def test_the_template_leaves_no_gap_and_one_final_newline(document: dict[str, object],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """render_markdown only scans a compiled plan's text (no rewrite) because the template
    itself never leaves two blank lines in a row nor a blank line at the end."""
    tidied = render_markdown(document)
    monkeypatch.setattr(render, "_tidy", lambda text: text)
    raw = render_markdown(document)
    assert raw == tidied
    assert "\n\n\n" not in raw and raw.endswith("\n") and not raw.endswith("\n\n")


def test_values_printed_unescaped_cannot_open_gaps() -> None:
    """The status is printed as it is (compiled plans say ready or blocked); from a hand-written
    JSON it could hold blank lines, which still collapse to one."""
    text = render_markdown(_document([], status="odd\n\n\n\nstatus\n"))
    assert "**Status: odd\n\nstatus\n** · 0 items" in text
    assert "\n\n\n" not in text


def _tidy_whole(text: str) -> str:
    """The rule, on a whole text: no run of more than two line breaks, exactly one at the end."""
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.rstrip("\n") + "\n"


@pytest.mark.slow
@given(st.text(alphabet="ab\n", max_size=60), st.lists(st.integers(min_value=0, max_value=60), max_size=6))
@settings(max_examples=500, deadline=None)
def test_tidy_in_pieces_gives_the_whole_texts_answer(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(min(c, len(text)) for c in cuts)})
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    assert "".join(render._tidy(pieces)) == _tidy_whole(text)


@pytest.mark.performance  # a large page, made in pieces for memory
def test_a_large_page_comes_in_pieces_that_join_to_the_page() -> None:
    items = [{"id": f"i{n}", "change": "c", "evidence": [{"path": "a.py"}], "depends_on": [], "proof": "p"}
             for n in range(30_000)]
    document = {"format": "evidence-plan/1", "plan": "big", "goal": None, "source": "p.yaml", "root": ".",
                "status": "blocked", "summary": {"items": len(items), "waves": 0, "widest_wave": 0, "errors": 1,
                                                 "warnings": 0},
                "issues": [], "waves": [], "critical_path": [], "items": items}
    pieces = list(render.render_pieces(document))
    assert len(pieces) > 2 and max(map(len, pieces)) < 2 * PIECE
    assert "".join(pieces) == render_markdown(document)


def _waved_document(items: list[dict[str, object]], waves: list[list[str]]) -> dict[str, object]:
    return {"format": "evidence-plan/1", "plan": "p", "goal": None, "source": "p.yaml", "root": ".",
            "status": "ready" if waves else "blocked",
            "summary": {"items": len(items), "waves": len(waves), "widest_wave": max(map(len, waves), default=0),
                        "errors": 0 if waves else 1, "warnings": 0},
            "issues": [], "waves": waves, "critical_path": [], "items": items}


def _item(ident: str, deps: list[str]) -> dict[str, object]:
    return {"id": ident, "change": "c", "evidence": [{"path": "a.py"}], "depends_on": deps, "proof": "p"}


def test_a_graph_past_mermaids_limits_is_folded_into_one_that_it_draws() -> None:
    """Mermaid 11 draws at most 500 edges and reads at most 50,000 characters (its defaults, which
    a diagram cannot raise): the page shows a folded graph within both instead of Mermaid's error."""
    dense = [_item(f"i{n}", [f"i{n - 1}", f"i{n - 2}"][: min(n, 2)]) for n in range(300)]
    page = render_markdown(_waved_document(dense, [[f"i{n}"] for n in range(300)]))
    graph = page.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert len(graph) <= graphs.MAX_TEXT and graph.count(" --> ") <= graphs.MAX_EDGES
    assert '  g1[["Waves 1–9#58; 9 items"]]\n' in graph
    assert "Folded to stay legible: 300 waves are drawn as 32 nodes" in page
    long_ids = [_item(f"{n:03d}" + "x" * 125, [f"{n - 1:03d}" + "x" * 125] if n else []) for n in range(40)]
    small = render_markdown(_waved_document(long_ids, [[str(i["id"])] for i in long_ids]))
    graph = small.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert graph.startswith("flowchart TD\n") and len(graph) <= graphs.MAX_TEXT
    assert graph.count(" --> ") == 39 and "Folded" not in small  # a wave of one item is drawn, however long its id


def test_an_items_block_unpacks_its_row_by_the_field_names() -> None:
    """item_text unpacks each row (attribute lookups cost more): by the names of markdown.Row's
    fields, in their order, so that a field added to Row cannot shift another."""
    import inspect

    unpacked = re.search(r"^    ([\w, ]+) = row$", inspect.getsource(render.item_text), re.MULTILINE)
    assert unpacked is not None
    assert tuple(name.strip() for name in unpacked.group(1).split(",")) == render.Row._fields


def test_the_template_does_no_work_per_item() -> None:
    """The template's loop over the items prints their pieces (about a megabyte each)."""
    from compiler.core.resources import read_text

    template = read_text("templates", render.TEMPLATE)
    assert re.findall(r"\{% for ([\w, ]+) in ([\w.]+) %\}", template) == [
        ("issue", "doc.issues"), ("piece", "items")]


@pytest.mark.parametrize(("text", "expected"), [
    ("Use `re` here", "Use `re` here"),
    ("Call ``a`b`` now", "Call ``a`b`` now"),  # a run of two closes a run of two
    ("`` `x` ``", "`` `x` ``"),  # CommonMark strips one space each side: the span shows `x`
    ("`<img src=x>` and `[a](javascript:x)`", "`<img src=x>` and `[a](javascript:x)`"),  # code holds no markup
    ("one ` alone", "one \\` alone"),  # a run that nothing closes is text
    ("a ``` b `c`", "a \\`\\`\\` b `c`"),
    ("`a|b` *x*", "`a|b` \\*x\\*"),
    ("`x` - y", "`x` - y"),  # after a span, nothing is at the start of a line
    ("- `x`", "\\- `x`"),
])
def test_md_keeps_the_code_spans_of_plan_text_as_code(text: str, expected: str) -> None:
    assert md(text) == expected


@pytest.mark.parametrize("text", ["http://x.y`<img src=x>`", "see www.x.org`<b>`", "a:b`*c*`"])
def test_md_shows_a_code_span_as_text_where_an_autolink_could_swallow_its_backtick(text: str) -> None:
    # GitHub's autolink runs from http://... over the backtick: the span's content would be Markdown.
    out = md(text)
    assert "<" not in out and re.search(r"(?<!\\)`", out) is None


@given(st.text(alphabet="`ab <>*:\\|&\n", max_size=40))
@example("```<`:`")
@example("`\\`")
@settings(max_examples=300, deadline=None)
def test_md_code_spans_hold_no_live_markup_outside_them(text: str) -> None:
    assert "\n" not in md(text).replace(HARD_BREAK, "")
    for line in re.split(r"\r\n|\r|\n", text):  # md() joins its lines with hard breaks
        outside = _outside_code_spans(md(line))
        assert "<" not in outside
        assert re.search(r"[`*|]", outside) is None


def _outside_code_spans(text: str) -> str:
    """What CommonMark reads outside code spans, escaped characters left out: from left to right,
    a backslash escapes the next character (an escaped backtick opens no span), and a run of
    backticks opens a span only when the same run closes it (inside, a backslash is literal).
    Found by hypothesis: an oracle that cut spans by a regex took an escaped backtick for a span's edge."""
    out = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == "\\" and at + 1 < len(text):
            at += 2
            continue
        if char == "`":
            end = at
            while end < len(text) and text[end] == "`":
                end += 1
            closing = re.compile(rf"(?<!`){text[at:end]}(?!`)").search(text, end)
            if closing is not None:
                at = closing.end()
                continue
            out.append(text[at:end])
            at = end
            continue
        out.append(char)
        at += 1
    return "".join(out)


def _row(**item: object) -> render.Row:
    base: dict[str, object] = {"id": "a", "change": "c", "evidence": [], "depends_on": [], "proof": "p"}
    return next(item_rows([{**base, **item}], repository_link(".")))


@pytest.mark.parametrize("blank", ["", " ", "   \t", "\n", "\u00a0"])
def test_a_blank_change_or_proof_shows_none_as_an_empty_one_does(blank: str) -> None:
    row = _row(change=blank, proof=blank)
    assert (row.change, row.proof) == ("_none_", "_none_")


@pytest.mark.parametrize("blank", ["", "  ", "\n"])
def test_a_blank_goal_or_name_is_left_out_as_an_empty_one_is(blank: str) -> None:
    item = {"id": "a", "change": "c", "evidence": [], "depends_on": [], "proof": "p", "wave": 1}
    page = render_markdown(_document([item], plan=blank, goal=blank))
    assert page.startswith("# Plan\n\n**Status: ready**")
    assert "\n> " not in page


def test_a_multi_line_proof_is_a_fenced_block_with_its_lines_as_they_are() -> None:
    row = _row(proof="cd tests &&\n  pytest -k `x`\n\n```weird")
    assert row.proof == "(4 lines)\n  ````\n  cd tests &&\n    pytest -k `x`\n  \n  ```weird\n  ````"


def test_a_proof_keeps_one_line_when_a_line_break_ends_it() -> None:
    assert _row(proof="pytest -q\n").proof == "`pytest -q`"


def test_a_multi_line_proof_with_a_workflow_command_line_stays_on_one_line() -> None:
    # Printed by `render` in a CI log, "  ::error::x" would be a workflow command (leading spaces are trimmed).
    assert _row(proof="true\n  ::error::x").proof == "`true\\n  ::error::x`"


@given(st.text(alphabet="`a \n\t\x1b~", min_size=1, max_size=30))
@settings(max_examples=300, deadline=None)
def test_a_multi_line_proof_block_cannot_be_closed_early(text: str) -> None:
    shown = _row(proof=text).proof
    if not shown.startswith("("):
        return  # one line: a code span (test_code_span_is_one_unbroken_span)
    lines = shown.split("\n")
    fence = lines[1].strip()
    assert set(fence) == {"`"} and len(fence) >= 3 and lines[-1] == "  " + fence
    for line in lines[2:-1]:
        assert line.startswith("  ") and fence not in line
        assert UNSAFE.search(line) is None


# --- progress (compiler/analysis/progress.py) --------------------------------------------------------------------


def _tracked() -> dict[str, object]:
    items = [
        {"id": "a", "change": "c", "evidence": [], "depends_on": [], "proof": "p", "status": "done", "wave": 1},
        {"id": "b", "change": "c", "evidence": [], "depends_on": ["a"], "proof": "p", "status": "doing", "wave": 2},
        {"id": "c", "change": "c", "evidence": [], "depends_on": ["a"], "proof": "p", "wave": 2},
        {"id": "d", "change": "c", "evidence": [], "depends_on": [], "proof": "p", "status": "dropped",
         "reason": "# not *needed*\n<b>x</b> `a|b`", "wave": None},
    ]
    document = _document(items, progress={"todo": 1, "doing": 1, "done": 1, "dropped": 1})
    document["waves"] = [["a"], ["b", "c"]]
    return document


def test_progress_is_shown_overall_and_per_wave_with_dropped_items_last() -> None:
    text = render_markdown(_tracked())
    assert "\n**Progress:** 1 of 3 done · 1 doing · 1 dropped\n" in text
    assert "\n## Wave 1 · 1/1 done\n" in text and "\n## Wave 2 · 0/2 done\n" in text
    assert "\n### `a` · done ✓\n" in text and "\n### `b` · doing\n" in text and "\n### `c`\n" in text
    assert text.index("## Wave 2") < text.index("\n## Dropped\n\n### `d` · dropped\n")
    assert "- **Reason:** \\# not \\*needed\\*\\\n&lt;b&gt;x&lt;/b&gt; `a|b`\n" in text
    assert '    n1["a ✓"]:::done\n' in text and "n4" not in text  # a dropped item is in no wave


def test_multi_line_fields_keep_their_line_breaks_in_a_renderer_with_raw_html_off(tmp_path: Path) -> None:
    """Issue 23: line breaks were written as raw `<br>`, which markdown-it with html off shows as
    text. A list item and a quote now hold a hard break (a backslash at the end of the line); a
    heading and a table cell, where Markdown has no line break, show it as ` ↵ `."""
    plan = ("plan: |-\n  Two\n  lines\ngoal: |\n  Reach\n  - this\n"
            "claims:\n  - {description: \"first\\nsecond\", low: 1, high: 2, unit: hours}\n"
            "items:\n  - id: a\n    change: |\n      Add the thing\n      # then test it\n\n      done\n"
            "    evidence: [a.py:1]\n    proof: pytest\n    status: dropped\n    reason: \"one\\ntwo\"\n")
    git_repo(tmp_path, {"a.py": "x = 1\n"})
    page = render_markdown(build_output(compile_in(tmp_path, plan), str(tmp_path)))
    assert "<br>" not in page
    shown = commonmark_html(page)
    assert "&lt;br" not in shown
    assert "<h1>Two ↵ lines</h1>" in shown
    assert "<blockquote>\n<p>Reach<br />\n- this</p>\n</blockquote>" in shown
    assert "<strong>Change:</strong> Add the thing<br />\n# then test it<br />\n<br />\ndone</li>" in shown
    assert "<strong>Reason:</strong> one<br />\ntwo</li>" in shown
    assert "<td>first ↵ second</td>" in shown


def test_a_plan_where_nothing_has_started_shows_no_progress() -> None:
    document = _tracked()
    for item in document["items"]:  # type: ignore[attr-defined]
        item.pop("status", None)
        item.pop("reason", None)
    document["progress"] = {"todo": 4, "doing": 0, "done": 0, "dropped": 0}
    text = render_markdown(document)
    assert "Progress" not in text and "· 0/" not in text and "classDef" not in text and "## Dropped" not in text


def test_a_document_without_progress_renders_as_before() -> None:
    """A compiled file from before progress was added (no `progress` key) is rendered without it."""
    document = _tracked()
    del document["progress"]
    text = render_markdown(document)
    assert "Progress" not in text and "## Wave 1\n" in text and "### `a` · done ✓" in text
    assert "\n## Dropped\n\n### `d` · dropped\n" in text


# --- the fast path of an item's block -----------------------------------------------------------

_PIECES = st.sampled_from(["a", "b-1", "x_y", "`", "``", " ", "@", "@x", "*", "#", "\n", "\t", "-", "1.", "<", "&",
                           "\\", "|", "é", "\u202e", ":", "www.", "\r"])
_WORDS = st.lists(_PIECES, max_size=5).map("".join)
_PATHS = st.one_of(st.sampled_from(["a.py", "src/app.py", "docs/x-y_z.md", "../up.py", "/abs.py", "a b.py", "a`b.py",
                                    ".hidden/x.py", "a//b.py", "C:/x.py", "javascript:x"]), _WORDS)
_EVIDENCE = st.one_of(
    st.builds(dict, path=_PATHS),
    st.builds(dict, path=_PATHS, line=st.one_of(st.integers(1, 999), st.just("7"))),
    st.builds(dict, path=_PATHS, lines=st.sampled_from(["3-4", "10-12", "x", "4", "1-2-3"])),
    st.builds(dict, path=_PATHS, line=st.integers(1, 9), resolved_lines=st.just("1-1"), hash=st.just("ab")),
    st.builds(dict, path=_PATHS, symbol=st.just("f"), resolved_lines=st.just("3-9")),
    st.builds(dict, path=_PATHS, line=st.integers(1, 9), contains=_WORDS),
    st.builds(dict, url=st.sampled_from(["https://x.org/a", "ftp://y"])),
    st.just("src/app.py:3"),
)
_ITEMS = st.fixed_dictionaries(
    {"id": _WORDS, "change": _WORDS, "evidence": st.lists(_EVIDENCE, max_size=3),
     "depends_on": st.lists(_WORDS, max_size=3), "proof": _WORDS},
    optional={"wave": st.integers(1, 9), "status": st.sampled_from(["done", "todo"]), "paths": st.just(["a.py"]),
              "reason": _WORDS})


@settings(max_examples=600, deadline=None)
@given(item=_ITEMS, base=st.sampled_from(["", ".", "..", "docs", "../repo", "a b", "x/../y"]))
@example(item={"id": "item-1", "change": "Change number 1", "evidence": [{"path": "src/pkg1/module_1.py", "line": 2}],
               "depends_on": ["item-0"], "proof": "pytest tests/test_1.py", "wave": 2}, base="..")
def test_the_fast_path_of_an_items_block_writes_what_item_text_writes(item: dict[str, object], base: str) -> None:
    """plain_item_text is item_text, for every item it takes (and it takes the commonest)."""
    prefix = render.plain_prefix(base)
    fast = None if prefix is None else render.plain_item_text(item, prefix)
    if fast is not None:
        assert fast == render.item_text(next(item_rows([item], repository_link(base))))


def test_the_fast_path_takes_the_commonest_item_and_leaves_the_rest() -> None:
    item = {"id": "item-1", "change": "Change number 1", "evidence": [{"path": "src/pkg1/module_1.py", "line": 2},
                                                                      {"path": "a.py", "lines": "3-4"}],
            "depends_on": ["item-0"], "proof": "pytest tests/test_1.py", "wave": 2}
    assert render.plain_item_text(item, "") == render.item_text(next(item_rows([item], repository_link("."))))
    for other in ({"status": "done"}, {"change": "a `b`"}, {"proof": "a\nb"}, {"id": "a`b"}, {"change": "@x"},
                  {"evidence": [{"path": "../a.py", "line": 1}]}, {"evidence": [{"path": "a.py", "contains": "x"}]}):
        assert render.plain_item_text({**item, **other}, "") is None, other


def test_an_approval_names_at_most_twenty_of_the_items_it_covers() -> None:
    """A gate late in a large plan covers most of it: the page names twenty and counts the rest
    (evidence-plan.json lists them all)."""
    covers = [f"i{n}" for n in range(25)]
    text = render.gate_text({"kind": "approval", "approval_state": "current", "approval_covers": covers})
    assert text == ("approval, current; covers " + ", ".join(f"`i{n}`" for n in range(20))
                    + " and 5 more (evidence-plan.json lists them)")
    assert render.gate_text({"kind": "approval", "approval_covers": covers[:20]}).endswith("`i19`")
