"""Commands that have a module of their own, loaded only when they run (or when the help lists
them), so that `check` starts as fast as before any of them existed: name -> "module:attribute"
of a click command. compiler/cli.py's group reads this."""

from __future__ import annotations

COMMANDS = {
    "approve": "compiler.commands.approve:command",
    "diff": "compiler.commands.diff:command",
    "graph": "compiler.commands.graph:command",
    "next": "compiler.commands.next:command",
    "symbols": "compiler.commands.symbols:command",
    "where": "compiler.commands.where:command",
}
