"""The page of one diagnostic code: what it means, why it matters and how to fix it
(compiler/core/codes.py, compiler/core/advice.py), what emits it (the rule's own docstring, or the
stage's), and worked examples from the case corpus (tests/cases/<code>-*/: a plan and what the
command prints for it). docs/codes/CODE.md is this text, and `evidence-plan explain CODE` prints
it (``FORMATS``: as text, as this Markdown, or as JSON for tools).

The examples are real runs, read from the case folders. An installed package has no tests/, so
tests/regenerate.py also writes them, as ``corpus`` gives them, to explain/examples.json, which
ships inside the package (pyproject.toml) and is what `explain` reads; a test fails when it is
stale, as for the pages.

Who emits a code is read from where it is declared: the rule whose registry entry lists it
(compiler/checks/registry.py), shown with that rule's docstring, or, for the codes no rule owns,
the stage compiler/core/codes.py names, shown with the function ``STAGES`` gives it.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from compiler.analysis import complexity
from compiler.checks.registry import rules
from compiler.compile import pipeline
from compiler.core.advice import ADVICE
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


def _words(path: Path, default: list[str]) -> list[str]:
    return shlex.split(path.read_text(encoding="utf-8"), comments=True) if path.is_file() else default


def example(case: Path) -> Example:
    """A case folder as tests/test_cases.py runs it: the command of command.txt, else ``check
    --format text``, with the options of args.txt, else ``--root .``, from the folder, which is the
    repository root."""
    plan_name = next(n for n in ("plan.yaml", "plan.json") if (case / n).is_file())
    raw = (case / plan_name).read_bytes()
    command = _words(case / "command.txt", ["check", "--format", "text"])
    options = _words(case / "args.txt", ["--root", "."])
    first, _, output = (case / "expected.txt").read_text(encoding="utf-8").partition("\n")
    own = {plan_name, "args.txt", "command.txt", "expected.txt", "expected.json", "expected.md"}
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
                   argv=[*command, *options, plan_name],
                   exit_code=int(first.removeprefix("exit: ")), output=output, files=files)


def examples(code: str, cases: Path) -> list[Example]:
    """The case folders of ``cases`` named for ``code`` (``ep101-*``), in name order."""
    prefix = code.lower() + "-"
    return [example(p) for p in sorted(cases.iterdir()) if p.is_dir() and p.name.startswith(prefix)]


def corpus(cases: Path) -> str:
    """explain/examples.json: every code's examples (``examples``), as JSON, in the codes' order."""
    shown = {code: [one._asdict() for one in examples(code, cases)] for code in CODES}
    return json.dumps(shown, indent=1, ensure_ascii=False) + "\n"


def read_corpus(text: str) -> dict[str, list[Example]]:
    """``corpus``'s JSON read back."""
    return {code: [Example(**one) for one in shown] for code, shown in json.loads(text).items()}


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
    advice = ADVICE[code]
    lines += ["", "## Why it matters", "", advice.why, "", "## How to fix it", "", advice.fix,
              "", "## What emits it", "", inspect.getdoc(owner.function) or "", "", "## Example", ""]
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


# --- `evidence-plan explain`: which codes, and each code in a format ------------------------------

EXAMPLES = ("explain", "examples.json")  # the resource ``corpus`` is written to (folder, name)


@functools.cache
def shipped() -> dict[str, list[Example]]:
    """The examples of every code, as the package ships them (explain/examples.json)."""
    from compiler.core.resources import read_text

    return read_corpus(read_text(*EXAMPLES))


def find(word: str) -> str | None:
    """The code a word names: a code in any case (``ep201``) or a rule name (``missing-file``)."""
    upper = word.strip().upper()
    if upper in CODES:
        return upper
    lower = word.strip().lower()
    return next((code for code, entry in CODES.items() if entry.name == lower), None)


def suggest(word: str) -> str | None:
    """The code or rule name closest to a word that names none (did-you-mean), if one is close."""
    from compiler.core.suggest import Suggester

    names = {entry.name: entry.name for entry in CODES.values()}
    names.update({code.lower(): code for code in CODES})
    lower = word.strip().lower()
    if re.fullmatch(r"ep[0-9oil]{3}", lower):  # a letter typed for a digit: EP2O1, EP1l0
        lower = "ep" + lower[2:].translate(str.maketrans("oil", "011"))
    closest = Suggester(names).closest(lower)
    return None if closest is None else names[closest]


