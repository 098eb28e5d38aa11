"""No line the tool prints is a GitHub Actions workflow command, but its own annotations.

The judge is tests/runner_commands.py, the runner's own rules (both syntaxes, ``::`` at a line
start and ``##[`` anywhere; ordinal and ICU comparisons). Every command of the CLI group (listed
by the group itself, so that a new command fails here until it is covered) runs in every output
format (every choice of its options, every flag) on a workspace built to attack: plan text with
``::error::`` at line starts and ``##[`` anywhere, files named ``::warning file=README.md,line=1::
All checks passed``, a syntax error quoting such a line. Its stdout, its stderr and the files it
writes must hold no command, but for ``--format github``, where every line must be one of the
tool's own annotations, their data no command either. And the text must read the same: with the
neutraliser (U+2060, compiler/core/cilog.py) taken out of where it goes, the original text is there,
and no other raw U+2060 is. The same run over the whole hostile corpus is marked ``hostile``.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
import runner_commands as rc
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support import docs_page, git_repo, lsp_messages, lsp_questions, lsp_session, mcp_session

from compiler.cli import cli, main

HOSTILE = Path(__file__).resolve().parent / "hostile"

# The neutraliser, as docs/reference/input-safety.md documents it: U+2060 WORD JOINER.
N = "\u2060"
# .NET's Char.IsWhiteSpace less the line breaks: what TrimStart removes before a "::" on a line.
BLANK = "\t\x0b\x0c \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_COLONS = re.compile(f"(?:(?<=[\n\r])|\\A)([{BLANK}]*:)(?=:)")
_HASHES = re.compile("##(?=\\[)")
_SPOTS = re.compile(f"(?:(?<=[\n\r])|\\A)([{BLANK}]*:){N}(?=:)|##{N}(?=\\[)")


def guarded(text: str) -> str:
    """What the guard must make of ``text`` (the specification, independent of compiler.core.cilog):
    U+2060 inside each ``::`` that starts a line after white space and inside each ``##[``."""
    return _HASHES.sub("##" + N, _COLONS.sub(lambda m: m.group(1) + N, text))


def unguarded(text: str) -> str:
    """``text`` with the neutraliser taken out of the places ``guarded`` puts it."""
    return _SPOTS.sub(lambda m: m.group(1) or "##", text)


# --- the neutraliser ------------------------------------------------------------------------------------

def test_the_neutraliser_is_the_documented_invisible_character() -> None:
    from compiler.core import cilog, display

    assert cilog.NEUTRALISER == N
    assert unicodedata.category(N) == "Cf" and unicodedata.name(N) == "WORD JOINER"
    assert not re.fullmatch(f"[{rc.DOTNET_WHITE_SPACE}]", N)  # TrimStart keeps it
    assert display.escape(f"a{N}b") == "a\\u2060b"  # plan text never holds it raw where text is escaped
    assert "U+2060 WORD JOINER" in docs_page("reference/input-safety.md")


def test_the_guards_white_space_is_dotnets_less_the_line_breaks() -> None:
    from compiler.core import cilog

    dotnet = {c for c in map(chr, range(0x3001)) if re.fullmatch(f"[{rc.DOTNET_WHITE_SPACE}]", c)}
    for blank in (cilog._BLANK, BLANK):
        assert {c for c in map(chr, range(0x3001)) if re.fullmatch(f"[{blank}]", c)} == dotnet - {"\n", "\r"}


@pytest.mark.parametrize("text", [
    "::warning file=README.md,line=1::All checks passed", "  ::error::x", "a\n\u3000::error::x", "a\r::x::y",
    "x ##[warning]y", "###[error]", "##[##[", ":::", "a::b", "#", "::",
])
def test_neutralise_puts_the_character_where_the_runner_reads_a_command(text: str) -> None:
    from compiler.core.cilog import neutralise

    shown = neutralise(text)
    assert shown == guarded(text)
    assert unguarded(shown) == text
    assert not list(rc.command_lines(shown))


HOSTILE_ALPHABET = st.sampled_from([":", "::", "#", "##", "[", "]", " ", "\t", "\u3000", "\n", "\r", "a",
                                    "error", "warning ", "stop-commands", "\u200b", "\xad", N])


