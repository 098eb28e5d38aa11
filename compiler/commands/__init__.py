"""The commands, one module each, loaded only when they run (or when the help lists them), so
that `check` imports nothing another command needs: name -> "module:attribute" of a click
command. compiler/cli.py's group reads this; every suite that states something of every command
enumerates it (through the group)."""

from __future__ import annotations

COMMANDS = {name: f"compiler.commands.{name}:command" for name in (
    "approve", "check", "ci", "compile", "convert", "diff", "explain", "fix", "graph", "init", "lsp", "mcp", "next",
    "render", "schema", "symbols", "verify", "where")}
