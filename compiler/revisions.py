"""The model of a change between two plans (`evidence-plan diff OLD NEW`; a later `compile` can
record its ``changes`` with the same model): plain functions over plain data.

Items are compared by id (the first item of each id, as the waves take them):

- ``added`` and ``removed``: ids only one side has, less the renamed ones;
- ``renamed``: a removed item and an added one whose *content* is identical. The content is every
  field of compiler/fields.py's ITEM_FIELDS but ``id`` and ``depends_on``: the id is what changed,
  and the dependencies are ids themselves (an item whose dependency was renamed too would never
  pair), so they are compared as edges, after the renames are mapped. Pairs are made by content,
  in the plans' order, each item at most once;
- ``revised``: an id both sides have, with each field that changed, old and new value. Evidence is
  compared in its normalized form (``a.py:3`` is ``{path: a.py, line: 3}``), an absent optional
  field as its default (no ``status`` is ``status: todo``), ``depends_on`` after the renames;
- ``edges``: dependency edges (item -> dependency) added and removed, old ids mapped through the
  renames;
- ``waves``: the items of both plans (renamed ones under their new id) whose wave changed,
  ``direct`` when the item itself was revised, ``indirect`` when it was not (it moved because
  something it depends on changed);
- ``status`` of each plan and the issues NEW has that OLD has not (``issues.added``), and the
  reverse (``issues.resolved``), by code and item;
- ``timing``: each ready plan's critical path by median estimate, its best and worst case, and the
  forecast's P50, P80 and P95 (compiler/forecast.py, seeded: the same plans, the same figures);
  null for a side that is blocked or gives no estimate, and null as a whole when both are;
- ``approvals.voided``: the approvals whose record held in OLD and is stale in NEW: the revision
  changed what they cover (compiler/approvals.py), so they must be passed again.

Linear: each step is one pass over the items (dicts keyed by id or by content).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler import fields
from compiler.diagnostics import Diagnostic, Location, PlanInputError
from compiler.display import clip

if TYPE_CHECKING:
    from compiler.load import Document, Limits
    from compiler.values import Item, Plan

# How long `git show` may take before the read is abandoned (a hung credential helper, a huge repository).
GIT_TIMEOUT = 30
# The fields compared (every item field), and the ones a rename may not change (all but id, depends_on).
COMPARED = tuple(f for f in fields.ITEM_FIELDS if f.name != "id")
CONTENT = tuple(f for f in COMPARED if f.name != "depends_on")


class Side(NamedTuple):
    """One plan of a comparison, as read and checked."""

    name: str  # as messages name it: the path, <stdin>, or REV:path
    plan: Plan
    doc: Document  # for the items' lines (its source map)
    status: str  # ready or blocked
    diagnostics: tuple[Diagnostic, ...]


def is_revision(arg: str) -> bool:
    """Whether ``arg`` names a file of git history (``REV:path``) rather than a file: only when no
    file of that name exists, it has a ``:`` with text on both sides, the revision does not start
    with ``-`` (``--output=x:y`` would be an option of git's), and it is not a Windows drive
    (``C:\\x``, ``C:/x``)."""
    if arg == "-" or "\x00" in arg or os.path.lexists(arg):  # a NUL: no file, and no argument of git's
        return False
    rev, sep, path = arg.partition(":")
    if not sep or not rev or not path or rev.startswith("-"):  # git would read "-..." as an option
        return False
    return not (len(rev) == 1 and rev.isalpha() and path[:1] in ("\\", "/"))


def git_show(arg: str, limits: Limits) -> str:
    """The text of ``REV:path`` by ``git show`` in the working folder (no shell, a timeout); an
    EP001 input error when git is missing, the folder is no git repository, or the revision or
    the path is unknown."""
    import subprocess

    def fail(message: str, hint: str | None = None) -> PlanInputError:
        return PlanInputError(Diagnostic("EP001", message, None, Location(arg), hint=hint))

    try:
        done = subprocess.run(["git", "show", "--no-textconv", arg], capture_output=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise fail("cannot read it from git history: git is not installed", "install git, or give a file") from None
    except subprocess.TimeoutExpired:
        raise fail(f"git show took longer than {GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        # git's own words are on its "fatal:" line; what follows it is advice (a safe.directory
        # command for a repository owned by another user, say), which the hint replaces.
        fatal = [line for line in said if line.startswith("fatal: ")]
        reason = (fatal[0] if fatal else said[-1]).removeprefix("fatal: ") if said else (
            f"git show exited with {done.returncode}")
        hint = ("run it inside the git repository" if "not a git repository" in reason else
                "git refuses a repository another user owns: mark it safe (git config --global --add"
                " safe.directory DIR) if you trust it" if "dubious ownership" in reason else
                "REV:path reads path (relative to the repository's top; REV:./path to the working folder) as it "
                "was at REV; a file of that name would be read instead")
        raise fail(f"cannot read it from git history: {reason}", hint)
    if len(done.stdout) > limits.max_bytes:
        raise fail(f"larger than {limits.max_bytes:,} bytes", "raise the limit with --max-bytes")
    from compiler.load import decode

    return decode(done.stdout, arg)


def load_plan_argument(arg: str, *, stdin: Any = None, limits: Limits) -> tuple[Document, str]:
    """The document a command's plan argument names, and the path its relative paths start from:
    a file (or a compiled evidence-plan.json), ``-`` (standard input), or ``REV:path`` from git
    history, whose relative paths start from the working folder, as standard input's do."""
    from compiler.load import STDIN, detect_format, load, parse_text

    if is_revision(arg):
        text = git_show(arg, limits)
        return parse_text(text, arg, detect_format(arg.partition(":")[2], text), limits=limits), STDIN
    return load(arg, stdin=stdin, limits=limits), arg


def read_side(arg: str, *, stdin: Any = None, root: str | None = None, verify_evidence: bool = False,
              limits: Limits | None = None) -> Side:
    """Read and check one plan: a plan file or a compiled evidence-plan.json, ``-`` (standard
    input) or ``REV:path``. Raises PlanInputError when it is not a usable plan."""
    from compiler.compile import compile_document
    from compiler.load import DEFAULT_LIMITS

    doc, path = load_plan_argument(arg, stdin=stdin, limits=limits or DEFAULT_LIMITS)
    result = compile_document(doc, path, root=root, verify_evidence=verify_evidence, order=False)
    return Side(doc.name, result.plan, doc, result.status, result.diagnostics)


def _default(field: fields.Field) -> Any:
    default = field.default
    return list(default) if isinstance(default, tuple) else default


def field_value(item: Item, field: fields.Field) -> Any:
    """An item's value of ``field`` as plain JSON data, normalized: evidence as objects, an
    absent optional field as its default."""
    name = field.name
    if name == "change":
        return item.change
    if name == "proof":
        return item.proof
    if name == "evidence":
        return [e.to_dict() for e in item.evidence]
    if name == "depends_on":
        return list(item.depends_on)
    value = item.option(name, fields.REQUIRED)
    return _default(field) if value is fields.REQUIRED else value


def content_key(item: Item) -> str:
    """The item's content (every field but id and depends_on) as one canonical text: equal
    texts, equal content."""
    return json.dumps([field_value(item, f) for f in CONTENT], sort_keys=True, ensure_ascii=False, default=str)


def _first(items: tuple[Item, ...]) -> dict[str, Item]:
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.id, item)
    return first


