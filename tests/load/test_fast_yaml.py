"""The fast YAML path (libyaml through PyYAML, compiler.load.fastyaml) must read every file exactly as
ruamel.yaml, the reference, does: the same data and the same positions, or the same input error
(it defers to ruamel on any doubt)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import utf8_or_skip

import compiler.load.fastyaml as fastyaml
from compiler.core.diagnostics import PlanInputError
from compiler.load.document import Document, parse_text
from compiler.load.limits import DEFAULT_LIMITS, Limits

pytest.importorskip("yaml._yaml")

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(
    p for folder in ("examples", "tests/cases", "tests/golden", "tests/hostile")
    for p in (REPO / folder).rglob("*.y*ml") if p.is_file()
)


def _fast(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[object, object] | None:
    return fastyaml.parse(text, max_depth=limits.max_depth, max_items=limits.max_items)


def _parse(text: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Document | PlanInputError:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(fastyaml, "parse", lambda *a, **k: None)
        try:
            return parse_text(text, "plan.yaml", "yaml")
        except PlanInputError as err:
            return err


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_fast_and_reference_paths_agree(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = utf8_or_skip(path)
    fast, reference = _parse(text, True, monkeypatch), _parse(text, False, monkeypatch)
    if isinstance(reference, PlanInputError):
        assert isinstance(fast, PlanInputError), f"fast path accepted what ruamel refuses: {reference}"
        assert fast.diagnostic == reference.diagnostic
        return
    assert isinstance(fast, Document), f"fast path refused what ruamel accepts: {fast}"
    assert fast.data == reference.data
    assert fast.source_map.entries() == reference.source_map.entries()


def test_the_fast_path_reads_ordinary_plans_itself() -> None:
    """Not a test that passes by deferring: every example and valid case plan is read by libyaml."""
    plans = [p for p in FILES if "hostile" not in p.parts and "blocked" not in p.parts and "bad" not in p.name]
    assert len(plans) >= 10
    taken = [p for p in plans if _fast(utf8_or_skip(p)) is not None]
    assert len(taken) >= 0.8 * len(plans), sorted(set(plans) - set(taken))
    assert _fast((REPO / "examples/duplicate-email/plan.yaml").read_text(encoding="utf-8")) is not None


@pytest.mark.parametrize(
    "text",
    [
        "a: &x [1]\nb: *x\n",  # aliases: expanded by the reference, under its budget
        "a: !!str 1\n", "a: !custom x\n", "a: ! x\n", "!!map {a: 1}\n",  # explicit tags
        "a: 1\na: 2\n",  # a repeated key
        "<<: {a: 1}\n",  # a merge key
        "[a]: 1\n",  # a key that is not text
        "a: 1\n---\nb: 2\n",  # two documents
        "%YAML 1.2\n---\na: 1\n",  # a directive: libyaml knows YAML 1.1 only
        "a: [1\n",  # an error: the reference says what and where
        "a: 0x1F_Z\n" + "b: " + "[" * 99 + "]" * 99 + "\n",  # nesting at the limit
        "a: " + "9" * 5000 + "\n",  # an integer Python refuses to build
        "a: =\n",  # the value tag: refused by the reference
        "a: &x 1\n",  # an anchor (and `&name:`, which libyaml reads as an anchor on an empty key)
        # What libyaml reads and ruamel refuses (found by the fuzz test below):
        "a:\tb\n", "a: b\tc\n", "a: |# note\n  x\n", "a: |\n\n  x\n",
        # What they read differently: YAML 1.1 line breaks, and a byte-order mark inside the text.
        "a: b\u2028c\n", "a: b\u2029c\n", "a: b\x85c\n", "# \u2028 x\na: 1\n", "a: 1\n\ufeffb: 2\n",
    ],
)
def test_the_fast_path_defers_when_not_sure(text: str) -> None:
    assert _fast(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("id: no", "no"), ("id: yes", "yes"), ("id: on", "on"), ("id: 012", 12), ("id: 0o12", 10),
        ("id: 1e3", 1000.0), ("id: ~", None), ("id: 'no'", "no"), ("id: !!str 12", "12"),
        ("id: 2024-01-01", "2024-01-01"), ("id: true", True), ("id: -7", -7), ("id: 0x1F", 31),
        ("id: 1_000", 1000), ("id: .inf", float("inf")), ("id:", None), ("id: ''", ""),
        ("id: 2.5", 2.5), ("id: -0.50", -0.5), ("id: +3.", 3.0), ("id: 1_0.5", 10.5),
    ],
)
def test_plain_scalars_follow_yaml_1_2_on_both_paths(text: str, value: object, monkeypatch: pytest.MonkeyPatch) -> None:
    for fast in (True, False):
        doc = _parse(text + "\n", fast, monkeypatch)
        assert isinstance(doc, Document)
        assert doc.data == {"id": value}, (fast, doc.data)
        assert type(doc.data["id"]) is type(value)


def test_a_decimal_float_is_built_without_ruamel(monkeypatch: pytest.MonkeyPatch) -> None:
    """An estimate's 2.5: digits, a point, digits is float() exactly as ruamel's constructor does
    it, so a plan of fractional estimates does not import ruamel.yaml to read its numbers."""
    def refuse(tag: str, value: str) -> None:
        raise AssertionError(f"ruamel built {value}")

    monkeypatch.setattr(fastyaml, "_construct_with_ruamel", refuse)
    assert [fastyaml._plain(v) for v in ("2.5", "-0.50", "+3.", "007.25")] == [2.5, -0.5, 3.0, 7.25]
    assert repr(fastyaml._plain("-0.0")) == "-0.0"
    with pytest.raises(AssertionError):
        fastyaml._plain("1_0.5")  # underscores: ruamel's own reading


def test_numbers_only_ruamel_builds_are_built_by_one_constructor_that_keeps_nothing() -> None:
    text = "items:\n" + "".join(f"  - {{id: a{i}, x: {i}.5, y: 0x1F}}\n" for i in range(300))
    parsed = _fast(text)
    assert parsed is not None
    assert parsed[0]["items"][7] == {"id": "a7", "x": 7.5, "y": 31}
    assert not fastyaml._ruamel_constructor().constructed_objects  # no node kept per value


_PLANS = [p.read_bytes().decode("utf-8", "replace") for p in FILES if "hostile" not in p.parts]
_YAML_BITS = [*":-[]{},#&*!|>'\"\n ?%@`\t~012.", "  ", "\n  ", "- ", ": ", "yes", "no",
              # What YAML 1.1 readers (libyaml, and ruamel.yaml in places) take as line breaks or
              # as a byte-order mark, and YAML 1.2 as text, and plain other line ends:
              "\u2028", "\u2029", "\x85", "\ufeff", "\r", "\r\n"]


@pytest.mark.hostile  # mutated plans: a fuzz test, with the hostile corpus's tests
@settings(max_examples=600, deadline=None)
@given(st.randoms(use_true_random=False))
def test_mutated_plans_read_alike_on_both_paths(rng: random.Random) -> None:
    """Plans with a few characters inserted, deleted or replaced anywhere (YAML's own
    punctuation, tabs, line breaks): the fast path gives the reference's values and positions,
    or defers to it. (Positions drawn uniformly: most of a plan is not its first comment.)"""
    text = rng.choice(_PLANS)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(_YAML_BITS) + text[i + rng.randint(0, 3):]
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, reference = _parse(text, True, monkeypatch), _parse(text, False, monkeypatch)
    if isinstance(reference, PlanInputError):
        assert isinstance(fast, PlanInputError) and fast.diagnostic == reference.diagnostic, text
    else:
        assert isinstance(fast, Document), (text, fast)
        assert (fast.data, fast.source_map.entries()) == (reference.data, reference.source_map.entries()), text


_SAMPLES = [
    "", "~", "null", "Null", "NULL", "nULL", "true", "True", "TRUE", "tRUE", "yes", "no", "on", "off",
    "0", "-0", "+0", "007", "0o17", "0o18", "0b101", "0b2", "0x1F", "0xG", "1_000", "_1", "1__",
    "1.5", "1.", ".5", "-.5", "1e3", "1E+3", "1.5e-3", ".5e3", ".5e+3", ".inf", "-.Inf", ".NaN", ".nan",
    "1:30", "2024-01-01", "2024-1-1 10:00:00", "2024-01-01T10:00:00Z", "2024-01-01 10:00:00.5 +01:00",
    "<<", "<", "=", "==", "a", "3-4", "18-24", "tests/x.py:44", "-", "+", "."
]


def _ruamel_tag(value: str) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import ScalarNode

    return str(YAML(typ="safe", pure=True).resolver.resolve(ScalarNode, value, (True, False)))


@pytest.mark.parametrize("value", _SAMPLES)
def test_plain_scalars_resolve_as_ruamel_resolves_them(value: str) -> None:
    assert fastyaml.resolve_plain(value) == _ruamel_tag(value)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789-+._eExobXaAfFtTnNulL~:<=! \tZz", max_size=12))
def test_any_plain_scalar_resolves_as_ruamel_resolves_it(value: str) -> None:
    assert fastyaml.resolve_plain(value) == _ruamel_tag(value)


def test_positions_are_read_only_when_asked_for() -> None:
    text = "items:\n  - id: a\n    proof:\n"
    parsed = _fast(text)
    assert parsed is not None
    data, smap = parsed
    assert data == {"items": [{"id": "a", "proof": None}]}
    assert smap._lines is None  # type: ignore[attr-defined]  # nothing held for a plan without diagnostics
    assert smap.value(("items", 0, "proof")) == (3, 11)  # an empty value: just after its colon
    assert smap.key(("items", 0, "id")) == (2, 5)


def test_too_many_items_are_refused_while_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "plan: p\n# a comment\nitems:\n" + "  - {id: a}\n" * 50
    with pytest.raises(fastyaml.TooManyItems) as raised:
        fastyaml.parse(text, max_depth=100, max_items=10)
    assert raised.value.position == (3, 1)
    with pytest.raises(PlanInputError) as err:
        parse_text(text, "plan.yaml", "yaml", limits=Limits(max_items=10))
    assert err.value.diagnostic.code == "EP008"
    assert (err.value.diagnostic.location.line, err.value.diagnostic.location.column) == (3, 1)
    assert fastyaml.parse(text, max_depth=100, max_items=50) is not None  # exactly the limit


def test_check_of_a_yaml_plan_imports_no_ruamel() -> None:
    """ruamel.yaml's import alone is about a fifth of `check`'s start-up: only the reference
    path (an error, a corner case) pays it."""
    probe = ("import sys; from compiler.cli import main\n"
             "try:\n    main(['check', 'examples/duplicate-email/plan.yaml'])\n"
             "except SystemExit as e:\n    assert e.code == 0, e.code\n"
             "print(sorted(m for m in sys.modules if m.startswith('ruamel')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "[]"
