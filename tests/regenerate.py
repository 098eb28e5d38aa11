"""Regenerate every generated file that is committed:

    python tests/regenerate.py            # write what is stale
    python tests/regenerate.py --check    # write nothing; exit 1 and name what is stale
    python tests/regenerate.py --screenshot   # also docs/images/evidence-plan.png, in headless Chromium
    python tests/regenerate.py --work-budget  # also tests/work_budget.json, the calls per stage counted now

- schemas/plan.schema.json and schemas/evidence-plan.schema.json (from the pydantic models);
- outputs/evidence-plan.json, .md and .html (the ready example, compiled with --html);
- the tables of the documentation made from the code (DOC_SECTIONS: the codes of compiler/core/codes.py and
  what `fix` does for each, the fields of compiler/model/fields.py, the settings of compiler/model/config.py,
  the agent server's tools and the plan format as an agent is given it), between their markers;
- docs/codes/CODE.md, one page per diagnostic code (compiler/api/explain.py's page: its meaning, why it
  matters, how to fix it, the docstring of what emits it, and its case folders of tests/cases as
  worked examples), and explain/examples.json, those examples as `explain` reads them;
- docs/commands/NAME.md, one page per command of compiler/commands/ (its click help: usage, text, options);
- tests/golden/* (rendered output of the test plans in tests/golden/);
- tests/golden/verified/evidence-plan.md and .html (a plan's pages with the receipts of its last
  `verify` beside it, hand-written in their format: each item's last result);
- tests/golden/diff/revised.* (`diff` of the example against that revision, in each format);
- tests/golden/ci/evidence-plan.yml (`ci github` of tests/golden/ci/plan.yaml: CI_GOLDEN);
- the hostile-input corpus, tests/hostile/* (written by tests/hostile/make.py);
- with --work-budget only, tests/work_budget.json: the calls per pipeline stage of the work budget's
  plans (benchmarks/stages.py), counted now. tests/test_work_budget.py fails when a stage moves by
  more than its margin from this file, so it is not regenerated with the rest: regenerate it when
  the work of a stage changes on purpose, and say by how much in the commit;
- with --screenshot only, docs/images/evidence-plan.png: the top of outputs/evidence-plan.html in
  headless Chromium (tests/browser.py), a box hovered, for docs/reference/outputs.md. Pixels differ
  between machines (fonts), so it is not checked for staleness; regenerate it when the page's look
  changes.

Tests compare each of these with what the code produces now and fail when one is stale.
Review the regenerated files as a diff before committing them.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/duplicate-email/plan.yaml"
DOCS = REPO / "docs"
# Sections of the docs made from the code: marker name -> (the page, the module whose markdown_table() makes
# it, or "module:function" for another function).
DOC_SECTIONS = {"codes": ("reference/codes.md", "compiler.core.codes"),
                "fixes": ("reference/fix.md", "compiler.core.codes:fixes_table"),
                "fields": ("reference/plan-format.md", "compiler.model.fields"),
                "settings": ("reference/settings.md", "compiler.model.config"),
                "agent-tools": ("guide/agents.md", "compiler.serve.mcp"),
                "agent-plan-format": ("guide/agents.md", "compiler.model.summary:markdown_block")}


def schemas() -> dict[Path, str]:
    from compiler.model.json_schema import SCHEMAS, generate

    return {REPO / "schemas" / name: generate(kind) for kind, (name, _) in SCHEMAS.items()}


def outputs() -> dict[Path, str]:
    """Compile the example exactly as the README's Quick start does (from the repository root)."""
    import os

    from compiler.compile.emit import JSON_NAME, MARKDOWN_NAME, build_output, dumps
    from compiler.compile.history import FIRST, record, revise
    from compiler.compile.pipeline import compile_plan
    from compiler.render.html import HTML_NAME, render_html
    from compiler.render.markdown import render_markdown

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        result = compile_plan(EXAMPLE)
        # As a first compile into outputs/ writes it: revision 1 (compiler/compile/history.py: revise)
        document = record(build_output(result, "outputs"), revise(result.plan, FIRST), result.plan)
    finally:
        os.chdir(cwd)
    return {
        REPO / "outputs" / JSON_NAME: dumps(document),
        REPO / "outputs" / MARKDOWN_NAME: render_markdown(document, base=document["root"]),
        REPO / "outputs" / HTML_NAME: render_html(document),
    }


