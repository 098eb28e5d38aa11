"""compiler/repo/testnames.py: a test misspelt in a subclassed test case is caught (EP210). A class's
tests include those of the base classes the repository defines, followed by name through the
file and its imports; a base from outside the repository (other than unittest's TestCase), or one
that cannot be followed, leaves the class's missing names alone. A parametrised id is checked
against the ids of a literal ``@pytest.mark.parametrize``; non-literal lists stay unchecked.

The rule at large (EP210's other targets) is tests/analysis/test_proofs.py."""

from __future__ import annotations

from pathlib import Path

from support import git_repo, rows, write_plan

from compiler.compile.pipeline import compile_plan
from compiler.repo.repository import Repository
from compiler.repo.testnames import MAX_CLASSES, Resolver

UTIL = """\
import unittest


class BlackBaseTestCase(unittest.TestCase):
    def assertFormatEqual(self, a, b):
        pass

    def test_base_shared(self):
        pass
"""

TEST_BLACK = """\
import unittest
from unittest import TestCase

import third_party
from tests.util import BlackBaseTestCase
from .util import BlackBaseTestCase as Relative
from . import util
import tests.util
from third_party import Remote
from nowhere_at_all import *


class Local(TestCase):
    def test_local(self):
        pass


class BlackTestCase(BlackBaseTestCase):
    def test_piping(self):
        pass


class ViaRelative(Relative):
    pass


class ViaModule(util.BlackBaseTestCase):
    pass


class ViaDotted(tests.util.BlackBaseTestCase):
    pass


class ViaLocal(Local):
    pass


class FromOutside(third_party.Base):
    pass


class FromOutsideByName(Remote):
    pass


class Unknown(NotDefinedAnywhere):
    pass


@some_decorator
class Decorated(TestCase):
    pass


class A(B):
    pass


class B(A):
    pass
"""


def _repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path, {"tests/__init__.py": "", "tests/util.py": UTIL, "tests/test_black.py": TEST_BLACK,
                               "src/app.py": "x = 1\n"})


def _items(proofs: list[str]) -> str:
    return "items:\n" + "".join(f"  - {{id: i{n}, change: c, evidence: [src/app.py], proof: {proof}}}\n"
                                for n, proof in enumerate(proofs))


