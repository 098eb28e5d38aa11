"""The Mermaid graph (compiler/render/mermaid.py) past Mermaid's limits and the page's width: folded, so
that what GitHub shows always renders and stays legible. Labels' escaping is in test_markdown.py."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.core.display import ID_CHARACTERS, cut
from compiler.render import mermaid
from compiler.render.mermaid import flowchart
from compiler.render.view import Graph

REPO = Path(__file__).resolve().parents[2]


def G(ids: tuple[str, ...], waves: tuple[tuple[int, ...], ...], edges: tuple[tuple[int, int], ...]) -> Graph:
    """A Graph from item numbers (1-based): the waves' items, and (dependency, dependent) edges."""
    depends_on: list[list[str]] = [[] for _ in ids]
    for a, b in edges:
        depends_on[b - 1].append(ids[a - 1])
    return Graph(tuple(ids), [[ids[n - 1] for n in wave] for wave in waves], tuple(depends_on))


def chain(n: int) -> Graph:
    return G(tuple(f"item-{k}" for k in range(n)), tuple((k,) for k in range(1, n + 1)),
                 tuple((k, k + 1) for k in range(1, n)))


def wide(n: int) -> Graph:
    """One root, n - 2 items that depend on it, one sink that depends on them all."""
    middle = tuple(range(2, n))
    return G(tuple(f"item-{k}" for k in range(n)), ((1,), middle, (n,)),
                 tuple([(1, k) for k in middle] + [(k, n) for k in middle]))


def layered(n: int, width: int = 100) -> Graph:
    rnd = random.Random(1234)
    waves = tuple(tuple(range(a + 1, min(a + width, n) + 1)) for a in range(0, n, width))
    edges = [(d, k) for w in range(1, len(waves)) for k in waves[w] for d in rnd.sample(waves[w - 1], 2)]
    return G(tuple(f"item-{k}" for k in range(n)), waves, tuple(sorted(edges, key=lambda e: (e[1], e[0]))))


def parts(text: str) -> tuple[list[str], list[tuple[str, str]], list[list[str]], list[tuple[str, str]]]:
    """The nodes, edges, each wave's item nodes and the invisible links that hold a wave's rows
    one under the other, of a flowchart (the grammar flowchart() writes)."""
    nodes, edges, waves, links = [], [], [], []
    for line in text.splitlines()[1:]:
        if m := re.fullmatch(r" +([nwg]\d+)(?:\[\[?|\{\{)\"[^\"]*\"(?:\]\]?|\}\})(?::::\w+)?", line):
            nodes.append(m.group(1))
            if line.startswith("    "):
                waves[-1].append(m.group(1))
        elif m := re.fullmatch(r"  (\w+) --> (\w+)", line):
            edges.append((m.group(1), m.group(2)))
        elif m := re.fullmatch(r"    (n\d+) ~~~ (n\d+)", line):
            links.append((m.group(1), m.group(2)))
        elif line.startswith("  subgraph "):
            waves.append([])
        else:
            assert line in ("  end", "    direction TB") or line.startswith(("  classDef ", "  class ")), line
    return nodes, edges, waves, links


def row_of(wave: list[str], links: list[tuple[str, str]]) -> dict[str, int]:
    """Each node's row within its wave: one below the node linked to it (links run top down)."""
    row = dict.fromkeys(wave, 0)
    for a, b in links:  # written row by row, top down
        if a in row and b in row:
            row[b] = max(row[b], row[a] + 1)
    return row


def test_a_small_plan_is_drawn_item_by_item_top_down() -> None:
    text, note = flowchart(G(("a", "b", "c"), ((1,), (2, 3)), ((1, 3), (1, 2))))
    assert note is None
    assert text == ('flowchart TD\n  subgraph wave1["Wave 1"]\n    n1["a"]\n  end\n  subgraph wave2["Wave 2"]\n'
                    '    n2["b"]\n    n3["c"]\n  end\n  n1 --> n2\n  n1 --> n3\n')


