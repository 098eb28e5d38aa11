"""Servers that keep running and answer a client over a protocol: `mcp` (compiler/serve/mcp.py),
for coding agents. Between the commands and the library (compiler/api/): a command starts one, and
its tools are the library's functions. Their SDKs are optional extras, imported here only, never by
another command.
"""

from __future__ import annotations

# The SDK `evidence-plan mcp` is written against, and how to install it: the `mcp` extra
# (pyproject.toml), held to this major version.
MCP_MAJOR = 2
MCP_INSTALL = "pip install 'evidence-plan[mcp]'"


def mcp_missing() -> str | None:
    """Why the MCP SDK cannot serve (not installed, or another major version), or None. Asked
    of the installed package's metadata: nothing of the SDK is imported."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("mcp")
    except PackageNotFoundError:
        return f"evidence-plan mcp needs the MCP SDK, an optional extra: {MCP_INSTALL}"
    if found.split(".")[0] != str(MCP_MAJOR):
        return (f"evidence-plan mcp needs the MCP SDK {MCP_MAJOR}.x, and {found} is installed:"
                f" {MCP_INSTALL} (it installs mcp>={MCP_MAJOR},<{MCP_MAJOR + 1})")
    return None