def compare(old: Side, new: Side) -> dict[str, Any]:
    """The change from ``old`` to ``new``: plain JSON data, its keys documented in the README."""
    from compiler.progress import wave_numbers

    before, after = _first(old.plan.items), _first(new.plan.items)
    gone = [ident for ident in before if ident not in after]
    came = [ident for ident in after if ident not in before]
    # Renames: a removed item whose content an added one has, each at most once, in order.
    by_content: dict[str, list[str]] = {}
    for ident in came:
        by_content.setdefault(content_key(after[ident]), []).append(ident)
    for waiting in by_content.values():
        waiting.reverse()  # pop() takes the first in the plan's order
    renamed: dict[str, str] = {}
    for ident in gone:
        pair = by_content.get(content_key(before[ident]))
        if pair:
            renamed[ident] = pair.pop()
    was = {b: a for a, b in renamed.items()}  # new id -> old id

    def mapped(ident: str) -> str:
        return renamed.get(ident, ident)

    revised = []
    for ident, item in after.items():
        prior = before.get(ident)
        if prior is None:
            continue
        if (prior.change == item.change and prior.proof == item.proof and prior.evidence == item.evidence
                and prior.options == item.options and prior.depends_on == item.depends_on
                and not (renamed and any(d in renamed for d in item.depends_on))):
            continue  # most items: the same, without a field-by-field look
        changed: dict[str, dict[str, Any]] = {}
        for f in COMPARED:
            a, b = field_value(prior, f), field_value(item, f)
            if f.name == "depends_on":
                if [mapped(d) for d in a] != b:
                    changed[f.name] = {"old": a, "new": b}
            elif a != b:
                changed[f.name] = {"old": a, "new": b}
        if changed:
            revised.append({"id": ident, "fields": changed})
    old_edges = ({(mapped(i), mapped(d)) for i, item in before.items() for d in item.depends_on} if renamed else
                 {(i, d) for i, item in before.items() for d in item.depends_on})  # most revisions rename nothing
    new_edges = {(i, d) for i, item in after.items() for d in item.depends_on}
    old_waves, new_waves = wave_numbers(old.plan.items), wave_numbers(new.plan.items)
    edited = {r["id"] for r in revised}
    moved: dict[str, list[dict[str, Any]]] = {"direct": [], "indirect": []}
    for ident in after:
        a, b = old_waves.get(was.get(ident, ident)), new_waves.get(ident)
        if a is not None and b is not None and a != b:
            moved["direct" if ident in edited else "indirect"].append({"id": ident, "old": a, "new": b})
    issues = _issues(old.diagnostics, new.diagnostics, mapped)
    timing: dict[str, Any] = {"old": _timing(old, old_waves)}
    # The same items, estimates, statuses and edges, both ready: the same schedule and forecast
    # (seeded), so it is not run twice (a forecast of 100,000 items takes seconds).
    same_shape = (not came and not gone and not (new_edges ^ old_edges) and old.status == new.status
                  and not any({"estimate", "status"} & set(r["fields"]) for r in revised))
    timing["new"] = timing["old"] if same_shape else _timing(new, new_waves)
    out: dict[str, Any] = {
        "revision": {"old": old.name, "new": new.name},
        "added": [_brief(after[i], new_waves) for i in came if i not in was],
        "removed": [_brief(before[i], old_waves) for i in gone if i not in renamed],
        "revised": revised,
        "renamed": [{"old": a, "new": b} for a, b in renamed.items()],
        "edges": {"added": [_edge(e) for e in sorted(new_edges - old_edges)],
                  "removed": [_edge(e) for e in sorted(old_edges - new_edges)]},
        "waves": moved,
        "status": {"old": old.status, "new": new.status},
        "issues": issues,
        "timing": timing if timing["old"] is not None or timing["new"] is not None else None,
        "approvals": {"voided": _voided(old.plan.items, new.plan.items, mapped)},
    }
    out["same"] = not differs(out)
    return out


