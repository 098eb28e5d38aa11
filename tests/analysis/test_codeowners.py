"""compiler/analysis/codeowners.py: the owners of the paths an item writes, by the repository's CODEOWNERS
file as GitHub reads it (its documented example, line by line), in both artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import deep_glob, make_tree, write_plan

from compiler.analysis.codeowners import as_files, find, owners_of, parse, pattern_glob
from compiler.compile.emit import build_output
from compiler.compile.pipeline import compile_plan
from compiler.core import globs
from compiler.repo.repository import Repository

# GitHub's example CODEOWNERS (docs: "About code owners"), with what each line is said to match.
GITHUB_EXAMPLE = """\
# This is a comment.
# Each line is a file pattern followed by one or more owners.

*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
/apps/ @octocat
/apps/github @doctocat
"""


def owner(path: str, text: str = GITHUB_EXAMPLE) -> tuple[str, ...]:
    """The owners of one concrete file: the last line that matches it."""
    rules = [r for r in parse(text) if globs.witness(r.glob, globs.Glob(path, tuple(path.split("/")))) is not None]
    return rules[-1].owners if rules else ()


@pytest.mark.parametrize(("path", "owners"), [
    ("README.md", ("@global-owner1", "@global-owner2")),  # * is every file
    ("src/app.js", ("@js-owner",)),  # *.js at any depth; the inline comment is no owner
    ("main.go", ("docs@example.com",)),
    ("build/logs/today.log", ("@octocat",)),  # /build/logs/, then **/logs later wins
    ("docs/getting-started.md", ("@doctocat",)),  # docs/*, then /docs/ later wins
    ("x/docs/getting-started.md", ("@global-owner1", "@global-owner2")),  # /docs/ and docs/* are anchored
    ("x/apps/a.py", ("@octocat",)),  # apps/ at any depth
    ("scripts/deploy.sh", ("@doctocat", "@octocat")),
    ("deeply/nested/logs/x.txt", ("@octocat",)),  # **/logs is a folder at any depth
    ("apps/github/a.py", ("@doctocat",)),  # the last line gives it an owner again
])
def test_githubs_example_file_gives_the_owners_its_documentation_says(path: str, owners: tuple[str, ...]) -> None:
    assert owner(path) == owners


def test_docs_star_is_one_level_and_docs_slash_is_everything_below() -> None:
    text = "docs/* @level\n"
    assert owner("docs/a.md", text) == ("@level",) and owner("docs/build/a.md", text) == ()
    text = "docs/ @all\n"
    assert owner("docs/a.md", text) == owner("docs/build/a.md", text) == owner("x/docs/a.md", text) == ("@all",)


def test_a_line_without_owners_unowns_what_it_matches() -> None:
    text = "* @all\n/vendor/\n"
    assert owner("vendor/lib.js", text) == () and owner("src/lib.js", text) == ("@all",)


def test_negation_ranges_and_escapes_are_literal_as_on_github() -> None:
    glob = pattern_glob("!a.py")
    assert glob is not None and glob.segments == ("**", "!a.py", "**")
    assert owner("a.py", "!a.py @x\n") == () and owner("!a.py", "!a.py @x\n") == ("@x",)
    assert owner("a.py", "[ab].py @x\n") == () and owner("[ab].py", "[ab].py @x\n") == ("@x",)


def test_comments_and_blank_lines_are_skipped() -> None:
    rules = parse("# owners\n\n   \n*.py @py # a comment\n  # indented comment\n")
    assert [(r.line, r.pattern, r.owners) for r in rules] == [(4, "*.py", ("@py",))]


# --- an item's paths ----------------------------------------------------------------------------------

def _owners(tmp_path: Path, codeowners: str, path: str, files: dict[str, str] | None = None) -> list[str]:
    make_tree(tmp_path, {".github/CODEOWNERS": codeowners, **(files or {})})
    repo = Repository(tmp_path)
    rules = find(repo)
    assert rules is not None
    return [o for rule in owners_of(as_files(path, repo), rules[1]) for o in rule.owners]


def test_a_file_path_has_the_owners_of_the_last_matching_line_only(tmp_path: Path) -> None:
    assert _owners(tmp_path, "* @all\n*.py @py\n", "app/models/user.py") == ["@py"]


def test_a_folder_has_every_owner_of_what_is_below_it(tmp_path: Path) -> None:
    text = "* @all\n/app/ @app\n/app/models/ @models\n/docs/ @docs\n"
    assert _owners(tmp_path, text, "app/") == ["@app", "@models"]  # not @all: /app/ covers all of it
    assert _owners(tmp_path, text, "app/models/") == ["@models"]


def test_a_path_that_is_a_folder_in_the_repository_is_read_as_one(tmp_path: Path) -> None:
    text = "* @all\n/app/models/user.py @user\n"
    assert _owners(tmp_path, text, "app/models", {"app/models/user.py": "x\n"}) == ["@all", "@user"]


def test_a_glob_has_the_owners_of_every_line_that_may_apply(tmp_path: Path) -> None:
    text = "* @all\n*.js @js\n/src/legacy/ @legacy\n"
    assert _owners(tmp_path, text, "src/**/*.py") == ["@all", "@legacy"]  # *.js names none of its files


def test_the_first_codeowners_file_in_githubs_order_is_used(tmp_path: Path) -> None:
    make_tree(tmp_path, {"CODEOWNERS": "* @root\n", "docs/CODEOWNERS": "* @docs\n"})
    found = find(Repository(tmp_path))
    assert found is not None and found[0] == "CODEOWNERS"
    make_tree(tmp_path, {".github/CODEOWNERS": "* @github\n"})
    found = find(Repository(tmp_path))
    assert found is not None and found[0] == ".github/CODEOWNERS"


def test_a_codeowners_symlink_out_of_the_root_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make_tree(outside, {"CODEOWNERS": "* @stranger\n"})
    root = tmp_path / "repo"
    root.mkdir()
    (root / "CODEOWNERS").symlink_to(outside / "CODEOWNERS")
    assert find(Repository(root)) is None


# --- both artifacts -------------------------------------------------------------------------------------

PLAN = """\
items:
  - id: models
    change: Add the column
    evidence: [app/models/user.py]
    paths: [app/models/]
    proof: make test
  - id: docs
    change: Document it
    evidence: [app/models/user.py]
    depends_on: [models]
    paths: [docs/models.md, app/models/user.py]
    proof: make docs
  - id: plain
    change: Nothing written
    evidence: [app/models/user.py]
    proof: make
