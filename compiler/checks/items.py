"""Rules about one item's commitments: evidence, proof, change, and a unique id."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, compress, repeat
from operator import attrgetter, ge

from compiler.analysis.shell import any_may_split, may_split, split_commands
from compiler.checks.context import CheckContext, Rule, repeated
from compiler.core import ids
from compiler.core.diagnostics import Diagnostic, Fix, Note
from compiler.core.display import clip, quoted
from compiler.core.paths import leaves_root
from compiler.model.references import parse_reference
from compiler.model.values import Evidence, Item

# The quick looks over every item at once: C functions mapped over the items.
_EVIDENCE, _PROOF, _CHANGE, _PROOF_PARTS, _PATH = (attrgetter("evidence"), attrgetter("proof"), attrgetter("change"),
                                                   attrgetter("proof_parts"), attrgetter("path"))


def no_evidence(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP101: every item cites at least one repository fact."""
    if all(map(_EVIDENCE, ctx.plan.items)):
        return  # every item cites something (the commonest plan): one look in C, no Python step per item
    for item in ctx.plan.items:
        if not item.evidence and "evidence" not in item.broken:
            yield Diagnostic("EP101", f"{clip(item.id)} has no repository evidence", item=item.id,
                             location=ctx.loc(item, "evidence"))


