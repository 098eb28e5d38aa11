"""Shell words of a proof line, read with the shell's grammar (never run): where one command
ends and the next begins. What a command runs is compiler/analysis/proofs.py's."""

from __future__ import annotations

from collections.abc import Iterable

# What may separate two commands of a line (outside quotes and parentheses): ``&&``, ``||``, ``;``,
# a newline; ``|`` and ``&`` only as part of those.
SEPARATORS = frozenset(";&|\n")


def may_split(proof: str) -> bool:
    """Whether ``proof`` holds a character that may separate commands: most proofs do not, and
    pay one set test, no split."""
    return not SEPARATORS.isdisjoint(proof)


def any_may_split(proofs: Iterable[str]) -> bool:
    """``may_split`` of any of ``proofs``, in one search over them joined: a plan whose proofs hold
    no separator (most) is settled without a step per proof."""
    joined = "\x00".join(proofs)
    return any(map(joined.__contains__, SEPARATORS))


def split_commands(proof: str) -> list[str]:
    """The commands of a shell line, split at top-level ``&&``, ``||``, ``;`` and newlines.

    Separators inside quotes, after a backslash, or inside ``$(...)``, ``(...)`` or backticks
    do not count; a pipeline (``a | b``) is one command."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    depth = 0
    i, n = 0, len(proof)
    while i < n:
        ch = proof[i]
        if ch == "\\" and quote != "'":
            current.append(proof[i:i + 2])
            i += 2
            continue
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and (proof.startswith(("&&", "||"), i) or ch in ";\n"):
            parts.append("".join(current))
            current = []
            i += 1 if ch in ";\n" else 2
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]