"""


def test_compile_lists_each_items_owners_in_the_json_and_the_markdown(tmp_path: Path) -> None:
    make_tree(tmp_path, {".github/CODEOWNERS": "* @org/all\n/app/ @org/backend\n/docs/ @org/docs\n",
                         "app/models/user.py": "class User: ...\n", ".git/HEAD": "ref: x\n"})
    result = compile_plan(str(write_plan(tmp_path, PLAN)))
    document = build_output(result, tmp_path)
    assert [item.get("owners") for item in document["items"]] == [["@org/backend"], ["@org/docs", "@org/backend"],
                                                                   None]
    from compiler.render.markdown import render_markdown

    page = render_markdown(json.loads(json.dumps(document)))
    assert "- **Owners:** `@org/docs`, `@org/backend`" in page and page.count("**Owners:**") == 2


def test_no_codeowners_file_no_owners_key(tmp_path: Path) -> None:
    make_tree(tmp_path, {"app/models/user.py": "class User: ...\n", ".git/HEAD": "ref: x\n"})
    document = build_output(compile_plan(str(write_plan(tmp_path, PLAN))), tmp_path)
    assert all("owners" not in item for item in document["items"])


@pytest.mark.parametrize(("pattern", "segments"), [
    ("/docs/", ("docs", "**")),  # anchored folder
    ("docs/*", ("docs", "*")),  # anchored (a slash in the middle), one level
    ("docs/", ("**", "docs", "**")),  # a folder at any depth
    ("*.js", ("**", "*.js")),  # a name at any depth
    ("**/logs", ("**", "logs", "**")),
    ("/build/logs/", ("build", "logs", "**")),
    ("a**b", ("**", "a*b")),  # ** inside a name is *
    ("/", None),
])
def test_patterns_read_as_gitignore_reads_them(pattern: str, segments: tuple[str, ...] | None) -> None:
    glob = pattern_glob(pattern)
    assert (glob.segments if glob is not None else None) == segments


# --- bounded work ---------------------------------------------------------------------------------------

def test_a_path_meets_only_the_lines_whose_literal_folders_can_match_it() -> None:
    """Lines in buckets by their leading literal segments: a path meets the lines whose literal
    part is a prefix of its own (* at any depth has none) or extends it, never /docs/."""
    from compiler.analysis.codeowners import Index

    index = Index(parse("* @all\n/app/ @app\n/app/models/ @data\n/docs/ @docs\n*.md @md\n/app/models/user.py @u\n"
                        "/apps/ @other\n"))
    assert list(index.candidates(globs.parse("app/models/"))) == [5, 4, 2, 1, 0]
    assert list(index.candidates(globs.parse("app/"))) == [5, 4, 2, 1, 0]
    assert list(index.candidates(globs.parse("docs/**/*.md"))) == [4, 3, 0]
    assert list(index.candidates(globs.parse("**/*.md"))) == [6, 5, 4, 3, 2, 1, 0]  # no literal part: every line


def test_the_lines_a_path_meets_are_steps_too() -> None:
    """A path without a literal folder meets every bucket of lines: each is a step of the plan's,
    so a plan of many such paths and a CODEOWNERS of many folders cannot cost paths x lines."""
    from compiler.analysis.codeowners import Index, Search

    index = Index(parse("".join(f"/dir{k}/ @team{k}\n" for k in range(1_000))))
    search = Search(1_500)
    assert len(list(index.candidates(globs.parse("**/*.md"), search))) == 1_000
    assert search.left == 500
    with pytest.raises(globs.Undecided):
        index.candidates(globs.parse("**/*.py"), search)
    assert search.left == 0


SLOW_PLAN = f"""\
items:
  - id: slow
    change: Write the slow files
    evidence: [app/models/user.py]
    paths: ['{deep_glob("ijk", first=False)}']
    proof: make test
  - id: plain
    change: Write the model
    evidence: [app/models/user.py]
    paths: [app/x.py]
    proof: make test
