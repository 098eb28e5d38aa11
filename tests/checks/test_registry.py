"""compiler/checks/registry.py: the rules, each with the codes it emits and its phase. Every code
has exactly one owner (one rule, or the stage compiler/core/codes.py names), every rule says in
its docstring what it checks, and a rule emits no code it does not declare."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections import Counter

import pytest

from compiler.checks.context import PHASES, CheckContext, Rule
from compiler.checks.registry import rules, run
from compiler.core.codes import CODES

CODE = re.compile(r"EP\d{3}")
RANGE = re.compile(r"EP(\d{3})-EP(\d{3})")


def named(doc: str) -> set[str]:
    """The codes a docstring names, a range (EP201-EP207) as each code in it."""
    ranges = {f"EP{n:03d}" for a, b in RANGE.findall(doc) for n in range(int(a), int(b) + 1)}
    return set(CODE.findall(doc)) | ranges


def test_every_code_has_exactly_one_owner() -> None:
    owners = Counter(code for rule in rules() for code in rule.codes)
    for code in CODES.values():
        owned = owners[code.code] + (code.stage is not None)
        assert owned == 1, f"{code.code} has {owned} owners (rules: {owners[code.code]}, stage: {code.stage})"
    assert set(owners) <= set(CODES), f"rules declare unknown codes: {set(owners) - set(CODES)}"


@pytest.mark.parametrize("rule", rules(), ids=lambda rule: rule.check.__name__)
def test_a_rule_documents_itself_and_emits_only_its_codes(rule: Rule) -> None:
    doc = inspect.getdoc(rule.check)
    assert doc, f"{rule.check.__name__} has no docstring: it is the rule's documentation"
    assert rule.phase in PHASES
    assert set(rule.codes) <= named(doc), f"{rule.check.__name__}'s docstring names not all of {rule.codes}"
    body = ast.parse(textwrap.dedent(inspect.getsource(rule.check)))
    emitted = {node.value for node in ast.walk(body)
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value)}
    assert emitted <= set(rule.codes), f"{rule.check.__name__} emits {emitted - set(rule.codes)} undeclared"


def test_a_phase_runs_its_rules_and_no_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """run(ctx, phase) calls exactly the rules of that phase, in the families' order."""
    called: list[str] = []
    fake = tuple(Rule(lambda ctx, name=f"{phase}-{n}": called.append(name) or (), ("EP000",), phase)
                 for phase in PHASES for n in range(2))
    monkeypatch.setattr("compiler.checks.registry.rules", lambda: fake)
    ctx = CheckContext(None, None)  # type: ignore[arg-type]  # the fakes read nothing
    for phase in PHASES:
        called.clear()
        assert run(ctx, phase) == []
        assert called == [f"{phase}-0", f"{phase}-1"]
