"""Pinned evidence: a hash of the cited lines (compiler/core/pins.py), checked as EP211, written by
`fix --pin`, and followed by `fix` when the pinned lines moved whole."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import run

from compiler.core import pins
from compiler.core.pins import pin_of

SOURCE = ("import os\n\n\ndef create_account(email):\n    return email\n\n\n"
          "class Accounts:\n    def find(self):\n        return 1\n")
LINES = SOURCE.rstrip("\n").split("\n")


def lines_pin(start: int, end: int, lines: list[str] = LINES) -> str:
    return pin_of("\n".join(lines[start - 1:end]))


# --- the hash ---------------------------------------------------------------------------------


def test_a_pin_is_twelve_hex_digits_of_the_normalised_lines() -> None:
    pin = pin_of("def f():\n    return 1")
    assert pins.valid(pin) and len(pin) == pins.DIGITS == 12
    assert pin != pin_of("def f():\n    return 2")


def test_trailing_whitespace_and_line_endings_do_not_change_a_pin() -> None:
    assert pin_of("def f():  \n    return 1\t") == pin_of("def f():\n    return 1")
    assert pin_of("def f():\r\n    return 1\r") == pin_of("def f():\n    return 1")
    # What a reader sees does count: indentation, and a blank line more.
    assert pin_of("def f():\nreturn 1") != pin_of("def f():\n    return 1")
    assert pin_of("a\n\nb") != pin_of("a\nb")


def test_a_crlf_file_and_its_lf_copy_hold_the_same_pin(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE.replace("\n", "\r\n"))
    plan = write("plan.yaml", f"""
        items:
          - id: a
            change: c
            evidence: [{{path: app.py, lines: 4-5, pin: {lines_pin(4, 5)}}}]
            proof: make test
    """)
    assert run("check", str(plan)).exit_code == 0


def find(lines: list[str], length: int, pin: str) -> list[int]:
    return pins.index(pins.normal_lines(lines), length).get(pin, [])


def test_the_index_gives_every_window_with_the_pin() -> None:
    lines = ["a", "b", "a", "b", "a", "b"]
    assert find(lines, 2, pin_of("a\nb")) == [1, 3, 5]
    assert find(lines, 2, pin_of("b\na")) == [2, 4]
    assert find(lines, 2, pin_of("x\ny")) == []
    assert find(lines, 7, pin_of("a")) == []  # longer than the file


@given(st.lists(st.sampled_from(["x", "y", "", "  z"]), min_size=1, max_size=30), st.data())
def test_find_finds_the_window_a_pin_was_taken_from(lines: list[str], data: st.DataObject) -> None:
    start = data.draw(st.integers(1, len(lines)))
    length = data.draw(st.integers(1, len(lines) - start + 1))
    pin = pin_of("\n".join(lines[start - 1:start - 1 + length]))
    found = find(lines, length, pin)
    assert start in found
    # ... and only windows that hold the same text (a 48-bit hash: no collision in 30 lines).
    window = [line.rstrip() for line in lines[start - 1:start - 1 + length]]
    assert all([line.rstrip() for line in lines[f - 1:f - 1 + length]] == window for f in found)


def test_the_repository_searches_each_file_and_length_once_under_one_budget(write: Callable[..., Path]) -> None:
    from compiler.repo.repository import Repository

    write("a.py", "x\ny\n" * 50)
    write("b.py", "x\ny\n" * 50)
    with Repository(write("c.py", "").parent) as repo:
        assert repo.find_pinned("a.py", 2, pin_of("x\ny")) == [1, 3, 5, 7, 9, 11]
        left = repo._pin_budget
        assert repo.find_pinned("a.py", 2, pin_of("y\nx")) == [2, 4, 6, 8, 10, 12]  # the same index
        assert repo._pin_budget == left
        repo._pin_budget = 10  # what is left of the run's budget: too little for another file
        assert repo.find_pinned("b.py", 2, pin_of("x\ny")) is None
        assert repo.find_pinned("a.py", 2, pin_of("z")) == []  # searched already: still answered


# --- EP211 --------------------------------------------------------------------------------------


def pinned_plan(entry: str) -> str:
    return f"""\