def test_a_wave_wider_than_the_page_is_one_node() -> None:
    """60 independent items were 9,400 pixels wide top down (and 6,000 high left to right)."""
    text, note = flowchart(wide(60))
    assert text == ('flowchart TD\n  subgraph wave1["Wave 1"]\n    direction TB\n    n1["item-0"]\n  end\n'
                    '  w2[["Wave 2#58; 58 items"]]\n  subgraph wave3["Wave 3"]\n    direction TB\n    n60["item-59"]\n'
                    '  end\n  wave1 --> w2\n  w2 --> wave3\n')
    assert note == "a wave of more than 8 items is drawn as one node"


def test_crossing_dependencies_are_drawn_a_row_per_wave_joined_wave_to_wave() -> None:
    """Mermaid spread 5 waves of 4 items, each depending on two of the wave before, 1,060 pixels
    wide (10 waves of 8: 5,200): each wave is a row of its items instead, and one arrow joins
    each wave to the next, whatever the dependencies."""
    waves = tuple(tuple(range(4 * w + 1, 4 * w + 5)) for w in range(5))
    edges = tuple((waves[w - 1][(k + j) % 4], waves[w][k]) for w in range(1, 5) for k in range(4) for j in (1, 2))
    text, note = flowchart(G(tuple(f"i{k}" for k in range(20)), waves, edges))
    assert text is not None
    _, drawn, rows, links = parts(text)
    assert drawn == [("wave1", "wave2"), ("wave2", "wave3"), ("wave3", "wave4"), ("wave4", "wave5")]
    assert rows == [[f"n{k}" for k in wave] for wave in waves] and links == []  # four short ids: one row
    assert text.count("    direction TB\n") == 5
    assert note == ("the arrows join each wave to the next, each wave a row of its items (each item lists its "
                    "dependencies below)")


def test_a_dependency_that_skips_a_wave_is_drawn_wave_to_wave_too() -> None:
    """A chain of single items whose dependencies skip waves was 1,900 pixels wide item by item."""
    graph = G(("a", "b", "c"), ((1,), (2,), (3,)), ((1, 2), (2, 3), (1, 3)))
    text, note = flowchart(graph)
    assert text is not None and parts(text)[1] == [("wave1", "wave2"), ("wave2", "wave3")]
    assert note is not None and note.startswith("the arrows join each wave to the next")
    chain_of_one, note = flowchart(chain(7))  # more waves than drawn item by item, but the arrows are the same
    assert chain_of_one is not None and note is None and "direction TB" in chain_of_one


def test_a_wave_of_long_ids_is_wrapped_onto_rows_held_by_invisible_links() -> None:
    """Labels are ids cut as every picture cuts them (26 characters): two such nodes fit a row of
    the column (ROW_WIDTH), a third goes below, held there by invisible links (``~~~``)."""
    ids = ("x" * 40, "y" * 40, "w" * 40, "z" * 5_000, "u" * 40, "v" * 40)
    text, _ = flowchart(G(ids, ((1, 2, 3), (4,), (5, 6)), ((1, 4), (2, 4), (3, 4), (4, 5), (4, 6))))
    assert text is not None
    assert f'    n4["{"z" * 25}…"]' in text
    assert f'    n5["{"u" * 25}…"]\n    n6["{"v" * 25}…"]\n  end' in text  # two: one row, no link
    _, edges, waves, links = parts(text)
    assert waves == [["n1", "n2", "n3"], ["n4"], ["n5", "n6"]]
    assert links == [("n1", "n3"), ("n2", "n3")]
    assert edges == [("wave1", "wave2"), ("wave2", "wave3")]
    assert max(map(len, text.split("\n"))) < 40


