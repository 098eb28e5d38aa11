"""`evidence-plan fix`: mechanical repairs only, the rest of the file byte for byte."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from hypothesis import given, settings
from hypothesis import strategies as st
from support import run
from work import count

from compiler.checks.repairs import moved_range
from compiler.load.limits import DEFAULT_LIMITS
from compiler.repo.history import map_range

SOURCE = "".join(f"# filler line {n}\n" for n in range(1, 11)) + "def create_account(email):\n    return email\n"

PLAN = """\
# A plan with comments everywhere; fix must keep every byte that it does not repair.
plan: signup   # the name
items:
  - id: contract        # first
    change: Define it
    evidence:
      - path: app.py
        lines: '3-4'        # quoted on purpose: quotes stay
        contains: "def create_account"   # moved to line 11
      - path: app.py
        line: 2             # a single line
        contains: create_account
    proof: make test

  # The second item repeats things.
  - id: implementation
    change: Do it
    evidence: [app.py:1, app.py:1, app.py:2]     # a repeat in flow style
    depends_on:
      - contract
      - contract            # a repeat in block style
    proof: make it
"""

FIXED = PLAN.replace("lines: '3-4'", "lines: '10-11'").replace("line: 2", "line: 11").replace(
    "[app.py:1, app.py:1, app.py:2]", "[app.py:1, app.py:2]"
).replace("      - contract            # a repeat in block style\n", "")


@pytest.fixture
def plan(write: Callable[..., Path]) -> Path:
    write("app.py", SOURCE)
    return write("plan.yaml", PLAN)


NO_HISTORY = "the plan has no commit to compare with (not in git, or changed since it was committed)"


def test_fix_updates_only_what_moved_and_keeps_every_other_byte(plan: Path) -> None:
    result = run("fix", "--unsafe-fixes", str(plan))
    assert result.exit_code == 0, result.output
    assert plan.read_text(encoding="utf-8") == FIXED
    assert ("fixed: contract: app.py:3-4 -> app.py:10-11 ('def create_account' moved to line 11; the smallest shift"
            f" that covers it, a guess: {NO_HISTORY})") in result.stderr
    assert "fixed: implementation: removed repeated evidence app.py:1" in result.stderr
    assert "fixed: implementation: removed repeated dependency contract" in result.stderr
    assert run("check", str(plan)).exit_code == 0
    again = run("fix", "--unsafe-fixes", str(plan))
    assert again.exit_code == 0
    assert "nothing to fix" in again.stderr
    assert plan.read_text(encoding="utf-8") == FIXED  # idempotent


def test_a_guess_is_not_made_without_unsafe_fixes_and_says_how(plan: Path) -> None:
    result = run("fix", str(plan))
    assert result.exit_code == 1, result.output
    text = plan.read_text(encoding="utf-8")
    assert "lines: '3-4'" in text and "line: 11" in text  # the range is left; the one-line entry moved (exact)
    assert ("not fixed: contract: app.py:3-4 -> app.py:10-11 ('def create_account' moved to line 11; the smallest"
            f" shift that covers it, a guess: {NO_HISTORY}): fix --unsafe-fixes applies it") in result.stderr
    assert f"{plan}: fixed 3; left 1 fix: 1 guess (fix --unsafe-fixes applies them)" in result.stderr


def test_dry_run_prints_a_diff_and_writes_nothing(plan: Path) -> None:
    result = run("fix", "--dry-run", "--unsafe-fixes", str(plan))
    assert result.exit_code == 0
    assert plan.read_text(encoding="utf-8") == PLAN
    assert f"--- a/{plan}" in result.stdout
    assert "-        lines: '3-4'        # quoted on purpose: quotes stay" in result.stdout
    assert "+        lines: '10-11'        # quoted on purpose: quotes stay" in result.stdout
    assert "would fix: contract" in result.stderr


def test_what_fix_cannot_repair_is_reported_with_exit_1(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence:
              - {path: app.py, line: 5, contains: return email}    # found once, at 12: moved
              - {path: app.py, line: 11, contains: filler line}    # found ten times: ambiguous
              - {path: app.py, lines: 1-12, contains: nowhere}     # not found at all
              - missing.py
            proof: p
        """)
    result = run("fix", str(plan))
    assert result.exit_code == 1
    assert "fixed: a: app.py:5 -> app.py:12 ('return email' moved)" in result.stderr
    assert result.stderr.count("fixed:") == 1
    assert (f"{plan}:6:44: error EP203 a: 'filler line' is not in app.py:11 (found at lines 1, 2, 3, 4, 5, ...)"
            in result.stderr)
    assert f"{plan}:7:47: error EP203 a: 'nowhere' is not in app.py:1-12" in result.stderr
    assert f"{plan}:8:9: error EP201 a cites missing.py, but missing.py does not exist" in result.stderr
    assert "3 problems left that fix cannot repair" in result.stderr
    assert "{path: app.py, line: 12, contains: return email}    # found once" in plan.read_text(encoding="utf-8")


