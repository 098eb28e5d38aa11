"""The pipeline's stages, measured where they are called: seconds for the benchmark, calls for the
work budget (tests/test_work_budget.py). One table of stages serves both.

``measure(argv, reading)`` runs ``evidence-plan ARGV`` in-process with every stage function of
``STAGES`` wrapped: on entry and exit the wrapper reads ``reading`` (a clock, or the calls counted
so far), and a stage's own share is what it spent less the stages nested in it (a rule inside its
check phase, a page inside the write that consumes it). A function that returns an iterator (a
page or a file made in pieces as it is written) is measured on each step of the iteration, where
its work happens. What no stage claims is "everything else". A function that no longer exists is
skipped, so the table survives refactoring; a stage that is not reached is not listed.
"""

from __future__ import annotations

import _lsprof
import gc
import importlib
import io
import operator
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

# module -> {function: stage}. A stage of several functions adds them up. The check phases and
# each rule within them are named by compiler/checks/registry.py (see _wrap_rules).
STAGES: dict[str, dict[str, str]] = {
    "compiler.load.read": {"read_text": "load: read"},
    "compiler.load.document": {"parse_text": "load: parse"},
    "compiler.model.validate": {"build_plan": "validate"},
    "compiler.compile.history": {"read_previous": "revision: read the previous JSON", "revise": "revision: compare",
                                 "record": "revision: record"},
    "compiler.checks.evidence": {"resolve": "evidence: resolved lines for the JSON"},
    "compiler.analysis.codeowners": {"item_owners": "owners (CODEOWNERS)"},
    "compiler.analysis.graph": {"build_graph": "order: graph", "waves": "order: waves",
                                "critical_path": "order: critical path"},
    "compiler.analysis.forecast": {"schedule": "forecast: schedule", "monte_carlo": "forecast: Monte Carlo"},
    "compiler.analysis.complexity": {"measure": "complexity", "assess": "complexity"},
    "compiler.compile.emit": {"build_output": "emit", "dump_pieces": "file: evidence-plan.json"},
    "compiler.render.markdown": {"render_pieces": "page: evidence-plan.md"},
    "compiler.render.html": {"render_pieces": "page: evidence-plan.html"},
    "compiler.core.write": {"write_all_atomic": "write the files"},
    "compiler.report.reporters": {"text": "report", "json_report": "report", "github": "report", "sarif": "report"},
}
REST = "everything else"


class _Meter:
    """Own amounts per stage, from a ``reading`` that only grows (a clock, a count of calls)."""

    def __init__(self, reading: Callable[[], float]) -> None:
        self.reading = reading
        self.own: dict[str, float] = {}
        self.nested: list[float] = []  # per open stage: what the stages inside it spent

    def step(self, label: str, fn: Callable[[], Any]) -> Any:
        self.nested.append(0.0)
        start = self.reading()
        try:
            return fn()
        finally:
            spent = self.reading() - start
            inner = self.nested.pop()
            self.own[label] = self.own.get(label, 0.0) + spent - inner
            if self.nested:
                self.nested[-1] += spent

    def wrap(self, label: str | Callable[..., str], fn: Callable[..., Any]) -> Callable[..., Any]:
        def measured(*args: Any, **kwargs: Any) -> Any:
            name = label(*args, **kwargs) if callable(label) else label
            value = self.step(name, lambda: fn(*args, **kwargs))
            if hasattr(value, "__next__") and not isinstance(value, (str, bytes)):
                return self._steps(name, value)
            return value

        return measured

    def _steps(self, label: str, iterator: Iterator[Any]) -> Iterator[Any]:
        done = object()
        while (value := self.step(label, lambda: next(iterator, done))) is not done:
            yield value


def _wrap_rules(meter: _Meter, patched: list[tuple[Any, str, Any]]) -> None:
    """Each check phase a stage, and each rule a stage within it."""
    from compiler.checks import registry

    rules, run = registry.rules, registry.run
    wrapped = tuple(rule._replace(check=meter.wrap(f"rule {rule.check.__module__.rsplit('.', 1)[-1]}."
                                                   f"{rule.check.__name__}", rule.check)) for rule in rules())
    patched += [(registry, "rules", rules), (registry, "run", run)]
    registry.rules = lambda: wrapped  # type: ignore[assignment]
    registry.run = meter.wrap(lambda ctx, phase: f"checks: {phase} phase", run)  # type: ignore[assignment]


