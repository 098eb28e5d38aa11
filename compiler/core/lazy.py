"""A regular expression compiled on first use.

Compiling a pattern costs 0.05-0.5 ms; a module compiles its patterns when it is imported, so a
pattern only some plans need (a settings file, a language other than Python, a YAML directive, an
output format) is a cost of every ``check`` when it is compiled there. ``lazy(PATTERN)`` gives a
function that compiles it on its first call and returns the same compiled pattern after. Hot
patterns stay compiled at import (a call per use would cost more than it saves).
"""

from __future__ import annotations

import re
from collections.abc import Callable


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """``re.compile(pattern, flags)``, made on the first call of the function returned."""
    compiled: re.Pattern[str] | None = None

    def get() -> re.Pattern[str]:
        nonlocal compiled
        if compiled is None:
            compiled = re.compile(pattern, flags)
        return compiled

    return get
