"""Rules about depends_on: unknown ids, self-dependencies, repeats, redundant ones, and cycles (the last one run
by compile_document, which may have the dependency graph at hand)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, compress, pairwise, repeat
from operator import attrgetter, contains, ge
from typing import TYPE_CHECKING, NamedTuple

from compiler.analysis.graph import acyclic, build_graph, find_cycles
from compiler.analysis.progress import live
from compiler.checks.context import CheckContext, Rule, repeated
from compiler.core.diagnostics import Diagnostic, Fix, Note
from compiler.core.display import clip
from compiler.core.display import names as shown_names
from compiler.model.values import Item

if TYPE_CHECKING:
    pass


# The quick looks over every item at once: C functions mapped over the items, no Python step per item.
_DEPENDS_ON, _ID = attrgetter("depends_on"), attrgetter("id")


def unknown_dependencies(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP301: every dependency names an item of the plan; close misspellings get a did-you-mean
    (from one bounded suggester over the plan's ids: see compiler/core/suggest.py)."""
    known = ctx.plan.known_ids
    items = ctx.plan.items
    if known.issuperset(chain.from_iterable(map(_DEPENDS_ON, items))):
        return  # every dependency known (the commonest plan), found without a Python step per item
    suggester = None
    for item in items:
        unknown = [(j, d) for j, d in enumerate(item.depends_on) if d not in known]
        if not unknown:
            continue
        if suggester is None:
            from compiler.core.suggest import Suggester

            suggester = Suggester(known)
        names = list(dict.fromkeys(d for _, d in unknown))
        guesses = {d: g for d in names if (g := suggester.closest(d)) is not None}
        if len(names) == 1 and guesses:
            hint = f" (did you mean {guesses[names[0]]}?)"
        elif guesses:
            hint = " (did you mean " + ", ".join(f"{g} for {d}" for d, g in guesses.items()) + "?)"
        else:
            hint = ""
        changes = tuple((ctx.path(item, item.depends_key, j), guesses[d]) for j, d in unknown if d in guesses)
        fix = Fix(message=f"{clip(item.id)}: depends on " + ", ".join(
            f"{clip(guesses[d])}, not {clip(d)}" for d in names if d in guesses) + " (the closest ids: a guess)",
            applicability="unsafe", changes=changes) if changes else None
        yield Diagnostic(
            "EP301",
            f"{clip(item.id)} depends on unknown items: {shown_names(names)}{hint}",
            item=item.id,
            location=ctx.loc(item, item.depends_key, unknown[0][0]),
            fix=fix,
        )


