"""What every rule is given: the plan, its document (for locations), the repository (None when
evidence is not verified) and the options that change a rule; and the helpers rules share."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location
from compiler.model.fields import MAX_SPREAD

if TYPE_CHECKING:
    from compiler.load.document import Document
    from compiler.model.values import Item, Plan
    from compiler.repo.history import History
    from compiler.repo.repository import Repository


class CheckContext(NamedTuple):
    plan: Plan
    doc: Document
    repo: Repository | None = None  # None: evidence is not verified against the repository
    # Said with every missing file when the root was only a guess (standard input, no repository).
    root_hint: str | None = None
    max_spread: float = MAX_SPREAD  # the estimates' spread limit (EP112), or --max-spread
    # The revision phase's facts (compile only, with the previous evidence-plan.json): this
    # compile's revision, and the latest blocked revision whose items these repeat.
    revision: int | None = None
    repeats: int | None = None
    # The graph phase's dependency graph (networkx), when ordering the waves built one.
    graph: Any = None
    # The cited files as the plan's commit has them (compiler/repo/history.py), for a fix that
    # carries a moved range exactly: made on the first call (git runs only then), None when the
    # plan has no history to use (standard input, or a text that is not the committed file's).
    history: Callable[[], History | None] | None = None

    def loc(self, item: Item, *rest: Any, key: bool = False) -> Location:
        if item.evidence_at and len(rest) > 1 and rest[0] == "evidence":
            rest = ("evidence", item.evidence_index(rest[1]), *rest[2:])
        return self.at(item.position, *rest, key=key)

    def at(self, index: int, *rest: Any, key: bool = False) -> Location:
        """Where the item at ``index`` in the plan's list (valid or not), or a part of it, is."""
        path = (*self.plan.items_path, index, *rest)
        smap = self.doc.source_map
        pos = smap.key(path) if key else smap.value(path)
        return Location(self.doc.name, *pos) if pos else Location(self.doc.name)

    def path(self, item: Item, *rest: Any) -> tuple[Any, ...]:
        """The path in the document of the item, or of a part of it (an evidence entry by its
        index among the item's evidence): what a fix changes."""
        if item.evidence_at and len(rest) > 1 and rest[0] == "evidence":
            rest = ("evidence", item.evidence_index(rest[1]), *rest[2:])
        return (*self.plan.items_path, item.position, *rest)

    def raw(self, path: tuple[Any, ...]) -> Any:
        """The parsed value at ``path`` (as the file gives it), or None."""
        data = self.doc.data
        for part in path:
            try:
                data = data[part]
            except (KeyError, IndexError, TypeError):
                return None
        return data


Check = Callable[[CheckContext], Iterable[Diagnostic]]

# When a rule runs (compiler/compile/pipeline.py runs the phases, compiler/checks/registry.py
# lists the rules): "plan", over the plan alone, always; "repository", against the repository's
# files, when evidence is verified; "graph", over the dependency graph, once the plan is ordered or
# known not to be; "revision", against the previous compile's revisions (compile only).
Phase = Literal["plan", "repository", "graph", "revision"]
PHASES: tuple[Phase, ...] = ("plan", "repository", "graph", "revision")


class Rule(NamedTuple):
    """A check, the codes it emits (each code has exactly one owner: a rule, or the stage that
    compiler/core/codes.py names), and the phase it runs in. Its docstring is the rule's
    documentation (the first paragraph of each of its codes' pages)."""

    check: Check
    codes: tuple[str, ...]
    phase: Phase = "plan"


def repeated(values: Iterable[Hashable]) -> Iterator[int]:
    """Indexes of the entries that repeat an earlier one (EP105 and EP304 report them, and fix
    removes them)."""
    seen: set[Hashable] = set()
    for index, value in enumerate(values):
        if value in seen:
            yield index
        seen.add(value)
