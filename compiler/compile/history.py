"""What `compile` records of a plan's revisions in the evidence-plan.json it writes: ``revision``,
``changes`` against the file it replaces (compiler/analysis/revisions.py's model, compact) and ``history``,
one entry per revision, from which a revision that repeats a blocked one is found (EP404; the
budget's rules are compiler/checks/budget.py's). Plain functions over plain data."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.analysis.revisions import COMPARED, Side, compare
from compiler.core.diagnostics import PlanInputError
from compiler.core.display import clip
from compiler.model import fields
from compiler.model.values import field_default

if TYPE_CHECKING:
    from compiler.load.limits import Limits
    from compiler.model.values import Plan


# What `compile` records of the change against the evidence-plan.json it replaces: the keys of
# `diff --format json` that describe the plan itself (not its status or issues, which depend on the
# repository as much as on the plan), in a compact form (compiler/model/output_model.py: ChangesOut).
CHANGE_KEYS = ("added", "removed", "revised", "renamed", "edges", "waves")


def changes(change: dict[str, Any]) -> dict[str, Any]:
    """``compare``'s answer as compile records it: ``added`` and ``removed`` as ids, ``revised`` as
    the id and the names of the fields that changed (no values: the previous file is gone, and an
    item's old text would make the JSON grow with every revision); the rest as ``diff`` says it."""
    return {"added": [a["id"] for a in change["added"]],
            "removed": [r["id"] for r in change["removed"]],
            "revised": [{"id": r["id"], "fields": list(r["fields"])} for r in change["revised"]],
            "renamed": change["renamed"], "edges": change["edges"], "waves": change["waves"]}


def no_changes() -> dict[str, Any]:
    """``changes`` of two plans with the same items (a new dict each time: it is written into a document)."""
    return {"added": [], "removed": [], "revised": [], "renamed": [], "edges": {"added": [], "removed": []},
            "waves": {"direct": [], "indirect": []}}


def plan_changed(recorded: dict[str, Any]) -> bool:
    """Whether the items changed: one added, removed, revised or renamed, or an edge (a wave moves
    only with one of these). A new source path, status or issue alone is no new revision."""
    return bool(recorded["added"] or recorded["removed"] or recorded["revised"] or recorded["renamed"]
                or recorded["edges"]["added"] or recorded["edges"]["removed"])


class Previous(NamedTuple):
    """The evidence-plan.json a compile replaces, as far as it could be read."""

    plan: Plan | None = None  # None: no file, or one that is no compiled plan
    revision: int | None = None  # its revision; None when it has none (an older compile) or no plan
    changes: Any = None  # its changes, as written (absent: None)
    note: str | None = None  # why it was not read, when it exists and was not
    status: str | None = None  # its status: ready or blocked
    history: tuple[dict[str, Any], ...] | None = None  # its history as written (absent, or unusable: None)
    source: str | None = None  # the plan file it was compiled from, absolute (None: standard input, or not said)
    name: str | None = None  # its plan's name (``plan``), as written


FIRST = Previous()  # no evidence-plan.json at the output path
_AS_FIRST = "written as revision 1, with no changes"


def read_previous(path: str, limits: Limits, plan: Plan | None = None) -> Previous:
    """The compiled plan at ``path`` (validated only: no checks, no evidence), or why not. Given
    the ``plan`` being compiled, whose items the file's are most often (a recompile), a file whose
    items are exactly ``plan``'s is not built again: its plan *is* ``plan`` (``same_items``)."""
    if not os.path.isfile(path):  # none; or a FIFO or device compile writes to (never read), or a folder
        return FIRST
    from compiler.load.document import load
    from compiler.model.validate import build_plan

    try:
        doc = load(path, limits=limits, unique_keys=False)  # our own output: a repeated key changes nothing
    except PlanInputError as err:
        return Previous(note=f"the previous {path} cannot be read ({err.diagnostic.message}): {_AS_FIRST}")
    data = doc.data
    if (doc.format != "json" or not isinstance(data, dict)
            or not str(data.get("format", "")).startswith("evidence-plan")):
        return Previous(note=f"the previous {path} is not a compiled evidence-plan.json: {_AS_FIRST}")
    if plan is None or not same_items(data.get("items"), plan):
        try:
            plan = build_plan(doc)
        except PlanInputError as err:
            return Previous(note=f"the previous {path} cannot be read ({err.diagnostic.message}): {_AS_FIRST}")
    del doc
    revision, recorded, status = data.get("revision"), data.get("changes"), data.get("status")
    source, name = data.get("source"), data.get("plan")  # its source relative to the JSON's folder, as written
    source = (os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), source))
              if isinstance(source, str) and source != "<stdin>" else None)
    known = Previous(plan=plan, status=status if status in ("ready", "blocked") else None, source=source,
                     name=name if isinstance(name, str) else None)
    if revision is not None and (type(revision) is not int or revision < 1):
        return known._replace(note=f"the previous {path} has no usable revision ({clip(repr(revision))}): written"
                                   f" as revision 1")
    if recorded is not None and not (isinstance(recorded, dict) and tuple(recorded) == CHANGE_KEYS):
        # kept as it was when nothing changed: only what compile writes (a hand-edited one is not copied on)
        return known._replace(note=f"the previous {path} has no usable changes: written as revision 1")
    history, note = _history(data.get("history"), revision), None
    if history is None and data.get("history") is not None:
        note = f"the previous {path} has no usable history: it starts again at revision {revision}"
    return known._replace(revision=revision, changes=recorded, note=note, history=history)


