"""The shape of compiler/ that the layout promises (issue 21): no import cycle, counting every
import statement (inside functions and under ``TYPE_CHECKING`` too, which is what grimp reads), and
no module over ``MAX_LINES`` lines but the layout algorithm. The layers themselves are the
import-linter contracts in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import grimp
import networkx as nx

PACKAGE = Path(__file__).resolve().parent.parent / "compiler"
MAX_LINES = 450
LONGER_ALLOWED = {"compiler/render/layout.py"}  # the layout algorithm, one concern that reads best whole


def test_compiler_has_no_import_cycle_counting_imports_inside_functions() -> None:
    graph = grimp.build_graph("compiler", cache_dir=None)
    imports = nx.DiGraph()
    for module in graph.modules:
        imports.add_node(module)
        imports.add_edges_from((module, imported) for imported in graph.find_modules_directly_imported_by(module))
    cycles = sorted(sorted(component) for component in nx.strongly_connected_components(imports)
                    if len(component) > 1 or any(imports.has_edge(m, m) for m in component))
    assert cycles == [], "modules that import each other, directly or around a cycle: " + "; ".join(
        " <-> ".join(cycle) for cycle in cycles)


def test_no_module_of_compiler_is_over_450_lines_but_the_layout_algorithm() -> None:
    sizes = {path.relative_to(PACKAGE.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py")}
    assert set(LONGER_ALLOWED) <= set(sizes)  # the exception names a module that exists
    over = {name: lines for name, lines in sorted(sizes.items()) if lines > MAX_LINES and name not in LONGER_ALLOWED}
    assert over == {}, f"modules over {MAX_LINES} lines (split them by concern): {over}"
