"""`evidence-plan lsp` with a real editor as its client: Neovim (``nvim --headless``), configured
with the very Lua docs/guide/editors.md gives for Neovim 0.7 (Debian 12's Neovim; the snippet runs
on later ones too), opening a broken plan in a repository. What Neovim then holds
(``vim.diagnostic.get``) is what `check --format json` says of the file: the same codes, on the
same lines and columns, with the same severities and messages.

The same Neovim also matches the guide's file patterns as Vim does (its autocommand patterns
through ``glob2regpat``, the 0.11 configuration's ``vim.regex``) against the names of plan files
(compiler/repo/discover.py). Skipped where there is no ``nvim`` (.ci/run installs Debian's).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO, docs_block, docs_page, run, sloppy_repository
from test_editors_guide import NAMES

from compiler.repo.discover import is_plan_file

NVIM = shutil.which("nvim")
pytestmark = [pytest.mark.slow,  # starts Neovim and the server
              pytest.mark.skipif(NVIM is None, reason="needs Neovim (nvim): apt-get install neovim")]

# Run after the plan is open (-c): wait until the server's diagnostics arrive (WAIT ms at most),
# match the names against the guide's patterns, and write both as JSON to $OUT; then quit.
AFTER = """
local given = vim.fn.json_decode(vim.fn.readfile(vim.env.GIVEN))
local arrived = vim.wait(given.wait, function() return #vim.diagnostic.get(0) > 0 end, 20)
local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(diagnostics, { code = d.code, lnum = d.lnum, col = d.col, severity = d.severity, message = d.message })
end
local matched = { glob = {}, regex = {} }
local regex = vim.regex(given.regex)
for _, name in ipairs(given.names) do
  local any = false
  for _, pattern in ipairs(given.patterns) do
    any = any or vim.fn.match(name, vim.fn.glob2regpat(pattern)) >= 0
  end
  matched.glob[name] = any
  matched.regex[name] = regex:match_str(name) ~= nil
end
local written = { arrived = arrived, diagnostics = diagnostics, matched = matched }
vim.fn.writefile({ vim.fn.json_encode(written) }, vim.env.OUT)
vim.cmd("qa!")
"""
WAIT_MS = 30_000  # a loaded machine is slow, never this slow; the test takes about a second
SEVERITY = {"error": 1, "warning": 2}  # vim.diagnostic.severity


def neovim(repo: Path, tmp_path: Path, given: dict[str, Any]) -> dict[str, Any]:
    """Neovim started in ``repo`` on plan.yaml with the guide's 0.7 configuration as its init.lua,
    and `evidence-plan` on its PATH running this checkout's code; what AFTER wrote."""
    assert NVIM is not None
    home, bin_ = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bin_.mkdir()
    server = bin_ / "evidence-plan"
    server.write_text(f"#!/bin/sh\nexec {sys.executable} -m compiler \"$@\"\n", encoding="utf-8")
    server.chmod(0o755)
    init, after, given_path, out = (tmp_path / name for name in ("init.lua", "after.lua", "given.json", "out.json"))
    init.write_text(docs_block("guide/editors.md", "neovim-0.7"), encoding="utf-8")
    after.write_text(AFTER, encoding="utf-8")
    given_path.write_text(json.dumps({**given, "wait": WAIT_MS}), encoding="utf-8")
    env = {"PATH": f"{bin_}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO), "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_STATE_HOME": str(home / ".local" / "state"), "GIVEN": str(given_path), "OUT": str(out)}
    done = subprocess.run([NVIM, "--headless", "--clean", "-u", str(init), "plan.yaml", "-c", f"luafile {after}"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=WAIT_MS / 1000 + 30, check=False)
    assert done.returncode == 0 and out.is_file(), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim_shows_the_diagnostics_check_gives(tmp_path: Path) -> None:
    repo = sloppy_repository(tmp_path / "repo")
    (regex,) = re.findall(r"vim\.regex\(\[\[(.*?)\]\]\)", docs_page("guide/editors.md"))
    (patterns,) = re.findall(r"\bpattern = \{([^}]*)\}", docs_block("guide/editors.md", "neovim-0.7"))
    got = neovim(repo, tmp_path, {"names": NAMES, "regex": regex, "patterns": re.findall(r'"([^"]*)"', patterns)})
    assert got["arrived"] is True
    expected = json.loads(run("check", "--format", "json", str(repo / "plan.yaml")).stdout)
    shown = sorted((d["code"], d["lnum"] + 1, d["col"] + 1, d["severity"], d["message"].split("\nhint: ")[0].rsplit(
        " [", 1)[0]) for d in got["diagnostics"])
    assert shown == sorted((d["code"], d["location"]["line"], d["location"]["column"], SEVERITY[d["severity"]],
                            d["message"]) for d in expected)
    assert len(shown) == 7 and {row[3] for row in shown} == {1, 2}
    plan_files = {name: is_plan_file(name) for name in NAMES}
    assert got["matched"] == {"glob": plan_files, "regex": plan_files}
