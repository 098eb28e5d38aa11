"""The library half of `evidence-plan ci github`: a GitHub Actions workflow in which CI is the
distributed engine of `verify`. One job per wave, each needing the one before; each job a matrix
of that wave's items in chunks balanced by their durations (compiler/api/chunks.py), at most 256
jobs; each chunk's job runs ``verify PLAN ID... --receipts-from DIR`` (its items alone, their
dependencies settled by the earlier waves' receipts: compiler/api/fanout.py) and uploads its
receipts; a last job merges them (``verify --merge``: the JUnit file, the job summary) and fails
when any proof failed, when a wave's job did not succeed, or when the workflow no longer matches
the plan (``--check``). The chunks are written into the workflow, so a job run again runs the same
items. The text is made by compiler/api/workflow.py: every value quoted as it must be, no plan
text inside a script.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.api.chunks import Chunk, chunk_waves, durations
from compiler.api.receipts import RECEIPTS
from compiler.api.verify import plan_steps
from compiler.api.workflow import Commented, Expr, Flow, Script, dump
from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.core.version import __version__

if TYPE_CHECKING:
    from compiler.compile.pipeline import CompileResult
    from compiler.load.limits import Limits

WORKFLOW = ".github/workflows/evidence-plan.yml"  # the default target, under the repository's top
MAX_JOBS = 8  # per wave, by default
PYTHON = "3.12"
RUNS_ON = "ubuntu-latest"
INSTALL = f"pip install evidence-plan=={__version__}"
# The actions the workflow uses, each pinned to the commit of a release (a tag can be moved; a
# commit cannot), the release named in a comment, as Dependabot reads and updates it.
CHECKOUT = Commented("actions/checkout@11d5960a326750d5838078e36cf38b85af677262", "v4.4.0")
SETUP_PYTHON = Commented("actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065", "v5.6.0")
UPLOAD = Commented("actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2")
DOWNLOAD = Commented("actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0")
ARTIFACT = "evidence-plan-receipts-"  # + wave-W-chunk-C: one per chunk
MERGED = "evidence-plan-verify"  # the last job's artifact: the JUnit file
LAST_JOB = "receipts"


class Workflow(NamedTuple):
    """What `ci github` makes: the compiled plan, and for a ready plan the chunks and the text."""

    result: CompileResult
    plan: str  # the plan's path from the top of its work tree (what the jobs run), POSIX ("" when blocked)
    top: str  # that work tree's top: where the workflow's default target is ("" when blocked)
    chunks: list[Chunk]
    text: str | None  # None when the plan is blocked


def _refuse(name: str, why: str) -> PlanInputError:
    return PlanInputError(Diagnostic("EP001", why, location=Location(name)))


def _plan_path(plan: str, name: str) -> tuple[str, str]:
    """The plan's path from the top of the git work tree that holds it, and that top."""
    from compiler.core.paths import work_tree

    if plan == "-":
        raise _refuse(name, "a workflow runs a plan file of the repository, not standard input")
    real = os.path.abspath(plan)
    top = work_tree(os.path.dirname(real))
    if top is None:
        raise _refuse(name, "the plan is in no git work tree: the workflow checks out a repository and runs the plan"
                            " from it")
    return os.path.relpath(real, top).replace(os.sep, "/"), top


def github_workflow(plan: str, *, receipts: str | None = None, max_jobs: int = MAX_JOBS, install: str = INSTALL,
                    python: str = PYTHON, runs_on: str = RUNS_ON, root: str | None = None,
                    limits: Limits | None = None, verify_evidence: bool = True) -> Workflow:
    """The workflow of ``plan`` (see the module's docstring). ``receipts``: the receipts whose
    durations balance the chunks (default: ``evidence-plan.verify.json`` beside the plan, when it
    is there). An input error (PlanInputError, exit 2) for a plan outside any work tree, receipts
    that cannot be read, an option GitHub would read as an expression, or nothing to verify."""
    result, steps = plan_steps(plan, root=root, limits=limits, verify_evidence=verify_evidence)
    name = result.document.name
    if result.status != "ready":
        return Workflow(result=result, plan="", top="", chunks=[], text=None)
    path, top = _plan_path(plan, name)
    if not steps:
        raise _refuse(name, "nothing to verify: the plan has no item in a wave (every item is dropped)")
    given = receipts is not None
    source = receipts if receipts is not None else os.path.join(os.path.dirname(os.path.abspath(plan)), RECEIPTS)
    if given and not os.path.exists(source):
        raise _refuse(source, "cannot balance by these receipts: there is no such file")
    try:
        known = durations(source)
    except ValueError as error:
        raise _refuse(source, f"cannot balance by these receipts: {error}") from None
    chunks = chunk_waves(steps, known, max_jobs)
    for option, value in (("--install", install), ("--python", python), ("--runs-on", runs_on)):
        if not value.strip():
            raise _refuse(name, f"{option} is empty")
    if "\n" in install or "\r" in install:
        raise _refuse(name, "--install is one line of the shell (join commands with &&)")
    try:
        text = dump(_document(chunks, plan=path, install=install, python=python, runs_on=runs_on),
                    _header(path, max_jobs, given))
    except ValueError as error:  # a value GitHub would read as an expression, a script that is not one line
        raise _refuse(name, f"cannot write the workflow: {error}") from None
    return Workflow(result=result, plan=path, top=top, chunks=chunks, text=text)