items:
  - id: signup
    change: Sign-up
    evidence:
      {entry}
    proof: make test
"""


def test_a_pin_that_holds_is_ready(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, symbol: Accounts.find, pin: {lines_pin(9, 10)}}}"))
    assert run("check", str(plan)).exit_code == 0


def test_pinned_lines_whose_code_changed_are_ep211_at_the_pin(write: Callable[..., Path]) -> None:
    old = lines_pin(4, 5)
    write("app.py", SOURCE.replace("return email", "return email.lower()"))
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, lines: 4-5, pin: {old}}}"))
    result = run("check", str(plan))
    assert result.exit_code == 1
    now = pin_of("def create_account(email):\n    return email.lower()")
    assert (f"plan.yaml:5:41: error EP211 signup cites app.py:4-5 pinned {old}, but those lines changed (they hash"
            f" {now} now), and the pinned lines are not found elsewhere in the file") in result.output
    assert "remove the pin and run evidence-plan fix --pin" in result.output


def test_pinned_lines_that_moved_say_where_and_fix_moves_them(write: Callable[..., Path]) -> None:
    old = lines_pin(4, 5)
    write("app.py", '"""Accounts."""\n\n' + SOURCE)  # two lines above: the function is at 6-7 now
    text = pinned_plan(f"- path: app.py   # the function\n        lines: 4-5\n        pin: {old}")
    plan = write("plan.yaml", text)
    result = run("check", str(plan))
    assert result.exit_code == 1
    assert (f"plan.yaml:7:14: error EP211 signup cites app.py:4-5 pinned {old}, but those lines changed: the pinned"
            " lines are now at app.py:6-7 (fix moves the entry there)") in result.output
    fixed = run("fix", str(plan))
    assert fixed.exit_code == 0, fixed.output
    assert "fixed: signup: app.py:4-5 -> app.py:6-7 (the pinned lines moved)" in fixed.output
    assert plan.read_text(encoding="utf-8") == text.replace("lines: 4-5", "lines: 6-7")


def test_a_changed_symbol_is_ep211_without_a_search(write: Callable[..., Path]) -> None:
    old = lines_pin(9, 10)
    write("app.py", SOURCE.replace("return 1", "return 2"))
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, symbol: Accounts.find, pin: {old}}}"))
    result = run("check", str(plan))
    assert result.exit_code == 1
    assert f"EP211 signup cites app.py::Accounts.find pinned {old}, but its lines (9-10) changed" in result.output


def test_pinned_lines_found_in_several_places_are_not_moved(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE + "\n\ndef create_account(email):\n    return email\n")
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, lines: 1-2, pin: {lines_pin(4, 5)}}}"))
    result = run("check", str(plan))
    assert "the pinned lines are found at lines 4-5, 13-14 of app.py: cite the one that is meant" in result.output
    before = plan.read_text(encoding="utf-8")
    assert run("fix", str(plan)).exit_code == 1
    assert plan.read_text(encoding="utf-8") == before


def test_a_pin_without_lines_or_not_twelve_hex_digits_is_ep014(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", pinned_plan(
        f"- {{path: app.py, pin: {lines_pin(4, 5)}}}\n      - {{path: app.py, line: 4, pin: ABC}}"))
    result = run("check", str(plan))
    assert "plan.yaml:5:29: error EP014 signup: a pin needs line, lines or a symbol" in result.output
    assert "plan.yaml:6:38: error EP014 signup: pin 'ABC' is not 12 lowercase hex digits" in result.output


# --- fix --pin ----------------------------------------------------------------------------------

PLAN = """\
# Comments, quoting and layout stay byte for byte.
items:
  - id: signup      # the first
    change: Sign-up
    evidence:
      - app.py:4-5          # the function
      - 'app.py::Accounts.find'
      - path: app.py
        line: 9   # the method's line
      - path: app.py
        lines: 4-5
        contains: def create_account

      - app.py              # a whole file: not pinned
      - https://example.com/spec
    proof: make test
  - id: more
    change: More
    evidence: [app.py:1, {path: app.py, line: 4}]
    proof: make test
