"""Performance smoke tests: the benchmark's targets (benchmarks/run.py, benchmarks/README.md),
reduced to checks that give the same answer on every run, however loaded the machine.

Nothing here reads a clock. Work is counted (tests/work.py: the calls a piece of code makes, the
same on every run): growth is the calls at 10x the items over the calls at N, where linear work
measures about 10x and quadratic about 100x; start-up is the calls of a whole `check` process over
the calls of a process that only imports what check needs, and the modules check imports are
held to a list. The times themselves, as ratios measured side by side, are the benchmark's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from work import GROWTH_LIMIT, calls_in, command, count, growth

pytestmark = pytest.mark.performance  # not in the inner loop: see pyproject.toml's markers

REPO = Path(__file__).resolve().parent.parent
# The benchmark script, loaded by path (benchmarks/ is not a package): its plan generators and its
# reading of `python -X importtime` are the ones these smoke tests reduce.
_SPEC = importlib.util.spec_from_file_location("benchmark", REPO / "benchmarks" / "run.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = sys.modules["benchmark"] = importlib.util.module_from_spec(_SPEC)  # dataclasses look it up
_SPEC.loader.exec_module(bench)
ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, "NO_COLOR": "1"}

# The calls of `check` of the benchmark's 20-item plan (a whole process) over the calls of
# `python -c "import <what check needs>"`: 1.89x (YAML) and 1.99x (JSON) measured. (The
# benchmark's target for the time ratio is 1.3x.)
STARTUP_LIMIT = 2.5
# The calls of a blocked check of the same plan over the ready one's, in-process: 1.02x measured
# (the benchmark's target for the time ratio is 1.5x).
BLOCKED_LIMIT = 1.5
# The calls of `where` on a tree, per file searched (108 measured: the walk, the read, the search).
WHERE_CALLS_PER_FILE = 150
# What check of that plan imports from outside the project itself (its own imports, not theirs):
# a module added here is one more cost of every check, run in CI and pre-commit on every plan.
# Exactly these, so that one that is no longer needed leaves the list too (pathlib, and the
# urllib.parse and ipaddress it imports, were about 3 ms of every check; json is a JSON plan's).
CHECK_IMPORTS = frozenset({
    "__future__", "array", "bisect", "click", "encodings.utf_8_sig", "gc", "locale", "mmap", "runpy", "typing",
    "unicodedata",
})
CHECK_IMPORTS_BY_FORMAT = {"yaml": frozenset({"yaml._yaml"}),  # libyaml
                           "json": frozenset({"json"})}
# The modules that only other commands, or the output, need.
NOT_FOR_CHECK = frozenset({
    "compiler.compile.emit", "compiler.render.markdown", "compiler.render.sentences", "compiler.render.pieces",
    "compiler.render.html", "compiler.render.layout",
    "compiler.render.mermaid", "compiler.render.svg", "compiler.render.dot", "compiler.render.picture",
    "compiler.core.write", "compiler.model.output_model", "compiler.model.input_model",
    "compiler.analysis.forecast", "compiler.api.fix", "compiler.api.where",
    # The agent server (`mcp`): its library half, and its SDK (an optional extra), never imported by check.
    "compiler.serve", "compiler.serve.mcp", "compiler.api.agent", "compiler.api.agent_tools", "compiler.api.workspace",
    "compiler.model.summary", "mcp", "mcp_types", "anyio", "jsonschema",
    # The editor server (`lsp`, issue 26): its library half, its protocol side and pygls (an optional
    # extra), never imported by check.
    "compiler.api.editor", "compiler.api.editor_places", "compiler.api.editor_hover", "compiler.api.editor_place",
    "compiler.api.editor_completion", "compiler.serve.lsp", "compiler.serve.lsp_wire", "compiler.serve.lsp_answers",
    "compiler.serve.positions", "compiler.serve.lsp_stdio", "pygls", "lsprotocol", "cattrs", "attrs",
    # `verify` (issue 24: its modules are never imported by check) and the reports of its receipts.
    "compiler.api.verify", "compiler.api.receipts", "compiler.api.cache", "compiler.api.processes",
    "compiler.api.against", "compiler.api.fanout", "compiler.api.merge", "compiler.api.results", "compiler.api.ci",
    "compiler.report.receipts", "compiler.report.junit", "compiler.report.summary", "compiler.render.verified",
})


def write_json(folder: Path, shape: str, n: int) -> Path:
    return Path(bench.write_plan(folder, shape, n, "json"))


# --- start-up -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The benchmark's 20-item YAML plan, evidence all present in its own small repository, and
    its JSON twin beside it."""
    from compiler.load.document import load

    plan = Path(bench.small_repository(tmp_path_factory.mktemp("startup")))
    (plan.parent / "plan.json").write_text(json.dumps(load(str(plan)).data), encoding="utf-8")
    return plan


