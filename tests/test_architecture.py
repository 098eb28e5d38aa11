"""The shape of compiler/ that the layout promises (issue 21): no import cycle, counting every
import statement (inside functions and under ``TYPE_CHECKING`` too, which is what grimp reads), and
no module over ``MAX_LINES`` lines but the layout algorithm. The layers themselves are the
import-linter contracts in pyproject.toml."""

from __future__ import annotations

import ast
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


# A record (a NamedTuple or a dataclass of compiler/) of more than 3 fields is built by keyword:
# at most its first 3 fields by position. What a reader cannot match to a field by counting is
# named. Records on the fast path stay NamedTuples (a keyword call builds one as fast), so this
# test, not the class, holds the rule; a dataclass may say kw_only=True as well.
MAX_POSITIONAL = 3
# The registry of codes is a table, one code a line read side by side, its columns named by the
# class above it (compiler/core/codes.py).
TABLES = {("compiler.core.codes", "Code")}


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _decorator_name(node: ast.expr) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _record_fields(node: ast.ClassDef) -> list[str] | None:
    """The fields of a NamedTuple or dataclass, or None for another class."""
    bases = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases}
    if "NamedTuple" not in bases and "dataclass" not in {_decorator_name(d) for d in node.decorator_list}:
        return None
    return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            and "ClassVar" not in ast.unparse(s.annotation)]


def positional_records(package: Path = PACKAGE) -> list[str]:
    """Each call in compiler/ that builds a record of more than 3 fields with more than 3 arguments
    by position, as ``path:line: module.Record``. A name is followed through ``from X import Y``
    (in functions too, and through re-exports) and ``X.Y`` of an imported module."""
    trees = {_module_name(path, package): (path, ast.parse(path.read_text(encoding="utf-8")))
             for path in sorted(package.rglob("*.py"))}
    records: dict[tuple[str, str], list[str]] = {}
    names: dict[str, dict[str, tuple[str, str]]] = {}  # module -> local name -> (module, name) it is
    modules: dict[str, dict[str, str]] = {}  # module -> local name -> the module it is
    calls: list[tuple[str, Path, ast.Call]] = []  # the calls with more than 3 arguments by position
    for module, (path, tree) in trees.items():
        local = names.setdefault(module, {})
        for node in ast.walk(tree):  # one walk: imports inside functions count
            if isinstance(node, ast.Call) and len(node.args) > MAX_POSITIONAL:
                calls.append((module, path, node))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    if target in trees:
                        modules.setdefault(module, {})[alias.asname or alias.name] = target
                    else:
                        local[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        modules.setdefault(module, {})[alias.asname] = alias.name
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                local[node.name] = (module, node.name)
                if (fields := _record_fields(node)) is not None:
                    records[(module, node.name)] = fields

    def resolve(module: str, name: str) -> tuple[str, str] | None:
        for _ in range(10):  # a re-export of a re-export...
            target = names.get(module, {}).get(name)
            if target is None or target in records:
                return target
            if target[0] == module:
                return None
            module, name = target
        return None

    found = []
    for module, path, call in calls:
        func, record, given = call.func, None, len(call.args)
        if isinstance(func, ast.Name):
            record = resolve(module, func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.attr == "__new__":  # Record.__new__(Record, ...): the class, then the fields
                record, given = resolve(module, func.value.id), given - 1
            elif imported := modules.get(module, {}).get(func.value.id):
                record = resolve(imported, func.attr)
        if (record in records and given > MAX_POSITIONAL and len(records[record]) > MAX_POSITIONAL
                and record not in TABLES):
            found.append(f"{path.relative_to(package.parent).as_posix()}:{call.lineno}: {'.'.join(record)}")
    return found


def test_records_of_more_than_three_fields_are_built_by_keyword() -> None:
    assert positional_records() == []



def test_the_check_of_records_finds_positional_calls_in_functions_and_through_modules(tmp_path: Path) -> None:
    package = tmp_path / "compiler"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "values.py").write_text("from typing import NamedTuple\n\n\n"
                                       "class Four(NamedTuple):\n    a: int\n    b: int\n    c: int\n    d: int = 0\n")
    (package / "uses.py").write_text("import compiler.values as values\n\n\n"
                                     "def build():\n    from compiler.values import Four\n\n"
                                     "    return Four(1, 2, 3, 4), Four(1, 2, 3, d=4), values.Four(1, 2, 3, 4)\n\n\n"
                                     "def fast():\n    from compiler.values import Four\n\n"
                                     "    return Four.__new__(Four, 1, 2, 3, 4), Four.__new__(Four, 1, 2, 3, d=4)\n")
    assert positional_records(package) == ["compiler/uses.py:7: compiler.values.Four"] * 2 + [
        "compiler/uses.py:13: compiler.values.Four"]
