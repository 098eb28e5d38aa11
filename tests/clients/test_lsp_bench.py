"""`benchmarks/run.py lsp` (benchmarks/lsp_bench.py: `evidence-plan lsp` driven over stdio by pygls's
own client) run small, holding only what does not depend on the machine's speed: that it runs and
reports every figure, that the edits it makes give the diagnostics they should, that a method is
served exactly when the server declares it, and the server's resident memory over 1,000 edits,
which is not a clock. The times themselves are the benchmark's (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install -e '.[lsp]'")
pytestmark = [pytest.mark.performance, pytest.mark.slow,  # each starts the benchmark and a server process
              pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")]

# Growth of the server's resident memory over 1,000 edits (each saved, so checked at once) of a
# 20-item plan, after 100 to warm it up: 0.93 MB measured, one step (a table grown once), where it
# grew 2.4-2.9 MB, 2 kB an edit, before the server took pygls's finished notification futures out
# (tests/serve/test_lsp_notifications.py). tests/clients/test_mcp_client.py holds the agent server
# to the same bound over 1,000 calls.
GROWTH_MB = 2.0
METHODS = {"textDocument/hover", "textDocument/completion"}


def bench(tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    """``run.py lsp ARGS``, its saved results and what it printed."""
    saved = tmp_path / "lsp.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py"), "lsp", *args, "--save", str(saved)],
                          cwd=REPO, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results: dict[str, Any] = json.loads(saved.read_text(encoding="utf-8"))["lsp"]
    return results, done.stdout


def test_the_benchmark_runs_and_reports_every_figure(tmp_path: Path) -> None:
    got, printed = bench(tmp_path, "--lsp-items", "20", "--lsp-warmup", "2", "--lsp-edits", "6", "--lsp-requests", "2")
    assert (got["items"], got["warmup"], got["edits"], got["saved"]) == (20, 2, 6, False)
    assert 0 < got["median"] <= got["p90"] and got["analyse"] > 0 and got["debounce"] > 0 and got["over_floor"] > 0
    # the plan is ready as written; an id with a letter added breaks the dependencies naming it
    assert got["diagnostics"][0] == 0 and len(got["diagnostics"]) > 1
    assert [count for count, _ in got["memory"]] == [0] and got["rss_before_mb"] > 0
    assert set(got["requests"]) == METHODS
    for method, answered in got["requests"].items():
        assert answered["served"] is answered["declared"], method  # served exactly when declared
        if answered["served"]:  # a hover of the cited lines, completion of the ids: not empty answers
            assert 0 < answered["median"] <= answered["p90"] and answered["over_floor"] > 0 and answered["answer"] > 0
    assert got["floor_request"] > 0
    for figure in ("lsp: a one-character edit to its diagnostics, 20-item plan (median; p90)",
                   "lsp: textDocument/hover round trip", "lsp: textDocument/completion round trip",
                   "lsp: server memory growth over 6 edits (after 2 to warm up)"):
        assert figure in printed, figure


def test_a_thousand_edits_do_not_grow_the_server(tmp_path: Path) -> None:
    got, printed = bench(tmp_path, "--lsp-items", "20", "--lsp-warmup", "100", "--lsp-edits", "1000",
                         "--lsp-requests", "1", "--lsp-save")
    print(printed)
    assert got["edits"] == 1000 and got["saved"] is True
    assert [count for count, _ in got["memory"]] == list(range(0, 1001, 100))
    assert got["growth_mb"] < GROWTH_MB