def test_fix_edits_a_json_plan_in_place_keeping_every_other_byte(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    data = {"items": [
        {"id": "a", "change": "c", "evidence": [{"path": "app.py", "line": 1, "contains": "def create"}],
         "depends_on": [], "proof": "p"},
        {"id": "b", "change": "c", "evidence": ["app.py"], "depends_on": ["a", "a"], "proof": "p"},
    ]}
    plan = write("plan.json", json.dumps(data))
    result = run("fix", str(plan))
    assert result.exit_code == 0, result.output
    assert plan.read_text(encoding="utf-8") == json.dumps(data).replace('"line": 1,', '"line": 11,').replace(
        '["a", "a"]', '["a"]')


def test_fix_refuses_stdin_and_input_errors() -> None:
    assert run("fix", "-").exit_code == 2
    assert run("fix", "nope.yaml").exit_code == 2


ALIASED = """\
items:
  - id: a
    change: c
    evidence:
      - &moved {path: app.py, line: 5, contains: return email}
      - {path: app.py, line: 1, contains: create_account}
    depends_on: &deps [b, b]
    proof: p
  - id: b
    change: c
    evidence: [*moved]
    proof: p
  - id: c
    change: c
    evidence: [app.py]
    depends_on: *deps
    proof: p
"""


def test_fix_on_a_plan_with_aliases_repairs_the_rest_and_names_what_it_leaves(write: Callable[..., Path]) -> None:
    """An anchored value used again through an alias is one node in the text: edited in place, it
    would change every use at once (and the reader would see a different plan), so fix leaves it,
    says so, and repairs everything else."""
    write("app.py", SOURCE)
    plan = write("plan.yaml", ALIASED)
    result = run("fix", str(plan))
    assert result.exit_code == 1, result.output
    assert "invalid YAML" not in result.output and "would not read back" not in result.output
    assert "fixed: a: app.py:1 -> app.py:11 ('create_account' moved)" in result.stderr
    left = [line for line in result.stderr.splitlines() if line.startswith("not fixed: ")]
    assert len(left) == 4, result.stderr  # a's and b's moved line, a's and c's repeated b
    assert all("used again through a YAML alias" in line and line.endswith("shown only, never applied")
               for line in left)
    assert plan.read_text(encoding="utf-8") == ALIASED.replace("line: 1, contains: create_account",
                                                               "line: 11, contains: create_account")
    assert f"{plan}:5:50: error EP203 a: 'return email' is not in app.py:5 (found at line 12)" in result.stderr


def test_fix_composes_a_plan_with_aliases_once(write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan with aliases is composed by ruamel.yaml (seconds for a large one): once per text, for
    both the alias check and the edits of its fixes: the plan, and the plan fixed (its fixes left)."""
    import compiler.load.yaml_nodes

    write("app.py", SOURCE)
    plan = write("plan.yaml", ALIASED)
    calls: list[int] = []
    compose = compiler.load.yaml_nodes.compose

    def counted(*args: Any) -> Any:
        calls.append(1)
        return compose(*args)

    monkeypatch.setattr(compiler.load.yaml_nodes, "compose", counted)
    assert run("fix", str(plan)).exit_code == 1
    assert len(calls) == 2


# --- a moved range covers the same code ------------------------------------------------------------

def numbered(lines: int, **at: str) -> str:
    """A file of ``lines`` numbered lines, with the given text on some of them (``at={"700": ...}``)."""
    return "".join(f"{at.get(str(n), f'code line {n}')}\n" for n in range(1, lines + 1))


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=folder, check=True,
                   capture_output=True)


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

BIG_PLAN = """\
    items:
      - id: a
        change: c
        evidence:
          - {path: big.py, lines: 675-683, contains: raise DuplicateEmail}
        proof: p
    """


@needs_git
def test_a_range_whose_text_moved_is_carried_through_git_history_exactly(write: Callable[..., Path]) -> None:
    """675-683 cited the text on its 5th line (679); 17 lines were inserted above since the plan's
    commit, so the code is at 692-700: carried there whole, as git blame carries lines, and safe."""
    big = write("big.py", numbered(800, **{"679": "    raise DuplicateEmail(email)"}))
    plan = write("plan.yaml", BIG_PLAN)
    _git(big.parent, "init", "-q")
    _git(big.parent, "add", "-A")
    _git(big.parent, "commit", "-qm", "plan")
    lines = big.read_text(encoding="utf-8").splitlines(keepends=True)
    big.write_text("".join(lines[:100] + [f"new line {n}\n" for n in range(17)] + lines[100:]), encoding="utf-8")
    # check shows the same fix, safe (git runs for it only in the formats that show fixes)
    (shown,) = json.loads(run("check", "--format", "json", str(plan)).stdout)
    assert shown["fix"]["applicability"] == "safe"
    assert [e["new_text"] for e in shown["fix"]["edits"]] == ["692-700"]
    result = run("fix", str(plan))
    assert result.exit_code == 0, result.output
    assert "lines: 692-700, contains: raise DuplicateEmail" in plan.read_text(encoding="utf-8")
    assert ("fixed: a: big.py:675-683 -> big.py:692-700 ('raise DuplicateEmail' moved: the cited lines, carried"
            " through the file's change since the plan's commit") in result.stderr


@needs_git
def test_a_range_whose_lines_changed_since_the_commit_is_a_guess(write: Callable[..., Path]) -> None:
    """The issue's case: a range starting one line after its text (the text was edited out of it
    and another line put in) is not carried: its lines changed; the smallest shift, one line up,
    is offered as a guess, never a move 31 lines away onto another branch."""
    big = write("big.py", numbered(800, **{"679": "    raise DuplicateEmail(email)"}))
    plan = write("plan.yaml", BIG_PLAN)
    _git(big.parent, "init", "-q")
    _git(big.parent, "add", "-A")
    _git(big.parent, "commit", "-qm", "plan")
    big.write_text(numbered(800, **{"674": "    raise DuplicateEmail(email)"}), encoding="utf-8")
    result = run("fix", str(plan))
    assert result.exit_code == 1, result.output
    assert "lines: 675-683" in plan.read_text(encoding="utf-8")
    assert ("not fixed: a: big.py:675-683 -> big.py:674-682 ('raise DuplicateEmail' moved to line 674; the smallest"
            " shift that covers it, a guess: the cited lines changed since the plan's commit)") in result.stderr
    assert run("fix", "--unsafe-fixes", str(plan)).exit_code == 0
    assert "lines: 674-682" in plan.read_text(encoding="utf-8")


@needs_git
def test_a_plan_changed_since_its_commit_has_no_history(write: Callable[..., Path]) -> None:
    big = write("big.py", numbered(800, **{"679": "    raise DuplicateEmail(email)"}))
    plan = write("plan.yaml", BIG_PLAN)
    _git(big.parent, "init", "-q")
    _git(big.parent, "add", "-A")
    _git(big.parent, "commit", "-qm", "plan")
    plan.write_text(plan.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    big.write_text(numbered(800, **{"696": "    raise DuplicateEmail(email)"}), encoding="utf-8")
    result = run("fix", str(plan))
    assert result.exit_code == 1 and NO_HISTORY in result.stderr


@pytest.mark.parametrize(("start", "end", "found", "lines", "expected"), [
    (675, 683, 696, 800, (688, 696)),  # down until it ends at the text
    (675, 683, 650, 800, (650, 658)),  # up until it starts at it
    (10, 40, 9, 100, (9, 39)),  # one line after the text: one line up, not 31 lines away
    (5, 5, 12, 12, (12, 12)),  # one line: to the text's line
    (10, 14, 1, 12, (1, 5)),
    (1, 20, 12, 12, None),  # the file is shorter than the range
])
def test_moved_range_is_the_smallest_shift_that_covers_the_text(
        start: int, end: int, found: int, lines: int, expected: tuple[int, int] | None) -> None:
    assert moved_range(start, end, found, lines) == expected


def test_map_range_carries_unchanged_lines_and_refuses_changed_ones() -> None:
    old = [f"line {n}" for n in range(1, 21)]
    new = ["inserted"] * 3 + old
    assert map_range(old, new, 5, 8) == (8, 11)
    changed = [*old[:5], "edited", *old[6:]]
    assert map_range(old, changed, 5, 8) is None  # line 6 changed: not the same code
    assert map_range(old, old, 21, 22) is None


# --- fix --dry-run locates what is left in the file on disk ------------------------------------------

SHIFTING = """\
items:
  - id: a
    change: c
    evidence:
      - app.py:1
      - app.py:1        # a repeat: removing it moves the lines below up by one
      - missing.py
    depends_on: [b, b, nope]
    proof: p
  - id: b
    change: c
    evidence: [app.py:2, app.py:2, gone.py]
    proof: p
"""


def left_problems(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if " error " in line]


def test_dry_run_locates_what_is_left_at_the_lines_of_the_file_on_disk(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", SHIFTING)
    result = run("fix", "--dry-run", str(plan))
    assert result.exit_code == 1, result.output
    assert plan.read_text(encoding="utf-8") == SHIFTING
    assert left_problems(result) == [
        f"{plan}:7:9: error EP201 a cites missing.py, but missing.py does not exist",
        f"{plan}:8:24: error EP301 a depends on unknown items: nope",
        f"{plan}:12:36: error EP201 b cites gone.py, but gone.py does not exist",
    ]
    written = run("fix", str(plan))  # once written, the same problems are where the file now has them
    assert left_problems(written) == [
        f"{plan}:6:9: error EP201 a cites missing.py, but missing.py does not exist",
        f"{plan}:7:21: error EP301 a depends on unknown items: nope",
        f"{plan}:11:26: error EP201 b cites gone.py, but gone.py does not exist",
    ]


def test_dry_run_on_a_json_plan_locates_what_is_left_in_its_own_layout(write: Callable[..., Path]) -> None:
    """fix would rewrite a one-line JSON plan one key per line; the dry run's problems are still
    on the one line of the file as it is."""
    write("app.py", SOURCE)
    text = json.dumps({"items": [{"id": "a", "change": "c", "evidence": ["app.py:1", "app.py:1", "missing.py"],
                                  "proof": "p"}]})
    plan = write("plan.json", text)
    result = run("fix", "--dry-run", str(plan))
    assert result.exit_code == 1, result.output
    column = text.index('"missing.py"') + 1
    assert left_problems(result) == [f"{plan}:1:{column}: error EP201 a cites missing.py, but missing.py does"
                                     " not exist"]


# --- a replaced value reads back as itself ---------------------------------------------------------

def test_a_moved_one_line_range_written_as_a_range_reads_back(write: Callable[..., Path]) -> None:
    """lines: 2-2 whose text moved becomes the one line '4': written plain it read back as the
    number 4, the safety net refused it, and fix wrote nothing at all."""
    write("app.py", "a\nb\nc\nneedle\n")
    plan = write("plan.yaml", "items:\n  - id: a\n    change: c\n    evidence:\n"
                              "      - {path: app.py, lines: 2-2, contains: needle}\n    proof: p\n")
    result = run("fix", str(plan))
    assert result.exit_code == 0, result.output
    assert "{path: app.py, lines: '4', contains: needle}" in plan.read_text(encoding="utf-8")


_CONTEXTS = ["- {}\n", "- k: {}\n", "- k: {}\n  j: 1\n", "- [{}, x]\n", "- {{k: {}}}\n"]  # block, then flow
_STYLES = ["old", "'old'", '"old"', "|-\n    old", ">\n    old\n\n"]  # block scalars: in block context only
# Pieces that YAML reads as something else than text, or as syntax, when they stand plain.
_PIECES = st.sampled_from([*"aZ_$./:-019eExo+ #,[]{}'\"\\!&*|>%@`?~=", "null", "true", "yes", "inf", "nan", "on"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(_PIECES, min_size=1, max_size=6).map("".join), st.text(min_size=1, max_size=12)),
       st.sampled_from(_CONTEXTS), st.sampled_from(_STYLES))
@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
def test_a_replaced_scalar_reads_back_as_the_text_written_in_any_style(value: str, context: str, old: str) -> None:
    """Names (a Markdown heading is any text, control characters too) and ranges replace plain,
    single- and double-quoted scalars in block and flow context, and read back as themselves,
    never as a number or syntax; a block scalar becomes a quoted one."""
    from compiler.api.edit import apply_to_yaml
    from compiler.load.document import parse_text

    flow = context.startswith(("- [", "- {{"))
    text = context.format("'old'" if flow and old[0] in "|>" else old)
    path: tuple[Any, ...] = (0,) if context == "- {}\n" else (0, 0) if "[" in context else (0, "k")
    edited = apply_to_yaml(text, [(path, value)])
    data = parse_text(edited, "p.yaml", "yaml").data
    assert (data[0] if path == (0,) else data[0][path[1]]) == value
    if context.endswith("j: 1\n"):
        assert data[0]["j"] == 1


# Text that a plain or single-quoted YAML scalar cannot hold as itself: control characters (ESC
# of a colour code, NUL, DEL, C1), line breaks of every kind (a single-quoted one is folded), a
# byte-order mark, bidirectional and invisible controls, the non-characters U+FFFE and U+FFFF;
# with quotes, backslashes and text that means syntax when it stands plain.
_AWKWARD = ["\x1b[31mred\x1b[0m", "a\nb", "a\r\nb", "a\rb", "tab\there", "\x00", "\x7f", "\x85", "\x9f",
            "a\u2028b", "\u2029", "\ufeff", "Ana\u202eLima", "\u200b", "\ufffe\uffff", "'\"\\", " lead", "trail ",
            "", "#x", "- x", "a: b", "\U0001f600 \u00e9", "\\x1b", "null"]
# (text, path of the edit): a plain, single-, double-quoted and block scalar replaced; a key added
# to a block and a flow mapping; a key left blank filled; a scalar replaced by a flow mapping.
_EDITED = [("- k: old\n", (0, "k")), ("- k: 'old'\n", (0, "k")), ('- k: "old"\n', (0, "k")),
           ("- k: |-\n    old\n", (0, "k")), ("- [old, x]\n", (0, 0)), ("- {k: old}\n", (0, "k")),
           ("- k: 1\n", (0, "new")), ("- {k: 1}\n", (0, "new")), ("- k:\n  j: 1\n", (0, "k")), ("- old\n", (0,))]


@pytest.mark.parametrize("value", _AWKWARD)
@pytest.mark.parametrize(("text", "path"), _EDITED)
def test_an_inserted_string_reads_back_as_the_same_string_whatever_its_characters(
        text: str, path: tuple[Any, ...], value: str) -> None:
    """The YAML editor (fix, approve) writes every string it inserts so that both readers give it
    back exactly: double-quoted with escapes where a plain or single-quoted scalar cannot hold
    it; nothing unsafe written raw; never an error."""
    from compiler.api.edit import apply_to_data, apply_to_yaml
    from compiler.core import display
    from compiler.load.document import parse_text
    from compiler.load.yaml_reader import _parse_yaml_reference

    inserted: Any = {"path": value, "pin": value} if path == (0,) else value
    edited = apply_to_yaml(text, [(path, inserted)])
    intended = apply_to_data(parse_text(text, "p.yaml", "yaml").data, [(path, inserted)])
    assert parse_text(edited, "p.yaml", "yaml").data == intended
    assert _parse_yaml_reference(edited, "p.yaml", DEFAULT_LIMITS)[0] == intended
    assert display.UNSAFE.search(edited.replace("\n", "")) is None


@pytest.mark.parametrize(("text", "removed", "expected"), [
    ("- [a, b,  c]\n", [0, 1], "- [c]\n"),
    ("- [a, b]\n", [0, 1], "- []\n"),
    ("- [a, b, c]\n", [0, 2], "- [b]\n"),
    ("- [a, b, c, d]  # note\n", [1, 2], "- [a, d]  # note\n"),
    ("- a\n- b  # b\n- c\n", [0, 1], "- c\n"),
])
def test_removing_several_entries_of_a_list_keeps_the_others_with_their_separators(
        text: str, removed: list[int], expected: str) -> None:
    from compiler.api.edit import REMOVE, apply_to_yaml

    flow = text.startswith("- [")
    assert apply_to_yaml(text, [((0, i) if flow else (i,), REMOVE) for i in removed]) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("- k: 1\n  j:\n    - x", "- k: 1\n  j:\n    - x\n  n: v"),  # no line break at the end
    ("- k: 1\n  j:\n", "- k: 1\n  j:\n  n: v\n"),  # after an empty value
    ("- k: 1\n  j:\n  # a comment\n- z: 2\n", "- k: 1\n  j:\n  n: v\n  # a comment\n- z: 2\n"),
])
def test_a_key_is_added_on_the_line_after_the_mappings_last_entry(text: str, expected: str) -> None:
    from compiler.api.edit import apply_to_yaml

    assert apply_to_yaml(text, [((0, "n"), "v")]) == expected


@pytest.mark.slow
def test_the_yaml_editor_reads_the_text_once_at_c_speed_whatever_the_number_of_edits() -> None:
    """fix on a plan of 3,000 items took seconds in ruamel.yaml's pure-Python composer (about
    3,800 calls an item): the nodes now come from libyaml's events, a few dozen calls an item,
    and the work grows linearly with the plan and its edits (one removal an item here)."""
    from compiler.api.edit import REMOVE, apply_to_yaml

    def plan(n: int, repeat: bool = True) -> str:
        deps = (f"[x{k}, x{k}]" if repeat else f"[x{k}]" for k in range(n))
        return "items:\n" + "".join(f"  - id: i{k}\n    change: c\n    depends_on: {d}\n    proof: p\n"
                                    for k, d in enumerate(deps))

    def work(n: int) -> int:
        text, edits = plan(n), [(("items", k, "depends_on", 1), REMOVE) for k in range(n)]
        assert apply_to_yaml(text, edits) == plan(n, repeat=False)
        return count(lambda: apply_to_yaml(text, edits)).calls

    work(10)  # imports done
    small, large = work(400), work(800)
    assert large <= 2.1 * small, (small, large)
    assert large <= 100 * 800, large


# --- fix --to-symbols: line evidence that covers one definition becomes that definition --------------

ACCOUNTS = '''\
"""Accounts."""
import functools


@functools.cache
def normalize(email):
    return email.strip().lower()


class Accounts:
    def create(self, email):
        return normalize(email)

    def delete(self, email):
        return None


LIMIT = 3
a = b = 1
'''

LINES_PLAN = """\
# Evidence by lines; --to-symbols rewrites what covers exactly one definition.
items:
  - id: a                         # the item
    change: Normalize emails
    evidence:
      - app/x.py:5-7              # decorated: its lines start at the decorator
      - "app/x.py:11-12"          # a method, double-quoted
      - path: app/x.py            # the object form, with a contains
        lines: '10-15'            # the class
        contains: def delete
      - {path: app/x.py, line: 18}    # flow style, one line
      - app/x.py:6-7              # the function without its decorator: left
      - app/x.py:10-16            # the class and the blank line after it: left
      - app/x.py:1-19             # the whole module is no definition
      - app/x.py:19               # a and b: ambiguous
      - app/x.py                  # a whole file
      - https://example.com/x     # a URL
      - app/x.py::Accounts.delete # already a symbol
    proof: make test
