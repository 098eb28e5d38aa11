"""The nodes an edit needs (compiler/load/yaml_nodes.py), composed from libyaml's events, must be the
reference's (ruamel.yaml's composer): same kinds, texts, marks and flow styles, or the reference
composes them (aliases, anchors, tags, tabs: it defers on any doubt)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import utf8_or_skip

from compiler.load.yaml_nodes import compose

pytest.importorskip("yaml._yaml")

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(
    p for folder in ("examples", "tests/cases", "tests/golden", "tests/hostile")
    for p in (REPO / folder).rglob("*.y*ml") if p.is_file()
)


def _reference(text: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).compose(text)


def _paths(root: Any) -> list[tuple[Any, ...]]:
    """The path of every node of a composed document (iteratively)."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        out.append(path)
        kind = type(node).__name__
        if kind == "SequenceNode":
            stack.extend((child, (*path, i)) for i, child in enumerate(node.value))
        elif kind == "MappingNode":
            stack.extend((value, (*path, key.value if type(key).__name__ == "ScalarNode" else None))
                         for key, value in node.value)
    return out


def _shape(node: Any, whole: bool = True) -> Any:
    """What an edit reads of a node: kind, marks, flow style, a scalar's text, and (``whole``)
    its children's, iteratively."""
    def marks(n: Any) -> tuple[Any, ...]:
        if type(n).__name__ == "ScalarNode" and n.value == "" and n.start_mark.index == n.end_mark.index:
            # An empty value (``proof:`` then a line break): libyaml places it just after the
            # colon, the reference at the next token, lines away maybe; an edit finds the colon.
            return ("ScalarNode", "empty")
        return (type(n).__name__, n.start_mark.index, n.start_mark.line, n.start_mark.column,
                n.end_mark.index, n.end_mark.line, n.end_mark.column,
                n.value if type(n).__name__ == "ScalarNode" else n.flow_style)

    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(marks(n))
        if not whole:
            continue
        if type(n).__name__ == "SequenceNode":
            stack.extend(n.value)
        elif type(n).__name__ == "MappingNode":
            for key, value in n.value:
                stack.extend((key, value))
    return out


def _agree(text: str) -> bool:
    """Whether the nodes composed from libyaml's events are the reference's, every one of them
    (asked for every path); False when this path deferred (the reference composed them)."""
    try:
        if compose(text, [])[1]:  # deferred (an alias bomb is not expanded here either)
            return False
    except Exception:  # noqa: BLE001 - the reference refuses the text: never edited (never read)
        return False
    try:
        reference = _reference(text)
    except Exception:  # noqa: BLE001 - what libyaml reads and the reference refuses: never read, never edited
        return False
    if reference is None:
        return False
    root, deferred = compose(text, _paths(reference))
    if deferred:
        return False
    assert _shape(root) == _shape(reference), text
    return True


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_nodes_from_libyaml_events_have_the_reference_marks_on_every_corpus_plan(path: Path) -> None:
    _agree(utf8_or_skip(path))


@pytest.mark.slow
def test_most_corpus_plans_are_composed_from_libyaml_events() -> None:
    """The fast path is taken: on the plans that are not hostile on purpose, all but a few."""
    plans = [p for p in FILES if "hostile" not in p.parts and not p.name.startswith("ep")]
    taken = sum(_agree(p.read_bytes().decode("utf-8", "replace")) for p in plans)
    assert taken >= 0.8 * len(plans), (taken, len(plans))


_PLANS = [p.read_bytes().decode("utf-8", "replace") for p in FILES if "hostile" not in p.parts]
_YAML_BITS = [*":-[]{},#'\"\n ?@`~012.", "  ", "\n  ", "- ", ": ", "\r", "\r\n", "|", ">", "é"]


@pytest.mark.hostile  # mutated plans: a fuzz test, with the hostile corpus's tests
@settings(max_examples=400, deadline=None)
@given(st.randoms(use_true_random=False))
def test_nodes_from_libyaml_events_have_the_reference_marks_on_mutated_plans(rng: random.Random) -> None:
    text = rng.choice(_PLANS)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(_YAML_BITS) + text[i + rng.randint(0, 3):]
    _agree(text)


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n",  # an alias: the reference keeps the sharing
    "a: &x 1\n",  # an anchor
    "a: !!str 1\n",  # an explicit tag
    "a: 1\nb: [x,\t y]\n",  # a tab (the fast reader defers on it)
    "%YAML 1.2\n---\na: 1\n",
    "a: 1 \u2028 2\n",  # a line break to YAML 1.1, text to 1.2
    "? [a]\n: 1\n",  # a key that is not text
])
def test_the_reference_composes_what_the_fast_path_is_not_sure_of(text: str) -> None:
    assert compose(text, [("a",)])[1] is True


@pytest.mark.parametrize("text", ["a: 1\n--- \nb: 2\n", "a: [1,\n", "a:\t1\n"])
def test_a_text_the_reference_refuses_gets_its_error(text: str) -> None:
    """Never the case of an edit (the plan was read first), but not a silent answer either."""
    from ruamel.yaml.error import YAMLError

    with pytest.raises(YAMLError):
        compose(text, [("a",)])


def test_only_the_containers_on_the_paths_are_composed_with_their_children() -> None:
    text = "items:\n  - id: a\n    evidence: [x, y]\n  - id: b\n    evidence: [z]\nplan: p\n"
    root, deferred = compose(text, [("items", 1, "evidence", 0)])
    assert not deferred
    items = root.value[0][1]
    first, second = items.value
    reference_first = _reference(text).value[0][1].value[0]
    assert first.value == [] and _shape(first, whole=False) == _shape(reference_first, whole=False)
    assert [key.value for key, _ in second.value] == ["id", "evidence"]
    assert [node.value for node in second.value[1][1].value] == ["z"]
