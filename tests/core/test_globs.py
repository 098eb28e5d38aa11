"""compiler/core/globs.py: the grammar of `paths:` entries, and overlap decided exactly.

The decision is held to an independent matcher written differently (each glob translated to a
regular expression over the whole path): every witness matches both globs, and when two globs
are decided disjoint, concrete paths drawn to match one never match the other.
"""

from __future__ import annotations

import fnmatch
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import deep_glob

from compiler.core import globs
from compiler.core.globs import parse, problem, witness
from compiler.load.document import parse_text
from compiler.model.items import validate_item
from compiler.model.messages import Collector
from compiler.model.plain import plain_item
from compiler.model.validate import build_plan

# --- an independent matcher: a glob as one regular expression -----------------------------------

_NAME = r"(?!\.\.?(?:/|$))[^/]+"  # a segment: not empty, not . or ..


def _segment_regex(segment: str) -> str:
    body = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in segment)
    return f"/(?!\\.\\.?(?:/|$))(?=[^/]){body}(?=/|$)"


def regex(text: str) -> re.Pattern[str]:
    """What docs/reference/paths.md says a path covers, spelled as one regular expression over "/" + the path:
    ``**`` any number of whole segments; a last segment without wildcards, or a final /, also
    everything below."""
    folder = text.endswith("/")
    parts = (text[:-1] if folder else text).split("/")
    body = "".join(f"(?:/{_NAME})*" if part == "**" else _segment_regex(part) for part in parts)
    if (folder or not globs.has_wildcard(parts[-1])) and parts[-1] != "**":
        body += f"(?:/{_NAME})*"
    return re.compile(f"^{body}$")


def covers(text: str, path: str) -> bool:
    return path != "" and regex(text).match("/" + path) is not None


def test_the_regex_matcher_reads_the_readme_examples() -> None:
    assert covers("app/", "app/models/user.py") and covers("app", "app/models/user.py") and covers("app", "app")
    assert covers("app/*.py", "app/x.py") and not covers("app/*.py", "app/sub/x.py")
    assert covers("**/x", "x") and covers("**/x", "a/b/x") and covers("**/x", "a/x/y")
    assert covers("a/**/b", "a/b") and covers("a/**/b", "a/q/r/b") and not covers("a/**/b", "ab")
    assert not covers("*", ".") and covers("*", ".x") and not covers("a*", "a/b")


# --- examples --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("a", "b", "expected"), [
    ("app/", "app/models/user.py", "app/models/user.py"),
    ("app", "app/models/user.py", "app/models/user.py"),
    ("app/models/user.py", "app/models/user.py", "app/models/user.py"),
    ("app/models/*.py", "app/*/user.py", "app/models/user.py"),
    ("**/*.py", "app/models/user.py", "app/models/user.py"),
    ("docs/*.md", "docs/**/README.md", "docs/README.md"),
    ("a/**", "**/b", "a/b"),
    ("x/**/y", "x/y", "x/y"),
    ("a?c/*.md", "*b*/x.md", "abc/x.md"),
    (".*", "*", ".x"),
    ("a/**/b.py", "a/**/c.py", "a/b.py/c.py"),  # a name without wildcards may be a folder
])
def test_overlapping_paths_give_a_witness_both_cover(a: str, b: str, expected: str) -> None:
    found = witness(parse(a), parse(b))
    assert found == expected
    assert covers(a, found) and covers(b, found)


@pytest.mark.parametrize(("a", "b"), [
    ("app/*.py", "app/sub/x.py"),  # * stays within a name
    ("app/*", "app/models/user.py"),
    ("*.py", "*.js"),
    ("app/", "apps/"),  # a folder is a whole segment, not a prefix of a name
    ("src/a.py", "src/b.py"),
    ("a/**/*.py", "a/**/*.js"),
    ("?", "??"),
    ("x/*", "x/**/a/b"),  # ** in the other path still needs x/<one name> to be a/b: two names
])
def test_disjoint_paths_have_no_witness(a: str, b: str) -> None:
    assert witness(parse(a), parse(b)) is None
    assert witness(parse(b), parse(a)) is None


def test_a_name_is_never_dot_or_dot_dot() -> None:
    assert witness(parse("?"), parse(".")) is None if problem(".") is None else True
    assert witness(parse("*"), parse(".?")) == ".x"  # "..", the only other two-character name, is no name
    assert witness(parse("a/*/b"), parse("a/.*/b")) == "a/.x/b"


# --- the grammar -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "words"), [
    ("/etc/passwd", "is absolute"),
    ("a/../b", "'..' segment"),
    ("./a", "'.' segment"),
    ("a//b", "empty segment"),
    ("a\\b", "backslash"),
    ("src/[ab].py", "character class"),
    ("a**/b", "** inside a segment"),
    ("", "empty"),
    ("a\nb", "control character"),
])
def test_a_malformed_path_is_refused_with_the_reason(text: str, words: str) -> None:
    why = problem(text)
    assert why is not None and words in why