def process_calls(argv: list[str], folder: Path, code: int = 0) -> int:
    """The calls of a whole ``python ARGV`` process (tests/work.py), its imports included; run
    twice, so that the first run's writing of bytecode caches is not counted."""
    counted = folder / "calls"
    for _ in range(2):
        proc = subprocess.run(command(counted, *argv), check=False, capture_output=True, text=True, cwd=REPO,
                              env=ENV)
        assert proc.returncode == code, proc.stdout[-2000:] + proc.stderr[-2000:]
    return calls_in(counted)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_check_starts_up_within_a_ratio_of_importing_what_it_needs(small_plan: Path, fmt: str,
                                                                   tmp_path: Path) -> None:
    """check of the benchmark's 20-item plan imports from outside the project only what the list
    allows, none of the project's output modules, and makes fewer than STARTUP_LIMIT times the
    calls of a process that only imports what it needs."""
    argv = ["-m", "compiler", "check", str(small_plan.parent / f"plan.{fmt}")]
    imports = bench.import_profile(argv)
    needed = bench.needed_modules(imports)
    expected = CHECK_IMPORTS | CHECK_IMPORTS_BY_FORMAT[fmt]
    added, gone = sorted(set(needed) - expected), sorted(expected - set(needed))
    assert not added, f"check now imports {added}: every check pays for it; if it must, add it to CHECK_IMPORTS"
    assert not gone, f"check no longer imports {gone}: take it out of CHECK_IMPORTS, so that it stays out"
    assert not {i.name for i in imports} & NOT_FOR_CHECK
    check, floor = process_calls(argv, tmp_path), process_calls(["-c", "import " + ", ".join(needed)], tmp_path)
    print(f"check {check:,} calls, floor {floor:,}: {check / floor:.2f}x")
    assert check < STARTUP_LIMIT * floor, f"check {check:,} calls, `import {', '.join(needed)}` {floor:,}"


# A ready plan that uses every declared field (the alias too): the import guard below must see
# each one, so that a field the fast path cannot check (and sends to pydantic) shows there.
EVERY_FIELD = """\
plan: Every field
goal: Use each declared field once
root: .
claims:
  - {description: calls per request, low: 1, high: 3, unit: calls, confidence: high, evidence: app.py::main}
budget: {max_revisions: 3, max_items: 10}
items:
  - id: define
    change: Add main
    evidence:
      - app.py:1
      - {path: app.py, line: 1, contains: def main}
      - {path: app.py, lines: 1-2}
      - {path: app.py, symbol: main, pin: 099256bbe8c1}  # the pin of its two lines
      - {url: "https://example.com/issue/1"}
    proof: pytest
  - id: call
    change: Call main
    evidence: [app.py:2]
    depends_on: [define]
    paths: [app/, "tests/**/test_*.py"]
    phase: build
    locks: [db]
    proof: pytest
    estimate: {low: 1, high: 2.5, unit: hours, confidence: medium, evidence: the same call in app.py took an hour}
  - id: again
    change: Call it again
    evidence: [app.py:2]
    dependencies: [call]
    proof: pytest
    status: doing
    reason: started by the first user
  - id: sign-off
    kind: approval
    change: A person signs off the release
    evidence: [app.py:1]
    depends_on: [again]
    proof: pytest
    approved_by: ana
    approved_at: "2026-12-01T15:04:05Z"
    approval_digest: b5f98c5242bed5601b6e1d224b102b21
  - id: release
    kind: task
    change: Release
    evidence: [app.py:2]
    depends_on: [sign-off]
    proof: pytest
    irreversible: true
"""