"""

SYMBOLS_PLAN = (LINES_PLAN.replace("- app/x.py:5-7 ", "- app/x.py::normalize ")
                .replace('"app/x.py:11-12"', '"app/x.py::Accounts.create"')
                .replace("lines: '10-15'", "symbol: 'Accounts'")
                .replace("{path: app/x.py, line: 18}", "{path: app/x.py, symbol: LIMIT}"))


@pytest.fixture
def lines_plan(write: Callable[..., Path]) -> Path:
    write("app/x.py", ACCOUNTS)
    return write("plan.yaml", LINES_PLAN)


def test_to_symbols_rewrites_what_covers_one_definition_and_keeps_every_other_byte(lines_plan: Path) -> None:
    result = run("fix", "--to-symbols", str(lines_plan))
    assert result.exit_code == 0, result.output
    assert lines_plan.read_text(encoding="utf-8") == SYMBOLS_PLAN
    assert [line for line in result.stderr.splitlines() if line.startswith(("fixed:", "not fixed:"))] == [
        "fixed: a: app/x.py:5-7 -> app/x.py::normalize",
        "fixed: a: app/x.py:11-12 -> app/x.py::Accounts.create",
        "fixed: a: app/x.py:10-15 -> app/x.py::Accounts",
        "fixed: a: app/x.py:18 -> app/x.py::LIMIT",
        "not fixed: a: app/x.py:19 covers a and b alike (each is defined on exactly those lines): cite the one"
        " meant as app/x.py::NAME by hand",
    ]
    again = run("fix", "--to-symbols", str(lines_plan))
    assert "nothing to fix" in again.stderr
    assert lines_plan.read_text(encoding="utf-8") == SYMBOLS_PLAN  # idempotent


def test_to_symbols_is_off_by_default(lines_plan: Path) -> None:
    result = run("fix", str(lines_plan))
    assert result.exit_code == 0, result.output
    assert "nothing to fix" in result.stderr and "not fixed" not in result.stderr
    assert lines_plan.read_text(encoding="utf-8") == LINES_PLAN


def test_to_symbols_gives_a_ready_plan_whose_symbols_resolve_to_the_old_lines(lines_plan: Path) -> None:
    from compiler.compile.emit import build_output
    from compiler.compile.pipeline import compile_plan

    before = build_output(compile_plan(str(lines_plan)))["items"][0]["evidence"]
    assert run("fix", "--to-symbols", str(lines_plan)).exit_code == 0
    output = build_output(compile_plan(str(lines_plan)))
    assert output["status"] == "ready"
    after = output["items"][0]["evidence"]
    rewritten = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert [(new["symbol"], new["resolved_lines"]) for _, new in rewritten] == [
        ("normalize", "5-7"), ("Accounts.create", "11-12"), ("Accounts", "10-15"), ("LIMIT", "18-18")]
    for old, new in rewritten:
        assert new["resolved_lines"] == old.get("lines", f"{old.get('line')}-{old.get('line')}")
        assert new.get("contains") == old.get("contains")


def test_to_symbols_dry_run_prints_the_diff_and_writes_nothing(lines_plan: Path) -> None:
    result = run("fix", "--to-symbols", "--dry-run", str(lines_plan))
    assert result.exit_code == 0, result.output
    assert lines_plan.read_text(encoding="utf-8") == LINES_PLAN
    assert "-      - app/x.py:5-7              # decorated: its lines start at the decorator" in result.stdout
    assert "+      - app/x.py::normalize              # decorated: its lines start at the decorator" in result.stdout
    assert "-        lines: '10-15'            # the class" in result.stdout
    assert "+        symbol: 'Accounts'            # the class" in result.stdout
    assert "would fix: a: app/x.py:10-15 -> app/x.py::Accounts" in result.stderr


def test_to_symbols_rewrites_a_json_plan_in_place(write: Callable[..., Path]) -> None:
    write("app/x.py", ACCOUNTS)
    plan = write("plan.json", json.dumps({"items": [{
        "id": "a", "change": "c", "proof": "p",
        "evidence": ["app/x.py:14-15", {"path": "app/x.py", "lines": "5-7", "contains": "lower"}, "app/x.py:5-8"],
    }]}))
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    text = plan.read_text(encoding="utf-8")
    assert json.loads(text)["items"][0]["evidence"] == [
        "app/x.py::Accounts.delete", {"path": "app/x.py", "symbol": "normalize", "contains": "lower"}, "app/x.py:5-8"]
    assert '{"path": "app/x.py", "symbol": "normalize", "contains": "lower"}' in text  # where lines was


def test_to_symbols_leaves_entries_that_do_not_verify(write: Callable[..., Path]) -> None:
    """Only what holds now is rewritten: a contains that is not in the lines (drifted, or moved:
    then fix moves the lines, and rewrites nothing), lines past the end of the file."""
    write("app/x.py", ACCOUNTS)
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence:
              - {path: app/x.py, lines: 5-7, contains: nowhere}
              - {path: app/x.py, lines: 1-2, contains: LIMIT = 3}
              - app/x.py:19-40
            proof: p
        """)
    result = run("fix", "--to-symbols", "--unsafe-fixes", str(plan))
    assert result.exit_code == 1
    text = plan.read_text(encoding="utf-8")
    assert "{path: app/x.py, lines: 5-7, contains: nowhere}" in text
    assert "{path: app/x.py, lines: 17-18, contains: LIMIT = 3}" in text  # moved, as without --to-symbols
    assert "symbol" not in text
    assert result.stderr.count("fixed:") == 1


