"""compiler/model/references.py: evidence references, in the string form (``path``, ``path:LINE``,
``path:START-END``, ``path::symbol``, a URL) and the object form, parse into ``Evidence`` values
(compiler/model/values.py) that write back (``to_input``) to what reads back the same.

A reference that cannot be parsed is EP014, asserted with its messages in tests/model/test_validate.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.load.document import parse_text
from compiler.model import references
from compiler.model.references import evidence_input, parse_reference
from compiler.model.validate import build_plan
from compiler.model.values import Evidence

STRING_FORMS = [
    ("app/x.py", Evidence(path="app/x.py"), "app/x.py"),
    ("app/x.py:18", Evidence(path="app/x.py", start=18, end=18), "app/x.py:18"),
    ("app/x.py:18-24", Evidence(path="app/x.py", start=18, end=24), "app/x.py:18-24"),
    ("app/x.py:7-7", Evidence(path="app/x.py", start=7, end=7), "app/x.py:7"),
    ("app/x.py::create_account", Evidence(path="app/x.py", symbol="create_account"), "app/x.py::create_account"),
    ("app/x.py::Accounts.create", Evidence(path="app/x.py", symbol="Accounts.create"), "app/x.py::Accounts.create"),
    ("https://example.org/spec#3", Evidence(url="https://example.org/spec#3"), "https://example.org/spec#3"),
    ("  docs/api.md:3  ", Evidence(path="docs/api.md", start=3, end=3), "docs/api.md:3"),
    ("Makefile", Evidence(path="Makefile"), "Makefile"),
]


@pytest.mark.parametrize(("text", "evidence", "ref"), STRING_FORMS)
def test_string_evidence(text: str, evidence: Evidence, ref: str) -> None:
    assert parse_reference(text) == (evidence, None)
    assert evidence.ref() == ref
    assert evidence_input(evidence) == ref
    assert parse_reference(evidence_input(evidence))[0] == evidence  # type: ignore[arg-type]


OBJECT_FORMS = [
    ({"path": "app/x.py"}, Evidence(path="app/x.py"), "app/x.py"),
    ({"path": "app/x.py", "line": 18}, Evidence(path="app/x.py", start=18, end=18), "app/x.py:18"),
    ({"path": "app/x.py", "lines": "18-24"}, Evidence(path="app/x.py", start=18, end=24), "app/x.py:18-24"),
    ({"path": "app/x.py", "lines": 18}, Evidence(path="app/x.py", start=18, end=18), "app/x.py:18"),
    ({"path": "app/x.py", "symbol": "f"}, Evidence(path="app/x.py", symbol="f"), "app/x.py::f"),
    ({"url": "https://example.org"}, Evidence(url="https://example.org"), "https://example.org"),
    (
        {"path": "app/x.py", "lines": "18-24", "contains": "def create"},
        Evidence(path="app/x.py", start=18, end=24, contains="def create"),
        {"path": "app/x.py", "lines": "18-24", "contains": "def create"},
    ),
    (
        {"path": "app/x.py", "line": 3, "contains": "x = 1"},
        Evidence(path="app/x.py", start=3, end=3, contains="x = 1"),
        {"path": "app/x.py", "line": 3, "contains": "x = 1"},
    ),
    (
        {"path": "app/x.py", "symbol": "f", "contains": "return"},
        Evidence(path="app/x.py", symbol="f", contains="return"),
        {"path": "app/x.py", "symbol": "f", "contains": "return"},
    ),
    # A path that would read back differently as a string keeps the object form.
    ({"path": "notes:12"}, Evidence(path="notes:12"), {"path": "notes:12"}),
    ({"path": "https://x.org/a"}, Evidence(path="https://x.org/a"), {"path": "https://x.org/a"}),
]


@pytest.mark.parametrize(("entry", "evidence", "as_input"), OBJECT_FORMS)
def test_object_evidence(entry: dict[str, Any], evidence: Evidence, as_input: Any) -> None:
    p = build_plan(parse_text(json.dumps({"items": [{"id": "a", "evidence": [entry]}]}), "plan.json", "json"))
    assert p.diagnostics == ()
    assert p.items[0].evidence == (evidence,)
    assert evidence_input(evidence) == as_input
    # round trip: what to_input writes reads back to the same evidence
    again = build_plan(parse_text(json.dumps({"items": [{"id": "a", "evidence": [as_input]}]}), "plan.json", "json"))
    assert again.items[0].evidence == (evidence,)


def test_url_evidence_with_contains_round_trips() -> None:
    entry = {"url": "https://example.org/spec", "contains": "409"}
    p = build_plan(parse_text(json.dumps({"items": [{"id": "a", "evidence": [entry]}]}), "plan.json", "json"))
    evidence = p.items[0].evidence[0]
    assert evidence == Evidence(url="https://example.org/spec", contains="409")
    assert evidence_input(evidence) == entry


@given(st.text(alphabet="ab.:-/ \t19\n0", max_size=14))
def test_the_common_form_is_matched_as_a_lazy_path_would_match_it(text: str) -> None:
    """The fast match of path[:LINE[-END]] takes the path greedily to the first colon; a path
    holds no colon, so that is the split a lazy path finds too (which tried every shorter one)."""
    import re

    lazy = re.compile(r"([^\s:][^:]*?)(?::([1-9]\d{0,8})(?:-([1-9]\d{0,8}))?)?")
    found, expected = references._SIMPLE_REFERENCE.fullmatch(text), lazy.fullmatch(text)
    assert (found and found.groups()) == (expected and expected.groups())
