"""Fingerprint every output of every command on every plan we have, to prove a change keeps them.

    python tests/fingerprint.py --save before.json      # at the commit before a refactoring
    python tests/fingerprint.py --compare before.json   # after it: exit 1, and each difference, when any

A refactoring that "changes no output byte" is held to that here, not by reading the diff. The
plans: every case of tests/cases (in a copy of its folder, with its args.txt), every file of
tests/golden and tests/hostile (with the manifest's options), the examples, the compiled example
read back, and the benchmark's plans (three shapes at 1,000 items, YAML and JSON, and its
20-module repository). The commands: every command of the CLI group, each by its RECIPES
(``check`` in every format, ``compile`` with and without --html, ``graph`` in every format, ...).
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

# Each command of the CLI group (every one: main_ refuses to run when one has no recipe), as runs
# on a plan: (label, argv), where {plan} is the plan and {extra} its options (args.txt, the
# hostile manifest's). They run in this order, in one folder: what reads out/ after compile, and
# what writes the plan (approve) last.
RECIPES: dict[str, list[tuple[str, list[str]]]] = {
    "check": [(f"check-{f}", ["check", "--format", f, "{extra}", "{plan}"])
              for f in ("text", "json", "github", "sarif")],
    "schema": [("schema-input", ["schema", "input"]), ("schema-output", ["schema", "output"])],
    "symbols": [("symbols", ["symbols", "{plan}"])],
    "verify": [("verify-dry-run", ["verify", "--dry-run", "{extra}", "{plan}"])],  # runs nothing
    "ci": [("ci-github", ["ci", "github", "-o", "evidence-plan.yml", "{extra}", "{plan}"])],
    "where": [("where", ["where", "--root", ".", "id"])],
    "next": [(f"next-{f}", ["next", "--format", f, "{extra}", "{plan}"]) for f in ("text", "json")],
    "graph": [(f"graph-{f}", ["graph", "--format", f, "{extra}", "{plan}"]) for f in ("mermaid", "dot", "svg", "json")],
    "diff": [(f"diff-{f}", ["diff", "--format", f, "{plan}", "{plan}"]) for f in ("text", "json")],
    "compile": [("compile", ["compile", "-o", "out", "{extra}", "{plan}"]),
                ("compile-html", ["compile", "-o", "out-html", "--html", "{extra}", "{plan}"])],
    "convert": [(f"convert-{f}", ["convert", "--no-verify-evidence", "{extra}", "{plan}", f"converted.{f}"])
                for f in ("json", "yaml", "md")],
    "render": [("render", ["render", "out/evidence-plan.json"]),
               ("render-html", ["render", "--html", "out/evidence-plan.json"])],
    "fix": [("fix-dry-run", ["fix", "--dry-run", "{extra}", "{plan}"])],
    "explain": [("explain", ["explain", "EP201", "dependency-cycle"])],  # reads no plan: the same in every folder
    "init": [("init", ["init", "--root", ".", "-o", "started.plan.yaml"])],  # a starter plan of the folder
    "approve": [("approve", ["approve", "{plan}", "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z"])],
    # The agent server, given its client's session on stdin (_mcp_session): the plan checked, fixed
    # (written nowhere) and asked for its next items, as a path and as a text.
    "mcp": [("mcp", ["mcp", "--root", "."])],
    # The editor server, given an editor's session on stdin (_lsp_session): the plan opened (checked
    # and published) and every question of an editor asked of its first lines.
    "lsp": [("lsp", ["lsp"])],
}


def _missing_recipes() -> list[str]:
    from compiler.commands import COMMANDS

    return sorted(set(COMMANDS) ^ set(RECIPES))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _mcp_session(folder: Path, plan: str) -> io.TextIOWrapper:
    from support import mcp_session

    text = (folder / plan).read_bytes().decode("utf-8", "replace")
    calls = [("tools/call", {"name": name, "arguments": arguments}) for name, arguments in (
        ("check_plan", {"path": plan}), ("check_plan", {"text": text}), ("fix_plan", {"path": plan}),
        ("next_items", {"path": plan}))]
    return io.TextIOWrapper(io.BytesIO(mcp_session(calls).encode("utf-8")), encoding="utf-8")


def _lsp_session(folder: Path, plan: str) -> io.TextIOWrapper:
    from support import lsp_questions, lsp_session

    path = folder.resolve() / plan
    asked = lsp_questions(path, path.read_bytes().decode("utf-8", "replace"), lines=30)
    return io.TextIOWrapper(io.BytesIO(lsp_session(folder.resolve(), [path], asked)), encoding="utf-8")


def _run(folder: Path, argv: list[str], stdin: io.TextIOWrapper | None = None) -> dict[str, object]:
    # the editor server writes framed bytes: its standard output has a buffer
    out: io.TextIOBase = io.TextIOWrapper(io.BytesIO(), encoding="utf-8") if argv[0] == "lsp" else io.StringIO()
    err = io.StringIO()
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    cwd = os.getcwd()
    os.chdir(folder)
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        sys.stdin = saved
        os.chdir(cwd)
    written = {str(p.relative_to(folder)): _digest(p.read_bytes()) for p in sorted(folder.rglob("*"))
               if p.is_file() and before.get(p) != p.stat().st_mtime_ns}
    stdout = out.buffer.getvalue().decode("utf-8") if isinstance(out, io.TextIOWrapper) else out.getvalue()
    if argv[0] in ("mcp", "lsp"):  # evidence always checked; a hint (an URI) may name the root: the folder of this run
        stdout = stdout.replace(os.path.realpath(folder), "$FOLDER")
    return {"exit": code, "stdout": _digest(stdout.encode("utf-8", "surrogateescape")),
            "stderr": _digest(err.getvalue().encode("utf-8", "surrogateescape")), "written": written}


def _plan_runs(name: str, folder: Path, plan: str, extra: list[str]) -> Iterator[tuple[str, dict[str, object]]]:
    for runs in RECIPES.values():
        for label, command in runs:
            if "out/evidence-plan.json" in command and not (folder / "out" / "evidence-plan.json").exists():
                continue
            argv: list[str] = []
            for word in command:
                argv += extra if word == "{extra}" else [plan] if word == "{plan}" else [word]
            session = {"mcp": _mcp_session, "lsp": _lsp_session}.get(argv[0])
            yield f"{name} {label}", _run(folder, argv, session(folder, plan) if session is not None else None)


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
    if _missing_recipes():
        print(f"fingerprint: no recipe for {', '.join(_missing_recipes())}, or a recipe for no command",
              file=sys.stderr)
        return 2
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
