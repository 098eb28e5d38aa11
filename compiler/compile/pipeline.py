"""The pipeline in one call: load -> model -> checks (evidence too) -> graph. No printing, no exiting."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.core.codes import REASONS, Severity
from compiler.core.diagnostics import Diagnostic, Location, PlanInputError, sort_diagnostics
from compiler.core.display import clip
from compiler.core.paths import inside, work_tree
from compiler.load.document import Document, load
from compiler.load.errors import with_excerpt
from compiler.load.limits import DEFAULT_LIMITS, Limits
from compiler.load.read import STDIN
from compiler.model.config import DEFAULTS, TIERS, Settings
from compiler.model.fields import MAX_SPREAD
from compiler.model.validate import build_plan
from compiler.model.values import Plan

if TYPE_CHECKING:
    from collections.abc import Callable

    from compiler.analysis.complexity import Complexity
    from compiler.analysis.forecast import Deadline
    from compiler.checks.context import CheckContext
    from compiler.compile.history import Revision
    from compiler.repo.history import History


class CompileResult:
    """What compiling a plan gives: the document, the validated plan, every diagnostic, and, for a
    plan that was ordered, its waves and what was found on the way. Built by keyword, read-only by
    convention. A plain class, not a dataclass: making the dataclass (and importing dataclasses)
    cost about 2 ms at every start of `check`, for a record built in one place."""

    __slots__ = (
        "complexity",
        "critical_path",
        "diagnostics",
        "document",
        "evidence_verified",
        "forecast",
        "max_spread",
        "owners",
        "owners_incomplete",
        "path",
        "plan",
        "resolved",
        "revision",
        "root",
        "schedule",
        "settings",
        "waves",
    )

    def __init__(self, *, path: str, document: Document, plan: Plan, diagnostics: tuple[Diagnostic, ...],
                 waves: tuple[tuple[str, ...], ...], critical_path: tuple[str, ...], root: str = ".",
                 evidence_verified: bool = False, resolved: dict[tuple[int, int], tuple[int, int, str]] | None = None,
                 settings: Settings = DEFAULTS, complexity: Complexity | None = None, max_spread: float = MAX_SPREAD,
                 schedule: dict[str, Any] | None = None, forecast: dict[str, Any] | None = None,
                 owners: dict[int, tuple[str, ...]] | None = None, revision: Revision | None = None,
                 owners_incomplete: frozenset[int] = frozenset()) -> None:
        self.path = path  # the plan path as given ("-" for standard input)
        self.document = document
        self.plan = plan
        self.diagnostics = diagnostics  # sorted by file, line, column, code
        self.waves = waves  # empty when blocked
        self.critical_path = critical_path  # empty when blocked
        self.root = root  # the repository root that evidence is resolved against (absolute)
        self.evidence_verified = evidence_verified
        # (item position, evidence index) -> the lines the entry covers and their pin (compiler/core/pins.py),
        # where evidence was verified and the plan was ordered (`check` writes no JSON that needs them)
        self.resolved: dict[tuple[int, int], tuple[int, int, str]] = {} if resolved is None else resolved
        self.settings = settings  # the repository's (compiler/model/config.py)
        self.complexity = complexity  # its tier and why (compiler/analysis/complexity.py)
        self.max_spread = max_spread  # the estimates' spread limit the checks used (EP112)
        # The critical path by median estimate (compiler/analysis/forecast.py), when the plan is ready and gives one
        self.schedule = schedule
        # The seeded Monte Carlo forecast of the same plan (compiler/analysis/forecast.py: monte_carlo)
        self.forecast = forecast
        # item position -> the CODEOWNERS owners of its paths (compiler/analysis/codeowners.py), where the
        # repository was read, the plan was ordered and it has a CODEOWNERS file
        self.owners: dict[int, tuple[str, ...]] = {} if owners is None else owners
        # Its place among the revisions compiled to the output folder (compiler/compile/history.py), when
        # compiled with ``previous``
        self.revision = revision
        # the positions of the items whose owners could not all be decided within the bound on work
        # (compiler/analysis/codeowners.py): what ``owners`` lists for them may miss some
        self.owners_incomplete = owners_incomplete

    @property
    def status(self) -> str:
        return "blocked" if self.count("error") else "ready"

    def reason(self) -> str | None:
        """The plan-execute loop's word for why the plan is blocked (``no_plan``, ``step_budget``,
        ``replan_budget``: compiler/core/codes.py), the first that applies; None for any other cause."""
        found = {d.code for d in self.diagnostics}
        return next((c.reason for c in REASONS if c.code in found), None)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)

    def wave_of(self) -> dict[str, int]:
        return {ident: n for n, wave in enumerate(self.waves, 1) for ident in wave}

    def for_output(self) -> CompileResult:
        """The same result without what only the compile itself needed: the parsed values (kept
        for `fix`), the source map and the text. Emitting and rendering need the items, the
        diagnostics and the file's name; for a large plan, what is dropped is the largest part
        of its memory (a dict or list per parsed node)."""
        from compiler.load.sourcemap import SourceMap

        document = self.document._replace(data=None, source_map=SourceMap({}, {}), text="")
        return CompileResult(**{name: getattr(self, name) for name in self.__slots__ if name != "document"},
                             document=document)


def plan_folder(path: str) -> str:
    """The folder a plan's relative paths start from (the working folder for stdin)."""
    return os.path.abspath("." if path == STDIN else os.path.dirname(os.path.abspath(path)))