def docs_path(code: str) -> str:
    """Where a code's page is in the repository's documentation."""
    return f"docs/codes/{code}.md"


def docs_url(code: str) -> str | None:
    """The code's page on the documentation site, where pyproject.toml declares one (SARIF's
    ``helpUri`` is the same)."""
    from compiler.report.reporters import project_urls

    site = project_urls().get("documentation")
    return f"{site.rstrip('/')}/codes/{code}/" if site else None


def record(code: str, shown: Sequence[Example]) -> dict[str, Any]:
    """A code's page as data (``explain --format json``): every part, the examples in full."""
    entry, owner, advice = CODES[code], owners()[code], ADVICE[code]
    return {
        "code": code, "name": entry.name, "severity": entry.severity, "input_error": entry.input_error,
        "summary": entry.summary, "why": advice.why, "fix": advice.fix, "reason": entry.reason,
        "emitted_by": {"function": owner.function.__name__,
                       "module": owner.function.__module__.replace(".", "/") + ".py", "stage": entry.stage},
        "examples": [{"case": one.case, "plan_name": one.plan_name, "plan": one.plan_text, "utf8": one.utf8,
                      "command": shlex.join(["evidence-plan", *one.argv]), "exit_code": one.exit_code,
                      "output": one.output} for one in shown],
        "docs": docs_path(code), "url": docs_url(code),
    }


def _prose(text: str) -> str:
    import textwrap

    return textwrap.fill(text, width=100, initial_indent="  ", subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)


def _indented(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line else line for line in text.rstrip("\n").split("\n"))


def featured(code: str, shown: Sequence[Example]) -> Example | None:
    """The example a terminal shows: the case named for the rule (``ep201-missing-file``), else
    the first."""
    named = f"{code.lower()}-{CODES[code].name}"
    return next((one for one in shown if one.case == named), shown[0] if shown else None)


def text(code: str, shown: Sequence[Example]) -> str:
    """A code's page for a terminal (``explain``'s default format): what it means, why it matters,
    how to fix it, and one example with what it prints. Plan text is shown as it is: the command
    escapes it."""
    entry, advice = CODES[code], ADVICE[code]
    severity = "error, input error" if entry.input_error else entry.severity
    lines = [f"{code} {entry.name} ({severity})", "", "What it means:", _prose(entry.summary), "",
             "Why it matters:", _prose(advice.why), "", "How to fix it:", _prose(advice.fix), ""]
    one = featured(code, shown)
    if one is not None:
        command = shlex.join(["evidence-plan", *one.argv])
        lines += [f"Example (tests/cases/{one.case}/{one.plan_name}):", _indented(one.plan_text), "",
                  f"  $ {command}    # exits {one.exit_code}", _indented(one.output or "(nothing)"), ""]
        others = [o.case for o in shown if o is not one]
        if others:
            lines += [f"More examples on the page: {', '.join(others)}.", ""]
    lines.append(f"Page: {docs_path(code)} (evidence-plan explain {code} --format markdown)")
    return "\n".join(lines) + "\n"


def _text_pages(codes: Sequence[str], shown: dict[str, list[Example]]) -> str:
    return "\n".join(text(code, shown[code]) for code in codes)


def _markdown_pages(codes: Sequence[str], shown: dict[str, list[Example]]) -> str:
    return "\n".join(page(code, shown[code]) for code in codes)


def _json_records(codes: Sequence[str], shown: dict[str, list[Example]]) -> str:
    return json.dumps([record(code, shown[code]) for code in codes], indent=2, ensure_ascii=False) + "\n"


# `explain --format`: name -> the pages of the codes, with their examples, in that format.
FORMATS: dict[str, Callable[[Sequence[str], dict[str, list[Example]]], str]] = {
    "text": _text_pages, "markdown": _markdown_pages, "json": _json_records}


def explain(codes: Sequence[str], fmt: str) -> str:
    """The pages of ``codes`` (as ``find`` gives them) in format ``fmt``, with the shipped examples."""
    return FORMATS[fmt](codes, shipped())