def measure(argv: list[str], reading: Callable[[], float]) -> tuple[dict[str, float], float]:
    """Run the CLI on ``argv`` in-process, quietly, with its stages measured by ``reading``:
    (own amount per stage, including REST, in the order first reached; the total)."""
    from compiler.cli import main

    meter = _Meter(reading)
    patched: list[tuple[Any, str, Any]] = []
    wrappers: dict[int, Callable[..., Any]] = {}
    for module, names in STAGES.items():
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        for name, label in names.items():
            fn = getattr(mod, name, None)
            if callable(fn):
                wrappers[id(fn)] = meter.wrap(label, fn)
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == "compiler" or mod_name.startswith("compiler.")):
            continue
        for attr, value in list(vars(mod).items()):
            if callable(value) and id(value) in wrappers:
                patched.append((mod, attr, value))
                setattr(mod, attr, wrappers[id(value)])
    _wrap_rules(meter, patched)
    try:
        meter.step(REST, lambda: quietly(main, argv))
    finally:
        for mod, attr, value in reversed(patched):
            setattr(mod, attr, value)
    own = meter.own
    own[REST] = own.pop(REST)
    return own, sum(own.values())


def quietly(main: Callable[[list[str]], Any], argv: list[str]) -> None:
    """``main(argv)`` with its output dropped (and its exit, should it raise one)."""
    sink = io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = sink
    try:
        main(argv)
    except SystemExit:
        pass
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def timed(argv: list[str]) -> tuple[dict[str, float], float]:
    """Seconds per stage (perf_counter)."""
    return measure(argv, time.perf_counter)


def counted(argv: list[str]) -> tuple[dict[str, float], float]:
    """Calls per stage: every call of a Python function (each resumption of a generator) and of a
    C function, as tests/work.py counts them (the standard library's C profiler, the garbage
    collector paused), read at each stage's entry and exit. Exact and the same on every run; the
    meter's own calls (two per reading) are in the counts, a constant per stage entered."""
    profiler = _lsprof.Profiler(builtins=True)
    total = operator.attrgetter("callcount")

    def calls() -> float:
        return float(sum(map(total, profiler.getstats())))

    collecting = gc.isenabled()
    gc.disable()
    profiler.enable()
    try:
        return measure(argv, calls)
    finally:
        profiler.disable()
        if collecting:
            gc.enable()


# --- the plans whose stages are measured ----------------------------------------------------------

LAYER = 100  # items per layer of the feature plan