@pytest.mark.parametrize(("ident", "label"), [("", "item 1 (no id)"), ("  ", "item 1 (no id)")])
def test_an_item_without_a_usable_id_is_labelled_by_its_place(ident: str, label: str) -> None:
    """An item with no id, or a number YAML read as one, has the id "": Mermaid 10 and 11 refuse
    the empty label ``n1[""]`` and draw an error instead of the whole graph."""
    text, _ = flowchart(Graph((ident, "b", ""), [], ((), (ident,), ())))
    assert text == (f'flowchart TD\n  n1["{label}"]\n  n2["b"]\n  n3["item 3 (no id)"]\n  n1 ~~~ n2 ~~~ n3\n'
                    '  n1 --> n2\n')
    waved, _ = flowchart(G(("a", ""), ((1, 2),), ()))
    assert waved is not None and '    n2["item 2 (no id)"]' in waved


@pytest.mark.parametrize("ident", ["x" * 5_000, "#" * 5_000, "\x1b" * 2_000])
def test_a_label_is_the_id_cut_whatever_its_length_in_a_blocked_plan_too(ident: str) -> None:
    text, _ = flowchart(Graph((ident, "b"), [], ((), (ident,))))
    assert text is not None
    assert max(map(len, text.split("\n"))) <= 26 * len("#35;") + 10


@pytest.mark.slow
@pytest.mark.parametrize("n", [64, 1_000, 10_000, 100_000])
def test_past_the_waves_a_page_shows_consecutive_waves_fold_into_groups(n: int) -> None:
    text, note = flowchart(chain(n))
    assert text is not None
    nodes, edges, _, _ = parts(text)
    assert nodes == [f"g{k}" for k in range(1, mermaid.MAX_GROUPS + 1)]
    assert edges == [(f"g{k}", f"g{k + 1}") for k in range(1, mermaid.MAX_GROUPS)]
    assert f'  g1[["Waves 1–{n // 32:,}#58; {n // 32:,} items"]]' in text
    assert note == (f"{n:,} waves are drawn as 32 nodes (Mermaid draws at most 500 edges; a page shows about 50 "
                    "waves, 60 rows of items)")


def test_max_groups_is_the_most_nodes_whose_forward_edges_mermaid_draws() -> None:
    groups = mermaid.MAX_GROUPS
    assert groups * (groups - 1) // 2 <= mermaid.MAX_EDGES < (groups + 1) * groups // 2


def test_waves_whose_edges_are_more_than_mermaid_draws_fold_into_groups() -> None:
    # 50 waves of 8 items, each depending on two of the wave before: 784 edges, none folded away.
    waves = tuple(tuple(range(8 * w + 1, 8 * w + 9)) for w in range(50))
    edges = tuple((waves[w - 1][(k + j) % 8], waves[w][k]) for w in range(1, 50) for k in range(8) for j in (0, 1))
    text, note = flowchart(G(tuple(f"i{k}" for k in range(400)), waves, edges))
    assert text is not None and note is not None and note.startswith("50 waves are drawn as 32 nodes")
    assert len(parts(text)[1]) == 31


def test_a_blocked_plan_past_a_waves_worth_of_items_leaves_the_graph_out_with_a_sentence() -> None:
    """A blocked plan has no waves to fold into: Mermaid drew its 50 independent items 8,000 pixels wide."""
    few = G(tuple(f"i{k}" for k in range(8)), (), ((1, 2),))
    nodes = "".join(f'  n{k}["i{k - 1}"]\n' for k in range(1, 9))
    # one under the other, in the plan's order: side by side, 8 items of 26 characters were 2,660 pixels wide
    stacked = "  " + " ~~~ ".join(f"n{k}" for k in range(1, 9)) + "\n"
    assert flowchart(few)[0] == "flowchart TD\n" + nodes + stacked + "  n1 --> n2\n"
    many = G(tuple(f"i{k}" for k in range(9)), (), ())
    assert flowchart(many) == (None, "a blocked plan has no waves to fold its 9 items into (it is drawn up to 8)")


