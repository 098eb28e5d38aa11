"""The project's benchmark: python benchmarks/run.py CASE [options]   (see benchmarks/README.md)

Machines here are shared and noisy, so every result is stated as a ratio over a floor measured
side by side in the same run, and absolute seconds are given only for scale.

verify   the cost of checking evidence against a repository. A temporary repository of --files
         files (default 10,000; 40 lines each, a Python definition in each) and a JSON plan whose
         items cite --evidence lines (default 20,000: a line, a range with `contains`, a symbol,
         in turn) are compiled in-process with and without verification; the difference is what
         verification adds. The floor is the compile without verification. Then pins: `check` of
         the same entries each pinned, against `check` of them unpinned (the floor), and again
         after two lines were added on top of every file (each pin by line number drifted and
         is looked for in its file).
startup  `check` of a 20-item YAML plan (evidence and proofs verified against a real repository of
         20 modules and the 20 test files its proofs run) as a whole process, against the floor
         `python -c "import M1, M2, ..."`, where M1, M2, ... are the modules that the real command
         imports from outside the project, read from
         `python -X importtime`. Prints the imports by cost, and the ratio. A 20-item JSON plan too.
scale    plans of three shapes (chain; wide: one root, N parallel items, one sink; layered: layers
         of 100, each item depending on 1-3 random items of the layer before, seed 1234) at
         N = 1,000 / 10,000 / 100,000 (1,000,000 with --full), in JSON and YAML. `check` and
         `compile -o DIR` run as whole processes with --no-verify-evidence (the plans cite
         evidence that is not there; `verify` measures verification), each against the floors of
         the same file, run as processes too: start-up plus the imports the command needs, and
         start-up plus those imports plus the bare parse (`json.loads`, ruamel's
         `YAML(typ='safe', pure=True).load`, and PyYAML's CSafeLoader when it is installed: the
         fastest YAML loader here). Peak memory is the child's ru_maxrss (os.wait4).
where    `evidence-plan where TEXT` on a generated git repository of 10,000 files (87 MB, seed 1234;
         the text planted 25 times), against `git grep -n -F TEXT` on the same tree, start-up (the
         imports where needs) and the read floor: start-up plus reading every file's bytes and
         searching them. Wall and CPU time; where and git grep must report the same places.
profile  where the time goes for one case: each pipeline stage timed in-process, then cProfile
         of the whole command (top functions by own time and by cumulative time, as shares).
forecast the critical path by median estimate and the seeded Monte Carlo forecast (compiler/
         forecast.py) of plans of the three shapes at 1,000 and 100,000 items, every item
         estimated (1 to 2-20 hours, seed 1234), in-process, against the floor of ordering the same
         items into waves (compiler/analysis/graph.py, which compile does before either). Prints the runs
         each forecast made.
diff     `evidence-plan diff OLD NEW` (--format json and markdown) as whole processes at 5,000 and
         100,000 items, NEW being OLD (layered) with 1% of the items revised, 3 removed, 3 added,
         against the floor of `check --no-verify-evidence` of OLD plus that of NEW.
html     the HTML page and the picture: `compile --html -o DIR` and `graph --format svg -o FILE` of JSON
         plans of the three shapes at 5,000 and 100,000 items, as whole processes with
         --no-verify-evidence, against the floor `compile -o DIR` of the same plan (the JSON and the
         Markdown: what the page adds is the ratio). Prints the page's size, and the page alone
         rendered in-process from the compiled JSON beside the Markdown page.
hostile  `check` of every input of the hostile corpus (tests/hostile/MANIFEST.tsv), in-process,
         against the floor of `check` of the startup case's 20-item plan (in-process, without
         verification): the slowest inputs, as ratios over the floor, with the calls each makes
         (the tests hold those calls; tests/work.py) and the time per call, which shows where the
         work hides inside C code that the calls cannot see.
lsp      `evidence-plan lsp` driven over stdio by pygls's LanguageClient on a 200-item plan
         (benchmarks/lsp_bench.py): the time from a one-character edit to its diagnostics (median
         and p90; floor: the debounce plus the same analysis in-process), hover and completion
         round trips (floor: a request the server answers MethodNotFound; a method not served is
         said so), and the server's resident memory over 1,000 edits after 100 to warm it up.
all      startup, scale, verify and where, then the targets.

Every timing is the median of --runs (default 3); a case whose first run takes longer than
--repeat-under seconds (default 5) runs once (a run that long averages out short bursts of noise),
and N >= 1,000,000 always runs once. YAML at 100,000 items and more runs only the chain shape and
only `compile` (and its floors) unless told otherwise: ruamel's pure-Python parser, the floor,
takes minutes per 100,000 items, and `check` differs from `compile` only by the output stage,
which the JSON plans measure.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

SHAPES = ("chain", "wide", "layered")
FORMATS = ("json", "yaml")
SIZES = (1_000, 10_000, 100_000, 1_000_000)
LAYER_WIDTH = 100
SEED = 1234

# Targets (from the performance issue), as ratios.
STARTUP_TARGET = 1.3  # check of a 20-item YAML plan / python -c "import <what check needs>"
JSON_TARGET = 3.0  # compile of 100,000 JSON items / (start-up + imports + json load)
YAML_TARGET = 1.2  # compile of 100,000 YAML items / (start-up + imports + ruamel safe pure load)
# The floor of the required stack (issue 22): what any compiler on it must do for a JSON plan.
# compile of the 100,000-item JSON chain / (start-up + imports + json load + networkx waves + json out)
STACK_TARGET = 1.2
SCAN_TARGET = 3.0  # compile of the 100,000-item YAML chain / (start-up + imports + libyaml's bare event scan)
IMPORTS_TARGET = 1.3  # check of the 20-item YAML plan / python -c "import click, yaml"
LINEAR_TARGET = 12.0  # time at 1,000,000 items / time at 100,000
MEMORY_TARGET = 4 << 30  # peak RSS at 1,000,000 items
WHERE_FILES = 10_000  # files in the repository that `where` searches
WHERE_TARGET = 2.0  # where TEXT / (start-up + imports + read every file as bytes and search it)
# where TEXT / git grep -n -F TEXT on the same tree ("within a small factor"), in CPU time (user +
# system): git grep searches with a thread per core, so its wall time halves on an idle 2-core
# machine and doubles when other processes hold the cores; the wall-time ratio is printed beside it.
WHERE_GIT_TARGET = 3.0

# Modules that a command must not import: jinja2 only renders; ruamel.yaml reads a valid YAML
# plan only where libyaml (PyYAML's C parser) is missing: see not_needed().
NOT_NEEDED = {
    ("check", "yaml"): ("jinja2", "markupsafe", "ruamel", "_ruamel_yaml", "pydantic", "pydantic_core", "networkx",
                          "dataclasses"),
    ("check", "json"): ("jinja2", "markupsafe", "ruamel", "_ruamel_yaml", "pydantic", "pydantic_core", "networkx",
                          "dataclasses"),
    ("compile", "json"): ("ruamel", "_ruamel_yaml"),
    ("compile", "yaml"): ("ruamel", "_ruamel_yaml"),
}


def not_needed(command: str, fmt: str) -> tuple[str, ...]:
    names = NOT_NEEDED[(command, fmt)]
    return names if fmt == "json" or have_libyaml() else tuple(n for n in names if "ruamel" not in n)


def fast_yaml_modules(names: set[str]) -> list[str]:
    """The C YAML loaders among a command's imports: then the compiler has a fast path. importtime
    also lists failed imports (ruamel.yaml tries _ruamel_yaml whether or not it is installed, and
    imports it when it is, even for pure=True), so PyYAML is what counts, and _ruamel_yaml only when
    it is really installed."""
    import importlib.util

    found: list[str] = [m for m in ("yaml", "yaml._yaml") if m in names]
    if "_ruamel_yaml" in names and importlib.util.find_spec("_ruamel_yaml") is not None:
        found.append("_ruamel_yaml (installed; ruamel imports it even when a pure loader is used)")
    return found


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTHON") and k not in ("GITHUB_ACTIONS", "CI")}
    env["NO_COLOR"] = "1"
    return env


ENV = _env()
PY = sys.executable
COMMAND = [PY, "-m", "compiler"]


def _median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- plans ---------------------------------------------------------------------------------------


def dependencies(shape: str, n: int) -> Iterator[list[int]]:
    """For each item in order, the indexes of the items it depends on."""
    if shape == "chain":
        for i in range(n):
            yield [i - 1] if i else []
    elif shape == "wide":
        yield []
        for _ in range(n - 2):
            yield [0]
        yield list(range(1, n - 1))
    elif shape == "layered":
        rnd = random.Random(SEED)
        for i in range(n):
            layer = i // LAYER_WIDTH
            if layer == 0:
                yield []
                continue
            low = (layer - 1) * LAYER_WIDTH
            yield sorted(rnd.sample(range(low, low + LAYER_WIDTH), rnd.randint(1, 3)))
    elif shape == "shortcuts":  # layered, and each item also on one item two layers back (EP306's candidates)
        rnd = random.Random(SEED)
        extra = random.Random(SEED + 1)
        for i in range(n):
            layer = i // LAYER_WIDTH
            if layer == 0:
                yield []
                continue
            low = (layer - 1) * LAYER_WIDTH
            deps = sorted(rnd.sample(range(low, low + LAYER_WIDTH), rnd.randint(1, 3)))
            yield deps + ([extra.randrange(low - LAYER_WIDTH, low)] if layer >= 2 else [])
    else:
        raise ValueError(shape)


def _ident(i: int) -> str:
    return f"item-{i}"


def _evidence(i: int) -> str:
    return f"src/pkg{i % 100}/module_{i}.py:{1 + i % 40}"


def write_json_plan(path: Path, shape: str, n: int) -> None:
    items = [{"id": _ident(i), "change": f"Change number {i}", "evidence": [_evidence(i)],
              "depends_on": [_ident(d) for d in deps], "proof": f"pytest tests/test_{i}.py"}
             for i, deps in enumerate(dependencies(shape, n))]
    path.write_text(json.dumps({"plan": f"{shape}-{n}", "goal": "benchmark", "items": items}), encoding="utf-8")


def write_yaml_plan(path: Path, shape: str, n: int) -> None:
    """Formatted by hand (ruamel's dumper would take longer than the compiler): block style, with
    short dependency lists in flow style as people write them."""
    with path.open("w", encoding="utf-8") as out:
        out.write(f"plan: {shape}-{n}\ngoal: benchmark\nitems:\n")
        chunk: list[str] = []
        for i, deps in enumerate(dependencies(shape, n)):
            if len(deps) <= 8:
                depends = "[" + ", ".join(_ident(d) for d in deps) + "]"
            else:
                depends = "".join(f"\n      - {_ident(d)}" for d in deps)
            chunk.append(f"  - id: {_ident(i)}\n    change: Change number {i}\n    evidence:\n"
                         f"      - {_evidence(i)}\n    depends_on: {depends}\n    proof: pytest tests/test_{i}.py\n")
            if len(chunk) >= 10_000:
                out.write("".join(chunk))
                chunk.clear()
        out.write("".join(chunk))


def write_plan(folder: Path, shape: str, n: int, fmt: str) -> Path:
    path = folder / f"{shape}-{n}.{fmt}"
    if not path.exists():
        (write_json_plan if fmt == "json" else write_yaml_plan)(path, shape, n)
    return path


def small_repository(root: Path, n: int = 20) -> Path:
    """A repository of n Python files and a YAML plan of n items (layered by 5) citing them:
    lines, a range with contains, symbols and the test files its proofs run, all present, so the plan is
    ready when verified."""
    (root / ".git").mkdir(parents=True, exist_ok=True)  # find_root stops here
    lines = ["plan: startup", "goal: a small plan, as people write them", "items:"]
    for i in range(n):
        module = root / "src" / f"module_{i}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        body = [f'"""Module {i}."""', "", f"def function_{i}(value):", "    return value", ""]
        body += [f"CONSTANT_{i}_{k} = {k}" for k in range(35)]
        module.write_text("\n".join(body) + "\n", encoding="utf-8")
        test = root / "tests" / f"test_{i}.py"  # the file its proof runs (EP210 checks it is there)
        test.parent.mkdir(parents=True, exist_ok=True)
        test.write_text(f"def test_function_{i}():\n    pass\n", encoding="utf-8")
        deps = [f"item-{d}" for d in range((i // 5 - 1) * 5, (i // 5) * 5) if d >= 0 and (d + i) % 2 == 0]
        evidence = [f"src/module_{i}.py:{3 + i % 30}"]
        if i % 2:
            evidence.append(f"src/module_{i}.py::function_{i}")
        lines += [f"  - id: item-{i}", f"    change: Change number {i}", "    evidence:"]
        lines += [f"      - {e}" for e in evidence]
        if i % 3 == 0:
            lines += [f"      - path: src/module_{i}.py", "        lines: 3-4", f"        contains: def function_{i}"]
        lines += [f"    depends_on: [{', '.join(deps)}]", f"    proof: python -m pytest tests/test_{i}.py"]
    plan = root / "plan.yaml"
    plan.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return plan


# --- processes ------------------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    rss: int  # peak resident set size of the child, bytes
    code: int
    cpu: float = 0.0  # user + system seconds of the child (git grep runs threads: more than its wall time)


def run_process(argv: Sequence[str]) -> Run:
    """One whole process: wall time, and its own peak RSS from os.wait4 (not other children's)."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=REPO, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss * 1024, code, usage.ru_utime + usage.ru_stime)


@dataclass
class Timing:
    runs: list[Run] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return statistics.median(r.seconds for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    @property
    def rss(self) -> int:
        return max(r.rss for r in self.runs)


def measure(cases: dict[str, list[str]], runs: int, repeat_under: float,
            expect: dict[str, int] | None = None) -> dict[str, Timing]:
    """Runs every case once, in turn, then again while cases are short: side by side, so that
    noise hits the floors and the commands alike. Cases whose first run is long run once."""
    out = {name: Timing() for name in cases}
    for r in range(runs):
        for name, argv in cases.items():
            if r and out[name].runs[0].seconds > repeat_under:
                continue
            result = run_process(argv)
            wanted = (expect or {}).get(name, 0)
            if result.code != wanted:
                detail = subprocess.run(argv, check=False, capture_output=True, text=True, cwd=REPO, env=ENV)
                raise SystemExit(f"{name}: exit {result.code}, expected {wanted}: {' '.join(argv)}\n"
                                 f"{detail.stderr[-2000:]}")
            out[name].runs.append(result)
    return out


# --- imports ----------------------------------------------------------------------------------------


@dataclass
class Import:
    name: str
    self_us: int
    cumulative_us: int
    level: int
    parent: str | None  # the module whose import was in progress, None at the top


def import_profile(argv: Sequence[str]) -> list[Import]:
    """The modules a process imports, from `python -X importtime` (first imports only)."""
    proc = subprocess.run([PY, "-X", "importtime", *argv], check=False, capture_output=True, text=True, cwd=REPO,
                          env=ENV)
    rows: list[tuple[str, int, int, int]] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        head, cumulative, name = line.split("|", 2)
        level = (len(name) - len(name.lstrip(" ")) - 1) // 2
        rows.append((name.strip(), int(head.split(":")[1]), int(cumulative), level))
    # importtime prints a module after the modules it imported: walk backwards for the parents.
    imports: list[Import] = []
    stack: list[tuple[int, str]] = []
    for module, own_us, cumulative_us, level in reversed(rows):
        while stack and stack[-1][0] >= level:
            stack.pop()
        imports.append(Import(module, own_us, cumulative_us, level, stack[-1][1] if stack else None))
        stack.append((level, module))
    imports.reverse()
    return imports


def import_profile_median(argv: Sequence[str], runs: int = 5) -> list[Import]:
    """import_profile, with each module's times the median of ``runs`` processes (one is noisy)."""
    profiles = [import_profile(argv) for _ in range(runs)]
    times: dict[str, list[tuple[int, int]]] = {}
    for profile in profiles:
        for imp in profile:
            times.setdefault(imp.name, []).append((imp.self_us, imp.cumulative_us))
    return [Import(i.name, int(statistics.median(t[0] for t in times[i.name])),
                   int(statistics.median(t[1] for t in times[i.name])), i.level, i.parent) for i in profiles[0]]


_BASELINE: set[str] = set()


def baseline_modules() -> set[str]:
    """Modules that `python -c pass` imports already (interpreter start-up, site)."""
    if not _BASELINE:
        _BASELINE.update(i.name for i in import_profile(["-c", "pass"]))
    return _BASELINE


def _own(name: str | None) -> bool:
    return name is not None and (name == "compiler" or name.startswith("compiler."))


def needed_modules(imports: list[Import]) -> list[str]:
    """What the command needs from outside the project: each module that the project's code (or
    the `-m` start-up) imports itself, whose first import is not already part of start-up."""
    base = baseline_modules()
    out = []
    for imp in imports:
        if _own(imp.name) or imp.name in base:
            continue
        if imp.parent is None or _own(imp.parent):
            out.append(imp.name)
    return out


def by_package(imports: list[Import]) -> list[tuple[str, int]]:
    """Own import time summed per top-level package (project modules one by one), largest first."""
    base = baseline_modules()
    sums: dict[str, int] = {}
    for imp in imports:
        if imp.name in base:
            continue
        key = imp.name if _own(imp.name) else imp.name.split(".")[0]
        sums[key] = sums.get(key, 0) + imp.self_us
    return sorted(sums.items(), key=lambda kv: -kv[1])


def floor_argv(modules: Sequence[str], code: str = "") -> list[str]:
    statement = ("import " + ", ".join(modules)) if modules else "pass"
    return [PY, "-c", statement + (f"\n{code}" if code else "")]


def have_libyaml() -> bool:
    try:
        import yaml

        return hasattr(yaml, "CSafeLoader")
    except ImportError:
        return False


# --- machine ------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    from importlib import metadata

    info: dict[str, Any] = {"python": platform.python_version(), "implementation": platform.python_implementation(),
                            "system": f"{platform.system()} {platform.release()}", "cores": os.cpu_count()}
    try:
        cpu = [ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
               if ln.startswith("model name")]
        info["cpu"] = cpu[0] if cpu else platform.processor()
        mem = [ln for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemTotal")]
        info["memory_gb"] = round(int(mem[0].split()[1]) / (1 << 20), 1)
    except OSError:
        pass
    versions = {}
    for dist in ("evidence-plan", "pydantic", "pydantic-core", "networkx", "jinja2", "click", "ruamel.yaml", "PyYAML"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "-"
    info["packages"] = versions
    info["libyaml"] = have_libyaml()
    try:
        def git(*words: str) -> str:
            return subprocess.run(["git", *words], check=False, capture_output=True, text=True, cwd=REPO).stdout

        head, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain", "compiler")
        info["commit"] = head.strip() + (" (compiler/ modified)" if dirty.strip() else "")
    except OSError:
        pass
    return info


def print_machine(info: dict[str, Any]) -> None:
    print(f"machine: {info.get('cpu', '?')}, {info['cores']} cores, {info.get('memory_gb', '?')} GB, "
          f"{info['system']}; {info['implementation']} {info['python']}; commit {info.get('commit', '?')}")
    print("packages: " + ", ".join(f"{k} {v}" for k, v in info["packages"].items())
          + f"; libyaml (PyYAML CSafeLoader) {'available' if info['libyaml'] else 'not available'}")


# --- startup ------------------------------------------------------------------------------------------

# A blocked check (what a person or an agent meets most while writing a plan) against the same
# plan ready.
BLOCKED_TARGET = 1.5


def blocked_twin(plan: Path) -> Path:
    """The plan of small_repository with the two commonest mistakes: a misspelt key and a path
    that does not exist."""
    text = plan.read_text(encoding="utf-8")
    assert "depends_on:" in text and "src/module_3.py" in text
    blocked = plan.with_name("blocked.plan.yaml")
    blocked.write_text(text.replace("depends_on:", "depend_on:", 1).replace("src/module_3.py", "src/modul_3.py", 1),
                       encoding="utf-8")
    return blocked



def bench_startup(runs: int, results: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plan = small_repository(Path(tmp))
        json_plan = Path(tmp) / "plan.json"
        from compiler.load.document import load  # the JSON twin of the same plan, converted by the library

        json_plan.write_text(json.dumps(load(str(plan)).data), encoding="utf-8")
        blocked = blocked_twin(plan)
        out: dict[str, Any] = {}
        for fmt, path in (("yaml", plan), ("json", json_plan)):
            argv = ["-m", "compiler", "check", str(path)]
            imports = import_profile_median(argv)
            modules = needed_modules(imports)
            parse = (JSON_LOAD if fmt == "json" else RUAMEL_LOAD).format(path=str(path))
            cases = {"python": [PY, "-c", "pass"], "floor": floor_argv(modules), "check": [PY, *argv],
                     "click_yaml": floor_argv(["click", "yaml"]),
                     "floor_parse": floor_argv(modules, parse)}
            if fmt == "yaml":  # the path a writer meets most: the same plan, blocked
                cases["check_blocked"] = [PY, "-m", "compiler", "check", str(blocked)]
            timing = measure(cases, runs, repeat_under=1e9, expect={"check_blocked": 1})
            names = {i.name for i in imports}
            unneeded = [m for m in not_needed("check", fmt) if m in names]
            total_us = sum(i.self_us for i in imports if i.name not in baseline_modules())
            own_us = sum(i.self_us for i in imports if _own(i.name))
            out[fmt] = {
                "python": timing["python"].seconds, "floor": timing["floor"].seconds,
                "check": timing["check"].seconds, "ratio": timing["check"].seconds / timing["floor"].seconds,
                "floor_parse": timing["floor_parse"].seconds, "click_yaml": timing["click_yaml"].seconds,
                "modules": modules, "unneeded": unneeded, "import_ms": total_us / 1000, "own_ms": own_us / 1000,
                "packages": [(k, v / 1000) for k, v in by_package(imports)[:14]],
                "top": [(i.name, i.cumulative_us / 1000, i.self_us / 1000)
                        for i in sorted(imports, key=lambda i: -i.cumulative_us)
                        if i.name not in baseline_modules()][:15],
                "runs": len(timing["check"].runs),
            }
            if "check_blocked" in timing:
                out[fmt]["check_blocked"] = timing["check_blocked"].seconds
    results["startup"] = out
    for fmt, r in out.items():
        print(f"\nstartup: check of a 20-item {fmt.upper()} plan (evidence verified), median of {r['runs']} runs")
        print(f"  imports of the real command (python -X importtime, median of 5): {r['import_ms']:.0f} ms beyond "
              "start-up, "
              f"{r['own_ms']:.0f} ms of it in the project's own modules")
        print("  by package (own import time):  "
              + ", ".join(f"{k} {v:.0f} ms" for k, v in r["packages"][:10]))
        print("  top imports by cumulative time:")
        for name, cum, own in r["top"]:
            print(f"    {cum:7.1f} ms  (own {own:5.1f})  {name}")
        print(f"  floor modules: {' '.join(r['modules'])}")
        if r["unneeded"]:
            print(f"  NOT NEEDED but imported: {', '.join(r['unneeded'])}")
        else:
            print(f"  not imported (not needed for check of {fmt}): {', '.join(not_needed('check', fmt))}")
        print(f"  python -c pass                 {r['python']:7.3f} s")
        print(f"  python -c 'import <floor>'     {r['floor']:7.3f} s  (floor)")
        print(f"  evidence-plan check            {r['check']:7.3f} s  ({r['ratio']:.2f}x the floor"
              + (f"; target <= {STARTUP_TARGET}x)" if fmt == "yaml" else ")"))
        print(f"  python -c 'import click, yaml' {r['click_yaml']:7.3f} s  (check is "
              f"{r['check'] / r['click_yaml']:.2f}x this; target <= {IMPORTS_TARGET}x)")
        print(f"  the floor + the bare parse     {r['floor_parse']:7.3f} s  (check is "
              f"{r['check'] / r['floor_parse']:.2f}x this; the parse alone is "
              f"{(r['floor_parse'] - r['floor']) / r['floor']:.2f}x the floor)")
        if "check_blocked" in r:
            ratio = r["check_blocked"] / r["check"]
            print(f"  check of it blocked            {r['check_blocked']:7.3f} s  ({ratio:.2f}x the ready check;"
                  f" target <= {BLOCKED_TARGET}x): a misspelt key and a missing file")


# --- scale ---------------------------------------------------------------------------------------------

JSON_LOAD = "import json\njson.loads(open({path!r}, encoding='utf-8').read())"
RUAMEL_LOAD = ("from ruamel.yaml import YAML\n"
               "YAML(typ='safe', pure=True).load(open({path!r}, encoding='utf-8').read())")
LIBYAML_LOAD = "import yaml\nyaml.load(open({path!r}, encoding='utf-8').read(), Loader=yaml.CSafeLoader)"
# The events of the file from libyaml and nothing more: no objects built.
LIBYAML_SCAN = ("import yaml\nfor _ in yaml.parse(open({path!r}, encoding='utf-8').read(), Loader=yaml.CSafeLoader):\n"
                "    pass")
# The required stack's floor for a compile: the JSON read, its items ordered into waves by networkx,
# and a document of the same size written as JSON, by the C encoder (json.dumps with an indent runs
# the pure-Python one: 1.4x the whole floor's time at 100,000 items).
STACK = ("import json, networkx\n"
         "data = json.loads(open({path!r}, encoding='utf-8').read())\n"
         "graph = networkx.DiGraph()\n"
         "graph.add_nodes_from(item['id'] for item in data['items'])\n"
         "graph.add_edges_from((d, item['id']) for item in data['items'] for d in item['depends_on'])\n"
         "waves = [sorted(w) for w in networkx.topological_generations(graph)]\n"
         "wave = {{i: n for n, w in enumerate(waves, 1) for i in w}}\n"
         "for item in data['items']:\n"
         "    item['wave'] = wave[item['id']]\n"
         "data['waves'] = waves\n"
         "open({out!r}, 'w', encoding='utf-8').write(json.dumps(data))")


def grid(args: argparse.Namespace) -> list[tuple[str, str, int]]:
    """(format, shape, n) in the order they run: small first."""
    max_n = 1_000_000 if args.full else args.max_n
    yaml_large = SHAPES if args.yaml_large == "all" else tuple(s for s in args.yaml_large.split(",") if s in SHAPES)
    out = []
    for n in SIZES:
        if n > max_n:
            continue
        for fmt in args.formats.split(","):
            if fmt == "yaml" and n > args.yaml_max_n:
                continue
            for shape in args.shapes.split(","):
                if fmt == "yaml" and n >= 100_000 and shape not in yaml_large:
                    continue
                out.append((fmt, shape, n))
    return out


def bench_scale(args: argparse.Namespace, results: dict[str, Any]) -> None:
    cases_grid = grid(args)
    libyaml = have_libyaml()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="evidence-plan-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    out_dir = folder / "out"
    rows: list[dict[str, Any]] = results.setdefault("scale", [])
    floors: dict[str, Any] = results.setdefault("floors", {})
    print(f"\nscale: {len(cases_grid)} plans in {folder}; processes: {' '.join(COMMAND)} check|compile "
          f"--no-verify-evidence; median of up to {args.runs} runs (one when the first run takes over "
          f"{args.repeat_under:g} s, or N >= 1,000,000)")
    try:
        # The floor modules per command and format, from the real command on a small plan.
        modules: dict[tuple[str, str], list[str]] = {}
        fast_path: dict[str, bool] = {}
        for fmt in sorted({f for f, _, _ in cases_grid}):
            small = write_plan(folder, "chain", 20, fmt)
            for command in ("check", "compile"):
                extra = ["-o", str(out_dir)] if command == "compile" else []
                imports = import_profile(["-m", "compiler", command, "--no-verify-evidence", str(small), *extra])
                modules[(command, fmt)] = needed_modules(imports)
                names = {i.name for i in imports}
                unneeded = [m for m in not_needed(command, fmt) if m in names]
                floors[f"{command}-{fmt}"] = {"modules": modules[(command, fmt)], "unneeded": unneeded}
            if fmt == "yaml":
                # A fast path may start only past some file size: look for one in a 2 MB file that
                # is cheap for any parser (the small plan and a long comment).
                big = folder / "fast-path-probe.yaml"
                big.write_text(small.read_text(encoding="utf-8") + ("#" + "x" * 1023 + "\n") * 2048, encoding="utf-8")
                imports = import_profile(["-m", "compiler", "compile", "--no-verify-evidence", str(big),
                                          "-o", str(out_dir)])
                fast_path[fmt] = bool(fast_yaml_modules({i.name for i in imports}))
            startup = measure({c: floor_argv(modules[(c, fmt)]) for c in ("check", "compile")},
                              max(args.runs, 5), 1e9)
            for c in ("check", "compile"):
                floors[f"{c}-{fmt}"]["seconds"] = startup[c].seconds
                floors[f"{c}-{fmt}"]["rss"] = startup[c].rss
                print(f"  floor {c} {fmt}: python -c 'import <{len(modules[(c, fmt)])} modules>' "
                      f"{startup[c].seconds:.3f} s"
                      + (f"; NOT NEEDED but imported: {', '.join(floors[f'{c}-{fmt}']['unneeded'])}"
                         if floors[f"{c}-{fmt}"]["unneeded"] else ""))
        if "yaml" in fast_path:
            floors["yaml_fast_path"] = fast_path["yaml"]
            print(f"  YAML fast path in compile (a C loader imported): {'yes' if fast_path['yaml'] else 'no'}; "
                  f"PyYAML CSafeLoader {'available, measured as a floor' if libyaml else 'not available'}")
        for fmt, shape, n in cases_grid:
            started = time.perf_counter()
            path = write_plan(folder, shape, n, fmt)
            generated = time.perf_counter() - started
            needed = modules[("compile", fmt)]
            parse = (JSON_LOAD if fmt == "json" else RUAMEL_LOAD).format(path=str(path))
            large_yaml = fmt == "yaml" and n >= 100_000
            cases: dict[str, list[str]] = {}
            if fmt == "json" or n <= args.ruamel_max_n:  # else: libyaml is the only floor
                cases["load"] = floor_argv(needed, parse)
            if fmt == "yaml" and libyaml:
                cases["libyaml"] = floor_argv(needed, LIBYAML_LOAD.format(path=str(path)))
                if shape == "chain":
                    cases["scan"] = floor_argv(needed, LIBYAML_SCAN.format(path=str(path)))
            if fmt == "json" and shape == "chain":
                cases["stack"] = floor_argv(needed, STACK.format(path=str(path), out=str(folder / "stack.json")))
            if not large_yaml or args.yaml_large_check:
                cases["check"] = [*COMMAND, "check", "--no-verify-evidence", str(path)]
                if not large_yaml:  # check's own floor: its imports and the parse
                    cases["load_check"] = floor_argv(modules[("check", fmt)], parse)
            cases["compile"] = [*COMMAND, "compile", "--no-verify-evidence", str(path), "-o", str(out_dir)]
            timing = measure(cases, 1 if n >= 1_000_000 else args.runs, args.repeat_under)
            row: dict[str, Any] = {
                "format": fmt, "shape": shape, "n": n, "bytes": path.stat().st_size, "generated": generated,
                **{k: t.seconds for k, t in timing.items()},
                **{f"{k}_rss": t.rss for k, t in timing.items()},
                "runs": {k: len(t.runs) for k, t in timing.items()},
            }
            # check's floor is its own imports and the parse; for large YAML (where one ruamel
            # parse takes minutes) the compile floor with check's smaller start-up instead.
            base = row[floor_of(row)]
            row["check_floor"] = row.get("load_check", base - floors[f"compile-{fmt}"]["seconds"]
                                         + floors[f"check-{fmt}"]["seconds"])
            rows[:] = [r for r in rows if (r["format"], r["shape"], r["n"]) != (fmt, shape, n)] + [row]
            checked = (f"  check {row['check']:7.2f} s ({row['check'] / row['check_floor']:5.2f}x)"
                       if "check" in row else f"  check {'-':>7}         ")
            line = (f"  {fmt:4} {shape:7} {n:>9,}  {row['bytes'] / 1e6:6.1f} MB  load {seconds(row, 'load'):>9}"
                    + (f"  libyaml {row['libyaml']:6.2f} s" if "libyaml" in row else "")
                    + checked
                    + f"  compile {row['compile']:7.2f} s ({row['compile'] / base:5.2f}x"
                    + ("" if floor_of(row) == "load" else " of libyaml") + ")"
                    f"  peak {row['compile_rss'] / 1e6:6.0f} MB ({per_item(row, floors):5.2f} kB/item)"
                    f"  runs {row['runs']['compile']}")
            print(line, flush=True)
            if args.save:
                save(args.save, results)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)


def floor_of(row: dict[str, Any]) -> str:
    """The parse floor a row's ratios are over: ruamel's load, or libyaml's where ruamel's was
    not run (YAML above --ruamel-max-n)."""
    return "load" if "load" in row else "libyaml"


def seconds(row: dict[str, Any], key: str) -> str:
    return f"{row[key]:.2f} s" if key in row else "-"


def per_item(row: dict[str, Any], floors: dict[str, Any]) -> float:
    """Peak memory of compile beyond its start-up floor's, per item, in kB."""
    base = floors.get(f"compile-{row['format']}", {}).get("rss", 0)
    return float((peak(row) - base) / row["n"] / 1e3)


def peak(row: dict[str, Any]) -> int:
    return int(max(row.get("check_rss", 0), row["compile_rss"]))


# --- profile ------------------------------------------------------------------------------------------


def bench_profile(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = write_plan(Path(tmp), args.shape, args.n, args.format)
        out_dir = str(Path(tmp) / "out")
        print(f"profile: {args.command} of {args.format} {args.shape} {args.n:,} items (in-process)")
        argv = [args.command, "--no-verify-evidence", str(path)]
        argv += ["-o", out_dir] if args.command == "compile" else []
        stage_times(argv)
        from compiler.cli import main

        profiler = cProfile.Profile()
        sink = io.StringIO()
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = sink
        try:
            profiler.runcall(main, argv)
        finally:
            sys.stdout, sys.stderr = stdout, stderr
        print_profile(profiler, args.top)


def stage_times(argv: list[str]) -> None:
    """The command run in-process with each stage timed where it is called (benchmarks/stages.py:
    own time, no profiler, so the shares are not distorted)."""
    import stages

    own, total = stages.timed(argv)
    print(f"  stages, timed where they are called, own time ({total:.2f} s in all, without start-up):")
    for label, spent in sorted(own.items(), key=lambda kv: -kv[1]):
        print(f"    {spent:8.3f} s  {100 * spent / total:5.1f}%  {label}")


# --- stages -------------------------------------------------------------------------------------------

# Stages with a floor of their own: (the stages, what the floor does, in-process).
STAGE_FLOORS = {
    "load": (("load: read", "load: parse"), "json.loads of the file (JSON) / yaml.load with CSafeLoader (YAML)"),
    "order": (("order: graph", "order: waves", "order: critical path"),
              "networkx: a DiGraph of the items and topological_generations"),
    "evidence-plan.json": (("file: evidence-plan.json",), "json.dumps(document) of the same document (C encoder)"),
    "evidence-plan.md": (("page: evidence-plan.md",),
                         "a jinja2 loop over the same items printing id, change, evidence, depends_on, proof"),
}
FLOOR_PAGE = """{% for i in items %}
### {{ i.id }}

- **Change:** {{ i.change }}
- **Evidence:** {{ i.evidence }}
- **Depends on:** {{ i.depends_on | join(", ") }}
- **Proof:** {{ i.proof }}
{% endfor %}
"""


def stage_floors(plan: Path, out_dir: Path) -> dict[str, float]:
    """The floors of STAGE_FLOORS for a plan and the evidence-plan.json compiled from it, in-process."""
    import jinja2
    import networkx

    text = plan.read_text(encoding="utf-8")
    if plan.suffix == ".json":
        load = lambda: json.loads(text)  # noqa: E731
    else:
        import yaml

        load = lambda: yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: E731
    data = load()
    document = json.loads((out_dir / "evidence-plan.json").read_text(encoding="utf-8"))
    items = document["items"]

    def order() -> None:
        graph = networkx.DiGraph()
        graph.add_nodes_from(item["id"] for item in data["items"])
        graph.add_edges_from((d, item["id"]) for item in data["items"] for d in item.get("depends_on") or ())
        [sorted(w) for w in networkx.topological_generations(graph)]

    template = jinja2.Environment(autoescape=False).from_string(FLOOR_PAGE)
    # With the collector as the CLI sets it (compiler/cli.py: main), as the stages were timed:
    # at its defaults its passes over the objects the floor builds would be timed as the floor.
    import gc

    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        return {"load": _median_seconds(load, 3), "order": _median_seconds(order, 3),
                "evidence-plan.json": _median_seconds(lambda: json.dumps(document), 3),
                "evidence-plan.md": _median_seconds(lambda: "".join(template.generate(items=items)), 3)}
    finally:
        gc.set_threshold(*thresholds)


def bench_stages(args: argparse.Namespace, results: dict[str, Any]) -> None:
    """Each stage's own time (median of --runs) as a share of the in-process compile, and over its
    floor where it has one: the 100,000-item JSON plans of the three shapes, and a plan that uses
    every feature (benchmarks/stages.py: feature_plan, --feature-n items, YAML, verified, --html)."""
    import shutil

    import stages
    import yaml

    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases: list[tuple[str, Path, list[str]]] = []
        for shape in args.shapes.split(","):
            plan = write_plan(folder, shape, args.n, "json")
            cases.append((f"{shape} {args.n:,} JSON", plan, ["compile", "--no-verify-evidence"]))
        features = folder / "features"
        features.mkdir()
        stages.feature_repository(features)
        plan = features / "plan.yaml"
        plan.write_text(yaml.safe_dump(stages.feature_plan(features, args.feature_n), sort_keys=False, width=200),
                        encoding="utf-8")
        cases.append((f"every feature {args.feature_n:,} YAML", plan, ["compile", "--html"]))
        for label, plan, command in cases:
            out_dir = folder / "out"
            argv = [*command, str(plan), "-o", str(out_dir)]
            runs = []
            for _ in range(args.runs):
                shutil.rmtree(out_dir, ignore_errors=True)  # each run a first compile: no previous revision
                runs.append(stages.timed(argv))
            own = {k: statistics.median(r[0].get(k, 0.0) for r in runs) for k in runs[0][0]}
            total = statistics.median(r[1] for r in runs)
            floors = stage_floors(plan, out_dir)
            row = {"case": label, "total": total, "stages": own, "floors": {}}
            print(f"\nstages: compile of {label}, in-process, median of {args.runs}: {total:.2f} s")
            for name, (parts, _) in STAGE_FLOORS.items():
                spent = sum(own.get(p, 0.0) for p in parts)
                row["floors"][name] = {"seconds": spent, "floor": floors[name]}
            for stage, spent in sorted(own.items(), key=lambda kv: -kv[1]):
                print(f"  {spent:8.3f} s {100 * spent / total:5.1f}%  {stage}")
            print("  over their floors: " + "; ".join(
                f"{name} {f['seconds']:.3f} s / {f['floor']:.3f} s = {f['seconds'] / f['floor']:.2f}x"
                for name, f in row["floors"].items()))
            out.append(row)
    print("\nfloors: " + "; ".join(f"{name}: {why}" for name, (_, why) in STAGE_FLOORS.items()))
    results["stages"] = out


def _where(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    if filename == "~":
        return name
    short = filename
    for marker in ("site-packages/", str(REPO) + "/"):
        if marker in filename:
            short = filename.split(marker, 1)[1]
    return f"{short}:{line}({name})"


def print_profile(profiler: cProfile.Profile, top: int) -> None:
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, _, ct, _) in entries.values())
    print(f"  cProfile of the whole command: {total:.2f} s under the profiler (shares are of that)")
    print(f"  top {top} by own time:")
    for func, (_, calls, tt, ct, _) in sorted(entries.items(), key=lambda kv: -kv[1][2])[:top]:
        print(f"    {100 * tt / total:5.1f}% own {100 * ct / total:5.1f}% cum {calls:>9} calls  {_where(func)}")
    print(f"  top {top} by cumulative time (project code and the libraries it calls):")
    shown = 0
    for func, (_, calls, tt, ct, _) in sorted(entries.items(), key=lambda kv: -kv[1][3]):
        name = _where(func)
        if not (name.startswith(("compiler/", "jinja2/", "pydantic", "networkx/", "ruamel/", "json/", "<template>"))):
            continue
        print(f"    {100 * ct / total:5.1f}% cum {100 * tt / total:5.1f}% own {calls:>9} calls  {name}")
        shown += 1
        if shown >= top:
            break


# --- verify ---------------------------------------------------------------------------------------------


def make_repository(root: Path, files: int) -> list[str]:
    names = []
    for n in range(files):
        rel = f"pkg{n % 100:02d}/module_{n}.py"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        body = [f"# module {n}", "", f"def function_{n}(value):", "    return value", ""]
        body += [f"CONSTANT_{n}_{k} = {k}" for k in range(35)]
        path.write_text("\n".join(body) + "\n", encoding="utf-8")
        names.append(rel)
    return names


def make_plan(names: list[str], evidence: int, per_item: int = 2) -> dict[str, object]:
    entries: list[object] = []
    for k in range(evidence):
        rel = names[k % len(names)]
        n = int(rel.rsplit("_", 1)[1].removesuffix(".py"))
        kind = k % 3
        if kind == 0:
            entries.append(f"{rel}:{1 + k % 40}")
        elif kind == 1:
            entries.append({"path": rel, "lines": "3-4", "contains": f"def function_{n}"})
        else:
            entries.append(f"{rel}::function_{n}")
    items = []
    for i in range(0, len(entries), per_item):
        ident = f"item-{i // per_item}"
        items.append({
            "id": ident,
            "change": "change",
            "evidence": entries[i:i + per_item],
            "depends_on": [f"item-{i // per_item - 1}"] if i else [],
            "proof": "make test",
        })
    return {"plan": "benchmark", "items": items}


def pinned_plan(plan: dict[str, Any], resolved: dict[tuple[int, int], tuple[int, int, str]]) -> dict[str, Any]:
    """The same plan with every entry that cites lines or a symbol in the object form with its pin
    (what `fix --pin` writes), from a compile's resolved hashes; with none, the same object form
    without pins (the floor pins are measured against)."""
    from compiler.model.references import parse_reference

    items = []
    for position, item in enumerate(plan["items"]):
        evidence = []
        for j, entry in enumerate(item["evidence"]):
            obj = entry if isinstance(entry, dict) else parse_reference(entry)[0]._asdict()  # type: ignore[union-attr]
            obj = {k: v for k, v in obj.items() if v is not None}
            if "start" in obj:
                start, end = obj.pop("start"), obj.pop("end")
                obj["lines"] = f"{start}-{end}"
            evidence.append({**obj, "pin": resolved[(position, j)][2]} if resolved else obj)
        items.append({**item, "evidence": evidence})
    return {**plan, "items": items}


def bench_verify(files: int, evidence: int, runs: int, results: dict[str, Any] | None = None) -> None:
    """Verification's cost over a compile without it, and the cost of pins over verification:
    the same entries pinned (all hold), then after two lines were added on top of every file
    (every entry cited by number has drifted and is looked for: moved, found at one place or
    several)."""
    from compiler.compile.pipeline import compile_plan

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = make_repository(root, files)
        plan = make_plan(names, evidence)
        plan_path = root / "plan.json"
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        result = compile_plan(str(plan_path), root=tmp)
        assert result.status == "ready", [str(d.message) for d in result.diagnostics[:5]]
        pinned_path = root / "pinned.json"
        pinned_path.write_text(json.dumps(pinned_plan(plan, result.resolved)), encoding="utf-8")
        unpinned_path = root / "unpinned.json"  # the same entries in the same form, without pins
        unpinned_path.write_text(json.dumps(pinned_plan(plan, {})), encoding="utf-8")
        assert compile_plan(str(pinned_path), root=tmp).status == "ready"
        without = _median_seconds(lambda: compile_plan(str(plan_path), root=tmp, verify_evidence=False), runs)
        with_ = _median_seconds(lambda: compile_plan(str(plan_path), root=tmp), runs)
        check = _median_seconds(lambda: compile_plan(str(unpinned_path), root=tmp, order=False), runs)
        pinned = _median_seconds(lambda: compile_plan(str(pinned_path), root=tmp, order=False), runs)
        for name in names:  # two lines on top of every file: every pin by line number drifts
            path = root / name
            path.write_text("# added\n# lines\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
        drifted_result = compile_plan(str(pinned_path), root=tmp, order=False)
        drifted_count = sum(1 for d in drifted_result.diagnostics if d.code == "EP211")
        drifted = _median_seconds(lambda: compile_plan(str(pinned_path), root=tmp, order=False), runs)
    items = evidence // 2
    print(f"\nverify: {files:,} files, {evidence:,} evidence entries, {items:,} items, median of {runs} runs")
    print(f"  compile without verification  {without:8.3f} s  (floor)")
    print(f"  compile with verification     {with_:8.3f} s  ({with_ / without:.2f}x the floor)")
    print(f"  verification adds             {with_ - without:8.3f} s  "
          f"({(with_ - without) / evidence * 1e6:.1f} us per evidence entry)")
    print(f"  check, the entries unpinned   {check:8.3f} s  (the floor for pins: the same object form)")
    print(f"  check, every entry pinned     {pinned:8.3f} s  ({pinned / check:.2f}x the floor)")
    print(f"  check, {drifted_count:,} pins drifted   {drifted:8.3f} s  ({drifted / check:.2f}x the floor: each"
          " looked for in its file)")
    if results is not None:
        results["verify"] = {"files": files, "evidence": evidence, "without": without, "with": with_,
                             "check": check, "pinned": pinned, "drifted": drifted, "drifted_count": drifted_count}


# --- redundant dependencies (EP306) ------------------------------------------------------------------

REDUCTION_SHAPES = (*SHAPES, "shortcuts")


def bench_reduction(runs: int, results: dict[str, Any]) -> None:
    """EP306's pass (compiler/checks/dependencies.py: redundant) in-process at 1,000 and 100,000
    items of each shape, beside `check` of the same plan (in-process, without verification), whose
    share it is. "shortcuts" is layered with one more dependency per item, two layers back: every
    item has a candidate, and about 4% of the edges are redundant."""
    import gc

    from compiler.checks.dependencies import redundant
    from compiler.compile.pipeline import compile_plan

    rows = []
    print(f"\nreduction (EP306): median of {runs} runs, in-process, the CLI's collector thresholds")
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for shape in REDUCTION_SHAPES:
                for n in (1_000, 100_000):
                    path = Path(tmp) / f"{shape}-{n}.json"
                    write_json_plan(path, shape, n)
                    result = compile_plan(str(path), verify_evidence=False, order=False)
                    items = result.plan.items
                    found = len(redundant(items))
                    alone = _median_seconds(lambda items=items: redundant(items), runs)
                    check = _median_seconds(lambda path=path: compile_plan(str(path), verify_evidence=False,
                                                                           order=False), runs)
                    rows.append({"shape": shape, "n": n, "seconds": alone, "check": check, "redundant": found})
                    print(f"  {shape:9} {n:>9,} items  {alone * 1000:9.1f} ms  ({alone / n * 1e6:5.2f} us per item,"
                          f" {alone / check:5.1%} of check's {check:.2f} s; {found:,} redundant)")
    finally:
        gc.set_threshold(*thresholds)
    results["reduction"] = rows



# --- proofs (verify) ---------------------------------------------------------------------------------

PROOF_ITEMS, PROOF_WAVES = 1_000, 30
PROOFS_TARGET = 1.5  # issue 24: verify within 1.5x of xargs -P at the same parallelism
CACHED_TARGET = 0.10  # issue 24: a fully cached rerun under 10% of the first run


def bench_proofs(runs: int, results: dict[str, Any], jobs: int = 2) -> None:
    """`verify` of PROOF_ITEMS items whose proofs are `true`, in PROOF_WAVES waves (each item on
    the one at its place in the wave before), with --jobs JOBS, as whole processes, against the
    floor of running the same commands through ``xargs -P JOBS`` (each `/bin/sh -c true`), in turn;
    then a fully cached rerun of the same plan against the first run (every proof run, --no-cache)."""
    per = -(-PROOF_ITEMS // PROOF_WAVES)
    items = [{"id": f"i{k}", "change": "c", "evidence": ["a.py"], "proof": "true",
              **({"depends_on": [f"i{k - per}"]} if k >= per else {})} for k in range(PROOF_ITEMS)]
    print(f"\nproofs (verify): {PROOF_ITEMS:,} proofs of `true` in {PROOF_WAVES} waves, --jobs {jobs},"
          f" median of {runs}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        (root / "a.py").write_text("x = 1\n", encoding="utf-8")
        plan = root / "plan.json"
        plan.write_text(json.dumps({"items": items}), encoding="utf-8")
        verify = [sys.executable, "-m", "compiler", "verify", str(plan), "--jobs", str(jobs), "-o", str(root)]
        floor = ["sh", "-c", f"seq {PROOF_ITEMS} | xargs -P {jobs} -I{{}} /bin/sh -c true"]
        own, base, cached = Timing(), Timing(), Timing()
        for _ in range(runs):
            own.runs.append(run_process([*verify, "--no-cache"]))
            base.runs.append(run_process(floor))
            cached.runs.append(run_process(verify))  # every item up to date: the run before passed them all
        assert all(r.code == 0 for r in own.runs + cached.runs), "verify failed"
        receipts = json.loads((root / "evidence-plan.verify.json").read_text(encoding="utf-8"))
        assert receipts["counts"]["cached"] == PROOF_ITEMS, receipts["counts"]
    ratio, rerun = own.seconds / base.seconds, cached.seconds / own.seconds
    print(f"  verify {own.seconds:.2f} s, xargs -P {jobs} {base.seconds:.2f} s: {ratio:.2f}x"
          f" (target <= {PROOFS_TARGET}x)")
    print(f"  cached rerun {cached.seconds:.2f} s: {rerun:.0%} of the first run (target < {CACHED_TARGET:.0%})")
    results["proofs"] = {"items": PROOF_ITEMS, "waves": PROOF_WAVES, "jobs": jobs, "verify": own.seconds,
                         "floor": base.seconds, "ratio": ratio, "cached": cached.seconds, "cached_ratio": rerun}


# --- lsp ---------------------------------------------------------------------------------------------


def bench_lsp(args: argparse.Namespace, results: dict[str, Any]) -> None:
    """`evidence-plan lsp` as an editor meets it, on small_repository's plan of --lsp-items items:
    benchmarks/lsp_bench.py (what is timed, and against what)."""
    import asyncio

    try:
        import lsp_bench

        from compiler.serve.lsp import DEBOUNCE
    except ImportError as error:
        print(f"\nlsp: not run: {error} (pip install 'evidence-plan[lsp]')")
        results["lsp"] = {"not_run": str(error)}
        return
    items, save = args.lsp_items, args.lsp_save
    print(f"\nlsp: `evidence-plan lsp` over stdio, pygls's LanguageClient; a {items}-item plan, {args.lsp_warmup} edits"
          f" to warm up, then {args.lsp_edits} timed"
          + (" (each saved: checked at once)" if save else f", each {lsp_bench.SPACING * 1e3:.0f} ms after the last"
             " diagnostics") + ";"
          f" {args.lsp_requests} rounds of requests")
    with tempfile.TemporaryDirectory() as tmp:
        plan = small_repository(Path(tmp), items)
        raw = asyncio.run(lsp_bench.session([*COMMAND, "lsp"], REPO, ENV, plan,
                                            warmup=args.lsp_warmup, edits=args.lsp_edits,
                                            requests=args.lsp_requests, save=save))
    got = lsp_bench.summarise(raw, 0.0 if save else DEBOUNCE)
    got.update(items=items, warmup=args.lsp_warmup, saved=save)
    print(f"  edit -> diagnostics: median {got['median'] * 1e3:.1f} ms, p90 {got['p90'] * 1e3:.1f} ms over"
          f" {got['edits']} edits (target median <= {lsp_bench.LATENCY_TARGET * 1e3:.0f} ms); floor: debounce"
          f" {got['debounce'] * 1e3:.0f} ms + analysis in-process {got['analyse'] * 1e3:.1f} ms:"
          f" {got['over_floor']:.2f}x;"
          f" diagnostics published: {', '.join(map(str, got['diagnostics']))}")
    for method, r in got["requests"].items():
        if not r["served"]:
            print(f"  {method}: not served (MethodNotFound)")
            continue
        print(f"  {method}: median {r['median'] * 1e3:.1f} ms, p90 {r['p90'] * 1e3:.1f} ms (target median <="
              f" {lsp_bench.REQUEST_TARGET * 1e3:.0f} ms); floor: a MethodNotFound round trip"
              f" {got['floor_request'] * 1e3:.2f} ms: {r['over_floor']:.1f}x; the answer: {r['answer']}"
              f" {'characters' if method.endswith('hover') else 'items'}")
    print(f"  server memory (VmRSS): {got['rss_before_mb']:.1f} MB after {args.lsp_warmup} edits, "
          f"{got['rss_after_mb']:.1f} MB after {got['edits']} more: {got['growth_mb']:+.2f} MB"
          f" (target < {lsp_bench.GROWTH_TARGET_MB} MB); every 100 edits: "
          + " ".join(f"{mb:.1f}" for _, mb in got["memory"]))
    results["lsp"] = got


# --- hostile -----------------------------------------------------------------------------------------

HOSTILE_CHECK = ["check", "--format", "text", "--no-verify-evidence"]


def bench_hostile(runs: int, results: dict[str, Any]) -> None:
    """The time of `check` on each input of the hostile corpus, in-process, beside the calls it
    makes: tests/test_hostile.py holds each input's calls (not its time, which a loaded machine
    doubles), so an input whose time per call stands out is one whose work the tests cannot see."""
    import contextlib
    import gc

    from compiler.cli import main

    corpus = REPO / "tests" / "hostile"
    entries = []
    for line in (corpus / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            file, _code, _where, args, *_ = line.split("\t")
            entries.append((file, [] if args == "-" else args.split()))

    def check(argv: list[str]) -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(argv)

    def calls(argv: list[str]) -> int:
        profiler = cProfile.Profile(builtins=True)
        gc.disable()
        profiler.enable()
        try:
            check(argv)
        finally:
            profiler.disable()
            gc.enable()
        return int(pstats.Stats(profiler).total_calls)  # type: ignore[attr-defined]  # not in typeshed

    with tempfile.TemporaryDirectory() as tmp:
        plan = small_repository(Path(tmp))
        floor_argv = [*HOSTILE_CHECK, str(plan)]
        check(floor_argv)  # the imports, not timed
        floor = _median_seconds(lambda: check(floor_argv), runs)
        rows = []
        for file, args in entries:
            argv = [*HOSTILE_CHECK, *args, str(corpus / file)]
            check(argv)
            seconds = _median_seconds(lambda argv=argv: check(argv), runs)  # type: ignore[misc]
            rows.append({"file": file, "seconds": seconds, "ratio": seconds / floor, "calls": calls(argv)})
    rows.sort(key=lambda r: -r["seconds"])
    per_call = statistics.median(r["seconds"] / r["calls"] for r in rows)
    print(f"\nhostile: check of each of the {len(rows)} corpus inputs, in-process, median of {runs} runs; floor: check "
          f"of the 20-item plan {floor * 1000:.1f} ms; the median input takes {per_call * 1e9:.0f} ns a call")
    for r in rows[:15]:
        print(f"  {r['file']:44} {r['seconds'] * 1000:8.1f} ms  {r['ratio']:7.1f}x the floor  {r['calls']:>11,} calls"
              f"  {r['seconds'] / r['calls'] * 1e9 / (per_call * 1e9):5.1f}x the median time a call")
    results["hostile"] = {"floor": floor, "rows": rows}


# --- diff --------------------------------------------------------------------------------------------

DIFF_SIZES = (5_000, 100_000)


def write_revision(old: Path, new: Path) -> dict[str, int]:
    """NEW = OLD (a layered plan) with 1% of the items revised (every 100th: its change; every
    1,000th also depends on another item of the layer before), the last 3 items removed (nothing
    depends on the last layer) and 3 added. Returns the counts the diff must report."""
    plan = json.loads(old.read_text(encoding="utf-8"))
    items = plan["items"]
    revised = 0
    for i, item in enumerate(items):
        if i % 100 == 50:
            item["change"] += ", revised"
            revised += 1
            if i % 1_000 == 550 and i >= LAYER_WIDTH:
                low = (i // LAYER_WIDTH - 1) * LAYER_WIDTH
                others = [_ident(j) for j in range(low, low + LAYER_WIDTH) if _ident(j) not in item["depends_on"]]
                item["depends_on"] = [*item["depends_on"][1:], others[0]]
    n = len(items)
    del items[-3:]
    items += [{"id": f"added-{k}", "change": f"Added item {k}", "evidence": [_evidence(k)],
               "depends_on": [_ident(n - LAYER_WIDTH - 1 - k)], "proof": "pytest"} for k in range(3)]
    new.write_text(json.dumps(plan), encoding="utf-8")
    return {"revised": revised, "added": 3, "removed": 3}


def bench_diff(runs: int, repeat_under: float, results: dict[str, Any]) -> None:
    """`evidence-plan diff OLD NEW` (JSON plans, evidence not checked, as diff does by default) in
    --format json and markdown, as whole processes, against the floor of `check
    --no-verify-evidence` of OLD plus that of NEW: reading and checking both plans, which diff
    does before it compares them."""
    rows = []
    print("\ndiff: whole processes; floor: check OLD + check NEW (--no-verify-evidence)")
    print(f"  {'items':>8} {'check OLD':>9} {'check NEW':>9} {'diff json':>9} {'ratio':>6} {'markdown':>9} "
          f"{'ratio':>6} {'peak RSS':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in DIFF_SIZES:
            old, new = Path(tmp) / f"old-{n}.json", Path(tmp) / f"new-{n}.json"
            write_json_plan(old, "layered", n)
            wanted = write_revision(old, new)
            out = subprocess.run([*COMMAND, "diff", str(old), str(new), "--format", "json"], capture_output=True,
                                 text=True, cwd=REPO, env=ENV, check=False)
            change = json.loads(out.stdout)
            got = {"revised": len(change["revised"]), "added": len(change["added"]),
                   "removed": len(change["removed"])}
            if out.returncode != 1 or got != wanted or change["renamed"]:
                raise SystemExit(f"diff at {n:,} items: exit {out.returncode}, reported {got}, expected {wanted}")
            cases = {
                "check_old": [*COMMAND, "check", "--no-verify-evidence", str(old)],
                "check_new": [*COMMAND, "check", "--no-verify-evidence", str(new)],
                "json": [*COMMAND, "diff", str(old), str(new), "--format", "json"],
                "markdown": [*COMMAND, "diff", str(old), str(new), "--format", "markdown"],
            }
            t = measure(cases, runs, repeat_under, expect={"json": 1, "markdown": 1})
            floor = t["check_old"].seconds + t["check_new"].seconds
            row = {"n": n, **got, "edges": len(change["edges"]["added"]) + len(change["edges"]["removed"]),
                   "moved": len(change["waves"]["direct"]) + len(change["waves"]["indirect"]),
                   "check_old": t["check_old"].seconds, "check_new": t["check_new"].seconds, "floor": floor,
                   "json": t["json"].seconds, "markdown": t["markdown"].seconds,
                   "rss": max(t["json"].rss, t["markdown"].rss),
                   "check_rss": max(t["check_old"].rss, t["check_new"].rss), "runs": len(t["json"].runs)}
            rows.append(row)
            print(f"  {n:>8,} {row['check_old']:>8.2f}s {row['check_new']:>8.2f}s {row['json']:>8.2f}s "
                  f"{row['json'] / floor:>5.2f}x {row['markdown']:>8.2f}s {row['markdown'] / floor:>5.2f}x "
                  f"{row['rss'] / 1e6:>6.0f} MB  ({got['revised']:,} revised, 3 added, 3 removed, "
                  f"{row['edges']} edges, {row['moved']} moved; check peaks at {row['check_rss'] / 1e6:.0f} MB; "
                  f"runs {row['runs']})")
    results["diff"] = rows
HTML_SIZES = (5_000, 100_000)


def bench_html(runs: int, repeat_under: float, results: dict[str, Any]) -> None:
    """`compile --html` and `graph --format svg` against `compile` of the same plan (the floor),
    whole processes, median of ``runs`` side by side."""
    rows = []
    print(f"\nhtml: {' '.join(COMMAND)} compile --html / graph --format svg, against compile without --html;"
          f" median of up to {runs} runs, side by side")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for shape in SHAPES:
            for n in HTML_SIZES:
                plan = write_plan(folder, shape, n, "json")
                out = folder / f"out-{shape}-{n}"
                base = [*COMMAND, "compile", "--no-verify-evidence", str(plan), "-o"]
                timings = measure({
                    "compile": [*base, str(out / "plain")],
                    "html": [*base, str(out / "html"), "--html"],
                    "svg": [*COMMAND, "graph", str(plan), "--no-verify-evidence", "--format", "svg",
                            "-o", str(out / "plan.svg")],
                }, runs, repeat_under, expect={"compile": 0, "html": 0, "svg": 0})
                floor = timings["compile"].seconds
                page = (out / "html" / "evidence-plan.html").stat().st_size
                # The pages alone, in-process from the compiled JSON: the HTML against the Markdown.
                from compiler.render.html import render_pieces as html_pieces
                from compiler.render.markdown import render_pieces as markdown_pieces

                document = json.loads((out / "html" / "evidence-plan.json").read_text(encoding="utf-8"))
                html_alone = _median_seconds(lambda d=document: sum(map(len, html_pieces(d))), runs)
                markdown_alone = _median_seconds(lambda d=document: sum(map(len, markdown_pieces(d))), runs)
                del document
                row = {"shape": shape, "n": n, "compile": floor, "html": timings["html"].seconds,
                       "svg": timings["svg"].seconds, "html_bytes": page,
                       "svg_bytes": (out / "plan.svg").stat().st_size,
                       "html_rss": timings["html"].rss, "compile_rss": timings["compile"].rss,
                       "html_alone": html_alone, "markdown_alone": markdown_alone}
                rows.append(row)
                print(f"  {shape:8} {n:>8,} items  compile {floor:6.2f} s  --html {row['html']:6.2f} s"
                      f" ({row['html'] / floor:4.2f}x; page {page / 1e6:6.1f} MB)  graph svg {row['svg']:6.2f} s"
                      f" ({row['svg'] / floor:4.2f}x; {row['svg_bytes'] / 1e6:4.1f} MB)"
                      f"  peak RSS {row['html_rss'] >> 20} MB vs {row['compile_rss'] >> 20} MB;"
                      f" in-process: the page {html_alone:.2f} s, the Markdown {markdown_alone:.2f} s")
    results["html"] = rows


# --- where ----------------------------------------------------------------------------------------------

WHERE_NEEDLE = "resolve_widget_token"  # in no generated line but the planted ones
WHERE_BYTES = 80_000_000  # the generated text, about (85 MB on disk with the smallest files rounded up)
_WORDS = ("value", "item", "record", "config", "result", "index", "buffer", "count", "name", "path", "state",
          "handler", "request", "response", "cache", "entry", "limit", "offset", "token", "widget", "parse",
          "render", "load", "store", "check", "build", "update", "total", "queue", "field", "schema", "user")


def _words(rnd: random.Random, parts: int = 2) -> str:
    return "_".join(rnd.choice(_WORDS) for _ in range(parts))


def _python_block(rnd: random.Random, k: int) -> str:
    """One definition of Python-like text: a function or a small class, 5-40 lines."""
    name, arg, other = _words(rnd, 3), _words(rnd, 1), _words(rnd)
    if k % 7 == 0:
        body = [f"class {name.title().replace('_', '')}{k}:", f'    """The {name.replace("_", " ")} of a {arg}."""', ""]
        for m in range(rnd.randint(1, 4)):
            body += [f"    def {_words(rnd)}_{m}(self, {arg}):", f"        self.{other} = {arg}",
                     f"        return self.{other} + {rnd.randint(0, 999)}", ""]
        return "\n".join(body) + "\n"
    body = [f"def {name}_{k}({arg}, {other}=None):", f'    """Return the {name.replace("_", " ")} for {arg}."""']
    for _ in range(rnd.randint(3, 30)):
        kind = rnd.random()
        if kind < 0.35:
            body.append(f"    {_words(rnd)} = {arg}.{_words(rnd, 1)}({other}, {rnd.randint(0, 9999)})")
        elif kind < 0.55:
            body.append(f"    if {_words(rnd)} > {rnd.randint(0, 99)}:\n        {other} = {_words(rnd)}({arg})")
        elif kind < 0.7:
            body.append(f"    # {' '.join(rnd.choice(_WORDS) for _ in range(rnd.randint(4, 12)))}")
        elif kind < 0.85:
            body.append(f"    for {_words(rnd, 1)} in {_words(rnd)}:\n        {other}.append({_words(rnd, 1)})")
        else:
            body.append(f"    log.debug(\"{' '.join(rnd.choice(_WORDS) for _ in range(rnd.randint(3, 8)))}\", {arg})")
    body.append(f"    return {other}")
    return "\n".join(body) + "\n\n"


def make_search_tree(root: Path, files: int = WHERE_FILES, total: int = WHERE_BYTES, needle: str = WHERE_NEEDLE,
                     seed: int = SEED, planted: int = 24) -> list[tuple[str, int]]:
    """A repository of ``files`` files, about ``total`` bytes: mostly Python-like modules of
    lognormal sizes (a few hundred bytes to a few hundred KB) in two levels of folders, with some
    Markdown, some CRLF files, some non-ASCII text, some Latin-1 (not UTF-8) and some binary files.
    ``needle`` is planted in ``planted`` files (once as the last bytes of a file with no final newline).
    Returns the planted hits, (path, line). Not a git repository: see git_commit_all."""
    rnd = random.Random(seed)
    pool = [_python_block(rnd, k) for k in range(3000)]
    assert not any(needle in block for block in pool)
    weights = [rnd.lognormvariate(0.0, 1.1) for _ in range(files)]
    scale = total / sum(weights)
    chosen = set(rnd.sample(range(files), planted))
    hits: list[tuple[str, int]] = []
    for n in range(files):
        size = max(200, int(weights[n] * scale))
        kind = rnd.random()
        folder = f"pkg{n % 50:02d}/sub{n // 50 % 20:02d}"
        ext = "md" if kind < 0.06 else "bin" if kind < 0.065 else "py"
        rel = f"{folder}/module_{n}.{ext}"
        if ext == "bin":
            data = bytes(rnd.getrandbits(8) for _ in range(min(size, 4096))) + b"\x00" * 64
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            continue
        parts, length = [f'"""Module {n}: {" ".join(rnd.choices(_WORDS, k=8))}."""\n\nimport os\n\n'], 0
        if ext == "md":
            parts = [f"# Module {n}\n\n"]
        while length < size:
            if ext == "py":
                block = rnd.choice(pool)
            else:
                block = f"## {_words(rnd)}\n\n{' '.join(rnd.choices(_WORDS, k=60))}\n\n"
            parts.append(block)
            length += len(block)
        if kind > 0.97:
            parts.insert(1, "# naïve café: données, Größe, 東京\n")  # non-ASCII text
        latin1 = 0.94 < kind <= 0.95  # not UTF-8: read with U+FFFD for each such byte
        if latin1:
            parts.insert(1, "# café, Größe (Latin-1)\n")
        if n in chosen:
            at = rnd.randint(1, len(parts))
            parts.insert(at, f"    token = {needle}(value)  # planted\n")
        text = "".join(parts)
        if n == min(chosen):  # the needle as the very end of a file, no final newline
            text += f"last = {needle}"
        lines = text.split("\n")
        hits += [(rel, i + 1) for i, line in enumerate(lines) if needle in line]
        newline = "\r\n" if 0.95 < kind <= 0.97 else "\n"
        encoding = "latin-1" if latin1 else "utf-8"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", newline).encode(encoding, errors="replace"))
    return hits


def git_commit_all(root: Path) -> None:
    """git init, add and commit everything, so that git grep (and git ls-files) see the tree.
    Without gc.auto=0, the commit of 10,000 loose objects starts git's automatic gc in the
    background, which packs them while the timings run (and writes into .git as it is removed)."""
    env = {**ENV, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    for words in (["init", "-q"], ["config", "gc.auto", "0"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", "-c", "core.autocrlf=false", "-c", "gc.auto=0", *words], check=True, cwd=root,
                       env=env, stdout=subprocess.DEVNULL)


# The honest floor of a Python tool: walk the tree as compiler/repo/discover.py does (no symlinks, no
# .git), read every file as bytes and search it; the line of each hit only where there is one.
READ_FLOOR = """import os
needle = {needle!r}.encode("utf-8")
hits = 0
stack = [{root!r}]
while stack:
    folder = stack.pop()
    with os.scandir(folder) as listing:
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != ".git":
                    stack.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                with open(entry.path, "rb") as handle:
                    data = handle.read()
                at = data.find(needle)
                while at >= 0:
                    hits += 1
                    print(entry.path, data.count(b"\\n", 0, at) + 1)
                    at = data.find(needle, data.find(b"\\n", at) + 1 or len(data))
"""


def bench_where(runs: int, results: dict[str, Any], files: int = WHERE_FILES) -> None:
    """`where` on a generated 10,000-file git repository against git grep, start-up, and the
    read-and-search floor."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        started = time.perf_counter()
        planted = make_search_tree(root, files)
        git_commit_all(root)
        made = time.perf_counter() - started
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
        argv = ["-m", "compiler", "where", WHERE_NEEDLE, "--root", str(root), "--format", "json"]
        found = json.loads(subprocess.run([PY, *argv], check=True, capture_output=True, text=True, cwd=REPO,
                                          env=ENV).stdout)
        grep = subprocess.run(["git", "-C", str(root), "grep", "-n", "-F", WHERE_NEEDLE], check=True,
                              capture_output=True, text=True, env=ENV).stdout
        from_git = sorted((p, int(n)) for p, n, _ in (row.split(":", 2) for row in grep.splitlines()))
        from_where = sorted((r["path"], r["line"]) for r in found)
        if not (from_where == from_git == sorted(planted)):
            raise SystemExit(f"where and git grep disagree: {from_where[:5]} / {from_git[:5]} / {sorted(planted)[:5]}")
        modules = needed_modules(import_profile_median(argv))
        cases = {
            "python": [PY, "-c", "pass"],
            "floor": floor_argv(modules),
            "read": floor_argv(modules, READ_FLOOR.format(needle=WHERE_NEEDLE, root=str(root))),
            "git_grep": ["git", "-C", str(root), "grep", "-n", "-F", WHERE_NEEDLE],
            "where": [PY, *argv],
        }
        measure(cases, 1, repeat_under=1e9)  # warm-up: every file in the page cache
        timing = measure(cases, runs, repeat_under=1e9)
    r: dict[str, Any] = {name: t.seconds for name, t in timing.items()}
    r["cpu"] = {name: t.cpu for name, t in timing.items()}
    r.update(files=files, bytes=size, hits=len(planted), runs=runs, modules=modules, made=made)
    results["where"] = r
    print(f"\nwhere: {files:,} files, {size / 1e6:.0f} MB, {len(planted)} hits (the same as git grep's), "
          f"median of {runs} runs (made and committed in {made:.0f} s)")
    print(f"  python -c pass                         {r['python']:7.3f} s")
    print(f"  python -c 'import <what where needs>'  {r['floor']:7.3f} s  (start-up floor)")
    print(f"  that + read every file and search it   {r['read']:7.3f} s  (read floor)")
    print(f"  git grep -n -F                         {r['git_grep']:7.3f} s")
    cpu = r["cpu"]
    print(f"  evidence-plan where                    {r['where']:7.3f} s  ({r['where'] / r['read']:.2f}x the read "
          f"floor, target <= {WHERE_TARGET}x; {r['where'] / r['git_grep']:.1f}x git grep; "
          f"{r['where'] / r['floor']:.2f}x start-up)")
    print(f"  CPU time (user + system): where {cpu['where']:.3f} s, git grep {cpu['git_grep']:.3f} s "
          f"({cpu['where'] / cpu['git_grep']:.1f}x, target <= {WHERE_GIT_TARGET}x), read floor {cpu['read']:.3f} s "
          f"({cpu['where'] / cpu['read']:.2f}x)")


# --- targets and reports ------------------------------------------------------------------------------


def _row(rows: list[dict[str, Any]], fmt: str, shape: str, n: int) -> dict[str, Any] | None:
    return next((r for r in rows if (r["format"], r["shape"], r["n"]) == (fmt, shape, n)), None)


def targets(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(target, measured, limit, verdict) for every target that this run measured."""
    out: list[tuple[str, str, str, str]] = []

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT MET"

    startup = results.get("startup", {})
    if "yaml" in startup:
        r = startup["yaml"]
        out.append(("check, 20-item YAML plan / python -c 'import <what check needs>'", f"{r['ratio']:.2f}x",
                    f"<= {STARTUP_TARGET}x", verdict(r["ratio"] <= STARTUP_TARGET)))
    if "yaml" in startup and "click_yaml" in startup["yaml"]:
        r = startup["yaml"]
        ratio = r["check"] / r["click_yaml"]
        out.append(("check, 20-item YAML plan / python -c 'import click, yaml'", f"{ratio:.2f}x",
                    f"<= {IMPORTS_TARGET}x", verdict(ratio <= IMPORTS_TARGET)))
        if "check_blocked" in r:
            ratio = r["check_blocked"] / r["check"]
            out.append(("check of that plan blocked (a misspelt key, a missing file) / check of it ready",
                        f"{ratio:.2f}x", f"<= {BLOCKED_TARGET}x", verdict(ratio <= BLOCKED_TARGET)))
    for fmt in ("yaml", "json"):
        if fmt in startup:
            r = startup[fmt]
            out.append((f"check of {fmt.upper()} imports nothing it does not use "
                        f"({', '.join(not_needed('check', fmt))})",
                        "imports " + ", ".join(r["unneeded"]) if r["unneeded"] else "none imported",
                        "none", verdict(not r["unneeded"])))
    rows = results.get("scale", [])
    for shape in SHAPES:
        r = _row(rows, "json", shape, 100_000)
        if r:
            ratio = r["compile"] / r["load"]
            out.append((f"compile, 100,000-item JSON {shape} / (start-up + imports + json load)", f"{ratio:.2f}x",
                        f"<= {JSON_TARGET}x", verdict(ratio <= JSON_TARGET)))
    r = _row(rows, "json", "chain", 100_000)
    if r and "stack" in r:
        ratio = r["compile"] / r["stack"]
        out.append(("compile, 100,000-item JSON chain / (start-up + imports + json load + networkx waves + json out)",
                    f"{ratio:.2f}x", f"<= {STACK_TARGET}x", verdict(ratio <= STACK_TARGET)))
    r = _row(rows, "yaml", "chain", 100_000)
    if r and "scan" in r:
        ratio = r["compile"] / r["scan"]
        out.append(("compile, 100,000-item YAML chain / (start-up + imports + libyaml's bare event scan)",
                    f"{ratio:.2f}x", f"<= {SCAN_TARGET}x", verdict(ratio <= SCAN_TARGET)))
    for shape in SHAPES:
        r = _row(rows, "yaml", shape, 100_000)
        if r and "load" in r:
            ratio = r["compile"] / r["load"]
            out.append((f"compile, 100,000-item YAML {shape} / (start-up + imports + ruamel safe pure load)",
                        f"{ratio:.2f}x", f"<= {YAML_TARGET}x", verdict(ratio <= YAML_TARGET)))
            if "libyaml" in r:
                fast = results.get("floors", {}).get("yaml_fast_path", False)
                lib = r["compile"] / r["libyaml"]
                out.append((f"compile, 100,000-item YAML {shape} / (start-up + imports + PyYAML CSafeLoader load)",
                            f"{lib:.2f}x" + ("" if fast else " (no fast path)"),
                            "faster than the ruamel load, with a fast path",
                            verdict(r["compile"] < r["load"]) if fast else "n/a: no fast path"))
    for fmt in FORMATS:
        for shape in SHAPES:
            big, small = _row(rows, fmt, shape, 1_000_000), _row(rows, fmt, shape, 100_000)
            if big and small:
                for command in ("check", "compile"):
                    if command not in big or command not in small:
                        continue
                    ratio = big[command] / small[command]
                    out.append((f"{command}, {fmt.upper()} {shape}: time at 1,000,000 / at 100,000", f"{ratio:.1f}x",
                                f"<= {LINEAR_TARGET:g}x", verdict(ratio <= LINEAR_TARGET)))
            if big:
                rss = peak(big)
                out.append((f"peak memory, {fmt.upper()} {shape} at 1,000,000 items",
                            f"{rss / (1 << 30):.2f} GB ({rss / big['n'] / 1e3:.2f} kB/item; "
                            f"{per_item(big, results.get('floors', {})):.2f} kB beyond start-up)",
                            "< 4 GB", verdict(rss < MEMORY_TARGET)))
    lsp = results.get("lsp")
    if lsp and "median" in lsp:
        import lsp_bench

        out.append((f"lsp: a one-character edit to its diagnostics, {lsp['items']}-item plan (median; p90)",
                    f"{lsp['median'] * 1e3:.0f} ms; {lsp['p90'] * 1e3:.0f} ms",
                    f"<= {lsp_bench.LATENCY_TARGET * 1e3:.0f} ms", verdict(lsp["median"] <= lsp_bench.LATENCY_TARGET)))
        for method, r in lsp["requests"].items():
            out.append((f"lsp: {method} round trip (median; p90)",
                        f"{r['median'] * 1e3:.1f} ms; {r['p90'] * 1e3:.1f} ms" if r["served"] else "not served",
                        f"<= {lsp_bench.REQUEST_TARGET * 1e3:.0f} ms",
                        verdict(r["median"] <= lsp_bench.REQUEST_TARGET) if r["served"] else "n/a: not served"))
        out.append((f"lsp: server memory growth over {lsp['edits']:,} edits (after {lsp['warmup']} to warm up)",
                    f"{lsp['growth_mb']:+.2f} MB", f"< {lsp_bench.GROWTH_TARGET_MB} MB",
                    verdict(lsp["growth_mb"] < lsp_bench.GROWTH_TARGET_MB)))
    where = results.get("where")
    if where:
        ratio = where["where"] / where["read"]
        out.append((f"where, {where['files']:,} files / (start-up + imports + read and search every file)",
                    f"{ratio:.2f}x", f"<= {WHERE_TARGET}x", verdict(ratio <= WHERE_TARGET)))
        ratio = where["cpu"]["where"] / where["cpu"]["git_grep"]
        out.append((f"where, {where['files']:,} files / git grep -n -F, CPU time (user + system)",
                    f"{ratio:.1f}x (wall time: {where['where'] / where['git_grep']:.1f}x)", f"<= {WHERE_GIT_TARGET}x",
                    verdict(ratio <= WHERE_GIT_TARGET)))
    return out


def linearity(rows: list[dict[str, Any]], floors: dict[str, Any]) -> list[str]:
    """Time at 10N over time at N, raw and after taking away the start-up floor."""
    lines = []
    for r in sorted(rows, key=lambda r: (r["format"], SHAPES.index(r["shape"]), r["n"])):
        prev = _row(rows, r["format"], r["shape"], r["n"] // 10)
        if prev is None:
            continue
        parts = []
        for command in ("check", "compile"):
            if command not in r or command not in prev:
                continue
            base = floors.get(f"{command}-{r['format']}", {}).get("seconds", 0.0)
            raw = r[command] / prev[command]
            net = (r[command] - base) / max(prev[command] - base, 1e-3)
            parts.append(f"{command} {raw:5.1f}x (beyond start-up {net:5.1f}x)")
        lines.append(f"{r['format']:4} {r['shape']:7} {prev['n']:>9,} -> {r['n']:>9,}:  " + "   ".join(parts))
    return lines


def print_report(results: dict[str, Any], markdown: bool) -> None:
    rows = results.get("scale", [])
    floors = results.get("floors", {})
    if rows:
        print("\nlinearity (10x the items; the target is at most 12x from 100,000 to 1,000,000):")
        for line in linearity(rows, floors):
            print("  " + line)
    print("\ntargets:")
    for name, measured, limit, ok in targets(results):
        print(f"  {ok:18} {measured:>28}  (target {limit})  {name}")
    if markdown:
        print("\n" + markdown_report(results))


def markdown_report(results: dict[str, Any]) -> str:
    info = results.get("machine", {})
    md = ["## Machine", ""]
    if info:
        md.append(f"- {info.get('cpu', '?')}, {info['cores']} cores, {info.get('memory_gb', '?')} GB memory, "
                  f"{info['system']}")
        md.append(f"- {info['implementation']} {info['python']}; "
                  + ", ".join(f"{k} {v}" for k, v in info["packages"].items())
                  + f"; libyaml {'available' if info['libyaml'] else 'not available'}")
        md.append(f"- commit {info.get('commit', '?')}")
    startup = results.get("startup", {})
    if startup:
        md += ["", "## Start-up (20-item plan, `check`, evidence verified)", "",
               "| plan | `python -c pass` | floor: `python -c \"import <needed>\"` | `check` | ratio "
               "| floor + bare parse | `check` / that |",
               "|---|---:|---:|---:|---:|---:|---:|"]
        for fmt, r in startup.items():
            md.append(f"| {fmt.upper()} | {r['python']:.3f} s | {r['floor']:.3f} s | {r['check']:.3f} s "
                      f"| **{r['ratio']:.2f}x** | {r['floor_parse']:.3f} s | {r['check'] / r['floor_parse']:.2f}x |")
        for fmt, r in startup.items():
            md += ["", f"Imports of `check` on {fmt.upper()} (`python -X importtime`): {r['import_ms']:.0f} ms beyond "
                   f"start-up, {r['own_ms']:.0f} ms in the project's own modules. Own import time by package: "
                   + ", ".join(f"{k} {v:.0f} ms" for k, v in r["packages"][:10]) + ".",
                   "", f"Floor modules: `{' '.join(r['modules'])}`"]
    rows = results.get("scale", [])
    if rows:
        md += ["", "## Scale (`--no-verify-evidence`, whole processes)", "",
               "Ratios are over the floor *start-up + the imports the command needs + the bare parse of the "
               "same file* (`json.loads`; ruamel `YAML(typ='safe', pure=True).load`), run as a process beside "
               "the commands, one for `compile`'s imports and one for `check`'s (for YAML at 100,000 items and more, "
               "`check`'s floor is derived: the parse with `check`'s start-up in place of `compile`'s). "
               "Peak RSS is the larger of the two commands'; per item is beyond the start-up floor's "
               "RSS. Runs: the median of that many (a case whose first run takes over 5 s runs once).", "",
               "| format | shape | items | MB | floor: load | libyaml load | `check` | ratio | `compile` | ratio "
               "| peak RSS | per item | runs |",
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in sorted(rows, key=lambda r: (r["format"], SHAPES.index(r["shape"]), r["n"])):
            lib = f"{r['libyaml']:.2f} s" if "libyaml" in r else "-"
            checked = f"{r['check']:.2f} s | {r['check'] / r['check_floor']:.2f}x" if "check" in r else "- | -"
            over = "" if floor_of(r) == "load" else " (of libyaml)"
            md.append(f"| {r['format']} | {r['shape']} | {r['n']:,} | {r['bytes'] / 1e6:.1f} | {seconds(r, 'load')} "
                      f"| {lib} | {checked} | {r['compile']:.2f} s "
                      f"| {r['compile'] / r[floor_of(r)]:.2f}x{over} | {peak(r) / 1e6:.0f} MB "
                      f"| {per_item(r, results.get('floors', {})):.2f} kB | {r['runs']['compile']} |")
        md += ["", "Linearity (time at 10x the items over time at N; beyond start-up: after taking away the "
               "start-up floor):", "", "```", *linearity(rows, results.get("floors", {})), "```"]
    where = results.get("where")
    if where:
        md += ["", f"## `where` ({where['files']:,} files, {where['bytes'] / 1e6:.0f} MB, {where['hits']} hits, "
               f"median of {where['runs']})", "",
               "| time | `python -c pass` | start-up floor: `python -c \"import <needed>\"` | read floor: that + read "
               "and search every file | `git grep -n -F` | `where` | / read floor | / git grep |",
               "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for label, t in (("wall", where), ("CPU (user + system)", where["cpu"])):
            md.append(f"| {label} | {t['python']:.3f} s | {t['floor']:.3f} s | {t['read']:.3f} s "
                      f"| {t['git_grep']:.3f} s | {t['where']:.3f} s | **{t['where'] / t['read']:.2f}x** "
                      f"| **{t['where'] / t['git_grep']:.1f}x** |")
    md += ["", "## Targets", "", "| target | measured | limit | verdict |", "|---|---:|---|---|"]
    for name, measured, limit, ok in targets(results):
        md.append(f"| {name} | {measured} | {limit} | {f'**{ok}**' if ok == 'NOT MET' else ok} |")
    return "\n".join(md)


def save(path: str, results: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(results, indent=1), encoding="utf-8")


def bench_forecast(runs: int, results: dict[str, Any]) -> None:
    from compiler.analysis.forecast import monte_carlo, schedule
    from compiler.analysis.graph import build_graph, waves
    from compiler.model.values import Item

    rows = []
    print("\nforecast: schedule + Monte Carlo, in-process; floor: ordering the same items into waves")
    print(f"  {'shape':8} {'items':>8} {'runs':>5} {'forecast s':>10} {'floor s':>8} {'ratio':>6}")
    for n in (1_000, 100_000):
        for shape in SHAPES:
            rnd = random.Random(SEED)
            items = [Item(_ident(i), "c", (), tuple(_ident(d) for d in deps), "p", i,
                          options=(("estimate", {"low": 1, "high": rnd.choice((2, 5, 20)), "unit": "hours",
                                                 "evidence": "x"}),))
                     for i, deps in enumerate(dependencies(shape, n))]
            order: list[list[str]] = []
            made: dict[str, Any] = {}

            def floor(items: list[Item] = items, order: list[list[str]] = order) -> None:
                graph = build_graph(items)
                order[:] = waves(graph)
                graph.clear()

            def forecast(items: list[Item] = items, order: list[list[str]] = order,
                         made: dict[str, Any] = made) -> None:
                schedule(items, order)
                made.update(monte_carlo(items, order) or {})

            floor_s = _median_seconds(floor, runs)
            took = _median_seconds(forecast, runs)
            rows.append({"shape": shape, "n": n, "runs": made["runs"], "seconds": took, "floor": floor_s})
            print(f"  {shape:8} {n:>8,} {made['runs']:>5} {took:>10.3f} {floor_s:>8.3f} {took / floor_s:>5.1f}x")
    results["forecast"] = rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("case", nargs="?", default="verify", choices=["verify", "startup", "scale", "where", "profile",
                                                                      "forecast", "reduction", "diff", "html",
                                                                      "hostile", "stages", "proofs", "lsp",
                                                                      "all", "report"])
    parser.add_argument("--runs", type=int, default=3, help="runs per timing; the median is kept (default 3)")
    parser.add_argument("--files", type=int, default=10_000, help="verify: files in the repository")
    parser.add_argument("--evidence", type=int, default=20_000, help="verify: evidence entries")
    parser.add_argument("--where-files", type=int, default=WHERE_FILES, help="where: files in the repository")
    parser.add_argument("--where-runs", type=int, default=9, help="where: runs per timing (default 9)")
    parser.add_argument("--startup-runs", type=int, default=11, help="startup: runs per timing (default 11)")
    parser.add_argument("--max-n", type=int, default=100_000, help="scale: largest plan (default 100,000)")
    parser.add_argument("--full", action="store_true", help="scale: up to 1,000,000 items (JSON; YAML see below)")
    parser.add_argument("--yaml-max-n", type=int, default=100_000,
                        help="scale: largest YAML plan (default 100,000: ruamel's pure-Python parser alone takes "
                             "minutes per 100,000 items)")
    parser.add_argument("--ruamel-max-n", type=int, default=100_000,
                        help="scale: largest YAML plan whose ruamel floor is run (default 100,000; above it, "
                             "about 15 minutes per 1,000,000 items: ratios are then over libyaml's load)")
    parser.add_argument("--yaml-large", default="chain",
                        help="scale: shapes run in YAML at 100,000 items and more: comma-separated, 'all' or 'none' "
                             "(default chain)")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--yaml-large-check", action="store_true",
                        help="scale: also time check on YAML plans of 100,000 items and more")
    parser.add_argument("--repeat-under", type=float, default=5.0,
                        help="scale: a case whose first run takes longer than this many seconds runs once")
    parser.add_argument("--keep", metavar="DIR", help="scale: generate plans into DIR and keep them")
    parser.add_argument("--markdown", action="store_true", help="also print the results as RESULTS.md tables")
    parser.add_argument("--save", metavar="FILE", help="write the raw results as JSON (merge runs with report --load)")
    parser.add_argument("--load", metavar="FILE", action="append", default=[],
                        help="report: merge saved results (later files win) and print the targets")
    parser.add_argument("--shape", default="chain", help="profile: shape")
    parser.add_argument("--n", type=int, default=100_000, help="profile and stages: items")
    parser.add_argument("--format", default="json", help="profile: json or yaml")
    parser.add_argument("--command", default="compile", help="profile: check or compile")
    parser.add_argument("--top", type=int, default=20, help="profile: functions shown")
    parser.add_argument("--feature-n", type=int, default=20_000,
                        help="stages: items of the plan that uses every feature")
    parser.add_argument("--lsp-items", type=int, default=200, help="lsp: items of the plan (default 200)")
    parser.add_argument("--lsp-warmup", type=int, default=100, help="lsp: edits before memory is first read")
    parser.add_argument("--lsp-edits", type=int, default=1000, help="lsp: edits timed, and over which memory grows")
    parser.add_argument("--lsp-requests", type=int, default=50, help="lsp: hover and completion requests timed")
    parser.add_argument("--lsp-save", action="store_true",
                        help="lsp: save after each edit (checked at once, without the debounce): the memory test's way")
    args = parser.parse_args()

    results: dict[str, Any] = {}
    for saved in args.load:
        loaded = json.loads(Path(saved).read_text(encoding="utf-8"))
        rows = results.get("scale", [])
        for row in loaded.pop("scale", []):
            rows = [r for r in rows if (r["format"], r["shape"], r["n"]) != (row["format"], row["shape"], row["n"])]
            rows.append(row)
        for key, value in loaded.items():
            if isinstance(value, dict) and isinstance(results.get(key), dict):
                results[key].update(value)  # floors, startup: per command and format
            else:
                results[key] = value
        results["scale"] = rows
    if args.case != "report":
        results["machine"] = machine()
        print_machine(results["machine"])
    started = time.perf_counter()
    if args.case in ("startup", "all"):
        bench_startup(args.startup_runs, results)
    if args.case in ("scale", "all"):
        bench_scale(args, results)
    if args.case in ("verify", "all"):
        bench_verify(args.files, args.evidence, args.runs, results)
    if args.case in ("where", "all"):
        bench_where(args.where_runs, results, args.where_files)
    if args.case in ("forecast", "all"):
        bench_forecast(args.runs, results)
    if args.case in ("reduction", "all"):
        bench_reduction(args.runs, results)
    if args.case in ("diff", "all"):
        bench_diff(args.runs, args.repeat_under, results)
    if args.case in ("html", "all"):
        bench_html(args.runs, args.repeat_under, results)
    if args.case in ("hostile", "all"):
        bench_hostile(args.runs, results)
    if args.case in ("proofs", "all"):
        bench_proofs(args.runs, results)
    if args.case == "lsp":
        bench_lsp(args, results)
    if args.case == "stages":
        bench_stages(args, results)
    if args.case == "profile":
        bench_profile(args)
        return 0
    if args.case not in ("verify", "where", "forecast", "reduction", "diff", "html", "hostile",
                         "stages", "proofs") or args.markdown:
        print_report(results, args.markdown)
    if args.save:
        save(args.save, results)
    if args.case != "report":
        print(f"\nbenchmark took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
