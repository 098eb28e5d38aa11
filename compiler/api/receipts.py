"""`verify`'s receipts: ``RECEIPTS`` beside the compiled artifacts, written whole at the end of a
run, and ``JOURNAL``, one JSON line per receipt appended as each comes (an interrupted run keeps
what finished, at a cost linear in the items; ``--resume`` goes on from it). The receipts name the
plan (its items' digest, its revision, the repository's commit) and hold each selected item's
receipt and the cache: the last result and key of every item ever hashed, carried over for the
items a run did not select. docs/reference/verify.md describes the format field by field."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from compiler.api.compile import RECEIPTS as RECEIPTS  # named where compile looks for it
from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.report.receipts import FORMAT as FORMAT
from compiler.report.receipts import PASSING

if TYPE_CHECKING:
    from compiler.api.verify import Receipt, Verified
    from compiler.compile.pipeline import CompileResult
    from compiler.model.values import Plan

JOURNAL = RECEIPTS + "l"  # evidence-plan.verify.jsonl: one line per result, as it comes


def plan_digest(result: CompileResult) -> str:
    """What names the plan in the receipts and the journal: its items' digest, as the revisions'
    history takes it (compiler/compile/history.py), so that ``--resume`` refuses another plan's."""
    from compiler.compile.history import items_digest

    return items_digest(result.plan)


def revision(folder: str, plan: Plan) -> int | None:
    """The plan's revision, as the evidence-plan.json in ``folder`` records it, when that file
    compiled these same items (compiler/compile/history.py: same_items); None otherwise."""
    from compiler.compile.emit import JSON_NAME
    from compiler.compile.history import same_items

    try:
        with open(os.path.join(folder, JSON_NAME), encoding="utf-8") as handle:
            compiled = json.load(handle)
    except (OSError, ValueError):
        return None
    number = compiled.get("revision") if isinstance(compiled, dict) else None
    return number if type(number) is int and same_items(compiled.get("items"), plan) else None


def _git(root: str, *args: str) -> str | None:
    from compiler.repo.history import git_output

    said = git_output(root, *args)
    return None if said is None else said.decode("utf-8", "replace")


def git_state(root: str) -> tuple[str | None, bool | None]:
    """The commit the root's work tree is at, and whether a tracked file has changed since (None,
    None outside git)."""
    commit = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    if not commit:
        return None, None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return commit.strip(), (None if status is None else bool(status.strip()))


def tracked(path: str) -> bool:
    """Whether git tracks the file at ``path`` (a committed receipts file is not trusted as a cache:
    a commit could claim passes that never ran)."""
    folder, name = os.path.split(os.path.abspath(path))
    return _git(folder, "ls-files", "--error-unmatch", "--", name) is not None


def previous_cache(path: str) -> tuple[dict[str, dict[str, Any]], str | None]:
    """The cache of the receipts at ``path``, and why it was not used when it was not (None: used,
    or no file). Only entries of a sane shape are kept."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as error:
        return {}, f"{RECEIPTS} could not be read ({error}): every item runs"
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return {}, f"{RECEIPTS} is not one that verify wrote: every item runs"
    if tracked(path):
        return {}, f"{RECEIPTS} is committed to git, so its cache is not trusted: every item runs"
    cache = document.get("cache")
    if not isinstance(cache, dict):
        return {}, None
    return {ident: entry for ident, entry in cache.items() if isinstance(entry, dict)
            and isinstance(entry.get("key"), str) and isinstance(entry.get("result"), str)}, None


def resumable(path: str, digest: str) -> dict[str, dict[str, Any]]:
    """What the interrupted run journaled at ``path`` passed (or approved, cached), id -> its
    journaled receipt; a PlanInputError (exit 2) when there is no journal, or it is another plan's."""
    def refuse(why: str) -> PlanInputError:
        return PlanInputError(Diagnostic("EP001", f"cannot resume: {why}", location=Location(path)))

    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        raise refuse("no interrupted run's journal is here (the last run finished, or none ran)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise refuse(f"its journal cannot be read ({error})") from None
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise refuse("the journal is not one that verify wrote")
    if header.get("plan_digest") != digest:
        raise refuse("the journal is of another plan, or of this one before it changed (its items' digest differs)")
    passed: dict[str, dict[str, Any]] = {}
    for line in lines[1:]:
        try:
            entry = json.loads(line)
        except ValueError:  # a line cut short by the interruption
            continue
        if isinstance(entry, dict) and entry.get("result") in PASSING and isinstance(entry.get("id"), str):
            entry["started"] = str(entry.get("started") or "earlier")
            passed[entry["id"]] = entry
    return passed


def cache_entries(before: dict[str, dict[str, Any]], receipts: list[Receipt]) -> dict[str, dict[str, Any]]:
    """The cache the receipts carry: ``before``'s entries, each replaced by this run's result of the
    item where its proof ran, in id order (a cached item's entry stands, with the time it passed)."""
    out = dict(before)
    for r in receipts:
        if r.cache_key is not None and r.parts is not None and r.attempts:
            out[r.step.id] = {"key": r.cache_key, "result": r.result, "started": r.attempts[0].started,
                              "parts": r.parts}
    return {ident: out[ident] for ident in sorted(out)}


def receipts_document(verified: Verified, *, source: str, digest: str, started: str, revision: int | None,
                      commit: str | None, dirty: bool | None,
                      before: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The receipts file's content: the plan and the run, the counts, each item's receipt in wave
    order, and the cache."""
    return {"format": FORMAT, "source": source, "plan_digest": digest, "revision": revision, "commit": commit,
            "dirty": dirty, "started": started, "status": "passed" if verified.passed else "failed",
            "interrupted": verified.interrupted, "counts": verified.counts(),
            "items": [r.to_dict() for r in verified.receipts],
            "cache": cache_entries(before, verified.receipts)}


class Journal:
    """``JOURNAL``: one JSON line per receipt, appended and flushed as each comes. Its path is
    checked as every target is (compiler/core/targets.py: check_targets) before anything runs."""

    def __init__(self, path: str, digest: str) -> None:
        self.path = path
        self.handle = open(path, "w", encoding="utf-8")  # closed by close()
        self.handle.write(json.dumps({"format": FORMAT, "plan_digest": digest}) + "\n")  # whose journal it is
        self.handle.flush()

    def add(self, receipt: Receipt) -> None:
        self.handle.write(json.dumps(receipt.to_dict(), ensure_ascii=False) + "\n")
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()