"""


def test_fix_pin_pins_every_entry_with_lines_or_a_symbol_and_keeps_every_other_byte(
    write: Callable[..., Path],
) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", PLAN)
    result = run("fix", "--pin", str(plan))
    assert result.exit_code == 0, result.output
    p45, p9, p910, p1, p4 = lines_pin(4, 5), lines_pin(9, 9), lines_pin(9, 10), lines_pin(1, 1), lines_pin(4, 4)
    quote = {p: f"'{p}'" if p.isdigit() or re.fullmatch("[0-9]+e[0-9]+|0b[01]+", p) else p
             for p in (p45, p9, p910, p1, p4)}
    expected = (PLAN
                .replace("- app.py:4-5   ", f"- {{path: app.py, lines: 4-5, pin: {quote[p45]}}}   ")
                .replace("- 'app.py::Accounts.find'", f"- {{path: app.py, symbol: Accounts.find, pin: {quote[p910]}}}")
                .replace("line: 9   # the method's line\n",
                         f"line: 9   # the method's line\n        pin: {quote[p9]}\n")
                .replace("contains: def create_account\n", f"contains: def create_account\n        pin: {quote[p45]}\n")
                .replace("[app.py:1, {path: app.py, line: 4}]",
                         f"[{{path: app.py, line: 1, pin: {quote[p1]}}}, {{path: app.py, line: 4, pin: {quote[p4]}}}]"))
    assert plan.read_text(encoding="utf-8") == expected
    assert "fixed: signup: pinned app.py::Accounts.find at " + p910 in result.output
    # Pinned once, the plan holds; a second run has nothing to pin.
    assert run("check", str(plan)).exit_code == 0
    again = run("fix", "--pin", str(plan))
    assert again.exit_code == 0 and "nothing to fix" in again.output


def test_fix_pin_leaves_an_entry_that_does_not_hold_unpinned(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", pinned_plan("- {path: app.py, lines: 1-2, contains: nowhere}\n      - app.py:40"))
    before = plan.read_text(encoding="utf-8")
    result = run("fix", "--pin", str(plan))
    assert result.exit_code == 1
    assert plan.read_text(encoding="utf-8") == before  # a pin of lines that do not hold would bless them


def test_fix_without_pin_adds_no_pins(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", PLAN)
    result = run("fix", str(plan))
    assert "nothing to fix" in result.output
    assert plan.read_text(encoding="utf-8") == PLAN


def test_fix_pin_keeps_crlf_line_endings(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", "")
    plan.write_bytes(pinned_plan("- path: app.py\n        line: 4").replace("\n", "\r\n").encode())
    assert run("fix", "--pin", str(plan)).exit_code == 0
    assert plan.read_bytes() == pinned_plan(f"- path: app.py\n        line: 4\n        pin: {lines_pin(4, 4)}").replace(
        "\n", "\r\n").encode()


def test_fix_pin_of_a_json_plan(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.json", json.dumps({"items": [{"id": "a", "change": "c", "proof": "make test",
                                                     "evidence": ["app.py::create_account", "app.py"]}]}))
    assert run("fix", "--pin", str(plan)).exit_code == 0
    evidence = json.loads(plan.read_text(encoding="utf-8"))["items"][0]["evidence"]
    assert evidence == [{"path": "app.py", "symbol": "create_account", "pin": lines_pin(4, 5)}, "app.py"]


def test_fix_pin_dry_run_writes_nothing(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", pinned_plan("- app.py:4"))
    result = run("fix", "--pin", "--dry-run", str(plan))
    assert result.exit_code == 0
    assert f"+      - {{path: app.py, line: 4, pin: {lines_pin(4, 4)}}}" in result.output
    assert plan.read_text(encoding="utf-8") == pinned_plan("- app.py:4")


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("head", ["goal: Sign-up & log-in, *all* of it\n", "goal: &g Ship it\nplan: *g\n",
                                  ": &0 :*\n"])
def test_fix_pin_adds_a_pin_key_to_an_entry_in_a_plan_with_anchors_or_their_characters(
        write: Callable[..., Path], head: str, dry_run: bool) -> None:
    """A pin is a key new to its entry: in a plan whose text holds ``&`` and ``*`` (as text, or
    anchors and aliases elsewhere), the entry is not shared, so it is pinned like any other."""
    write("app.py", SOURCE)
    text = head + pinned_plan("- path: app.py\n        line: 4")
    plan = write("plan.yaml", text)
    result = run("fix", "--pin", *(["--dry-run"] if dry_run else []), str(plan))
    assert result.exit_code == (1 if head.startswith(":") else 0), result.output  # an empty key: EP010
    assert f"fix{'' if dry_run else 'ed'}: signup: pinned app.py:4 at {lines_pin(4, 4)}" in result.output
    pinned = text.replace("line: 4\n", f"line: 4\n        pin: {lines_pin(4, 4)}\n")
    assert plan.read_text(encoding="utf-8") == (text if dry_run else pinned)


def test_fix_pin_leaves_an_entry_shared_through_an_alias_and_says_so(write: Callable[..., Path]) -> None:
    """An entry written once and used again through an alias would get its pin everywhere at
    once: it is left as it is and named, and the others are pinned."""
    write("app.py", SOURCE)
    text = """\
