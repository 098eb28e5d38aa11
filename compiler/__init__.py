"""evidence-plan: an evidence-driven plan compiler.

The library is usable without the CLI::

    from compiler import compile_plan
    result = compile_plan("plan.yaml")
    result.status          # "ready" or "blocked"
    result.diagnostics     # tuple of Diagnostic

    from compiler import compile_to_folder   # what `evidence-plan compile plan.yaml -o build` does
    compiled = compile_to_folder("plan.yaml", "build")
    list(compiled.files)   # the artifacts written, evidence-plan.json first

Heavy modules are imported on first use, so that ``import compiler`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compiler.core.version import __version__

__all__ = ["CompileResult", "Diagnostic", "PlanInputError", "__version__", "compile_plan", "compile_to_folder"]

if TYPE_CHECKING:
    from compiler.api.compile import compile_to_folder
    from compiler.compile.pipeline import CompileResult, compile_plan
    from compiler.core.diagnostics import Diagnostic, PlanInputError

_LAZY = {
    "CompileResult": "compiler.compile.pipeline",
    "compile_plan": "compiler.compile.pipeline",
    "compile_to_folder": "compiler.api.compile",
    "Diagnostic": "compiler.core.diagnostics",
    "PlanInputError": "compiler.core.diagnostics",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