def _timing(side: Side, wave_of: dict[str, int]) -> dict[str, Any] | None:
    """A ready plan's critical path by median estimate and its forecast (compiler/forecast.py, as
    compile computes them: the same waves, ids sorted in each), when an item gives an estimate."""
    items = side.plan.items
    if side.status != "ready" or not any(item.options and item.option("estimate") is not None for item in items):
        return None
    from compiler.forecast import monte_carlo, schedule

    waves: list[list[str]] = [[] for _ in range(max(wave_of.values(), default=0))]
    for ident, n in wave_of.items():
        waves[n - 1].append(ident)
    for wave in waves:
        wave.sort()
    planned, forecast = schedule(items, waves), monte_carlo(items, waves)
    if planned is None:
        return None
    out = {key: planned[key] for key in ("critical_path", "median_hours", "best_hours", "worst_hours")}
    if forecast is not None:
        out.update({key: forecast[key] for key in ("p50_hours", "p80_hours", "p95_hours")})
    return out


def _voided(old: tuple[Item, ...], new: tuple[Item, ...], mapped: Any) -> list[dict[str, Any]]:
    """The approvals that held in OLD (their recorded digest matched what they cover) and no longer
    do in NEW (compiler/approvals.py): what the revision voids, with what each now covers."""
    from compiler.approvals import is_approval, states

    if not any(is_approval(item) for item in new if item.options):
        return []
    held = {mapped(ident) for ident, state in states(old).items() if state.state == "current"}
    return [{"id": ident, "covers": list(state.coverage.covers)} for ident, state in states(new).items()
            if state.state == "stale" and ident in held]


