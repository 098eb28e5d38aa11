"""The project's benchmark: python benchmarks/run.py [verify] [--files N] [--evidence N] [--runs N]

Machines here are shared and noisy, so every result is stated as a ratio over a floor measured
side by side in the same run, and absolute seconds are given only for scale.

verify: the cost of checking evidence against a repository. A temporary repository of --files
    files (default 10,000; 40 lines each, a Python definition in each) and a JSON plan whose items
    cite --evidence lines (default 20,000: a line, a range with `contains`, a symbol, in turn)
    are compiled in-process with and without verification; the difference is what verification
    adds. The floor is the compile without verification.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def bench_verify(files: int, evidence: int, runs: int) -> None:
    from compiler.compile import compile_plan

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = make_repository(root, files)
        plan_path = root / "plan.json"
        plan_path.write_text(json.dumps(make_plan(names, evidence)), encoding="utf-8")
        result = compile_plan(str(plan_path), root=tmp)
        assert result.status == "ready", [str(d.message) for d in result.diagnostics[:5]]
        without = _median_seconds(lambda: compile_plan(str(plan_path), root=tmp, verify_evidence=False), runs)
        with_ = _median_seconds(lambda: compile_plan(str(plan_path), root=tmp), runs)
    items = evidence // 2
    print(f"verify: {files:,} files, {evidence:,} evidence entries, {items:,} items, median of {runs} runs")
    print(f"  compile without verification  {without:8.3f} s  (floor)")
    print(f"  compile with verification     {with_:8.3f} s  ({with_ / without:.2f}x the floor)")
    print(f"  verification adds             {with_ - without:8.3f} s  "
          f"({(with_ - without) / evidence * 1e6:.1f} us per evidence entry)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("case", nargs="?", default="verify", choices=["verify"])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--evidence", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores")
    bench_verify(args.files, args.evidence, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