@pytest.fixture(scope="module")
def every_field_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from compiler.load.document import load
    from compiler.model import fields

    root = tmp_path_factory.mktemp("every-field")
    (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    plan = root / "plan.yaml"
    plan.write_text(EVERY_FIELD, encoding="utf-8")
    data = load(str(plan)).data
    (root / "plan.json").write_text(json.dumps(data), encoding="utf-8")
    used_evidence = {key for item in data["items"] for entry in item["evidence"] if isinstance(entry, dict)
                     for key in entry}
    assert set(data) == set(fields.names(fields.PLAN_FIELDS))
    assert {key for item in data["items"] for key in item} == set(fields.names(fields.ITEM_FIELDS))
    assert used_evidence == set(fields.names(fields.EVIDENCE_FIELDS))
    return plan


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_check_imports_nothing_it_does_not_use(every_field_plan: Path, fmt: str) -> None:
    """pydantic validates only the items the fast path cannot decide, networkx only orders
    waves (check has none), jinja2 only renders, ruamel.yaml reads a valid YAML plan only where
    libyaml is missing, and no record of check's is a dataclass (making one costs about 1 ms at
    start): none is imported by `check` of a ready plan using every field."""
    plan = every_field_plan.parent / f"plan.{fmt}"
    proc = subprocess.run([sys.executable, "-m", "compiler", "check", str(plan)], check=False, capture_output=True,
                          text=True, cwd=REPO, env=ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = {i.name for i in bench.import_profile(["-m", "compiler", "check", str(plan)])}
    not_needed = bench.not_needed("check", fmt)
    assert {"jinja2", "pydantic", "networkx"} <= set(not_needed)
    assert (fmt == "yaml" and not bench.have_libyaml()) or "ruamel" in not_needed
    assert not [m for m in not_needed if m in names]


def test_a_blocked_check_costs_about_a_ready_one(small_plan: Path, tmp_path: Path) -> None:
    """The commonest mistakes (a misspelt key, a missing path) are found without pydantic, so the
    check a writer runs most stays within BLOCKED_LIMIT times the calls of the ready check (whole
    processes: what a blocked plan imports counts too)."""
    blocked = bench.blocked_twin(small_plan)
    names = {i.name for i in bench.import_profile(["-m", "compiler", "check", str(blocked)])}
    assert "pydantic" not in names and "networkx" not in names
    ready = process_calls(["-m", "compiler", "check", str(small_plan)], tmp_path)
    slow = process_calls(["-m", "compiler", "check", str(blocked)], tmp_path, code=1)
    print(f"blocked {slow:,} calls, ready {ready:,}: {slow / ready:.2f}x")
    assert slow < BLOCKED_LIMIT * ready, f"blocked {slow:,} calls, ready {ready:,}"


# --- growth: 10x the items, well under 15x the calls ---------------------------------------------
# Measured: compile 9.9-10.1x; the JSON and Markdown 5.8-6.1x, the HTML page 5.2-5.9x (their
# fixed parts, the folded graph and the page's frame, weigh at 500 items); YAML 9.9x.


@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_compile_grows_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.compile.pipeline import compile_plan

    paths = {n: str(write_json(tmp_path, shape, n)) for n in (500, 5_000)}
    grew = growth(lambda n: compile_plan(paths[n], verify_evidence=False), 500)
    print(f"compile {shape}: {grew}")
    assert grew.ratio < GROWTH_LIMIT, f"{shape}: {grew}"


@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_emit_and_markdown_grow_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.compile.emit import build_output, dumps
    from compiler.compile.pipeline import compile_plan
    from compiler.render.markdown import render_markdown

    documents = {}
    for n in (500, 5_000):
        documents[n] = build_output(compile_plan(str(write_json(tmp_path, shape, n)), verify_evidence=False), tmp_path)
        assert documents[n]["status"] == "ready"

    def emit(n: int) -> None:
        render_markdown(documents[n], base=documents[n]["root"])
        dumps(documents[n])

    grew = growth(emit, 500)
    print(f"emit and render {shape}: {grew}")
    assert grew.ratio < GROWTH_LIMIT, f"{shape}: {grew}"


@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_the_html_page_and_its_layout_grow_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.compile.emit import build_output
    from compiler.compile.pipeline import compile_plan
    from compiler.render.html import render_pieces

    documents = {n: build_output(compile_plan(str(write_json(tmp_path, shape, n)), verify_evidence=False), tmp_path)
                 for n in (500, 5_000)}
    grew = growth(lambda n: sum(map(len, render_pieces(documents[n]))), 500)
    print(f"HTML page {shape}: {grew}")
    assert grew.ratio < GROWTH_LIMIT, f"{shape}: {grew}"


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chain", "wide"])
def test_yaml_load_grows_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.load.document import parse_text

    texts = {n: bench.write_plan(tmp_path, shape, n, "yaml").read_text(encoding="utf-8") for n in (200, 2_000)}
    grew = growth(lambda n: parse_text(texts[n], "plan.yaml", "yaml"), 200)
    print(f"YAML load {shape}: {grew}")
    assert grew.ratio < GROWTH_LIMIT, f"{shape}: {grew}"


@pytest.mark.slow
def test_a_chain_of_100000_items_compiles_and_renders_without_recursion(tmp_path: Path) -> None:
    """No stage recurses along the chain: every wave, the critical path, the JSON and the Markdown."""
    from compiler.compile.emit import build_output, dumps
    from compiler.compile.pipeline import compile_plan
    from compiler.render.markdown import render_markdown

    n = 100_000
    assert n > sys.getrecursionlimit() * 10
    result = compile_plan(str(write_json(tmp_path, "chain", n)), verify_evidence=False)
    assert result.status == "ready"
    assert len(result.waves) == n and len(result.critical_path) == n
    document = build_output(result, tmp_path)
    assert json.loads(dumps(document))["summary"]["waves"] == n
    markdown = render_markdown(document, base=document["root"])
    assert markdown.count("\n## Wave ") == n
    from compiler.render.html import render_html

    assert render_html(document).count('<div class="entry ') == n  # the page, its layout folded


# --- memory: a blocked plan holds no more than a ready one ----------------------------------------


def _peak_mb(argv: list[str]) -> float:
    """Peak resident memory of ``python -m compiler ARGV`` in a child of a child (so that
    RUSAGE_CHILDREN measures that one process)."""
    probe = ("import resource, subprocess, sys\n"
             "subprocess.run(sys.argv[1:], capture_output=True, check=False)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "compiler", *argv], check=True,
                         capture_output=True, text=True, cwd=REPO, env=ENV)
    return int(out.stdout.split()[-1]) / 1024


@pytest.mark.slow
def test_a_blocked_plan_peaks_no_higher_than_a_ready_one(tmp_path: Path) -> None:
    """Positions are kept in document order (two arrays), not a dict per node, and the JSON and
    the Markdown are written in pieces: a blocked plan, which needs positions for its
    diagnostics, peaked at 1.9x the ready one (at a million items, 4.2 GiB); now below it."""
    ready = write_json(tmp_path, "chain", 50_000)
    data = json.loads(ready.read_text(encoding="utf-8"))
    for item in data["items"]:
        item["proof"] = ""
    every = tmp_path / "every-item-blocked.json"
    every.write_text(json.dumps(data), encoding="utf-8")
    data["items"] = json.loads(ready.read_text(encoding="utf-8"))["items"]
    data["items"][25_000]["proof"] = ""
    one = tmp_path / "one-item-blocked.json"
    one.write_text(json.dumps(data), encoding="utf-8")
    peaks = {path.name: _peak_mb(["compile", "--no-verify-evidence", str(path), "-o", str(tmp_path / path.stem)])
             for path in (ready, every, one)}
    print(peaks)
    compiled = json.loads((tmp_path / "every-item-blocked" / "evidence-plan.json").read_text(encoding="utf-8"))
    assert compiled["summary"]["errors"] == 50_000
    assert peaks[every.name] < 1.3 * peaks[ready.name], peaks
    assert peaks[one.name] < 1.3 * peaks[ready.name], peaks


def test_where_decodes_only_the_files_that_hold_the_text(tmp_path: Path) -> None:
    """`where` on the benchmark's generated tree (3,000 files, 24 MB, 7 hits in 6 files) looks at
    each file's bytes, and decodes and splits into lines only the 6 files whose bytes hold the
    text: decoding and splitting every file, as where did before, measured 3.4-3.5x the read
    floor's time (the benchmark's `where` case measures that ratio, 2x its target). Its other work
    is a few calls a file (108 measured): at most WHERE_CALLS_PER_FILE."""
    from compiler.api.where import where

    planted = bench.make_search_tree(tmp_path, files=3_000, total=24_000_000, planted=6)
    holding = len({path for path, _ in planted})
    where(bench.WHERE_NEEDLE, root=str(tmp_path))  # warm-up: the imports
    searched = count(lambda: where(bench.WHERE_NEEDLE, root=str(tmp_path)))
    found = searched.value
    assert found.files == 3_000 and holding == 6
    assert sorted((hit.path, hit.line) for hit in found.hits) == sorted(planted)
    assert searched.of("<method 'decode' of 'bytes' objects>") == searched.of("_text_facts") == holding
    assert searched.calls < WHERE_CALLS_PER_FILE * found.files, searched.top()
