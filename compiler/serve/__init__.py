"""Servers that keep running and answer a client over a protocol: `mcp` (compiler/serve/mcp.py),
for coding agents. Between the commands and the library (compiler/api/): a command starts one, and
its tools are the library's functions. Their SDKs are optional extras, imported here only, never by
another command.
"""

from __future__ import annotations

# The SDK `evidence-plan mcp` is written against, held to this major version, and how to install
# it: the package itself, into the environment evidence-plan runs in, or the `mcp` extra
# (pyproject.toml) with evidence-plan.
MCP_MAJOR = 2
MCP_INSTALL = f"pip install 'mcp>={MCP_MAJOR},<{MCP_MAJOR + 1}'"


def mcp_missing() -> str | None:
    """Why the MCP SDK cannot serve (not installed, or another major version), or None. Asked
    of the installed package's metadata: nothing of the SDK is imported."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("mcp")
    except PackageNotFoundError:
        return (f"evidence-plan mcp needs the MCP SDK {MCP_MAJOR}.x, which is not installed: {MCP_INSTALL} (or install"
                " evidence-plan with its extra: evidence-plan[mcp])")
    if found.split(".")[0] != str(MCP_MAJOR):
        return (f"evidence-plan mcp needs the MCP SDK {MCP_MAJOR}.x, and {found} is installed: {MCP_INSTALL} (or"
                " install evidence-plan with its extra: evidence-plan[mcp])")
    return None
