"""compiler.analysis.proofs: what a proof runs, read with the shell's grammar (never run): the repository
scripts it names (EP209), the tests it selects (EP210), and whether it is a command at all (EP110).
The checks themselves are asserted here too, with their code, item, line and column."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import git_repo, rows, write_plan

from compiler.analysis.proofs import Target, reads_as_prose, scripts, targets_of
from compiler.compile.pipeline import compile_plan

DATA = Path(__file__).resolve().parents[1] / "proofs"


@pytest.mark.parametrize(("proof", "named"), [
    ("./deploy.sh", ["./deploy.sh"]),
    ("python3 scripts/check_links.py --all", ["scripts/check_links.py"]),
    ("CI=1 ./tools/x.sh && make test", ["./tools/x.sh"]),
    ("sh tools/run.sh; ./tools/run.sh", ["tools/run.sh"]),  # the same script once
    ("node scripts/build.mjs", ["scripts/build.mjs"]),
    ("python3 'scripts/a b.py'", ["scripts/a b.py"]),  # quotes as the shell reads them
    # Not a repository script: options, modules, absolute paths, variables, home, nothing runnable.
    ("python -m pytest tests/test_a.py", []),
    ("pytest tests/test_a.py::test_b", []),
    ("bash -c 'echo hi'", []),
    ("/usr/bin/env python3 a.py", []),
    ("$HOME/bin/x.sh", []),
    ("~/x.sh", []),
    ("echo 'tests/x.py'", []),
    ("make test", []),
    ("python3 'unclosed.py", []),  # a quote never closed: nothing read, nothing claimed
    ("./check.sh  # the smoke test", ["./check.sh"]),
    # After a cd the working folder is elsewhere: the scripts of later commands are not the root's.
    ("cd docs && ./build.sh", []),
    ("./a.sh && cd sub && ./b.sh", ["./a.sh"]),
    ("pushd sub; python3 x.py", []),
    # An environment's interpreter is not a script of the repository.
    (".venv/bin/python -m pytest", []),
    ("venv/bin/python3 scripts/x.py", ["scripts/x.py"]),  # (the script it runs is)
])
def test_the_scripts_a_proof_runs(proof: str, named: list[str]) -> None:
    assert scripts(proof) == named


def _read(targets: list[Target]) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...], bool]]:
    return [(t.word, t.path, t.names, t.dotted, t.folder) for t in targets]


@pytest.mark.parametrize(("proof", "selected"), [
    ("pytest tests/test_a.py", [("tests/test_a.py", "tests/test_a.py", (), (), False)]),
    ("pytest tests/test_a.py::test_b", [("tests/test_a.py::test_b", "tests/test_a.py", ("test_b",), (), False)]),
    ("pytest tests/test_a.py::TestK::test_b", [
        ("tests/test_a.py::TestK::test_b", "tests/test_a.py", ("TestK", "test_b"), (), False)]),
    ("pytest 'tests/test_a.py::test_b[1-2]'", [  # parameters are no part of the name
        ("tests/test_a.py::test_b[1-2]", "tests/test_a.py", ("test_b",), (), False)]),
    ("pytest tests/unit/", [("tests/unit/", "tests/unit", (), (), False)]),
    ("python -m pytest -x tests/test_a.py", [("tests/test_a.py", "tests/test_a.py", (), (), False)]),
    ("python3 -m pytest -q test_a.py", [("test_a.py", "test_a.py", (), (), False)]),
    ("py.test tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    (".venv/bin/pytest tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    ("uv run pytest tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    ("poetry run python -m pytest tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    ("coverage run -m pytest tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    ("CI=1 pytest tests/t.py | tee log/out.txt", [("tests/t.py", "tests/t.py", (), (), False)]),
    ("pytest tests/t.py > reports/x.txt 2>&1", [("tests/t.py", "tests/t.py", (), (), False)]),
    # Option values are not targets, in either form.
    ("pytest -k 'a/b.py or c' --ignore tests/slow --deselect tests/t.py::x -p no:cacheprovider"
     " -c conf/pytest.ini --rootdir=sub -o x=y/z --junitxml reports/j.xml tests/t.py",
     [("tests/t.py", "tests/t.py", (), (), False)]),
    ("pytest -m 'not slow' -W error::DeprecationWarning --tb short --cov src/pkg tests/t.py",
     [("tests/t.py", "tests/t.py", (), (), False)]),
    # An option this module does not know may take a value: the next word counts only as a test.
    ("pytest --my-plugin-out reports/x tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    ("pytest --my-plugin tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),
    # unittest: dotted names, paths, discover's start folder.
    ("python -m unittest tests.test_a.Case.test_b", [
        ("tests.test_a.Case.test_b", "", (), ("tests", "test_a", "Case", "test_b"), False)]),
    ("python3 -m unittest -v tests/test_a.py", [("tests/test_a.py", "tests/test_a.py", (), (), False)]),
    ("python3 -m unittest discover -s tests -t . -p 'check_*.py'", [
        ("unittest discover -s tests", "tests", (), (), True)]),
    ("python3 -m unittest discover tests", [("unittest discover -s tests", "tests", (), (), True)]),
    # Left alone: words that are not paths, globs, variables, home, absolute paths, packages.
    ("pytest", []),
    ("pytest tests", []),
    ("pytest -k 'login and not slow' -m smoke", []),
    ("pytest tests/*.py", []),
    ("pytest $TESTS/x.py", []),
    ("pytest ~/x/test_a.py /abs/test_a.py", []),
    ("pytest --pyargs pkg/tests", []),
    ("pytest tests\\test_a.py", []),  # written for Windows: not judged by a POSIX shell's reading
    ("pytest \\\n  tests/t.py", [("tests/t.py", "tests/t.py", (), (), False)]),  # a continued line
    ("python -m unittest test_a", []),  # one name: a module anywhere on the path
    ("PYTHONPATH=src python -m unittest pkg.tests", []),
    ("python -c 'import pytest' tests/t.py", []),
    ("uv run --with pytest pytest tests/t.py", []),
    ("make test", []),
    # After a cd the working folder is elsewhere: later commands are not read.
    ("cd sub && pytest tests/t.py", []),
    ("pytest tests/a.py && cd sub && pytest tests/b.py", [("tests/a.py", "tests/a.py", (), (), False)]),
    ("pytest tests/a.py tests/a.py", [("tests/a.py", "tests/a.py", (), (), False)]),  # once
])
def test_the_tests_a_proof_selects(proof: str, selected: list[tuple[object, ...]]) -> None:
    assert _read(targets_of(proof)) == selected


def _repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path, {
        "tests/__init__.py": "",
        "tests/test_types.py": (
            "import unittest\n"
            "from tests.helpers import test_shared\n"
            "\n"
            "\n"
            "def test_a():\n"
            "    pass\n"
            "\n"
            "\n"
            "class TestCase(unittest.TestCase):\n"
            "    def test_m(self):\n"
            "        pass\n"
            "\n"
            "\n"
            "class Inherits(Base):\n"
            "    pass\n"),
        "tests/helpers.py": "def test_shared():\n    pass\n",
        "tests/unit/test_x.py": "def test_x():\n    pass\n",
    })


def test_ep210_a_missing_test_file_or_test_is_an_error_at_the_proof(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    plan = write_plan(root, """
        items:
          - {id: typo-file, change: c, evidence: [tests], proof: pytest tests/test_typez.py::test_a}
          - {id: typo-test, change: c, evidence: [tests], proof: pytest tests/test_types.py::test_b}
          - id: method
            change: c
            evidence: [tests]
            proof: python -m pytest tests/test_types.py::TestCase::test_n
          - {id: folder, change: c, evidence: [tests], proof: pytest tests/integration}
          - {id: dotted, change: c, evidence: [tests], proof: python3 -m unittest tests.test_types.TestCase.test_n}
          - {id: module, change: c, evidence: [tests], proof: python3 -m unittest tests.test_typs}
          - {id: discover, change: c, evidence: [tests], proof: python3 -m unittest discover -s test}
        """)
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [
        ("EP210", "typo-file", 2, 58), ("EP210", "typo-test", 3, 58), ("EP210", "method", 7, 12),
        ("EP210", "folder", 8, 55), ("EP210", "dotted", 9, 55), ("EP210", "module", 10, 55),
        ("EP210", "discover", 11, 57)]
    plan_it = "; if the plan creates it, list it in the paths: of this item or of an item it depends on"
    assert [d.message for d in result.diagnostics] == [
        "typo-file proof runs tests/test_typez.py::test_a, but tests/test_typez.py does not exist"
        " (did you mean tests/test_types.py?)" + plan_it,
        "typo-test proof runs tests/test_types.py::test_b, but tests/test_types.py defines no test_b"
        " (did you mean test_a?)",
        "method proof runs tests/test_types.py::TestCase::test_n, but tests/test_types.py defines no"
        " TestCase::test_n (did you mean TestCase::test_m?)",
        "folder proof runs tests/integration, but tests/integration does not exist" + plan_it,  # nothing close
        "dotted proof runs tests.test_types.TestCase.test_n, but tests/test_types.py defines no TestCase.test_n"
        " (did you mean TestCase.test_m?)",
        "module proof runs tests.test_typs, but tests/test_typs.py does not exist (did you mean"
        " tests/test_types.py?)" + plan_it,
        "discover proof runs unittest discover -s test, but test does not exist (did you mean tests?)" + plan_it,
    ]
    assert all(d.severity == "error" for d in result.diagnostics)
    assert compile_plan(str(plan), verify_evidence=False).diagnostics == ()


def test_a_proof_given_by_many_items_is_judged_once_and_reported_at_each(tmp_path: Path) -> None:
    """EP209 and EP210 look at the repository once per proof text (a large plan repeats a few
    proofs), and still say it at every item that gives the proof, at its own line."""
    from work import count

    root = _repo(tmp_path)
    lines = [f"  - {{id: i{n}, change: c, evidence: [tests], proof: {proof}}}"
             for n in range(40) for proof in [("pytest tests/test_typez.py", "./tools/chek.sh")[n % 2]]]
    plan = write_plan(root, "items:\n" + "\n".join(lines) + "\n")
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [(("EP210", "EP209")[n % 2], f"i{n}", n + 2, lines[n].index("proof: ") + 8)
                                        for n in range(40)]
    assert len({d.message.split(" ", 1)[1] for d in result.diagnostics}) == 2  # the same words after each id
    work = count(lambda: compile_plan(str(plan)))
    assert work.of("_missing_test") == 1, work.top()


def test_ep210_tests_that_are_there_pass(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    plan = write_plan(root, """
        items:
          - {id: a, change: c, evidence: [tests], proof: "pytest 'tests/test_types.py::test_a[1-2]'"}
          - {id: b, change: c, evidence: [tests], proof: pytest tests/test_types.py::TestCase::test_m tests/unit}
          - {id: c, change: c, evidence: [tests], proof: python3 -m unittest tests.test_types.TestCase.test_m}
          - {id: d, change: c, evidence: [tests], proof: python3 -m unittest tests.test_types tests.unit}
          - {id: e, change: c, evidence: [tests], proof: python3 -m unittest discover -s tests/unit -t .}
          - {id: f, change: c, evidence: [tests], proof: python3 -m unittest tests/test_types.py}
          - {id: g, change: c, evidence: [tests], proof: pytest tests/test_types.py -k 'test_zzz' -m slow}
        """)
    assert compile_plan(str(plan)).diagnostics == ()


def test_ep210_a_test_that_may_be_defined_elsewhere_is_not_judged(tmp_path: Path) -> None:
    """A class with a base of its own may inherit the test; a module may import it (pytest and
    unittest collect both); a package missing from the root may be installed: none is an error."""
    root = _repo(tmp_path)
    plan = write_plan(root, """
        items:
          - {id: a, change: c, evidence: [tests], proof: pytest tests/test_types.py::Inherits::test_base}
          - {id: b, change: c, evidence: [tests], proof: pytest tests/test_types.py::test_shared}
          - {id: c, change: c, evidence: [tests], proof: python -m unittest installed.tests.test_x}
          - {id: d, change: c, evidence: [tests], proof: cd tests && pytest test_nothing.py}
          - {id: e, change: c, evidence: [tests], proof: pytest ../elsewhere/test_x.py}
        """)
    assert [d.code for d in compile_plan(str(plan)).diagnostics] == ["EP107"]  # d's two commands


# --- EP110 ---------------------------------------------------------------------------------------


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_no_real_command_reads_as_prose() -> None:
    """tests/proofs/commands.txt: the run: lines of CI workflows, tox.ini commands, Makefile
    recipes and documented shell lines of twelve real projects (its header says which)."""
    commands = _lines("commands.txt")
    assert len(commands) > 1000
    assert [c for c in commands if reads_as_prose(c)] == []


@pytest.mark.slow
def test_no_proof_of_this_repository_reads_as_prose() -> None:
    """Every proof of every plan the repository holds (cases, examples, golden files) is a
    command, except those of the case that shows EP110."""
    from compiler.load.document import load

    top = Path(__file__).resolve().parents[2]
    plans = [p for folder in ("tests/cases", "tests/golden", "examples") for p in sorted((top / folder).rglob("*"))
             if p.suffix in (".yaml", ".yml", ".json") and "ep110" not in str(p) and p.is_file()]
    proofs: list[str] = []
    for path in plans:
        try:
            data = load(str(path)).data
        except Exception:  # noqa: BLE001 - the corpus holds files that are not plans, on purpose
            continue
        items = data.get("items") if isinstance(data, dict) else data
        proofs += [i["proof"] for i in items or () if isinstance(i, dict) and isinstance(i.get("proof"), str)]
    assert len(proofs) > 100
    assert [p for p in proofs if reads_as_prose(p)] == []


@pytest.mark.parametrize("proof", _lines("prose.txt"))
def test_a_sentence_reads_as_prose(proof: str) -> None:
    assert reads_as_prose(proof)


@pytest.mark.parametrize("proof", [
    "run the unit tests",  # four lowercase words: as short as `flask students create alice`
    "Try signing up twice with the same email; the second attempt fails.",  # a ; is the shell's
])
def test_a_sentence_too_like_a_command_is_left_alone(proof: str) -> None:
    assert not reads_as_prose(proof)


@pytest.mark.parametrize("proof", [
    "echo Tests pass.",  # echo's arguments are free text
    "rustup component add clippy",
    "sudo apt-get install brz subversion",
    "git fetch origin master",
    "uv run ruff check",
    "`starts and ends with ticks`",
    "grep -n 'Does the page load?' docs/faq.md",  # the question is quoted: an argument
    "ruff check @arguments.txt  # Lint using an input file, one argument a line.",
    "pytest tests/a.py tests/b.py tests/c.py",
])
def test_a_command_does_not_read_as_prose(proof: str) -> None:
    assert not reads_as_prose(proof)


def test_ep110_a_prose_proof_is_a_warning_at_the_proof(tmp_path: Path) -> None:
    root = git_repo(tmp_path, {"a.py": "x = 1\n"})
    plan = write_plan(root, """
        items:
          - id: sentence
            change: c
            evidence: [a.py]
            proof: run the tests and make sure they pass
          - {id: question, change: c, evidence: [a.py], proof: "Does the page load?"}
          - {id: command, change: c, evidence: [a.py], proof: python3 -m unittest}
        """)
    result = compile_plan(str(plan))
    assert rows(result.diagnostics) == [("EP110", "sentence", 5, 12), ("EP110", "question", 6, 56)]
    assert result.diagnostics[0].message == ("sentence proof reads as a sentence, not a command:"
                                             " 'run the tests and make sure they pass'")
    assert result.diagnostics[0].severity == "warning"
    assert result.diagnostics[0].hint and "one exact check" in result.diagnostics[0].hint
    assert result.status == "ready"


def test_a_command_without_quotes_is_split_as_shlex_splits_it() -> None:
    """words() splits a command with no quote or backslash without shlex (not imported by check of
    most plans): the same words as shlex, on every such line of the real commands."""
    import shlex

    from compiler.analysis.proofs import words

    plain = [c for c in _lines("commands.txt") if not any(q in c for q in "'\"\\")]
    assert len(plain) > 500
    assert [c for c in plain if words(c) != shlex.split(c, comments=True)] == []
    assert words("pytest 'tests/a b.py'  # quoted") == ["pytest", "tests/a b.py"]
    assert words("pytest 'unclosed") is None
