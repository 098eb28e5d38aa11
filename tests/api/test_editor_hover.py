"""The editor's hover (compiler/api/editor_hover.py): the cited lines of an evidence entry and what
resolved them, an item's facts on its id, and the diagnostics under the place explained; Markdown
in which nothing of the plan or the repository can break out of its place."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from support import analysed, git_repo

from compiler.api.editor import Analysis, Range, analyse
from compiler.api.editor_hover import LANGUAGES, MAX_LINES, NOT_SHOWN, hover, language
from compiler.api.explain import docs_url
from compiler.core.pins import pin_of
from compiler.repo.files import Kind

X_PY = '"""X."""\n\n\ndef f():\n    return 1\n\n\nclass K:\n    def m(self):\n        return "`"\n'
PIN = pin_of("def f():\n    return 1")

PLAN = f"""\
items:
  - id: one
    change: Fix *all* [links] in `x` for @team
    evidence:
      - app/x.py:4-5
      - app/x.py::K.m
      - path: app/x.py
        lines: 4-5
        pin: {PIN}
      - path: app/x.py
        lines: 4-5
        pin: "000000000000"
      - https://example.com/a
      - app/missing.py
      - ../outside.txt
      - link.txt
      - data.bin
      - app/x.py::Nope
      - fence.md
      - long.txt
      - docs/
      - ctl.txt
      - "a\\0b.txt"
      - path: long.txt
        contains: line 50
      - "we`ird.txt"
      - javascript://x
    proof: python -m pytest
  - id: two
    change: second
    evidence: [app/x.py:1]
    depends_on: [one, nobody]
    proof: |
      pytest
      make check
