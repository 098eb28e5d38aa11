"""Fingerprint every output of every command on every plan we have, to prove a change keeps them.

    python tests/fingerprint.py --save before.json      # at the commit before a refactoring
    python tests/fingerprint.py --compare before.json   # after it: exit 1, and each difference, when any

A refactoring that "changes no output byte" is held to that here, not by reading the diff. The
plans: every case of tests/cases (in a copy of its folder, with its args.txt), every file of
tests/golden and tests/hostile (with the manifest's options), the examples, the compiled example
read back, and the benchmark's plans (three shapes at 1,000 items, YAML and JSON, and its
20-module repository). The commands: ``check`` in every format, ``compile`` (both artifacts),
``convert`` to JSON, YAML and Markdown, ``render`` of the compiled JSON, and ``fix --dry-run``.
For each: the exit code, standard output and error, and the bytes of every file written. They
run in-process, from the plan's folder with relative paths, so that nothing depends on where the
copies are. Not collected by pytest (not test_*.py); about a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from compiler.cli import main  # noqa: E402 - after the path, so that this checkout's code runs

COMMANDS: list[tuple[str, list[str]]] = [
    ("check-text", ["check", "--format", "text"]),
    ("check-json", ["check", "--format", "json"]),
    ("check-github", ["check", "--format", "github"]),
    ("check-sarif", ["check", "--format", "sarif"]),
    ("compile", ["compile", "-o", "out"]),
    ("convert-json", ["convert", "--no-verify-evidence", "{plan}", "converted.json"]),
    ("convert-yaml", ["convert", "--no-verify-evidence", "{plan}", "converted.yaml"]),
    ("convert-md", ["convert", "--no-verify-evidence", "{plan}", "converted.md"]),
    ("render", ["render", "out/evidence-plan.json"]),
    ("fix-dry-run", ["fix", "--dry-run"]),
]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _run(folder: Path, argv: list[str]) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(cwd)
    written = {str(p.relative_to(folder)): _digest(p.read_bytes()) for p in sorted(folder.rglob("*"))
               if p.is_file() and before.get(p) != p.stat().st_mtime_ns}
    return {"exit": code, "stdout": _digest(out.getvalue().encode("utf-8", "surrogateescape")),
            "stderr": _digest(err.getvalue().encode("utf-8", "surrogateescape")), "written": written}


def _plan_runs(name: str, folder: Path, plan: str, extra: list[str]) -> Iterator[tuple[str, dict[str, object]]]:
    for label, command in COMMANDS:
        if "{plan}" in command:
            argv = [c.replace("{plan}", plan) for c in command]
            argv[1:1] = extra
        elif command[0] == "render":
            if not (folder / "out" / "evidence-plan.json").exists():
                continue
            argv = command
        else:
            argv = [*command, *extra, plan]
        yield f"{name} {label}", _run(folder, argv)


def _inputs(scratch: Path) -> Iterator[tuple[str, Path, str, list[str]]]:
    """(name, folder of a fresh copy, plan path in it, options)."""
    for case in sorted((REPO / "tests" / "cases").iterdir()):
        plans = [p for p in ("plan.yaml", "plan.json") if (case / p).is_file()]
        if not case.is_dir() or not plans:
            continue
        folder = scratch / "cases" / case.name
        shutil.copytree(case, folder, symlinks=True)
        args_file = case / "args.txt"
        extra = (shlex.split(args_file.read_text(encoding="utf-8"), comments=True) if args_file.exists()
                 else ["--root", "."])
        yield f"cases/{case.name}", folder, plans[0], extra
    manifest = {}
    for line in (REPO / "tests" / "hostile" / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            manifest[fields[0]] = fields[3].split() if fields[3] != "-" else []
    for kind in ("golden", "hostile"):
        for path in sorted((REPO / "tests" / kind).iterdir()):
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            folder = scratch / kind / path.name
            folder.mkdir(parents=True)
            shutil.copyfile(path, folder / path.name)
            yield f"{kind}/{path.name}", folder, path.name, ["--no-verify-evidence", *manifest.get(path.name, [])]
    for example in sorted((REPO / "examples").iterdir()):
        folder = scratch / "examples" / example.name
        shutil.copytree(example, folder, symlinks=True)
        yield f"examples/{example.name}", folder, "plan.yaml", []
    compiled = scratch / "outputs"
    compiled.mkdir()
    shutil.copyfile(REPO / "outputs" / "evidence-plan.json", compiled / "compiled.json")
    yield "outputs/evidence-plan.json", compiled, "compiled.json", ["--no-verify-evidence"]
    spec = importlib.util.spec_from_file_location("benchmark", REPO / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    bench = sys.modules["benchmark"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for fmt in ("yaml", "json"):
        for shape in bench.SHAPES:
            folder = scratch / "bench" / f"{shape}-{fmt}"
            folder.mkdir(parents=True)
            path = bench.write_plan(folder, shape, 1_000, fmt)
            yield f"benchmark/{shape}-1000.{fmt}", folder, Path(path).name, ["--no-verify-evidence"]
    small = Path(bench.small_repository(scratch / "bench" / "small"))
    yield "benchmark/small-repository", small.parent, small.name, []


def fingerprint() -> dict[str, dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        runs: dict[str, dict[str, object]] = {}
        for name, folder, plan, extra in _inputs(scratch):
            runs.update(_plan_runs(name, folder, plan, extra))
        return runs


def main_(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", metavar="FILE")
    group.add_argument("--compare", metavar="FILE")
    args = parser.parse_args(argv)
    runs = fingerprint()
    if args.save:
        Path(args.save).write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(runs)} runs fingerprinted into {args.save}")
        return 0
    before = json.loads(Path(args.compare).read_text(encoding="utf-8"))
    differ = [name for name in sorted(set(before) | set(runs)) if before.get(name) != runs.get(name)]
    for name in differ:
        print(f"differs: {name}\n  before: {before.get(name)}\n  now:    {runs.get(name)}")
    print(f"{len(runs)} runs, {len(differ)} differ from {args.compare}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main_(sys.argv[1:]))
