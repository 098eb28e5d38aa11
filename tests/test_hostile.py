"""Hostile and broken input: clear errors, bounded work, nothing lost, nothing executed.

The corpus in tests/hostile/ (written by tests/hostile/make.py, expectations in MANIFEST.tsv) is
checked file by file: exit code, message fragment, ``FILE:LINE:COL``, an excerpt with a caret for
input errors, no traceback, no internal error, bounded work (counted in calls, tests/work.py: the
same on every run, however loaded the machine). Inputs too big to commit
(a 5 MB line, a million items, a file larger than the default --max-bytes) are generated here,
and the biggest run in a child process whose peak memory is measured.

Expectations are what the product must do. A case that fails because of a bug keeps its
expectation and is marked ``xfail(strict=True, reason="BUG: ...")``: fixing the bug turns it
into an unexpected pass, which fails the run until the mark is removed.
"""

from __future__ import annotations

import errno
import importlib.util
import io
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import lsp_messages, lsp_questions, lsp_session, mcp_replies, mcp_session
from work import calls_in, count
from work import command as counted_command

import compiler.serve.mcp  # noqa: F401 - the agent server's SDK, imported before no_exec: it subscripts subprocess.Popen
from compiler.cli import main

pytestmark = pytest.mark.hostile  # not in the inner loop: see pyproject.toml's markers

HOSTILE = Path(__file__).resolve().parent / "hostile"
REPO = HOSTILE.parent.parent
CHECK = ["check", "--format", "text", "--no-verify-evidence"]
# The work a command may do on one input, in calls (tests/work.py): the most any measures is 4.9
# million (a flow 10,000 levels deep), then 1.4 million (quadratic aliases), most a few thousand;
# worse than linear on an input of the corpus (up to 100 KB) or on the generated 5 MB ones is
# billions. (What the tests replaced: 5 s an input, 10 s for the 5 MB ones.)
CALL_LIMIT = 10_000_000
# How long a child process may run before it is ended: a guard against a hang, not a budget.
HANG_SECONDS = 120
MEMORY_LIMIT_MB = 500