class Root(NamedTuple):
    """The repository root evidence is resolved against, and how it was found."""

    path: str  # absolute
    # Why the plan's own root: was refused (it leaves the work tree that holds the plan): the
    # plan is then checked without its evidence, and blocked.
    refused: str | None = None


def find_root(path: str, plan_root: str | None, root: str | None, where: Location) -> Root:
    """The repository root: ``root`` (--root: the user's choice, relative to the working
    folder); else the plan's ``root:`` (relative to the plan file), which may not leave the git
    work tree that holds the plan, or the plan's folder when there is none; else that work tree;
    else the plan's folder. A root that is not a folder is an input error (EP006)."""
    folder = plan_folder(path)
    tree = None if root is not None else work_tree(folder)
    refused = None
    if "\x00" in (root or "") + (plan_root or ""):  # no file system call takes a NUL
        given = root if root is not None else plan_root
        raise PlanInputError(Diagnostic("EP006", f"the repository root {clip(str(given))} holds a NUL character",
                                        location=where, hint="fix --root or the plan's root: key"))
    if root is not None:
        chosen = os.path.abspath(root)
    elif plan_root is not None:
        chosen = os.path.abspath(os.path.join(folder, plan_root))
        # A plan may come from anyone (a pull request, an agent): its root: must not make the
        # compiler read, or answer questions about, files outside the repository. Judged on
        # real paths, so that a symlinked folder cannot lead out either.
        boundary = tree if tree is not None else folder
        if not inside(os.path.realpath(chosen), os.path.realpath(boundary)):
            refused = f"the plan's root {clip(plan_root)} leads outside the repository that holds the plan"
    else:
        chosen = tree if tree is not None else folder
    if refused is None and not os.path.isdir(chosen):
        given = root if root is not None else plan_root
        raise PlanInputError(Diagnostic("EP006", f"the repository root {clip(str(given))} is not a folder",
                                        location=where, hint="fix --root or the plan's root: key"))
    return Root(chosen, refused)


