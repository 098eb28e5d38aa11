"""The repository's settings (compiler/model/config.py) and the complexity tier they judge by
(compiler/analysis/complexity.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from support import run

from compiler.analysis.complexity import assess
from compiler.core.diagnostics import PlanInputError
from compiler.model import config

PLAN = """\
items:
  - {id: a, change: c, evidence: [app.py:1], proof: make test}
  - {id: b, change: c, evidence: [app.py:1], proof: make test, depends_on: [a]}
  - {id: c, change: c, evidence: [other.py], proof: make test, depends_on: [b]}
"""


@pytest.fixture
def repo(write: Callable[..., Path]) -> Path:
    write("app.py", "x = 1\n")
    write("other.py", "y = 2\n")
    (write("plan.yaml", PLAN).parent / ".git").mkdir()
    return write("plan.yaml", PLAN).parent


def error_of(text: str, *, own: bool = False) -> PlanInputError:
    with pytest.raises(PlanInputError) as err:
        config.parse(text, "pyproject.toml" if not own else ".evidence-plan.toml", own=own)
    assert err.value.diagnostic.code == "EP009"
    return err.value


# --- reading ----------------------------------------------------------------------------------


def test_no_file_and_a_pyproject_without_the_table_give_the_defaults(repo: Path) -> None:
    assert config.load(str(repo)) == config.DEFAULTS
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n')
    assert config.load(str(repo)).values == config.DEFAULTS.values


def test_a_pyproject_that_does_not_mention_the_tool_is_not_parsed(repo: Path) -> None:
    (repo / "pyproject.toml").write_text("this is [not toml\n")  # another tool's problem, not ours
    assert config.load(str(repo)) == config.DEFAULTS


def test_settings_in_pyproject_with_a_table_of_tiers(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.evidence-plan]\nstrict = true\n'
                                         '[tool.evidence-plan.tiers]\nitems = [2, 4]\nwaves = [2, 3]\n')
    settings = config.load(str(repo))
    assert settings.get("strict") is True
    assert settings.get("tiers.items") == (2, 4) and settings.get("tiers.waves") == (2, 3)
    assert settings.get("tiers.files") == (10, 30)  # the default where nothing is said
    assert settings.source == os.path.relpath(repo / "pyproject.toml")


def test_the_tools_own_file_wins_over_pyproject(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.evidence-plan]\nstrict = true\n')
    (repo / ".evidence-plan.toml").write_text('max_tier = "medium"\n')
    settings = config.load(str(repo))
    assert settings.get("max_tier") == "medium" and settings.get("strict") is False


def test_an_unknown_setting_is_located_with_a_did_you_mean() -> None:
    err = error_of('[project]\nname = "x"\n\n[tool.evidence-plan]\nmax-tier = "simple"\n')
    assert str(err) == "pyproject.toml:5:1: pyproject.toml: unknown setting 'max-tier' in [tool.evidence-plan]"
    assert err.diagnostic.hint == "did you mean max_tier?"


@pytest.mark.parametrize(("text", "where", "message"), [
    ('strict = "yes"\n', (1, 1), "strict must be true or false, not 'yes'"),
    ('max_tier = "huge"\n', (1, 1), "max_tier must be 'simple', 'medium', 'complex', not 'huge'"),
    ('[tiers]\n  items = [30, 10]\n', (2, 3), "tiers.items must be two whole numbers from 1, the first not above"),
    ("tiers.waves = [0, 3]\n", (1, 1), "tiers.waves must be two whole numbers from 1"),
    ("tiers.files = 3\n", (1, 1), "tiers.files must be two whole numbers from 1"),
])
def test_a_bad_value_is_located_at_its_key(text: str, where: tuple[int, int], message: str) -> None:
    err = error_of(text, own=True)
    location = err.diagnostic.location
    assert location is not None and (location.line, location.column) == where
    assert message in err.diagnostic.message


def test_a_key_of_another_tool_does_not_take_the_location() -> None:
    err = error_of('[tool.other]\nstrict = 1\n\n[tool.evidence-plan]\nstrict = 1\n')
    assert err.diagnostic.location is not None and err.diagnostic.location.line == 5


def test_a_settings_file_that_is_not_toml_is_located() -> None:
    err = error_of("max_tier = \n", own=True)
    assert err.diagnostic.location is not None and err.diagnostic.location.line == 1
    assert "is not valid TOML" in err.diagnostic.message


def test_values_nested_past_the_depth_limit_are_ep009_at_the_bracket_that_goes_too_deep() -> None:
    """tomllib reads arrays and inline tables by recursion: 500 deep was a RecursionError (exit 3)."""
    err = error_of("strict = " + "[" * 500 + "]" * 500 + "\n", own=True)
    assert err.diagnostic.message == (".evidence-plan.toml nests arrays or inline tables more than 100 deep: it is"
                                      " not read")
    assert err.diagnostic.location is not None
    assert (err.diagnostic.location.line, err.diagnostic.location.column) == (1, 10 + config.MAX_DEPTH)
    text = '[tool.evidence-plan]\nstrict = true\n[tool.other]\nx = ' + "{a=" * 500 + "1" + "}" * 500 + "\n"
    err = error_of(text)  # another tool's table: the file as a whole cannot be read
    assert err.diagnostic.location is not None
    assert (err.diagnostic.location.line, err.diagnostic.location.column) == (4, 5 + 3 * config.MAX_DEPTH)


def test_brackets_in_strings_and_comments_are_not_nesting_and_the_limit_itself_is_read() -> None:
    deep = "[" * config.MAX_DEPTH + "]" * config.MAX_DEPTH
    text = ('[tool.evidence-plan]\nstrict = true\n[tool.other]\n'
            f'a = "{"[" * 300}"  # {"{" * 300}\nb = \'{"[" * 300}\'\nc = """\n{"[" * 300}\\"""\n"""\n'
            f"d = \'\'\'{'[' * 300}\'\'\'\ne = {deep}\n")
    assert config.too_deep(text) is None
    assert config.parse(text, "pyproject.toml", own=False).get("strict") is True


