"""What a test name a proof selects needs beyond a file's own definitions (compiler/repo/symbols.py):
the tests a class inherits from the base classes the repository defines, and the ids of a test
parametrised with literal values.

A base class is followed by name, as Python finds it: a class of the same file, or one imported
from a module of the repository (``from tests.util import Base``, ``from .util import Base``,
``import tests.util`` then ``tests.util.Base``), the module found from the root, from the
importing file's folder (pytest's rootdir insertion) or from ``src/``. ``object`` and unittest's
``TestCase`` define no tests. Any other base (a third-party class, a name not found, an expression)
may define anything: the class's members are then not all known, and a name missing from it is
not judged; nor is one of a class with a decorator or a metaclass, or of a file whose module or
class bodies call ``setattr`` (they may add tests).

Bounded: each file is parsed once (and only when ``Repository.too_large_to_parse`` allows), at
most MAX_FILES files and MAX_PARSED_BYTES a run, a chain of bases visits at most MAX_CLASSES
classes (a cycle of bases ends it), and a test's ids are made only up to MAX_IDS. A file past
these bounds is not read: what depends on it is not judged."""

from __future__ import annotations

import ast
import posixpath
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from compiler.repo.repository import Repository

MAX_FILES = 200  # files parsed for their classes, per run
MAX_PARSED_BYTES = 8 << 20  # and their bytes in all: ast takes about a second a megabyte
MAX_IDS = 10_000  # the ids of one parametrised test, at most: more are not checked
MAX_CLASSES = 64  # classes visited for one name
# Bases that define no tests: object, and unittest's test cases by their usual names.
PLAIN_BASES = frozenset({"object", "TestCase", "unittest.TestCase", "IsolatedAsyncioTestCase",
                         "unittest.IsolatedAsyncioTestCase"})

# pytest's own fixtures, never parametrised: a test that takes them still has only its marks' ids.
PLAIN_FIXTURES = frozenset({"tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "capsys", "capsysbinary",
                            "capfd", "capfdbinary", "caplog", "monkeypatch", "recwarn", "request", "pytestconfig",
                            "record_property", "record_testsuite_property", "record_xml_attribute", "cache",
                            "doctest_namespace", "testdir", "pytester"})


class _Class(NamedTuple):
    bases: list[ast.expr]
    members: set[str]
    opaque: bool  # a decorator or a keyword (metaclass=...): members may be added at run time


class _Outline(NamedTuple):
    classes: dict[str, _Class]  # dotted name (Outer.Inner) -> the class
    imports: dict[str, tuple[str, str | None, int]]  # local name -> (module, name or None for a module, level)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]  # dotted name -> the definition
    marked: set[str]  # the scopes ("" the module, else a class) that set pytestmark
    dynamic: list[bool]  # [True] when a module or class body calls setattr: it may add tests to a class


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """A body's statements, those inside if/try/with blocks of it included."""
    out: list[ast.stmt] = []
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, ast.If):
            stack.extend(reversed([*node.body, *node.orelse]))
        elif isinstance(node, (ast.Try, ast.TryStar)):
            stack.extend(reversed([*node.body, *(s for h in node.handlers for s in h.body), *node.orelse,
                                   *node.finalbody]))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            stack.extend(reversed(node.body))
    return out


def _outline(tree: ast.Module) -> _Outline:
    out = _Outline(classes={}, imports={}, functions={}, marked=set(), dynamic=[False])
    scopes: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    while scopes:
        prefix, body = scopes.pop()
        for node in _statements(body):
            if isinstance(node, ast.ClassDef):
                name = prefix + node.name
                members: set[str] = set()
                for stmt in _statements(node.body):
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        members.add(stmt.name)
                    elif isinstance(stmt, ast.Assign):
                        members.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
                    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        members.add(stmt.target.id)
                out.classes.setdefault(name, _Class(list(node.bases), members,
                                                    bool(node.decorator_list or node.keywords)))
                scopes.append((name + ".", node.body))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.functions.setdefault(prefix + node.name, node)
            elif isinstance(node, ast.Import) and not prefix:
                for alias in node.names:
                    if alias.asname:
                        out.imports[alias.asname] = (alias.name, None, 0)
                    else:  # import a.b binds a, the package
                        top = alias.name.split(".", 1)[0]
                        out.imports.setdefault(top, (top, None, 0))
            elif isinstance(node, ast.ImportFrom) and not prefix:
                for alias in node.names:
                    out.imports[alias.asname or alias.name] = (node.module or "", alias.name, node.level)
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not out.dynamic[0]:
                out.dynamic[0] = any(isinstance(n, ast.Call) and (_dotted(n.func) or "").rsplit(".", 1)[-1] == "setattr"
                                     for n in ast.walk(node))
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                if (any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets) and value is not None
                        and any(isinstance(n, ast.Attribute) and n.attr == "parametrize" for n in ast.walk(value))):
                    out.marked.add(prefix.rstrip("."))  # a parametrize mark on every test of the scope
    return out


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class Members(NamedTuple):
    names: set[str]  # every member the class has or inherits from the bases followed
    complete: bool  # every base was followed (or defines no tests): a name not in names is missing