def compile_document(doc: Document, path: str, *, root: str | None = None,
                     verify_evidence: bool = True, order: bool = True,
                     max_spread: float | None = None, deadline: Deadline | None = None,
                     previous: str | None = None, limits: Limits = DEFAULT_LIMITS,
                     fixes: bool = False, history: bool = True) -> CompileResult:
    """Validate, check (against the repository unless ``verify_evidence`` is off) and, when
    ``order`` (the default; `check` has no use for it), group a ready plan into waves.
    ``max_spread`` (EP112) is the caller's (an option), else the repository's setting.
    ``previous``: the path of the evidence-plan.json this compile replaces (it need not exist):
    the result's ``revision`` is counted from it, and the revision budget checked (EP403, EP404).
    With ``fixes``, each diagnostic's fix gets its text edits (compiler/load/spans.py), what `check
    --format json`, SARIF and `fix` show or apply: the text is read once more for them, which
    nothing else needs (without, a fix has only its changes, and no report shows it). With
    ``history`` too, a fix may carry a moved range through the plan's commit (git runs then,
    compiler/repo/history.py), when the plan's file is what that commit has and what ``doc`` was
    read from."""
    from compiler.checks import registry
    from compiler.checks.context import CheckContext

    plan = build_plan(doc)
    revision = None
    if previous is not None:
        from compiler.compile.history import read_previous, revise

        revision = revise(plan, read_previous(previous, limits, plan),  # the previous plan is dropped here
                          None if path == STDIN else path)

    def at_root_key() -> Location:
        # Asked only on a problem: a YAML plan's positions are read on the first question, and
        # a plan that compiles asks none.
        pos = doc.source_map.value(("root",)) if root is None and plan.root is not None else None
        return Location(doc.name, *pos) if pos is not None else Location(doc.name)

    try:
        chosen = find_root(path, plan.root, root, Location(doc.name))
    except PlanInputError as err:
        where = at_root_key()
        if where.line is None:
            raise
        raise with_excerpt(PlanInputError(err.diagnostic._replace(location=where)), doc.text) from None
    first: list[Diagnostic] = list(plan.diagnostics)
    if chosen.refused is not None and verify_evidence:  # without verification, the root is never read
        first.append(Diagnostic("EP208", f"{chosen.refused}: its evidence was not checked", location=at_root_key(),
                                hint="a plan's root: stays inside the git work tree that holds the plan (or its"
                                     " folder, outside git); to check against another folder, give --root"))
        verify_evidence = False
    repo_root = chosen.path
    settings = DEFAULTS
    # The settings are the repository's: read with it (never for a refused root, nor with
    # --no-verify-evidence, which reads nothing of the repository).
    if chosen.refused is None and verify_evidence:
        from compiler.model.config import load as load_settings

        settings = load_settings(repo_root)
        # A policy on complexity needs the waves, which only ordering finds: check orders too.
        order = order or settings.get("max_tier") != TIERS[-1]
    if max_spread is None:
        max_spread = settings.get("max_spread")
    repo = None
    if verify_evidence:
        from compiler.repo.repository import Repository

        repo = Repository(repo_root)
    guessed = repo is not None and path == STDIN and root is None and plan.root is None and work_tree(repo_root) is None
    ctx = CheckContext(plan, doc, repo, root_hint=(
        f"standard input is in no repository: evidence was looked for under the working folder"
        f" ({clip(repo_root)}); give --root" if guessed else None), max_spread=max_spread,
        revision=revision.number if revision is not None else None,
        repeats=revision.repeats if revision is not None else None,
        history=_history(path, doc.text, repo_root) if fixes and history and path != STDIN else None)
    resolved: dict[tuple[int, int], tuple[int, int, str]] = {}
    owners: dict[int, tuple[str, ...]] = {}
    owners_incomplete: frozenset[int] = frozenset()
    try:
        diagnostics = [*first, *registry.run(ctx, "plan")]
        if repo is not None:
            diagnostics.extend(registry.run(ctx, "repository"))
        if revision is not None:
            diagnostics.extend(registry.run(ctx, "revision"))
        if repo is not None and order:
            from compiler.analysis.codeowners import item_owners
            from compiler.checks.evidence import resolve

            resolved = resolve(plan.items, repo)
            owners, owners_incomplete = item_owners(plan.items, repo)
    finally:
        if repo is not None:
            repo.close()
    ordered: tuple[tuple[str, ...], ...] = ()
    longest: tuple[str, ...] = ()
    planned = forecast = None
    if order and not any(d.severity == "error" for d in diagnostics):
        ordered, longest = _order(ctx, diagnostics)
        if ordered and plan.gives("estimate"):
            from compiler.analysis.forecast import monte_carlo, schedule

            planned = schedule(plan.items, ordered)
            forecast = monte_carlo(plan.items, ordered, deadline=deadline)
    else:  # `check`, or a plan blocked already: its cycles are found without ordering it
        diagnostics.extend(registry.run(ctx, "graph"))
    # The tier is for the compiled JSON and for a repository's policy on it (EP311), which makes
    # check order too: a check without one has no use for it.
    complexity = None
    if order:
        from compiler.analysis.complexity import above_max_tier, assess, measure

        complexity = assess(measure(plan.items, ordered), settings)
        if (warning := above_max_tier(complexity, settings)) is not None:
            pos = doc.source_map.key(plan.items_path) if plan.items_path else doc.source_map.value(())
            diagnostics.append(warning._replace(location=Location(doc.name, *pos) if pos else Location(doc.name)))
    ordered_diagnostics = sort_diagnostics(diagnostics)
    if fixes and any(d.fix is not None for d in ordered_diagnostics):
        from compiler.load.spans import with_edits

        ordered_diagnostics = with_edits(doc.text, doc.format, doc.name, ordered_diagnostics)
    return CompileResult(path=path, document=doc, plan=plan, diagnostics=ordered_diagnostics,
                         waves=ordered, critical_path=longest, root=repo_root, evidence_verified=verify_evidence,
                         resolved=resolved, settings=settings, complexity=complexity, max_spread=max_spread,
                         schedule=planned, forecast=forecast, owners=owners, revision=revision,
                         owners_incomplete=owners_incomplete)