"""


def repository(tmp_path: Path) -> Path:
    long = [f"line {n}" for n in range(1, 101)]
    long[2] = "y" * 300
    root = git_repo(tmp_path / "repo", {
        "app/x.py": X_PY, "fence.md": "a ``` b\n````\n", "long.txt": "\n".join(long) + "\n", "data.bin": b"ab\x00cd\n",
        "ctl.txt": "a\tb\x1b[31m\u202ec\n", "we`ird.txt": "w\n", "docs/guide.md": "# Guide\n",
    })
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    return root


def at(text: str, needle: str, n: int = 0, shift: int = 1) -> tuple[int, int]:
    """The place ``shift`` characters into the n-th occurrence of ``needle`` (0-based line, code points)."""
    offset = -1
    for _ in range(n + 1):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1) + shift


@pytest.fixture
def plan(tmp_path: Path) -> Analysis:
    return analysed(repository(tmp_path), PLAN)


def shown(analysis: Analysis, needle: str, n: int = 0, shift: int = 1) -> str:
    found = hover(analysis, *at(analysis.text, needle, n, shift))
    assert found is not None
    return found.markdown


def explained(code: str) -> str:
    url = docs_url(code)
    return f"[{code} in the documentation]({url})" if url else f"More: `evidence-plan explain {code}`"


# --- evidence ----------------------------------------------------------------------------------------


def test_a_cited_range_shows_its_lines_in_the_files_language_with_what_resolved_them(plan: Analysis) -> None:
    found = hover(plan, 4, 12)
    assert found is not None
    assert found.range == Range(line=4, column=8, end_line=4, end_column=20)
    assert found.markdown == (
        "**Evidence** `app/x.py:4-5`\n\n"
        "Resolved: lines 4-5 of `app/x.py`.\n\n"
        f"Not pinned: the lines hash `{PIN}` (`evidence-plan fix --pin` pins them).\n\n"
        "```python\ndef f():\n    return 1\n```"
    )


def test_a_symbol_shows_its_definitions_lines(plan: Analysis) -> None:
    assert shown(plan, "app/x.py::K.m") == (
        "**Evidence** `app/x.py::K.m`\n\n"
        "Resolved: `K.m` is lines 9-10 of `app/x.py`.\n\n"
        f"Not pinned: the lines hash `{pin_of(X_PY.split(chr(10), 8)[8].rstrip(chr(10)))}` (`evidence-plan fix --pin`"
        " pins them).\n\n"
        '```python\n    def m(self):\n        return "`"\n```'
    )


def test_every_scalar_of_the_object_form_shows_the_entry_and_its_pins_state(plan: Analysis) -> None:
    pinned = "Resolved: lines 4-5 of `app/x.py`.\n\nPinned `" + PIN + "`: the lines are as they were pinned."
    for needle, n in (("path: app/x.py", 0), ("lines: 4-5", 0), ("pin: " + PIN, 0)):
        line, column = at(plan.text, needle, n)
        for place in (column - 1, column + 6, column + 8):  # the key, and the value
            found = hover(plan, line, place)
            assert found is not None and pinned in found.markdown, (needle, place)
    stale = hover(plan, *at(plan.text, '"000000000000"'))
    assert stale is not None
    assert (f"Pinned `000000000000`, but the lines hash `{PIN}` now: the pin is stale.\n\n```python\ndef f():"
            in stale.markdown)
    assert "---\n\n**EP211 pin-drift** (error): one cites app/x.py:4-5 pinned 000000000000" in stale.markdown
    assert stale.markdown.endswith(explained("EP211"))


def test_a_url_is_just_the_url_and_only_a_web_address_is_a_link(plan: Analysis) -> None:
    assert shown(plan, "https://example.com/a") == "<https://example.com/a>"
    assert shown(plan, "javascript://x") == "`javascript://x`"


def test_a_whole_file_is_shown_bounded_and_says_what_was_left_out(plan: Analysis) -> None:
    text = shown(plan, "- long.txt", shift=3)
    body = [f"line {n}" for n in range(1, MAX_LINES + 1)]
    body[2] = "y" * 200 + "…"
    assert text == ("**Evidence** `long.txt`\n\nResolved: the whole of `long.txt` (100 lines).\n\n```\n"
                    + "\n".join(body) + "\n```\n\n60 more lines not shown (to line 100).\n\n"
                    "1 line was cut at 200 characters.")


def test_a_whole_file_with_contains_is_shown_from_where_the_text_is(plan: Analysis) -> None:
    text = shown(plan, "contains: line 50", shift=12)
    assert "Shown from line 50, where its `contains` text is.\n\n```\nline 50\nline 51\n" in text
    assert text.endswith("line 89\n```\n\n11 more lines not shown (to line 100).")


def test_a_fence_in_the_cited_text_gets_a_longer_fence(plan: Analysis) -> None:
    assert shown(plan, "- fence.md", shift=3).endswith("\n\n`````markdown\na ``` b\n````\n`````")


def test_control_characters_of_cited_lines_are_shown_as_escapes_but_tabs(plan: Analysis) -> None:
    assert shown(plan, "- ctl.txt", shift=3).endswith("```\na\tb\\x1b[31m\\u202ec\n```")


@pytest.mark.parametrize(("needle", "said", "code"), [
    ("app/missing.py", "`app/missing.py` does not exist under the repository root.", "EP201"),
    ("../outside.txt", "`../outside.txt` was not read: it leaves the repository root.", "EP204"),
    ("link.txt", "`link.txt` was not read: it is a symlink that leads outside the repository root.", "EP204"),
    ('"a\\0b.txt"', "`a\\x00b.txt` was not read: it contains a NUL character.", "EP204"),
    ("app/x.py::Nope", "`app/x.py` defines no `Nope`.", "EP206"),
])
def test_what_cannot_be_shown_is_said_plainly_with_the_diagnostic_explained(
        plan: Analysis, needle: str, said: str, code: str) -> None:
    text = shown(plan, needle)
    head, _, rest = text.partition("\n\n---\n\n")
    assert head.endswith("\n\n" + said)
    assert rest.startswith(f"**{code} ")
    assert "secret" not in text and "Traceback" not in text
    assert rest.endswith(explained(code))


def test_a_binary_file_and_a_folder_are_named_not_shown(plan: Analysis) -> None:
    assert shown(plan, "data.bin") == ("**Evidence** `data.bin`\n\n"
                                       "`data.bin` is a binary file (6 bytes): it is not shown.")
    assert shown(plan, "docs/") == "**Evidence** `docs/`\n\n`docs/` is a folder: there are no lines to show."


def test_a_path_with_a_backtick_stays_one_code_span(plan: Analysis) -> None:
    assert shown(plan, "we`ird.txt").startswith(
        "**Evidence** ``we`ird.txt``\n\nResolved: the whole of ``we`ird.txt`` (1 line)")


def test_a_refused_root_reads_no_evidence(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app/x.py": X_PY})
    text = "root: ..\nitems:\n  - id: a\n    change: c\n    evidence: [app/x.py:4-5]\n    proof: pytest\n"
    found = hover(analysed(root, text), *at(text, "app/x.py"))
    assert found is not None
    assert found.markdown == ("**Evidence** `app/x.py:4-5`\n\n"
                              "Not read: the plan's root was refused (EP208), so none of its evidence is.")


# --- items ----------------------------------------------------------------------------------------------------


READY = """\
items:
  - id: a
    change: first
    evidence: [app/x.py:4-5]
    proof: pytest
  - id: b
    change: second
    evidence: [app/x.py:1]
    depends_on: [a]
    proof: pytest -k b
  - id: d
    change: fourth
    evidence: [app/x.py:1]
    depends_on: [a]
    proof: pytest
  - id: c
    change: third
    evidence: [app/x.py:1]
    dependencies:
      - b
      - d
    proof: pytest
