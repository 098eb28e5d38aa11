"""Stage 3: checks over validated items. Each rule yields diagnostics; none stops the others.

A check is a function ``(ctx) -> Iterable[Diagnostic]`` (ctx: compiler/checks/context.py), listed
in its family's ``RULES`` with the codes it emits and its phase (compiler/checks/registry.py runs
a phase); each code is declared once, in compiler/core/codes.py.
"""
