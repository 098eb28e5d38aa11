"""Rules about evidence against the repository: each cited fact must be there, as cited.

Verification is offline and read-only (see compiler/repo/files.py for the safety rules). Every
finding points at the evidence entry in the plan (or at its ``lines``/``contains``/``symbol``
field), and names the item.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from compiler.checks.context import CheckContext, Rule, repeated
from compiler.core.diagnostics import Diagnostic, Location
from compiler.core.display import clip, quoted
from compiler.model.values import Evidence, Item
from compiler.repo import files, symbols
from compiler.repo.repository import Repository


class Finding(NamedTuple):
    code: str
    message: str
    fields: tuple[str, ...] = ()  # the object-form fields the problem may be in, first present wins
    moved_to: int | None = None  # contains found at exactly one other line: where (for `fix`)
    suggested: bool = False  # a missing path with a did-you-mean: then the root is right
    moved_lines: tuple[int, int] | None = None  # pinned lines found at exactly one other place (for `fix`)
    pinned_at: tuple[int, ...] = ()  # the first lines of the places pinned lines are found at, when several
    hint: str | None = None
    meant: str | None = None  # the path (EP201) or symbol (EP206) a did-you-mean guesses, when it is one name


def _lines_text(n: int) -> str:
    return f"{n} line{'' if n == 1 else 's'}"


def symbol_range(ev: Evidence, repo: Repository) -> tuple[int, int] | None:
    if ev.path is None or ev.symbol is None:
        return None
    return repo.symbol(ev.path, ev.symbol)


def covered_lines(ev: Evidence, repo: Repository) -> tuple[int, int] | None:
    """The lines an entry covers, when they can be read: its lines, where its symbol is, or the
    whole of a text file held in memory; None for a URL, a folder, a binary or empty file, lines
    past the end or a symbol not found."""
    if ev.path is None:
        return None
    facts = repo.facts(ev.path)
    if facts.kind != "file" or facts.binary or facts.line_count == 0:
        return None
    if ev.symbol is not None:
        return symbol_range(ev, repo)
    if ev.start is not None and ev.end is not None:
        return (ev.start, ev.end) if ev.end <= facts.line_count else None
    return (1, facts.line_count) if facts.lines is not None else None


def resolve(items: Iterable[Item], repo: Repository) -> dict[tuple[int, int], tuple[int, int, str]]:
    """(item position, evidence index) -> the lines each entry covers and their pin: what the
    compiled JSON records, so that a later compile or a CI job can tell which evidence changed.
    Each range is hashed once, however many entries cite it."""
    from compiler.core.pins import pin_of

    out: dict[tuple[int, int], tuple[int, int, str]] = {}
    pinned: dict[tuple[str, int, int], str] = {}
    for item in items:
        for j, ev in enumerate(item.evidence):
            span = covered_lines(ev, repo)
            if span is None or ev.path is None:
                continue
            key = (ev.path, *span)
            digest = pinned.get(key)
            if digest is None:
                digest = pinned[key] = pin_of(repo.text(ev.path, *span) or "")
            out[(item.position, j)] = (*span, digest)
    return out


def verify(ev: Evidence, repo: Repository, label: str) -> Finding | None:
    """The first problem with one evidence entry, or None when it holds."""
    if ev.path is None:  # a URL: external, not verified
        return None
    facts = repo.facts(ev.path)
    # What messages show of the plan's own text, cut to one screen (compiler/core/display.py).
    label, ref, path = clip(label), clip(ev.ref()), clip(ev.path)
    if facts.kind == "unsafe":
        return Finding("EP204", f"{label} cites {ref}, which {facts.problem}; it was not read", ("path",))
    if facts.kind == "missing":
        guess = repo.suggest(ev.path)
        hint = f" (did you mean {guess}?)" if guess else ""
        return Finding("EP201", f"{label} cites {ref}, but {path} does not exist{hint}", ("path",),
                       suggested=guess is not None, meant=guess)
    if facts.kind in ("special", "unreadable"):
        return Finding("EP207", f"{label} cites {ref}, but {path} cannot be read: {facts.problem}", ("path",))
    if facts.kind == "folder":
        if ev.start is not None or ev.symbol is not None or ev.contains is not None:
            return Finding("EP205", f"{label} cites {ref}, but {path} is a folder: cite it without lines,"
                           " symbol or contains", ("lines", "line", "symbol", "contains"))
        return None
    if facts.binary and (ev.start is not None or ev.symbol is not None or ev.contains is not None):
        return Finding("EP207", f"{label} cites {ref}, but {path} is a binary file: cite it as a whole", ("path",))
    start, end = ev.start, ev.end
    if start is not None and end is not None and end > facts.line_count:
        return Finding("EP202", f"{label} cites {ref}, but {path} has {_lines_text(facts.line_count)}",
                       ("lines", "line"))
    if ev.symbol is not None:
        if facts.mapped is not None:
            return Finding("EP207", f"{label} cites {ref}, but {path} is too large to search for symbols"
                           f" (over {files.MAX_TEXT_BYTES >> 20} MiB): cite its lines", ("symbol",))
        found = symbol_range(ev, repo)
        if found is None and repo.too_large_to_parse(ev.path):
            kind = "TOML" if ev.path.endswith(".toml") else "Python"
            return Finding("EP207", f"{label} cites {ref}, but {path} is too large to search for {clip(ev.symbol)}"
                           f" ({kind} over {symbols.MAX_PARSE_BYTES >> 20} MiB is not parsed whole): cite its lines",
                           ("symbol",))
        if found is None and (why := repo.not_parsed(ev.path)) is not None:
            return Finding("EP207", f"{label} cites {ref}, but {path} cannot be searched for {clip(ev.symbol)}:"
                           f" {clip(why)}; fix the file or cite its lines", ("symbol",))
        if found is None and (spans := repo.ambiguous(ev.path, ev.symbol)):
            return _ambiguous(ev, repo, label, spans)
        if found is None:
            guess = repo.defined_elsewhere(ev.path, ev.symbol) or repo.suggest_symbol(ev.path, ev.symbol)
            hint = f" (did you mean {guess}?)" if guess else ""
            one = guess if guess is not None and " or " not in guess else None  # several: no fix to guess
            return Finding("EP206", f"{label} cites {ref}, but {path} defines no {clip(ev.symbol)}{hint}", ("symbol",),
                           meant=one)
        start, end = found
    if ev.pin is not None and start is not None and end is not None:
        drift = _pin_drift(ev, repo, label, start, end)
        if drift is not None:
            return drift
    if ev.contains is not None:
        if start is None:
            present = bool(repo.find(ev.path, ev.contains, limit=1))
        else:
            present = ev.contains in (repo.text(ev.path, start, end) or "")
        if not present:
            where = path if start is None else f"{path}:{start}" + (f"-{end}" if end != start else "")
            # Six lines tell all the message says: one (fix moves there), up to five, or more.
            elsewhere = repo.find(ev.path, ev.contains, limit=6) if start is not None else []
            moved = elsewhere[0] if len(elsewhere) == 1 else None
            seen = ""
            if elsewhere:
                shown = ", ".join(map(str, elsewhere[:5])) + (", ..." if len(elsewhere) > 5 else "")
                seen = f" (found at line{'s' if len(elsewhere) > 1 else ''} {shown})"
            return Finding(code="EP203", message=f"{label}: {quoted(ev.contains)} is not in {where}{seen}",
                           fields=("contains",), moved_to=moved)
    return None


def _ambiguous(ev: Evidence, repo: Repository, label: str, spans: list[tuple[int, int]]) -> Finding:
    """EP212: a symbol that names more than one section. Each is offered by the unique name that
    ``symbols`` lists it under (its parents' headings before it), else by its lines."""
    path = ev.path or ""
    ways = []
    for first, last in spans[:3]:
        lines = f"{first}" if first == last else f"{first}-{last}"
        name = repo.unique_name(path, (first, last))
        said = f"line {lines}" if first == last else f"lines {lines}"
        ways.append(f"{clip(path)}::{clip(name)} ({said})" if name is not None else f"{clip(path)}:{lines}")
    more = f" and {len(spans) - 3:,} more (evidence-plan symbols {clip(path)} lists them)" if len(spans) > 3 else ""
    at = ", ".join(str(first) for first, _ in spans[:5]) + (", ..." if len(spans) > 5 else "")
    return Finding("EP212", f"{clip(label)} cites {clip(ev.ref())}, but {clip(path)} has {len(spans):,} sections named"
                   f" {clip(ev.symbol or '')} (at lines {at}): it names none of them for sure", ("symbol",),
                   hint="cite the one meant by a unique name or by its lines: " + ", ".join(ways) + more)


_REPIN = ("read the lines again: if they still justify the change, remove the pin and run evidence-plan fix --pin;"
          " if not, cite the lines that do")


def _pin_drift(ev: Evidence, repo: Repository, label: str, start: int, end: int) -> Finding | None:
    """EP211: the cited lines no longer hash to the entry's pin. Where lines cited by number
    moved whole, the message says where (and `fix` moves the entry there); a symbol moves with
    its name, so a changed symbol has changed."""
    from compiler.core import pins

    path = ev.path or ""
    now = pins.pin_of(repo.text(path, start, end) or "")
    if now == ev.pin:
        return None
    span = f"{start}" if start == end else f"{start}-{end}"
    head = f"{clip(label)} cites {clip(ev.ref())} pinned {ev.pin}, but "
    if ev.symbol is not None:
        return Finding("EP211", head + f"its lines ({span}) changed since they were pinned (they hash {now} now)",
                       ("pin",), hint=_REPIN)
    length = end - start + 1
    found = repo.find_pinned(path, length, ev.pin or "")
    if found is None:
        return Finding("EP211", head + f"those lines changed (they hash {now} now); the pinned lines were not looked"
                       f" for elsewhere (the file is over {files.MAX_TEXT_BYTES >> 20} MiB, or this run hashed"
                       f" its {pins.MAX_SEARCH_BYTES >> 20} MiB for such searches already)", ("pin",),
                       hint=_REPIN)
    if not found:
        return Finding("EP211", head + f"those lines changed (they hash {now} now), and the pinned lines are not"
                       " found elsewhere in the file", ("pin",), hint=_REPIN)

    def at(first: int) -> str:
        return f"{first}" if length == 1 else f"{first}-{first + length - 1}"

    if len(found) == 1:
        return Finding("EP211", head + f"those lines changed: the pinned lines are now at {clip(path)}:{at(found[0])}"
                       " (fix moves the entry there)", ("pin",), moved_lines=(found[0], found[0] + length - 1),
                       hint="run evidence-plan fix, or cite the new lines")
    shown = ", ".join(map(at, found[:5])) + (", ..." if len(found) > 5 else "")
    return Finding("EP211", head + f"those lines changed; the pinned lines are found at lines {shown} of"
                   f" {clip(path)}: cite the one that is meant", ("pin",), pinned_at=tuple(found))


def repository_evidence(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP201-EP207, EP211, EP212: every file, line range, symbol and contains text an item cites is in the
    repository, and every symbol names one definition; so is the evidence of an estimate or a claim
    when it is a repository reference (one word: ``app/x.py``, ``docs/``, ``README.md:3``,
    ``app/x.py::f``; not ``n/a`` or ``node.js``), reported at that ``evidence``; words are free
    text. Skipped with --no-verify-evidence."""
    if ctx.repo is None:
        return
    cited = 0  # evidence entries that name a repository path
    near = False  # a missing path had a near miss in the repository: the root is right
    out: list[Diagnostic] = []
    pinned: list[tuple[Diagnostic, Item, int, Evidence, Finding]] = []  # EP211's, whose fixes are judged together
    for item in ctx.plan.items:
        repeats: set[int] | None = None  # a repeated entry is removed by EP105's fix, not repaired
        for j, ev in enumerate(item.evidence):
            cited += ev.path is not None
            finding = verify(ev, ctx.repo, item.id)
            if finding is None:
                continue
            near = near or finding.suggested
            # The field's position in the object form; the entry's own in the string form.
            entry = (*ctx.plan.items_path, item.position, "evidence", item.evidence_index(j))
            present = [f for f in finding.fields if ctx.doc.source_map.has((*entry, f))]
            hint = ctx.root_hint if finding.code == "EP201" else finding.hint
            if repeats is None:
                repeats = set(repeated(item.evidence)) if len(set(item.evidence)) < len(item.evidence) else set()
            from compiler.checks.repairs import evidence_fix  # here: evidence that holds needs no fix
            diagnostic = Diagnostic(finding.code, finding.message, item=item.id,
                                    location=ctx.loc(item, "evidence", j, *present[:1]), hint=hint,
                                    fix=None if j in repeats else evidence_fix(ctx, item, j, ev, finding))
            if finding.code == "EP211" and j not in repeats:
                pinned.append((diagnostic, item, j, ev, finding))
            out.append(diagnostic)
    if any(finding.pinned_at for *_, finding in pinned):
        from compiler.checks.repairs import shifted_pins

        shifted = shifted_pins(ctx, pinned)
        at = {id(d): n for n, d in enumerate(out)}
        for n, fix in shifted.items():
            out[at[id(pinned[n][0])]] = pinned[n][0]._replace(fix=fix)
    missing = [n for n, d in enumerate(out) if d.code == "EP201"]
    if cited > 1 and len(missing) == cited and not near and ctx.root_hint is None:
        # Not one cited path exists: the root is wrong far more often than every path is. Said once.
        root = clip(str(ctx.repo.root))
        out[missing[0]] = out[missing[0]]._replace(
            hint=f"none of the {cited:,} cited paths exists under {root}: is the root right? (--root DIR, or the"
                 " plan's root: key)")
    yield from out
    if ctx.plan.gives("estimate") or ctx.plan.claims:
        yield from _estimate_evidence(ctx)


def _estimate_evidence(ctx: CheckContext) -> Iterator[Diagnostic]:
    """The evidence of an estimate or a claim, when it is a repository reference rather than words
    (compiler/model/references.py: ``repository_reference``), verified as an evidence entry is, at it."""
    from compiler.model.references import repository_reference

    assert ctx.repo is not None
    for item in ctx.plan.items:
        if not item.options:
            continue
        estimate = item.option("estimate")
        text = estimate.get("evidence") if estimate.__class__ is dict else None
        # Most estimates' evidence is words: no folder, line or symbol, so no reference (no call).
        if text.__class__ is not str or ("/" not in text and ":" not in text):
            continue
        ev = repository_reference(text)
        if ev is not None and (finding := verify(ev, ctx.repo, f"{item.id}'s estimate")) is not None:
            yield Diagnostic(finding.code, finding.message, item=item.id,
                             location=ctx.loc(item, "estimate", "evidence"), hint=finding.hint)
    for j, claim in ctx.plan.claims:
        ev = repository_reference(claim.get("evidence"))
        if ev is not None and (finding := verify(ev, ctx.repo, f"claim {j + 1}")) is not None:
            pos = ctx.doc.source_map.value(("claims", j, "evidence"))
            where = Location(ctx.doc.name, *pos) if pos else Location(ctx.doc.name)
            yield Diagnostic(finding.code, finding.message, location=where, hint=finding.hint)


def external_only(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP106 (warning): links are welcome, but an item needs at least one repository fact."""
    for item in ctx.plan.items:
        # The first entry decides for almost every item, without a generator per item.
        if item.evidence and item.evidence[0].url is not None and all(ev.url is not None for ev in item.evidence):
            yield Diagnostic("EP106", f"{clip(item.id)} has no repository evidence: only external links", item=item.id,
                             location=ctx.loc(item, "evidence"))


RULES = (
    Rule(repository_evidence, ("EP201", "EP202", "EP203", "EP204", "EP205", "EP206", "EP207", "EP211",
                                "EP212"), "repository"),
    Rule(external_only, ("EP106",)),
)
