"""Servers that keep running and answer a client over a protocol: `mcp` (compiler/serve/mcp.py),
for coding agents, and `lsp` (compiler/serve/lsp.py), for editors. Between the commands and the
library (compiler/api/): a command starts one, and what it answers is the library's functions.
Their SDKs are optional extras, imported here only, never by another command.
"""

from __future__ import annotations

from typing import NamedTuple

# The command line collects cyclic garbage 140 times less often than Python does (compiler/cli.py:
# right for one short compile); a server that runs for hours makes a little at every request, which
# would pile up for thousands of requests before a collection. While one serves, Python's own
# thresholds.
SERVER_GC = (700, 10, 10)


class SDK(NamedTuple):
    """The package a server is written against, held to one major version, and the extra of
    evidence-plan (pyproject.toml) that installs it."""

    package: str
    title: str
    major: int
    extra: str

    @property
    def install(self) -> str:
        return f"pip install '{self.package}>={self.major},<{self.major + 1}'"


SDKS = {
    "mcp": SDK(package="mcp", title="the MCP SDK", major=2, extra="mcp"),
    "lsp": SDK(package="pygls", title="pygls", major=2, extra="lsp"),
}


def missing(command: str) -> str | None:
    """Why the SDK of `evidence-plan COMMAND` cannot serve (not installed, or another major
    version), or None. Asked of the installed package's metadata: nothing of the SDK is imported."""
    from importlib.metadata import PackageNotFoundError, version

    sdk = SDKS[command]
    wanted = f"evidence-plan {command} needs {sdk.title} {sdk.major}.x"
    how = f"{sdk.install} (or install evidence-plan with its extra: evidence-plan[{sdk.extra}])"
    try:
        found = version(sdk.package)
    except PackageNotFoundError:
        return f"{wanted}, which is not installed: {how}"
    if found.split(".")[0] != str(sdk.major):
        return f"{wanted}, and {found} is installed: {how}"
    return None