def self_dependency(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP302: an item cannot depend on itself."""
    items = ctx.plan.items
    if not any(map(contains, map(_DEPENDS_ON, items), map(_ID, items))):
        return  # no item lists itself, found without a Python step per item
    for item in items:
        for j, dep in enumerate(item.depends_on):
            if dep == item.id:
                yield Diagnostic("EP302", f"{item.id} depends on itself", item=item.id,
                                 location=ctx.loc(item, item.depends_key, j))
                break


def duplicate_dependencies(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP304 (warning): the same dependency listed twice."""
    lists = list(map(_DEPENDS_ON, ctx.plan.items))
    longer = list(compress(lists, map(ge, map(len, lists), repeat(2))))
    if list(map(len, longer)) == list(map(len, map(frozenset, longer))):
        return  # no list of two or more repeats a dependency, found without a Python step per item
    from compiler.core.edits import REMOVE  # here: a plan that repeats nothing needs none

    for item in ctx.plan.items:
        for j in repeated(item.depends_on):
            yield Diagnostic("EP304", f"{item.id} lists dependency {item.depends_on[j]} twice", item=item.id,
                             location=ctx.loc(item, item.depends_key, j),
                             fix=Fix(message=f"{clip(item.id)}: removed repeated dependency {clip(item.depends_on[j])}",
                                     applicability="safe", changes=((ctx.path(item, item.depends_key, j), REMOVE),)))


class Redundant(NamedTuple):
    """A dependency already implied through another: ``item`` depends on ``dep`` (at index ``at``
    of its depends_on) and on ``via``, which depends on ``dep``, directly or not."""

    item: Item
    at: int
    dep: str
    via: str
    direct: bool  # via depends on dep itself


def _waves(items: tuple[Item, ...]) -> tuple[dict[str, int], list[str], bool] | None:
    """Each item's wave, a topological order, and whether some item has dependencies in different
    waves (only then can one be implied through another); None when there is a cycle (EP303's).
    A plan written in order (each item after its dependencies, the common case) is ordered as
    written, in one pass, which also tells ``mixed`` (the EP306 pass's cost on a layered plan);
    any other by compiler/analysis/graph.py's plain_waves. Only the first item of an id counts."""
    known = {item.id for item in items}
    wave: dict[str, int] = {}
    get = wave.get
    mixed = False
    for item in items:
        ident = item.id
        if ident in wave:
            continue  # a repeated id (EP104): the first one is the graph's
        ds = item.depends_on
        if len(ds) == 1:  # the commonest case, without a loop
            w = get(ds[0])
            if w is None:
                if ds[0] != ident and ds[0] in known:
                    return _waves_not_in_order(items)  # a dependency on a later item: not in order
                w = 0
            wave[ident] = w + 1
            continue
        high, low = 0, 1 << 62
        for d in ds:
            w = get(d)
            if w is None:
                if d != ident and d in known:
                    return _waves_not_in_order(items)
                continue
            if w > high:
                high = w
            if w < low:
                low = w
        wave[ident] = high + 1
        mixed = mixed or low < high
    return wave, list(wave), mixed


def _waves_not_in_order(items: tuple[Item, ...]) -> tuple[dict[str, int], list[str], bool] | None:
    """``_waves`` for a plan not written in order: compiler/analysis/graph.py's plain_waves, and whether some
    item may have dependencies in different waves; None when there is a cycle (EP303's)."""
    from compiler.analysis.graph import plain_waves

    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    wave = plain_waves(first.values())
    if len(wave) < len(first):
        return None
    get = wave.get
    # Whether to look at all: an unknown or self dependency may make it say yes needlessly (the
    # pass then finds nothing), never no wrongly; at C speed, as this is all a layered plan pays.
    mixed = any(len(set(map(get, item.depends_on))) > 1 for item in first.values() if len(item.depends_on) > 1)
    return wave, list(wave), mixed


def redundant(items: tuple[Item, ...]) -> list[Redundant]:
    """Every dependency implied through another of the same item, in the plan's order: the edges
    a transitive reduction removes (removing them all keeps every item's dependencies, and its
    wave).

    Iterative, in passes over a topological order:

    1. each item's wave; a dependency can be implied through another only when that other is in
       a later wave, so only such dependencies are *candidates*, and each is asked about by the
       few items that list it so. Chains (one dependency each) stop before this, and plans whose
       items depend on one wave each (wide, layered) stop after it: linear.
    2. each item carries the candidates among its transitive dependencies as the bits of a Python
       int (a bitset), made from its dependencies' sets, and dropped once every dependent has read
       it. A candidate gets its bit when it is reached in the order, and the bit is retired once
       every item that asks about it is done: sets are kept shifted past the lowest live bit, so
       their width is the candidates still open, not all of them (a plan whose items also depend
       on one two layers back keeps a few hundred bits, however long it is). At worst (every
       candidate open to the end) it is about V x E / 64 word operations.

    A plan with a cycle is left to EP303."""
    if not any(len(item.depends_on) > 1 for item in items):
        return []  # nothing can be implied through another
    ordered = _waves(items)
    if ordered is None or not ordered[2]:
        return []  # a cycle, or no item whose dependencies are in different waves
    wave, order, _ = ordered
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)

    def candidates(ident: str) -> list[str]:
        latest = wave[ident] - 1  # the wave of its latest dependency (an unknown id has none)
        found = [d for d in first[ident].depends_on if wave.get(d, latest) < latest]
        return list(dict.fromkeys(found)) if len(found) > 1 else found

    asking: dict[str, int] = {}  # candidate -> the items still to ask about it
    for ident in order:
        if len(first[ident].depends_on) > 1:
            for d in candidates(ident):
                asking[d] = asking.get(d, 0) + 1
    if not asking:
        return []
    deps = {ident: [d for d in dict.fromkeys(item.depends_on) if d != ident and d in first]
            for ident, item in first.items()}
    readers: dict[str, int] = {}
    for known in deps.values():
        for d in known:
            readers[d] = readers.get(d, 0) + 1
    position: dict[str, int] = {}  # candidate -> its bit (absolute; never reused)
    ids: list[str] = []  # bit -> candidate
    retired: list[bool] = []
    base = 0  # every bit below it is retired: sets are stored shifted by the base they were made at
    below: dict[str, tuple[int, int]] = {}  # item -> (its candidates' bits >> base, that base)
    found: list[Redundant] = []
    for ident in order:
        if ident in asking:
            position[ident] = len(ids)
            ids.append(ident)
            retired.append(False)
        known = deps[ident]
        if not known:
            continue
        reach = 0
        for d in known:
            got = below.get(d)
            if got is not None:
                reach |= got[0] >> (base - got[1])
            p = position.get(d)
            if p is not None and p >= base:
                reach |= 1 << (p - base)
        if len(known) > 1:
            asked = candidates(ident)
            if reach and asked:
                mask = 0
                for d in asked:
                    mask |= 1 << (position[d] - base)
                for via in known:
                    got = below.get(via)
                    hits = (got[0] >> (base - got[1])) & mask if got is not None else 0
                    mask &= ~hits  # each implied dependency is reported once, through the first that implies it
                    while hits:
                        low = hits & -hits
                        hits ^= low
                        dep = ids[base + low.bit_length() - 1]
                        item = first[ident]
                        found.append(Redundant(item=item, at=item.depends_on.index(dep), dep=dep, via=via,
                                               direct=dep in deps[via]))
            for d in asked:
                asking[d] -= 1
                if asking[d] == 0:
                    retired[position[d]] = True
        for d in known:
            readers[d] -= 1
            if readers[d] == 0:
                below.pop(d, None)
        if reach and ident in readers:
            below[ident] = (reach, base)
        while base < len(retired) and retired[base]:
            base += 1
    found.sort(key=lambda r: (r.item.position, r.at))
    return found