def test_to_symbols_takes_the_name_check_resolves(write: Callable[..., Path]) -> None:
    """A name defined twice in Python means its first definition (docs/reference/evidence.md): the
    lines of the second are no symbol's. Where names nested in one another share the lines, the
    most specific is taken (``C.x`` of ``class C: x = 1``)."""
    write("app/x.py", "def f():\n    return 1\n\n\ndef f():\n    return 2\n\n\nclass C: x = 1\n")
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence: [app/x.py:1-2, app/x.py:5-6, app/x.py:9]
            proof: p
        """)
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    assert "evidence: [app/x.py::f, app/x.py:5-6, app/x.py::C.x]" in plan.read_text(encoding="utf-8")


def test_to_symbols_prefers_the_most_specific_unique_name(write: Callable[..., Path]) -> None:
    """``tool``, ``tool.pytest`` and ``tool.pytest.ini_options`` all cover the lines of the one
    ``[tool.pytest.ini_options]``: the table itself is written, which a new ``[tool.pytest.x]``
    leaves in place. A Markdown heading written twice is never written by its ambiguous text
    (it was, and then meant a section added above it): its parent-qualified name is."""
    write("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n")
    write("CHANGES.md", "# Log\n\n## 2.0\n\n### Output\n\n- b\n\n## 1.0\n\n### Output\n\n- a\n")
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence: [pyproject.toml:1-2, CHANGES.md:11-13, CHANGES.md:5-7]
            proof: p
        """)
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    assert ("evidence: [pyproject.toml::tool.pytest.ini_options, CHANGES.md::1.0.Output, CHANGES.md::2.0.Output]"
            in plan.read_text(encoding="utf-8"))
    assert run("check", str(plan)).exit_code == 0