@pytest.mark.slow
@given(st.lists(HOSTILE_ALPHABET, max_size=24), st.lists(st.integers(0, 24), max_size=4))
@settings(max_examples=400, deadline=None)
def test_neutralised_text_holds_no_command_whatever_its_pieces(parts: list[str], cuts: list[int]) -> None:
    from compiler.core.cilog import Neutraliser, neutralise

    text = "".join(parts)
    whole = neutralise(text)
    assert whole == guarded(text)
    if N not in text:  # (plan text never holds it raw where text is shown: compiler.core.display escapes it)
        assert unguarded(whole) == text
    assert not list(rc.command_lines(whole)), repr(whole)
    pieces, at, stream = [], 0, Neutraliser()
    for cut in sorted({min(c, len(text)) for c in cuts}):
        pieces.append(stream(text[at:cut]))
        at = cut
    pieces.append(stream(text[at:]))
    assert "".join(pieces) == whole  # a command split between two writes is found too


@pytest.mark.slow
@given(st.recursive(st.lists(HOSTILE_ALPHABET, max_size=10).map("".join) | st.text(max_size=8) | st.integers(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12))
@settings(max_examples=150, deadline=None)
def test_json_and_yaml_hold_no_command_and_the_same_data(data: Any) -> None:
    from compiler.api.convert import dump_json, dump_yaml
    from compiler.core.cilog import json_safe, neutralise

    for text in (json_safe(json.dumps(data, ensure_ascii=False, indent=2)), dump_json(data)):
        assert json.loads(text) == data
        assert neutralise(text) == text  # nothing left for the guard to do
        assert not list(rc.command_lines(text))
    if isinstance(data, dict):
        text = dump_yaml(data)
        assert yaml.safe_load(text) == data
        assert neutralise(text) == text
        assert not list(rc.command_lines(text))


def test_a_long_yaml_value_folded_before_a_command_is_escaped() -> None:
    from compiler.api.convert import dump_yaml

    data = {"proof": "x" * 5000 + " ::error::e", "goal": "##[warning]g", "list": [" ::warning::w", "a::b"]}
    text = dump_yaml(data)
    assert yaml.safe_load(text) == data
    assert not list(rc.command_lines(text))
    assert "- a::b\n" in text  # a "::" that no line can start with is left plain


def test_the_tools_own_annotation_is_a_command_whose_data_is_none() -> None:
    from compiler.core.cilog import command

    line = command("error", [("file", "::warning file=README.md,line=1::x.yaml"), ("line", "3"), ("title", "EP301 x")],
                   "b depends on ##[warning]x\n::error::from a note\n  ::add-mask::y")
    for model in rc.MODELS:
        found = rc.parse(line.rstrip("\n"), model)
        assert found is not None and found.name == "error"
        assert found.properties == {"file": "::warning file=README.md,line=1::x.yaml", "line": "3", "title": "EP301 x"}
        assert unguarded(found.data) == "b depends on ##[warning]x\n::error::from a note\n  ::add-mask::y"
        assert not list(rc.command_lines(found.data))


# --- every command, every format ------------------------------------------------------------------------

HOSTILE_NAME = "::warning file=README.md,line=1::All checks passed"
FILES = {
    f"{HOSTILE_NAME}.py": "def main():\n    return 'needle ##[error]x'\n",
    "##[error]evil.py": "class Evil:\n    def run(self):\n        return 'needle'\n",
    "app.py": "def main():\n    return 'needle'\n",
    "README.md": "# Readme\n\n## Usage\n\nneedle\n",
}
READY = f"""\
plan: "##[group]hostile ##[warning]name"
goal: "x ##[error]goal"
items:
  - id: a
    change: |-
      one
      ::error::from the change
        ::warning file=README.md,line=1::All checks passed
    evidence:
      - app.py::main
      - app.py::main
      - {{path: "{HOSTILE_NAME}.py", symbol: main}}
      - {{path: "##[error]evil.py", contains: "needle"}}
    proof: |-
      true
      ::error::x
        ::warning file=README.md,line=1::All checks passed ##[error]y
  - id: gate
    kind: approval
    change: "##[warning]approve"
    evidence: [app.py]
    depends_on: [a]
    proof: make show
  - id: drop
    irreversible: true
    change: drop it ##[error]z
    evidence: [README.md::Usage]
    depends_on: [gate, gate]
    proof: "::error::one line"
"""
BLOCKED = """\
plan: blocked
items:
  - id: "a\\n::error::pwned"
    change: "::error::c ##[warning]d"
    evidence: ["app.py\\n::add-mask::secret", "##[error]missing.py:3"]
    depends_on: ["::warning::y", "b ##[error]z", "x\\r::error::cr"]
    proof: "  ::error::p"
"""
SYNTAX_ERROR = "plan: hostile\nitems:\n  - id: a\n    change: [x, ::error::pwned ##[warning]x\n"


@dataclass
class Workspace:
    root: Path
    ready: Path
    blocked: Path
    named: Path  # the ready plan under a file name that is a command, at the top (first on a line)
    broken: Path
    plans: tuple[Path, ...] = ()  # the plans each command runs on
    compiled: dict[str, Path] = field(default_factory=dict)  # plan -> its evidence-plan.json

    def rel(self, plan: Path) -> str:
        """``plan`` as named from the top of the workspace (the working folder of every run)."""
        return os.path.relpath(plan, self.root)

    def copy(self, plan: Path) -> str:
        """A fresh copy of ``plan`` (for the commands that edit a plan in place)."""
        n = len(list(self.root.glob("copy-*")))
        target = self.root / f"copy-{n}" / plan.name
        target.parent.mkdir()
        shutil.copyfile(plan, target)
        return self.rel(target)


def workspace(tmp: Path, plan: Path | None = None) -> Workspace:
    root = git_repo(tmp / "repo", FILES)
    (root / "plans").mkdir()
    ready = root / "plans" / "plan.yaml"
    ready.write_text(READY, encoding="utf-8")
    blocked = root / "plans" / "blocked.plan.yaml"
    blocked.write_text(BLOCKED, encoding="utf-8")
    named = root / f"{HOSTILE_NAME}.plan.yaml"
    named.write_text(READY, encoding="utf-8")
    broken = root / "plans" / "##[error]broken.plan.yaml"
    broken.write_text(SYNTAX_ERROR, encoding="utf-8")
    if plan is None:
        return Workspace(root, ready, blocked, named, broken, (ready, blocked, named, broken))
    corpus = root / "plans" / plan.name  # a file of the corpus is every command's plan
    shutil.copyfile(plan, corpus)
    return Workspace(root, corpus, blocked, corpus, corpus, (corpus,))


Recipe = Callable[[Workspace, list[str]], list[list[str]]]


def _plan_runs(command: str, *, compiled: bool = False) -> Recipe:
    """``command [OPTIONS] PLAN`` for each plan of the workspace (or its compiled JSON)."""
    def runs(ws: Workspace, options: list[str]) -> list[list[str]]:
        return [[command, *options, ws.rel(ws.compiled.get(str(p), p) if compiled else p)] for p in ws.plans]
    return runs


RECIPES: dict[str, Recipe] = {
    "approve": lambda ws, o: [["approve", ws.copy(ws.ready), "gate", "--by", "::error::x ##[warning]y", *o],
                              ["approve", ws.copy(ws.named), "drop", "--by", "me", *o]],
    "check": lambda ws, o: [["check", *o, *map(ws.rel, ws.plans)], ["check", *o, str(ws.root)], ["check", *o, "."]],
    "compile": lambda ws, o: [["compile", *o, ws.rel(p), "-o", f"out/{n}"] for n, p in enumerate(ws.plans)],
    "convert": lambda ws, o: [["convert", *o, ws.rel(p), "-"] for p in ws.plans],
    "diff": lambda ws, o: [["diff", *o, ws.rel(a), ws.rel(b)]
                           for a, b in ((ws.blocked, ws.named), (ws.ready, ws.blocked), (ws.broken, ws.ready))],
    "fix": lambda ws, o: [["fix", *o, ws.copy(p)] for p in ws.plans],
    "graph": _plan_runs("graph"),
    "next": _plan_runs("next"),
    "render": _plan_runs("render", compiled=True),
    "schema": lambda ws, o: [["schema", *o]],
    "explain": lambda ws, o: [["explain", *o, *([] if "--all" in o else ["EP201", "dependency-cycle"])]],
    "init": lambda ws, o: [["init", *o, "-o", "started.plan.yaml"]],  # cites what it finds: never a hostile name
    "symbols": lambda ws, o: [["symbols", "--root", ".", *o, *FILES]],
    "where": lambda ws, o: [["where", "--root", ".", *o, "needle"], ["where", "--root", ".", *o, "needle ##[error]x"]],
    # What would run, with each proof's text: the proofs themselves are not run here (tests/api/test_verify.py
    # holds what a proof prints to the same rule).
    "verify": lambda ws, o: [["verify", "--dry-run", *o, ws.rel(p)] for p in ws.plans],
    # The workflow, on stdout: every plan, the one whose file name holds commands too (refused: exit 2).
    "ci": lambda ws, o: [["ci", *o, "github", "-o", "-", ws.rel(p)] for p in ws.plans],
    # A client's session on stdin (mcp_stdin): every tool on every plan, as its path and as its text.
    "mcp": lambda ws, o: [["mcp", "--root", ".", *o]],
    # An editor's session on stdin (lsp_stdin): every plan opened, and every question asked of it.
    "lsp": lambda ws, o: [["lsp", *o]],
}
# Options that the recipes give themselves (every other option's choices and flags are runs).
GIVEN = {"approve": {"by"}, "compile": {"output_dir"}, "render": {"output"}, "graph": {"output"}, "init": {"output"},
         "verify": {"dry_run", "output_dir"}}


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(cli)
    found = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


def variants(name: str, command: click.Command) -> list[list[str]]:
    """The options of one run each: every choice of every option (and of a choice argument),
    every flag; and none (the defaults)."""
    out: list[list[str]] = [[]]
    for param in command.params:
        if param.name in GIVEN.get(name, set()):
            continue
        if isinstance(param.type, click.Choice):
            for choice in param.type.choices:
                out.append([str(choice)] if isinstance(param, click.Argument) else [param.opts[0], str(choice)])
        elif isinstance(param, click.Option) and param.is_flag:
            out.append([param.opts[0]])
    return [v for v in out if v or name != "schema"]


def mcp_stdin(ws: Workspace) -> io.TextIOWrapper:
    """What an agent sends the server (`mcp`): every tool, on every plan of the workspace, by path
    and by text, and the hostile file names and texts to find."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for plan in ws.plans:
        path = ws.rel(plan)
        text = plan.read_bytes().decode("utf-8", "replace")  # a client sends text: a file not UTF-8, replaced
        calls += [("tools/call", {"name": name, "arguments": arguments}) for name, arguments in (
            ("check_plan", {"path": path}), ("check_plan", {"text": text}), ("fix_plan", {"path": path}),
            ("fix_plan", {"text": text, "unsafe": True}), ("next_items", {"path": path}),
            ("diff_plans", {"old": {"path": ws.rel(ws.ready)}, "new": {"text": text}}))]
    calls += [("tools/call", {"name": name, "arguments": arguments}) for name, arguments in (
        ("find_evidence", {"text": "needle ##[error]x", "paths": list(FILES)}),
        ("find_evidence", {"text": "needle", "within": ["##[error]evil.py"]}),
        ("explain", {"code": "::error::EP201"}), ("check_plan", {"path": "##[error]missing.yaml"}))]
    calls.append(("resources/read", {"uri": "evidence-plan://plan-format"}))
    return io.TextIOWrapper(io.BytesIO(mcp_session(calls).encode("utf-8")), encoding="utf-8")


def lsp_stdin(ws: Workspace) -> io.TextIOWrapper:
    """What an editor sends the server (`lsp`): every plan opened (so checked and published), and
    every question of lsp_questions asked of each."""
    asked = [question for plan in ws.plans
             for question in lsp_questions(plan, plan.read_bytes().decode("utf-8", "replace"), lines=40)]
    return io.TextIOWrapper(io.BytesIO(lsp_session(ws.root, ws.plans, asked)), encoding="utf-8")


def runs(ws: Workspace) -> Iterator[list[str]]:
    for name, command in _commands().items():
        for options in variants(name, command):
            yield from RECIPES[name](ws, options)


def test_every_command_of_the_group_has_a_recipe() -> None:
    commands = _commands()
    assert set(commands) == set(RECIPES), "a command with no recipe here is not covered: add one to RECIPES"
    for name, command in commands.items():
        options = {p.name for p in command.params if isinstance(p, click.Option)}
        assert GIVEN.get(name, set()) <= options, name
    formats = {name: [v for v in variants(name, c) if v] for name, c in commands.items()}
    assert ["--format", "github"] in formats["check"] and ["--format", "github"] in formats["diff"]
    assert ["--html"] in formats["render"] and ["--to", "yaml"] in formats["convert"]


def _is_data(argv: list[str], text: str) -> bool:
    """Whether an output is data for programs (JSON, YAML, JSON-RPC lines), which must reach the
    guard already safe (the agent server's does not pass it: it writes its lines safe)."""
    if argv[0] == "mcp":
        return all(json.loads(line) for line in text.split("\n")[:-1])  # a line ends at \n only, as JSON-RPC's
    if argv[0] == "lsp":
        return bool(lsp_messages(text))  # framed messages, each body JSON
    if argv[0] == "convert" and "--to" in argv and argv[argv.index("--to") + 1] in ("yaml", "json"):
        return True
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def assert_safe(text: str, *, where: str, own: bool = False, data: bool = False, raw_plan: bool = False) -> None:
    """The promise for one output: no command (or, ``own``, only the tool's annotations, whose data
    holds none); the neutraliser where the runner would read a command and (unless the text holds
    plan text raw) nowhere else; data already safe, the guard having had nothing to do."""
    if own:
        for line in rc.lines(text):
            for model in rc.MODELS:
                found = rc.parse(line, model)
                assert found is not None and found.syntax == "::" and found.name in ("error", "warning", "notice"), \
                    (where, model.name, line[:300])
                assert not list(rc.command_lines(found.data)), (where, line[:300])
                assert N not in unguarded(found.data), (where, line[:300])
        for model in rc.MODELS:
            assert len(rc.commands(text, model)) == len(rc.lines(text)), where  # every one carried out
        return
    for n, line, found in rc.command_lines(text):
        raise AssertionError(f"{where}: line {n} is the workflow command {found}: {line[:300]!r}")
    assert guarded(unguarded(text)) == text, where  # the neutraliser is exactly where the runner would read one
    if data:
        assert guarded(text) == text, where  # already safe: the data is as the program wrote it
    elif not raw_plan:
        assert N not in unguarded(text), where  # and nowhere else: plan text's is escaped


@dataclass
class Output:
    argv: list[str]
    code: int
    out: str
    err: str
    files: dict[str, str]


def run_all(ws: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> list[Output]:
    monkeypatch.chdir(ws.root)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for n, plan in enumerate(ws.plans):
        folder = ws.root / "compiled" / str(n)
        main(["compile", str(plan), "-o", str(folder)])
        if (folder / "evidence-plan.json").exists():
            ws.compiled[str(plan)] = folder / "evidence-plan.json"
    capsys.readouterr()
    outputs = []
    for argv in runs(ws):
        out_dir = ws.root / "out"
        shutil.rmtree(out_dir, ignore_errors=True)
        if argv[0] == "mcp":
            monkeypatch.setattr(sys, "stdin", mcp_stdin(ws))
        elif argv[0] == "lsp":
            monkeypatch.setattr(sys, "stdin", lsp_stdin(ws))
        code = main(argv)
        out, err = capsys.readouterr()
        files = {str(p.relative_to(ws.root)): p.read_text(encoding="utf-8", errors="replace")
                 for p in sorted(out_dir.rglob("*")) if p.is_file()} if out_dir.exists() else {}
        outputs.append(Output(argv, code, out, err, files))
    return outputs


def check_outputs(outputs: list[Output]) -> None:
    for o in outputs:
        where = " ".join(o.argv)
        assert o.code in (0, 1, 2), (where, o.err[-2000:])
        assert "Traceback" not in o.err, where
        own = "--format" in o.argv and o.argv[o.argv.index("--format") + 1] == "github"
        data = _is_data(o.argv, o.out)
        assert_safe(o.out, where=f"{where} (stdout)", own=own, data=data, raw_plan=o.argv[0] in ("convert", "fix"))
        assert_safe(o.err, where=f"{where} (stderr)")
        for name, text in o.files.items():
            assert_safe(text, where=f"{where} ({name})", data=name.endswith(".json"))


@pytest.mark.slow
def test_no_command_prints_a_workflow_command_in_any_format(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path)
    outputs = run_all(ws, capsys, monkeypatch)
    check_outputs(outputs)
    ran = {o.argv[0] for o in outputs}
    assert ran == set(_commands())
    # The hostile text is there, as a person reads it, where the incident had it: first on a line.
    shown = {" ".join(o.argv): "\n" + unguarded(o.out + o.err) for o in outputs}
    check = shown[" ".join(["check", *map(ws.rel, ws.plans)])]
    assert f"\n{HOSTILE_NAME}.plan.yaml:14:12: warning EP107 a proof runs 3 commands" in check
    assert "\n 4 |     change: [x, ::error::pwned ##[warning]x\n" in check  # the source line under a syntax error
    assert "depends on unknown items: ::warning::y, b ##[error]z" in check
    assert f"\n{HOSTILE_NAME}.plan.yaml:14:12: warning EP107" in shown["check ."]  # found in a folder
    where = shown["where --root . needle"]
    # Quoted, as YAML needs them to paste back as themselves (a plain "##[error]..." is a comment).
    assert f"\n'{HOSTILE_NAME}.py:2'\n" in where and "\n'##[error]evil.py:3'\n" in where
    assert """{path: '##[error]evil.py', lines: 2-3, contains: "needle"}""" in where
    dry_run = next(text for argv, text in shown.items() if argv.startswith("fix --dry-run"))
    assert "\n       ::error::from the change\n" in dry_run  # a context line of the diff: the change's own line
    github = next(o for o in outputs if o.argv[:3] == ["check", "--format", "github"] and len(o.argv) > 5)
    assert len(rc.lines(github.out)) == len(list(rc.command_lines(github.out))) > 0
    page = next(o for o in outputs
                if o.argv[:2] == ["render", "--html"] and o.argv[2] == ws.rel(ws.compiled[str(ws.ready)]))
    assert "::error::x" in unguarded(page.out) and f":{N}:error::x" in page.out  # the proof's own line


def test_a_page_on_stdout_and_in_a_file_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    assert main(["compile", "--html", str(ws.ready), "-o", "out"]) == 0
    capsys.readouterr()
    for argv, name in ((["--html"], "page.html"), ([], "page.md")):
        assert main(["render", *argv, "out/evidence-plan.json"]) == 0
        stdout = capsys.readouterr().out
        assert main(["render", *argv, "out/evidence-plan.json", "-o", name]) == 0  # links from the same folder
        capsys.readouterr()
        assert (ws.root / name).read_text(encoding="utf-8") == stdout
    assert (ws.root / "out" / "evidence-plan.html").read_text(encoding="utf-8") == \
        (ws.root / "page.html").read_text(encoding="utf-8")
    page = (ws.root / "page.html").read_text(encoding="utf-8")
    assert f"\n:{N}:error::x\n" in page  # a line of the multi-line proof, shown as a line


def test_click_and_internal_errors_pass_the_guard(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "##[error]x"]) == 2
    assert main(["--no-such-option", "##[warning]y"]) == 2
    out, err = capsys.readouterr()
    assert "##[" not in out + err and f"##{N}[error]x" in err
    assert_safe(err, where="click")


def test_a_process_whose_locale_is_ascii_still_prints_plan_text(tmp_path: Path) -> None:
    """The guard stands in front of the stream click would write to (one that replaces what ASCII
    cannot hold), not of a raw ASCII stream: plan text that is not ASCII is no internal error."""
    import subprocess
    import sys

    plan = tmp_path / "plan.yaml"
    plan.write_text('items:\n  - {id: a, change: c, evidence: [x], proof: p, depends_on: ["café ##[warning]x"]}\n',
                    encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "compiler", "check", "--no-verify-evidence", str(plan)],
                          capture_output=True, env=env, timeout=60, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "unknown items: café ##\u2060[warning]x".encode() in done.stdout


# --- the whole corpus -----------------------------------------------------------------------------------

def _corpus() -> list[Path]:
    return sorted(p for p in HOSTILE.iterdir() if p.suffix in (".yaml", ".json") and p.name != "MANIFEST.tsv")


@pytest.mark.hostile
@pytest.mark.parametrize("plan", _corpus(), ids=lambda p: p.name)
def test_no_command_prints_a_workflow_command_on_the_corpus(plan: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if plan.stat().st_size > 200_000:
        pytest.skip("a large input: test_hostile.py bounds its work")
    ws = workspace(tmp_path, plan)
    check_outputs(run_all(ws, capsys, monkeypatch))

