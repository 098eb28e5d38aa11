"""The HTML page (compiler/render/html.py, templates/plan.html.j2), `compile --html` and `render --html`:
what the page holds, and that no plan text can become markup. In a real browser:
tests/render/test_html_browser.py."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support import run
from work import count

from compiler.render.html import render_html, render_pieces

HOSTILE = ['</script><script>alert(1)</script>', '<svg onload=alert(1)>', '"><img src=x onerror=alert(2)>',
           "' onmouseover='alert(3)", "]]><!--", "&amp;&lt;", "\x1b[31mred\u202e"]


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text, as a browser's tokenizer reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    tags.close()
    return tags


def compiled(tmp_path: Path, plan: dict[str, Any], *extra: str) -> dict[str, Any]:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    result = run("compile", str(path), "--no-verify-evidence", "-o", str(tmp_path / "out"), *extra)
    assert result.exit_code in (0, 1), result.output
    document: dict[str, Any] = json.loads((tmp_path / "out" / "evidence-plan.json").read_text(encoding="utf-8"))
    return document


def hostile_plan() -> dict[str, Any]:
    items = [{"id": text, "change": text, "evidence": ["a.py:1", {"path": "b.py", "line": 2, "contains": text}],
              "proof": text, "depends_on": []} for text in HOSTILE]
    items.append({"id": "ok", "change": "fine", "evidence": ["a.py:1"], "proof": "true", "depends_on": HOSTILE[:3]})
    return {"plan": HOSTILE[0], "goal": HOSTILE[1], "items": items}


def test_hostile_text_never_becomes_markup(tmp_path: Path) -> None:
    document = compiled(tmp_path, hostile_plan())
    assert document["status"] == "blocked"  # the ids break the id grammar: EP015, and the page still shows them
    page = render_html(document)
    tags = parse(page)
    names = [tag for tag, _ in tags.tags]
    assert "script" not in names and "img" not in names
    assert names.count("svg") == 1  # the graph's own
    assert not [attrs for _, attrs in tags.tags if any(key.startswith("on") for key in attrs)]
    assert "<!--" not in page and "]]>" not in page
    # Each hostile id is one box, whose data-id is the id exactly as written (shown safely: escapes visible).
    ids = [attrs["data-id"] for tag, attrs in tags.tags if tag == "a" and "data-id" in attrs]
    assert ids[:6] == HOSTILE[:6] and ids[6] == "\\x1b[31mred\\u202e" and ids[7] == "ok"
    assert "\x1b" not in page and "\u202e" not in page
    text = "".join(tags.text)
    assert HOSTILE[0] in text and HOSTILE[2] in text


def test_the_svg_of_a_hostile_plan_is_well_formed_and_keeps_every_id(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(hostile_plan()), encoding="utf-8")
    result = run("graph", str(plan), "--no-verify-evidence", "--format", "svg")
    assert result.exit_code == 0, result.output
    root = ET.fromstring(result.stdout.encode("utf-8"))
    ns = "{http://www.w3.org/2000/svg}"
    assert not root.findall(f".//{ns}script") and not root.findall(f".//{ns}foreignObject")
    assert not [e for e in root.iter() if any(k.startswith("on") for k in e.attrib)]
    ids = [g.attrib["data-id"] for g in root.iter(f"{ns}g") if "data-id" in g.attrib]
    assert ids == [*HOSTILE[:6], "\\x1b[31mred\\u202e", "ok"]


def test_a_blocked_page_shows_its_issues_on_top_with_the_offending_boxes_marked(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    result = run("compile", "examples/blocked/plan.yaml", "-o", str(tmp_path), "--html")
    assert result.exit_code == 1
    assert f"wrote {tmp_path / 'evidence-plan.html'}" in result.stderr
    page = (tmp_path / "evidence-plan.html").read_text(encoding="utf-8")
    assert page.index('id="issues"') < page.index('id="graph"') < page.index('id="items"')
    tags = parse(page)
    rows = [attrs for tag, attrs in tags.tags if tag == "td"]
    assert rows  # the issues' table
    text = "".join(tags.text)
    assert "EP303" in text and "dependency cycle among: implementation, rollout" in text
    assert "examples/blocked/plan.yaml:20:28" in text  # file:line:col
    boxes = {attrs["data-id"]: attrs["class"] for tag, attrs in tags.tags if tag == "a" and "data-id" in attrs}
    assert "flagged" in (boxes["implementation"] or "") and "flagged" in (boxes["rollout"] or "")
    assert "Not ordered" in text


def test_the_example_page_holds_every_item_with_its_evidence_and_proof(repo: Path) -> None:
    document = json.loads((repo / "outputs" / "evidence-plan.json").read_text(encoding="utf-8"))
    page = render_html(document)
    tags = parse(page)
    boxes = [attrs for tag, attrs in tags.tags if tag == "a" and "data-id" in attrs]
    assert [b["data-id"] for b in boxes] == ["contract", "implementation", "docs", "integration"]
    assert all(b["href"] == f"#item-{n}" for b, n in zip(boxes, (0, 1, 2, 3), strict=True))
    anchors = {attrs["id"] for _, attrs in tags.tags if attrs.get("id", "").startswith("item-")}
    assert anchors == {"item-0", "item-1", "item-2", "item-3"}
    critical = [b["data-id"] for b in boxes if "critical" in (b["class"] or "")]
    assert critical == document["critical_path"]
    text = "".join(tags.text)
    for item in document["items"]:
        assert item["proof"] in text and item["change"] in text
    # Self-contained: no script, nothing fetched (no src, no external link or stylesheet).
    assert not [t for t, a in tags.tags if t in ("script", "link", "img", "iframe") or "src" in a]
    assert all((a.get("href") or "#").startswith("#") for t, a in tags.tags if t == "a")
    assert ".box:hover .pop,.box:focus .pop{display:block}" in page  # details on hover and focus, by CSS


def test_status_colours_and_approval_gates_are_classes_of_the_boxes(tmp_path: Path) -> None:
    items = [{"id": "a", "change": "A", "evidence": ["a.py:1"], "proof": "true", "status": "done"},
             {"id": "b", "change": "B", "evidence": ["a.py:1"], "proof": "true", "status": "doing",
              "depends_on": ["a"]},
             {"id": "gate", "kind": "approval", "change": "Approve", "evidence": ["a.py:1"], "proof": "true",
              "depends_on": ["b"]},
             {"id": "c", "change": "C", "evidence": ["a.py:1"], "proof": "true", "depends_on": ["gate"]},
             {"id": "d", "change": "D", "evidence": ["a.py:1"], "proof": "true", "status": "dropped", "reason": "no"}]
    document = compiled(tmp_path, {"items": items})
    tags = parse(render_html(document))
    classes = {a["data-id"]: (a["class"] or "").split() for t, a in tags.tags if t == "a" and "data-id" in a}
    assert "done" in classes["a"] and "doing" in classes["b"] and "approval" in classes["gate"]
    assert "dropped" in classes["d"]  # in the last column, "Dropped"
    assert "Dropped" in "".join(tags.text)


def test_render_html_writes_the_page_instead_of_markdown(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    result = run("render", str(repo / "outputs" / "evidence-plan.json"), "--html", "-o", str(target))
    assert result.exit_code == 0 and f"wrote {target}" in result.stderr
    assert target.read_text(encoding="utf-8") == (repo / "outputs" / "evidence-plan.html").read_text(encoding="utf-8")
    stdout = run("render", str(repo / "outputs" / "evidence-plan.json"), "--html")
    assert stdout.exit_code == 0 and stdout.stdout.startswith("<!DOCTYPE html>")


def test_compile_html_writes_the_three_files_as_one_set(tmp_path: Path, repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.core import write

    monkeypatch.chdir(repo)
    written: list[list[str]] = []
    real = write.write_all_atomic

    def spy(files: Any, *args: Any, **kwargs: Any) -> None:
        written.append(sorted(Path(p).name for p in files))
        real(files, *args, **kwargs)

    monkeypatch.setattr(write, "write_all_atomic", spy)
    result = run("compile", "examples/duplicate-email/plan.yaml", "-o", str(tmp_path), "--html")
    assert result.exit_code == 0
    assert written == [["evidence-plan.html", "evidence-plan.json", "evidence-plan.md"]]
    assert run("compile", "examples/duplicate-email/plan.yaml", "-o", str(tmp_path / "plain")).exit_code == 0
    assert not (tmp_path / "plain" / "evidence-plan.html").exists()  # only when asked


@pytest.mark.slow
def test_a_large_plan_page_is_written_in_pieces_and_folds_its_graph() -> None:
    n = 5000
    ids = [f"t{k}" for k in range(n)]
    waves = [ids[k:k + 500] for k in range(0, n, 500)]
    items = [{"id": i, "change": "c", "evidence": [{"path": "a.py", "line": 1}], "proof": "true",
              "depends_on": [ids[k - 500]] if k >= 500 else [], "wave": k // 500 + 1} for k, i in enumerate(ids)]
    document = {"format": "evidence-plan/1", "status": "ready", "items": items, "waves": waves, "issues": [],
                "summary": {"items": n, "waves": 10, "widest_wave": 500, "errors": 0, "warnings": 0}}
    list(render_pieces(document))  # the imports, not counted
    counted = count(lambda: list(render_pieces(document)))
    pieces = counted.value
    page = "".join(pieces)
    assert len(pieces) > 1 and all(len(p) < 3 << 20 for p in pieces)
    assert page.count('class="box list"') == 10 and "drawn as a list" in page
    assert page.count('class="entry') == n
    # Calls (tests/work.py), not seconds: 103 an item measured; the benchmark's `html` case times it.
    assert counted.calls < 200 * n, counted.top()


def test_the_browser_tests_say_what_to_install_when_chromium_is_missing(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    import browser

    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.setattr(browser, "CHROMEDRIVER", str(tmp_path / "no-driver"))
    why = browser.missing()
    assert why is not None and why.endswith("apt-get install -y chromium chromium-driver")
    assert "chromium-driver" in why and str(tmp_path / "no-driver") in why


def test_the_revision_line_and_the_forecast_are_escaped_like_the_rest(tmp_path: Path) -> None:
    """The page says what the Markdown says of the revision and the estimates (compiler/render/sentences.py
    makes the sentences for both), each id and text escaped: a hostile id in `changes` stays text."""
    estimate = {"low": 1, "high": 2, "unit": "hours", "evidence": HOSTILE[0]}
    plan: dict[str, Any] = {"items": [
        {"id": "a", "change": "first", "evidence": ["a.py:1"], "proof": "pytest", "estimate": estimate},
        {"id": "b", "change": "second", "evidence": ["a.py:1"], "proof": "pytest", "depends_on": ["a"]}]}
    page = render_html(compiled(tmp_path, plan))
    assert "<b>Revision</b> 1 (the first)" in page
    assert ("<p>Critical path by median estimate (2 items, marked in the graph): <code>a</code> → <code>b</code>:"
            in page)
    assert "<p>Forecast over 500 seeded runs (seed 13): P50 " in page
    plan["items"].append({"id": "<b>new</b>", "change": "c", "evidence": ["a.py:1"], "proof": "p"})
    document = compiled(tmp_path, plan)
    assert document["revision"] == 2 and document["changes"]["added"] == ["<b>new</b>"]
    page = render_html(document)
    assert "<b>Revision</b> 2 · since the previous: 1 added (<code>&lt;b&gt;new&lt;/b&gt;</code>)" in page
    assert "<b>new</b>" not in page.replace("<b>Revision</b>", "")


def test_the_estimates_section_holds_the_grounding_and_the_claims_escaped(tmp_path: Path) -> None:
    plan: dict[str, Any] = {
        "claims": [{"description": HOSTILE[1], "low": 40, "high": 400, "unit": HOSTILE[2], "confidence": "low",
                    "evidence": HOSTILE[0]}],
        "items": [{"id": "a", "change": "c", "evidence": ["a.py:1"], "proof": "pytest",
                   "estimate": {"low": 1, "high": 3, "unit": "days", "evidence": "two like it"}}]}
    page = render_html(compiled(tmp_path, plan))
    tags = parse(page)
    assert "img" not in [tag for tag, _ in tags.tags] and "<svg onload" not in page
    assert '<section id="estimates">' in page
    assert "<p>Grounded: 1 item estimated, 0 without an estimate; a spread over 100x is flagged;" in page
    text = "".join(tags.text)
    assert HOSTILE[1] in text and f"40–400 {HOSTILE[2]} (low confidence)" in text and HOSTILE[0] in text


def test_an_items_entry_shows_its_estimate_and_what_it_writes(tmp_path: Path) -> None:
    """As the Markdown's rows do: the estimate's range, evidence and why it is flagged, and the
    item's paths (escaped: a hostile path stays text)."""
    plan: dict[str, Any] = {"items": [
        {"id": "a", "change": "c", "evidence": ["a.py:1"], "proof": "pytest", "paths": ["app/<b>x</b>.py"],
         "estimate": {"low": 1, "high": 500, "unit": "hours", "evidence": "a guess"}}]}
    page = render_html(compiled(tmp_path, plan))
    assert "<dt>Estimate</dt><dd>1–500 hours · evidence: a guess · <span class=\"flag\">ungrounded: " in page
    assert "<dt>Writes</dt><dd><code>app/&lt;b&gt;x&lt;/b&gt;.py</code></dd>" in page
