"""Stage 3: checks over validated items. Each rule yields diagnostics; none stops the others.

A check is a function ``(ctx) -> Iterable[Diagnostic]`` (ctx: compiler/checks/context.py), listed
in its family's ``CHECKS`` (compiler/checks/registry.py runs them); the codes it may emit are
declared in compiler/core/codes.py and documented there (the README table is generated).
"""