_HISTORY_KEYS = ("revision", "status", "digest")
_OUTPUT_ONLY_ITEM = frozenset(fields.COMPILED_ITEM_KEYS)
_OUTPUT_ONLY_EVIDENCE = frozenset(fields.COMPILED_EVIDENCE_KEYS)
# What a compiled item without options may hold: its five fields and what the output adds.
_PLAIN_WRITTEN = frozenset(fields.COMMITMENTS) | _OUTPUT_ONLY_ITEM


def same_items(raw: Any, plan: Plan) -> bool:
    """Whether a compiled file's items (as loaded) are exactly ``plan``'s, as compile writes them:
    each the item's ``to_dict()`` with the output's own keys (compiler/model/fields.py: COMPILED_*) added.
    The fast path of a recompile: True means the file reads back as these items (the slow path,
    build_plan and compare, would find no change; held to it by tests/compile/test_revisions_compile.py),
    False only that the slow path must look."""
    every = plan.every_item()
    if type(raw) is not list or len(raw) != len(every):
        return False
    strip_item, strip_evidence = _OUTPUT_ONLY_ITEM, _OUTPUT_ONLY_EVIDENCE
    plain_keys = _PLAIN_WRITTEN
    for written, item in zip(raw, every, strict=True):
        if type(written) is not dict:
            return False
        if not item.options and not item.broken:  # the commonest item: its five fields, compared as they stand
            if not (written.keys() <= plain_keys and written.get("id") == item.id
                    and written.get("change") == item.change and written.get("proof") == item.proof
                    and written.get("depends_on") == list(item.depends_on)):
                return False
            evidence = written.get("evidence")
            if type(evidence) is not list or len(evidence) != len(item.evidence):
                return False
            for cited, ev in zip(evidence, item.evidence, strict=True):
                if cited != (made := ev.to_dict()) and (
                        type(cited) is not dict or strip_evidence.isdisjoint(cited)
                        or {k: v for k, v in cited.items() if k not in strip_evidence} != made):
                    return False
            continue
        mine = item.to_dict()
        entry = written if written.keys() == mine.keys() else {
            key: value for key, value in written.items() if key not in strip_item}
        evidence = entry.get("evidence")
        if type(evidence) is list and any(type(e) is dict and not strip_evidence.isdisjoint(e) for e in evidence):
            entry = {**entry, "evidence": [{k: v for k, v in e.items() if k not in strip_evidence}
                                           if type(e) is dict else e for e in evidence]}
        if entry != mine:
            return False
    return True


def _history(raw: Any, revision: Any) -> tuple[dict[str, Any], ...] | None:
    """A previous file's history as compile writes it (revisions rising, each once, up to its own
    revision), else None: a hand-edited history is not carried on."""
    if type(raw) is not list or type(revision) is not int:
        return None
    last = 0
    for entry in raw:
        if not (isinstance(entry, dict) and tuple(entry) == _HISTORY_KEYS and type(entry["revision"]) is int
                and last < entry["revision"] <= revision and entry["status"] in ("ready", "blocked")
                and (isinstance(entry["digest"], str) or (entry["digest"] is None and entry["status"] == "ready"))):
            return None
        last = entry["revision"]
    return tuple(raw)


# Each option's default (an absent ``status`` is ``todo``): an option given as its default is left
# out of the digest, as ``diff`` compares it.
_OPTION_DEFAULTS = {f.name: field_default(f) for f in COMPARED
                    if f.name not in ("change", "evidence", "depends_on", "proof")}
_ABSENT = object()


# Hex digits of an items digest: 128 bits, so that no search finds two plans of one digest (a
# revision taken for a repeat of a blocked one, or not). A history entry of the 16-digit format
# before it never equals one: the first compile after the change finds no repeat in it.
DIGEST_LENGTH = 32


def items_digest(plan: Plan) -> str:
    """The digest of a plan's items, as the revisions' history records them: the first
    DIGEST_LENGTH hex digits of the SHA-256 of each item's id, change, proof, evidence
    (normalized: ``a.py:3`` is ``{path: a.py, line: 3}``), dependencies, options (by name; one
    given as its default is left out) and the keys that could not be read, for every item of the
    file, in its order. Equal digests, the same items, as ``diff`` compares them; a plan read back
    from its evidence-plan.json has its digest. Encoded a batch of items at a time (the C
    encoder's calls are what it costs): 0.2 to 0.35 s for 100,000 items."""
    import hashlib

    digest = hashlib.sha256()
    encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode
    defaults = _OPTION_DEFAULTS
    items = plan.every_item()  # those that could not be read too: a blocked plan often has some
    for start in range(0, len(items), _DIGEST_BATCH):
        rows = [[item.id, item.change, item.proof, item.evidence, item.depends_on,
                 sorted((pair for pair in item.options if defaults.get(pair[0], _ABSENT) != pair[1]), key=_first_of)
                 if item.options else (), item.broken] for item in items[start:start + _DIGEST_BATCH]]
        digest.update(encode(rows).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:DIGEST_LENGTH]