def _brief(item: Item, waves: dict[str, int]) -> dict[str, Any]:
    return {"id": item.id, "change": item.change, "wave": waves.get(item.id)}


def _edge(edge: tuple[str, str]) -> dict[str, str]:
    return {"item": edge[0], "depends_on": edge[1]}


def _issues(old: tuple[Diagnostic, ...], new: tuple[Diagnostic, ...], mapped: Any) -> dict[str, list[dict[str, Any]]]:
    """The issues (errors and warnings) NEW has that OLD has not, and the reverse, by code and item
    (old items under their new ids): lines move with every edit, messages with every rename."""
    before = {(d.code, mapped(d.item) if d.item else d.item) for d in old}
    after = {(d.code, d.item) for d in new}
    return {"added": [d.to_dict() for d in new if (d.code, d.item) not in before],
            "resolved": [d.to_dict() for d in old if (d.code, mapped(d.item) if d.item else d.item) not in after]}


def differs(change: dict[str, Any]) -> bool:
    """Whether the comparison found any difference."""
    return bool(change["added"] or change["removed"] or change["revised"] or change["renamed"]
                or change["edges"]["added"] or change["edges"]["removed"]
                or change["status"]["old"] != change["status"]["new"]
                or change["issues"]["added"] or change["issues"]["resolved"])


def item_lines(side: Side) -> Callable[[str], int | None]:
    """The line of an item of ``side``'s file by its id, from its source map (the first item of
    the id; None for an id it has not). The items are indexed once, for every row that asks."""
    first = _first(side.plan.items)

    def line(ident: str) -> int | None:
        item = first.get(ident)
        if item is None:
            return None
        pos = side.doc.source_map.value((*side.plan.items_path, item.position))
        return pos[0] if pos else None

    return line


# What `compile` records of the change against the evidence-plan.json it replaces: the keys of
# `diff --format json` that describe the plan itself (not its status or issues, which depend on the
# repository as much as on the plan), in a compact form (compiler/output_model.py: ChangesOut).
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

    plan: Plan | None  # None: no file, or one that is no compiled plan
    revision: int | None  # its revision; None when it has none (an older compile) or no plan
    changes: Any  # its changes, as written (absent: None)
    note: str | None  # why it was not read, when it exists and was not
    status: str | None = None  # its status: ready or blocked
    history: tuple[dict[str, Any], ...] | None = None  # its history as written (absent, or unusable: None)
    source: str | None = None  # the plan file it was compiled from, absolute (None: standard input, or not said)
    name: str | None = None  # its plan's name (``plan``), as written


FIRST = Previous(None, None, None, None)  # no evidence-plan.json at the output path
_AS_FIRST = "written as revision 1, with no changes"