def test_to_symbols_leaves_a_rewrite_that_would_repeat_what_the_item_cites(write: Callable[..., Path]) -> None:
    write("app/x.py", ACCOUNTS)
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence: [app/x.py::normalize, app/x.py:5-7, app/x.py:18, app/x.py:18]
            proof: p
        """)
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    assert "evidence: [app/x.py::normalize, app/x.py:5-7, app/x.py::LIMIT]" in plan.read_text(encoding="utf-8")
    assert ("not fixed: a: app/x.py:5-7 is app/x.py::normalize, which a cites already: remove one by hand"
            in result.stderr)
    assert "fixed: a: removed repeated evidence app/x.py:18" in result.stderr


def test_to_symbols_quotes_a_name_that_plain_yaml_would_misread(write: Callable[..., Path]) -> None:
    """A Markdown section's name is its heading, any text: written where a plain scalar stood, it
    is quoted when it would not read back as itself."""
    write("README.md", "# Guide\n\n## Don't: panic # now\n\ntext\n")
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence:
              - README.md:3-5
              - {path: README.md, lines: 3-5, contains: text}
            proof: p
        """)
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    text = plan.read_text(encoding="utf-8")
    assert "- 'README.md::Don''t: panic # now'\n" in text
    assert "{path: README.md, symbol: 'Don''t: panic # now', contains: text}" in text