def feature_repository(root: Any, modules: int = 200) -> None:
    """A repository for ``feature_plan``: ``modules`` Python modules (a function each) in 10
    packages, a test file per module, a CODEOWNERS file."""
    from pathlib import Path

    root = Path(root)
    for n in range(modules):
        module = root / f"src/pkg{n % 10}/module_{n}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(f'"""Module {n}."""\n\n\ndef function_{n}(value):\n    """Return value."""\n'
                          f"    return value + {n}\n\n\nclass Thing{n}:\n    def run(self):\n        return {n}\n",
                          encoding="utf-8")
        test = root / f"tests/test_module_{n}.py"
        test.parent.mkdir(parents=True, exist_ok=True)
        test.write_text(f"def test_function_{n}():\n    assert True\n", encoding="utf-8")
    (root / ".github").mkdir(exist_ok=True)
    (root / ".github/CODEOWNERS").write_text("* @team/core\nsrc/pkg1/ @ana\n/tests/ @team/qa\n*.md @docs\n",
                                             encoding="utf-8")


def feature_plan(root: Any, n: int = 2_000, modules: int = 200) -> dict[str, Any]:
    """A ready plan of ``n`` items in layers of 100 (each item on 1-3 items of the layer before,
    seed 1234) that uses every part of the plan format: evidence of each form (a line, a range
    with ``contains``, a symbol, a pinned symbol, a URL), paths (files and a glob), estimates and
    claims, progress (done, doing, dropped with a reason), phases (five layers each), approval gates recorded for the
    irreversible items after them, a budget. Its pins and approval digests are computed by the
    compiler's own functions against ``root`` (``feature_repository``)."""
    import random

    rnd = random.Random(1234)
    items: list[dict[str, Any]] = []
    dropped: set[str] = set()
    for i in range(n):
        layer, k = divmod(i, LAYER)
        m = i % modules
        ident = f"item-{i}"
        deps = [] if layer == 0 else [f"item-{d}" for d in sorted(rnd.sample(range((layer - 1) * LAYER, layer * LAYER),
                                                                              rnd.randint(1, 3)))]
        deps = [d for d in deps if d not in dropped] or ([] if layer == 0 else [f"item-{(layer - 1) * LAYER + 1}"])
        item: dict[str, Any] = {
            "id": ident,
            "change": f"Change number {i} of `function_{m}`",
            "evidence": [
                (f"src/pkg{m % 10}/module_{m}.py:{1 + i % 6}", {"path": f"src/pkg{m % 10}/module_{m}.py",
                                                                 "lines": "4-6", "contains": f"def function_{m}"},
                 f"src/pkg{m % 10}/module_{m}.py::function_{m}", {"path": f"src/pkg{m % 10}/module_{m}.py",
                                                                    "symbol": f"Thing{m}.run"},
                 f"https://example.com/issues/{i}")[i % 5],
                f"tests/test_module_{m}.py:1",
            ],
            "depends_on": deps,
            "proof": f"pytest tests/test_module_{m}.py -q",
            "phase": f"phase-{layer // 5}",  # five layers a phase: every dependency within or before
            # each its own files: a module of the tree for the first 200, a new file after; a glob per layer
            "paths": ([f"docs/layer_{layer}/**/*.md"] if k == 0 else [f"src/pkg{m % 10}/module_{m}.py"]
                      if i < modules else [f"notes/item_{i}.txt"]),
            "estimate": {"low": 1 + i % 3, "high": 4 + i % 5, "unit": "hours", "confidence": "medium",
                         "evidence": f"item-{max(i - 7, 0)} took {2 + i % 3} hours"},
        }
        if layer < 2:
            item["status"] = "done"
        elif layer == 2 and k < 10:
            item["status"] = "doing"
        elif layer == 3 and k == 99:
            item.update(status="dropped", reason="folded into another item")
            dropped.add(ident)
        items.append(item)
    # A gate before the last item of every fourth layer: an approval, and that item irreversible.
    gates = []
    for layer in range(4, n // LAYER, 4):
        last = items[layer * LAYER + LAYER - 1]
        gate = {"id": f"approve-{layer}", "kind": "approval", "change": f"Sign off layer {layer}",
                "evidence": [f"src/pkg{layer % 10}/module_{layer}.py:1"], "depends_on": list(last["depends_on"]),
                "proof": f"pytest tests/test_module_{layer}.py -q", "phase": last["phase"]}
        last["depends_on"] = [gate["id"]]
        last["irreversible"] = True
        gates.append((layer * LAYER + LAYER - 1, gate))
    for offset, (at, gate) in enumerate(gates):
        items.insert(at + offset, gate)
    plan = {"plan": "every feature", "goal": "Measure what every part of the format costs", "root": ".",
            "budget": {"max_revisions": 50, "max_items": 10 * n},
            "claims": [{"description": "modules touched", "low": 100, "high": 200, "unit": "modules",
                        "confidence": "medium", "evidence": "one module per item, 200 in the tree"}],
            "items": items}
    _pin_and_approve(plan, root)
    return plan


def _pin_and_approve(plan: dict[str, Any], root: Any) -> None:
    """Each pin as `fix --pin` would write it, then each approval's digest as `approve` would."""
    import json
    import os
    import tempfile

    from compiler.analysis.approvals import coverage
    from compiler.compile.pipeline import compile_plan
    from compiler.load.document import load
    from compiler.model.validate import build_plan

    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=root, delete=False, encoding="utf-8") as handle:
        json.dump(plan, handle)
    try:
        result = compile_plan(handle.name, root=str(root))
        for position, item in enumerate(plan["items"]):
            for j, entry in enumerate(item["evidence"]):
                if isinstance(entry, dict) and "symbol" in entry:
                    entry["pin"] = result.resolved[(position, j)][2]
        with open(handle.name, "w", encoding="utf-8") as again:
            json.dump(plan, again)
        items = build_plan(load(handle.name)).items
    finally:
        os.unlink(handle.name)
    for item in plan["items"]:
        if item.get("kind") == "approval":
            item.update(approved_by="Ana Lima", approved_at="2026-12-01T15:04:05Z",
                        approval_digest=coverage(items, item["id"]).digest)


# --- the work budget ----------------------------------------------------------------------------

WORK_ITEMS = 2_000  # the size of the plans whose calls the work budget holds
# case -> the command, run in the folder that work_cases() fills: the benchmark's chain shape (no
# feature used) and the feature plan (every feature), each compiled and checked.
WORK_CASES: dict[str, list[str]] = {
    "chain: compile": ["compile", "--no-verify-evidence", "chain.json", "-o", "chain-out"],
    "chain: check": ["check", "--no-verify-evidence", "chain.json"],
    "features: compile --html": ["compile", "--html", "features.yaml", "-o", "features-out"],
    "features: check": ["check", "features.yaml"],
}
# The packages whose code the counts include: a count is compared only on the versions it was taken with.
PACKAGES = ("click", "jinja2", "markupsafe", "networkx", "pydantic", "pydantic-core", "pyyaml", "ruamel.yaml")