def read_previous(path: str, limits: Limits, plan: Plan | None = None) -> Previous:
    """The compiled plan at ``path`` (validated only: no checks, no evidence), or why not. Given
    the ``plan`` being compiled, whose items the file's are most often (a recompile), a file whose
    items are exactly ``plan``'s is not built again: its plan *is* ``plan`` (``same_items``)."""
    if not os.path.isfile(path):  # none; or a FIFO or device compile writes to (never read), or a folder
        return FIRST
    from compiler.load import load
    from compiler.validate import build_plan

    try:
        doc = load(path, limits=limits)
    except PlanInputError as err:
        return Previous(None, None, None,
                        f"the previous {path} cannot be read ({err.diagnostic.message}): {_AS_FIRST}")
    data = doc.data
    if (doc.format != "json" or not isinstance(data, dict)
            or not str(data.get("format", "")).startswith("evidence-plan")):
        return Previous(None, None, None, f"the previous {path} is not a compiled evidence-plan.json: {_AS_FIRST}")
    if plan is None or not same_items(data.get("items"), plan):
        try:
            plan = build_plan(doc)
        except PlanInputError as err:
            return Previous(None, None, None,
                            f"the previous {path} cannot be read ({err.diagnostic.message}): {_AS_FIRST}")
    del doc
    revision, recorded, status = data.get("revision"), data.get("changes"), data.get("status")
    source, name = data.get("source"), data.get("plan")  # its source relative to the JSON's folder, as written
    source = (os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), source))
              if isinstance(source, str) and source != "<stdin>" else None)
    known = Previous(plan, None, None, None, status if status in ("ready", "blocked") else None, None, source,
                     name if isinstance(name, str) else None)
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


def same_items(raw: Any, plan: Plan) -> bool:
    """Whether a compiled file's items (as loaded) are exactly ``plan``'s, as compile writes them:
    each the item's ``to_dict()`` with the output's own keys (compiler/fields.py: COMPILED_*) added.
    The fast path of a recompile: True means the file reads back as these items (the slow path,
    build_plan and compare, would find no change; held to it by tests/test_revisions_compile.py),
    False only that the slow path must look."""
    every = plan.every_item()
    if type(raw) is not list or len(raw) != len(every):
        return False
    strip_item, strip_evidence = _OUTPUT_ONLY_ITEM, _OUTPUT_ONLY_EVIDENCE
    for written, item in zip(raw, every, strict=True):
        if type(written) is not dict:
            return False
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
_OPTION_DEFAULTS = {f.name: _default(f) for f in COMPARED
                    if f.name not in ("change", "evidence", "depends_on", "proof")}
_ABSENT = object()


def items_digest(plan: Plan) -> str:
    """The digest of a plan's items, as the revisions' history records them: the first 16 hex digits
    of the SHA-256 of each item's id, change, proof, evidence (normalized: ``a.py:3`` is ``{path:
    a.py, line: 3}``), dependencies, options (by name; one given as its default is left out) and the
    keys that could not be read, for every item of the file, in its order. Equal digests, the same
    items, as ``diff`` compares them; a plan read back from its evidence-plan.json has its digest.
    Encoded a batch of items at a time (the C encoder's calls are what it costs): 0.2 to 0.35 s for
    100,000 items."""
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
    return digest.hexdigest()[:16]


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
            old = Side("previous", previous.plan, None, "", ())  # type: ignore[arg-type]  # compare reads no doc
            new = Side("new", plan, None, "", ())  # type: ignore[arg-type]
            recorded = changes(compare(old, new))
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
    return Revision(number, recorded, digest, earlier, repeats, previous.note)


def record(document: dict[str, Any], revision: Revision, plan: Plan) -> dict[str, Any]:
    """``document`` with ``revision``, ``changes`` (but in the first) and ``history`` after its
    ``status``: the history's last entry is this revision, with the status it has now, and the
    digest of ``plan``'s items when it is blocked (null when ready: only blocked ones are compared)."""
    status = document["status"]
    digest = revision.digest if revision.digest is not None or status != "blocked" else items_digest(plan)
    history = [*revision.history, {"revision": revision.number, "status": status,
                                   "digest": digest if status == "blocked" else None}]
    out: dict[str, Any] = {}
    for key, value in document.items():
        out[key] = value
        if key == "status":
            out["revision"] = revision.number
            if revision.changes is not None:
                out["changes"] = revision.changes
            out["history"] = history
    return out