"""


def test_an_id_shows_the_items_change_proof_wave_dependencies_and_dependents(tmp_path: Path) -> None:
    plan = analysed(git_repo(tmp_path / "repo", {"app/x.py": X_PY}), READY)
    found = hover(plan, *at(READY, "id: b", shift=4))
    assert found is not None
    assert found.range == Range(line=5, column=8, end_line=5, end_column=9)
    assert found.markdown == ("**Item** `b`\n\nChange: second\n\nProof: `pytest -k b`\n\nWave 2 of 3.\n\n"
                              "Depends on: `a`.\n\nNeeded by: `c`.")
    entry = hover(plan, *at(READY, "      - d", shift=8))  # a dependencies entry: the item it names
    assert entry is not None and entry.range == Range(line=20, column=8, end_line=20, end_column=9)
    assert entry.markdown == ("**Item** `d`\n\nChange: fourth\n\nProof: `pytest`\n\nWave 2 of 3.\n\n"
                              "Depends on: `a`.\n\nNeeded by: `c`.")
    first = hover(plan, *at(READY, "[a]"))
    assert first is not None and first.markdown.endswith("Wave 1 of 3.\n\nDepends on no item.\n\nNeeded by: `b`, `d`.")


def test_a_blocked_plan_has_no_waves_and_an_unknown_id_is_said_with_its_diagnostic(plan: Analysis) -> None:
    assert shown(plan, "id: two", shift=5) == (
        "**Item** `two`\n\nChange: second\n\nProof:\n\n```sh\npytest\nmake check\n```\n\n"
        "No wave: the plan is blocked, so it is not ordered.\n\nDepends on: `one`, `nobody`.\n\nNo item depends on it.")
    assert "Needed by: `two`." in shown(plan, "id: one", shift=5)
    unknown = shown(plan, "nobody")
    assert unknown.startswith("`nobody`: no item of this plan has this id.\n\n---\n\n**EP301 ")


def test_plan_text_is_escaped_in_markdown(plan: Analysis) -> None:
    assert "Change: Fix \\*all\\* \\[links\\] in `x` for @&#8288;team\n\n" in shown(plan, "id: one", shift=5)


# --- diagnostics anywhere -------------------------------------------------------------------------------------


def test_a_diagnostic_is_explained_wherever_its_range_is(tmp_path: Path) -> None:
    text = READY.replace("    proof: pytest\n  - id: b", "    status: finsihed\n    proof: pytest\n  - id: b")
    plan = analysed(git_repo(tmp_path / "repo", {"app/x.py": X_PY}), text)
    found = hover(plan, *at(text, "finsihed"))
    assert found is not None
    assert found.range == Range(line=4, column=12, end_line=4, end_column=20)
    code = plan.diagnostics[0].code
    assert found.markdown.startswith(f"**{code} ")
    assert "\n\n*Why it matters:* " in found.markdown and "\n\n*How to fix it:* " in found.markdown
    assert found.markdown.endswith(explained(code))
    assert hover(plan, *at(text, "change: first", shift=3)) is None  # a key with nothing to say


def test_an_unreadable_analysis_still_explains_its_input_error(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {})
    path = root / "plan.yaml"
    found = analyse(str(path), "items:\n  - id: [a\n")
    assert found is not None and not found.readable
    said = hover(found, 0, 0) or hover(found, 1, 9) or hover(found, 2, 0)
    assert said is not None and said.markdown.startswith("**EP002 ")


def test_languages_come_from_the_declared_mapping() -> None:
    assert [language(p) for p in ("a/b.py", "x.YAML", "Dockerfile", "src/Makefile", "notes", ".bashrc", "a.b.rs")] == [
        "python", "yaml", "dockerfile", "makefile", "", "", "rust"]
    assert all(name.startswith(".") or name[0].isupper() for name in LANGUAGES)


def test_every_kind_of_path_but_a_file_says_why_it_is_not_shown() -> None:
    assert set(NOT_SHOWN) == set(get_args(Kind)) - {"file"}
