"""The pipeline in one call: load -> model -> checks -> graph. No printing, no exiting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compiler.codes import Severity
from compiler.diagnostics import Diagnostic, sort_diagnostics
from compiler.load import Document, load
from compiler.model import Plan, build_plan


@dataclass(frozen=True, slots=True)
class CompileResult:
    path: str  # the plan path as given ("-" for standard input)
    document: Document
    plan: Plan
    diagnostics: tuple[Diagnostic, ...]  # sorted by file, line, column, code
    waves: tuple[tuple[str, ...], ...]  # empty when blocked
    critical_path: tuple[str, ...]  # empty when blocked

    @property
    def status(self) -> str:
        return "blocked" if self.count("error") else "ready"

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)

    def wave_of(self) -> dict[str, int]:
        return {ident: n for n, wave in enumerate(self.waves, 1) for ident in wave}


def compile_document(doc: Document, path: str) -> CompileResult:
    """Validate, check and order a loaded document."""
    from compiler.checks import CheckContext, run_checks
    from compiler.graph import build_graph, critical_path, waves

    plan = build_plan(doc)
    graph = build_graph(plan.items)
    diagnostics = [*plan.diagnostics, *run_checks(CheckContext(plan, doc, graph))]
    ordered: tuple[tuple[str, ...], ...] = ()
    longest: tuple[str, ...] = ()
    if not any(d.severity == "error" for d in diagnostics):
        ordered = tuple(tuple(w) for w in waves(graph))
        longest = tuple(critical_path(graph))
    return CompileResult(path, doc, plan, sort_diagnostics(diagnostics), ordered, longest)


def compile_plan(path: str, *, stdin: Any = None) -> CompileResult:
    """Compile the plan file at ``path`` (``-`` reads ``stdin``, default sys.stdin).

    Raises ``compiler.diagnostics.PlanInputError`` when the file cannot be read or is not a plan.
    """
    return compile_document(load(path, stdin=stdin), path)
