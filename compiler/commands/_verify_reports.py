"""What `verify` writes beside its receipts (``--junit FILE``, ``--summary FILE``), and
`verify --merge RECEIPT...`, which makes the receipts of several runs one: the printing and
exit codes of both (the library halves: compiler/report/junit.py, compiler/report/summary.py,
compiler/api/merge.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from compiler.core.exits import EXIT_BLOCKED, EXIT_INPUT, EXIT_READY

if TYPE_CHECKING:
    from compiler.load.limits import Limits

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"  # GitHub Actions' file of the step's summary page
SHOWN_NOTES = 10  # what --merge chose, on stderr: this many lines, then a count


def targets(junit: str | None, summary: str | None) -> list[str]:
    """The files --junit and --summary name, to check before anything runs (the step summary
    that Actions names is appended to, as `check` does, and not checked)."""
    return [path for path in (junit, summary) if path]


def reports(document: dict[str, Any], plan: str | None, *, junit: str | None, summary: str | None,
            notes: Sequence[str] = ()) -> tuple[dict[str, str], str | None]:
    """The files to write with the receipts (path -> text), and the step summary to append to
    ``$GITHUB_STEP_SUMMARY`` when --summary names no file (None when there is none to write).
    ``plan``: the plan's path from the working folder (None: standard input)."""
    from compiler.report.reporters import base_folder, working_folder, workspace_path

    cwd = working_folder()
    shown = workspace_path(plan, cwd, base_folder(os.environ, cwd))[0] if plan is not None else None
    files: dict[str, str] = {}
    if junit:
        from compiler.report.junit import junit_xml

        files[junit] = junit_xml(document, plan_file=shown)
    page = None
    if summary or os.environ.get(STEP_SUMMARY):
        from compiler.report.summary import step_summary

        page = step_summary(document, plan=shown if shown is not None else "<stdin>", notes=notes)
        if summary:
            files[summary] = page
            page = None
    return files, page


def append_summary(page: str | None) -> None:
    """The step summary appended to ``$GITHUB_STEP_SUMMARY`` (other steps write there too); a
    failure to is one line, and changes no exit code."""
    from compiler.commands._output import err

    path = os.environ.get(STEP_SUMMARY)
    if page is None or not path:
        return
    try:
        with open(path, "a", encoding="utf-8", errors="surrogateescape") as out:
            out.write(page)
    except OSError as error:
        err(f"{path}: cannot append the step summary: {error.strerror or error}")


def merge_command(paths: Sequence[str], *, output_dir: str | None, junit: str | None, summary: str | None,
                  strict: bool, limits: Limits) -> int:
    """`verify --merge RECEIPT...`: the receipts read and merged (an input error is raised, exit
    2), written to ``-o DIR`` (default: the working folder) with the JUnit and the summary asked
    for; what the merge chose on stderr. Exit 0 when every merged item passed (a flaky one too,
    unless ``strict``), else 1."""
    from compiler.api.merge import merge, read_receipts
    from compiler.api.receipts import RECEIPTS
    from compiler.commands._output import err, plural, write_files
    from compiler.core.display import escape

    folder = output_dir or "."
    merged = merge([read_receipts(path, limits) for path in paths], folder, strict=strict)
    target = os.path.join(folder, RECEIPTS)
    files, page = reports(merged.document, merged.plan, junit=junit, summary=summary, notes=merged.notes)
    text = json.dumps(merged.document, ensure_ascii=False, separators=(",", ":")) + "\n"  # compact, as verify writes
    if not write_files({target: text, **files}, inputs=paths):
        return EXIT_INPUT
    append_summary(page)
    for note in merged.notes[:SHOWN_NOTES]:
        err(note)
    if len(merged.notes) > SHOWN_NOTES:
        err(f"... and {len(merged.notes) - SHOWN_NOTES:,} more")
    counts = ", ".join(f"{n:,} {word}" for word, n in merged.document["counts"].items() if n)
    said = " (a run was interrupted)" if merged.document["interrupted"] else ""
    err(f"{plural(len(paths), 'receipt')} merged: {counts or 'no items'}{said}; receipts: {escape(target)}")
    return EXIT_READY if merged.passed else EXIT_BLOCKED