_PATH_TEXT = st.text(alphabet="ab.*?/\\[] ", max_size=8)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=2000, deadline=None)
@given(_PATH_TEXT)
def test_the_schema_pattern_is_the_grammar(text: str) -> None:
    assert (re.search(globs.SCHEMA_PATTERN, text) is not None) == (problem(text) is None), text


# --- the properties ---------------------------------------------------------------------------------

_SEGMENTS = st.one_of(st.just("**"), st.text(alphabet="ab.*?", min_size=1, max_size=4).filter(
    lambda s: "**" not in s and s not in (".", "..")))
_GLOBS = st.builds(lambda parts, slash: "/".join(parts) + ("/" if slash else ""),
                   st.lists(_SEGMENTS, min_size=1, max_size=4), st.booleans())


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=1500, deadline=None)
@given(_GLOBS, _GLOBS)
def test_every_witness_is_a_path_both_globs_cover(a: str, b: str) -> None:
    found = witness(parse(a), parse(b))
    if found is not None:
        assert problem(found) is None, found
        assert covers(a, found) and covers(b, found), (a, b, found)


def _draw_path(text: str, rng: random.Random) -> str:
    """A concrete path that ``text`` covers, drawn at random (the regex matcher says so)."""
    glob = parse(text)
    parts: list[str] = []
    for segment in glob.segments:
        if segment == "**":
            parts += [rng.choice(["a", "b", ".a", "ab", "ba.", "x"]) for _ in range(rng.randrange(3))]
        else:
            name = "".join(rng.choice(["", "a", "b", ".", "ab", "x"]) if c == "*" else rng.choice("ab.x")
                           if c == "?" else c for c in segment)
            parts.append(name)
    return "/".join(parts)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=600, deadline=None)
@given(_GLOBS, _GLOBS, st.integers(0, 2**32))
def test_globs_decided_disjoint_share_no_drawn_path(a: str, b: str, seed: int) -> None:
    if witness(parse(a), parse(b)) is not None:
        return
    rng = random.Random(seed)
    for _ in range(30):
        path = _draw_path(a, rng)
        if problem(path) is not None or not covers(a, path):
            continue  # a draw that is no path (an empty name, "..")
        assert not covers(b, path), (a, b, path)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=1500, deadline=None)
@given(_GLOBS, _GLOBS)
def test_overlap_is_symmetric(a: str, b: str) -> None:
    assert (witness(parse(a), parse(b)) is None) == (witness(parse(b), parse(a)) is None)


# --- the field on both validation paths -------------------------------------------------------------

def _plan(paths: object) -> str:
    return json.dumps({"items": [{"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p", "paths": paths}]})


def test_plain_paths_are_read_by_the_fast_path() -> None:
    raw = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p", "paths": ["app/", "**/*.py"]}
    item = plain_item(raw, 0)
    assert item is not None and item.option("paths") == ["app/", "**/*.py"]


def test_a_malformed_path_is_ep018_at_its_entry_and_leaves_the_fast_path() -> None:
    raw = {"id": "a", "change": "c", "evidence": ["a.py"], "proof": "p", "paths": ["app/", "/etc/x"]}
    assert plain_item(raw, 0) is None
    doc = parse_text(_plan(raw["paths"]), "plan.json", "json")
    col = Collector(doc)
    item = validate_item(raw, 0, ("items", 0), col)
    (d,) = col.out
    assert (d.code, d.item, d.message) == ("EP018", "a", "a: '/etc/x' is absolute: paths are relative to the"
                                                         " repository root")
    assert d.location is not None and (d.location.line, d.location.column) == (1, 93)  # the second entry
    assert item is not None and item.broken == ("paths",) and item.option("paths") is None


def test_a_malformed_path_in_yaml_is_located_at_its_line() -> None:
    text = "items:\n  - id: a\n    change: c\n    evidence: [a.py]\n    proof: p\n    paths:\n      - app/\n" \
           "      - a/../b\n"
    plan = build_plan(parse_text(text, "plan.yaml", "yaml"))
    (d,) = plan.diagnostics
    assert (d.code, d.item) == ("EP018", "a")
    assert d.location is not None and (d.location.line, d.location.column) == (8, 9)


def test_names_and_paths_longer_than_the_file_system_allows_are_refused() -> None:
    assert problem("a" * 255) is None and problem("a/" + "b" * 255) is None
    assert "longer than 255" in (problem("a/" + "b" * 256) or "")
    assert re.search(globs.SCHEMA_PATTERN, "a/" + "b" * 256) is None
    long = "/".join(["abcdefg"] * 600)
    assert "longer than 4,096" in (problem(long) or "")