def redundant_dependencies(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP306 (warning): a dependency already implied through another (a -> c when a -> b -> c),
    at that entry of depends_on, with a note at the dependency that implies it. Over the live
    items: a path through a dropped item implies nothing, since the dropped item has left."""
    found = redundant(live(ctx.plan.items))
    if found:
        from compiler.core.edits import REMOVE  # here: a plan with nothing redundant needs none
    for r in found:
        item, dep, via = r.item, clip(r.dep), clip(r.via)
        ident = clip(item.id)
        chain = f"{ident} -> {via} -> {dep}" if r.direct else f"{ident} -> {via} -> ... -> {dep}"
        yield Diagnostic("EP306", f"{ident} depends on {dep}, which it already depends on through {via} ({chain})",
                         item=item.id, location=ctx.loc(item, item.depends_key, r.at),
                         notes=(Note(f"{ident} depends on {via}", ctx.loc(item, item.depends_key,
                                                                    item.depends_on.index(r.via))),),
                         hint="remove it (evidence-plan fix does): the order stays the same",
                         fix=Fix(message=f"{ident}: removed dependency {dep}, implied through {via}",
                                 applicability="safe", changes=((ctx.path(item, item.depends_key, r.at), REMOVE),)))


def cycles(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP303: one diagnostic per cycle (strongly connected component), with its path and a note at
    each depends_on entry on the loop, so the reader sees which edge to cut.

    The graph phase's rule: ``compile_document`` runs it after the others, with the plan's graph
    (``ctx.graph``) when it has built one for the waves (networkx found a cycle while ordering
    them). Without one, a plain topological sort decides first, and only a plan with a cycle
    builds the graph: `check` of a plan without cycles never imports networkx."""
    graph = ctx.graph
    if graph is None:
        items = live(ctx.plan.items)  # dropped items have left the graph (compiler/analysis/progress.py)
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
            item=path[0],
            location=notes[0].location,
            notes=tuple(notes),
        )


RULES = (
    Rule(unknown_dependencies, ("EP301",)),
    Rule(self_dependency, ("EP302",)),
    Rule(duplicate_dependencies, ("EP304",)),
    Rule(redundant_dependencies, ("EP306",)),
    Rule(cycles, ("EP303",), "graph"),
)
