"""The receipts of the last `verify` run (compiler/api/verify.py writes them beside the compiled
artifacts), read back for the pages: each item's last result as plain data for compiler/render/
(compiler/render/verified.py), which never reads a file itself.

Read only when the file is there (the callers look first, with one ``os.path.exists``): a plan
compiled without it costs nothing more and renders as before. What the pages may say:

- an item's result counts only while the command that ran is its proof now; an item whose proof
  changed since is shown as such, never with the old result;
- receipts whose items' digest (``plan_digest``) is not the compiled plan's are said to be of an
  earlier revision of the plan; receipts of another plan file whose items differ too are not shown;
- a file that cannot be read, or is not of the receipts' format, is not shown either, and the
  caller is given why (a note, as compile gives one for a previous evidence-plan.json it could not
  read): pages never show a half-read run, and nothing in the file is trusted as Markdown or HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler.load.limits import Limits
    from compiler.render.verified import LastVerify


class Unusable(Exception):
    """Why the receipts are not shown."""


def last_verify(path: str, document: dict[str, Any], digest: Callable[[], str], limits: Limits,
                ) -> tuple[LastVerify | None, str | None]:
    """The run recorded at ``path`` as the pages of ``document`` (the compiled plan) show it, or
    None and why not. ``digest``: the compiled plan's items digest (compiler/compile/history.py:
    items_digest), asked for only when the file is usable."""
    import json
    import os

    from compiler.core.diagnostics import PlanInputError
    from compiler.core.display import clip
    from compiler.load.read import read_text
    from compiler.render.verified import LastVerify, Verdict
    from compiler.report.receipts import APPROVED, PASSED, PASSING, RESULTS

    def unshown(why: str) -> tuple[None, str]:
        return None, f"{path} is not shown on the pages: {why}"

    try:
        _, text = read_text(path, limits=limits)
        data = json.loads(text)
        run = _run(data)
    except PlanInputError as error:
        return unshown(error.diagnostic.message)
    except ValueError as error:  # not JSON (json.JSONDecodeError is a ValueError)
        return unshown(f"it is not JSON ({clip(str(error))})")
    except Unusable as error:
        return unshown(str(error))
    try:
        earlier = data["plan_digest"] != digest()
    except PlanInputError as error:  # render's evidence-plan.json, read again, no longer reads
        return unshown(f"the compiled plan's items digest cannot be made ({error.diagnostic.message})")
    if earlier and _another_source(data["source"], document.get("source")):
        return unshown(f"it is of another plan ({clip(data['source'])}) whose items differ")
    proofs: dict[str, Any] = {}
    for item in document.get("items") or ():
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            proofs.setdefault(item["id"], item.get("proof"))
    counts = dict.fromkeys(RESULTS, 0)
    items: dict[str, Verdict] = {}
    for entry in run["items"]:
        counts[entry["result"]] += 1
        if entry["id"] in proofs:  # an item the plan no longer has is not shown
            started = entry["started"] if entry.get("attempts") else None  # a cached one's is of the run it reuses
            said = entry["result"] not in (PASSED, APPROVED)  # "it exited 0" tells nothing the word does not
            items[entry["id"]] = Verdict(result=entry["result"], passing=entry["result"] in PASSING,
                                         reason=entry["reason"] if said else "", started=started,
                                         seconds=float(entry.get("seconds", 0)) if started is not None else None,
                                         current=entry["command"] == proofs[entry["id"]])
    return LastVerify(started=run["started"], earlier=earlier, commit=data.get("commit"), dirty=data.get("dirty"),
                      interrupted=data["interrupted"], counts=tuple((r, n) for r, n in counts.items() if n),
                      items=items, file=os.path.basename(path)), None


def compiled_digest(path: str, limits: Limits) -> str:
    """The items digest of a compiled evidence-plan.json (a plan read back from it has its plan's),
    for `render`, which is given the document alone."""
    from compiler.compile.history import items_digest
    from compiler.load.document import load
    from compiler.model.validate import build_plan

    return items_digest(build_plan(load(path, limits=limits, unique_keys=False)))


def _another_source(theirs: str, ours: Any) -> bool:
    """Whether the receipts name another plan file than the compiled plan does (both relative to
    the folder they share); standard input is any plan."""
    import os

    if not isinstance(ours, str) or theirs == "-" or ours == "<stdin>":
        return False
    return os.path.normpath(theirs) != os.path.normpath(ours)


def _run(data: Any) -> dict[str, Any]:
    """The receipts' parts the pages use, checked against the format (times read as times; a
    field that may be null may be absent); Unusable says what is not as it says."""
    from compiler.core.display import clip
    from compiler.report.receipts import FORMAT, RESULTS

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise Unusable(f"it is not of the format verify writes ({FORMAT})")
    for key, kinds in (("plan_digest", str), ("source", str), ("items", list), ("interrupted", bool),
                       ("commit", (str, type(None))), ("dirty", (bool, type(None))), ("started", (str, type(None)))):
        if not isinstance(data.get(key), kinds):
            raise Unusable(f"its {key} is missing or not what the format says")
    items = []
    seen: set[str] = set()
    for n, entry in enumerate(data["items"]):
        seconds = entry.get("seconds", 0) if isinstance(entry, dict) else None
        if not (isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("command"), str)
                and entry.get("result") in RESULTS and isinstance(entry.get("reason"), str)
                and isinstance(entry.get("started"), (str, type(None))) and isinstance(entry.get("attempts", []), list)
                and isinstance(seconds, (int, float)) and not isinstance(seconds, bool)):
            raise Unusable(f"its items[{n}] is not what the format says")
        if entry["id"] in seen:
            raise Unusable(f"it has two receipts of one item ({clip(entry['id'])})")
        seen.add(entry["id"])
        items.append({**entry, "started": _moment(entry.get("started"))})
    return {"started": _moment(data.get("started")), "items": items}


def _moment(text: str | None) -> datetime | None:
    """An ISO 8601 time of the receipts, in UTC (one without a zone is UTC, as verify writes them);
    Unusable when it is not a time."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        from compiler.core.display import clip

        raise Unusable(f"{clip(text)} is not an ISO 8601 time") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
