"""Performance smoke tests: the benchmark's targets (benchmarks/run.py, benchmarks/README.md),
reduced to checks that hold on a noisy shared machine.

Nothing here compares absolute seconds. Start-up is a ratio over a floor measured side by side
(the imports the command needs), and growth is a ratio of times at 10x the items, where anything
worse than linear shows as a ratio near 100 while linear stays near 10: the thresholds are far
from both, so noise does not flip them. The full benchmark measures the real targets.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.performance  # not in the inner loop: see pyproject.toml's markers

REPO = Path(__file__).resolve().parent.parent
# The benchmark script, loaded by path (benchmarks/ is not a package): its plan generators and its
# reading of `python -X importtime` are the ones these smoke tests reduce.
_SPEC = importlib.util.spec_from_file_location("benchmark", REPO / "benchmarks" / "run.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = sys.modules["benchmark"] = importlib.util.module_from_spec(_SPEC)  # dataclasses look it up
_SPEC.loader.exec_module(bench)
ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, "NO_COLOR": "1"}

# 10x the items must cost less than this many times the time (linear is ~10x, quadratic ~100x).
GROWTH_LIMIT = 20.0
# check of a 20-item plan over `python -c "import <what check needs>"` (the benchmark's target is 1.3x).
STARTUP_LIMIT = 2.5
# A blocked check of the same plan over the ready one (the benchmark's target is 1.5x).
BLOCKED_LIMIT = 1.8
# where over reading and searching every file's bytes (the benchmark's read floor), in-process:
# 1.7-2.0x here, 3.4-3.5x when every file was decoded and split into lines (the benchmark's
# target, with start-up in both, is 2x).
WHERE_LIMIT = 3.0


def seconds(fn: Callable[[], object]) -> float:
    """One timing, with the cyclic garbage collector paused.

    The collector's full passes visit every live object and come in steps as the heap grows, so
    between 2,000 and 20,000 items they alone can add 2x (the benchmark's process times include
    them, and benchmarks/RESULTS.md says how much). Paused, the ratio shows the algorithms."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def growth(run: Callable[[int], object], small: int, runs: int = 3, rounds: int = 3) -> tuple[float, float, float]:
    """(time at small, time at 10 x small, their ratio). The two sizes run side by side, so that a
    burst of load hits both, and the fastest of ``runs`` is kept: noise only ever adds time.
    Linear measures 9-17x here (caches lose at the larger size); worse than linear, far more
    (quadratic: about 100x). A ratio at GROWTH_LIMIT or above gets up to ``rounds`` rounds of
    ``runs`` more samples each: on a machine shared with other work a burst can cost the small
    size (a few milliseconds) its best time once (20.1x seen in CI), while a quadratic step fails
    every round."""
    run(small)  # warm-up: imports, caches, the template
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):
        for _ in range(runs):
            a.append(seconds(lambda: run(small)))
            b.append(seconds(lambda: run(small * 10)))
        if min(b) / min(a) < GROWTH_LIMIT:
            break
    return min(a), min(b), min(b) / min(a)


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


def test_check_starts_up_within_a_ratio_of_importing_what_it_needs(small_plan: Path) -> None:
    argv = ["-m", "compiler", "check", str(small_plan)]
    needed = bench.needed_modules(bench.import_profile(argv))
    floor_argv = bench.floor_argv(needed)
    check_argv = [sys.executable, *argv]

    def run(cmd: list[str]) -> float:
        start = time.perf_counter()
        proc = subprocess.run(cmd, check=False, capture_output=True, cwd=REPO, env=ENV)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return time.perf_counter() - start

    floors, checks = [], []
    for _ in range(5):  # side by side, so that noise hits both
        floors.append(run(floor_argv))
        checks.append(run(check_argv))
    # Noise only ever adds time: the fastest run of each is the least disturbed.
    ratio = min(checks) / min(floors)
    print(f"check {min(checks):.3f} s, floor {min(floors):.3f} s: {ratio:.2f}x")
    assert ratio < STARTUP_LIMIT, (f"check {min(checks):.3f} s is {ratio:.2f}x `python -c 'import <needed>'` "
                                   f"{min(floors):.3f} s; needed: {needed}")


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
    approval_digest: cc8d8e8e720e
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
    waves (check has none), jinja2 only renders, and ruamel.yaml reads a valid YAML plan only
    where libyaml is missing: none is imported by `check` of a ready plan using every field."""
    plan = every_field_plan.parent / f"plan.{fmt}"
    proc = subprocess.run([sys.executable, "-m", "compiler", "check", str(plan)], check=False, capture_output=True,
                          text=True, cwd=REPO, env=ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = {i.name for i in bench.import_profile(["-m", "compiler", "check", str(plan)])}
    not_needed = bench.not_needed("check", fmt)
    assert {"jinja2", "pydantic", "networkx"} <= set(not_needed)
    assert (fmt == "yaml" and not bench.have_libyaml()) or "ruamel" in not_needed
    assert not [m for m in not_needed if m in names]


def test_a_blocked_check_costs_about_a_ready_one(small_plan: Path) -> None:
    """The commonest mistakes (a misspelt key, a missing path) are found without pydantic, so the
    check a writer runs most stays within the benchmark's 1.5x of the ready check."""
    blocked = bench.blocked_twin(small_plan)
    names = {i.name for i in bench.import_profile(["-m", "compiler", "check", str(blocked)])}
    assert "pydantic" not in names and "networkx" not in names

    def run(plan: Path, code: int) -> float:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "compiler", "check", str(plan)], check=False,
                              capture_output=True, cwd=REPO, env=ENV)
        assert proc.returncode == code, proc.stdout[-2000:]
        return time.perf_counter() - start

    ready, slow = [], []
    for _ in range(5):  # side by side, so that noise hits both
        ready.append(run(small_plan, 0))
        slow.append(run(blocked, 1))
    ratio = min(slow) / min(ready)
    # The benchmark holds the 1.5x target; a smoke test on a shared machine keeps a margin (the
    # import guard above is what catches the pydantic path coming back).
    assert ratio < BLOCKED_LIMIT, f"blocked {min(slow):.3f} s is {ratio:.2f}x the ready {min(ready):.3f} s"