def _history(path: str, text: str, root: str) -> Callable[[], History | None]:
    """The plan's history for its fixes, found on the first call and kept: the cited files as the
    plan's commit has them, when the file at ``path`` is what that commit has and reads as
    ``text`` (a plan edited since, or a text `fix` made, has none)."""
    import functools

    @functools.cache
    def find() -> History | None:
        from compiler.load.read import decode
        from compiler.repo.history import History, plan_commit

        try:
            with open(path, "rb") as handle:
                raw = handle.read()
            if decode(raw, path) != text:
                return None
        except (OSError, PlanInputError):
            return None
        commit = plan_commit(path, raw)
        return History(lambda: commit, root) if commit is not None else None

    return find


def _order(ctx: CheckContext, diagnostics: list[Diagnostic]) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """The waves and critical path of a plan that is ready so far, or ``((), ())`` with its
    cycles added to ``diagnostics``. One networkx graph serves both: ordering the waves is what
    finds a cycle, so no separate cycle check runs first."""
    from networkx import NetworkXUnfeasible

    from compiler.analysis.graph import build_graph, critical_path, waves
    from compiler.analysis.progress import live
    from compiler.checks import registry

    graph = build_graph(live(ctx.plan.items))  # dropped items leave the graph
    try:
        generations = waves(graph)
    except NetworkXUnfeasible:
        diagnostics.extend(registry.run(ctx._replace(graph=graph), "graph"))
        generations = []
    ordered = tuple(map(tuple, generations))
    longest = tuple(critical_path(graph, generations))
    # A DiGraph refers to itself (through its views): left alone, its two dicts per item wait
    # for the cyclic collector; clearing it frees them now.
    graph.clear()
    return ordered, longest


def compile_plan(path: str, *, root: str | None = None, verify_evidence: bool = True,
                 stdin: Any = None, limits: Limits = DEFAULT_LIMITS, order: bool = True,
                 max_spread: float | None = None, deadline: Deadline | None = None,
                 previous: str | None = None, fixes: bool = False) -> CompileResult:
    """Compile the plan file at ``path`` (``-`` reads ``stdin``, default sys.stdin); ``previous``
    and ``fixes`` as for ``compile_document``.

    Evidence is checked against the repository root (see ``find_root``) unless
    ``verify_evidence`` is False. Raises ``compiler.core.diagnostics.PlanInputError`` when the file
    cannot be read, is not a plan, or passes one of the ``limits``.
    """
    doc = load(path, stdin=stdin, limits=limits)
    return compile_document(doc, path, root=root, verify_evidence=verify_evidence, order=order,
                            max_spread=max_spread, deadline=deadline, previous=previous, limits=limits, fixes=fixes)
