"""The fixes of evidence that does not hold (compiler/checks/evidence.py's findings), as changes of
the plan's data (compiler/core/diagnostics.py ``Fix``): lines moved to where their pinned text or
their ``contains`` now is, and a path or a symbol that does not exist replaced by the one the
message guesses.

- Pinned lines found whole at one other place (EP211): the entry moves there, exactly (safe). Found
  at several places, it moves only where every pinned entry of the same file that was found at one
  place moved by the same distance, and that distance leads to one of the places: the file was
  shifted there, not rewritten (safe).
- ``contains`` text found at exactly one other line (EP203): a one-line entry moves to it (safe,
  nothing to guess); a range is carried through the cited file's change since the plan's commit,
  as `git blame` carries lines, when the plan is in git and unchanged since (safe: the same lines,
  moved whole); otherwise which line of the range held the text is recorded nowhere, and the
  smallest shift that covers it is a guess (unsafe).
- A missing file with a did-you-mean (EP201) and a missing symbol with one (EP206): the reference
  with the name guessed (unsafe).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from compiler.core.diagnostics import Diagnostic, Fix
from compiler.core.display import clip, quoted
from compiler.model.values import Evidence, Item

if TYPE_CHECKING:
    from compiler.checks.context import CheckContext
    from compiler.repo.history import History
    from compiler.repo.repository import Repository


class Finding(Protocol):
    """What a fix needs of compiler/checks/evidence.py's ``Finding``."""

    @property
    def code(self) -> str: ...
    @property
    def moved_to(self) -> int | None: ...
    @property
    def moved_lines(self) -> tuple[int, int] | None: ...
    @property
    def pinned_at(self) -> tuple[int, ...]: ...
    @property
    def meant(self) -> str | None: ...


def span(start: int, end: int) -> str:
    return f"{start}" if start == end else f"{start}-{end}"


def lines_value(old: Any, key: str, start: int, end: int) -> Any:
    """The new value of a ``line``/``lines`` key, in the type the plan gave: a number stays one."""
    if key == "line" or (isinstance(old, int) and start == end):
        return start
    return span(start, end)


def moved_range(start: int, end: int, found: int, line_count: int) -> tuple[int, int] | None:
    """The range ``start``-``end``, of its length, shifted as little as covers line ``found``
    (where its ``contains`` text is now, once): up until it starts at the text, or down until it
    ends at it. Without history, which line of the range held the text is recorded nowhere, so
    any shift of a range of several lines is a guess; the smallest one moves the range least onto
    other code. A one-line range moves to the text's line (nothing to guess). None when the file
    is shorter than the range."""
    length = end - start + 1
    if length > line_count:
        return None
    new_start = found if found < start else found - length + 1 if found > end else start
    new_start = max(1, min(new_start, line_count - length + 1))
    return new_start, new_start + length - 1


def _carried(history: History | None, repo: Repository, path: str, start: int, end: int,
             line_count: int) -> tuple[int, int] | None:
    """Lines ``start``-``end`` of ``path`` as the plan's commit has them, in the file now, when
    they are unchanged and moved whole (compiler/repo/history.py); None without history, or when
    not."""
    if history is None:
        return None
    old = history.lines(path)
    if old is None:
        return None
    from compiler.repo.history import map_range

    now = (repo.text(path, 1, line_count) or "").splitlines() if line_count else []
    return map_range(old, now, start, end)


NO_HISTORY = "the plan has no commit to compare with (not in git, or changed since it was committed)"


