"""`verify PLAN ID... --receipts-from DIR`: run the IDs alone and take their dependencies' results
from the receipts that other runs wrote, as the jobs of a fanned-out workflow do (compiler/api/ci.py:
the jobs of wave N get the receipts of the waves before it).

A dependency counts as passed only when a receipts file under DIR (``evidence-plan.verify.json``,
at any depth) of the same plan, by its items' digest (``plan_digest``), lists it with a passing
result, and no such file lists it otherwise. Files of another plan, or of this one before its items
changed, are counted and ignored; so is what is not a receipts file verify wrote. A dependency that
no receipt shows passed is not run: its dependents are skipped, naming it (compiler/api/verify.py:
run_steps' ``settled``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import NamedTuple

from compiler.api.receipts import FORMAT, RECEIPTS
from compiler.api.verify import Step
from compiler.report.receipts import PASSED, PASSING

# Bounds of reading a folder of downloaded receipts: the files looked at, and each one's size.
MAX_FILES = 100_000
MAX_BYTES = 256 * 1024 * 1024


class Settled(NamedTuple):
    """What the receipts under a folder say of this plan's items."""

    results: dict[str, str]  # id -> "passed" when every listing of it passed, else its first other result
    read: int  # receipts files of this plan
    other: int  # files named like receipts that are of another plan, or not receipts verify wrote

    def note(self, folder: str) -> str:
        """One line for people: what was found (the folder shown as given)."""
        said = f"{self.read} receipts file{'' if self.read == 1 else 's'} of this plan in {folder}"
        return said + (f" ({self.other} other file{'' if self.other == 1 else 's'} ignored: another plan's, or"
                       " not receipts)" if self.other else "")


def _receipt_files(folder: str) -> list[str]:
    """Every regular file named ``RECEIPTS`` under ``folder`` (symlinks are not followed), in a
    stable order; more than ``MAX_FILES`` is an input error."""
    from compiler.core.diagnostics import Diagnostic, Location, PlanInputError

    found: list[str] = []
    for top, folders, files in os.walk(folder):
        folders.sort()
        if RECEIPTS in files and not os.path.islink(os.path.join(top, RECEIPTS)):
            found.append(os.path.join(top, RECEIPTS))
            if len(found) > MAX_FILES:
                raise PlanInputError(Diagnostic("EP001", f"more than {MAX_FILES:,} receipts files under this folder",
                                                location=Location(folder)))
    return found


def _items(path: str, digest: str) -> list[dict[str, object]] | None:
    """The items of a receipts file of the plan named by ``digest``; None for anything else."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if (not isinstance(document, dict) or document.get("format") != FORMAT
            or document.get("plan_digest") != digest or not isinstance(document.get("items"), list)):
        return None
    return [item for item in document["items"] if isinstance(item, dict)]


def outside(steps: Sequence[Step]) -> list[str]:
    """The dependencies of ``steps`` that are not among them, in the order first named."""
    ids = {step.id for step in steps}
    return list(dict.fromkeys(d for step in steps for d in step.depends_on if d not in ids))


def settled_from(folder: str, digest: str, steps: Sequence[Step]) -> Settled:
    """The results, per the receipts under ``folder`` of the plan named by ``digest``, of the
    dependencies of ``steps`` that are not among them (``outside``). A missing folder holds none."""
    wanted_set = set(outside(steps))
    seen: dict[str, list[str]] = {}
    read = other = 0
    for path in _receipt_files(folder):
        items = _items(path, digest)
        if items is None:
            other += 1
            continue
        read += 1
        for item in items:
            ident, result = item.get("id"), item.get("result")
            if isinstance(ident, str) and isinstance(result, str) and ident in wanted_set:
                seen.setdefault(ident, []).append(result)
    results = {}
    for ident, listed in seen.items():
        bad = [r for r in listed if r not in PASSING]
        results[ident] = bad[0] if bad else PASSED
    return Settled(results=results, read=read, other=other)
