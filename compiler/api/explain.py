"""The page of one diagnostic code: what it means, what emits it (the rule's own docstring, or the
stage's), and worked examples from the case corpus (tests/cases/<code>-*/: a plan and what `check`
prints for it). docs/codes/CODE.md is this text (tests/regenerate.py writes it, and a test fails
when it is stale); `evidence-plan explain CODE` is to print the same.

Who emits a code is read from where it is declared: the rule whose registry entry lists it
(compiler/checks/registry.py), shown with that rule's docstring, or, for the codes no rule owns,
the stage compiler/core/codes.py names, shown with the function ``STAGES`` gives it.
"""

from __future__ import annotations

import inspect
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from compiler.analysis import complexity
from compiler.checks.registry import rules
from compiler.compile import pipeline
from compiler.core.codes import CODES, Stage
from compiler.load import document
from compiler.model import config, validate

# What each stage is doing, and the function a code's page shows for it: a code no rule owns names
# its stage in compiler/core/codes.py (every other code is one rule's, compiler/checks/registry.py).
STAGES: dict[Stage, tuple[Callable[..., Any], str]] = {
    "load": (document.load, "reading the plan file, before anything else"),
    "settings": (config.parse, "reading the repository's settings"),
    "validate": (validate.build_plan, "validating each item against the plan format, before the rules run"),
    "root": (pipeline.find_root, "finding the repository root the evidence is checked against"),
    "complexity": (complexity.above_max_tier, "measuring the plan's complexity, once it is ordered"),
}


class Owner(NamedTuple):
    """What emits a code: a function, and the stage it belongs to (None: a rule of compiler/checks)."""

    function: Callable[..., Any]
    stage: str | None

    @property
    def where(self) -> str:
        """``name`` in ``compiler/x/y.py``."""
        return f"`{self.function.__name__}` in `{self.function.__module__.replace('.', '/')}.py`"


def owners() -> dict[str, Owner]:
    """code -> what emits it: the rule that declares it, else its stage's function."""
    out = {code: Owner(rule.check, None) for rule in rules() for code in rule.codes}
    for code, entry in CODES.items():
        if entry.stage is not None:
            function, doing = STAGES[entry.stage]
            out[code] = Owner(function, doing)
    return out


class Example(NamedTuple):
    """A case folder of tests/cases shown on a code's page: the plan, the command, what it prints."""

    case: str  # the folder's name
    plan_name: str  # plan.yaml or plan.json
    plan_text: str  # bytes that are not UTF-8 shown as \\xNN
    utf8: bool
    argv: list[str]  # the command line after `evidence-plan`
    exit_code: int
    output: str  # stdout, as expected.txt holds it
    files: list[str]  # the other files of the folder (the repository the plan cites), as Markdown


def example(case: Path) -> Example:
    """A case folder as tests/test_cases.py runs it: ``check --format text`` with the options of
    args.txt, else ``--root .``, from the folder, which is the repository root."""
    plan_name = next(n for n in ("plan.yaml", "plan.json") if (case / n).is_file())
    raw = (case / plan_name).read_bytes()
    options = ["--root", "."]
    if (case / "args.txt").is_file():
        options = shlex.split((case / "args.txt").read_text(encoding="utf-8"), comments=True)
    first, _, output = (case / "expected.txt").read_text(encoding="utf-8").partition("\n")
    own = {plan_name, "args.txt", "expected.txt", "expected.json", "expected.md"}
    files = []
    for path in sorted(case.rglob("*")):
        rel = path.relative_to(case).as_posix()
        if rel in own or (path.is_dir() and not path.is_symlink()):
            continue
        files.append(f"`{rel}` (a symlink to `{os.readlink(path)}`)" if path.is_symlink() else f"`{rel}`")
    try:
        text, utf8 = raw.decode("utf-8"), True
    except UnicodeDecodeError:
        text, utf8 = raw.decode("utf-8", "backslashreplace"), False
    return Example(case=case.name, plan_name=plan_name, plan_text=text, utf8=utf8,
                   argv=["check", "--format", "text", *options, plan_name],
                   exit_code=int(first.removeprefix("exit: ")), output=output, files=files)


def examples(code: str, cases: Path) -> list[Example]:
    """The case folders of ``cases`` named for ``code`` (``ep101-*``), in name order."""
    prefix = code.lower() + "-"
    return [example(p) for p in sorted(cases.iterdir()) if p.is_dir() and p.name.startswith(prefix)]


def _fenced(text: str, language: str = "") -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}\n"


def _severity(code: str) -> str:
    entry = CODES[code]
    if entry.input_error:
        return "error, an input error: the file is not a usable plan (exit 2), and nothing is written"
    if entry.severity == "error":
        return "error: the plan is blocked (exit 1); `compile` still writes both artifacts"
    return "warning: the plan stays ready (exit 0), unless `check --strict` or the `strict` setting makes warnings" \
        " block"


def page(code: str, shown: Sequence[Example] = ()) -> str:
    """The page of ``code`` (Markdown): its name, severity and meaning, what emits it with that
    function's docstring, and ``shown``, its worked examples."""
    entry, owner = CODES[code], owners()[code]
    lines = [f"# {code} {entry.name}", "", entry.summary, "", f"- **Severity:** {_severity(code)}"]
    if owner.stage is None:
        lines.append(f"- **Emitted by:** the rule {owner.where}")
    else:
        lines.append(f"- **Emitted by:** {owner.where}, {owner.stage}")
    if entry.fix:
        lines.append(f"- **Fix:** {entry.fix} (`check --format json` shows it; `evidence-plan fix` applies it:"
                     " [Repairs](../reference/fix.md))")
    if entry.reason:
        lines.append(f"- **Reason:** `{entry.reason}`, the plan-execute loop's word for it: a compiled"
                     f" evidence-plan.json this blocks says `\"reason\": \"{entry.reason}\"` beside its status")
    lines += ["", "## What emits it", "", inspect.getdoc(owner.function) or "", "", "## Example", ""]
    if not shown:
        lines += [f"No case folder of the corpus (`tests/cases/{code.lower()}-*`) shows {code} yet.", ""]
    for one in shown:
        command = shlex.join(["evidence-plan", *one.argv])
        lines += [f"### {one.case}", "", f"`tests/cases/{one.case}/{one.plan_name}`"
                  + ("" if one.utf8 else " (not UTF-8: the bytes that are not are shown as `\\xNN`)") + ":", "",
                  _fenced(one.plan_text, one.plan_name.rpartition(".")[2])]
        if one.files:
            lines += ["The folder is the repository it cites: " + ", ".join(one.files) + ".", ""]
        lines += [f"`{command}`, run in that folder, exits {one.exit_code} and prints:", "",
                  _fenced(one.output or "(nothing)", "text")]
    return "\n".join(lines).rstrip("\n") + "\n"