def evidence_fix(ctx: CheckContext, item: Item, j: int, ev: Evidence, finding: Finding) -> Fix | None:
    """The fix of one finding about an evidence entry, or None."""
    at = ctx.path(item, "evidence", j)
    entry = ctx.raw(at)
    said = f"{clip(item.id)}: {clip(ev.ref())} -> "
    if finding.meant is not None:  # EP201, EP206: a name guessed
        return _renamed(said, ev, at, entry, finding)
    if ev.start is None or ev.end is None or not isinstance(entry, dict):
        return None  # a symbol moves with its name; the string form has no contains or pin
    key = "line" if "line" in entry else "lines"
    if key not in entry:
        return None
    path = ev.path or ""
    if finding.moved_lines is not None:  # pinned lines found whole at one other place: exact
        start, end = finding.moved_lines
        return Fix(message=f"{said}{clip(path)}:{span(start, end)} (the pinned lines moved)", applicability="safe",
                   changes=(((*at, key), lines_value(entry[key], key, start, end)),))
    if finding.moved_to is None or ctx.repo is None:
        return None
    found, repo = finding.moved_to, ctx.repo
    line_count = repo.facts(path).line_count
    head = f"{said}{clip(path)}:"
    # A range: carried through the plan's history when there is one (git runs only here).
    history = ctx.history() if ctx.history is not None and ev.end > ev.start else None
    carried = _carried(history, repo, path, ev.start, ev.end, line_count)
    if history is not None and carried is not None and carried[0] <= found <= carried[1]:
        start, end = carried  # exact: the same lines, moved whole
        return Fix(message=f"{head}{span(start, end)} ({quoted(ev.contains or '')} moved: the cited lines,"
                   f" carried through the file's change since the plan's commit {(history.commit or '')[:12]})",
                   applicability="safe", changes=(((*at, key), lines_value(entry[key], key, start, end)),))
    moved = moved_range(ev.start, ev.end, found, line_count)
    if moved is None:
        return None
    start, end = moved
    value = lines_value(entry[key], key, start, end)
    if ev.end == ev.start:  # one line: where the text is, nothing to guess
        return Fix(message=f"{head}{start} ({quoted(ev.contains or '')} moved)", applicability="safe",
                   changes=(((*at, key), value),))
    why = (NO_HISTORY if history is None or history.commit is None else
           "the cited lines changed since the plan's commit" if carried is None else
           "the text was not in the cited lines at the plan's commit either")
    return Fix(message=f"{head}{span(start, end)} ({quoted(ev.contains or '')} moved to line {found}; the smallest"
               f" shift that covers it, a guess: {why})", applicability="unsafe", changes=(((*at, key), value),))


def _renamed(said: str, ev: Evidence, at: tuple[Any, ...], entry: Any, finding: Finding) -> Fix | None:
    """A missing path (EP201) or symbol (EP206) replaced by the name guessed, in the entry's own
    form; a symbol guessed in another file (``other.py::Name``) replaces both."""
    from compiler.model.references import parse_reference

    meant = finding.meant or ""
    if finding.code == "EP201":
        new = ev._replace(path=meant)
    elif "::" in meant:
        path, _, symbol = meant.partition("::")
        new = ev._replace(path=path, symbol=symbol)
    else:
        new = ev._replace(symbol=meant)
    why = "the closest path that exists" if finding.code == "EP201" else "the closest name it defines"
    message = f"{said}{clip(new.ref())} ({why}: a guess)"
    if isinstance(entry, str):
        text = new.ref()
        if parse_reference(text) != (new, None):
            return None
        return Fix(message=message, applicability="unsafe", changes=((at, text),))
    if not isinstance(entry, dict):
        return None
    changes = tuple(((*at, part), getattr(new, part)) for part in ("path", "symbol")
                    if getattr(new, part) != getattr(ev, part) and part in entry)
    if len(changes) != sum(getattr(new, part) != getattr(ev, part) for part in ("path", "symbol")):
        return None
    return Fix(message=message, applicability="unsafe", changes=changes)


def shifted_pins(ctx: CheckContext, found: Iterable[tuple[Diagnostic, Item, int, Evidence, Finding]]
                 ) -> dict[int, Fix]:
    """EP211's fix for pinned lines found at several places, by the index of its diagnostic in
    ``found``: where every pinned entry of the same file found at one place moved by one distance,
    and that distance leads to one of the places (the file was shifted there, not rewritten)."""
    entries = list(found)
    shifts: dict[str, set[int]] = {}  # path -> how far the pinned lines found at one place moved
    for _, _, _, ev, finding in entries:
        if finding.moved_lines is not None and ev.start is not None:
            shifts.setdefault(ev.path or "", set()).add(finding.moved_lines[0] - ev.start)
    out: dict[int, Fix] = {}
    for n, (_, item, j, ev, finding) in enumerate(entries):
        moves = shifts.get(ev.path or "", set())
        if not finding.pinned_at or len(moves) != 1 or ev.start is None or ev.end is None:
            continue
        delta = next(iter(moves))
        at = ctx.path(item, "evidence", j)
        entry = ctx.raw(at)
        if ev.start + delta not in finding.pinned_at or not isinstance(entry, dict):
            continue
        key = "line" if "line" in entry else "lines"
        if key not in entry:
            continue
        start, end = ev.start + delta, ev.end + delta
        out[n] = Fix(message=f"{clip(item.id)}: {clip(ev.ref())} -> {clip(ev.path or '')}:{span(start, end)} (the"
                     f" pinned lines are found at {len(finding.pinned_at)} places; this is the one {delta:+} lines"
                     " away, as far as the file's other pinned entries moved)", applicability="safe",
                     changes=(((*at, key), lines_value(entry[key], key, start, end)),))
    return out
