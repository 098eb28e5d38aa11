"""The case corpus: tests/cases/<name>/ holds one plan (plan.yaml or plan.json), expected.txt, and
the repository files the plan cites as evidence.

Each case runs as

    evidence-plan check --format text --root . plan.yaml

from the case folder, so the case folder *is* the repository root: evidence such as
``app/accounts.py:18-23`` is the file tests/cases/<name>/app/accounts.py. Every file in the folder
other than the plan, the expected.* files and args.txt is evidence (a case folder needs exactly one
plan.yaml or plan.json at its top). Evidence may be anything a repository holds, including a
symlink (git stores it as mode 120000).

expected.txt starts with ``exit: N`` (0 ready, 1 blocked, 2 input error), followed by the exact
lines that the command prints on stdout (``plan.yaml:LINE:COL: error CODE message``, notes and
hints indented by two spaces).

args.txt (optional) holds the options to use *instead of* the default ``--root .``, split like a
shell line (``#`` starts a comment): ``--root . --no-verify-evidence`` adds an option,
``--root missing-folder`` changes the root, and an args.txt with only a comment passes no option,
so that the plan's own ``root:`` key (or the git work tree around it) decides.

command.txt (optional) holds the command to run instead of ``check --format text``, for the codes
only another command reports: ``compile -o out`` (EP403, EP404: a compile counts its revision from
the evidence-plan.json of earlier revisions, which the case holds in out/). Such a case runs in a
copy of its folder (the command writes), and expected.txt holds all it prints, stdout then stderr.

The CLI runs in-process through ``compiler.cli.main`` (the console-script entry point, the one
place that turns a command's return value and any exception into the exit code), so the test
sees exactly what a user sees, whatever click version is installed.

A case listed in ``KNOWN_BUGS`` below shows a bug: its expected.txt says what the output *should*
be, and the test is a strict xfail (it starts failing loudly once the bug is fixed: then delete
the entry).

A case may also hold expected.json and expected.md: the artifacts that ``compile -o out`` writes
for it, run from a copy of the folder (so their relative paths are the same on every machine).

To add a case: create the folder, the plan and the evidence files it cites, then run

    EVIDENCE_PLAN_UPDATE_CASES=1 python -m pytest tests/test_cases.py

which writes expected.txt from the actual output (KNOWN_BUGS cases are never rewritten). Then read
every line of it against the rules in docs/ before committing: the corpus is only worth
something when the expectations were checked by a person, not recorded.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from support import case_dirs

from compiler.cli import main

UPDATE = os.environ.get("EVIDENCE_PLAN_UPDATE_CASES") == "1"

# case name -> why its output differs from expected.txt today
KNOWN_BUGS: dict[str, str] = {}
# code -> why no plan of today's format can give it (and where it is tested instead)
NO_CASE_YET: dict[str, str] = {}
# The commands a case may run (command.txt's first word; check without one).
CASE_COMMANDS = ("check", "compile")


def _plan_name(case: Path) -> str:
    names = [p.name for p in case.iterdir() if p.name in ("plan.yaml", "plan.json")]
    assert len(names) == 1, f"{case}: needs exactly one plan.yaml or plan.json, found {names}"
    return names[0]


def _cases() -> list[object]:
    params: list[object] = []
    for case in case_dirs():
        marks = []
        if case.name in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[case.name]))
        params.append(pytest.param(case, id=case.name, marks=marks))
    return params


def _read_expected(case: Path) -> tuple[int, list[str]]:
    lines = (case / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert lines and lines[0].startswith("exit: "), f"{case}/expected.txt must start with 'exit: N'"
    return int(lines[0].removeprefix("exit: ")), lines[1:]


def _options(case: Path) -> list[str]:
    """The options of args.txt, else ``--root .`` (the case folder is the repository root)."""
    if (case / "args.txt").is_file():
        return shlex.split((case / "args.txt").read_text(encoding="utf-8"), comments=True)
    return ["--root", "."]


def _command(case: Path) -> list[str]:
    """command.txt's command, else ``check --format text``."""
    if (case / "command.txt").is_file():
        command = shlex.split((case / "command.txt").read_text(encoding="utf-8"), comments=True)
        assert command and command[0] in CASE_COMMANDS, f"{case.name}/command.txt: one of {CASE_COMMANDS}"
        return command
    return ["check", "--format", "text"]


def _arguments(case: Path, plan: str) -> list[str]:
    """The command line of a case: COMMAND OPTIONS PLAN (see the module's docstring)."""
    return [*_command(case), *_options(case), plan]


