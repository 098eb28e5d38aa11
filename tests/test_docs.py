"""The documentation: a README for the first ten minutes (at most 10 KB) and docs/, Markdown that
GitHub renders as it is and that MkDocs builds into a site (mkdocs.yml). What the pages show is
held to what the commands print; their links lead somewhere, on GitHub and on the site."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import DOCS, REPO, docs_block, docs_page, precommit_snippets

README = "../README.md"
EXAMPLE = REPO / "examples" / "duplicate-email"
README_LIMIT = 10 * 1024


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compiler", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, env={"NO_COLOR": "1", "PATH": ""})


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)


def copy_of_the_example(tmp_path: Path) -> Path:
    """examples/duplicate-email in a git work tree of its own, without its plan."""
    copy = tmp_path / "repo"
    shutil.copytree(EXAMPLE, copy)
    (copy / "plan.yaml").unlink()
    (copy / ".git").mkdir()
    return copy


# --- the README ------------------------------------------------------------------------------------


def test_the_readme_is_at_most_10_kib() -> None:
    assert len((REPO / "README.md").read_bytes()) <= README_LIMIT


def test_the_readme_says_it_is_not_on_pypi_and_how_to_install_it() -> None:
    readme = docs_page(README)
    assert "**It is not on PyPI**" in readme
    assert "pip install git+https://github.com/OWNER/evidence-plan" in readme
    assert ".venv/bin/pip install .\n" in readme


def test_the_quick_start_is_the_same_in_the_readme_and_on_the_home_page() -> None:
    assert docs_block(README, "quick-start") == docs_block("index.md", "quick-start")
    first, second = docs_block(README, "quick-start").splitlines()
    assert first == "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/evidence-plan compile" \
                    " examples/duplicate-email/plan.yaml -o outputs --html"
    assert second == "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"


def test_ci_installs_the_test_and_docs_extras_and_builds_the_site_strictly() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "\n.venv/bin/pip install -e '.[test]'\n" in ci
    assert "\n.venv/bin/pip install -e '.[docs]'" in ci
    assert ".venv/bin/mkdocs build --strict " in ci


@pytest.mark.slow
def test_the_quick_start_compile_prints_what_the_readme_shows(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "duplicate-email")
    result = run("compile", "examples/duplicate-email/plan.yaml", "-o", "outputs", "--html", cwd=tmp_path)
    assert result.returncode == 0
    for page in (README, "index.md"):
        shown = re.search(r"The first prints\n\n```\n(.*?)```\n", docs_page(page), re.S)
        assert shown is not None and result.stdout + result.stderr == shown.group(1), page


@pytest.mark.slow
def test_the_blocked_example_prints_the_lines_the_readme_shows() -> None:
    result = run("check", "examples/blocked/plan.yaml")
    assert result.returncode == 1
    for page in (README, "index.md"):
        pattern = r"a blocked plan \(exit 1\)[^\n]*\n(?:[^\n]+\n)?\n```\n(.*?)\.\.\.\n```"
        shown = re.search(pattern, docs_page(page), re.S)
        assert shown is not None and result.stdout.startswith(shown.group(1)), page


def test_the_readmes_plan_is_ready_against_the_bundled_example(tmp_path: Path) -> None:
    section = docs_page(README).split("\n## A plan\n", 1)[1].split("\n## ", 1)[0]
    (plan,) = yaml_blocks(section)
    assert len(plan.splitlines()) <= 15
    repo = copy_of_the_example(tmp_path)
    (repo / "plan.yaml").write_text(plan, encoding="utf-8")
    result = run("check", "plan.yaml", cwd=repo)
    assert (result.returncode, result.stdout) == (0, "")


def test_the_readmes_precommit_snippet_is_the_guides_first() -> None:
    (snippet,) = [b for b in yaml_blocks(docs_page(README)) if b.startswith("# .pre-commit-config.yaml\n")]
    assert snippet == precommit_snippets()[0]


def test_the_snippets_init_prints_are_the_guides() -> None:
    """The pre-commit hook and the CI workflow `init` prints are the first snippet of each guide."""
    from compiler.api.init import PRE_COMMIT, ci_workflow

    assert precommit_snippets()[0] == PRE_COMMIT
    assert yaml_blocks(docs_page("guide/ci.md"))[0] == ci_workflow("plan.yaml")


# --- the first-plan guide: what it shows is what the commands print --------------------------------

GUIDE = "guide/first-plan.md"


def _session(repo: Path, block: str) -> None:
    """Each ``$ evidence-plan ...`` line of a block, run in ``repo``, prints the lines under it."""
    for command, shown in re.findall(r"^\$ evidence-plan (.*)\n((?:(?!\$ ).*\n)*)", block, re.M):
        result = run(*[w.strip('"') for w in re.findall(r'"[^"]*"|\S+', command)], cwd=repo)
        assert result.stdout + result.stderr == shown, command


def test_the_plan_init_writes_in_the_example_is_the_one_the_guide_shows_and_ready(tmp_path: Path) -> None:
    repo = copy_of_the_example(tmp_path)
    assert run("init", cwd=repo).returncode == 0
    assert (repo / "plan.yaml").read_text(encoding="utf-8") == docs_block(GUIDE, "first-plan-init")
    result = run("check", "plan.yaml", cwd=repo)
    assert (result.returncode, result.stdout) == (0, "")


def test_the_codes_page_shows_what_explain_says_of_a_mistyped_name() -> None:
    shown = re.search(r"^\$ evidence-plan (explain \S+)\n(.*?)```", docs_page("reference/codes.md"), re.M | re.S)
    assert shown is not None
    result = run(*shown.group(1).split())
    assert result.returncode == 2 and result.stderr.endswith(shown.group(2))


def test_the_guides_evidence_commands_print_what_it_shows(tmp_path: Path) -> None:
    _session(copy_of_the_example(tmp_path), docs_block(GUIDE, "first-plan-evidence"))


def test_a_proof_naming_a_test_the_plan_will_write_is_ready_as_the_guide_says(tmp_path: Path) -> None:
    repo = copy_of_the_example(tmp_path)
    (repo / "plan.yaml").write_text(docs_block(GUIDE, "first-plan-missing-test"), encoding="utf-8")
    assert "paths: [tests/test_duplicates.py]" in docs_block(GUIDE, "first-plan-missing-test")
    _session(repo, docs_block(GUIDE, "first-plan-missing-test-check"))
    # Without the paths: entry, the message the guide shows.
    plan = docs_block(GUIDE, "first-plan-missing-test").replace("    paths: [tests/test_duplicates.py]\n", "")
    (repo / "plan.yaml").write_text(plan, encoding="utf-8")
    result = run("check", "plan.yaml", cwd=repo)
    assert result.stdout.splitlines()[0] in docs_page(GUIDE)


@pytest.mark.slow
def test_the_guides_phased_plan_is_ready_and_compiles_to_the_waves_it_shows(tmp_path: Path) -> None:
    repo = copy_of_the_example(tmp_path)
    plan = docs_block(GUIDE, "first-plan-phased")
    assert plan.count("    phase: ") == plan.count("  - id: ")  # every item names its phase
    (repo / "plan.yaml").write_text(plan, encoding="utf-8")
    assert run("check", "plan.yaml", cwd=repo).returncode == 0
    _session(repo, docs_block(GUIDE, "first-plan-phased-compile"))
    page = (repo / "build" / "evidence-plan.md").read_text(encoding="utf-8")
    assert [line for line in page.splitlines() if line.startswith("## Phase")] == [
        "## Phase 1: refuse · Wave 1", "## Phase 1: refuse · Wave 2", "## Phase 1: refuse · Wave 3",
        "## Phase 2: merge · Wave 4", "## Phase 2: merge · Wave 5"]


# --- the pages and their links ---------------------------------------------------------------------


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it (and MkDocs, for the headings these pages have)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^(`{3,}).*?^\1$", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.*)$", text, re.M)}


def _links(path: Path) -> list[str]:
    text = re.sub(r"^(`{3,}).*?^\1$", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("page", [REPO / "README.md", *pages()], ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_to_a_file_and_its_heading(page: Path) -> None:
    for link in _links(page):
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.is_file(), f"{link}: no such file"
        if page.parent != REPO:  # the site holds only docs/: a page links within it
            assert path.is_relative_to(DOCS), f"{link}: outside docs/, a broken link on the site"
        if anchor:
            assert anchor in _anchors(path), f"{link}: no such heading"


def test_every_page_is_in_the_sites_navigation_or_reached_from_its_index() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))

    def listed(nav: object) -> list[str]:
        if isinstance(nav, str):
            return [nav]
        if isinstance(nav, list):
            return [page for entry in nav for page in listed(entry)]
        if isinstance(nav, dict):
            return [page for value in nav.values() for page in listed(value)]
        return []

    in_nav = set(listed(config["nav"]))
    generated = {f"codes/{p.name}" for p in (DOCS / "codes").glob("*.md")} | {
        f"commands/{p.name}" for p in (DOCS / "commands").glob("*.md")}
    assert config["not_in_nav"].split() == ["/codes/EP*.md", "/commands/*.md"]
    assert {p.relative_to(DOCS).as_posix() for p in pages()} == in_nav | generated
    assert in_nav.isdisjoint(generated)


def test_the_site_is_built_offline() -> None:
    """Nothing fetched when the site is built or read: no web fonts, only Material's local search
    (social cards and the like download), and no Mermaid diagram (Material's script would fetch
    Mermaid for one)."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["name"] == "material" and config["theme"]["font"] is False
    assert config["plugins"] == ["search"]
    assert [p.name for p in pages() if "```mermaid" in p.read_text(encoding="utf-8")] == []
    assert config["site_dir"] == "site" and "site/" in (REPO / ".gitignore").read_text(encoding="utf-8").split()


