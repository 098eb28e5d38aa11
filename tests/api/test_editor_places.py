"""The editor's places (compiler/api/editor_places.py): definition, references, rename and the
outline, on YAML plans in block and flow style and JSON plans, with non-ASCII ids and an emoji
before them on a line (columns count code points); and no place of any plan makes them raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import analysed, applied, git_repo
from work import GROWTH_LIMIT, growth

from compiler.api.editor import Analysis, Range, nodes
from compiler.api.editor_hover import hover
from compiler.api.editor_places import (
    Edit,
    RenameRefused,
    Symbol,
    Target,
    definition,
    outline,
    prepare_rename,
    references,
    rename,
)

X_PY = '"""X."""\n\n\ndef f():\n    return 1\n\n\nclass K:\n    def m(self):\n        return 2\n'

# é is named in a block list, a flow list (quoted) and by a flow mapping's item after an emoji; b and
# d by a flow list that goes on to the next line; ids plain, single- and double-quoted.
YAML = """\
items:
  - id: é
    change: first
    evidence:
      - app/x.py:4-5
    proof: pytest
  - id: 'b'
    change: second
    evidence:
      - app/x.py::K.m
      - path: app/x.py
        contains: class K
      - app/x.py
      - https://example.com/x
    depends_on:
      - é
    proof: pytest
  - {id: d, change: "🚀 fourth", evidence: [app/x.py:1], dependencies: ["é"], proof: pytest}
  - id: "e"
    change: fifth
    evidence: [app/x.py:1]
    depends_on: [b,
       d]
    proof: pytest