class Resolver:
    """Classes' members across their bases, and parametrised ids, for one run over a repository."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._outlines: dict[str, _Outline | None] = {}
        self._bytes_left = MAX_PARSED_BYTES

    def _outline(self, path: str) -> _Outline | None:
        if path not in self._outlines:
            found: _Outline | None = None
            facts = self.repo.facts(path)
            if (len(self._outlines) < MAX_FILES and facts.kind == "file" and facts.lines is not None
                    and not facts.binary and not self.repo.too_large_to_parse(path) and facts.size <= self._bytes_left):
                self._bytes_left -= facts.size
                try:
                    found = _outline(ast.parse(self.repo.text(path) or ""))
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    found = None
            self._outlines[path] = found
        return self._outlines[path]

    def _module(self, path: str, module: str, level: int) -> str | None:
        """The file of a module imported by ``path``: relative to its package, or from the root,
        the file's folder or ``src/``. None when the repository does not hold it."""
        parts = [p for p in module.split(".") if p]
        folder = posixpath.dirname(path)
        if level:
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
            starts = [folder]
        else:
            starts = ["", folder, "src"]
        for start in dict.fromkeys(starts):
            base = posixpath.join(start, *parts) if parts else start
            if not base:
                continue
            for candidate in (base + ".py", posixpath.join(base, "__init__.py")):
                if self.repo.facts(candidate).kind == "file":
                    return candidate
        return None

    def _base(self, path: str, scope: str, expr: ast.expr, hops: int = 0) -> tuple[str, str] | str | None:
        """Where a base class is defined: (file, class), "plain" for a base that defines no tests,
        or None when it cannot be followed."""
        dotted = _dotted(expr)
        outline = self._outline(path)
        if dotted is None or outline is None or hops > 8:
            return None
        head, _, rest = dotted.partition(".")
        if not rest:
            for name in ((scope + "." + dotted) if scope else None, dotted):
                if name is not None and name in outline.classes:
                    return path, name
        imported = outline.imports.get(head)
        if imported is not None:
            module, name, level = imported
            if not rest:
                if name is None:
                    return None  # a module is no base class
                target = self._module(path, module, level)
                if target is None:  # from outside the repository
                    return "plain" if name in PLAIN_BASES else None
                return self._named(target, name, hops + 1)
            # tests.util.Base, util.Base: the longest prefix that is a module of the repository
            full = [*(module.split(".") if module else ()), *((name,) if name is not None else ()), *rest.split(".")]
            for k in range(len(full) - 1, 0, -1):
                target = self._module(path, ".".join(full[:k]), level)
                if target is not None:
                    return self._named(target, ".".join(full[k:]), hops + 1)
        return "plain" if dotted in PLAIN_BASES and dotted not in outline.classes else None

    def _named(self, path: str, name: str, hops: int) -> tuple[str, str] | str | None:
        """A class ``name`` as module ``path`` defines or imports it."""
        outline = self._outline(path)
        if outline is None or not name:
            return None
        if name in outline.classes:
            return path, name
        if not all(part.isidentifier() for part in name.split(".")):
            return None
        return self._base(path, "", ast.parse(name, mode="eval").body, hops)

    def members(self, path: str, cls: str) -> Members | None:
        """The members of class ``cls`` of ``path`` with those of its bases; None when the file
        cannot be read as Python or does not define the class."""
        outline = self._outline(path)
        if outline is None or cls not in outline.classes:
            return None
        names: set[str] = set()
        complete = True
        seen: set[tuple[str, str]] = set()
        # (a class, the classes it was reached through): a base among them is a cycle, which
        # Python refuses (the class would not be defined): not judged.
        todo: list[tuple[tuple[str, str], frozenset[tuple[str, str]]]] = [((path, cls), frozenset())]
        while todo:
            where, through = todo.pop()
            if where in through:
                complete = False
                continue
            if where in seen:
                continue  # a diamond: reached twice, read once
            seen.add(where)
            if len(seen) > MAX_CLASSES:
                return Members(names, False)
            file, name = where
            found = self._outline(file)
            if found is None or name not in found.classes:
                complete = False
                continue
            info = found.classes[name]
            names |= info.members
            complete = complete and not info.opaque and not found.dynamic[0]
            scope = name.rsplit(".", 1)[0] if "." in name else ""
            for expr in info.bases:
                base = self._base(file, scope, expr)
                if base is None:
                    complete = False
                elif isinstance(base, tuple):
                    todo.append((base, through | {where}))
        return Members(names, complete)

    def parameter_ids(self, path: str, name: str) -> list[str] | None:
        """The ids pytest gives a test of ``path`` (dotted ``Class.test``) parametrised only by
        ``@pytest.mark.parametrize`` with literal values, in pytest's words (``1``, ``a-2``); None
        when they cannot be told (no such function, values or ids that are not literal, a
        parametrize mark on its class or module, an argument that neither a decorator nor
        pytest's own fixtures give, ids that pytest would make unique or escape)."""
        outline = self._outline(path)
        if outline is None or name not in outline.functions:
            return None
        scope = name.rsplit(".", 1)[0] if "." in name else ""
        if "" in outline.marked or scope in outline.marked:
            return None
        if scope and (scope not in outline.classes or outline.classes[scope].opaque):
            return None
        node = outline.functions[name]
        sets: list[list[str]] = []
        given: set[str] = set()
        for decorator in reversed(node.decorator_list):  # the one nearest the function first
            called = decorator.func if isinstance(decorator, ast.Call) else decorator
            if "parametrize" not in (_dotted(called) or ""):
                continue
            found = _parametrize_ids(decorator) if isinstance(decorator, ast.Call) else None
            if found is None:
                return None
            argnames, ids = found
            given.update(argnames)
            sets.append(ids)
        if not sets:
            return None
        arguments = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        if scope:
            arguments = arguments[1:]  # self
        if any(a not in given and a not in PLAIN_FIXTURES for a in arguments):
            return None  # a fixture may be parametrised too, and add to the id
        out = [""]
        for ids in sets:
            if len(out) * len(ids) > MAX_IDS:
                return None
            out = [f"{a}-{b}" if a else b for a in out for b in ids]
        if len(set(out)) != len(out):
            return None  # pytest makes repeated ids unique, in words that changed between versions
        return out