def test_a_pathological_pair_of_names_is_decided_within_the_steps_of_one_pair() -> None:
    """Names of 255 characters full of wildcards: the search is bounded by the product of their
    lengths, and takes fewer steps than one pair may (about 22,000 of 50,000)."""
    a, b = "*a" * 127 + "b", "*a?" * 85
    globs._segment_witness.cache_clear()
    steps = globs.Steps()
    found = witness(parse(a), parse(b), steps)
    assert steps.used <= globs.MAX_STEPS
    # Held to the standard library's matcher (its patterns here have no [...], and since Python
    # 3.9 fnmatch's regular expressions do not backtrack on runs of stars), not to a copy of ours.
    assert found is not None and fnmatch.fnmatchcase(found, a) and fnmatch.fnmatchcase(found, b)
    assert witness(parse(a), parse("*c")) is None  # a ends with b



# --- bounded work: steps ----------------------------------------------------------------------------

def test_the_search_of_one_pair_stops_at_its_steps_and_says_it_is_undecided() -> None:
    a, b = parse(deep_glob("abc", first=True)), parse(deep_glob("ijk", first=False))
    globs._segment_witness.cache_clear()
    steps = globs.Steps()
    with pytest.raises(globs.Undecided):
        witness(a, b, steps)
    # the limit, and at most the one search over two names that crossed it
    assert globs.MAX_STEPS < steps.used <= 2 * globs.MAX_STEPS + 1


def test_two_paths_of_2000_characters_full_of_wildcards_cost_one_pairs_steps() -> None:
    """The worst pair of a 4 KB plan (8 names each, every pair of names deep to decide): 18-30 s
    of CPU before the bound; now the steps of one pair, whatever was asked before."""
    a, b = parse(deep_glob("abcdefgh", first=True)), parse(deep_glob("ijklmnop", first=False))
    for _ in range(2):  # the second time, from the cache: the same steps
        steps = globs.Steps()
        with pytest.raises(globs.Undecided):
            witness(a, b, steps)
        assert globs.MAX_STEPS < steps.used <= 2 * globs.MAX_STEPS + 1


def test_a_pair_costs_the_same_steps_whichever_way_and_whenever_it_is_asked() -> None:
    a, b = parse("*" + "a?*" * 84), parse("*" + "?b*" * 84)
    globs._segment_witness.cache_clear()
    used = []
    for x, y in ((a, b), (a, b), (b, a)):
        steps = globs.Steps()
        assert witness(x, y, steps) is not None
        used.append(steps.used)
    assert used[0] == used[1] == used[2] > 20_000  # the search over the names, counted every time


@pytest.mark.parametrize(("a", "b", "used"), [
    ("**/*.py", "src/app/models/user.py", 37),
    ("src/billing/", "src/billing/models.py", 14),
    ("**/*.m1", "**/*.m2", 18),  # *.m1 and *.m2 differ at their ends: one step for the names
])
def test_a_plain_pair_takes_tens_of_steps(a: str, b: str, used: int) -> None:
    steps = globs.Steps()
    witness(parse(a), parse(b), steps)
    assert steps.used == used


@pytest.mark.parametrize(("a", "b", "expected", "steps"), [
    ("app/", "**/*.py", True, 1),  # a folder, and a pattern at any depth: always
    ("**/logs/**", "build/", True, 1),
    ("**/*.js", "src/app.js", True, 1 + 4),  # a pattern at any depth against names: from the end
    ("**/*.js", "src/app.py", False, 1 + 4),
    ("**/docs/*.md", "docs/a.md", True, 1 + 4 + 4),
    ("**/docs/*.md", "x/docs/a/b.md", False, 1 + 4 + 4),
    ("**/*.md", "a.md/b", False, 1 + 4),  # b is a file here: not a folder
    ("app/*.py", "app/**/x.py", True, None),  # the search
])
def test_overlaps_answers_the_shapes_codeowners_asks_most_in_one_step(a: str, b: str, expected: bool,
                                                                      steps: int | None) -> None:
    from compiler.analysis import codeowners

    rule = codeowners.pattern_glob(a) if a.startswith("**") else parse(a)
    path = parse(b)
    if not b.endswith("/") and globs.ANY not in b:  # a file, as compiler/analysis/codeowners.py's as_files reads one
        path = path._replace(segments=path.segments[:-1]) if path.segments[-1] == globs.ANY else path
    assert rule is not None
    counted = globs.Steps()
    assert globs.overlaps(rule, path, counted) is expected
    assert globs.overlaps(path, rule) is expected
    assert (witness(rule, path) is not None) is expected
    if steps is not None:
        assert counted.used == steps


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=1500, deadline=None)
@given(_GLOBS, _GLOBS, st.booleans())
def test_overlaps_is_witness(a: str, b: str, as_file: bool) -> None:
    x, y = parse(a), parse(b)
    if as_file and y.segments[-1] == globs.ANY and len(y.segments) > 1:
        y = y._replace(segments=y.segments[:-1])  # a path read as one file, as CODEOWNERS does
    assert globs.overlaps(x, y) == (witness(x, y) is not None), (x, y)