"""

ITEMS = [
    {"id": "é", "change": "first", "evidence": ["app/x.py:4-5"], "proof": "pytest"},
    {"id": "b", "change": "second", "evidence": ["app/x.py::K.m"], "depends_on": ["é"], "proof": "pytest"},
    {"change": "🚀 fourth", "id": "d", "evidence": ["app/x.py:1"], "dependencies": ["é"], "proof": "pytest"},
    {"id": "e", "change": "fifth", "evidence": ["app/x.py:1"], "depends_on": ["b", "d"], "proof": "pytest"},
]
JSON = '{"items": [\n' + ",\n".join(" " + json.dumps(item, ensure_ascii=False) for item in ITEMS) + "\n]}\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "repo", {"app/x.py": X_PY})


def at(text: str, needle: str, n: int = 0, shift: int = 1) -> tuple[int, int]:
    """The place ``shift`` characters into the n-th occurrence of ``needle`` (0-based line, code points)."""
    offset = -1
    for _ in range(n + 1):
        offset = text.index(needle, offset + 1)
    return text.count("\n", 0, offset), offset - (text.rfind("\n", 0, offset) + 1) + shift


def span(line: int, column: int, end: int) -> Range:
    return Range(line=line, column=column, end_line=line, end_column=end)


def edited(text: str, edits: list[Edit]) -> str:
    """The text with the edits made (tests/support.py's own applier, not compiler/core/edits.py)."""
    return applied(text, [{"start": {"line": e.range.line + 1, "column": e.range.column + 1},
                           "end": {"line": e.range.end_line + 1, "column": e.range.end_column + 1},
                           "new_text": e.new_text} for e in edits])


# --- definition ---------------------------------------------------------------------------------------------


def test_an_evidence_entry_leads_to_the_cited_lines_in_column_0_only(root: Path) -> None:
    plan = analysed(root, YAML)
    assert plan.result is not None
    source = str(Path(plan.result.root) / "app" / "x.py")
    assert source.startswith(str(root)) or Path(source).resolve() == (root / "app" / "x.py").resolve()
    cases = {
        "app/x.py:4-5": Range(line=3, column=0, end_line=5, end_column=0),
        "app/x.py::K.m": Range(line=8, column=0, end_line=10, end_column=0),  # the symbol's lines
        "contains: class K": Range(line=7, column=0, end_line=7, end_column=0),  # where the text is
        "path: app/x.py": Range(line=7, column=0, end_line=7, end_column=0),  # any scalar of the entry
        "- app/x.py\n": Range(line=0, column=0, end_line=0, end_column=0),  # a path alone: its start
    }
    for needle, expected in cases.items():
        assert definition(plan, *at(YAML, needle, shift=3)) == [Target(source, expected)], needle
    assert definition(plan, *at(YAML, "https://example.com/x")) == []


def test_a_dependency_leads_to_the_items_id_and_an_id_to_itself(root: Path) -> None:
    plan = analysed(root, YAML)
    path = plan.path
    assert definition(plan, *at(YAML, "      - é", shift=8)) == [Target(path, span(1, 8, 9))]
    assert definition(plan, *at(YAML, '["é"]', shift=2)) == [Target(path, span(1, 8, 9))]
    assert definition(plan, *at(YAML, "       d]", shift=7)) == [Target(path, span(17, 9, 10))]
    assert definition(plan, *at(YAML, "id: 'b'", shift=5)) == [Target(path, span(6, 8, 11))]
    assert definition(plan, *at(YAML, "change: second")) == []


def test_a_json_plans_places_count_code_points_after_an_emoji(root: Path) -> None:
    plan = analysed(root, JSON, "plan.json")
    line = JSON.split("\n")[3]
    assert line.index('"é"') == 80 and len(line[:80].encode("utf-16-le")) // 2 == 81  # the emoji is 2 UTF-16 units
    assert definition(plan, 3, 81) == [Target(plan.path, span(1, 8, 11))]
    assert references(plan, 1, 9, True) == [span(1, 8, 11), span(2, 79, 82), span(3, 80, 83)]
    assert prepare_rename(plan, 3, 83) == span(3, 80, 83)
    assert prepare_rename(plan, 3, 84) is None


@pytest.mark.parametrize("needle", ["../outside.txt", "link.txt", '"a\\0b.txt"', "missing.py", "data.bin\n"])
def test_nothing_outside_the_root_or_refused_is_a_target(tmp_path: Path, needle: str) -> None:
    root = git_repo(tmp_path / "repo", {"app/x.py": X_PY, "data.bin": b"a\x00b"})
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    text = ("items:\n  - id: a\n    change: c\n    evidence:\n      - ../outside.txt\n      - link.txt\n"
            '      - "a\\0b.txt"\n      - missing.py\n      - data.bin\n    proof: pytest\n')
    plan = analysed(root, text)
    assert definition(plan, *at(text, needle, shift=2)) == []
    said = hover(plan, *at(text, needle, shift=2))
    assert said is not None and "secret" not in said.markdown


# --- references ---------------------------------------------------------------------------------------------


def test_references_are_every_entry_naming_the_id_in_block_and_flow_lists(root: Path) -> None:
    plan = analysed(root, YAML)
    declared = span(1, 8, 9)
    named = [span(15, 8, 9), span(17, 71, 74)]  # the block entry, and "é" after the emoji (code points)
    for place in (at(YAML, "id: é", shift=4), at(YAML, "      - é", shift=9), at(YAML, '["é"]', shift=1)):
        assert references(plan, *place, include_declaration=True) == [declared, *named]
        assert references(plan, *place, include_declaration=False) == named
    assert references(plan, *at(YAML, "id: 'b'", shift=5), True) == [span(6, 8, 11), span(21, 17, 18)]
    assert references(plan, *at(YAML, "       d]", shift=7), True) == [span(17, 9, 10), span(22, 7, 8)]
    assert references(plan, *at(YAML, "change: first", shift=10), True) == []


# --- rename -------------------------------------------------------------------------------------------------------


def codes(plan: Analysis) -> list[str]:
    return sorted(d.code for d in plan.diagnostics)


def renamed(root: Path, text: str, place: tuple[int, int], new: str, name: str = "plan.yaml") -> tuple[list[Edit], str]:
    plan = analysed(root, text, name)
    assert prepare_rename(plan, *place) is not None
    edits = rename(plan, *place, new)
    after = edited(text, edits)
    again = analysed(root, after, name)
    assert codes(again) == codes(plan)
    assert again.result is not None and new in again.result.plan.known_ids
    return edits, after


def test_a_rename_writes_the_new_id_for_each_place_keeping_its_quotes(root: Path) -> None:
    edits, after = renamed(root, YAML, at(YAML, "      - é", shift=8), "étape")
    assert edits == [Edit(span(1, 8, 9), "étape"), Edit(span(15, 8, 9), "étape"), Edit(span(17, 71, 74), '"étape"')]
    assert "depends_on:\n      - étape\n" in after and 'dependencies: ["étape"]' in after
    edits, after = renamed(root, YAML, at(YAML, "id: 'b'", shift=6), "b.2")
    assert edits == [Edit(span(6, 8, 11), "'b.2'"), Edit(span(21, 17, 18), "b.2")]
    assert "depends_on: [b.2,\n       d]" in after


def test_a_rename_quotes_what_plain_text_would_misread(root: Path) -> None:
    edits, after = renamed(root, YAML, at(YAML, "       d]", shift=7), "123")
    assert edits == [Edit(span(17, 9, 10), "'123'"), Edit(span(22, 7, 8), "'123'")]
    assert "{id: '123', change:" in after and "depends_on: [b,\n       '123']" in after
    edits, _ = renamed(root, YAML, at(YAML, "id: é", shift=4), "yes")
    assert [e.new_text for e in edits] == ["'yes'", "'yes'", '"yes"']
    edits, _ = renamed(root, YAML, at(YAML, "       d]", shift=7), "x:y")
    assert [e.new_text for e in edits] == ["x:y", "x:y"]


def test_a_json_rename_writes_json(root: Path) -> None:
    edits, after = renamed(root, JSON, (1, 9), "ça/va", "plan.json")
    new = '"ça/va"'
    assert edits == [Edit(span(1, 8, 11), new), Edit(span(2, 79, 82), new), Edit(span(3, 80, 83), new)]
    assert json.loads(after)["items"][2]["dependencies"] == ["ça/va"]


@pytest.mark.parametrize(("new", "why"), [  # the plan's own checks: compiler/core/ids.py
    ("", "the new id is empty"),
    ("  ", "the new id is empty"),
    ("a b", "the new id 'a b' contains a space"),
    ("🚀", "the new id '🚀' contains '🚀'; ids hold letters, digits and - _ . / :"),
    ("-x", "the new id '-x' starts with '-'; start with a letter or a digit"),
    ("bаd", "the new id 'bаd' mixes Latin and Cyrillic letters"),
    ("b", "'b' is already the id of another item"),
    ("е", "the new id 'е' looks like 'e', the id of another item"),  # a Cyrillic е beside the Latin e
])
def test_a_rename_the_plan_would_refuse_is_refused_in_one_sentence(root: Path, new: str, why: str) -> None:
    plan = analysed(root, YAML)
    with pytest.raises(RenameRefused) as refused:
        rename(plan, *at(YAML, "id: é", shift=4), new)
    assert str(refused.value) == why


def test_no_rename_where_no_item_id_is_or_through_a_yaml_alias(root: Path) -> None:
    plan = analysed(root, YAML)
    place = at(YAML, "change: first", shift=10)
    assert prepare_rename(plan, *place) is None
    with pytest.raises(RenameRefused) as refused:
        rename(plan, *place, "z")
    assert str(refused.value) == "there is no item id here to rename"
    unknown = YAML.replace("      - é\n", "      - nobody\n")
    plan = analysed(root, unknown)
    assert prepare_rename(plan, *at(unknown, "nobody")) is None
    with pytest.raises(RenameRefused) as refused:
        rename(plan, *at(unknown, "nobody"), "z")
    assert str(refused.value) == "no item of the plan has the id 'nobody'"
    aliased = YAML.replace("id: é", "id: &first é").replace("      - é\n", "      - *first\n")
    plan = analysed(root, aliased)
    with pytest.raises(RenameRefused) as refused:
        rename(plan, *at(aliased, "&first é", shift=8), "z")
    assert str(refused.value) == "'é' is written through a YAML alias (&name, *name): rename it by hand"


# --- outline ------------------------------------------------------------------------------------------------------


def item(name: str, detail: str, whole: Range, selection: Range) -> Symbol:
    return Symbol(name=name, detail=detail, kind="item", range=whole, selection_range=selection)


def test_the_outline_of_an_ordered_plan_is_its_waves(root: Path) -> None:
    one = item("é", "first", Range(line=1, column=4, end_line=5, end_column=17), span(1, 8, 9))
    two = item("b", "second", Range(line=6, column=4, end_line=16, end_column=17), span(6, 8, 11))
    four = item("d", "🚀 fourth", Range(line=17, column=5, end_line=17, end_column=90), span(17, 9, 10))
    five = item("e", "fifth", Range(line=18, column=4, end_line=23, end_column=17), span(18, 8, 11))
    assert outline(analysed(root, YAML)) == [
        Symbol(name="Wave 1", detail="wave 1 of 3 (1 item)", kind="wave", range=one.range,
               selection_range=one.selection_range, children=(one,)),
        Symbol(name="Wave 2", detail="wave 2 of 3 (2 items)", kind="wave",
               range=Range(line=6, column=4, end_line=17, end_column=90), selection_range=two.selection_range,
               children=(two, four)),
        Symbol(name="Wave 3", detail="wave 3 of 3 (1 item)", kind="wave", range=five.range,
               selection_range=five.selection_range, children=(five,)),
    ]


def test_the_outline_groups_by_phase_when_the_plan_gives_them_and_is_flat_when_blocked(root: Path) -> None:
    phased = (YAML.replace("    change: first\n", "    change: first\n    phase: build\n")
              .replace("    change: fifth\n", "    change: fifth\n    phase: build\n")
              .replace("    change: second\n", "    change: second\n    phase: ship\n"))
    groups = outline(analysed(root, phased))
    assert [(g.name, g.detail, g.kind, [c.name for c in g.children]) for g in groups] == [
        ("build", "phase 1 (2 items)", "phase", ["é", "e"]),
        ("ship", "phase 2 (1 item)", "phase", ["b"]),
        ("no phase", "items of no phase (1 item)", "phase", ["d"]),
    ]
    assert groups[0].range == Range(line=1, column=4, end_line=26, end_column=17)  # from é to e, b between them
    blocked = YAML.replace("      - é\n", "      - nobody\n")
    flat = outline(analysed(root, blocked))
    assert [(s.name, s.kind, s.children) for s in flat] == [("é", "item", ()), ("b", "item", ()), ("d", "item", ()),
                                                             ("e", "item", ())]


# --- any place ------------------------------------------------------------------------------------------------


HOSTILE = """\
plan: "x`*[y](z)"
items:
  - id: a
    change: "multi\\nline ` change"
    evidence: [../outside.txt, link.txt, "a\\0b.txt", app/x.py::Nope, app/x.py:9-99, "", 12, {path: app/x.py, pin: x}]
    depends_on: [a, nobody, 7, [x]]
    proof: [one, two]
  - 3
  - {}
  - id: [oops]
  - id: a
    change: again
"""


@pytest.mark.parametrize("which", ["yaml", "json", "hostile"])
def test_no_place_of_a_plan_makes_any_answer_raise(tmp_path: Path, which: str) -> None:
    root = git_repo(tmp_path / "repo", {"app/x.py": X_PY})
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    text, name = {"yaml": (YAML, "plan.yaml"), "json": (JSON, "plan.json"), "hostile": (HOSTILE, "plan.yaml")}[which]
    plan = analysed(root, text, name)
    lines = text.split("\n")
    for line in range(-1, len(lines) + 2):
        width = len(lines[line]) if 0 <= line < len(lines) else 0
        for column in range(-1, width + 4):
            said = hover(plan, line, column)
            assert said is None or "secret" not in said.markdown
            definition(plan, line, column)
            references(plan, line, column, True)
            if prepare_rename(plan, line, column) is not None:
                try:
                    rename(plan, line, column, "fresh")
                except RenameRefused:
                    pass
    outline(plan)


def test_an_emoji_id_is_found_and_renamed_by_code_points(root: Path) -> None:
    text = ("items:\n  - id: 🚀go\n    change: c\n    evidence: [app/x.py:1]\n    proof: pytest\n"
            "  - {id: b, change: \"🚀\", evidence: [app/x.py:1], depends_on: [🚀go], proof: pytest}\n")
    plan = analysed(root, text)
    assert [d.code for d in plan.diagnostics] == ["EP015"]  # the id grammar refuses the emoji
    place = at(text, "[🚀go]", shift=3)  # on the o: after the emoji, one code point, two UTF-16 units
    assert references(plan, *place, True) == [span(1, 8, 11), span(5, 62, 65)]
    said = hover(plan, *place)
    assert said is not None and said.range == span(5, 62, 65) and said.markdown.startswith("**Item** `🚀go`")
    edits = rename(plan, *place, "rocket")
    assert edits == [Edit(span(1, 8, 11), "rocket"), Edit(span(5, 62, 65), "rocket")]
    again = analysed(root, edited(text, edits))
    assert again.diagnostics == () and again.result is not None and again.result.waves == (("rocket",), ("b",))


@pytest.mark.slow
def test_the_answers_grow_linearly_with_the_plan(tmp_path: Path) -> None:
    """Dependents, references and the outline are each one pass over the plan: no step per pair of
    items (counted calls, tests/work.py; the analyses are made and their nodes walked first)."""
    plans = {}
    for n in (20, 200):
        root = git_repo(tmp_path / str(n), {"app/x.py": X_PY})
        lines = ["items:"]
        for i in range(n):
            lines += [f"  - id: item-{i}", f"    change: change {i}", "    evidence: [app/x.py:4-5]",
                      f"    depends_on: [{'item-0' if i else ''}]", "    proof: pytest"]
        plans[n] = analysed(root, "\n".join(lines) + "\n")
        nodes(plans[n])

    def run(n: int) -> object:
        plan = plans[n]
        return (hover(plan, 1, 9), hover(plan, 3, 16), references(plan, 1, 9, True), definition(plan, 9, 18),
                prepare_rename(plan, 9, 18), outline(plan))

    grew = growth(run, 20)
    assert all(run(200)[:5]), "every answer is about a place it found"
    assert grew.ratio < GROWTH_LIMIT, str(grew)
