"""What a proof command runs, read with the shell's grammar (never run): the commands of a proof
line and, for each, the repository script it names, if any.

A script is named by the command word itself when it is a relative path (``./tools/x.sh``,
``scripts/check.py``), or by the first argument of an interpreter (``python3 scripts/check_links.py``,
``bash tools/x.sh``; not ``python -m pytest``, whose first argument is an option). Words after an
environment assignment (``CI=1 ./x.sh``) count the same. Absolute paths, ``~`` and variables are
someone else's: not named."""

from __future__ import annotations

import re

from compiler.checks.items import split_commands

INTERPRETERS = frozenset({"python", "python3", "py", "bash", "sh", "zsh", "node", "ruby", "perl", "pwsh"})
# Most proofs name no script (`pytest ...`, `make test`): one search settles them.
_MAY_NAME_A_SCRIPT = re.compile(r"\.(?:py|sh|bash|js|mjs|rb|pl|ps1)\b|(?:^|[\s;&|(])\./")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def scripts(proof: str) -> list[str]:
    """The repository scripts a proof runs, in order, each once."""
    if not _MAY_NAME_A_SCRIPT.search(proof):
        return []
    import shlex  # only for the few proofs that may name a script

    out: list[str] = []
    seen: set[str] = set()
    for command in split_commands(proof):
        try:
            words = shlex.split(command, comments=True)
        except ValueError:  # an unclosed quote: not a command we can read, so nothing to check
            continue
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        if not words:
            continue
        first = words[0]
        if first.rsplit("/", 1)[-1] in INTERPRETERS and len(words) > 1 and not words[1].startswith("-"):
            candidate = words[1]
        elif "/" in first:
            candidate = first
        else:
            continue
        if candidate.startswith(("/", "~")) or "$" in candidate or candidate.removeprefix("./") in seen:
            continue
        seen.add(candidate.removeprefix("./"))
        out.append(candidate)
    return out
