"""The test oracle of GitHub Actions' runner (tests/runner_commands.py) reads what the runner
reads: real commands in both syntaxes, in both of its string-comparison models, and no command
where the runner finds none (the neutraliser's ``:\u2060:`` and ``##\u2060[`` among them)."""

from __future__ import annotations

import re
import unicodedata

import pytest
import runner_commands as rc

N = "\u2060"  # compiler/core/cilog.py's neutraliser, U+2060 WORD JOINER


# --- the oracle: the runner's own rules ----------------------------------------------------------------

COMMANDS = [
    ("::warning file=README.md,line=1::All checks passed", "warning", {"file": "README.md", "line": "1"},
     "All checks passed"),
    ("  ::error::x", "error", {}, "x"),
    ("\u3000\t::error title=a%3Ab%2Cc::x%0Ay%25", "error", {"title": "a:b,c"}, "x\ny%"),
    ("::add-mask::secret", "add-mask", {}, "secret"),
    ("::SET-OUTPUT name=a::b", "SET-OUTPUT", {"name": "a"}, "b"),
    ("##[warning]x", "warning", {}, "x"),
    ("text first ##[set-env name=foo]bar", "set-env", {"name": "foo"}, "bar"),
    ("##[group]a ##[endgroup]", "group", {}, "a ##[endgroup]"),
    ("::stop-commands::tok", "stop-commands", {}, "tok"),
]
NOT_COMMANDS = [
    "::unknown::x", "x ::error::y", "::error x", "##[command]ls", "##[warning x", "# #[warning]x", ": :error::x",
    f":{N}:error::x", f"##{N}[warning]x", f"#{N}#[warning]x", f":{N}::error::x", f"##{N}[##{N}[warning]x",
    "\u200b::error::x", "::\u0301error::x",
]


@pytest.mark.parametrize("model", rc.MODELS, ids=lambda m: m.name)
@pytest.mark.parametrize(("line", "name", "properties", "data"), COMMANDS)
def test_the_oracle_reads_the_runners_commands_in_both_syntaxes(model: rc.Model, line: str, name: str,
                                                                 properties: dict[str, str], data: str) -> None:
    found = rc.parse(line, model)
    assert found is not None
    assert (found.name, found.properties, found.data) == (name, properties, data)


@pytest.mark.parametrize("model", rc.MODELS, ids=lambda m: m.name)
@pytest.mark.parametrize("line", NOT_COMMANDS)
def test_the_oracle_reads_no_command_where_the_runner_reads_none(model: rc.Model, line: str) -> None:
    assert rc.parse(line, model) is None


def test_the_oracle_reads_lines_as_the_runner_splits_them() -> None:
    assert rc.lines("a\r::error::x\r\n##[warning]y\u2028::error::z\n") == [
        "a", "::error::x", "##[warning]y\u2028::error::z"]
    assert [c.name for _, _, c in rc.command_lines("a\r::error::x\r\nb ##[warning]y\n")] == ["error", "warning"]


def test_the_oracle_follows_stop_commands_until_its_token() -> None:
    log = "::stop-commands::tok\n::error::ignored\n::tok::\n::warning::again\n"
    assert [(n, c.name) for n, c in rc.commands(log)] == [(1, "stop-commands"), (3, "tok"), (4, "warning")]


def test_the_oracles_white_space_is_dotnets() -> None:
    # Char.IsWhiteSpace: the Unicode categories Zs, Zl, Zp, and U+0009-U+000D, U+0085.
    derived = {chr(c) for c in range(0x110000)
               if unicodedata.category(chr(c)) in ("Zs", "Zl", "Zp") or 9 <= c <= 13 or c == 0x85}
    assert max(derived) == "\u3000"
    assert {c for c in map(chr, range(0x3001)) if re.fullmatch(f"[{rc.DOTNET_WHITE_SPACE}]", c)} == derived


@pytest.mark.skipif(rc.ICU is None, reason="ICU's libraries are not installed: apt-get install -y libicu-dev")
def test_the_icu_model_ignores_what_icu_ignores() -> None:
    """On ICU, .NET's culture comparisons skip what collation ignores: the oracle's ICU model is no
    ordinal model in disguise (and the ordinal one reads these lines differently)."""
    icu = rc.ICU
    assert icu is not None
    assert icu.starts_with(rc._units(f":{N}:x"), "::") and not rc.ORDINAL.starts_with(f":{N}:x", "::")
    assert icu.index_of(rc._units("a#\xad#[x"), "##[") == 1
    hidden = "::warning:\xad:x"  # the end of the name found across a soft hyphen
    assert rc.parse(hidden, icu) == rc.Command("warning", {}, ":x", "::")
    assert rc.parse(hidden, rc.ORDINAL) is None
    assert rc.command(hidden) is not None


@pytest.mark.slow  # a million code points through ICU: about half a minute
@pytest.mark.skipif(rc.ICU is None, reason="ICU's libraries are not installed: apt-get install -y libicu-dev")
def test_no_other_character_collates_as_a_colon_a_hash_or_a_bracket() -> None:
    """What lets the oracle search only lines with two ``:`` (or two ``#`` and a ``[``): in ICU's
    root collation no other code point has the collation element of ``:``, ``#`` or ``[``."""
    icu = rc.ICU
    assert icu is not None
    elements = {ch: next(icu._elements(ch)) for ch in ":#["}
    found: dict[str, list[str]] = {ch: [] for ch in elements}
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        units = rc._units(chr(code))
        for element in icu._elements(units):
            for ch, wanted in elements.items():
                if element == wanted:
                    found[ch].append(chr(code))
    assert found == {ch: [ch] for ch in elements}


