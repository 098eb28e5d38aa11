"""The plan a command's argument names: a file (or a compiled evidence-plan.json), ``-`` (standard
input), or ``REV:path``, a file of git history (compiler/load/gitshow.py reads it, locally and
bounded); and ``--base REV`` / ``--rev REV``, the argument's file as it was at REV, a form that no
file can take over."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError

if TYPE_CHECKING:
    from compiler.load.document import Document
    from compiler.load.limits import Limits


# Arguments that are always a file, whatever else they look like: a path spelled from here or from /.
_FILE_PREFIXES = ("./", "../", "/", *((".\\", "..\\", "\\") if os.sep == "\\" else ()))


def revision_form(arg: str) -> bool:
    """Whether ``arg`` is shaped as ``REV:path``: a ``:`` with text on both sides, a revision that
    does not start with ``-`` (``--output=x:y`` would be an option of git's), no Windows drive
    (``C:\\x``, ``C:/x``), no NUL or line break, and no explicit path (``./x:y``, ``/x:y``: a file)."""
    if arg == "-" or any(c in arg for c in "\x00\n\r") or arg.startswith(_FILE_PREFIXES):
        return False
    rev, sep, path = arg.partition(":")
    if not sep or not rev or not path or rev.startswith("-"):  # git would read "-..." as an option
        return False
    return not (len(rev) == 1 and rev.isalpha() and path[:1] in ("\\", "/"))


def is_revision(arg: str) -> bool:
    """Whether ``arg`` names a file of git history (``REV:path``) rather than a file: shaped so,
    and no file of that name exists (when one does, ``load_plan_argument`` reads the file, or
    refuses the name as ambiguous when git history has it too)."""
    return revision_form(arg) and not os.path.lexists(arg)


def load_revision(spec: str, limits: Limits) -> Document:
    """The plan ``spec`` (``REV:path``) names in the local repository's history (compiler/load/gitshow.py)."""
    from compiler.load.document import parse_text
    from compiler.load.gitshow import read_blob
    from compiler.load.read import decode, detect_format

    text = decode(read_blob(spec, limits), spec)
    return parse_text(text, spec, detect_format(spec.partition(":")[2], text), limits=limits)


def load_plan_argument(arg: str, *, stdin: Any = None, limits: Limits, rev: str | None = None) -> tuple[Document, str]:
    """The document a command's plan argument names, and the path its relative paths start from:
    a file (or a compiled evidence-plan.json), ``-`` (standard input), or ``REV:path`` from git
    history, whose relative paths start from the working folder, as standard input's do. With
    ``rev`` (`diff --base`, `graph --rev`), ``arg`` is a path from the working folder, read as it
    was at that revision (``REV:./arg``).

    A name that is both a file and a ``REV:path`` git history has is refused (EP001): a pull
    request could add a file ``origin/main:plan.yaml`` to stand for the base branch's plan."""
    from compiler.load.document import load
    from compiler.load.read import STDIN

    if rev is not None:
        from compiler.load.gitshow import at_revision

        return load_revision(at_revision(rev, arg), limits), STDIN
    if revision_form(arg):
        if not os.path.lexists(arg):
            return load_revision(arg, limits), STDIN
        from compiler.load.gitshow import in_history

        known = in_history(arg)
        if known is not False:  # git has it, or the clone has not the trees to say it has not
            raise _ambiguous(arg, known)
    return load(arg, stdin=stdin, limits=limits), arg


def _ambiguous(arg: str, known: bool | None) -> PlanInputError:
    """EP001 for a name that is a file and a file of git history (``known``; None: may be, the
    clone has not the trees to tell): how to write each."""
    from compiler.load.gitshow import from_working_folder

    rev, _, path = arg.partition(":")
    here = from_working_folder(path)
    has = "has" if known else "may have (the clone has not fetched the trees to tell)"
    return PlanInputError(Diagnostic(
        "EP001", f"ambiguous: a file of this name exists, and git history {has} {path} at {rev}; neither is read",
        location=Location(arg),
        hint=f"for the file, write ./{arg}; for git history, give the revision by option: --base {rev} {here} "
             f"(diff: OLD as it was at that revision) or --rev {rev} {here} (graph)"))
