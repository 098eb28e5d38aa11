"""How loading says that a file cannot be a plan: a ``PlanInputError`` carrying one located
diagnostic (exit 2 at the CLI edge), and, once the text is known, the line it points at."""

from __future__ import annotations

import re

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.load.sourcemap import Position


def input_error(code: str, message: str, name: str, pos: Position | None = None,
                hint: str | None = None) -> PlanInputError:
    """An input error of file ``name``, at ``pos`` when there is one."""
    loc = Location(name, pos[0], pos[1]) if pos else Location(name)
    return PlanInputError(Diagnostic(code, message, location=loc, hint=hint))


def with_excerpt(err: PlanInputError, text: str) -> PlanInputError:
    """The same error, carrying the source line it points at (shown with a caret)."""
    loc = err.diagnostic.location
    if loc is None or loc.line is None or err.diagnostic.excerpt is not None:
        return err
    # An error path only: splitting the whole text is fine. \r alone ends a line too in YAML.
    lines = re.split(r"\r\n|\r|\n", text, maxsplit=loc.line) if "\r" in text else text.split("\n", loc.line)
    if loc.line > len(lines):
        return err
    return PlanInputError(err.diagnostic._replace(excerpt=lines[loc.line - 1]))