# --- growth: 10x the items, well under 20x the time ------------------------------------------------


@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_compile_grows_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.compile.pipeline import compile_plan

    paths = {n: str(write_json(tmp_path, shape, n)) for n in (2_000, 20_000)}
    a, b, ratio = growth(lambda n: compile_plan(paths[n], verify_evidence=False), 2_000)
    print(f"compile {shape}: {a:.3f} s at 2,000 items, {b:.3f} s at 20,000: {ratio:.1f}x")
    assert ratio < GROWTH_LIMIT, f"{shape}: {a:.3f} s at 2,000 items, {b:.3f} s at 20,000: {ratio:.1f}x"


@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_emit_and_markdown_grow_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.compile.emit import build_output, dumps
    from compiler.compile.pipeline import compile_plan
    from compiler.render.markdown import render_markdown

    documents = {}
    for n in (1_000, 10_000):
        documents[n] = build_output(compile_plan(str(write_json(tmp_path, shape, n)), verify_evidence=False), tmp_path)
        assert documents[n]["status"] == "ready"

    def emit(n: int) -> None:
        render_markdown(documents[n], base=documents[n]["root"])
        dumps(documents[n])

    a, b, ratio = growth(emit, 1_000)
    print(f"emit and render {shape}: {a:.3f} s at 1,000 items, {b:.3f} s at 10,000: {ratio:.1f}x")
    assert ratio < GROWTH_LIMIT, f"{shape}: {a:.3f} s at 1,000 items, {b:.3f} s at 10,000: {ratio:.1f}x"


@pytest.mark.parametrize("shape", ["chain", "wide", "layered"])
def test_the_html_page_and_its_layout_grow_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.compile.emit import build_output
    from compiler.compile.pipeline import compile_plan
    from compiler.render.html import render_pieces

    documents = {n: build_output(compile_plan(str(write_json(tmp_path, shape, n)), verify_evidence=False), tmp_path)
                 for n in (1_000, 10_000)}
    a, b, ratio = growth(lambda n: sum(map(len, render_pieces(documents[n]))), 1_000)
    print(f"HTML page {shape}: {a:.3f} s at 1,000 items, {b:.3f} s at 10,000: {ratio:.1f}x")
    assert ratio < GROWTH_LIMIT, f"{shape}: {a:.3f} s at 1,000 items, {b:.3f} s at 10,000: {ratio:.1f}x"


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chain", "wide"])
def test_yaml_load_grows_linearly(tmp_path: Path, shape: str) -> None:
    from compiler.load.document import parse_text

    texts = {n: bench.write_plan(tmp_path, shape, n, "yaml").read_text(encoding="utf-8") for n in (200, 2_000)}
    a, b, ratio = growth(lambda n: parse_text(texts[n], "plan.yaml", "yaml"), 200)
    print(f"YAML load {shape}: {a:.3f} s at 200 items, {b:.3f} s at 2,000: {ratio:.1f}x")
    assert ratio < GROWTH_LIMIT, f"{shape}: {a:.3f} s at 200 items, {b:.3f} s at 2,000: {ratio:.1f}x"


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


def test_where_stays_within_a_ratio_of_reading_every_file(tmp_path: Path) -> None:
    """`where` on the benchmark's generated tree (3,000 files, 24 MB, 6 hits) against the
    benchmark's own read floor (walk, read each file's bytes, search them), both in this process,
    side by side, each the fastest of 5 in CPU time (other processes' load on a shared core does
    not count; reading from the page cache does). Decoding and splitting every file, as where did
    before it looked at the bytes first, measures 3.4-3.5x."""
    from compiler.api.where import where

    planted = bench.make_search_tree(tmp_path, files=3_000, total=24_000_000, planted=6)
    code = compile(bench.READ_FLOOR.format(needle=bench.WHERE_NEEDLE, root=str(tmp_path)), "read floor", "exec")

    def floor() -> None:
        exec(code, {"print": lambda *args: None})

    def search() -> None:
        found = where(bench.WHERE_NEEDLE, root=str(tmp_path))
        assert sorted((hit.path, hit.line) for hit in found.hits) == sorted(planted)

    def cpu(fn: Callable[[], object]) -> float:
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            fn()
            return time.process_time() - start
        finally:
            gc.enable()

    floor()
    search()  # warm-up: the page cache, the imports
    floors, searches = [], []
    for _ in range(5):
        floors.append(cpu(floor))
        searches.append(cpu(search))
    ratio = min(searches) / min(floors)
    print(f"where {min(searches):.3f} s, read floor {min(floors):.3f} s: {ratio:.2f}x")
    assert ratio < WHERE_LIMIT, (min(searches), min(floors))
