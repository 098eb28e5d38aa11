"""`evidence-plan init`'s library half: a starter plan that cites real files of a repository, and
the pre-commit and CI snippets that check it.

What is cited is found as evidence is checked (compiler/repo/repository.py: the bounded walk of
``all_files``, which skips version-control, vendored and cache folders, and the symbols that
``path::Name`` resolves), so that `check` finds the starter plan ready:

- a test: the first test of the first file named ``test_*.py`` or ``*_test.py`` that has one (the
  tests of the source cited first, ``test_MODULE.py``, then of its package, then those of a test
  folder; shallowest first): a function ``test*``, or a method ``test*`` of a class pytest
  collects (``Test*``) or of a ``TestCase``. Its proof runs it as the repository runs its tests:
  pytest (``python -m pytest FILE::Class::test``) where anything says pytest (a conftest.py, its
  settings, the test file), else ``python -m unittest`` for a TestCase's test;
- a source file: a Python file outside the tests and hidden or private folders (under ``src/``
  first, else in a package at the top, else any), the one with the most public functions and
  classes among the first ``MAX_SOURCES``, cited by its first one;
- the README at the top (``README.md``, ``.rst``, ``.txt`` or none, in any case), cited by its
  usage, example or install section where it is Markdown, else by its first lines.

Missing pieces make the plan smaller, never wrong: with no test, the first item writes one (its
file is in ``paths:``, so its proof may name it); with nothing at all, the items cite the
repository's folder. Only paths and names that read back as themselves in YAML and in a shell
line are cited.

The snippets are the ones docs/guide/pre-commit.md and docs/guide/ci.md show: tests/test_docs.py
holds the pages to ``PRE_COMMIT`` and ``ci_workflow("plan.yaml")``.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from typing import NamedTuple

from compiler.api.edit import yaml_scalar
from compiler.core.paths import inside, relative_posix, work_tree
from compiler.core.targets import refuse
from compiler.repo.discover import is_plan_file
from compiler.repo.listing import repository_root
from compiler.repo.repository import Repository

DEFAULT_NAME = "plan.yaml"
TAKEN = "give another name with -o, or move the file away"
MAX_SOURCES = 200  # Python files whose definitions are read to choose the source file
MAX_TESTS = 50  # test files read to find a test
README_NAMES = ("readme.md", "readme.rst", "readme.txt", "readme")  # at the top, in any case, in this order
README_LINES = 20  # a README that is not Markdown is cited by its first lines, at most these
# The README sections a change most likely keeps true, in this order (words of the heading, any case).
README_SECTIONS = ("usage", "example", "quick", "getting started", "install")
TEST_FOLDERS = frozenset({"tests", "test", "testing"})
NOT_SOURCES = frozenset({"setup.py", "conftest.py", "noxfile.py", "fabfile.py", "__main__.py"})
# A path or a name cited as it is: it reads back as itself in YAML and in a shell line.
PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*")
PLAIN_HEADING = re.compile(r"[\w][\w .,&'()+-]*")

PRE_COMMIT = """\
# .pre-commit-config.yaml
repos:
  - repo: https://github.com/OWNER/evidence-plan   # where you host this repository
    rev: main                                      # then `pre-commit autoupdate --freeze` pins a commit
    hooks:
      - id: evidence-plan-all      # every plan of the repository, on every commit
      # - id: evidence-plan        # or: only the staged plan files