def _header(plan: str, max_jobs: int, receipts: bool) -> tuple[str, ...]:
    from compiler.api.workflow import quoted

    balanced = "the receipts given" if receipts else f"{RECEIPTS} beside the plan (when there)"
    return (f"Written by `evidence-plan ci github` from the plan {quoted(plan)}.",
            f"A job per wave, each a matrix of at most {max_jobs} chunks of the wave's items, balanced by their",
            f"durations in {balanced}.",
            "Regenerate it when the plan's items or waves change: its last job fails when they no longer",
            "match (`evidence-plan ci github PLAN --check WORKFLOW`). verify runs the plan's commands:",
            "run it on pull_request, never on pull_request_target with secrets.")


def _setup(install: str, python: str) -> list[dict[str, Any]]:
    return [{"uses": CHECKOUT, "with": {"persist-credentials": False}},  # no token in .git/config for the proofs
            {"uses": SETUP_PYTHON, "with": {"python-version": python}},
            {"name": "install evidence-plan", "run": Script(install + "\n")}]


def _wave_job(wave: int, chunks: Sequence[Chunk], install: str, python: str, runs_on: str) -> dict[str, Any]:
    folder = f"wave-{wave}-chunk-"
    verify = (f'read -ra ids <<< "$IDS"  # the ids hold no white space (the id grammar)\n'
              f'evidence-plan verify "$EVIDENCE_PLAN" --format github -o "$RUNNER_TEMP/evidence-plan-receipts/'
              f'{folder}$CHUNK"')
    steps = _setup(install, python)
    if wave > 1:
        steps.append({"name": "the receipts of the earlier waves", "uses": DOWNLOAD,
                      "with": {"pattern": ARTIFACT + "*", "path": Expr("${{ runner.temp }}/evidence-plan-earlier"),
                               "merge-multiple": True}})
        verify += ' --receipts-from "$RUNNER_TEMP/evidence-plan-earlier"'
    steps += [{"name": "verify the chunk's items", "env": {"IDS": Expr("${{ join(matrix.ids, ' ') }}"),
                                                        "CHUNK": Expr("${{ matrix.chunk }}")},
               "run": Script(verify + ' -- "${ids[@]}"\n')},
              {"name": "upload the chunk's receipts", "if": Expr("always()"), "uses": UPLOAD,
               "with": {"name": Expr(f"{ARTIFACT}{folder}${{{{ matrix.chunk }}}}"),
                        "path": Expr("${{ runner.temp }}/evidence-plan-receipts/"),
                        "if-no-files-found": "ignore", "overwrite": True}}]
    include = [{"chunk": Commented(c.number, _took(c)), "ids": list(c.ids)} for c in chunks]
    job: dict[str, Any] = {"name": Expr(f"wave {wave}, chunk ${{{{ matrix.chunk }}}} of {len(chunks)}")}
    if wave > 1:
        job["needs"] = f"wave-{wave - 1}"
    job.update({"runs-on": runs_on, "strategy": {"fail-fast": False, "matrix": {"include": include}},
                "steps": steps})
    return job


def _took(chunk: Chunk) -> str:
    estimated = f", {chunk.estimated} of {len(chunk.ids)} estimated" if chunk.estimated else ""
    return f"about {chunk.seconds:.1f} seconds{estimated}"


def _last_job(waves: list[int], install: str, python: str, runs_on: str) -> dict[str, Any]:
    check = ('workflow="${GITHUB_WORKFLOW_REF#*/*/}"  # OWNER/REPOSITORY/PATH@REF -> PATH@REF\n'
             'evidence-plan ci github "$EVIDENCE_PLAN" --check "${workflow%%@refs/*}"\n')
    merge = ('evidence-plan verify --merge "$RUNNER_TEMP"/evidence-plan-receipts/*/evidence-plan.verify.json \\\n'
             '  --junit "$RUNNER_TEMP/evidence-plan.junit.xml" --summary "$GITHUB_STEP_SUMMARY"\n')
    jobs = ('for result in $RESULTS; do\n'
            '  if [ "$result" != success ]; then\n'
            '    echo "a wave\'s job ended $result: its items were not all verified (see the summary)" >&2\n'
            '    exit 1\n'
            '  fi\n'
            'done\n')
    always = Expr("always()")
    return {"name": "receipts", "if": always, "needs": Flow(f"wave-{w}" for w in waves), "runs-on": runs_on,
            "steps": [*_setup(install, python),
                      {"name": "the workflow still verifies every item of the plan in its wave",
                       "run": Script(check)},
                      {"name": "every chunk's receipts", "if": always, "uses": DOWNLOAD,
                       "with": {"pattern": ARTIFACT + "*", "path": Expr("${{ runner.temp }}/evidence-plan-receipts"),
                                "merge-multiple": True}},
                      {"name": "merge the receipts: the JUnit file, the job summary; fails when a proof failed",
                       "if": always, "run": Script(merge)},
                      {"name": "upload the JUnit file", "if": always, "uses": UPLOAD,
                       "with": {"name": MERGED, "path": Expr("${{ runner.temp }}/evidence-plan.junit.xml"),
                                "if-no-files-found": "ignore", "overwrite": True}},
                      {"name": "every wave's job succeeded", "if": always,
                       "env": {"RESULTS": Expr("${{ join(needs.*.result, ' ') }}")}, "run": Script(jobs)}]}


