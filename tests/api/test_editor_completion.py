"""Completion in a plan's text (compiler/api/editor_completion.py, over the cursor's place read by
compiler/api/editor_place.py): ids, paths, symbols, field names and words, in YAML's block and flow
styles and in JSON, from half-typed text; never outside the repository; never an exception."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from support import REPO

from compiler.api.editor import Analysis, Range, analyse
from compiler.api.editor_completion import (
    DEPENDS_ON,
    KINDS,
    MAX_LISTED,
    PATH,
    SYMBOL,
    VALUES,
    Completion,
    complete,
)
from compiler.api.editor_place import ID
from compiler.model import fields
from compiler.repo.listing import list_symbols

MARK = "‸"  # where the cursor is, in the texts below
EXAMPLE = REPO / "examples" / "done"
PLAN = (EXAMPLE / "plan.yaml").read_text(encoding="utf-8")
CHANGES = {"contract": "Define duplicate-email behavior",
           "implementation": "Reject normalized duplicates in create_account",
           "docs": "Document the 409 response for a duplicate email",
           "integration": "Run the whole suite against the new behavior"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of examples/done: a small real repository and its plan."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    return root


def good_of(root: Path, text: str = PLAN, name: str = "plan.yaml") -> Analysis:
    found = analyse(str(root / name), text)
    assert found is not None and found.readable
    return found


def ask(marked: str, root: Path | None, good: Analysis | None = None, fmt: str = "yaml") -> list[Completion]:
    """Completion at MARK in ``marked`` (MARK taken out)."""
    before, after = marked.split(MARK)
    line, column = before.count("\n"), len(before.split("\n")[-1])
    return complete(before + after, line, column, fmt=fmt, root=str(root) if root else None, good=good)


def where(marked: str) -> tuple[int, int]:
    before = marked.split(MARK)[0]
    return before.count("\n"), len(before.split("\n")[-1])


def ids(line: int, start: int, end: int, *names: str, written: dict[str, str] | None = None) -> list[Completion]:
    return [Completion(label=name, kind="id", detail=CHANGES[name], range=Range.on(line, start, end),
                       new_text=(written or {}).get(name, name)) for name in names]


# --- ids ------------------------------------------------------------------------------------------


def test_ids_in_a_flow_list_leave_out_the_item_itself_and_the_ids_listed(repo: Path) -> None:
    marked = PLAN.replace("depends_on: [contract]\n    proof: grep", f"depends_on: [contract, {MARK}]\n    proof: grep")
    line, column = where(marked)
    assert ask(marked, repo, good_of(repo)) == ids(line, column, column, "implementation", "integration")


def test_ids_at_the_end_of_a_text_that_does_not_parse(repo: Path) -> None:
    marked = PLAN + f"  - id: new\n    depends_on: [con{MARK}"
    assert analyse(str(repo / "plan.yaml"), marked.replace(MARK, "")).readable is False  # type: ignore[union-attr]
    line, column = where(marked)
    assert ask(marked, repo, good_of(repo)) == ids(line, column - 3, column, *CHANGES)
    # No last good analysis: no ids, and nothing raised.
    assert ask(marked, repo, None) == []


def test_ids_in_a_block_list_leave_out_those_above_and_below(repo: Path) -> None:
    marked = PLAN.replace("    depends_on: [implementation, docs]\n",
                          f"    depends_on:\n      - docs\n      - {MARK}\n      - contract\n")
    line, column = where(marked)
    assert ask(marked, repo, good_of(repo)) == ids(line, column, column, "implementation")
    # `dependencies` is the same field; a list at the key's own indentation too.
    marked = PLAN.replace("    depends_on: [implementation, docs]\n",
                          f"    dependencies:\n    - docs\n    - imp{MARK}\n")
    line, column = where(marked)
    assert ask(marked, repo, good_of(repo)) == ids(line, column - 3, column, "contract", "implementation")


def test_ids_in_a_plan_that_is_its_item_list(repo: Path) -> None:
    text = "".join(f"- id: {name}\n  change: {change}\n  evidence: [app]\n  proof: 'true'\n"
                   for name, change in CHANGES.items())
    marked = text.replace("- id: docs\n", f"- id: docs\n  depends_on:\n  - {MARK}\n")
    line, column = where(marked)
    assert ask(marked, repo, good_of(repo, text)) == ids(line, column, column, "contract", "implementation",
                                                         "integration")
    marked = text.replace("- id: docs\n", f"- id: docs\n  sta{MARK}\n")
    assert [c.label for c in ask(marked, repo)] == [f.name for f in fields.ITEM_FIELDS
                                                    if f.name not in ("id", "change", "evidence", "proof")]


def test_ids_in_json_over_several_lines(repo: Path) -> None:
    items = [{"id": name, "change": change, "evidence": ["app/accounts.py"], "proof": "true"}
             for name, change in CHANGES.items()]
    text = json.dumps({"items": items}, indent=2)
    good = good_of(repo, text, "plan.json")
    items[2]["depends_on"] = ["contract", "MARK"]
    marked = json.dumps({"items": items}, indent=2).replace("MARK", MARK)
    line, column = where(marked)
    assert ask(marked, repo, good, "json") == ids(line, column, column, "implementation", "integration")
    # Not yet quoted: the whole string is written.
    marked = marked.replace(f'"{MARK}"', f"int{MARK}")
    line, column = where(marked)
    assert ask(marked, repo, good, "json") == ids(line, column - 3, column, "implementation", "integration",
                                                  written={"implementation": '"implementation"',
                                                           "integration": '"integration"'})


def test_ids_that_yaml_would_misread_come_out_quoted(repo: Path) -> None:
    text = "items:\n" + "".join(f"  - id: '{name}'\n    change: c {name}\n    evidence: [app]\n    proof: 'true'\n"
                                for name in ("yes", "1.0", "on", "plain"))
    good = good_of(repo, text)
    marked = text + f"  - id: new\n    depends_on: [{MARK}"
    line, column = where(marked)
    found = [(c.label, c.new_text, c.range) for c in ask(marked, repo, good)]
    assert found == [("yes", "'yes'", Range.on(line, column, column)), ("1.0", "'1.0'", Range.on(line, column, column)),
                     ("on", "'on'", Range.on(line, column, column)), ("plain", "plain", Range.on(line, column, column))]
    # Typed plain: the whole value is replaced by the quoted one.
    typed = ask(marked.replace(MARK, "ye" + MARK), repo, good)
    assert (typed[0].new_text, typed[0].range) == ("'yes'", Range.on(line, column, column + 2))
    # Inside quotes the user opened: escaped for them, the quotes left alone.
    assert [c.new_text for c in ask(marked.replace(MARK, '"' + MARK), repo, good)] == ["yes", "1.0", "on", "plain"]


# --- paths ----------------------------------------------------------------------------------------


def new_entry(marked_entry: str) -> str:
    return PLAN + f"  - id: new\n    evidence:\n      - {marked_entry}"


def test_paths_one_folder_at_a_time(repo: Path) -> None:
    marked = new_entry(MARK)
    line, column = where(marked)
    assert ask(marked, repo) == [
        Completion(label="app/", kind="folder", detail=None, range=Range.on(line, column, column), new_text="app/"),
        Completion(label="docs/", kind="folder", detail=None, range=Range.on(line, column, column), new_text="docs/"),
        Completion(label="plan.yaml", kind="file", detail=None, range=Range.on(line, column, column),
                   new_text="plan.yaml"),
        Completion(label="tests/", kind="folder", detail=None, range=Range.on(line, column, column), new_text="tests/"),
    ]
    marked = new_entry(f"app/acc{MARK}")
    line, column = where(marked)
    assert ask(marked, repo) == [Completion(label="accounts.py", kind="file", detail=None,
                                            range=Range.on(line, column - 3, column), new_text="accounts.py")]
    # The object form's path, and JSON.
    assert [c.label for c in ask(new_entry(f"path: app/{MARK}"), repo)] == ["__init__.py", "accounts.py"]
    marked = f'{{"items": [{{"id": "a", "evidence": ["tests/{MARK}"]}}]}}'
    line, column = where(marked)
    assert [(c.label, c.range, c.new_text) for c in ask(marked, repo, fmt="json")] == [
        ("__init__.py", Range.on(line, column, column), "__init__.py"),
        ("test_accounts.py", Range.on(line, column, column), "test_accounts.py")]
    # A YAML flow list, and no root: no paths.
    assert [c.label for c in ask(PLAN + f"  - id: new\n    evidence: [docs/a{MARK}", repo)] == ["api.md"]
    assert ask(new_entry(MARK), None) == []


def test_paths_are_walked_as_check_dir_walks(repo: Path) -> None:
    (repo / ".hidden").write_text("x\n")
    (repo / ".git").mkdir()
    (repo / "node_modules").mkdir()
    (repo / "env").mkdir()
    (repo / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (repo / "fifo").mkdir()
    os.mkfifo(repo / "fifo" / "pipe")
    os.symlink("app", repo / "same")  # a symlink that stays inside: what it leads to
    os.symlink("/etc", repo / "etc")  # one that leads out: never offered, never entered
    assert [c.label for c in ask(new_entry(MARK), repo)] == ["app/", "docs/", "fifo/", "plan.yaml", "same/",
                                                             "tests/"]
    assert [c.label for c in ask(new_entry(f".{MARK}"), repo)] == [".hidden"]
    assert [c.label for c in ask(new_entry(f"same/{MARK}"), repo)] == ["__init__.py", "accounts.py"]
    for typed in ("etc/", "etc/pass", "../", "../repo/", "app/../../", "/etc/", "env/", "node_modules/", ".git/",
                  "fifo/", "plan.yaml/"):
        assert ask(new_entry(typed + MARK), repo) == [], typed


def test_a_path_completion_reads_one_folder_and_offers_at_most_its_bound(repo: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    many = repo / "many"
    many.mkdir()
    for n in range(MAX_LISTED + 100):
        (many / f"f{n:04d}.txt").write_text("")
    scanned: list[str] = []
    real = os.scandir

    def counted(path: str) -> object:
        scanned.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counted)
    found = ask(new_entry(f"many/{MARK}"), repo)
    assert [c.label for c in found] == [f"f{n:04d}.txt" for n in range(MAX_LISTED)]
    assert scanned == [os.path.realpath(many)]


def test_a_path_yaml_would_misread_is_written_quoted_whole(repo: Path) -> None:
    (repo / "docs" / "2024: notes.md").write_text("# Notes\n")
    marked = new_entry(f"docs/20{MARK}")
    line, column = where(marked)
    assert ask(marked, repo) == [Completion(label="2024: notes.md", kind="file", detail=None,
                                            range=Range.on(line, column - 7, column), new_text="'docs/2024: notes.md'")]
    marked = new_entry(f"'docs/20{MARK}")
    assert [c.new_text for c in ask(marked, repo)] == ["2024: notes.md"]


# --- symbols --------------------------------------------------------------------------------------


def test_symbols_after_the_path_as_symbols_lists_them(repo: Path) -> None:
    listing = list_symbols(str(repo / "app" / "accounts.py"), str(repo))
    marked = new_entry(f"app/accounts.py::{MARK}")
    line, column = where(marked)
    found = ask(marked, repo)
    assert [(c.label, c.detail) for c in found] == [
        (s.name, f"line {s.first}" if s.first == s.last else f"lines {s.first}-{s.last}") for s in listing.symbols]
    assert found[:2] == [
        Completion(label="DuplicateEmail", kind="symbol", detail="lines 8-9", range=Range.on(line, column, column),
                   new_text="DuplicateEmail"),
        Completion(label="Account", kind="symbol", detail="lines 12-15", range=Range.on(line, column, column),
                   new_text="Account")]
    # What is typed after :: is replaced; a heading's spaces stay plain.
    marked = new_entry(f"docs/api.md::Sig{MARK}")
    line, column = where(marked)
    assert ask(marked, repo) == [
        Completion(label="Accounts API", kind="symbol", detail="lines 1-12", range=Range.on(line, column - 3, column),
                   new_text="Accounts API"),
        Completion(label="Sign-up", kind="symbol", detail="lines 3-12", range=Range.on(line, column - 3, column),
                   new_text="Sign-up")]


def test_symbols_after_the_path_in_a_flow_list_its_bracket_closed_already(repo: Path) -> None:
    # an editor closes the bracket as it is opened: "::" is then followed by "]", which YAML would
    # read as a key's colon; typed so far, it is the reference's
    marked = PLAN + f"  - id: new\n    evidence: [app/accounts.py::{MARK}]\n"
    line, column = where(marked)
    found = ask(marked, repo)
    assert [c.label for c in found] == [s.name for s in list_symbols(str(repo / "app" / "accounts.py"),
                                                                    str(repo)).symbols]
    assert {c.range for c in found} == {Range.on(line, column, column)}
    # right after a key's colon, nothing yet: the value needs its blank first
    assert ask(PLAN + f"  - id: new\n    status:{MARK}\n", repo) == []


def test_symbols_of_the_object_form_from_its_path(repo: Path) -> None:
    block = PLAN + f"  - id: new\n    evidence:\n      - symbol: norm{MARK}\n        path: app/accounts.py\n"
    flow = PLAN + f"  - id: new\n    evidence:\n      - {{path: app/accounts.py, symbol: {MARK}}}\n"
    text = json.dumps({"items": [{"id": "a", "evidence": [{"path": "app/accounts.py", "symbol": "X"}]}]})
    marked = text.replace('"X"', f'"{MARK}"')
    for found in (ask(block, repo), ask(flow, repo), ask(marked, repo, fmt="json")):
        assert [c.label for c in found][-1] == "normalize_email"
        assert len(found) == 9
    line, column = where(block)
    assert ask(block, repo)[-1].range == Range.on(line, column - 4, column)


def test_a_symbol_yaml_would_misread_is_written_quoted_whole(repo: Path) -> None:
    (repo / "docs" / "faq.md").write_text("# FAQ\n\n## Errors: 409 # and more\n\ntext\n")
    marked = new_entry(f"docs/faq.md::{MARK}")
    line, column = where(marked)
    assert [(c.label, c.range, c.new_text) for c in ask(marked, repo)] == [
        ("FAQ", Range.on(line, column, column), "FAQ"),
        ("Errors: 409 # and more", Range.on(line, column - 13, column), "'docs/faq.md::Errors: 409 # and more'")]


def test_no_symbols_of_a_file_outside_the_root_or_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("def secret():\n    pass\n")
    os.symlink(tmp_path / "outside.py", repo / "link.py")
    (repo / "blob.bin").write_bytes(b"\x00\x01def x():\n")
    for typed in ("../outside.py::", "link.py::", "/etc/passwd::", "blob.bin::", "missing.py::", "app::", "::"):
        assert ask(new_entry(typed + MARK), repo) == [], typed


# --- field names ----------------------------------------------------------------------------------


def test_item_fields_but_those_given_without_aliases(repo: Path) -> None:
    marked = PLAN.replace("    status: done\n\n  - id: docs", f"    sta{MARK}\n\n  - id: docs")
    line, column = where(marked)
    given = {"id", "change", "evidence", "depends_on", "proof"}
    expected = [Completion(label=f.name, kind="field", detail=f.description, range=Range.on(line, column - 3, column),
                           new_text=f"{f.name}: ") for f in fields.ITEM_FIELDS if f.name not in given]
    assert ask(marked, repo) == expected
    assert "dependencies" not in [c.label for c in expected]
    # A new entry of the item list: every field; `dependencies` given is depends_on given.
    assert [c.label for c in ask(PLAN + f"  - {MARK}", repo)] == [f.name for f in fields.ITEM_FIELDS]
    marked = PLAN + f"  - id: new\n    dependencies: [docs]\n    {MARK}\n"
    assert "depends_on" not in [c.label for c in ask(marked, repo)]


def test_a_key_typed_before_its_colon_is_replaced_whole(repo: Path) -> None:
    marked = PLAN.replace("    status: done\n\n  - id: docs", f"    sta{MARK}tus: done\n\n  - id: docs")
    line, column = where(marked)
    found = {c.label: c for c in ask(marked, repo)}
    assert found["status"].range == Range.on(line, column - 3, column + 3)
    assert found["status"].new_text == "status"


def test_plan_fields_and_the_parts_of_nested_fields(repo: Path) -> None:
    marked = PLAN.replace("goal:", f"{MARK}\ngoal:")
    assert [c.label for c in ask(marked, repo)] == [f.name for f in fields.PLAN_FIELDS
                                                    if f.name not in ("plan", "goal", "root", "items")]
    marked = PLAN + f"  - id: new\n    estimate:\n      low: 1\n      {MARK}\n"
    assert [(c.label, c.detail) for c in ask(marked, repo)] == [
        (name, "required" if needed else None) for name, needed in fields.ESTIMATE_PARTS if name != "low"]
    marked = PLAN + f"  - id: new\n    evidence:\n      - path: app/accounts.py\n        {MARK}\n"
    assert [c.label for c in ask(marked, repo)] == [f.name for f in fields.EVIDENCE_FIELDS if f.name != "path"]
    marked = PLAN.replace("root: .\n", f"root: .\nbudget:\n  {MARK}\n")
    assert [(c.label, c.detail) for c in ask(marked, repo)] == list(fields.BUDGET_PARTS)
    marked = PLAN.replace("root: .\n", f"root: .\nclaims:\n  - description: rows\n    {MARK}\n")
    assert [c.label for c in ask(marked, repo)] == [name for name, _ in fields.CLAIM_PARTS if name != "description"]


def test_field_names_in_json_and_in_a_flow_mapping(repo: Path) -> None:
    marked = f'{{"items": [{{"id": "a", "sta{MARK}"}}]}}'
    line, column = where(marked)
    found = {c.label: c for c in ask(marked, repo, fmt="json")}
    assert "id" not in found
    assert found["status"] == Completion(label="status", kind="field", detail=fields.by_name(fields.ITEM_FIELDS)[
        "status"].description, range=Range.on(line, column - 4, column + 1), new_text='"status": ')
    marked = f'{{"items": [{{"id": "a", {MARK}}}]}}'
    line, column = where(marked)
    assert {c.label: c for c in ask(marked, repo, fmt="json")}["proof"].new_text == '"proof": '
    marked = PLAN + f"  - {{id: new, pro{MARK}}}\n"
    line, column = where(marked)
    assert {c.label: (c.range, c.new_text) for c in ask(marked, repo)}["proof"] == (
        Range.on(line, column - 3, column), "proof: ")


# --- words ----------------------------------------------------------------------------------------


def test_the_words_of_choice_fields_and_estimates(repo: Path) -> None:
    marked = PLAN + f"  - id: new\n    status: {MARK}\n"
    line, column = where(marked)
    assert ask(marked, repo) == [
        Completion(label=word, kind="word", detail="default" if word == "todo" else None,
                   range=Range.on(line, column, column), new_text=word)
        for word in fields.by_name(fields.ITEM_FIELDS)["status"].choices]
    assert [c.label for c in ask(PLAN + f"  - id: new\n    kind: app{MARK}\n", repo)] == ["task", "approval"]
    marked = PLAN + f"  - id: new\n    estimate:\n      unit: {MARK}\n"
    assert [c.label for c in ask(marked, repo)] == list(fields.UNIT_HOURS)
    marked = PLAN + f"  - id: new\n    estimate: {{low: 1, high: 2, confidence: {MARK}}}\n"
    assert [c.label for c in ask(marked, repo)] == list(fields.CONFIDENCES)
    marked = PLAN.replace("root: .\n", f"root: .\nclaims:\n  - unit: {MARK}\n")
    assert ask(marked, repo) == []  # a claim's unit is any text
    marked = f'{{"items": [{{"id": "a", "status": "do{MARK}"}}]}}'
    line, column = where(marked)
    assert [(c.label, c.range, c.new_text) for c in ask(marked, repo, fmt="json")][1] == (
        "doing", Range.on(line, column - 2, column), "doing")


def test_every_kind_of_field_says_what_its_value_completes() -> None:
    assert set(VALUES) == set(fields.KINDS)
    assert KINDS == ("id", "file", "folder", "symbol", "field", "word")
    # The fields completion names are declared so.
    assert ID == fields.ITEM_FIELDS[0].name
    assert fields.by_name(fields.ITEM_FIELDS)[DEPENDS_ON].kind == "ids"
    assert {PATH, SYMBOL} <= set(fields.names(fields.EVIDENCE_FIELDS))


# --- columns, and nothing where nothing fits -------------------------------------------------------


def test_columns_are_code_points(repo: Path) -> None:
    (repo / "données").mkdir()
    (repo / "données" / "café.md").write_text("# Café 𝄞\n")
    marked = PLAN + f"  - id: new\n    evidence: [{{contains: '𝄞é', path: données/c{MARK}}}]\n"
    line, column = where(marked)
    assert ask(marked, repo) == [Completion(label="café.md", kind="file", detail=None,
                                            range=Range.on(line, column - 1, column), new_text="café.md")]
    marked = PLAN + f"  - id: new\n    evidence: ['données/café.md::C{MARK}'"
    line, column = where(marked)
    assert [(c.label, c.range) for c in ask(marked, repo)] == [("Café 𝄞", Range.on(line, column - 1, column))]


@pytest.mark.parametrize("marked", [
    PLAN.replace("# The duplicate", f"# The dup{MARK}licate"),  # a comment
    PLAN.replace("    status: done\n\n  - id: docs", f"    status: done  # st{MARK}\n\n  - id: docs"),
    PLAN.replace("proof: grep", f"proof: gr{MARK}ep"),  # a field whose value is not completed
    PLAN.replace('contains: "raise', f'contains: "raise"{MARK} #'),  # after a closed quote
    PLAN + f"  - id: new\n    change: |\n      text\n      sta{MARK}\n",  # a block scalar
    PLAN + f"  - id: new\n    depends_on: [a,\n      b, {MARK}\n",  # a flow list over several lines of YAML
    PLAN + f"  - id: new\n    status:{MARK}\n",  # no blank after the colon yet
    PLAN + f"  - id: new\n    depends_on: [a] {MARK}\n",  # after the list
    PLAN + f"  - id: new\n    status: do ne{MARK}\n",  # words have no blanks
], ids=["comment", "trailing comment", "proof", "closed quote", "block scalar", "multi-line flow", "no blank",
        "after list", "blank in word"])
def test_nothing_where_nothing_fits(repo: Path, marked: str) -> None:
    assert ask(marked, repo, good_of(repo)) == []


def test_places_out_of_the_text_give_nothing(repo: Path) -> None:
    good = good_of(repo)
    for line, column in ((-1, 0), (10_000, 0), (0, -5)):
        assert complete(PLAN, line, column, fmt="yaml", root=str(repo), good=good) == []
    # A column past the end of its line is its end.
    assert complete("items:\n  - ", 1, 99, fmt="yaml", root=str(repo), good=good)[0].range == Range.on(1, 4, 4)


FUZZED = [
    PLAN,
    json.dumps({"plan": "p", "items": [{"id": "a", "depends_on": ["b"], "evidence": [
        "app/accounts.py::Account", {"path": "app", "symbol": "x"}], "estimate": {"unit": "days"}}]}, indent=1),
    "items: [{id: a, depends_on: [b, 'c', \"d\"], evidence: [{path: app/x, symbol: y}]}]",
    "- id: a\n  depends_on:\n  - b\n  - '\n- x: [\n  {",
    "\t- id: \x00a\r\n  é: '''\n  \"a\\\n- - - a: b: c\n  - : \n- ? x\n  : y\n---\n...",
    '{"items": [{"\\u00e9": "\\', "[[[{{{:::,,,]]]}}", "", "'", "#", "- ", "a:\n  b:\n    - c::d\n",
]


@pytest.mark.hostile
@pytest.mark.slow
def test_no_place_of_any_text_raises(repo: Path) -> None:
    good = good_of(repo)
    rng = random.Random(26)
    texts = list(FUZZED)
    for _ in range(12):  # plans damaged at random: half-typed, unbalanced, quotes left open
        chars = list(rng.choice(FUZZED[:2]))
        for _ in range(rng.randint(1, 12)):
            chars.insert(rng.randrange(len(chars) + 1), rng.choice("[]{}:,'\"#-\n |>&\\é𝄞\t"))
        texts.append("".join(chars))
    for text in texts:
        lines = text.split("\n")
        for fmt in ("yaml", "json"):
            for line, content in enumerate(lines):
                for column in range(len(content) + 2):
                    for found in complete(text, line, column, fmt=fmt, root=str(repo), good=good):
                        assert found.kind in KINDS
                        assert found.range.line == found.range.end_line == line
                        assert found.range.column <= min(column, len(content)) <= found.range.end_column