def test_corpus_covers_every_code() -> None:
    from compiler.core.codes import CODES

    seen = set()
    for case in case_dirs():
        if case.name not in KNOWN_BUGS:
            for line in _read_expected(case)[1]:
                reported = re.match(r"\S+ (?:error|warning) (EP\d{3}) ", line)
                if reported is not None:
                    seen.add(reported.group(1))
    assert sorted(set(CODES) - seen) == sorted(NO_CASE_YET)
    assert len(case_dirs()) >= 25
    assert set(KNOWN_BUGS) <= {c.name for c in case_dirs()}


def test_a_case_named_ready_is_ready() -> None:
    """A case's name says what it shows: a ``ready-*`` case that a new rule blocks (a proof's test
    file missing from its folder, say) no longer shows what it was written for, even when its
    expected output is updated along with the rule."""
    blocked = [case.name for case in case_dirs() if case.name.startswith("ready-") and _read_expected(case)[0] != 0]
    assert blocked == []


@pytest.mark.parametrize("case", _cases())
def test_case(case: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
              tmp_path: Path) -> None:
    name = _plan_name(case)
    if _command(case)[0] != "check":
        _test_other_command(case, name, monkeypatch, capsys, tmp_path)
        return
    monkeypatch.chdir(case)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    code = main(_arguments(case, name))
    out, err = capsys.readouterr()

    assert "Traceback" not in out + err
    assert "internal error" not in err
    if UPDATE and case.name not in KNOWN_BUGS:
        (case / "expected.txt").write_text(f"exit: {code}\n{out}", encoding="utf-8")
    expected_code, expected_lines = _read_expected(case)
    assert out.splitlines() == expected_lines
    assert code == expected_code
    # stderr holds only the summary line of `check --format text`
    assert err.splitlines() == [_summary(expected_code, expected_lines)]


def _test_other_command(case: Path, name: str, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A case of command.txt: run in a copy of its folder; expected.txt holds stdout, then stderr."""
    copy = tmp_path / case.name
    shutil.copytree(case, copy, symlinks=True)
    monkeypatch.chdir(copy)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    code = main(_arguments(case, name))
    out, err = capsys.readouterr()

    assert "Traceback" not in out + err
    assert "internal error" not in err
    if UPDATE and case.name not in KNOWN_BUGS:
        (case / "expected.txt").write_text(f"exit: {code}\n{out}{err}", encoding="utf-8")
    expected_code, expected_lines = _read_expected(case)
    assert (out + err).splitlines() == expected_lines
    assert code == expected_code


@pytest.mark.slow
@pytest.mark.parametrize("case", _cases())
def test_case_compiles_to_what_render_reads(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """compile writes both artifacts (unless the plan cannot be read), its JSON matches the
    output model, and render reads it back to the same Markdown. A case folder may state the
    artifacts it expects, as expected.json and expected.md (written like expected.txt)."""
    from compiler.model.output_model import CompiledPlan

    name = _plan_name(case)
    copy = tmp_path / case.name  # a copy, so that the artifacts' relative paths are the same anywhere
    shutil.copytree(case, copy, symlinks=True)
    monkeypatch.chdir(copy)
    monkeypatch.setenv("NO_COLOR", "1")
    out_dir = copy / "out"
    code = main(["compile", *_options(case), name, "-o", "out"])
    capsys.readouterr()
    if code == 2:
        assert not out_dir.exists() or not list(out_dir.iterdir())
        return
    compiled, markdown = out_dir / "evidence-plan.json", out_dir / "evidence-plan.md"
    CompiledPlan.model_validate(json.loads(compiled.read_text(encoding="utf-8")))
    assert main(["render", str(compiled), "-o", str(out_dir / "again.md")]) == 0, capsys.readouterr()
    assert (out_dir / "again.md").read_text(encoding="utf-8") == markdown.read_text(encoding="utf-8")
    for artifact, expected in ((compiled, case / "expected.json"), (markdown, case / "expected.md")):
        if UPDATE and expected.exists():
            expected.write_bytes(artifact.read_bytes())
        if expected.exists():
            assert artifact.read_text(encoding="utf-8") == expected.read_text(encoding="utf-8"), expected.name


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(code: int, lines: list[str]) -> str:
    heads = [line.split(" ", 2)[1] for line in lines if not line.startswith(" ")]
    errors, warnings = heads.count("error"), heads.count("warning")
    ready, blocked, unreadable = (int(code == 0), int(code == 1), int(code == 2))
    return (f"1 plan: {ready} ready, {blocked} blocked, {unreadable} unreadable"
            f" ({_plural(errors, 'error')}, {_plural(warnings, 'warning')})")