def sections() -> dict[Path, str]:
    """The pages of DOC_SECTIONS, each table replaced by what the code makes now. The codes' table
    links each code to its page."""
    import importlib
    import re

    out: dict[Path, str] = {}
    for name, (page, made_by) in DOC_SECTIONS.items():
        path = DOCS / page
        text = out.get(path) or path.read_text(encoding="utf-8")
        begin, end = f"<!-- {name}:begin (generated by tests/regenerate.py) -->\n", f"<!-- {name}:end -->\n"
        module, _, function = made_by.partition(":")
        table = getattr(importlib.import_module(module), function or "markdown_table")()
        if name == "codes":
            table = re.sub(r"^\| `(EP\d{3})` \|", r"| [`\1`](../codes/\1.md) |", table, flags=re.M)
        start = text.index(begin) + len(begin)
        out[path] = text[:start] + table + text[text.index(end):]
    return out


def code_pages() -> dict[Path, str]:
    """docs/codes/CODE.md for every code: compiler/api/explain.py's page, with its case folders; and
    explain/examples.json, those examples as the package ships them for `explain`, from which
    the pages are made (so that the pages and `explain` cannot differ)."""
    from compiler.api.explain import EXAMPLES, corpus, page, read_corpus

    examples = corpus(REPO / "tests" / "cases")
    pages = {DOCS / "codes" / f"{code}.md": page(code, shown) for code, shown in read_corpus(examples).items()}
    return {REPO.joinpath(*EXAMPLES): examples, **pages}


def _help_markdown(text: str) -> list[str]:
    """A click help text as Markdown: each paragraph on one line; a paragraph that click keeps as
    written (after a \\b line) as its heading line and a code block."""
    import textwrap

    out: list[str] = []
    for paragraph in text.split("\n\n"):
        lines = paragraph.strip("\n").splitlines()
        if lines and lines[0].strip() == "\b":
            head, *rest = lines[1:]
            out += [head.strip(), "", "```sh", textwrap.dedent("\n".join(rest)), "```", ""]
        elif lines:
            out += [" ".join(line.strip() for line in lines), ""]
    return out


def _command_help(command: object, ctx: object, title: str, level: str) -> list[str]:
    """A click command's help as Markdown under a heading: usage, text, options."""
    import inspect

    import click

    assert isinstance(command, click.Command) and isinstance(ctx, click.Context)
    usage = command.get_usage(ctx).removeprefix("Usage: ")
    text = inspect.cleandoc(command.help or "").split("\f")[0]
    lines = [f"{level} {title}", "", "```text", usage, "```", "", *_help_markdown(text), f"{level}# Options", ""]
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if isinstance(param, click.Option) and record is not None:
            lines.append(f"- `{record[0]}`: {record[1]}" if record[1] else f"- `{record[0]}`")
    return lines


def command_page(name: str) -> str:
    """docs/commands/NAME.md: the command's click help as Markdown (usage, text, options); for a
    group of commands (``ci``), then each of its commands' help, under its own heading."""
    import click

    from compiler.cli import cli

    group = click.Context(cli, info_name="evidence-plan")
    command = cli.get_command(group, name)
    assert command is not None, name
    ctx = click.Context(command, info_name=name, parent=group)
    lines = _command_help(command, ctx, f"evidence-plan {name}", "#")
    lines[1:1] = ["", f"<!-- generated by tests/regenerate.py from compiler/commands/{name}.py (its click help) -->"]
    if isinstance(command, click.Group):
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            sub_ctx = click.Context(sub, info_name=sub_name, parent=ctx)
            lines += ["", *_command_help(sub, sub_ctx, f"evidence-plan {name} {sub_name}", "##")]
    return "\n".join(lines) + "\n"


def command_pages() -> dict[Path, str]:
    from compiler.commands import COMMANDS

    return {DOCS / "commands" / f"{name}.md": command_page(name) for name in COMMANDS}