def no_proof(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP102: every item closes with one exact proof command (located at `proof`, else the item)."""
    if all(map(str.strip, map(_PROOF, ctx.plan.items))):
        return
    for item in ctx.plan.items:
        if not item.proof.strip() and "proof" not in item.broken:
            yield Diagnostic("EP102", f"{clip(item.id)} has no proof command", item=item.id,
                             location=ctx.loc(item, "proof"))


def no_change(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP103: every item states the change it makes."""
    if all(map(str.strip, map(_CHANGE, ctx.plan.items))):
        return
    for item in ctx.plan.items:
        if not item.change.strip() and "change" not in item.broken:
            yield Diagnostic("EP103", f"{clip(item.id)} has no change", item=item.id, location=ctx.loc(item, "change"))


def duplicate_ids(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP104: ids are unique; the second and later uses point back at the first. Invalid items
    count too, so that every problem shows in one run."""
    if len(ctx.plan.known_ids) == len(ctx.plan.id_indexes):
        return  # as many distinct ids as items that have one: none repeats
    first: dict[str, int] = {}
    for ident, index in ctx.plan.id_indexes:
        if ident not in first:
            first[ident] = index
            continue
        where = ctx.at(first[ident], "id")
        yield Diagnostic(
            "EP104",
            f"duplicate id {clip(ident)} (first defined at line {where.line})",
            item=ident,
            location=ctx.at(index, "id"),
            notes=(Note(f"{clip(ident)} first defined here", where),),
        )


def id_grammar(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP015: ids follow the id grammar (compiler/core/ids.py): letters and digits of any script and
    ``- _ . / :``, starting with a letter or a digit, at most 128 characters."""
    if ids.all_plain([ident for ident, _ in ctx.plan.id_indexes]):
        return  # most plans: every id plain ASCII, decided at once
    for ident, index in ctx.plan.id_indexes:
        problem = ids.grammar_problem(ident)
        if problem:
            yield Diagnostic("EP015", f"id {quoted(ident, 60)} {problem}", item=ident, location=ctx.at(index, "id"))


def confusable_ids(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP016: no id mixes Latin, Cyrillic and Greek letters, and no two ids look alike."""
    if "".join(ctx.plan.known_ids).isascii():
        return  # no script to mix, and ASCII ids that look alike are the same id (EP104's)
    looks: dict[str, tuple[str, int]] = {}
    for ident, index in ctx.plan.id_indexes:
        mixed = ids.mixed_scripts(ident)
        if mixed:
            yield Diagnostic("EP016", f"id {quoted(ident)} mixes {mixed[0].title()} and {mixed[1].title()} letters",
                             item=ident, location=ctx.at(index, "id"), hint="write it in one script")
        shape = ids.skeleton(ident)
        other = looks.get(shape)
        if other is not None and other[0] != ident:
            where = ctx.at(other[1], "id")
            yield Diagnostic(
                "EP016",
                f"id {quoted(ident)} looks like {quoted(other[0])} (line {where.line}): it has"
                f" {ids.describe_difference(ident, other[0])}",
                item=ident, location=ctx.at(index, "id"), notes=(Note(f"{clip(other[0])} is defined here", where),),
            )
        looks.setdefault(shape, (ident, index))


def _id_shape(ident: str) -> str:
    return ident.casefold().replace("_", "-")


def similar_ids(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP108 (warning): ids that differ only in case or in ``-`` against ``_`` name one item twice,
    or make a dependency easy to get wrong. The same id twice is EP104's, not this rule's."""
    known = ctx.plan.known_ids
    # Folded all at once (casefold and the replace map each character alone, so the joined text folds
    # as its ids do), when no id holds the line break they are joined by.
    shapes = _id_shape("\n".join(known)).split("\n")
    if len(shapes) == len(known) and len(set(shapes)) == len(known):
        return  # no two ids of one shape (the commonest case), found without a Python step per id
    first: dict[str, tuple[str, int]] = {}
    for ident, index in ctx.plan.id_indexes:
        shape = _id_shape(ident)
        other = first.setdefault(shape, (ident, index))
        if other[0] == ident:
            continue
        where = ctx.at(other[1], "id")
        yield Diagnostic("EP108", f"id {quoted(ident)} differs from {quoted(other[0])} (line {where.line}) only in"
                         " case or in - against _", item=ident, location=ctx.at(index, "id"),
                         notes=(Note(f"{clip(other[0])} is defined here", where),),
                         hint="give them names that differ in words, or make them one item")


def backslash_paths(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP109 (warning): evidence paths use ``/``. A ``\\`` is read as one (the file is found), but
    the plan keeps it, and links made from it in the Markdown lead nowhere."""
    paths = filter(None, map(_PATH, chain.from_iterable(map(_EVIDENCE, ctx.plan.items))))
    if "\\" not in "\x00".join(paths):
        return  # no evidence path holds a backslash (the commonest plan): one search over them all
    for item in ctx.plan.items:
        for j, ev in enumerate(item.evidence):
            if ev.path is not None and "\\" in ev.path and not leaves_root(ev.path):  # else EP204 says it
                meant = ev._replace(path=ev.path.replace("\\", "/"))
                yield Diagnostic("EP109", f"{clip(item.id)} cites {clip(ev.ref())} with \\ in its path: write"
                                 f" {clip(meant.ref())}", item=item.id, location=ctx.loc(item, "evidence", j, "path"),
                                 fix=_slashed(ctx, item, j, ev, meant))


def _slashed(ctx: CheckContext, item: Item, j: int, ev: Evidence, meant: Evidence) -> Fix | None:
    """EP109's fix: the path written with ``/``, the same file (it was found), so safe."""
    at = ctx.path(item, "evidence", j)
    entry = ctx.raw(at)
    message = f"{clip(item.id)}: {clip(ev.ref())} -> {clip(meant.ref())}"
    if isinstance(entry, dict) and isinstance(entry.get("path"), str):
        return Fix(message=message, applicability="safe",
                   changes=(((*at, "path"), entry["path"].replace("\\", "/")),))
    if isinstance(entry, str) and parse_reference(meant.ref()) == (meant, None):
        return Fix(message=message, applicability="safe", changes=((at, meant.ref()),))
    return None


def duplicate_evidence(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP105 (warning): the same evidence cited twice by one item."""
    for item in ctx.plan.items:
        if len(item.evidence) < 2 or len(set(item.evidence)) == len(item.evidence):
            continue  # nothing repeated: decided at C speed, for almost every item
        from compiler.core.edits import REMOVE  # here: a plan that repeats nothing needs none

        for j in repeated(item.evidence):
            ref = clip(item.evidence[j].ref())
            yield Diagnostic("EP105", f"{clip(item.id)} cites {ref} twice", item=item.id,
                             location=ctx.loc(item, "evidence", j),
                             fix=Fix(message=f"{clip(item.id)}: removed repeated evidence {ref}", applicability="safe",
                                     changes=((ctx.path(item, "evidence", j), REMOVE),)))


def compound_proof(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP107 (warning): a proof is one exact check; several commands mean several items."""
    items = ctx.plan.items
    if max(map(_PROOF_PARTS, items), default=1) <= 1 and not any_may_split(map(_PROOF, items)):
        return  # no proof is a list or holds a separator (the commonest plan): one search over them all
    for item in items:
        if item.proof_parts > 1:
            yield Diagnostic("EP107", f"{clip(item.id)} proof is a list of {item.proof_parts} commands, read as"
                             f" {quoted(item.proof)}: split the item, one proof each", item=item.id,
                             location=ctx.loc(item, "proof"))
        # Most proofs hold no separator at all: one C-speed search settles them.
        elif may_split(item.proof) and len(commands := split_commands(item.proof)) > 1:
            shown = clip(item.proof.strip().replace("\n", "\\n"))  # one diagnostic, one line
            yield Diagnostic("EP107", f"{clip(item.id)} proof runs {len(commands)} commands ({shown}):"
                             " split the item, one proof each", item=item.id,
                             location=ctx.loc(item, "proof"))


def prose_proof(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP110 (warning): a proof is a command, not a sentence ("run the tests and make sure they
    pass", "Does the page load?"), judged from the shell's grammar (compiler/analysis/proofs.py)."""
    from compiler.analysis.proofs import reads_as_prose

    items = ctx.plan.items
    # Only a proof of three words or more can read as a sentence (reads_as_prose's first test, on
    # the proof stripped): the others are passed over in C, without a Python step each.
    candidates = compress(items, map(ge, map(str.count, map(_PROOF, items), repeat(" ")), repeat(2)))
    for item in candidates:
        if item.proof_parts <= 1 and reads_as_prose(item.proof):
            yield Diagnostic("EP110", f"{clip(item.id)} proof reads as a sentence, not a command:"
                             f" {quoted(item.proof.strip())}", item=item.id, location=ctx.loc(item, "proof"),
                             hint="give the one exact check that closes the item: a command, such as"
                                  " pytest tests/test_login.py::test_redirect")


RULES = (
    Rule(no_evidence, ("EP101",)),
    Rule(no_proof, ("EP102",)),
    Rule(no_change, ("EP103",)),
    Rule(duplicate_ids, ("EP104",)),
    Rule(id_grammar, ("EP015",)),
    Rule(confusable_ids, ("EP016",)),
    Rule(similar_ids, ("EP108",)),
    Rule(duplicate_evidence, ("EP105",)),
    Rule(compound_proof, ("EP107",)),
    Rule(prose_proof, ("EP110",)),
    Rule(backslash_paths, ("EP109",)),
)
