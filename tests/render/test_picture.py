"""`evidence-plan graph PLAN --format mermaid|dot|svg|json` (compiler/commands/graph.py over
compiler/render/picture.py, compiler/render/dot.py, compiler/render/svg.py), as a user runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support import git_commit
from support import run as run_cli
from test_html import HOSTILE, hostile_plan

from compiler.cli import cli
from compiler.render.dot import quote
from compiler.render.picture import FORMATS

EXAMPLE = "examples/duplicate-email/plan.yaml"


run = partial(run_cli, "graph")  # `graph` as a user runs it (tests/support.py)


@pytest.fixture
def at_repo(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(repo)
    return repo


def test_mermaid_is_the_markdown_pages_flowchart(at_repo: Path) -> None:
    result = run(EXAMPLE)
    assert result.exit_code == 0 and result.stderr == ""
    markdown = (at_repo / "outputs" / "evidence-plan.md").read_text(encoding="utf-8")
    assert "```mermaid\n" + result.stdout + "```" in markdown


def test_json_gives_every_box_with_coordinates_and_every_edge_with_points(at_repo: Path) -> None:
    result = run(EXAMPLE, "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["format"] == "evidence-plan-graph/1" and data["status"] == "ready"
    assert [(b["id"], b["wave"], b["column"]) for b in data["boxes"]] == [
        ("contract", 1, 0), ("implementation", 2, 1), ("docs", 2, 1), ("integration", 3, 2)]
    assert all(b["w"] > 0 and b["h"] > 0 for b in data["boxes"])
    ids = [b["id"] for b in data["boxes"]]
    assert sorted((ids[e["item"]], ids[e["depends_on"]]) for e in data["edges"]) == [
        ("docs", "contract"), ("implementation", "contract"), ("integration", "docs"),
        ("integration", "implementation")]
    assert all(len(e["points"]) >= 2 for e in data["edges"]) and data["crossings"] == 0
    assert [b["id"] for b in data["boxes"] if b["critical"]] == ["contract", "docs", "integration"]


def test_svg_is_one_standalone_file_with_a_title_per_box(at_repo: Path, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    target = tmp_path / "plan.svg"
    result = run(EXAMPLE, "--format", "svg", "-o", str(target))
    assert result.exit_code == 0 and f"wrote {target}" in result.stderr
    root = ET.parse(target).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    titles = [g.find(f"{ns}title") for g in root.iter(f"{ns}g")]
    assert len(titles) == 4 and all(t is not None and "\nproof: " in (t.text or "") for t in titles)


def test_a_blocked_plan_is_drawn_too_exit_0(at_repo: Path) -> None:
    result = run("examples/blocked/plan.yaml", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["status"] == "blocked" and [c["title"] for c in data["columns"]] == ["Wave 1", "Not ordered"]
    flagged = {b["id"] for b in data["boxes"] if b["flagged"]}
    assert {"implementation", "rollout", "contract"} <= flagged


@pytest.mark.parametrize("args, message", [
    (("missing.yaml",), "missing.yaml: error EP001 no such file"),
    (("examples/duplicate-email/plan.yaml", "--format", "png"), "Invalid value for '--format'"),
])
def test_input_errors_are_exit_2_without_a_traceback(at_repo: Path, args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_an_unparsable_plan_is_exit_2_at_its_line(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("items:\n  - id: [\n", encoding="utf-8")
    result = run(str(plan))
    assert result.exit_code == 2 and f"{plan}:" in result.stderr and "Traceback" not in result.output


def test_a_compiled_json_and_standard_input_are_read_as_plans(at_repo: Path) -> None:
    from_json = run("outputs/evidence-plan.json", "--format", "json")
    from_stdin = run("-", "--format", "json", input=(at_repo / EXAMPLE).read_text(encoding="utf-8"))
    assert from_json.exit_code == 0 and from_stdin.exit_code == 0
    boxes = [b["id"] for b in json.loads(from_json.stdout)["boxes"]]
    assert boxes == [b["id"] for b in json.loads(from_stdin.stdout)["boxes"]] == [
        "contract", "implementation", "docs", "integration"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_rev_path_reads_the_plan_from_git_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "plan.yaml").write_text("items:\n  - id: a\n    change: A\n    evidence: [x.py]\n    proof: 'true'\n",
                                    encoding="utf-8")
    git_commit(root)
    (root / "plan.yaml").unlink()
    monkeypatch.chdir(root)
    result = run("HEAD:plan.yaml", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [b["id"] for b in json.loads(result.stdout)["boxes"]] == ["a"]
    bad = run("HEAD~5:plan.yaml")
    assert bad.exit_code == 2 and "cannot read it from git history" in bad.stderr


def test_help_has_examples() -> None:
    """The choices are the registry's keys (a format added there is offered), and an example."""
    result = CliRunner().invoke(cli, ["graph", "--help"])
    assert result.exit_code == 0
    for line in (f"--format [{'|'.join(FORMATS)}]", "evidence-plan graph plan.yaml --format dot | dot -Tpng"):
        assert line in result.output