def _parametrize_ids(call: ast.Call) -> tuple[list[str], list[str]] | None:
    """(argnames, the ids) of one literal ``parametrize`` call, or None."""
    if len(call.args) != 2 or any(k.arg not in ("indirect", "scope", "ids") for k in call.keywords):
        return None
    given = next((k.value for k in call.keywords if k.arg == "ids"), None)
    try:
        argnames = ast.literal_eval(call.args[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(argnames, str):
        names = [n.strip() for n in argnames.split(",") if n.strip()]
    elif isinstance(argnames, (list, tuple)) and all(isinstance(n, str) for n in argnames):
        names = list(argnames)
    else:
        return None
    if not names or not isinstance(call.args[1], (ast.List, ast.Tuple)) or not call.args[1].elts:
        return None  # an empty list gives one skipped test, its id pytest's own
    if given is not None:  # ids=[...]: the words given, one for each value (the values need not be literal)
        try:
            named = ast.literal_eval(given)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if (not isinstance(named, (list, tuple)) or len(named) != len(call.args[1].elts)
                or not all(isinstance(n, str) and _id(n) == n for n in named)):
            return None
        return names, list(named)
    ids: list[str] = []
    for index, element in enumerate(call.args[1].elts):
        try:
            value = ast.literal_eval(element)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None  # pytest.param(...), a name, a call: not literal
        values = [value] if len(names) == 1 else value
        if len(names) > 1 and not (isinstance(values, (list, tuple)) and len(values) == len(names)):
            return None
        parts = [_id(v, name, index) for v, name in zip(values, names, strict=True)]
        if any(p is None for p in parts):
            return None
        ids.append("-".join(p for p in parts if p is not None))
    return names, ids


def _id(value: object, name: str = "", index: int = 0) -> str | None:
    """pytest's id of one literal value: its own text for a printable ASCII string, a number, a
    bool or None; the argument's name and the value's index for a list, tuple, dict or set
    (``lines0``); None where pytest escapes (other strings, bytes) or it is not sure."""
    if isinstance(value, str):
        return value if value and value.isascii() and value.isprintable() else None
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, (list, tuple, dict, set, frozenset)) and name:
        return f"{name}{index}"
    return None
