"""compiler/codeowners.py: the owners of the paths an item writes, by the repository's CODEOWNERS
file as GitHub reads it (its documented example, line by line), in both artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import make_tree, write_plan

from compiler import globs
from compiler.codeowners import as_files, find, owners_of, parse, pattern_glob
from compiler.compile import compile_plan
from compiler.emit import build_output
from compiler.repository import Repository

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
    from compiler.markdown import render_markdown

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