"""


def test_owners_that_cannot_all_be_decided_are_marked_incomplete_in_the_json_and_the_markdown(
        tmp_path: Path) -> None:
    """A line of CODEOWNERS that one pair's steps cannot decide against an item's path: the lines
    after it are listed, the item's owners are marked incomplete; the other items are not."""
    codeowners = f"* @all\n/app/ @app\n/{deep_glob('abc', first=True)} @slow\n*.md @docs\n"
    make_tree(tmp_path, {".github/CODEOWNERS": codeowners,
                         "app/models/user.py": "class User: ...\n", ".git/HEAD": "ref: x\n"})
    result = compile_plan(str(write_plan(tmp_path, SLOW_PLAN)))
    document = build_output(result, tmp_path)
    assert [(item["id"], item.get("owners"), item.get("owners_incomplete")) for item in document["items"]] == [
        ("slow", ["@docs"], True), ("plain", ["@app"], None)]
    from compiler.render.html import render_html
    from compiler.render.markdown import render_markdown

    page = render_markdown(json.loads(json.dumps(document)))
    assert ("- **Owners:** `@docs` _(incomplete: not every CODEOWNERS line could be decided for these paths)_"
            in page)
    assert "- **Owners:** `@app`\n" in page
    html = render_html(json.loads(json.dumps(document)))
    assert "<dd><code>@docs</code> <i>(incomplete: not every CODEOWNERS line could be decided" in html


def test_the_owners_of_a_plan_take_at_most_its_steps_then_are_incomplete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_tree(tmp_path, {".github/CODEOWNERS": "* @org/all\n/app/ @org/backend\n/docs/ @org/docs\n*.md @org/md\n",
                         "app/models/user.py": "class User: ...\n", ".git/HEAD": "ref: x\n"})
    # models (app/models/) takes 13 steps; docs takes 10 for docs/models.md, and would take 25 for
    # app/models/user.py: *.md is ruled out from the name (5), /app/ is left undecided.
    monkeypatch.setattr(globs, "MAX_SEARCH", 30)
    document = build_output(compile_plan(str(write_plan(tmp_path, PLAN))), tmp_path)
    assert [(item.get("owners"), item.get("owners_incomplete")) for item in document["items"]] == [
        (["@org/backend", "@org/md"], None), (["@org/md"], True), (None, None)]
    monkeypatch.setattr(globs, "MAX_SEARCH", 48)  # enough for all
    document = build_output(compile_plan(str(write_plan(tmp_path, PLAN))), tmp_path)
    assert [(item.get("owners"), item.get("owners_incomplete")) for item in document["items"]] == [
        (["@org/backend", "@org/md"], None), (["@org/md", "@org/backend"], None), (None, None)]


@pytest.mark.hostile
def test_the_worst_22kb_codeowners_costs_at_most_the_steps_of_a_plan(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """86 lines, each a name pattern of 253 characters, against a path that is one too: every
    line is decided, and deep (some 28,000 steps). 11-17 s of CPU before the bound."""
    import string

    chars = string.ascii_letters + string.digits
    lines = [f"*{((chars[n % 62] + chars[n // 62]) + '?*') * 84}"[:253] + f" @o{n}" for n in range(86)]
    make_tree(tmp_path, {".github/CODEOWNERS": "\n".join(lines) + "\n", "a.py": "x = 1\n", ".git/HEAD": "ref: x\n"})
    assert len("\n".join(lines)) > 21_000
    plan = write_plan(tmp_path, f"items:\n  - {{id: one, change: c, evidence: [a.py], proof: p,"
                                f" paths: ['*{'?é*' * 84}']}}\n")
    spent = []
    spend = globs.Steps.spend

    def counted(self: globs.Steps, n: int) -> None:
        spent.append(n)
        spend(self, n)

    monkeypatch.setattr(globs.Steps, "spend", counted)
    result = compile_plan(str(plan))
    assert result.owners_incomplete == frozenset({0})
    assert 0 < len(result.owners[0]) < 86
    assert sum(spent) <= globs.MAX_SEARCH + globs.MAX_STEPS + 1


def test_a_plan_without_paths_neither_reads_codeowners_nor_searches(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.analysis import codeowners

    def refused(*args: object) -> None:
        raise AssertionError("not for a plan without paths")

    make_tree(tmp_path, {".github/CODEOWNERS": "* @all\n", "app/models/user.py": "class User: ...\n",
                         ".git/HEAD": "ref: x\n"})
    monkeypatch.setattr(codeowners, "find", refused)
    monkeypatch.setattr(globs.Steps, "__init__", refused)
    monkeypatch.setattr(globs, "_segment_witness", refused)
    plan = "\n".join(line for line in PLAN.splitlines() if "paths:" not in line) + "\n"
    result = compile_plan(str(write_plan(tmp_path, plan)))
    assert result.status == "ready" and result.owners == {} and result.owners_incomplete == frozenset()