def environment() -> dict[str, str]:
    """What the counts depend on besides the project: Python's minor version and the packages'."""
    from importlib import metadata

    env = {"python": ".".join(map(str, sys.version_info[:2]))}
    for name in PACKAGES:
        try:
            env[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            env[name] = "-"
    return env


def work_folder(folder: Any, n: int = WORK_ITEMS, features: bool = True) -> None:
    """The plans of WORK_CASES, written into ``folder``: ``chain.json`` (the benchmark's chain)
    and, with ``features``, ``features.yaml`` (``feature_plan``) with its repository."""
    from pathlib import Path

    import run  # the benchmark's plans: its chain is the work budget's
    import yaml

    folder = Path(folder)
    run.write_json_plan(folder / "chain.json", "chain", n)
    if not features:
        return
    feature_repository(folder)
    plan = feature_plan(folder, n)
    (folder / "features.yaml").write_text(yaml.safe_dump(plan, sort_keys=False, width=200), encoding="utf-8")


def work_counts(folder: Any) -> dict[str, dict[str, int]]:
    """The calls per stage of each of WORK_CASES, run in ``folder`` (made by ``work_folder``), each
    after a first run of the same command (imports, caches, and the output folder that a compile
    then reads as its previous revision)."""
    import os

    from compiler.cli import main

    here = os.getcwd()
    os.chdir(folder)
    try:
        out = {}
        for case, argv in WORK_CASES.items():
            quietly(main, argv)
            own, _ = counted(argv)
            out[case] = {stage: int(calls) for stage, calls in own.items()}
        return out
    finally:
        os.chdir(here)


# A stage's calls may move by this much from its budget before the test fails: the larger of a
# share and a number of calls (a stage of a few calls moves by a few with any edit).
MARGIN_SHARE = 0.03
MARGIN_CALLS = 100


def over_budget(budget: dict[str, dict[str, int]], counts: dict[str, dict[str, int]]) -> list[str]:
    """What differs from the budget by more than the margin, a line each: a stage that does more
    work (a regression, or new work to be budgeted), one that does less (a gain: budget it, so
    that it is kept), and a stage or case that is new or gone."""
    problems = []
    for case in sorted(set(budget) | set(counts)):
        if case not in counts or case not in budget:
            problems.append(f"{case}: {'not measured' if case not in counts else 'no budget'}")
            continue
        was, now = budget[case], counts[case]
        for stage in sorted(set(was) | set(now)):
            if stage not in now or stage not in was:
                problems.append(f"{case} / {stage}: " + ("not reached now" if stage not in now else
                                                       f"{now[stage]:,} calls and no budget"))
                continue
            margin = max(was[stage] * MARGIN_SHARE, MARGIN_CALLS)
            if abs(now[stage] - was[stage]) > margin:
                verb = "more" if now[stage] > was[stage] else "fewer"
                problems.append(f"{case} / {stage}: {now[stage]:,} calls, budget {was[stage]:,} "
                                f"({now[stage] / max(was[stage], 1):.2f}x: {verb} than the margin allows)")
    return problems


def main(argv: list[str]) -> int:
    """``python benchmarks/stages.py counts [CASE...]``: the calls per stage of WORK_CASES (or of
    the cases named), as JSON with the environment they were counted in."""
    import json
    import tempfile

    if not argv or argv[0] != "counts" or any(case not in WORK_CASES for case in argv[1:]):
        print("usage: python benchmarks/stages.py counts [CASE...]; cases: " + ", ".join(WORK_CASES), file=sys.stderr)
        return 2
    chosen = argv[1:] or list(WORK_CASES)
    for case in list(WORK_CASES):
        if case not in chosen:
            del WORK_CASES[case]
    with tempfile.TemporaryDirectory() as folder:
        work_folder(folder, features=any(case.startswith("features") for case in chosen))
        counts = work_counts(folder)
    print(json.dumps({"environment": environment(), "items": WORK_ITEMS, "counts": counts}, indent=1))
    return 0


if __name__ == "__main__":
    _here = __import__("pathlib").Path(__file__).resolve().parent
    sys.path[:0] = [str(_here.parent), str(_here)]  # the checkout's compiler, and run.py beside this file
    raise SystemExit(main(sys.argv[1:]))