def test_to_symbols_rewrites_evidence_written_as_a_block_scalar(write: Callable[..., Path]) -> None:
    """Written in place of a block scalar, the name became part of the next line: the safety net
    refused the whole fix. It is now a quoted scalar on the block scalar's line."""
    write("app/x.py", ACCOUNTS)
    plan = write("plan.yaml", "items:\n  - id: a\n    change: c\n    evidence:\n      - |-\n        app/x.py:5-7\n"
                              "      - >-\n        app/x.py:18\n    proof: p   # kept\n")
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    assert plan.read_text(encoding="utf-8") == ("items:\n  - id: a\n    change: c\n    evidence:\n"
                                                "      - 'app/x.py::normalize'\n      - 'app/x.py::LIMIT'\n"
                                                "    proof: p   # kept\n")


def test_to_symbols_leaves_evidence_shared_through_an_alias(write: Callable[..., Path]) -> None:
    write("app/x.py", ACCOUNTS)
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence: [&limit {path: app/x.py, line: 18}, app/x.py:5-7]
            proof: p
          - id: b
            change: c
            evidence: [*limit]
            proof: p
        """)
    result = run("fix", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    assert "evidence: [&limit {path: app/x.py, line: 18}, app/x.py::normalize]" in plan.read_text(encoding="utf-8")
    assert ("not fixed: a: app/x.py:18 -> app/x.py::LIMIT (it is used again through a YAML alias (&name, *name),"
            " so edit it by hand): shown only, never applied") in result.stderr


# --- the edits behind it ------------------------------------------------------------------------------

@pytest.mark.parametrize(("names", "expected"), [
    (["A"], "A"),
    (["tool", "tool.pytest.ini_options", "tool.pytest"], "tool.pytest.ini_options"),  # nested: the innermost
    (["A.x", "A"], "A.x"),  # class A: x = 1
    (["A.x", "A", "A.y"], "A"),  # class A: x = y = 1: side by side, in A
    (["a", "b"], None),  # a = b = 1
    (["A", "AB.x"], None),  # a prefix of the text is no parent
])
def test_most_specific_is_the_innermost_name_else_the_outermost(names: list[str], expected: str | None) -> None:
    from compiler.api.fix_symbols import most_specific

    assert most_specific(names) == expected


@pytest.mark.parametrize(("names", "expected"), [
    (["A"], "A"),
    (["A.x", "A", "A.y"], "A"),  # class A: x = y = 1
    (["a", "b"], None),  # a = b = 1
    (["A", "AB.x"], None),  # a prefix of the text is no parent
])
def test_outermost_is_the_name_all_others_are_nested_in(names: list[str], expected: str | None) -> None:
    from compiler.api.fix_symbols import outermost

    assert outermost(names) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("- {path: a, lines: 1-2, contains: x}   # c\n", "- {path: a, symbol: f, contains: x}   # c\n"),
    ("- path: a\n  'lines': \"1-2\"  # c\n  contains: x\n", "- path: a\n  'symbol': \"f\"  # c\n  contains: x\n"),
    ("- path: a\n  line: 1\n", "- path: a\n  symbol: f\n"),
])
def test_a_renamed_key_is_replaced_in_place_with_its_value(text: str, expected: str) -> None:
    from compiler.api.edit import Rename, apply_to_data, apply_to_yaml
    from compiler.load.document import parse_text

    key = "line" if "line:" in text else "lines"
    edits = [((0, key), Rename("symbol", "f"))]
    assert apply_to_yaml(text, edits) == expected
    data = parse_text(text, "p.yaml", "yaml").data
    renamed = apply_to_data(data, edits)
    assert list(renamed[0]) == [k if k != key else "symbol" for k in data[0]]
    assert data[0][key] != "f"  # the original is not changed


def test_the_read_back_check_compares_key_order_where_a_key_was_renamed() -> None:
    from compiler.api.edit import same_key_order

    assert same_key_order([{"a": 1, "b": [{"c": 1, "d": 2}]}], [{"a": 1, "b": [{"c": 1, "d": 2}]}])
    assert not same_key_order([{"a": 1, "b": [{"c": 1, "d": 2}]}], [{"a": 1, "b": [{"d": 2, "c": 1}]}])


def test_dry_run_positions_of_a_renamed_key_are_those_of_the_old_key() -> None:
    from compiler.api.edit import OnDisk, Rename
    from compiler.load.document import parse_text

    doc = parse_text("items:\n  - evidence:\n      - {path: a, lines: 1-2}\n", "p.yaml", "yaml")
    entry = ("items", 0, "evidence", 0)
    on_disk = OnDisk(doc.source_map, [((*entry, "lines"), Rename("symbol", "f"))])
    assert on_disk.key((*entry, "symbol")) == doc.source_map.key((*entry, "lines")) is not None
    assert on_disk.value((*entry, "symbol")) == doc.source_map.value((*entry, "lines"))


def test_symbol_edits_are_edits_of_the_document_with_one_note_each(write: Callable[..., Path]) -> None:
    from compiler.api.edit import Rename
    from compiler.api.fix_symbols import symbol_edits
    from compiler.compile.pipeline import compile_plan
    from compiler.repo.repository import Repository

    write("app/x.py", ACCOUNTS)
    plan = write("plan.yaml", """\
        items:
          - id: a
            change: c
            evidence: [app/x.py:6-7, app/x.py:14-15, {path: app/x.py, line: 18, contains: LIMIT}, app/x.py:19]
            proof: p
        """)
    result = compile_plan(str(plan))
    with Repository(result.root) as repo:
        edits, notes, left = symbol_edits(result, repo)
    assert edits == [(("items", 0, "evidence", 1), "app/x.py::Accounts.delete"),
                     (("items", 0, "evidence", 2, "line"), Rename("symbol", "LIMIT"))]
    assert notes == ["a: app/x.py:14-15 -> app/x.py::Accounts.delete", "a: app/x.py:18 -> app/x.py::LIMIT"]
    assert left == ["a: app/x.py:19 covers a and b alike (each is defined on exactly those lines): cite the one"
                    " meant as app/x.py::NAME by hand"]


def test_fix_help_shows_to_symbols_with_an_example() -> None:
    result = run("fix", "--help")
    assert result.exit_code == 0
    assert "--to-symbols" in result.output
    assert "evidence-plan fix --to-symbols --dry-run plan.yaml" in result.output


REDUNDANT = """\
# Release plan: fix removes what the graph already implies, nothing else.
items:
  - id: schema          # first
    change: Add the column
    evidence: [app.py:1]
    proof: make schema
  - id: backfill
    change: Fill it
    evidence: [app.py:1]
    depends_on: [schema]
    proof: make backfill
  - id: release
    change: Ship it
    evidence: [app.py:1]
    depends_on: [backfill, schema]   # schema is implied through backfill
    proof: make release
  - id: announce
    change: Tell people
    evidence: [app.py:1]
    dependencies:
      - release         # the one that matters
      - schema          # implied: announce -> release -> backfill -> schema
      - backfill        # implied too
    proof: make announce