def test_a_misspelt_test_of_a_subclassed_case_is_caught(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    proofs = ["pytest tests/test_black.py::BlackTestCase::test_pipng",
              "pytest tests/test_black.py::ViaRelative::test_base_shard",
              "pytest tests/test_black.py::ViaModule::test_base_shard",
              "pytest tests/test_black.py::ViaDotted::test_base_shard",
              "pytest tests/test_black.py::ViaLocal::test_locl",
              "python -m unittest tests.test_black.BlackTestCase.test_base_shard"]
    result = compile_plan(str(write_plan(root, _items(proofs))))
    assert rows(result.diagnostics) == [("EP210", f"i{n}", n + 2, 56) for n in range(len(proofs))]
    assert [d.message.split(", but ")[1] for d in result.diagnostics] == [
        "tests/test_black.py defines no BlackTestCase::test_pipng (did you mean BlackTestCase::test_piping?)",
        "tests/test_black.py defines no ViaRelative::test_base_shard (did you mean ViaRelative::test_base_shared?)",
        "tests/test_black.py defines no ViaModule::test_base_shard (did you mean ViaModule::test_base_shared?)",
        "tests/test_black.py defines no ViaDotted::test_base_shard (did you mean ViaDotted::test_base_shared?)",
        "tests/test_black.py defines no ViaLocal::test_locl (did you mean ViaLocal::test_local?)",
        "tests/test_black.py defines no BlackTestCase.test_base_shard (did you mean BlackTestCase.test_base_shared?)",
    ]


def test_inherited_tests_pass(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    proofs = ["pytest tests/test_black.py::BlackTestCase::test_base_shared",
              "pytest tests/test_black.py::ViaRelative::test_base_shared",
              "pytest tests/test_black.py::ViaModule::assertFormatEqual",
              "pytest tests/test_black.py::ViaDotted::test_base_shared",
              "python -m unittest tests.test_black.ViaLocal.test_local"]
    assert compile_plan(str(write_plan(root, _items(proofs)))).diagnostics == ()


def test_a_base_from_outside_the_repository_leaves_the_class_alone(tmp_path: Path) -> None:
    """third_party.Base, a name imported from a package the root lacks, a name defined nowhere, a
    class decorator (it may add tests) and a cycle of bases: none is judged."""
    root = _repo(tmp_path)
    proofs = [f"pytest tests/test_black.py::{cls}::test_anything"
              for cls in ("FromOutside", "FromOutsideByName", "Unknown", "Decorated", "A", "B")]
    assert compile_plan(str(write_plan(root, _items(proofs)))).diagnostics == ()


def test_a_chain_of_bases_is_followed_within_its_bound(tmp_path: Path) -> None:
    """A chain longer than MAX_CLASSES is not followed to its end: its members are not all known."""
    depth = MAX_CLASSES + 5
    lines = ["import unittest", "", "class C0(unittest.TestCase):", "    def test_root(self):", "        pass", ""]
    lines += [f"class C{k}(C{k - 1}):\n    pass\n" for k in range(1, depth)]
    root = git_repo(tmp_path, {"tests/test_deep.py": "\n".join(lines) + "\n"})
    tests = Resolver(Repository(str(root)))
    shallow = tests.members("tests/test_deep.py", "C10")
    assert shallow is not None and shallow.complete and "test_root" in shallow.names
    deep = tests.members("tests/test_deep.py", f"C{depth - 1}")
    assert deep is not None and not deep.complete


PARAMETRISED = """\
import pytest


@pytest.mark.parametrize("x", [1, 2, "a"])
def test_f(x):
    pass


@pytest.mark.parametrize("a, b", [(1, True), (2, None)])
@pytest.mark.parametrize("c", [3.5])
def test_g(a, b, c):
    pass


VALUES = [1, 2]


@pytest.mark.parametrize("x", VALUES)
def test_names(x):
    pass


@pytest.mark.parametrize("x", [1])
def test_fixture(x, db):
    pass


@pytest.mark.parametrize("lines", [[(1, 2)], [(3, 4)]])
def test_lists(lines, tmp_path):
    pass


@pytest.mark.parametrize("color", [False, True], ids=["no-color", "with-color"])
def test_ids(color):
    pass
"""


def test_a_parameter_id_a_literal_parametrize_does_not_give_is_caught(tmp_path: Path) -> None:
    root = git_repo(tmp_path, {"tests/test_p.py": PARAMETRISED, "src/app.py": "x = 1\n"})
    proofs = ['"pytest tests/test_p.py::test_f[1]"', '"pytest tests/test_p.py::test_f[a]"',
              '"pytest tests/test_p.py::test_g[3.5-2-None]"',
              '"pytest tests/test_p.py::test_names[7]"', '"pytest tests/test_p.py::test_fixture[1-sqlite]"',
              '"pytest tests/test_p.py::test_lists[lines1]"', '"pytest tests/test_p.py::test_ids[with-color]"',
              '"pytest tests/test_p.py::test_f[3]"', '"pytest tests/test_p.py::test_g[1-True]"',
              '"pytest tests/test_p.py::test_lists[lines2]"', '"pytest tests/test_p.py::test_ids[True]"']
    result = compile_plan(str(write_plan(root, _items(proofs))))
    assert rows(result.diagnostics) == [("EP210", f"i{n}", n + 2, 56 + (n > 9)) for n in range(7, 11)]
    assert [d.message.split(", but ")[1] for d in result.diagnostics] == [
        "tests/test_p.py gives test_f no parameter id 3; its ids are 1, 2, a",
        "tests/test_p.py gives test_g no parameter id 1-True (did you mean 3.5-1-True?); its ids are"
        " 3.5-1-True, 3.5-2-None",
        "tests/test_p.py gives test_lists no parameter id lines2 (did you mean lines1?); its ids are lines0, lines1",
        "tests/test_p.py gives test_ids no parameter id True; its ids are no-color, with-color",
    ]


def test_a_module_mark_that_is_not_parametrize_leaves_the_ids_checked(tmp_path: Path) -> None:
    marked = "import pytest\n\npytestmark = pytest.mark.slow\n\n\n" + PARAMETRISED.split("\n", 2)[2]
    root = git_repo(tmp_path, {"tests/test_p.py": marked, "tests/test_q.py": marked.replace(
        "pytest.mark.slow", 'pytest.mark.parametrize("z", [0])'), "src/app.py": "x = 1\n"})
    proofs = ['"pytest tests/test_p.py::test_f[3]"', '"pytest tests/test_q.py::test_f[3]"']
    result = compile_plan(str(write_plan(root, _items(proofs))))
    assert rows(result.diagnostics) == [("EP210", "i0", 2, 56)]


def test_the_work_is_bounded_on_files_made_to_be_slow(tmp_path: Path) -> None:
    """Names imported in a circle between two files, and a test whose stacked parametrize would
    make 40,000 ids (over MAX_IDS): followed or made only so far, and then not judged."""
    from compiler.repo.testnames import MAX_IDS

    wide = ", ".join(map(str, range(200)))
    root = git_repo(tmp_path, {
        "tests/test_a.py": "from tests.test_b import Base\n\n\nclass Case(Base):\n    pass\n",
        "tests/test_b.py": "from tests.test_a import Case as Base\n",
        "tests/test_wide.py": (f"import pytest\n\n\n@pytest.mark.parametrize('a', [{wide}])\n"
                               f"@pytest.mark.parametrize('b', [{wide}])\ndef test_w(a, b):\n    pass\n"),
        "src/app.py": "x = 1\n"})
    assert 200 * 200 > MAX_IDS
    proofs = ['"pytest tests/test_a.py::Case::test_x"', '"pytest tests/test_wide.py::test_w[1-999]"',
              '"pytest tests/test_wide.py::test_w[1-2]"']
    assert compile_plan(str(write_plan(root, _items(proofs)))).diagnostics == ()


def test_tests_a_module_may_add_at_run_time_are_not_judged(tmp_path: Path) -> None:
    """setattr in a module's body may add tests to a class; an empty parametrize list gives one
    skipped test whose id is pytest's own."""
    root = git_repo(tmp_path, {
        "tests/__init__.py": "", "tests/util.py": UTIL, "src/app.py": "x = 1\n",
        "tests/test_gen.py": ("from tests.util import BlackBaseTestCase\n\n\nclass Generated(BlackBaseTestCase):\n"
                              "    pass\n\n\nfor n in range(3):\n"
                              "    setattr(Generated, f'test_{n}', lambda self: None)\n"),
        "tests/test_empty.py": "import pytest\n\n\n@pytest.mark.parametrize('x', [])\ndef test_e(x):\n    pass\n"})
    proofs = ['"pytest tests/test_gen.py::Generated::test_2"', '"pytest tests/test_empty.py::test_e[x0]"']
    assert compile_plan(str(write_plan(root, _items(proofs)))).diagnostics == ()