def test_a_file_with_few_brackets_is_not_read_for_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    class Refused:
        def finditer(self, text: str) -> None:
            raise AssertionError("read for depth")

    monkeypatch.setattr(config, "_TOML_TOKEN", Refused())
    assert config.parse('[tool.evidence-plan]\nmax_tier = "medium"\n[tiers]\nitems = [3, 9]\n', "pyproject.toml",
                        own=False).source == "pyproject.toml"


@pytest.mark.slow
def test_a_table_nested_by_dotted_keys_is_named_not_written_out() -> None:
    """Dotted keys nest tables without recursion in tomllib, but writing one out (repr) recursed."""
    err = error_of("max_tier." + ".".join(["a"] * 5000) + " = 1\n", own=True)
    assert err.diagnostic.message == (".evidence-plan.toml: max_tier must be 'simple', 'medium', 'complex', not a"
                                      " table")
    assert err.diagnostic.location is not None and (err.diagnostic.location.line, err.diagnostic.location.column) == (
        1, 1)


def test_a_settings_file_nested_500_deep_makes_check_exit_2_not_3(repo: Path) -> None:
    (repo / ".evidence-plan.toml").write_text("strict = " + "[" * 500 + "]" * 500 + "\n")
    result = run("check", str(repo / "plan.yaml"))
    assert result.exit_code == 2
    assert ".evidence-plan.toml:1:110: error EP009" in result.output


def test_a_settings_file_that_leaves_the_repository_is_not_read(repo: Path, tmp_path_factory: pytest.TempPathFactory,
                                                               ) -> None:
    outside = tmp_path_factory.mktemp("outside") / "settings.toml"
    outside.write_text('max_tier = "simple"\n')
    (repo / ".evidence-plan.toml").symlink_to(outside)
    with pytest.raises(PlanInputError) as err:
        config.load(str(repo))
    assert "cannot be read" in err.value.diagnostic.message and "outside the repository" in err.value.diagnostic.message


# --- the tier ----------------------------------------------------------------------------------