def test_dot_quotes_every_label() -> None:
    assert quote('a"b\\c') == '"a\\"b\\\\c"'


DOT = shutil.which("dot")


@pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed: apt-get install -y graphviz")
def test_dot_of_a_hostile_plan_is_read_by_graphviz_with_one_node_per_item(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(hostile_plan()), encoding="utf-8")
    result = run(str(plan), "--no-verify-evidence", "--format", "dot")
    assert result.exit_code == 0
    assert DOT is not None
    done = subprocess.run([DOT, "-Tjson"], input=result.stdout.encode("utf-8"), capture_output=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""  # no syntax warning: every label stayed a string
    graph = json.loads(done.stdout)
    nodes = [o for o in graph["objects"] if "nodes" not in o]  # clusters list their nodes
    labels = [o["label"] for o in nodes]
    assert len(labels) == len(HOSTILE) + 1
    # Each label is the id, then the change: as written, but for the controls shown as escapes.
    assert [label.split("\\n")[0] for label in labels][:6] == [h[:25] + "…" if len(h) > 26 else h for h in HOSTILE[:6]]
    assert len(graph.get("edges", [])) == 3


def _long_text_plan() -> dict[str, Any]:
    """A blocked plan of long text: an id of 5,000 characters (ids are 128 at most), a change and a
    proof of 3,000, twenty evidence entries of 300, and an item that depends on the long id."""
    long_id = "x" * 5_000
    return {"items": [
        {"id": long_id, "change": "c" * 3_000, "proof": "q" * 3_000,
         "evidence": [{"path": f"{'p' * 280}{k}.py", "contains": "z" * 20} for k in range(20)]},
        {"id": "b", "change": "c", "evidence": ["a.py"], "depends_on": [long_id], "proof": "p"},
        {"id": "y" * 40, "change": "c", "evidence": ["a.py"], "depends_on": ["b"], "proof": "p"}]}


@pytest.mark.parametrize("fmt", ["mermaid", "dot", "svg"])
def test_no_line_of_a_graph_is_longer_than_2000_characters_whatever_the_plan_holds(
        tmp_path: Path, fmt: str) -> None:
    """Labels show ids cut as every picture cuts them (compiler/core/display.py's ID_CHARACTERS), and
    tooltips keep each of their lines on a line of its own (DOT: a string continued on the next
    line), so that no line of a graph fills a screen or a CI log."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_long_text_plan()), encoding="utf-8")
    result = run(str(plan), "--no-verify-evidence", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.split("\n"))) <= 2_000
    if fmt == "mermaid":  # a node's label: the id cut, as in the SVG's box
        assert f'n1["{"x" * 25}…"]' in result.stdout and "x" * 27 not in result.stdout
    if fmt == "dot":
        assert f'label="{"x" * 25}…\\n' in result.stdout
    if fmt == "svg":  # the box's data-id: the id whole, as far as an id can be long (128)
        assert f'data-id="{"x" * 128}... (4,872 more characters)"' in result.stdout


@pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed: apt-get install -y graphviz")
def test_a_dot_tooltip_of_many_lines_reads_back_whole_in_graphviz(tmp_path: Path) -> None:
    """Each line of a tooltip on a line of its own, the string continued with a backslash: Graphviz
    reads the tooltip as one string, its lines joined by its own line breaks, nothing lost."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_long_text_plan()), encoding="utf-8")
    result = run(str(plan), "--no-verify-evidence", "--format", "dot")
    assert DOT is not None
    done = subprocess.run([DOT, "-Tjson"], input=result.stdout.encode("utf-8"), capture_output=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    nodes = [o for o in json.loads(done.stdout)["objects"] if "nodes" not in o]
    tooltip = nodes[0]["tooltip"].split("\\n")
    assert len(tooltip) == 22 and tooltip[0].startswith("x" * 299) and tooltip[1].startswith("evidence: pppp")
    assert tooltip[-1] == "proof: " + "q" * 292 + "…"


def test_mermaid_of_a_large_blocked_plan_says_why_it_is_left_out(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    items = [{"id": f"i{k}", "change": "c", "evidence": ["a.py:1"], "proof": "", "depends_on": []} for k in range(9)]
    plan.write_text(json.dumps({"items": items}), encoding="utf-8")
    result = run(str(plan), "--no-verify-evidence")
    assert result.exit_code == 0
    assert result.stdout == ("flowchart TD\n  %% the graph is left out: a blocked plan has no waves to fold its 9 items"
                             " into (it is drawn up to 8)\n")


PHASED = {"items": [
    {"id": "extract", "phase": "extract", "change": "c", "evidence": ["a.py"], "proof": "p"},
    {"id": "cleanup", "phase": "clean \"up\" <now>", "change": "c", "evidence": ["a.py"], "proof": "p"},
    {"id": "docs", "change": "c", "evidence": ["a.py"], "proof": "p"},
    {"id": "extract-2", "phase": "extract", "change": "c", "evidence": ["a.py"], "depends_on": ["extract"],
     "proof": "p"},
]}


def test_the_graph_boxes_each_phases_items_within_their_wave(tmp_path: Path) -> None:
    """Issue 23: phases are shown as groups in `graph` (and the Markdown page's flowchart): in
    Mermaid a subgraph per phase inside each wave, titled and escaped; the items of no phase stay
    in the wave's box, after the phases' (as the Markdown's sections come)."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PHASED), encoding="utf-8")
    result = run(str(plan), "--no-verify-evidence")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    wave1 = lines[lines.index('  subgraph wave1["Wave 1"]'):lines.index('  subgraph wave2["Wave 2"]')]
    assert [line.strip() for line in wave1 if "subgraph" in line or line.strip().startswith("n")] == [
        'subgraph wave1["Wave 1"]', 'subgraph w1p1["Phase 1#58; extract"]', 'n1["extract"]',
        'subgraph w1p2["Phase 2#58; clean #quot;up#quot; #lt;now#gt;"]', 'n2["cleanup"]', 'n3["docs"]']
    assert '    subgraph w2p1["Phase 1#58; extract"]' in lines


@pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed: apt-get install -y graphviz")
def test_dot_clusters_each_phases_items_within_their_wave(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PHASED), encoding="utf-8")
    result = run(str(plan), "--no-verify-evidence", "--format", "dot")
    assert result.exit_code == 0
    assert DOT is not None
    done = subprocess.run([DOT, "-Tjson"], input=result.stdout.encode("utf-8"), capture_output=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    graph = json.loads(done.stdout)
    clusters = {o["name"]: o.get("label") for o in graph["objects"] if o["name"].startswith("cluster")}
    assert clusters == {"cluster_0": "Wave 1", "cluster_0_p1": "Phase 1: extract",
                        "cluster_0_p2": 'Phase 2: clean "up" <now>', "cluster_1": "Wave 2",
                        "cluster_1_p1": "Phase 1: extract"}
