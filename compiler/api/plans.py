"""Plans as the commands that compare or draw them read them: ``read_side`` for `diff` (read
and checked, with its source map for the items' lines), ``read_document`` for `graph` (compiled
as `compile` would, written nowhere)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compiler.analysis.revisions import Side
from compiler.load.arguments import is_revision, load_plan_argument

if TYPE_CHECKING:
    from compiler.load.document import Document
    from compiler.load.limits import Limits


def read_side(arg: str, *, stdin: Any = None, root: str | None = None, verify_evidence: bool = False,
              limits: Limits | None = None, rev: str | None = None) -> Side:
    """Read and check one plan: a plan file or a compiled evidence-plan.json, ``-`` (standard
    input) or ``REV:path``; with ``rev``, the file ``arg`` as it was at that revision. Raises
    PlanInputError when it is not a usable plan."""
    from compiler.load.limits import DEFAULT_LIMITS

    doc, path = load_plan_argument(arg, stdin=stdin, limits=limits or DEFAULT_LIMITS, rev=rev)
    return side_of(doc, path, root=root, verify_evidence=verify_evidence)


def side_of(doc: Document, path: str, *, root: str | None = None, verify_evidence: bool = False) -> Side:
    """A plan already read (``doc``, from ``path``: ``-`` for text that is no file), checked as
    one side of `diff`."""
    from compiler.compile.pipeline import compile_document

    result = compile_document(doc, path, root=root, verify_evidence=verify_evidence, order=False)
    return Side(name=doc.name, plan=result.plan, doc=doc, status=result.status, diagnostics=result.diagnostics)


def read_document(arg: str, *, root: str | None = None, verify_evidence: bool = True,
                  limits: Limits | None = None, rev: str | None = None) -> dict[str, Any]:
    """A plan file, a compiled evidence-plan.json (its items read back), ``-``, ``REV:path`` or,
    with ``rev``, the file ``arg`` as it was at that revision (git history, as `diff` reads it;
    its evidence is not checked: today's files are not its),
    compiled as `compile` would, without writing anything. Raises PlanInputError."""
    from compiler.compile.emit import build_output
    from compiler.compile.pipeline import compile_document
    from compiler.load.limits import DEFAULT_LIMITS

    doc, path = load_plan_argument(arg, limits=limits or DEFAULT_LIMITS, rev=rev)
    verify_evidence = verify_evidence and rev is None and not is_revision(arg)
    result = compile_document(doc, path, root=root, verify_evidence=verify_evidence).for_output()
    return build_output(result, ".")