_DIGEST_BATCH = 1024  # items encoded at once (part of what the digest is: never change it within a format)


def _first_of(pair: tuple[str, Any]) -> str:
    return pair[0]


class Revision(NamedTuple):
    """What a compile records of its place among the revisions compiled to its output folder."""

    number: int  # this compile's revision
    changes: Any  # against the previous one (compact: ``changes``); None for the first
    digest: str | None  # of this revision's items (``items_digest``), when it was needed to look for a repeat
    history: tuple[dict[str, Any], ...]  # the earlier revisions (revision, status, digest), oldest first
    repeats: int | None  # the latest earlier revision that was blocked and had these very items
    note: str | None  # why the previous file was not read (or not all of it), for stderr


def another_plan(plan: Plan, source: str | None, previous: Previous) -> bool:
    """Whether the previous file is of another plan compiled into the same folder: its ``plan``
    name and its source file both differ from this one's. A plan renamed, or moved, is the same
    plan; standard input is the same plan as any whose name it gives."""
    if previous.plan is None or previous.name == plan.name:
        return False
    return source is None or previous.source is None or os.path.normpath(os.path.abspath(source)) != previous.source


def revise(plan: Plan, previous: Previous, source: str | None = None) -> Revision:
    """This compile's revision against the evidence-plan.json it replaces: the previous revision and
    changes, as they were, when the items did not change (so that compiling the same input twice
    writes the same bytes), else the next revision and what changed. The first revision, with no
    previous plan, has no ``changes``; so has the first of a plan compiled where another plan's
    file was (``another_plan``: ``source`` is this plan's file, None for standard input), which
    is said in the note."""
    if another_plan(plan, source, previous):
        name = clip(previous.name) if previous.name is not None else "without a name"
        return revise(plan, FIRST)._replace(
            note=f"the previous evidence-plan.json there is of another plan ({name}, from"
                 f" {clip(previous.source or '<stdin>')}): {_AS_FIRST}")
    number: int = 1
    recorded: Any = None
    earlier: tuple[dict[str, Any], ...] = ()
    if previous.plan is not None:
        if previous.plan is plan:  # read_previous found the very same items: nothing to compare
            recorded = no_changes()
        else:
            old = Side(name="previous", plan=previous.plan, doc=None, status="", diagnostics=())  # type: ignore[arg-type]  # compare reads no doc
            new = Side(name="new", plan=plan, doc=None, status="", diagnostics=())  # type: ignore[arg-type]
            recorded = changes(compare(old, new, consequences=False))
        if previous.revision is not None:
            history = previous.history
            if history is None:  # a file from before the history: the previous revision is all there is
                status = previous.status or "blocked"
                history = ({"revision": previous.revision, "status": status,
                            "digest": items_digest(previous.plan) if status == "blocked" else None},)
            if not plan_changed(recorded):
                number, recorded = previous.revision, previous.changes
                earlier = tuple(e for e in history if e["revision"] < number)  # this one is written again
            else:
                number = previous.revision + 1
                earlier = history
    # Only blocked revisions are compared (a ready plan may well return to an earlier ready one), so
    # the digest is made only when one is: most compiles, ready ones of plans never blocked, pay nothing.
    blocked = [e for e in earlier if e["status"] == "blocked"]
    digest = items_digest(plan) if blocked else None
    repeats = max((e["revision"] for e in blocked if e["digest"] == digest), default=None)
    return Revision(number=number, changes=recorded, digest=digest, history=earlier, repeats=repeats,
                    note=previous.note)


def record(document: dict[str, Any], revision: Revision, plan: Plan) -> dict[str, Any]:
    """``document`` with ``revision``, ``changes`` (but in the first) and ``history`` after its
    ``status`` (and its ``reason``): the history's last entry is this revision, with the status it has now, and the
    digest of ``plan``'s items when it is blocked (null when ready: only blocked ones are compared)."""
    status = document["status"]
    digest = revision.digest if revision.digest is not None or status != "blocked" else items_digest(plan)
    history = [*revision.history, {"revision": revision.number, "status": status,
                                   "digest": digest if status == "blocked" else None}]
    out: dict[str, Any] = {}
    after = "reason" if "reason" in document else "status"  # the loop's word stays beside the status
    for key, value in document.items():
        out[key] = value
        if key == after:
            out["revision"] = revision.number
            if revision.changes is not None:
                out["changes"] = revision.changes
            out["history"] = history
    return out
