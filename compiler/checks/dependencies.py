"""Rules about depends_on: unknown ids, self-dependencies, repeats, and cycles (the last one run
by compile_document, which may have the dependency graph at hand)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import TYPE_CHECKING

from compiler.checks import CheckContext, repeated
from compiler.diagnostics import Diagnostic, Note
from compiler.display import clip
from compiler.display import names as shown_names
from compiler.graph import acyclic, build_graph, find_cycles
from compiler.progress import live
from compiler.values import Item

if TYPE_CHECKING:
    import networkx as nx


def unknown_dependencies(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP301: every dependency names an item of the plan; close misspellings get a did-you-mean
    (from one bounded suggester over the plan's ids: see compiler/suggest.py)."""
    known = ctx.plan.known_ids
    suggester = None
    for item in ctx.plan.items:
        unknown = [(j, d) for j, d in enumerate(item.depends_on) if d not in known]
        if not unknown:
            continue
        if suggester is None:
            from compiler.suggest import Suggester

            suggester = Suggester(known)
        names = list(dict.fromkeys(d for _, d in unknown))
        guesses = {d: g for d in names if (g := suggester.closest(d)) is not None}
        if len(names) == 1 and guesses:
            hint = f" (did you mean {guesses[names[0]]}?)"
        elif guesses:
            hint = " (did you mean " + ", ".join(f"{g} for {d}" for d, g in guesses.items()) + "?)"
        else:
            hint = ""
        yield Diagnostic(
            "EP301",
            f"{clip(item.id)} depends on unknown items: {shown_names(names)}{hint}",
            item.id,
            ctx.loc(item, item.depends_key, unknown[0][0]),
        )


def self_dependency(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP302: an item cannot depend on itself."""
    for item in ctx.plan.items:
        for j, dep in enumerate(item.depends_on):
            if dep == item.id:
                yield Diagnostic("EP302", f"{item.id} depends on itself", item.id,
                                 ctx.loc(item, item.depends_key, j))
                break


def duplicate_dependencies(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP304 (warning): the same dependency listed twice."""
    for item in ctx.plan.items:
        for j in repeated(item.depends_on):
            yield Diagnostic("EP304", f"{item.id} lists dependency {item.depends_on[j]} twice", item.id,
                             ctx.loc(item, item.depends_key, j))


def cycles(ctx: CheckContext, graph: nx.DiGraph | None = None) -> Iterator[Diagnostic]:
    """EP303: one diagnostic per cycle (strongly connected component), with its path and a note at
    each depends_on entry on the loop, so the reader sees which edge to cut.

    Not in ``CHECKS``: ``compile_document`` runs it after the other checks, with the plan's
    ``graph`` when it has built one for the waves (networkx found a cycle while ordering them).
    Without one, a plain topological sort decides first, and only a plan with a cycle builds the
    graph: `check` of a plan without cycles never imports networkx."""
    if graph is None:
        items = live(ctx.plan.items)  # dropped items have left the graph (compiler/progress.py)
        if acyclic(items):  # the common case, decided without networkx (and its import)
            return
        graph = build_graph(items)
        found = find_cycles(graph)
        graph.clear()  # free its per-item dicts now, not at the next cyclic collection
    else:
        found = find_cycles(graph)
    first: dict[str, Item] = {}
    for item in ctx.plan.items:
        first.setdefault(item.id, item)
    for path in found:
        notes = []
        for a, b in pairwise(path):
            item = first[a]
            where = ctx.loc(item, item.depends_key, item.depends_on.index(b))
            notes.append(Note(f"{clip(a)} depends on {clip(b)}", where))
        yield Diagnostic(
            "EP303",
            f"dependency cycle among: {shown_names(sorted(set(path)))} ({shown_names(path, joiner=' -> ')})",
            path[0],
            notes[0].location,
            tuple(notes),
        )


CHECKS = [unknown_dependencies, self_dependency, duplicate_dependencies]