# What ids may hold that changes their drawn length: wide letters, quotes, brackets, spaces.
_ID_CHARACTERS = 'ab-_.:/\u00e9\u4e2d"[]{}()<>` #%&\u200b'


@st.composite
def waved_graphs(draw: st.DrawFn) -> Graph:
    """A plan's graph as compiled: waves of any width and ids of any length, each item of a wave
    after the first depending on at least one item of the wave before, and some on earlier ones.
    The widths are drawn (and shrink); ids and edges are built from a drawn seed, since drawing
    each of up to 3,200 ids took hypothesis 45 ms an example."""
    widths = draw(st.lists(st.integers(1, 40), min_size=1, max_size=80))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    labels: list[str] = []
    waves: list[tuple[int, ...]] = []
    edges: list[tuple[int, int]] = []
    for width in widths:
        wave = []
        for _ in range(width):
            size = rng.choice((0, 1, 8, 30, 120)) if rng.random() < 0.5 else rng.randint(0, 120)
            labels.append(f"{len(labels)}" + "".join(rng.choice(_ID_CHARACTERS) for _ in range(size)))  # unique
            wave.append(len(labels))
            if waves:
                edges += [(d, len(labels)) for d in rng.sample(waves[-1], min(len(waves[-1]), rng.randint(1, 3)))]
                for _ in range(rng.choice((0, 0, 1, 3))):  # and on items of any earlier wave
                    earlier = rng.choice(waves)
                    if (d := rng.choice(earlier)) and (d, len(labels)) not in edges[-4:]:
                        edges.append((d, len(labels)))
        waves.append(tuple(wave))
    return G(tuple(labels), tuple(waves), tuple(edges))


@pytest.mark.slow
@given(waved_graphs())
@settings(max_examples=150, deadline=None)
def test_every_ready_plans_graph_is_drawn_within_mermaids_limits_and_the_pages_width(graph: Graph) -> None:
    text, _ = flowchart(graph)
    assert text is not None
    # Mermaid's own defaults (maxTextSize, maxEdges), written out: not our constants, which a
    # change could raise past them.
    assert len(text) <= 50_000
    nodes, edges, waves, links = parts(text)
    assert len(edges) + len(links) <= 500 and len(set(edges)) == len(edges)
    assert len(waves) <= mermaid.MAX_WAVES
    label = {f"n{n}": cut(ident, ID_CHARACTERS) for n, ident in enumerate(graph.ids, 1)}
    if waves and "    direction TB\n" not in text:  # item by item: only where Mermaid cannot spread it
        assert len(waves) <= 6 and all(len(w) <= 2 and sum(len(label[n]) for n in w) <= 32 for w in waves)
    rows = 0
    for wave in waves:  # each row no wider than the column: 60 pixels a node, 10 a character, 50 between
        row = row_of(wave, links)
        rows += max(row.values(), default=0) + 1
        for r in set(row.values()):
            drawn = [n for n in wave if row[n] == r]
            assert len(drawn) == 1 or sum(60 + 10 * len(label[n]) for n in drawn) + 50 * (len(drawn) - 1) <= 820
    assert rows <= mermaid.MAX_ROWS
    assert len(nodes) == len(set(nodes))


# --- with the real Mermaid ---------------------------------------------------------------------

# Mermaid 11 from npm and playwright-core (`npm install mermaid@11 playwright-core`), and a Chromium.
MERMAID_MODULES = [Path(p) for p in (os.environ.get("EVIDENCE_PLAN_MERMAID_MODULES", ""), REPO / "node_modules",
                                     "/work/clients/node_modules") if p]
CHROMIUM = [os.environ.get("EVIDENCE_PLAN_CHROMIUM", ""), "/usr/bin/chromium", "/usr/bin/chromium-browser",
            "/usr/bin/google-chrome"]


