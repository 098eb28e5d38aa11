"""The library half of `evidence-plan compile`: a plan compiled into a folder, as the CLI does it.
``prepare`` compiles the plan with its revision recorded against the evidence-plan.json already in
the folder (compiler/compile/history.py) and makes the artifacts' contents; ``write`` writes them
as a set (compiler/core/write.py: all or none, never over the plan itself); ``compile_to_folder``
does both."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.load.limits import DEFAULT_LIMITS

if TYPE_CHECKING:
    from compiler.analysis.forecast import Deadline
    from compiler.compile.pipeline import CompileResult
    from compiler.core.write import Content
    from compiler.load.limits import Limits


class Compiled(NamedTuple):
    """A plan compiled for a folder."""

    plan: str  # the plan path as given (- for standard input)
    result: CompileResult
    document: dict[str, Any]  # evidence-plan.json's data, with its revision recorded
    files: dict[str, Content]  # each artifact's path and content (made when written), in the order written
    note: str | None = None  # why the receipts there (RECEIPTS) are not shown on the pages, when they are not


# What `evidence-plan verify` writes beside the artifacts (compiler/api/receipts.py): when it is in
# the folder, the pages show each item's last result (compiler/api/results.py). Named here, where
# compile looks for it, so that a folder without it costs compile no import.
RECEIPTS = "evidence-plan.verify.json"


def output_folder(plan: str, output_dir: str | None = None) -> str:
    """Where a plan's artifacts go: ``output_dir``, else the plan's folder (the working folder for -)."""
    if output_dir is not None:
        return output_dir
    return "." if plan == "-" else os.path.dirname(plan) or "."


def prepare(plan: str, output_dir: str | None = None, *, html: bool = False, root: str | None = None,
            verify_evidence: bool = True, limits: Limits = DEFAULT_LIMITS, max_spread: float | None = None,
            deadline: Deadline | None = None) -> Compiled:
    """Compile ``plan`` for ``output_dir`` (see ``output_folder``): its evidence-plan.json there, if
    any, gives the revision and what changed (``result.revision``, with a note when it could not
    be read); the receipts of `verify` there, if any, each item's last result on the pages (or
    the note of why not, ``Compiled.note``). Nothing is written. Raises PlanInputError when the
    plan is not a usable plan."""
    from compiler.compile.emit import JSON_NAME, MARKDOWN_NAME, build_output, dump_pieces
    from compiler.compile.history import record
    from compiler.compile.pipeline import compile_plan
    from compiler.render.markdown import render_pieces

    out_dir = output_folder(plan, output_dir)
    json_path = os.path.join(out_dir, JSON_NAME)
    result = compile_plan(plan, root=root, verify_evidence=verify_evidence, limits=limits, max_spread=max_spread,
                          deadline=deadline, previous=json_path).for_output()
    assert result.revision is not None  # compiled with previous
    document = record(build_output(result, out_dir), result.revision, result.plan)
    verified, note = None, None
    receipts = os.path.join(out_dir, RECEIPTS)
    if os.path.exists(receipts):  # all that a folder without them costs
        from compiler.api.results import last_verify
        from compiler.compile.history import items_digest

        verified, note = last_verify(receipts, document, lambda: items_digest(result.plan), limits)
    # Each text is made just before it is written, and dropped after: never both at once.
    files: dict[str, Content] = {json_path: lambda: dump_pieces(document),
                                 os.path.join(out_dir, MARKDOWN_NAME): lambda: render_pieces(
                                     document, base=document["root"], verified=verified)}
    if html:
        from compiler.render import html as html_page

        files[os.path.join(out_dir, html_page.HTML_NAME)] = lambda: html_page.render_pieces(document,
                                                                                             verified=verified)
    return Compiled(plan=plan, result=result, document=document, files=files, note=note)


def write(compiled: Compiled) -> None:
    """Write the artifacts as a set, creating folders on the way, never over the plan under any
    name; the pages as they would read on stdout (compiler/core/cilog.py's guard). Raises
    WriteError, and then nothing was written."""
    write_files(compiled.files, inputs=[compiled.plan])


def write_files(files: Mapping[str, Content], inputs: Iterable[str] = ()) -> None:
    """Files written as a set (compiler/core/write.py), pages and pictures through the CI-log guard
    (a file may be printed in a CI log too; JSON and YAML are made free of workflow commands as
    they are written), never over one of ``inputs``. Raises WriteError."""
    from compiler.core.cilog import shown
    from compiler.core.write import write_all_atomic

    write_all_atomic({path: shown(content) for path, content in files.items()}, make_folders=True, inputs=inputs)


def compile_to_folder(plan: str, output_dir: str | None = None, **options: Any) -> Compiled:
    """``prepare`` then ``write``: what `evidence-plan compile PLAN -o DIR` does, from Python.
    ``options`` are ``prepare``'s."""
    compiled = prepare(plan, output_dir, **options)
    write(compiled)
    return compiled