"""


def test_fix_removes_a_redundant_dependency_keeping_every_other_byte(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", REDUNDANT)
    result = run("fix", str(plan))
    assert result.exit_code == 0, result.output
    assert plan.read_text(encoding="utf-8") == REDUNDANT.replace(
        "depends_on: [backfill, schema]   # schema", "depends_on: [backfill]   # schema").replace(
        "      - schema          # implied: announce -> release -> backfill -> schema\n"
        "      - backfill        # implied too\n", "")
    assert result.stderr.splitlines()[:3] == [
        "fixed: release: removed dependency schema, implied through backfill",
        "fixed: announce: removed dependency schema, implied through release",
        "fixed: announce: removed dependency backfill, implied through release",
    ]
    assert "EP306" not in run("check", str(plan)).output


def test_fix_removes_a_redundant_dependency_from_a_json_plan(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    items = [{"id": "a", "change": "c", "evidence": ["app.py"], "proof": "p"},
             {"id": "b", "change": "c", "evidence": ["app.py"], "depends_on": ["a"], "proof": "p"},
             {"id": "c", "change": "c", "evidence": ["app.py"], "depends_on": ["a", "b"], "proof": "p"}]
    plan = write("plan.json", json.dumps({"items": items}))
    assert run("fix", str(plan)).exit_code == 0
    assert json.loads(plan.read_text(encoding="utf-8"))["items"][2]["depends_on"] == ["b"]


# --- yaml_scalar: what symbols and where print -----------------------------------------------------

_YAML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(_YAML_TEXT, st.sampled_from(["~", "=", "yes", "Null", "1.5", "0x1F", "1:20", "1_000", ".inf",
                                                     "- a", "? b", "a: b", "a #b", "a:", "[a]", "{a}", "'a", '"a',
                                                     "a\tb", " a", "a ", "2024-01-01", "*a", "&a", "!a", "%a", "@a",
                                                     "`a", "|a", ">a", "#a", ",a", "a,b"])),
       flow=st.booleans())
def test_yaml_scalar_reads_back_as_itself(value: str, flow: bool) -> None:
    """Written by yaml_scalar into a block sequence (or a flow mapping), any text reads back as
    itself with the plan's YAML reader."""
    from compiler.api.edit import yaml_scalar
    from compiler.load.document import parse_text

    written = yaml_scalar(value, flow=flow)
    line = f"{{path: {written}}}" if flow else written
    data = parse_text(f"items:\n  - {line}\n", "plan.yaml", "yaml").data
    assert (data["items"][0]["path"] if flow else data["items"][0]) == value