def hostile() -> dict[Path, bytes]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("hostile_make", REPO / "tests" / "hostile" / "make.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = make  # its dataclasses look their module up
    spec.loader.exec_module(make)
    return {make.HERE / name: content for name, content in make.outputs().items()}


def golden() -> dict[Path, str]:
    """Each tests/golden/NAME.yaml compiled to NAME.json and rendered to NAME.md. They test
    rendering, so their evidence (files that do not exist) is not verified."""
    import os

    from compiler.compile.emit import build_output, dumps
    from compiler.compile.pipeline import compile_plan
    from compiler.render.markdown import render_markdown

    out: dict[Path, str] = {}
    folder = REPO / "tests" / "golden"
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        for plan in sorted(folder.glob("*.yaml")):
            document = build_output(compile_plan(plan.name, verify_evidence=False), ".")
            out[plan.with_suffix(".json")] = dumps(document)
            out[plan.with_suffix(".md")] = render_markdown(document, base=document["root"])
    finally:
        os.chdir(cwd)
    return out


def verified_golden() -> dict[Path, str]:
    """tests/golden/verified/evidence-plan.md and .html: its plan.yaml compiled in its folder, as
    compile does it (compiler/api/compile.py: prepare), beside the receipts there; nothing else
    of the compile is kept (its JSON would be read back as the previous revision)."""
    import os

    from compiler.api.compile import prepare

    folder = REPO / "tests" / "golden" / "verified"
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        compiled = prepare("plan.yaml", ".", html=True, verify_evidence=False)
        assert compiled.note is None, compiled.note
        pages = {folder / os.path.basename(path): "".join(content()) for path, content in compiled.files.items()
                 if not path.endswith(".json")}
    finally:
        os.chdir(cwd)
    return pages


# The `diff` golden files: the example plan against tests/golden/diff/revised.yaml, in each format.
# tests/golden/diff/NAME.yaml: a hand-written revision of a bundled example (its comment says what
# changed), and the example it revises.
DIFF_CASES = {"revised": "examples/duplicate-email/plan.yaml", "timing": "examples/worked/plan.yaml",
              "voided": "examples/worked/plan.yaml"}
DIFF_FORMATS = {"text": "txt", "json": "json", "markdown": "md", "github": "github"}


def diff_golden() -> dict[Path, str]:
    """tests/golden/diff/NAME.FORMAT-EXTENSION: what `evidence-plan diff OLD tests/golden/diff/NAME.yaml
    --format FORMAT` prints for each of DIFF_CASES, run from the repository's top (the names are
    relative to it)."""
    import os

    from click.testing import CliRunner

    from compiler.cli import cli

    out: dict[Path, str] = {}
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for name, old in DIFF_CASES.items():
            for fmt, extension in DIFF_FORMATS.items():
                result = CliRunner().invoke(cli, ["diff", old, f"tests/golden/diff/{name}.yaml", "--format", fmt])
                assert result.exit_code == 1, result.output
                out[REPO / "tests" / "golden" / "diff" / f"{name}.{extension}"] = result.stdout
    finally:
        os.chdir(cwd)
    return out


# The `ci github` golden file: the workflow of tests/golden/ci/plan.yaml, balanced by the receipts
# beside it, with these options.
CI_GOLDEN = ["ci", "github", "tests/golden/ci/plan.yaml", "--no-verify-evidence", "--max-jobs", "3",
             "--install", "pip install -r requirements-dev.txt", "-o", "-"]


def ci_golden() -> dict[Path, str]:
    """tests/golden/ci/evidence-plan.yml: what `evidence-plan` CI_GOLDEN prints, run from the
    repository's top."""
    import os

    from click.testing import CliRunner

    from compiler.cli import cli

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(cli, CI_GOLDEN)
        assert result.exit_code == 0, result.output
    finally:
        os.chdir(cwd)
    return {REPO / "tests" / "golden" / "ci" / "evidence-plan.yml": result.stdout}


def everything() -> dict[Path, bytes]:
    texts = {**schemas(), **outputs(), **sections(), **code_pages(), **command_pages(), **golden(), **verified_golden(),
             **diff_golden(), **ci_golden()}
    return {**{path: text.encode("utf-8") for path, text in texts.items()}, **hostile()}


def screenshot() -> int:
    import browser

    why = browser.missing()
    if why is not None:
        print(f"cannot take the screenshot: {why}")
        return 1
    target = DOCS / "images" / "evidence-plan.png"
    browser.screenshot(REPO / "outputs" / "evidence-plan.html", target, hover="implementation")
    print(f"regenerated {target.relative_to(REPO)}")
    return 0


def work_budget() -> int:
    """tests/work_budget.json from ``python benchmarks/stages.py counts``, in a fresh process (as the
    test counts), and the stages that moved."""
    import json
    import subprocess

    from stages import over_budget

    target = REPO / "tests" / "work_budget.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "stages.py"), "counts"], cwd=REPO,
                          capture_output=True, text=True, check=True)
    old = json.loads(target.read_text(encoding="utf-8"))["counts"] if target.exists() else {}
    target.write_text(done.stdout, encoding="utf-8")
    for line in over_budget(old, json.loads(done.stdout)["counts"]):
        print(f"  moved: {line}")
    print(f"regenerated {target.relative_to(REPO)}")
    return 0


def main(argv: list[str]) -> int:
    if "--work-budget" in argv:
        code = main([a for a in argv if a != "--work-budget"])
        return code or work_budget()
    if "--screenshot" in argv:
        code = main([a for a in argv if a != "--screenshot"])
        return code or screenshot()
    check = "--check" in argv
    stale = []
    for path, content in everything().items():
        old = path.read_bytes() if path.exists() else None
        if old == content:
            continue
        stale.append(path.relative_to(REPO))
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            print(f"regenerated {path.relative_to(REPO)}")
    if check:
        for path in stale:
            print(f"stale: {path} (run python tests/regenerate.py)")
        return 1 if stale else 0
    print(f"{len(stale)} file(s) changed")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "tests"))
    sys.path.insert(0, str(REPO / "benchmarks"))
    raise SystemExit(main(sys.argv[1:]))