def _load_make() -> Any:
    spec = importlib.util.spec_from_file_location("hostile_make", HOSTILE / "make.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


MAKE = _load_make()


@dataclass(frozen=True)
class Entry:
    file: str
    exit: int
    where: str
    args: tuple[str, ...]
    fragment: str
    what: str

    @property
    def path(self) -> Path:
        return HOSTILE / self.file


def _manifest() -> list[Entry]:
    entries = []
    for line in (HOSTILE / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        file, code, where, args, fragment, what = line.split("\t")
        entries.append(Entry(file, int(code), where, tuple(args.split()) if args != "-" else (), fragment, what))
    return entries


ENTRIES = _manifest()

# Known bugs: the expectation in the manifest stands; the case fails today.
KNOWN_BUGS = {
    "yaml-line-separator-in-comment.yaml": (
        "BUG (low; ruamel.yaml reads U+2028/U+2029/U+0085 as line breaks, as YAML 1.1 did): a comment holding "
        "U+2028 ends early and its rest is parsed as YAML, so a valid YAML 1.2 plan is refused with EP002"),
}
# Run in a child process with a memory cap: in-process a regression could take the test run down
# (a self-referential alias once looped until memory ran out).
ISOLATE = {"yaml-recursive-alias.yaml", "yaml-recursive-alias-mapping.yaml"}

# Input errors whose location has a line but whose output has no excerpt and caret.
EXCERPT_BUGS: dict[str, str] = {}
# Not text at all: a location, but no line worth showing.
NO_EXCERPT = {"yaml-utf16-le-bom.yaml", "json-utf16-be-bom.json", "yaml-utf32-bom.yaml"}

MARKERS = ("hostile-marker", "marker-", "ran-marker")  # what the corpus and the tests would create


def _param(entry: Entry, bugs: dict[str, str]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=bugs[entry.file])] if entry.file in bugs else []
    return pytest.param(entry, id=entry.file, marks=marks)


# --- helpers ------------------------------------------------------------------------------------


_EXEC_NAMES = {
    subprocess: ("Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"),
    os: ("system", "popen", "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe",
         "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe",
         "posix_spawn", "posix_spawnp", "fork", "forkpty"),
}


@pytest.fixture
def no_exec(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way Python runs a program, replaced by a recorder that fails: returns the calls."""
    calls: list[str] = []

    def guard(name: str) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            calls.append(f"{name}{args!r}")
            raise AssertionError(f"evidence-plan tried to run a program: {name}{args!r}")

        return refuse

    for module, names in _EXEC_NAMES.items():
        for name in names:
            if hasattr(module, name):
                monkeypatch.setattr(module, name, guard(f"{module.__name__}.{name}"))
    import pty

    monkeypatch.setattr(pty, "spawn", guard("pty.spawn"))
    import asyncio

    for name in ("create_subprocess_exec", "create_subprocess_shell"):
        monkeypatch.setattr(asyncio, name, guard(f"asyncio.{name}"))
    return calls


def run(capsys: pytest.CaptureFixture[str], *argv: str, counted: bool = True) -> tuple[int, str, str, int]:
    """main() in-process: (exit code, stdout, stderr, the calls it made: tests/work.py; 0 when not
    ``counted``). A first call's imports count too, so the count depends a little on what ran
    before; CALL_LIMIT is far above that."""
    if counted:
        work = count(lambda: main(list(argv)))
        code, calls = work.value, work.calls
    else:
        code, calls = main(list(argv)), 0
    out, err = capsys.readouterr()
    return code, out, err, calls


def assert_clean(output: str) -> None:
    assert "Traceback" not in output, output[:2000]
    assert "internal error" not in output, output[:2000]
    assert "Warning: " not in output, output[:2000]  # a library's warning, printed by Python


# What may not reach a terminal or a CI log raw: controls (but the line breaks we write), DEL and
# C1, line and paragraph separators, bidirectional controls (see compiler/core/display.py).
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
SCREEN = 1500  # characters: the longest line a message may take (a message is cut at 1,000)


def assert_displayable(output: str, *, messages: bool = True) -> None:
    """No line that GitHub Actions would run as a workflow command (``::`` at its start), no raw
    control character, and (for messages, not Markdown) no line longer than a screen."""
    for line in output.split("\n"):
        assert not line.startswith("::"), line[:200]
        assert _RAW.search(line) is None, repr(line[:200])
        if messages:
            assert len(line) <= SCREEN, line[:200]


def _memory_cap(limit: int) -> Callable[[], None]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return cap


_MEASURE = (
    "import resource, subprocess, sys\n"
    "p = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, capture_output=True, text=True,"
    " timeout=float(sys.argv[1]))\n"
    "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr)\n"
    "print(f'@@ {p.returncode} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}')\n"
)


@dataclass
class Child:
    code: int
    output: str
    calls: int
    peak_mb: float


def run_child(*argv: str, cwd: Path, cap: int = 2 * 1024**3, calls: bool = True) -> Child:
    """``python -m compiler ARGV`` in a grandchild, measured by a child (RUSAGE_CHILDREN covers
    exactly one process then): its exit code, output, calls (tests/work.py: the whole process,
    its imports too; 0 when not ``calls``) and peak memory. Address space is capped (2 GB) so
    that a runaway cannot take the machine down; the grandchild is ended after HANG_SECONDS."""
    counted = cwd / ".calls"
    grandchild = counted_command(counted, "-m", "compiler", *argv) if calls else [sys.executable, "-m", "compiler",
                                                                                 *argv]
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(HANG_SECONDS), *grandchild],
        capture_output=True, text=True, cwd=cwd, preexec_fn=_memory_cap(cap), timeout=HANG_SECONDS + 30,
        check=False, env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"},
    )
    match = re.search(r"@@ (-?\d+) (\d+)\s*$", proc.stdout)
    assert match is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    peak_kb = int(match.group(2))
    peak_mb = peak_kb / 1024 if sys.platform != "darwin" else peak_kb / 1024 / 1024
    made = 0
    if calls:
        made = calls_in(counted)
        counted.unlink()
    return Child(int(match.group(1)), proc.stdout[: match.start()] + proc.stderr, made, peak_mb)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- the corpus -------------------------------------------------------------------------------


def test_corpus_is_large_small_and_fresh() -> None:
    """At least 45 cases, under 2 MB, and exactly what make.py writes (regenerate with it)."""
    assert len(ENTRIES) >= 45
    files = [p for p in HOSTILE.iterdir() if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 2 * 1024 * 1024
    expected = MAKE.outputs()
    for name, content in expected.items():
        assert (HOSTILE / name).read_bytes() == content, f"{name} is stale: run python tests/hostile/make.py"
    listed = {e.file for e in ENTRIES}
    strays = {p.name for p in files} - listed - {"make.py", "MANIFEST.tsv"}
    assert not strays, f"files not in the manifest: {sorted(strays)}"
    assert {e.exit for e in ENTRIES} <= {0, 1, 2}
    assert all(MAKE.HERE / e.file == e.path for e in ENTRIES)


@pytest.mark.parametrize("entry", [_param(e, KNOWN_BUGS) for e in ENTRIES])
def test_corpus(entry: Entry, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                request: pytest.FixtureRequest) -> None:
    monkeypatch.chdir(tmp_path)  # a marker file, if anything ran, would land here
    no_exec: list[str] = []
    if entry.file in ISOLATE:
        child = run_child(*CHECK, *entry.args, str(entry.path), cwd=tmp_path, cap=768 * 1024**2)
        code, output, calls = child.code, child.output, child.calls
        assert child.peak_mb < MEMORY_LIMIT_MB
    else:
        no_exec = request.getfixturevalue("no_exec")
        code, out, err, calls = run(capsys, *CHECK, *entry.args, str(entry.path))
        output = out + err
    assert_clean(output)
    assert_displayable(output)
    assert code == entry.exit, output[:2000]
    assert entry.fragment in output, output[:2000]
    if entry.where != "-":
        assert f"{entry.path}:{entry.where}: " in output, output[:2000]
    assert calls < CALL_LIMIT
    assert not no_exec
    assert not list(tmp_path.iterdir()), "a command ran"


def _first_diagnostic(output: str, path: Path) -> list[str]:
    lines = output.splitlines()
    for n, line in enumerate(lines):
        if line.startswith(f"{path}:"):
            return lines[n:n + 3]
    return []


@pytest.mark.parametrize("entry", [_param(e, EXCERPT_BUGS) for e in ENTRIES
                                   if e.exit == 2 and e.file not in NO_EXCERPT and e.file not in ISOLATE])
def test_input_error_shows_the_line_and_a_caret(entry: Entry, capsys: pytest.CaptureFixture[str]) -> None:
    """FILE:LINE:COL: error CODE message, then `` N | the line`` and a caret under the column."""
    _code, out, err, _ = run(capsys, *CHECK, *entry.args, str(entry.path))
    head = _first_diagnostic(out + err, entry.path)
    assert head, out + err
    match = re.match(rf"{re.escape(str(entry.path))}:(\d+):(\d+): error EP0\d\d ", head[0])
    if match is None:  # no line: only EP007 (refused before reading) may do that
        assert " EP007 " in head[0], head[0]
        return
    line = match.group(1)
    assert len(head) == 3, head
    assert head[1].startswith(f" {line} | "), head
    gutter = head[1].index("|")
    assert head[2][:gutter + 1].strip() == "|" and head[2].rstrip().endswith("^"), head
    assert "\r" not in head[1]
    assert all(len(x) < 300 for x in head), "an excerpt is a window, not the whole line"


# --- every command on every input ----------------------------------------------------------------

# Each command of the CLI group, as it runs on a corpus file ({file}; without it, the file is the
# last argument): test_every_command_has_a_recipe holds the keys to the group's commands.
RECIPES: dict[str, list[list[str]]] = {
    "approve": [["approve", "{file}", "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z"]],
    "check": [["check", "--format", "json"], ["check", "--format", "github"], ["check", "--format", "sarif"]],
    "compile": [["compile", "-o", "out"], ["compile", "--no-verify-evidence", "-o", "out", "--html"]],
    "convert": [["convert", "--no-verify-evidence", "{file}", "out.json"],
                ["convert", "--no-verify-evidence", "{file}", "out.yaml"],
                ["convert", "--no-verify-evidence", "{file}", "out.md"]],
    "diff": [["diff", "{file}", "{file}"]],
    "explain": [["explain", "EP201"]],  # reads no plan, as schema
    "fix": [["fix", "--dry-run"], ["fix"]],
    "graph": [["graph", "--no-verify-evidence", "--format", f] for f in ("svg", "dot", "mermaid", "json")],
    "init": [["init", "--root", ".", "-o", "started.plan.yaml"]],  # a starter plan of the folder that holds the file
    "next": [["next", "--no-verify-evidence"]],
    "render": [["render"]],
    "schema": [["schema", "output"]],  # reads no plan: what it prints must survive nothing
    "symbols": [["symbols"]],
    "verify": [["verify", "--dry-run"]],  # runs nothing: the proofs of hostile plans are not ours to run
    # The workflow to a file (stdout would be taken for annotations: "github" is in the argv); outside a git
    # work tree a ready plan is refused (exit 2), after it is checked.
    "ci": [["ci", "github", "-o", "out/evidence-plan.yml"]],
    "where": [["where", "--root", ".", "{file}"]],  # the file's name, searched for in the folder
    # The agent server, its client's session on stdin (mcp_stdin): the file checked, fixed and asked
    # for its next items by path and by text; every request answered.
    "mcp": [["mcp", "--root", "."]],
    # The editor server, an editor's session on stdin (lsp_stdin): the file opened (checked and
    # published) and every question asked of its first lines; every request answered.
    "lsp": [["lsp"]],
}
COMMANDS = [argv for name in sorted(RECIPES) for argv in RECIPES[name]]


def mcp_stdin(plan: Path) -> io.TextIOWrapper:
    """A client's session with the agent server (`mcp`) on one plan: checked by path and by text,
    fixed, and asked for its next items."""
    text = plan.read_bytes().decode("utf-8", "replace")  # a client sends text: a file not UTF-8, replaced
    calls = [("tools/call", {"name": name, "arguments": arguments}) for name, arguments in (
        ("check_plan", {"path": plan.name}), ("check_plan", {"text": text}), ("fix_plan", {"path": plan.name}),
        ("next_items", {"path": plan.name}))]
    return io.TextIOWrapper(io.BytesIO(mcp_session(calls).encode("utf-8")), encoding="utf-8")


def lsp_stdin(plan: Path) -> tuple[io.TextIOWrapper, int]:
    """An editor's session with the editor server (`lsp`) on one plan, and how many requests it makes."""
    asked = lsp_questions(plan, plan.read_bytes().decode("utf-8", "replace"), lines=8)
    return io.TextIOWrapper(io.BytesIO(lsp_session(plan.parent, [plan], asked)), encoding="utf-8"), len(asked) + 2


def test_every_command_has_a_recipe() -> None:
    from compiler.commands import COMMANDS as GROUP

    assert sorted(RECIPES) == sorted(GROUP)


@pytest.mark.parametrize("entry", [_param(e, {})
                                   for e in ENTRIES if e.file not in ISOLATE])
def test_every_command_survives_the_corpus(entry: Entry, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           no_exec: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command (RECIPES: compile also --html, graph in every format, check in every format,
    convert to JSON, YAML and Markdown, fix and its dry run...): exit 0, 1 or 2, never a
    traceback or an internal error, never a program run, and at most CALL_LIMIT calls; no page
    holds a script or an event handler. A command that refuses an input check refuses (exit 2)
    stops where check stops, in reading it, whose calls test_corpus counts (measured on every such
    input: at most check's calls and 1,600 more, the SARIF report's): it is not counted again,
    which would triple this test's time."""
    monkeypatch.chdir(tmp_path)
    for command in COMMANDS:
        plan = tmp_path / entry.file
        shutil.copyfile(entry.path, plan)
        if "{file}" in command:
            argv = [c.replace("{file}", entry.file) for c in command]
            argv[1:1] = entry.args
        elif command[0] in ("schema", "explain", "init", "mcp", "lsp"):  # no plan argument (servers: the client's)
            argv = command
        else:
            argv = [*command, *entry.args, entry.file]
        requests = 0
        if argv[0] == "mcp":
            monkeypatch.setattr(sys, "stdin", mcp_stdin(plan))
        elif argv[0] == "lsp":
            session, requests = lsp_stdin(plan)
            monkeypatch.setattr(sys, "stdin", session)
        code, out, err, calls = run(capsys, *argv, counted=entry.exit != 2 and argv[0] != "lsp")
        if argv[0] == "mcp":
            assert sorted(mcp_replies(out)) == list(range(1, 6)), (code, out[-2000:], err[-2000:])
        elif argv[0] == "lsp":
            answered = sorted(m["id"] for m in lsp_messages(out) if "id" in m and "method" not in m)
            assert answered == list(range(1, requests + 1)), (code, out[-2000:], err[-2000:])
        if entry.exit == 2 and code != 2:  # it accepts what check refuses: its own work, counted
            shutil.copyfile(entry.path, plan)
            code, out, err, calls = run(capsys, *argv)
        assert_clean(out + err)
        assert code in (0, 1, 2), (argv, out[:1000], err[:1000])
        assert calls < CALL_LIMIT, argv
        assert_displayable(err)
        if "github" in argv:  # every line one of our annotations, and nothing else
            assert all(re.match(r"::(error|warning) ", line) for line in out.splitlines()), out[:1000]
        elif argv[0] in ("render", "fix"):
            assert_displayable(out, messages=argv[0] == "fix")
        for markdown in [*tmp_path.glob("out/*.md"), *tmp_path.glob("*.md")]:
            page = markdown.read_text(encoding="utf-8")
            assert_displayable(page, messages=False)
            assert re.search(r"\]\((?:javascript|data|vbscript|file):", page, re.IGNORECASE) is None
            for graph in re.findall(r"```mermaid\n(.*?)```", page, re.DOTALL):
                assert "%%" not in graph  # a directive, wherever it stands
            markdown.unlink()
        for html in tmp_path.glob("out/*.html"):
            page = html.read_text(encoding="utf-8")
            assert re.search(r"<script|<iframe|\son[a-z]+\s*=", page, re.IGNORECASE) is None, page[:2000]
            html.unlink()
        if argv[0] == "graph" and code == 0 and "svg" in argv:
            import xml.etree.ElementTree as ET

            ET.fromstring(out.encode("utf-8"))  # well-formed, whatever the plan holds
    assert not no_exec
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(MARKERS)]


_SUBPROCESS_SAMPLE = ["yaml-billion-laughs.yaml", "yaml-python-object-apply.yaml", "json-deep-10000.json",
                      "yaml-deep-flow-10000.yaml", "yaml-invalid-utf8.yaml", "yaml-nul-byte.yaml",
                      "yaml-utf16-le-bom.yaml", "json-nan.json", "yaml11-directive-yes.yaml", "yaml-marker-proof.yaml",
                      "yaml-quadratic-aliases.yaml", "json-huge-integer.json"]


@pytest.mark.parametrize("name", _SUBPROCESS_SAMPLE)
def test_corpus_through_a_real_process(name: str, tmp_path: Path) -> None:
    """The same answers from ``python -m compiler`` as a separate process, within the memory limit."""
    entry = next(e for e in ENTRIES if e.file == name)
    child = run_child(*CHECK, *entry.args, str(entry.path), cwd=tmp_path, calls=False)
    assert_clean(child.output)
    assert child.code == entry.exit, child.output
    assert entry.fragment in child.output
    assert child.peak_mb < MEMORY_LIMIT_MB
    assert not list(tmp_path.iterdir())


# A 200 KB comment line: the file is large, yet small enough for the strict YAML reader
# (Limits.max_reference_chars), so that every answer is the one the small file gets.
PAD = "# " + "padding " * 25_000 + "\n"


def _paddable(entry: Entry) -> bool:
    content = entry.path.read_bytes()
    if not entry.file.endswith(".yaml") or content.startswith(b"\xef\xbb\xbf") or b"%YAML" in content:
        return False
    if entry.file in ISOLATE or entry.file in {"yaml-empty.yaml", "yaml-whitespace-only.yaml",
                                               "yaml-cr-only-error.yaml"}:
        return False
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in content[:2]


@pytest.mark.parametrize("entry", [_param(e, KNOWN_BUGS) for e in ENTRIES if _paddable(e)])
def test_corpus_behind_a_large_comment(entry: Entry, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       no_exec: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The YAML cases again, each after a 200 KB comment line: the answers must not depend on the
    size of the file (below the strict reader's bound), only move one line down."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / entry.file
    path.write_bytes(PAD.encode() + entry.path.read_bytes())
    code, out, err, calls = run(capsys, *CHECK, *entry.args, str(path))
    output = out + err
    assert_clean(output)
    assert code == entry.exit, output[:2000]
    fragment = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + 1}", entry.fragment)
    assert fragment in output, output[:2000]
    if entry.where != "-":
        line, column = entry.where.split(":")
        assert f"{path}:{int(line) + 1}:{column}: " in output, output[:2000]
    assert calls < CALL_LIMIT
    assert not no_exec
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(MARKERS)]


@pytest.mark.parametrize("name", ["yaml-recursive-alias.yaml", "yaml-recursive-alias-mapping.yaml"])
def test_recursive_alias_behind_a_large_comment(name: str, tmp_path: Path) -> None:
    """The cycle again, in a file large enough for the libyaml path: EP005, bounded memory."""
    path = tmp_path / name
    path.write_bytes(PAD.encode() + (HOSTILE / name).read_bytes())
    child = run_child(*CHECK, str(path), cwd=tmp_path, cap=768 * 1024**2)
    assert_clean(child.output)
    assert child.code == 2 and "EP005" in child.output
    assert child.calls < CALL_LIMIT and child.peak_mb < MEMORY_LIMIT_MB


# --- generated big inputs: time and memory --------------------------------------------------------

FIVE_MB = 5 * 1024 * 1024


def _five_mb_plans(tmp_path: Path) -> dict[str, tuple[Path, int, str]]:
    filler = "x" * FIVE_MB
    plans = {
        "yaml-valid": ("long.yaml", f"items:\n  - id: a\n    change: {filler}\n    evidence: [app.py]\n    proof: p\n",
                       0, "1 ready"),
        "yaml-error-at-end": ("long-error.yaml",
                              f"items:\n  - id: a\n    change: {filler}: y\n    evidence: [app.py]\n    proof: p\n",
                              2, "EP002"),
        "json-valid": ("long.json", '{"items": [{"id": "a", "change": "' + filler
                       + '", "evidence": ["app.py"], "proof": "p"}]}', 0, "1 ready"),
        "json-error-at-end": ("long-error.json", '{"items": [{"id": "a", "change": "' + filler
                              + '", "evidence": ["app.py"] "proof": "p"}]}', 2, "EP002"),
    }
    out = {}
    for key, (name, text, code, fragment) in plans.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        out[key] = (path, code, fragment)
    return out


@pytest.mark.parametrize("kind", ["yaml-valid", "yaml-error-at-end", "json-valid", "json-error-at-end"])
def test_a_5mb_single_line(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, expected, fragment = _five_mb_plans(tmp_path)[kind]
    code, out, err, calls = run(capsys, *CHECK, str(path))
    assert_clean(out + err)
    assert code == expected and fragment in out + err
    assert calls < CALL_LIMIT
    assert max(len(line) for line in (out + err).splitlines()) < 300  # the excerpt is a window


def _long_yaml_plan(items: int) -> str:
    return "items:\n" + "".join(f"  - id: i{n}\n    change: Do {n}\n    evidence: [app.py]\n    proof: make {n}\n"
                                for n in range(items))


@pytest.mark.parametrize(("tail", "code", "fragment", "where"), [
    ("extra:\tx\n", 2, "EP005 a tab in a YAML plan of more than 262,144 characters", "1:7"),
    ("  - &a {id: anchored, change: c, evidence: [a], proof: p}\n  - *a\n", 2, "EP005 an anchor (&name)", "1:5"),
    ("  - id: x\n  change: broken\n", 2, "EP002 invalid YAML", "2:3"),
    ("  - {id: tagged, change: !!python/object:os.system x, evidence: [a], proof: p}\n", 2,
     "EP005 an explicit tag (!tag)", "1:26"),
])
def test_a_long_yaml_plan_the_fast_reader_is_not_sure_of_is_answered_quickly(
        tail: str, code: int, fragment: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ruamel.yaml, the strict reader, reads 70-300 KB a second: a 5 MB plan with one tab took
    15 s of CPU, a plan at --max-bytes an hour. Past 256 KiB, libyaml's answer is given instead:
    its own error, or what it leaves to the strict reader, where it is."""
    head = _long_yaml_plan(30_000)
    assert len(head) > 8 * (1 << 18)  # eight times the limit: 10 s or more of the strict reader
    path = tmp_path / "long.yaml"
    path.write_text(head + tail, encoding="utf-8")
    code_, out, err, calls = run(capsys, *CHECK, str(path))
    assert_clean(out + err)
    assert code_ == code and fragment in out, out[:2000]
    line, column = where.split(":")
    assert f"{path}:{head.count(chr(10)) + int(line)}:{column}: " in out, out[:2000]
    assert calls < CALL_LIMIT


def test_a_5mb_id_gives_a_short_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "long-id.yaml"
    path.write_text(f"items:\n  - id: {'x' * FIVE_MB}\n    change: c\n    evidence: [app.py]\n    proof: p\n",
                    encoding="utf-8")
    code, out, err, calls = run(capsys, *CHECK, str(path))
    assert code == 1 and "EP015" in out and calls < CALL_LIMIT
    assert len(out + err) < 10_000


def test_peak_memory_of_the_biggest_inputs(tmp_path: Path) -> None:
    """The largest inputs, each in its own process: below a few hundred MB, within CALL_LIMIT."""
    plans = _five_mb_plans(tmp_path)
    cases: list[tuple[list[str], int]] = [
        ([str(plans["yaml-valid"][0])], 0),
        ([str(plans["yaml-error-at-end"][0])], 2),
        ([str(plans["json-error-at-end"][0])], 2),
        ([str(HOSTILE / "yaml-billion-laughs.yaml")], 2),
        ([str(HOSTILE / "yaml-quadratic-aliases.yaml")], 2),
        ([str(HOSTILE / "yaml-deep-flow-10000.yaml")], 2),
        ([str(HOSTILE / "json-deep-objects-10000.json")], 2),
    ]
    for argv, expected in cases:
        child = run_child(*CHECK, *argv, cwd=tmp_path)
        assert_clean(child.output)
        assert child.code == expected, (argv, child.output[:1000])
        assert child.calls < CALL_LIMIT, (argv, child.calls)
        assert child.peak_mb < MEMORY_LIMIT_MB, (argv, child.peak_mb)


def test_default_max_items_refuses_a_million_and_one(tmp_path: Path) -> None:
    """The default --max-items (1,000,000) in a real process: EP008, bounded work and memory. The
    refusal locates `items` by scanning the whole file's positions: 9.1 calls an item measured
    (the process's imports among them), at most 15."""
    path = tmp_path / "million.json"
    path.write_text('{"items": [' + ", ".join(["{}"] * 1_000_001) + "]}\n", encoding="utf-8")
    child = run_child(*CHECK, str(path), cwd=tmp_path)
    assert_clean(child.output)
    assert child.code == 2 and "EP008 more than 1,000,000 items" in child.output
    assert child.peak_mb < MEMORY_LIMIT_MB
    assert child.calls < 15 * 1_000_001


@pytest.mark.parametrize(("items", "entry"), [(100_001, "- {}\n"), (1_000_001, "  - {}\n")], ids=["500KB", "7MB"])
def test_max_items_refuses_a_long_yaml_list_quickly(items: int, entry: str, tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text("items:\n" + entry * items, encoding="utf-8")
    child = run_child(*CHECK, "--max-items", "10", str(path), cwd=tmp_path)
    assert child.code == 2 and "EP008 more than 10 items" in child.output
    assert child.calls < CALL_LIMIT
    assert child.peak_mb < MEMORY_LIMIT_MB


def test_default_max_bytes_is_checked_before_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A 300 MiB file (sparse: no disk used) is refused by its size, without being opened."""
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    import compiler.load.read

    def no_open(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"opened {args!r}")

    monkeypatch.setattr(compiler.load.read, "open", no_open, raising=False)  # shadows the builtin there
    code, out, _err, calls = run(capsys, *CHECK, str(path))
    assert code == 2 and "EP007 larger than 268,435,456 bytes" in out
    assert "--max-bytes" in out
    assert calls < CALL_LIMIT
    child = run_child(*CHECK, str(path), cwd=tmp_path, calls=False)
    assert child.code == 2 and child.peak_mb < 100


def test_max_bytes_bounds_standard_input(tmp_path: Path) -> None:
    """An endless stdin (/dev/zero) is read only up to --max-bytes, then refused."""
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([sys.executable, "-m", "compiler", *CHECK, "--max-bytes", "100000", "-"],
                              stdin=zero, capture_output=True, text=True, timeout=HANG_SECONDS, cwd=tmp_path,
                              check=False)
    assert proc.returncode == 2
    assert "EP007 larger than 100,000 bytes" in proc.stdout
    assert_clean(proc.stdout + proc.stderr)


@pytest.mark.parametrize("kind", ["fifo", "device-link"])
def test_a_plan_that_is_not_a_regular_file_is_never_read(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         deadline: None) -> None:
    """A FIFO (which would block) or a link to an endless device: EP001, at once."""
    path = tmp_path / "plan.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    code, out, _err, calls = run(capsys, *CHECK, str(path))  # an open of the FIFO would block: the deadline ends it
    assert code == 2 and "EP001" in out and "not a regular file" in out
    assert calls < CALL_LIMIT


@pytest.mark.parametrize(("option", "value"), [("--max-bytes", "0"), ("--max-items", "0"), ("--max-items", "x")])
def test_bad_limit_options_are_usage_errors(option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, _ = run(capsys, *CHECK, option, value, str(HOSTILE / "yaml-utf8-bom.yaml"))
    assert code == 2 and option in err
    assert_clean(out + err)


# --- cosmetic message bugs -----------------------------------------------------------------------


def test_a_null_document_is_not_called_comments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "null.yaml"
    path.write_text("null\n", encoding="utf-8")
    code, out, _err, _ = run(capsys, *CHECK, str(path))
    assert code == 2 and "EP004" in out
    assert "comments" not in out


def test_json_unterminated_string_message_reads_well(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err, _ = run(capsys, *CHECK, str(HOSTILE / "json-unclosed-string.json"))
    assert code == 2
    first = out.splitlines()[0]
    assert not first.rstrip().endswith(" at"), first


# --- never executes --------------------------------------------------------------------------------

MARKER_PLAN = """\
plan: markers
items:
  - id: touch
    change: A proof that would create a marker
    evidence: [app.py:1]
    proof: touch marker-touch
  - id: python
    change: A proof in Python
    evidence: [app.py:1]
    depends_on: [touch, touch]
    proof: python3 -c 'open("marker-python", "w").close()'
  - id: substitution
    change: A proof hidden in a substitution
    evidence: [app.py:1]
    depends_on: [python]
    proof: echo $(touch marker-substitution) `touch marker-backtick`
  - id: evidence
    change: Evidence that looks like a command
    evidence: ["$(touch marker-evidence)", "app.py:1"]
    proof: sh -c 'touch marker-sh'
"""


def _marker_workspace(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("print('app')\n", encoding="utf-8")
    (tmp_path / "plan.yaml").write_text(MARKER_PLAN, encoding="utf-8")
    shutil.copyfile(HOSTILE / "yaml-python-object-apply.yaml", tmp_path / "tagged.yaml")
    return tmp_path


def _markers(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if p.name.startswith(MARKERS))


MARKER_COMMANDS: list[tuple[list[str], set[int]]] = [
    (["compile", "plan.yaml"], {1}),
    (["compile", "--no-verify-evidence", "plan.yaml", "-o", "build"], {0}),
    (["check", "plan.yaml"], {1}),
    (["check", "--format", "json", "--no-verify-evidence", "plan.yaml"], {0}),
    (["check", "--format", "sarif", "plan.yaml", "tagged.yaml"], {2}),
    (["render", "build/evidence-plan.json"], {0}),
    (["render", "build/evidence-plan.json", "-o", "PLAN.md"], {0}),
    (["convert", "--no-verify-evidence", "plan.yaml", "plan.json"], {0}),
    (["convert", "--no-verify-evidence", "plan.json", "again.yaml"], {0}),
    (["convert", "--no-verify-evidence", "plan.yaml", "plan.md"], {0}),
    (["convert", "plan.yaml", "-", "--to", "md"], {0}),
    (["schema"], {0}),
    (["schema", "input"], {0}),
    (["schema", "output"], {0}),
    (["fix", "--dry-run", "plan.yaml"], {1}),
    (["fix", "plan.yaml"], {1}),
    (["fix", "tagged.yaml"], {2}),
    (["compile", "tagged.yaml"], {2}),
    (["convert", "tagged.yaml", "tagged.json"], {2}),
]


def test_no_command_ever_runs_a_program(tmp_path: Path, capsys: pytest.CaptureFixture[str], no_exec: list[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Proofs that would create marker files, a Python tag that would call os.system: every
    command, with subprocess, os.system, os.exec*, os.spawn*, os.popen and fork patched to fail."""
    folder = _marker_workspace(tmp_path)
    monkeypatch.chdir(folder)
    for argv, codes in MARKER_COMMANDS:
        code, out, err, _ = run(capsys, *argv)
        assert_clean(out + err)
        assert code in codes, (argv, out[:1500], err[:1500])
        assert not no_exec, (argv, no_exec)
        assert not _markers(folder), (argv, _markers(folder))
    fixed = (folder / "plan.yaml").read_text(encoding="utf-8")
    assert fixed.count("touch, touch") == 0 and "depends_on: [touch]" in fixed  # fix did write


def test_no_command_runs_a_program_in_a_real_process(tmp_path: Path) -> None:
    """The same commands as separate processes, with a PATH whose every likely program (touch, sh,
    bash, python3, git, make, echo) only leaves a marker: nothing may appear."""
    (tmp_path / "work").mkdir()
    folder = _marker_workspace(tmp_path / "work")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("touch", "sh", "bash", "dash", "python3", "python", "git", "make", "echo", "env"):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\n: > '{tmp_path}/ran-marker-{name}'\n", encoding="utf-8")
        script.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO)}
    for argv, codes in MARKER_COMMANDS:
        proc = subprocess.run([sys.executable, "-m", "compiler", *argv], capture_output=True, text=True,
                              cwd=folder, env=env, timeout=60, check=False)
        assert_clean(proc.stdout + proc.stderr)
        assert proc.returncode in codes, (argv, proc.stdout[:1000], proc.stderr[:1000])
        assert not _markers(tmp_path), (argv, _markers(tmp_path))


# --- nothing lost ----------------------------------------------------------------------------------

GOOD = """\
plan: keep
items:
  - id: a
    change: Do a
    evidence: [app.py:1]
    proof: make a
  - id: b
    change: Do b
    evidence: [app.py:1]
    depends_on: [a]
    proof: make b
"""


@pytest.fixture
def compiled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, dict[str, bytes]]:
    """A plan compiled into out/: (plan, out folder, the artifacts' bytes)."""
    (tmp_path / "app.py").write_text("print('app')\n", encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text(GOOD, encoding="utf-8")
    out_dir = tmp_path / "out"
    code, _out, err, _ = run(capsys, "compile", str(plan), "-o", str(out_dir))
    assert code == 0, err
    artifacts = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    assert set(artifacts) == {"evidence-plan.json", "evidence-plan.md"}
    return plan, out_dir, artifacts


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


BAD_INPUTS: dict[str, bytes | None] = {
    "syntax-error": b"items:\n  - id: a\n\tchange: tab\n",
    "not-a-plan": b"just text\n",
    "empty": b"",
    "not-utf8": b"items:\n  - id: caf\xe9\n",
    "utf16": "\ufeffitems: []\n".encode("utf-16-le"),
    "nul-byte": b"items: [\x00]\n",
    "python-tag": b"items:\n  - !!python/object/apply:os.system ['touch marker']\n",
    "alias-bomb": (HOSTILE / "yaml-billion-laughs.yaml").read_bytes(),
    "duplicate-key": b"items: []\nitems: []\n",
    "deleted": None,
}


@pytest.mark.parametrize("kind", list(BAD_INPUTS))
def test_an_input_error_after_a_compile_leaves_both_artifacts(kind: str, compiled: tuple[Path, Path, dict[str, bytes]],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    plan, out_dir, before = compiled
    content = BAD_INPUTS[kind]
    if content is None:
        plan.unlink()
    else:
        plan.write_bytes(content)
    code, out, err, _ = run(capsys, "compile", str(plan), "-o", str(out_dir))
    assert code == 2, err
    assert_clean(out + err)
    assert re.search(r"error EP00\d ", err), err
    assert _snapshot(out_dir) == before


@pytest.mark.parametrize(("option", "value"), [("--max-bytes", "10"), ("--max-items", "1")])
def test_a_limit_after_a_compile_leaves_both_artifacts(option: str, value: str,
                                                       compiled: tuple[Path, Path, dict[str, bytes]],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    plan, out_dir, before = compiled
    code, _out, err, _ = run(capsys, "compile", option, value, str(plan), "-o", str(out_dir))
    assert code == 2 and ("EP007" in err or "EP008" in err)
    assert _snapshot(out_dir) == before


def _failing(real: Callable[..., Any], fail_on: int, error: BaseException) -> Callable[..., Any]:
    calls = {"n": 0}

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == fail_on:
            raise error
        return real(*args, **kwargs)

    return wrapper


def _change_plan(plan: Path) -> None:
    plan.write_text(GOOD.replace("Do b", "Do b, differently"), encoding="utf-8")


@pytest.mark.parametrize(("target", "fail_on"), [("fsync", 1), ("fsync", 2), ("replace", 1)])
def test_a_failing_write_keeps_the_previous_artifacts(target: str, fail_on: int,
                                                      compiled: tuple[Path, Path, dict[str, bytes]],
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while writing the first or the second file, or a rename that fails: exit 2 with a
    clear message (not 3), both previous files intact, no temporary file left."""
    plan, out_dir, before = compiled
    _change_plan(plan)
    monkeypatch.setattr(os, target, _failing(getattr(os, target), fail_on,
                                             OSError(errno.ENOSPC, "No space left on device")))
    code, out, err, _ = run(capsys, "compile", str(plan), "-o", str(out_dir))
    assert code == 2, err
    assert_clean(out + err)
    assert "cannot write" in err and "No space left on device" in err
    assert _snapshot(out_dir) == before
    assert leftovers(out_dir) == []


def test_a_rename_failing_between_the_two_files_leaves_whole_files(compiled: tuple[Path, Path, dict[str, bytes]],
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The second rename fails: each artifact is a whole file (old or new), never half of one, and
    no temporary file is left. (The pair may then mix versions: renames are atomic one by one.)"""
    plan, out_dir, before = compiled
    _change_plan(plan)
    code, _, _, _ = run(capsys, "compile", str(plan), "-o", str(tmp := out_dir.parent / "fresh"))
    after = _snapshot(tmp)
    monkeypatch.setattr(os, "replace", _failing(os.replace, 2, OSError(errno.EIO, "Input/output error")))
    code, out, err, _ = run(capsys, "compile", str(plan), "-o", str(out_dir))
    assert code == 2 and "cannot write" in err
    assert_clean(out + err)
    for name, content in _snapshot(out_dir).items():
        assert content in (before[name], after[name]), name
    assert leftovers(out_dir) == []


def test_an_interrupted_write_keeps_the_previous_artifacts(compiled: tuple[Path, Path, dict[str, bytes]],
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of writing: exit 130, previous files intact, no temporary file left."""
    plan, out_dir, before = compiled
    _change_plan(plan)
    monkeypatch.setattr(os, "fsync", _failing(os.fsync, 2, KeyboardInterrupt()))
    code, out, err, _ = run(capsys, "compile", str(plan), "-o", str(out_dir))
    assert code == 130 and ("interrupted" in err or "aborted" in err)
    assert "Traceback" not in out + err
    assert _snapshot(out_dir) == before
    assert leftovers(out_dir) == []


def test_an_output_folder_that_is_a_file_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "app.py").write_text("x\n", encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text(GOOD, encoding="utf-8")
    blocker = tmp_path / "out"
    blocker.write_text("not a folder\n", encoding="utf-8")
    code, _out, err, _ = run(capsys, "compile", str(plan), "-o", str(blocker))
    assert code == 2 and "not a folder" in err
    assert blocker.read_text(encoding="utf-8") == "not a folder\n"


FIXABLE = """\
# a comment that fix must keep
plan: fixme
items:
  - id: a
    change: Do a
    evidence: [app.py:1]
    proof: make a
  - id: b
    change: Do b
    evidence: [app.py:1]
    depends_on:
      - a
      - a
    proof: make b
"""


@pytest.fixture
def fixable(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("print('app')\n", encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text(FIXABLE, encoding="utf-8")
    return plan


def test_fix_repairs_in_place(fixable: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The baseline for the tests below: fix removes the repeated dependency, keeps the rest."""
    code, _out, err, _ = run(capsys, "fix", str(fixable))
    assert code == 0, err
    assert fixable.read_text(encoding="utf-8") == FIXABLE.replace("      - a\n      - a\n", "      - a\n")
    assert leftovers(fixable.parent) == []


@pytest.mark.parametrize(("target", "error"), [
    ("fsync", OSError(errno.ENOSPC, "No space left on device")),
    ("replace", OSError(errno.EACCES, "Permission denied")),
])
def test_a_failing_fix_keeps_the_original(target: str, error: OSError, fixable: Path,
                                          capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, target, _failing(getattr(os, target), 1, error))
    code, out, err, _ = run(capsys, "fix", str(fixable))
    assert code == 2, err
    assert_clean(out + err)
    assert "cannot write" in err and error.strerror in err
    assert fixable.read_text(encoding="utf-8") == FIXABLE
    assert leftovers(fixable.parent) == []


def test_an_interrupted_fix_keeps_the_original(fixable: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "fsync", _failing(os.fsync, 1, KeyboardInterrupt()))
    code, _out, _err, _ = run(capsys, "fix", str(fixable))
    assert code == 130
    assert fixable.read_text(encoding="utf-8") == FIXABLE
    assert leftovers(fixable.parent) == []


def test_fix_that_would_change_the_meaning_writes_nothing(fixable: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """fix's safety net: when the edited text does not read back as intended, nothing is written."""
    import compiler.api.fix

    real = compiler.api.fix.apply_text_edits
    monkeypatch.setattr(compiler.api.fix, "apply_text_edits",
                        lambda text, edits, file: real(text, edits, file).replace("Do a", "Do z"))
    code, out, err, _ = run(capsys, "fix", str(fixable))
    assert code == 1 and "nothing was written" in err
    assert_clean(out + err)
    assert fixable.read_text(encoding="utf-8") == FIXABLE


@pytest.mark.parametrize("content", [b"items:\n  - id: a\n\tchange: tab\n", b"\xff\xfe", b"items: &a [x, *b]\n"])
def test_fix_on_unreadable_input_keeps_the_file(content: bytes, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(content)
    code, out, err, _ = run(capsys, "fix", str(plan))
    assert code == 2
    assert_clean(out + err)
    assert plan.read_bytes() == content
    assert leftovers(tmp_path) == []


def test_fix_keeps_a_byte_order_mark(fixable: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixable.write_bytes(b"\xef\xbb\xbf" + FIXABLE.encode("utf-8"))
    code, _, err, _ = run(capsys, "fix", str(fixable))
    assert code == 0, err
    assert fixable.read_bytes() == b"\xef\xbb\xbf" + FIXABLE.replace("      - a\n      - a\n", "      - a\n").encode()


def test_fix_keeps_crlf_line_endings(fixable: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixable.write_bytes(FIXABLE.replace("\n", "\r\n").encode("utf-8"))
    code, _, err, _ = run(capsys, "fix", str(fixable))
    assert code == 0, err
    fixed = FIXABLE.replace("      - a\n      - a\n", "      - a\n")
    assert fixable.read_bytes() == fixed.replace("\n", "\r\n").encode()


def test_fix_keeps_the_file_mode(fixable: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixable.chmod(0o600)
    code, _, err, _ = run(capsys, "fix", str(fixable))
    assert code == 0, err
    assert stat.S_IMODE(fixable.stat().st_mode) == 0o600


def test_fix_through_a_symlink_edits_the_real_plan(fixable: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = fixable.parent / "link.yaml"
    link.symlink_to(fixable.name)
    code, _, err, _ = run(capsys, "fix", str(link))
    assert code == 0, err
    assert link.is_symlink()
    assert fixable.read_text(encoding="utf-8") == FIXABLE.replace("      - a\n      - a\n", "      - a\n")


@pytest.mark.parametrize("dry_run", [False, True])
def test_fix_on_deeply_nested_json(dry_run: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "app.py").write_text("x\n", encoding="utf-8")
    deep = "[" * 600 + "]" * 600
    item_a = '{"id": "a", "change": "c", "evidence": ["app.py"], "proof": "p", "depends_on": ["b", "b"]}'
    item_b = '{"id": "b", "change": "c", "evidence": ["app.py"], "proof": "p"}'
    plan = tmp_path / "evidence-plan.json"
    plan.write_text(f'{{"format": "evidence-plan/1", "issues": {deep}, "items": [{item_a}, {item_b}]}}\n',
                    encoding="utf-8")
    before = plan.read_bytes()
    code, out, err, _ = run(capsys, "fix", *(["--dry-run"] if dry_run else []), str(plan))
    assert_clean(out + err)
    assert code in (0, 1, 2), err
    if dry_run:
        assert plan.read_bytes() == before


def test_a_long_plan_past_max_items_is_ep008_on_the_strict_path_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Found by fuzzing the reference path: asking libyaml why it was not sure of a long file
    (a tab) must say EP008 when the item list is too long, not fail on it."""
    import compiler.load.fastyaml

    monkeypatch.setattr(compiler.load.fastyaml, "parse", lambda *a, **k: None)
    path = tmp_path / "long.yaml"
    path.write_text(_long_yaml_plan(3_000) + "x:\ty\n", encoding="utf-8")
    code, out, err, _ = run(capsys, *CHECK, "--max-items", "10", str(path))
    assert_clean(out + err)
    assert (code, f"{path}:1:1: error EP008 more than 10 items" in out) == (2, True), out[:2000]