"""


def ci_workflow(plan: str) -> str:
    """The GitHub Actions workflow of docs/guide/ci.md, checking ``plan`` (a path relative to the
    repository's top, as PLAIN)."""
    return f"""\
# .github/workflows/plan.yml
name: plan
on: [pull_request]
permissions:
  contents: read
  security-events: write   # upload-sarif (not granted to pull requests from forks)
  actions: read            # upload-sarif reads the run's details: needed in a private repository
jobs:
  plan:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {{python-version: "3.12"}}
      - run: pip install git+https://github.com/OWNER/evidence-plan   # not on PyPI: where you host it
      - run: evidence-plan check {plan}   # annotations and the job summary; exit 1 when blocked
      - run: evidence-plan check --format sarif {plan} > evidence-plan.sarif
        if: always()
      - uses: github/codeql-action/upload-sarif@v3
        if: always()
        with:
          sarif_file: evidence-plan.sarif
          category: evidence-plan
      - run: evidence-plan compile {plan} -o build
        if: always()
      - uses: actions/upload-artifact@v4
        if: always()
        with: {{name: evidence-plan, path: build/}}
"""


class Test(NamedTuple):
    evidence: str  # tests/test_x.py::TestX.test_y
    proof: str  # the command that runs it: python -m pytest tests/test_x.py::TestX::test_y
    file_proof: str  # the command that runs its file's tests


class Found(NamedTuple):
    """What a starter plan cites (each None when the repository has none to cite), and the files
    seen."""

    readme: str | None  # README.md::Usage, or README.rst:1-20
    source: str | None  # src/pkg/module.py::function
    test: Test | None
    files: frozenset[str] = frozenset()


class Starter(NamedTuple):
    """A starter plan, written: where, its text, and what the snippets name."""

    root: str  # the repository root, absolute
    output: str  # the plan's path, as given (or the default's)
    text: str
    found: Found
    checked_as: str  # the plan's path from the top of the repository, as CI checks it
    hooked: bool  # whether the pre-commit hooks find it by its name


def _python(path: str) -> bool:
    return path.endswith(".py") and PLAIN.fullmatch(path) is not None


def _is_test_file(path: str) -> bool:
    name = posixpath.basename(path)
    return _python(path) and (name.startswith("test_") or name.endswith("_test.py"))


_CLASS = re.compile(r"\s*class\s+(\w+)\s*(?:\((.*))?")


def _test_class(repo: Repository, path: str, name: str, span: tuple[int, int]) -> str | None:
    """How a class of a test file is collected: "unittest" (a ``TestCase`` among its bases, by
    name: ``unittest.TestCase``, ``BaseTestCase``), "pytest" (named ``Test*``), or None (neither
    collects it)."""
    lines = repo.facts(path).lines or []
    head = next((line for line in lines[span[0] - 1:span[1]] if not line.lstrip().startswith("@")), "")
    match = _CLASS.match(head)
    if match is None or match.group(1) != name:
        return None
    if "TestCase" in (match.group(2) or ""):
        return "unittest"
    return "pytest" if name.startswith("Test") else None


def _uses_pytest(repo: Repository, files: list[str], test_file: str) -> bool:
    """Whether the repository runs its tests with pytest: a conftest.py or pytest.ini, pytest
    named in its settings (pyproject.toml, setup.cfg, tox.ini), or imported by the test file."""
    if any(posixpath.basename(f) in ("conftest.py", "pytest.ini") for f in files):
        return True
    settings = [f for f in ("pyproject.toml", "setup.cfg", "tox.ini") if f in files]
    return any("pytest" in (repo.text(f) or "") for f in [*settings, test_file])


def _test_of(repo: Repository, files: list[str], path: str, name: str, kind: str | None) -> Test:
    """A test to cite, and the commands that run it and its file: pytest's, unless the repository
    shows no sign of pytest and the test is a unittest method (``python -m unittest``, by the
    dotted name of its module, where the file's path is one)."""
    parts = name.split(".")
    module = path.removesuffix(".py").replace("/", ".")
    if kind == "unittest" and all(map(str.isidentifier, module.split("."))) and not _uses_pytest(repo, files, path):
        return Test(f"{path}::{name}", f"python -m unittest {module}.{name}", f"python -m unittest {module}")
    return Test(f"{path}::{name}", _pytest(f"{path}::{'::'.join(parts)}"), _pytest(path))


def _first_test(repo: Repository, files: list[str], source: str | None) -> Test | None:
    """The first test of the first test file that has one: the tests of the source module
    (``test_MODULE.py``) first, then those of its package (``test_PACKAGE.py``), then those in a
    test folder, then the rest; shallowest first. A test is a function ``test*``, or a method
    ``test*`` of a class pytest or unittest collects."""
    module, package = _names(source)
    tests = [f for f in files if _is_test_file(f)]
    tests.sort(key=lambda f: (posixpath.basename(f) != f"test_{module}.py",  # stable: in walk order within
                              posixpath.basename(f) != f"test_{package}.py",
                              not TEST_FOLDERS.intersection(f.split("/")[:-1])))
    for path in tests[:MAX_TESTS]:
        symbols = repo.symbols(path)
        for name, _ in sorted(symbols.items(), key=lambda entry: entry[1]):
            parts = name.split(".")
            if not parts[-1].startswith("test") or len(parts) > 2 or not all(map(str.isidentifier, parts)):
                continue
            if len(parts) == 1:
                return _test_of(repo, files, path, name, None)
            kind = _test_class(repo, path, parts[0], symbols.get(parts[0], (0, 0)))
            if kind is not None:
                return _test_of(repo, files, path, name, kind)
    return None


def _sources(files: list[str]) -> list[str]:
    """Python files that are not tests: those under src/, else those of packages at the top, else any."""
    python = [f for f in files if _python(f) and not _is_test_file(f) and posixpath.basename(f) not in NOT_SOURCES
              and not TEST_FOLDERS.intersection(f.split("/")[:-1])
              and not any(part.startswith(("_", ".")) for part in f.split("/")[:-1])
              and (posixpath.basename(f) == "__init__.py" or not posixpath.basename(f).startswith("_"))]
    packages = {f.split("/")[0] for f in python if f.count("/") == 1 and f.endswith("/__init__.py")}
    for chosen in ([f for f in python if f.startswith("src/")], [f for f in python if f.split("/")[0] in packages]):
        if chosen:
            return chosen
    return python


_DEFINITION = re.compile(r"\s*(?:async\s+def|def|class)\s+(\w+)")


def _public_definitions(repo: Repository, path: str) -> list[str]:
    """The public functions and classes at the top of a Python file (not an import, not an
    assignment: the line that begins the definition, after its decorators, says ``def`` or
    ``class``), by line."""
    lines = repo.facts(path).lines or []
    found = []
    for name, (first, last) in repo.symbols(path).items():
        if "." in name or not name.isidentifier() or name.startswith("_"):
            continue
        head = next((line for line in lines[first - 1:last] if not line.lstrip().startswith("@")), "")
        begun = _DEFINITION.match(head)
        if begun is not None and begun.group(1) == name:
            found.append((first, name))
    return [name for _, name in sorted(found)]


def _source(repo: Repository, files: list[str]) -> str | None:
    """The source file with the most public definitions (the first of those that tie), cited by
    its first one."""
    best: tuple[int, str, str] | None = None
    for path in _sources(files)[:MAX_SOURCES]:
        names = _public_definitions(repo, path)
        if names and (best is None or len(names) > best[0]):
            best = (len(names), path, names[0])
    return None if best is None else f"{best[1]}::{best[2]}"


def _names(source: str | None) -> tuple[str | None, str | None]:
    """The module a source file is (None for a package's ``__init__.py``) and the package it
    belongs to: its folder under src/ or at the top (None for a module at the top)."""
    if source is None:
        return None, None
    parts = source.split("::")[0].removesuffix(".py").split("/")
    parts = parts[1:] if parts[0] == "src" else parts
    return (None if parts[-1] == "__init__" else parts[-1]), (parts[0] if len(parts) > 1 else None)


def _readme(repo: Repository, files: list[str]) -> str | None:
    top = {f.lower(): f for f in files if "/" not in f and PLAIN.fullmatch(f)}
    path = next((top[name] for name in README_NAMES if name in top), None)
    if path is None:
        return None
    lines = repo.facts(path).lines
    if path.lower().endswith(".md"):
        sections = [name for name, _ in sorted(repo.symbols(path).items(), key=lambda entry: entry[1])
                    if PLAIN_HEADING.fullmatch(name) and not repo.ambiguous(path, name)]
        for word in README_SECTIONS:
            named = next((name for name in sections if word in name.lower()), None)
            if named is not None:
                return f"{path}::{named}"
        if sections:
            return f"{path}::{sections[0]}"
    if lines:
        last = min(len(lines), README_LINES)
        return f"{path}:1" if last == 1 else f"{path}:1-{last}"
    return path


def find_evidence(root: str) -> Found:
    """What a starter plan of the repository at ``root`` cites."""
    repo = Repository(root)
    files = repo.all_files()
    source = _source(repo, files)
    return Found(readme=_readme(repo, files), source=source, test=_first_test(repo, files, source),
                 files=frozenset(files))


def _pytest(target: str) -> str:
    return f"python -m pytest {shlex.quote(target)}"


def _new_test(found: Found) -> str:
    """The test file a repository without tests gets, named for the source cited
    (tests/test_x.py), and not the name of a file it has."""
    module, package = _names(found.source)
    stem = f"tests/test_{module or package or 'starter'}"
    return next(name for n in range(len(found.files) + 1)
                if (name := f"{stem}{f'_{n}' if n else ''}.py") not in found.files)


def plan_text(found: Found, root_key: str | None = None) -> str:
    """The starter plan: an item that states the behaviour in a test, and an item that makes the
    change, after it; each citing what ``found`` holds."""
    def entries(*evidence: str | None) -> list[str]:
        cited = [e for e in evidence if e is not None] or ["."]
        return [f"      - {yaml_scalar(e)}" for e in cited]

    lines = [
        "# A starter plan, written by `evidence-plan init` from the files of this repository. Replace each",
        "# item's change with yours, cite what justifies it (`evidence-plan symbols FILE` and",
        "# `evidence-plan where TEXT` print entries to paste), give each the one command that proves it,",
        "# then: evidence-plan check PLAN. `evidence-plan explain CODE` explains each problem it reports.",
    ]
    if root_key is not None:
        lines.append(f"root: {yaml_scalar(root_key)}   # the repository, from this file's folder")
    lines += ["goal: Say what this plan achieves", "items:"]
    if found.test is not None:
        name = found.test.evidence.split("::", 1)[1].rsplit(".", 1)[-1]
        file_proof = found.test.file_proof
        change = f"State the behaviour to change in a test, as {name} does"
        lines += ["  - id: test", f"    change: {yaml_scalar(change)}", "    evidence:", *entries(found.test.evidence),
                  f"    proof: {yaml_scalar(found.test.proof)}"]
    else:
        test_file = _new_test(found)
        file_proof = _pytest(test_file)
        lines += ["  - id: test", "    change: Write the first test, of the behaviour to change",
                  "    evidence:", *entries(found.source, found.readme),
                  f"    paths: [{yaml_scalar(test_file, flow=True)}]   # what this item writes: its proof may name it",
                  f"    proof: {yaml_scalar(file_proof)}"]
    change = "Make the change the test states"
    if found.source is not None:
        change += f", in {found.source.split('::')[1]}"
    lines += ["  - id: change", f"    change: {yaml_scalar(change)}", "    evidence:",
              *entries(found.source, found.readme), "    depends_on: [test]", f"    proof: {yaml_scalar(file_proof)}"]
    return "\n".join(lines) + "\n"


def _placed(output: str, root: str) -> tuple[str | None, str]:
    """The ``root:`` key the plan at ``output`` needs for `check` to find ``root`` (None: it finds
    it without), and the plan's path from the top of the repository (the git work tree, else the
    root), as CI names it. WriteError when no plan there can name the root, or CI the plan."""
    folder = os.path.dirname(os.path.abspath(output))
    real_root, real_folder = os.path.realpath(root), os.path.realpath(folder)
    if not inside(real_folder, real_root):
        raise refuse(output, f"it is outside the repository it cites, {root}",
                      "write the plan inside it (the default is plan.yaml at its top)")
    tree = work_tree(folder)
    found = os.path.realpath(tree) if tree is not None else real_folder
    root_key = None
    if found != real_root:
        if tree is None:  # a plan's root: may not lead out of its folder when no work tree holds it
            raise refuse(output, f"outside a git work tree, a plan below the top of {root} cannot name its root",
                          "write it at the top (the default), or make the folder a git work tree")
        root_key = relative_posix(real_root, real_folder)
    checked_as = relative_posix(os.path.abspath(output), tree if tree is not None else root)
    if PLAIN.fullmatch(checked_as) is None:
        raise refuse(output, "the CI workflow names the plan in a shell line, and this name would need quoting",
                      "name it with letters, digits and . _ + - / (the default is plan.yaml)")
    return root_key, checked_as


def initialise(root: str | None = None, output: str | None = None) -> Starter:
    """Write a starter plan of the repository at ``root`` (default: the git work tree that holds
    the working folder, else that folder) to ``output`` (default: plan.yaml at the root's top),
    never over anything: WriteError (nothing written) when ``output`` exists, and the
    PlanInputError of a root that is no folder (EP006)."""
    from compiler.core.write import write_new

    base = repository_root(root, os.getcwd())
    if output is not None:
        target = output
    elif root is not None:
        target = os.path.join(root, DEFAULT_NAME)
    else:  # as the working folder names it: plan.yaml, or ../plan.yaml from a folder of the work tree
        target = os.path.relpath(os.path.join(base, DEFAULT_NAME))
    if os.path.lexists(target):  # before the repository is read: refused at once
        raise refuse(target, "it exists, and init never writes over a file", TAKEN)
    root_key, checked_as = _placed(target, base)
    found = find_evidence(base)
    text = plan_text(found, root_key)
    write_new(target, text, hint=TAKEN)
    return Starter(root=base, output=target, text=text, found=found, checked_as=checked_as,
                   hooked=is_plan_file(checked_as))
