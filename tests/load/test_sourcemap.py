"""The source map: where every node came from. The ordered form (positions in document order,
found from the data; compiler.load.sourcemap.OrderedSourceMap) must answer every question exactly as
the dict form (a position per path), its reference, does: for JSON against scan_json, for YAML
(in tests/load/test_fast_yaml.py) against ruamel.yaml's composed nodes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from work import count

from compiler.load.sourcemap import OrderedSourceMap, SourceMap, scan_json, scan_json_ordered

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(p for folder in ("examples", "tests/cases", "tests/golden", "tests/hostile", "outputs")
               for p in (REPO / folder).rglob("*.json") if p.is_file())


def _maps(text: str) -> tuple[OrderedSourceMap, SourceMap]:
    data = json.loads(text)
    values, keys, _ = scan_json(text)
    return OrderedSourceMap(data, lambda: scan_json_ordered(text)), SourceMap(values, keys)


def _questions(data: Any) -> list[tuple[Any, ...]]:
    """Every path of the data, and next to each a few that do not exist (a missing field, an
    index past the end, a key of a list), which fall back to the nearest ancestor."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        out += [path, (*path, "missing"), (*path, 10**6), (*path, 0, "x")]
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return out


def _agree(text: str) -> None:
    ordered, reference = _maps(text)
    assert ordered.entries() == reference.entries()
    for path in _questions(json.loads(text)):
        assert ordered.value(path) == reference.value(path), path
        assert ordered.key(path) == reference.key(path), path
        assert ordered.has(path) == reference.has(path), path


def _valid_json(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return text if scan_json(text)[2] is None else None  # a repeated key is refused too


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_ordered_map_answers_as_the_reference_on_every_corpus_file(path: Path) -> None:
    text = _valid_json(path)
    if text is None:
        pytest.skip("not a valid plan JSON: refused before positions are asked for")
    _agree(text)


def _random_json(rng: random.Random, leaves: int) -> Any:
    """Nested JSON of about ``leaves`` scalars, containers of 0 to 40 children (both sides of
    the 32 past which child offsets are kept). Built from a seed rather than by hypothesis's
    recursive strategy, which spent 85% of this test's time generating."""
    def scalar() -> Any:
        return rng.choice([None, True, False, rng.randint(-10**6, 10**6),
                           "".join(rng.choice('ab"\\\u00e9\n{}[],:') for _ in range(rng.randint(0, 5)))])

    def node(budget: int, top: bool = False) -> Any:
        if budget <= 1 or (not top and rng.random() < 0.3):
            return scalar()
        width = rng.randint(33, 40) if budget >= 40 and rng.random() < 0.4 else rng.randint(0, min(12, budget))
        shares = [budget // max(width, 1)] * width
        if rng.random() < 0.5:
            return [node(share) for share in shares]
        return {"".join(rng.choice("abk\"") for _ in range(rng.randint(0, 4))): node(share) for share in shares}

    return node(leaves, top=True)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@given(seed=st.integers(0, 2**32 - 1), leaves=st.integers(1, 200), indent=st.sampled_from([None, 0, 2]))
@settings(max_examples=300, deadline=None)
def test_ordered_map_answers_as_the_reference_on_any_json(seed: int, leaves: int, indent: int | None) -> None:
    """Containers past the size where child offsets are kept (32) and below it, nested."""
    _agree(json.dumps(_random_json(random.Random(seed), leaves), indent=indent, ensure_ascii=False))


def test_positions_of_every_item_cost_linear_work_behind_a_large_sibling() -> None:
    """A compiled evidence-plan.json has its issues before its items, in a top-level mapping of a
    few keys: each item's position walked the whole issue list again (diff of a 3,000-item plan:
    17 s). Twice the items and issues must cost about twice the work, not four times."""
    def work(n: int) -> int:
        data = {"status": "blocked", "issues": [{"code": "EP102", "item": f"i{k}", "location": {"line": k}}
                                                  for k in range(n)],
                "items": [{"id": f"i{k}", "change": "c", "proof": "p"} for k in range(n)]}
        size = 3 + 10 * n + 1 + 8 * n  # {, two keys and values, each issue 10 places, each item 8
        smap = OrderedSourceMap(data, lambda: ([1] * size, [1] * size))
        return count(lambda: [smap.value(("items", k, "proof")) for k in range(n)]).calls

    small, large = work(500), work(1000)
    assert large <= 2.2 * small, (small, large)


@pytest.mark.performance
def test_a_million_item_plan_needs_no_dict_per_node() -> None:
    """The point of the ordered form: positions of 13 nodes per item in two arrays of 4-byte
    integers, not a tuple path and a position each."""
    items = [{"id": f"i{n}", "change": "c", "evidence": ["a.py:1"], "depends_on": [f"i{n - 1}"], "proof": "p"}
             for n in range(20_000)]
    text = json.dumps({"items": items}, indent=1)
    ordered, _ = _maps(text)
    assert ordered.value(("items", 19_999, "proof")) is not None
    lines, columns = ordered._lines, ordered._columns
    assert lines is not None and len(lines) == 3 + 20_000 * 13  # {, items, [, then 13 an item
    assert lines.itemsize == columns.itemsize == 4  # type: ignore[attr-defined]