items:
  - id: a
    change: c
    evidence:
      - &shared {path: app.py, line: 4}
      - {path: app.py, line: 5}
    proof: make test
  - id: b
    change: c
    evidence: [*shared]
    proof: make test
"""
    plan = write("plan.yaml", text)
    result = run("fix", "--pin", str(plan))
    assert result.exit_code == 0, result.output  # left as it is, the plan holds: nothing blocks it
    left = [line for line in result.output.splitlines() if line.startswith("not fixed: ")]
    assert len(left) == 2 and all("used again through a YAML alias" in line for line in left), result.output
    assert plan.read_text(encoding="utf-8") == text.replace(
        "{path: app.py, line: 5}", f"{{path: app.py, line: 5, pin: {lines_pin(5, 5)}}}")


def test_a_path_that_is_not_plain_yaml_is_quoted_in_the_pinned_entry(write: Callable[..., Path]) -> None:
    write("a, b.py", SOURCE)
    plan = write("plan.yaml", pinned_plan("- 'a, b.py:4'"))
    assert run("fix", "--pin", str(plan)).exit_code == 0, plan.read_text()
    assert "{path: 'a, b.py', line: 4, pin: " in plan.read_text(encoding="utf-8")
    assert run("check", str(plan)).exit_code == 0


def test_pins_survive_an_edit_above_them_through_fix(write: Callable[..., Path]) -> None:
    """The loop the feature is for: pin, let the code move, fix follows it, the plan holds."""
    source = write("app.py", SOURCE)
    plan = write("plan.yaml", PLAN)
    assert run("fix", "--pin", str(plan)).exit_code == 0
    source.write_text("# a header\n# of three\n# lines\n" + SOURCE, encoding="utf-8")
    blocked = run("check", str(plan))
    assert blocked.exit_code == 1 and blocked.output.count("EP211") == 5  # symbols move with their names
    fixed = run("fix", str(plan))
    assert fixed.exit_code == 0, fixed.output
    assert run("check", str(plan)).exit_code == 0


def test_fix_moves_lines_found_twice_by_the_distance_the_files_other_pins_moved(write: Callable[..., Path]) -> None:
    source = write("app.py", SOURCE + "\n\ndef other():\n    return email\n")
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, lines: 4-5, pin: {lines_pin(4, 5)}}}\n"
                                          f"      - {{path: app.py, line: 5, pin: {lines_pin(5, 5)}}}"))
    source.write_text("# one\n# two\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
    checked = run("check", str(plan))
    assert "the pinned lines are found at lines 7, 16 of app.py: cite the one that is meant" in checked.output
    fixed = run("fix", str(plan))
    assert fixed.exit_code == 0, fixed.output
    assert ("fixed: signup: app.py:5 -> app.py:7 (the pinned lines are found at 2 places; this is the one +2 lines"
            " away, as far as the file's other pinned entries moved)") in fixed.output
    assert "lines: 6-7, pin:" in plan.read_text(encoding="utf-8")
    assert "line: 7, pin:" in plan.read_text(encoding="utf-8")


def test_lines_found_twice_stay_when_the_files_other_pins_disagree(write: Callable[..., Path]) -> None:
    source = write("app.py", SOURCE + "\n\ndef other():\n    return email\n")
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, lines: 4-5, pin: {lines_pin(4, 5)}}}\n"
                                          f"      - {{path: app.py, lines: 9-10, pin: {lines_pin(9, 10)}}}\n"
                                          f"      - {{path: app.py, line: 5, pin: {lines_pin(5, 5)}}}"))
    text = source.read_text(encoding="utf-8").replace("class Accounts", "# between\nclass Accounts")
    source.write_text("# one\n" + text, encoding="utf-8")  # one line above 4-5, two above 9-10
    fixed = run("fix", str(plan))
    assert fixed.exit_code == 1
    assert "app.py:5 ->" not in fixed.output


@pytest.mark.parametrize(("pin", "written"), [
    ("3f2a9c1b0d4e", "3f2a9c1b0d4e"),  # hex with a letter: text, plain
    ("123456789012", "'123456789012'"),  # a number, unless quoted
    ("12e456789012", "'12e456789012'"),  # a float in YAML 1.2
    ("0b1010101010", "'0b1010101010'"),  # a binary number
])
def test_a_pin_is_written_plain_only_when_it_reads_back_as_text(pin: str, written: str) -> None:
    from ruamel.yaml import YAML

    from compiler.core.scalars import scalar_text as _scalar_text

    assert _scalar_text("", pin) == written
    assert YAML(typ="safe", pure=True).load(f"{{pin: {written}}}") == {"pin": pin}


def test_fix_pin_with_to_symbols_pins_the_definition_it_rewrote(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", pinned_plan("- app.py:4-5   # the function"))
    result = run("fix", "--pin", "--to-symbols", str(plan))
    assert result.exit_code == 0, result.output
    assert plan.read_text(encoding="utf-8") == pinned_plan(
        f"- {{path: app.py, symbol: create_account, pin: {lines_pin(4, 5)}}}   # the function")
    assert "app.py:4-5 -> app.py::create_account" in result.output
    assert "pinned app.py::create_account at" in result.output


def test_fix_pin_pins_an_entry_where_the_same_run_moved_it(write: Callable[..., Path]) -> None:
    write("app.py", SOURCE)
    plan = write("plan.yaml", pinned_plan("- path: app.py\n        line: 1\n        contains: def create_account"))
    result = run("fix", "--pin", str(plan))
    assert result.exit_code == 0, result.output
    assert plan.read_text(encoding="utf-8") == pinned_plan(
        f"- path: app.py\n        line: 4\n        contains: def create_account\n        pin: {lines_pin(4, 4)}")


def test_past_the_search_budget_the_message_says_the_pinned_lines_were_not_looked_for(
    write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from compiler.repo import repository

    monkeypatch.setattr(repository, "MAX_PIN_SEARCH_BYTES", 10)
    old = lines_pin(4, 5)
    write("app.py", "# one\n" + SOURCE)
    plan = write("plan.yaml", pinned_plan(f"- {{path: app.py, lines: 4-5, pin: {old}}}"))
    result = run("check", str(plan))
    assert result.exit_code == 1
    assert f"EP211 signup cites app.py:4-5 pinned {old}, but those lines changed (they hash" in result.output
    assert "the pinned lines were not looked for elsewhere (the file is over 16 MiB, or this run hashed its" in (
        result.output)