def test_the_tier_is_the_highest_any_measure_reaches_and_says_which() -> None:
    settings = config.DEFAULTS
    assert assess({"items": 3, "irreversible": 0, "files": 2, "waves": 2, "widest_wave": 2}, settings).tier == "simple"
    medium = assess({"items": 12, "irreversible": 1, "files": 2, "waves": 2, "widest_wave": 2}, settings)
    assert medium.tier == "medium"
    assert medium.why == ("12 items (medium from 10)", "1 irreversible item (medium from 1)")
    complex_ = assess({"items": 12, "irreversible": 1, "files": 40, "waves": 2, "widest_wave": 2}, settings)
    assert complex_.tier == "complex" and complex_.why == ("40 distinct files (complex from 30)",)


# --- in the compiled plan and in check -------------------------------------------------------------


def test_the_compiled_plan_states_its_complexity(repo: Path) -> None:
    result = run("compile", str(repo / "plan.yaml"), "-o", str(repo / "out"))
    assert result.exit_code == 0, result.output
    document = json.loads((repo / "out" / "evidence-plan.json").read_text())
    assert document["complexity"] == {"tier": "simple", "why": [], "items": 3, "waves": 3, "widest_wave": 1,
                                      "irreversible": 0, "files": 2}
    assert "Complexity: **simple**." in (repo / "out" / "evidence-plan.md").read_text()


def test_a_plan_above_max_tier_is_a_warning_that_strict_settings_make_blocking(repo: Path) -> None:
    (repo / ".evidence-plan.toml").write_text('max_tier = "simple"\n[tiers]\nwaves = [3, 5]\n')
    result = run("check", str(repo / "plan.yaml"))
    assert result.exit_code == 0
    assert "plan.yaml:1:1: warning EP311 the plan is medium: 3 waves (medium from 3); " in result.output
    assert ".evidence-plan.toml allows simple at most" in result.output
    (repo / ".evidence-plan.toml").write_text('max_tier = "simple"\nstrict = true\n[tiers]\nwaves = [3, 5]\n')
    assert run("check", str(repo / "plan.yaml")).exit_code == 1


def test_a_bad_setting_makes_check_exit_2_with_its_location(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.evidence-plan]\nstrict = "no"\n')
    result = run("check", str(repo / "plan.yaml"))
    assert result.exit_code == 2
    assert "pyproject.toml:2:1: error EP009" in result.output


def test_without_verification_the_settings_are_not_read(repo: Path) -> None:
    (repo / ".evidence-plan.toml").write_text("not toml [\n")
    assert run("check", "--no-verify-evidence", str(repo / "plan.yaml")).exit_code == 0


def test_dropped_items_are_not_measured(repo: Path) -> None:
    (repo / "plan.yaml").write_text(PLAN + "  - {id: d, change: c, evidence: [third.py], proof: make test,"
                                    " status: dropped, reason: not needed}\n")
    (repo / "third.py").write_text("z = 3\n")
    assert run("compile", str(repo / "plan.yaml"), "-o", str(repo / "out")).exit_code == 0
    complexity = json.loads((repo / "out" / "evidence-plan.json").read_text())["complexity"]
    assert (complexity["items"], complexity["files"]) == (3, 2)


def test_max_spread_comes_from_the_settings_unless_the_option_gives_it(repo: Path) -> None:
    (repo / "plan.yaml").write_text(PLAN.replace("proof: make test}", "proof: make test, estimate: {low: 1, high: 150,"
                                                 " unit: hours, evidence: a guess}}", 1))
    assert "EP112" in run("check", str(repo / "plan.yaml")).output  # 150x: over the default 100x
    (repo / ".evidence-plan.toml").write_text("max_spread = 200\n")
    assert "EP112" not in run("check", str(repo / "plan.yaml")).output
    assert "EP112" in run("check", "--max-spread", "120", str(repo / "plan.yaml")).output
    (repo / ".evidence-plan.toml").write_text("max_spread = 0.5\n")
    result = run("check", str(repo / "plan.yaml"))
    assert result.exit_code == 2 and "max_spread must be a number of at least 1, not 0.5" in result.output
