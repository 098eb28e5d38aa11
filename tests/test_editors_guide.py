"""docs/guide/editors.md: every client configuration it gives starts `evidence-plan lsp`, for the
languages plan files are written in, and every file pattern in it matches exactly the names
`check DIR` finds (compiler/repo/discover.py: PLAN_FILES). Each snippet is read as its client
reads it: the VS Code settings as JSON, Helix's languages.toml with tomllib, the Lua as text (a
real Neovim runs the 0.7 one: tests/clients/test_lsp_neovim.py)."""

from __future__ import annotations

import json
import re
import tomllib

from support import docs_page

from compiler.commands import COMMANDS
from compiler.repo.discover import is_plan_file

PAGE = "guide/editors.md"
COMMAND = ["evidence-plan", "lsp"]
LANGUAGES = {"yaml", "json"}  # the editors' names of the languages of plan files: YAML (.yaml, .yml) and JSON
# Names a pattern may get wrong: case, a prefix with no dot, a hidden file, a suffix after the extension.
STEMS = ("plan", "a.plan", "x.y.plan", "..plan", ".plan", "myplan", "plan.plan", "PLAN", "a.Plan", "plan-b", "")
EXTENSIONS = ("yaml", "yml", "json", "YAML", "jsonc", "yaml~", "yaml.bak", "txt", "")
NAMES = sorted({".".join(part for part in (stem, ext) if part) for stem in STEMS for ext in EXTENSIONS} - {""})


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", docs_page(PAGE), re.S | re.M)


def lua_strings(text: str) -> list[str]:
    return re.findall(r'"([^"]*)"', text)


def vim_file_pattern(pattern: str) -> re.Pattern[str]:
    """An autocommand's file pattern without a slash, as Vim matches it against a file name's tail."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern))


def test_the_guide_has_each_clients_configuration() -> None:
    assert (len(blocks("json")), len(blocks("lua")), len(blocks("toml"))) == (1, 3, 1)


def test_every_configuration_starts_evidence_plan_lsp() -> None:
    assert "lsp" in COMMANDS
    settings = json.loads(blocks("json")[0])
    assert [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]] == COMMAND
    for lua in blocks("lua"):
        (cmd,) = re.findall(r"\bcmd = \{([^}]*)\}", lua)
        assert lua_strings(cmd) == COMMAND, lua
    helix = tomllib.loads(blocks("toml")[0])
    server = helix["language-server"]["evidence-plan"]
    assert [server["command"], *server["args"]] == COMMAND


def test_every_configuration_covers_the_languages_of_plan_files() -> None:
    assert {name.rsplit(".", 1)[1] for name in ("plan.yaml", "plan.yml", "plan.json") if is_plan_file(name)} == {
        "yaml", "yml", "json"}
    assert set(json.loads(blocks("json")[0])["glspc.server.languageId"]) == LANGUAGES
    (filetypes,) = re.findall(r"\bfiletypes = \{([^}]*)\}", blocks("lua")[0])
    assert set(lua_strings(filetypes)) == LANGUAGES
    helix = tomllib.loads(blocks("toml")[0])
    assert {language["name"] for language in helix["language"]} == LANGUAGES
    for language in helix["language"]:
        assert language["language-servers"][-1] == "evidence-plan"  # after the defaults, which it keeps
        assert len(set(language["language-servers"])) == len(language["language-servers"])


def test_every_file_pattern_matches_the_names_of_plan_files_and_no_other() -> None:
    expected = {name: is_plan_file(name) for name in NAMES}
    assert sum(expected.values()) == 15  # plan, a.plan, x.y.plan, ..plan, plan.plan: each .yaml, .yml, .json
    # Neovim 0.11: a Vim regular expression (very magic, case matched), of a buffer name's tail
    (regex,) = re.findall(r"vim\.regex\(\[\[(.*?)\]\]\)", blocks("lua")[0])
    assert regex.startswith(r"\v\C")  # the rest is Python's syntax too
    assert {name: re.search(regex[4:], name) is not None for name in NAMES} == expected
    # Neovim 0.7 to 0.10: an autocommand's file patterns
    for lua in blocks("lua")[1:]:
        (patterns,) = re.findall(r"\bpattern = \{([^}]*)\}", lua)
        compiled = [vim_file_pattern(p) for p in lua_strings(patterns)]
        assert {name: any(p.fullmatch(name) for p in compiled) for name in NAMES} == expected, lua


def test_the_names_the_guide_lists_are_plan_files() -> None:
    listed = re.search(r"A plan file is any file `check DIR` finds: (.*?)\. The server", docs_page(PAGE), re.S)
    assert listed is not None
    names = [n.replace("NAME", "x") for n in re.findall(r"`([^`]+)`", listed.group(1))]
    assert len(names) == 6 and all(is_plan_file(name) for name in names)
