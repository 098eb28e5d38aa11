"""The console script's entry point (and ``python -m compiler``'s): ``compiler.cli`` imports
click and the commands, which takes tens of milliseconds, and a Ctrl-C in that time would print
a traceback. Here the import itself is guarded; ``compiler.cli.main`` guards the rest."""

from __future__ import annotations

import sys

from compiler.core.exits import INTERRUPTED


def main() -> int:
    try:
        from compiler.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return INTERRUPTED
    return run()