def _renderer() -> tuple[str, Path, str] | None:
    node = shutil.which("node")
    modules = next((m for m in MERMAID_MODULES if (m / "mermaid" / "dist" / "mermaid.min.js").is_file()
                    and (m / "playwright-core").is_dir()), None)
    chromium = next((c for c in CHROMIUM if c and os.access(c, os.X_OK)), None)
    return (node, modules, chromium) if node and modules and chromium else None


def _render(tmp_path: Path, texts: dict[str, str]) -> list[dict[str, Any]]:
    """Each flowchart rendered by Mermaid 11 in Chromium (tests/clients/mermaid_render.mjs): whether
    it rendered, or Mermaid's error, and its natural width and height in pixels."""
    renderer = _renderer()
    if renderer is None:
        pytest.skip("needs node, mermaid@11 with playwright-core (EVIDENCE_PLAN_MERMAID_MODULES) and a Chromium")
    node, modules, chromium = renderer
    files = []
    for name, text in texts.items():
        (tmp_path / f"{name}.mmd").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"{name}.mmd"))
    out = subprocess.run([node, str(REPO / "tests" / "clients" / "mermaid_render.mjs"), str(modules), chromium, *files],
                         capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == len(files)
    for r in results:
        print(f"{Path(r['file']).stem}: {r.get('width')} x {r.get('height')} px, {r.get('nodes')} nodes, "
              f"{r.get('edges')} edges, {r['chars']:,} characters")
    return results


def crossing(waves: int, width: int, label: int = 4, seed: int = 1) -> Graph:
    """Waves of ``width`` items, each depending on two random items of the wave before and, one
    in three, on one of an earlier wave: dependencies that cross and skip waves."""
    rnd = random.Random(seed)
    rows = [tuple(range(w * width + 1, (w + 1) * width + 1)) for w in range(waves)]
    edges = []
    for w in range(1, waves):
        for k in rows[w]:
            edges += [(d, k) for d in rnd.sample(rows[w - 1], min(2, width))]
            if w > 1 and rnd.random() < 1 / 3:
                edges.append((rnd.choice(rnd.choice(rows[: w - 1])), k))
    ids = tuple(f"w{k // width}i{k % width}-{'x' * 30}"[:label] for k in range(waves * width))
    return G(ids, tuple(rows), tuple(edges))


# GitHub's column for a README or an issue: wider and Mermaid's picture is shrunk to fit, its text with it.
COLUMN = 980


@pytest.mark.slow
def test_folded_graphs_of_large_plans_render_in_mermaid_and_fit_the_page(tmp_path: Path) -> None:
    """Measured with Mermaid 11.17 in Chromium (docs/reference/outputs.md): chains, wide and layered
    plans folded into at most 250 pixels wide and 3,600 high, dependencies that cross or skip
    waves 480-780 wide (item by item they were 1,060-5,200), the largest graph drawn in rows
    830 by 8,900, and the largest drawn item by item 650 by 890."""
    graphs = {f"{shape.__name__}-{n}": shape(n) for shape in (chain, wide, layered) for n in (60, 300, 1_000, 10_000)}
    graphs |= {f"crossing-{waves}x{width}-{label}": crossing(waves, width, label)
               for waves, width, label in ((5, 4, 4), (10, 6, 8), (10, 8, 8), (20, 2, 12), (50, 5, 4), (12, 8, 26))}
    waves = tuple(tuple(range(5 * w + 1, 5 * w + 6)) for w in range(50))  # the largest graph drawn a row a wave
    graphs["widest-rows"] = G(tuple(f"w{k // 5:02d}i{k % 5}" for k in range(250)), waves,
                              tuple((waves[w - 1][k], waves[w][k]) for w in range(1, 50) for k in range(5)))
    # the largest graph drawn item by item: 6 waves of 2 items of 16 characters, each on both of the wave before
    narrow = tuple(f"{k:02d}-{'x' * 13}" for k in range(12))
    graphs["narrow-item-by-item"] = G(narrow, tuple((2 * w + 1, 2 * w + 2) for w in range(6)), tuple(
        (2 * w + a, 2 * w + 2 + b) for w in range(5) for a in (1, 2) for b in (1, 2)))
    # progress: done items (a class and a check mark), a folded wave all done, a blocked plan's dropped item
    graphs["progress-chain"] = chain(30)._replace(done=frozenset(chain(30).ids[:12]))
    graphs["progress-wide"] = wide(60)._replace(done=frozenset(wide(60).ids[:59]))
    graphs["progress-blocked"] = Graph(("a", "b", "c"), [], ([], ["a"], []), done=frozenset({"a"}),
                                       dropped=frozenset({"c"}))
    graphs["no-id"] = Graph(("", "b", "  "), [], ([], [""], []))
    blocked = tuple(f"{k}-{'x' * 24}" for k in range(8))  # the widest blocked plan drawn, its items stacked
    graphs["blocked-independent"] = Graph(blocked, [], tuple([] for _ in blocked))
    graphs["blocked-pairs"] = Graph(blocked, [], tuple([blocked[k - 1]] if k % 2 else [] for k in range(8)))
    texts = {}
    for name, graph in graphs.items():
        text, _ = flowchart(graph)
        assert text is not None, name
        texts[name] = text
    assert "direction TB" not in texts["narrow-item-by-item"] and "direction TB" in texts["widest-rows"]
    for r in _render(tmp_path, texts):
        assert r["ok"], r
        assert r["width"] <= COLUMN and r["height"] <= 10_000, r  # legible in the column, scrolled down


def corpus() -> list[Path]:
    """Every plan the tests keep: the case corpus, the hostile corpus, the golden plans and the examples."""
    return sorted([*REPO.glob("tests/cases/*/plan.*"), *REPO.glob("tests/hostile/*.yaml"),
                   *REPO.glob("tests/golden/*.yaml"), *REPO.glob("examples/*/plan.yaml")])


@pytest.mark.slow
def test_every_corpus_plans_graph_has_labelled_nodes_and_renders_in_mermaid(tmp_path: Path) -> None:
    """An item with no usable id drew ``n1[""]``, which Mermaid 10 and 11 refuse: GitHub showed an
    error for the whole graph of 9 plans of the corpus. Every node has a label now, and Mermaid's
    own parser and renderer accept every graph (when node, mermaid and a Chromium are here),
    each within GitHub's column (a blocked plan's 6 independent items were 1,245 pixels wide)."""
    from support import run

    texts = {}
    for plan in corpus():
        result = run("graph", str(plan), "--no-verify-evidence", "--format", "mermaid")
        if result.exit_code == 0:  # 2: an input error, no graph
            texts[str(plan.relative_to(REPO)).replace("/", "__")] = result.stdout
    assert len(texts) > 100
    for name, text in texts.items():
        assert re.search(r'(\[\[?|\{\{)""', text) is None, name  # no empty label
        assert re.search(r'\["\s+"\]', text) is None, name
    assert sum("(no id)" in text for text in texts.values()) >= 9
    for r in _render(tmp_path, texts):
        assert r["ok"], r
        assert r["width"] <= COLUMN, r  # at most 860 (the widest: a wave of 5 items, one row)


def test_the_densest_plan_folds_within_mermaids_edge_limit() -> None:
    """Every item depending on every earlier one, one per wave: the folded groups are then joined
    as densely as they can be, and still within Mermaid's 500 edges (its maxEdges, written out)."""
    n = 120
    graph = G(tuple(f"i{k}" for k in range(n)), tuple((k + 1,) for k in range(n)),
              tuple((a + 1, b + 1) for b in range(n) for a in range(b)))
    text, note = flowchart(graph)
    assert text is not None and note is not None and note.startswith("120 waves are drawn as ")
    assert 400 < len(parts(text)[1]) <= 500


# --- progress: done items marked (compiler/analysis/progress.py) -----------------------------------------------


def test_done_items_are_marked_with_a_class_and_a_check_mark() -> None:
    graph = G(("a", "b", "c"), ((1,), (2, 3)), ((1, 2), (1, 3)))._replace(done=frozenset({"a", "c"}))
    text, _ = flowchart(graph)
    assert text == ('flowchart TD\n  classDef done fill:#dcfce7,stroke:#15803d,color:#14532d\n'
                    '  subgraph wave1["Wave 1"]\n    n1["a ✓"]:::done\n  end\n  subgraph wave2["Wave 2"]\n'
                    '    n2["b"]\n    n3["c ✓"]:::done\n  end\n  n1 --> n2\n  n1 --> n3\n')


def test_a_plan_id_cannot_take_or_define_a_class() -> None:
    """An id that writes Mermaid's class syntax stays a label: its quote, colons and `#` are entities."""
    ids = ('x"]:::done', "classDef done fill:#f00")
    text, _ = flowchart(G(ids, ((1, 2),), ()))
    assert text == ('flowchart TD\n  subgraph wave1["Wave 1"]\n    direction TB\n    n1["x#quot;]#58;#58;#58;done"]\n'
                    '    n2["classDef done fill#58;#35;f00"]\n  end\n')


def test_a_folded_wave_is_marked_done_only_when_all_its_items_are() -> None:
    graph = wide(12)
    middle = graph.waves[1]
    text, _ = flowchart(graph._replace(done=frozenset(middle)))
    assert text is not None and '  w2[["Wave 2#58; 10 items ✓"]]:::done' in text
    text, _ = flowchart(graph._replace(done=frozenset(middle[1:])))
    assert text is not None and '  w2[["Wave 2#58; 10 items"]]\n' in text and "classDef" not in text


def test_folded_groups_are_marked_done_when_all_their_waves_are() -> None:
    graph = chain(64)
    text, _ = flowchart(graph._replace(done=frozenset(graph.ids[:2])))
    assert text is not None and text.splitlines()[2].endswith(":::done") and text.count(":::done") == 1


def test_a_blocked_plans_graph_marks_done_and_dropped_items() -> None:
    graph = Graph(("a", "b", "c"), [], ([], ["a"], []), done=frozenset({"a"}), dropped=frozenset({"c"}))
    text, _ = flowchart(graph)
    assert text == ('flowchart TD\n  classDef done fill:#dcfce7,stroke:#15803d,color:#14532d\n'
                    '  classDef dropped fill:#f3f4f6,stroke:#9ca3af,stroke-dasharray:4 3,color:#6b7280\n'
                    '  n1["a ✓"]:::done\n  n2["b"]\n  n3["c (dropped)"]:::dropped\n  n1 ~~~ n2 ~~~ n3\n  n1 --> n2\n')


def test_the_critical_path_by_median_is_marked_by_node_name_only() -> None:
    """The ids on the schedule's critical path are drawn bold through a class of their node
    names (n1, n3): no plan text reaches the class line; a folded wave's items are not marked."""
    hostile = 'a"%%{init}'
    graph = G((hostile, "b", "c"), ((1,), (2, 3)), ((1, 2), (1, 3)))._replace(marked=frozenset({hostile, "c"}))
    text, _ = mermaid.flowchart(graph)
    assert text is not None and text.endswith("  classDef critical stroke-width:3px\n  class n1,n3 critical\n")
    assert text.count("%%") == 0
    folded = wide(20)._replace(marked=frozenset(wide(20).ids))
    drawn, _ = mermaid.flowchart(folded)
    assert drawn is not None and drawn.endswith("  class n1,n20 critical\n")  # wave 2, 18 items, is one node
    unmarked, _ = mermaid.flowchart(G(("a",), ((1,),), ()))
    assert unmarked == 'flowchart TD\n  subgraph wave1["Wave 1"]\n    n1["a"]\n  end\n'