def _document(chunks: list[Chunk], *, plan: str, install: str, python: str, runs_on: str) -> dict[str, Any]:
    waves: dict[int, list[Chunk]] = {}
    for chunk in chunks:
        waves.setdefault(chunk.wave, []).append(chunk)
    jobs = {f"wave-{w}": _wave_job(w, waves[w], install, python, runs_on) for w in sorted(waves)}
    jobs[LAST_JOB] = _last_job(sorted(waves), install, python, runs_on)
    return {"name": "evidence-plan verify", "on": {"pull_request": {}, "workflow_dispatch": {}},
            "permissions": {"contents": "read"}, "defaults": {"run": {"shell": "bash"}},
            "env": {"EVIDENCE_PLAN": plan}, "jobs": jobs}


def check_workflow(plan: str, workflow: str, *, root: str | None = None, limits: Limits | None = None,
                   verify_evidence: bool = True) -> tuple[CompileResult, list[str]]:
    """Whether the workflow at ``workflow`` (one that `ci github` wrote) still verifies every item
    of ``plan`` in its wave, once: the problems, one line each (none: it does). Only the items
    and their waves are compared, not how they are chunked: the durations may have moved. A file
    that cannot be read, or holds no job of a wave, is an input error."""
    from compiler.load.limits import DEFAULT_LIMITS

    result, steps = plan_steps(plan, root=root, limits=limits, verify_evidence=verify_evidence)
    if result.status != "ready":
        return result, []
    placed = _placed(workflow, (limits or DEFAULT_LIMITS).max_bytes)
    problems = []
    wave_of = {step.id: step.wave for step in steps}
    for ident, waves in placed.items():
        if ident not in wave_of:
            problems.append(f"{ident} is in the job of wave {waves[0]}, and is no item of the plan in a wave")
        elif len(waves) > 1:
            problems.append(f"{ident} is in {len(waves)} chunks (waves {', '.join(map(str, waves))})")
        elif waves[0] != wave_of[ident]:
            problems.append(f"{ident} is in the job of wave {waves[0]}, and is in wave {wave_of[ident]} of the plan")
    problems += [f"{step.id} (wave {step.wave}) is in no job" for step in steps if step.id not in placed]
    return result, problems


def _placed(workflow: str, max_bytes: int) -> dict[str, list[int]]:
    """Each id of the workflow's wave jobs' matrices -> the waves of the jobs that list it. The
    file (a pull request's, in CI) is read bounded: at most ``max_bytes``, any nesting."""
    import yaml  # libyaml's reader: the file quotes every value YAML 1.1 and 1.2 could read apart

    try:
        if os.path.getsize(workflow) > max_bytes:
            raise _refuse(workflow, f"cannot read the workflow: it is larger than {max_bytes:,} bytes (--max-bytes)")
        with open(workflow, encoding="utf-8") as handle:
            document = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as error:
        raise _refuse(workflow, f"cannot read the workflow: {error}") from None
    jobs = document.get("jobs") if isinstance(document, dict) else None
    placed: dict[str, list[int]] = {}
    for key, job in (jobs.items() if isinstance(jobs, dict) else ()):
        wave = str(key).removeprefix("wave-")
        if wave == key or not (wave.isascii() and wave.isdigit()) or len(wave) > 9 or not isinstance(job, dict):
            continue
        include = _at(job, "strategy", "matrix", "include")
        for entry in include if isinstance(include, list) else ():
            ids = _at(entry, "ids")
            for ident in ids if isinstance(ids, list) else ():  # an id is text; an alias of a list is none
                if isinstance(ident, str):
                    placed.setdefault(ident, []).append(int(wave))
    if not placed:
        raise _refuse(workflow, "this is not a workflow that `evidence-plan ci github` wrote: no job of a wave lists"
                                " items")
    return placed


def _at(value: Any, *keys: str) -> Any:
    """``value[k1][k2]...``, None where a step is no mapping or has no such key."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value