def test_every_command_has_a_row_and_a_link_to_its_page_in_the_commands_table() -> None:
    from compiler.commands import COMMANDS

    table = docs_page("reference/commands.md")
    rows = re.findall(r"^\| \[`(\w+)`\]\(\.\./commands/(\w+)\.md\) \|", table, re.M)
    assert sorted(rows) == sorted((name, name) for name in COMMANDS)


def test_every_docs_page_the_tool_names_exists() -> None:
    named = set()
    for path in (REPO / "compiler").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r"docs/(?:(?:reference|guide)/[\w.-]+|architecture|development|performance)\.md", text))
    assert "docs/reference/settings.md" in named  # EP009's hint
    assert sorted(p for p in named if not (REPO / p).is_file()) == []


def test_internals_and_timings_stay_out_of_the_user_pages() -> None:
    """Measurements go to docs/performance.md, internals to development.md and architecture.md.
    A marked block (``<!-- NAME:begin -->``) is output that a test holds to what a command prints
    or writes (verify's transcript says how long each proof took): no claim of ours."""
    timing = re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)? (?:s|ms|us)\b(?! of)|\bbest of \w+\b|2-core")
    marked = re.compile(r"^<!-- ([\w-]+):begin -->\n.*?^<!-- \1:end -->$", re.M | re.S)
    user = [p for p in pages() if p.parent.name in ("guide", "reference") or p.name == "index.md"]
    found = {p.name: timing.findall(marked.sub("", p.read_text(encoding="utf-8"))) for p in [REPO / "README.md", *user]}
    assert {name: hits for name, hits in found.items() if hits} == {}


@pytest.mark.slow
def test_the_site_builds_with_mkdocs_strict(tmp_path: Path) -> None:
    """mkdocs build --strict: a broken link, a missing anchor or a page out of the navigation fails
    (.ci/run builds it too; mkdocs comes with the docs extra: pip install -e '.[docs]')."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=REPO, capture_output=True, text=True, check=False, timeout=600,
                            env={"PATH": "", "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "codes" / "EP101" / "index.html").is_file()
    assert (tmp_path / "site" / "commands" / "check" / "index.html").is_file()
