"""compiler/checks/items.py: one item's commitments, seen through compiled plans: evidence
(EP101), a proof (EP102), a change (EP103), a unique id (EP104), and a proof that is one command
(EP107: the shell splitter ``split_commands`` on its own, then the warning through compile).

Elsewhere: EP105 (the same evidence twice) is asserted beside EP304 in
tests/checks/test_dependencies.py (both warnings leave a plan ready). EP015 and EP016 (the id
grammar, confusable ids) have no unit test: the case folders tests/cases/ep015-invalid-id and
ep016-confusable-id and the corpus files tests/hostile/ids-*.yaml (tests/test_hostile.py) hold them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support import compile_in, compile_yaml, one_item_plan, rows

from compiler.analysis.shell import split_commands
from compiler.compile.emit import build_output
from compiler.compile.pipeline import compile_document
from compiler.load.document import parse_text
from compiler.model.validate import build_plan

# --- evidence, proof, change, id (EP101-EP104) ------------------------------------------------------

ITEM_CHECKS = [
    # (the second item's body, code, message, line, column)
    ("    change: x\n    evidence: []\n    proof: p\n", "EP101", "b has no repository evidence", 8, 15),
    ("    change: x\n    proof: p\n", "EP101", "b has no repository evidence", 6, 5),
    ("    change: x\n    evidence: [a.py]\n", "EP102", "b has no proof command", 6, 5),
    ("    change: x\n    evidence: [a.py]\n    proof: '  '\n", "EP102", "b has no proof command", 9, 12),
    ("    evidence: [a.py]\n    proof: p\n", "EP103", "b has no change", 6, 5),
    ("    change: ''\n    evidence: [a.py]\n    proof: p\n", "EP103", "b has no change", 7, 13),
]


@pytest.mark.parametrize(("body", "code", "message", "line", "column"), ITEM_CHECKS)
def test_item_checks(body: str, code: str, message: str, line: int, column: int) -> None:
    text = "items:\n  - id: a\n    change: x\n    evidence: [a.py]\n    proof: p\n  - id: b\n" + body
    result = compile_document(parse_text(text, "plan.yaml", "yaml"), "plan.yaml", verify_evidence=False)
    (d,) = result.diagnostics
    assert rows(result.diagnostics) == [(code, "b", line, column)]
    assert d.message == message
    assert result.status == "blocked"


def test_item_with_nothing_gets_three_errors() -> None:
    result = compile_yaml("items:\n  - id: a\n")
    assert rows(result.diagnostics) == [("EP101", "a", 2, 5), ("EP102", "a", 2, 5), ("EP103", "a", 2, 5)]


def test_blank_field_means_missing_and_is_located_on_its_own_line() -> None:
    """`change:` left blank is the same as no change (EP103), located on its own line, not on the
    next token where ruamel places the empty value."""
    text = """
        items:
          - id: a
            change:
            evidence: [a.py]
            proof: p
    """
    doc = parse_text(textwrap.dedent(text).lstrip("\n"), "plan.yaml", "yaml")
    assert build_plan(doc).diagnostics == ()
    result = compile_document(doc, "plan.yaml", verify_evidence=False)
    assert [(d.code, d.item, d.location.line if d.location else None) for d in result.diagnostics] == [
        ("EP103", "a", 3),
    ]


def test_ep104_duplicate_id_names_the_first_line() -> None:
    result = compile_yaml("""
        items:
          - id: a
            change: x
            evidence: [a.py]
            proof: p
          - id: b
            change: x
            evidence: [a.py]
            proof: p
          - id: a
            change: again
            evidence: [a.py]
            proof: p
          - {id: a, change: thrice, evidence: [a.py], proof: p}
    """)
    assert rows(result.diagnostics) == [("EP104", "a", 10, 9), ("EP104", "a", 14, 10)]
    for d in result.diagnostics:
        assert d.message == "duplicate id a (first defined at line 2)"
        assert [(n.message, n.location.line, n.location.column) for n in d.notes if n.location] == [
            ("a first defined here", 2, 9),
        ]


def test_duplicate_id_of_an_invalid_item_is_still_reported() -> None:
    result = compile_yaml("""
        items:
          - id: a
            change: x
            evidence: [a.py]
            proof: p
            colour: red
          - id: a
            change: y
            evidence: [a.py]
            proof: p
    """)
    assert rows(result.diagnostics) == [("EP010", "a", 6, 5), ("EP104", "a", 7, 9)]


# --- compound proofs (EP107) ----------------------------------------------------------------------

SPLIT_TABLE: list[tuple[str, list[str]]] = [
    ("pytest -q", ["pytest -q"]),
    ("", []),
    ("   ", []),
    ("make && make test", ["make", "make test"]),
    ("a; b", ["a", "b"]),
    ("a || b", ["a", "b"]),
    ("a\nb", ["a", "b"]),
    ("a && b; c || d", ["a", "b", "c", "d"]),
    ("a &&\n  b", ["a", "b"]),
    ("pytest | tee log.txt", ["pytest | tee log.txt"]),  # a pipeline is one command
    ("pytest 2>&1 | tee log", ["pytest 2>&1 | tee log"]),
    ("echo 'a && b'", ["echo 'a && b'"]),
    ('echo "a; b || c"', ['echo "a; b || c"']),
    ("python -c 'import x; x.run()'", ["python -c 'import x; x.run()'"]),
    ("echo $(a && b)", ["echo $(a && b)"]),
    ("echo $(printf '%s' ')'; b)", ["echo $(printf '%s' ')'; b)"]),
    ("echo $((1 + 2)); b", ["echo $((1 + 2))", "b"]),
    ("echo `a; b`", ["echo `a; b`"]),
    ("echo a \\; b", ["echo a \\; b"]),
    ("echo a \\&\\& b", ["echo a \\&\\& b"]),
    ("echo \"it's\" && b", ["echo \"it's\"", "b"]),
    ("echo 'a\\' && b", ["echo 'a\\'", "b"]),  # no escapes inside single quotes
    ('echo "a \\" && b" && c', ['echo "a \\" && b"', "c"]),
    ("a;", ["a"]),
    ("a\r\nb", ["a", "b"]),
]


@pytest.mark.parametrize(("proof", "commands"), SPLIT_TABLE, ids=[repr(p) for p, _ in SPLIT_TABLE])
def test_split_commands(proof: str, commands: list[str]) -> None:
    assert split_commands(proof) == commands


@pytest.mark.parametrize(("proof_yaml", "warned", "message"), [
    ("pytest -q", False, None),
    ("pytest | tee log", False, None),
    ("\"pytest -k 'a and b'\"", False, None),
    ("make && make test", True, "it proof runs 2 commands (make && make test)"),
    ("\"a; b\"", True, "it proof runs 2 commands (a; b)"),
    ("[make, make test]", True, "it proof is a list of 2 commands"),
    ("[make test]", False, None),
    ("[\"a || b\"]", True, "it proof runs 2 commands (a || b)"),
    ("|\n      make\n      make test", True, None),
])
def test_compound_proof_through_compile(std_repo: Path, proof_yaml: str, warned: bool, message: str | None) -> None:
    text = one_item_plan("      - a.txt\n", proof=proof_yaml)
    result = compile_in(std_repo, text)
    assert result.status == "ready"  # a warning never blocks
    found = [d for d in result.diagnostics if d.code == "EP107"]
    assert len(found) == int(warned)
    assert len(result.diagnostics) == len(found)
    if warned:
        d = found[0]
        assert (d.item, d.severity, d.location.line if d.location else None) == ("it", "warning", 4)
        assert d.message.endswith(": split the item, one proof each")
        if message is not None:
            assert d.message.startswith(message)


def test_proof_list_is_joined_in_the_output(std_repo: Path) -> None:
    text = one_item_plan("      - a.txt\n", proof="\n      - make\n      - make test")
    result = compile_in(std_repo, text)
    assert result.plan.items[0].proof == "make && make test"
    assert build_output(result, std_repo)["items"][0]["proof"] == "make && make test"
    assert rows(result.diagnostics) == [("EP107", "it", 5, 7)]


def test_ep108_ids_that_differ_only_in_case_or_dash_are_a_warning() -> None:
    result = compile_yaml("""
        items:
          - {id: duration-class, change: x, evidence: [a.py], proof: p}
          - {id: Duration-Class, change: x, evidence: [a.py], proof: p}
          - {id: duration_class, change: x, evidence: [a.py], proof: p}
          - {id: duration-classes, change: x, evidence: [a.py], proof: p}
    """)
    assert rows(result.diagnostics) == [("EP108", "Duration-Class", 3, 10), ("EP108", "duration_class", 4, 10)]
    first = result.diagnostics[0]
    assert first.severity == "warning" and result.status == "ready"
    assert first.message == "id 'Duration-Class' differs from 'duration-class' (line 2) only in case or in - against _"
    assert [(n.location.line, n.location.column) for n in first.notes if n.location] == [(2, 10)]


def test_ep108_leaves_the_same_id_twice_to_ep104() -> None:
    result = compile_yaml("""
        items:
          - {id: a, change: x, evidence: [a.py], proof: p}
          - {id: a, change: y, evidence: [a.py], proof: p}
    """)
    assert [d.code for d in result.diagnostics] == ["EP104"]
