"""Stage 5: the compiled plan as evidence-plan.json (the source of truth).

Output is deterministic: no timestamps, stable key order, POSIX paths relative to the folder of
the JSON file, UTF-8, two-space indent, trailing newline. Writing it (atomically, and only where
it is meant to go) is compiler.core.write's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from itertools import repeat
from json.encoder import encode_basestring as encode_string
from typing import Any

from compiler.analysis.progress import DEFAULT, counts, status, tracked
from compiler.compile.pipeline import CompileResult
from compiler.core.diagnostics import Diagnostic
from compiler.core.display import escape_surrogates
from compiler.core.paths import relative_posix
from compiler.load.read import STDIN
from compiler.model.fields import FORMAT
from compiler.model.values import Item, plan_values

# The plan fields written in places of their own above: the name and the goal first, the root as
# seen from the output's folder (not as the plan gives it), the budget after the complexity, the
# claims beside the estimates they are checked with. Any other declared plan field the plan
# gives is written before the items, in the declarations' order.
_PLACED = frozenset(("plan", "goal", "root", "budget", "claims"))

JSON_NAME = "evidence-plan.json"
MARKDOWN_NAME = "evidence-plan.md"


def build_output(result: CompileResult, out_dir: str | os.PathLike[str] = ".") -> dict[str, Any]:
    """The evidence-plan.json document for a result, with paths relative to ``out_dir``."""
    # Paths are text in the JSON: a name that is not UTF-8 is written with \xNN escapes.
    source = "<stdin>" if result.path == STDIN else escape_surrogates(relative_posix(result.path, out_dir))
    root = escape_surrogates(relative_posix(result.root, out_dir))

    def relocate(d: Diagnostic) -> dict[str, Any]:
        out = d.to_dict()
        out.pop("fix", None)  # fixes are check's (--format json, sarif) and fix's: edits of the plan file
        for loc in [out["location"], *(n["location"] for n in out.get("related", []))]:
            if loc is not None and loc["file"] == result.document.name:
                loc["file"] = source
        return out

    # A blocked report lists every item; one that could not be read whole says which of its
    # keys (as the plan gives them) were not read.
    every = result.plan.every_item()
    items = [item.to_dict() if not item.broken else {**item.to_dict(), "invalid": list(item.broken)}
             for item in every]
    if result.plan.gives("kind") and any(entry.get("kind") == "approval" for entry in items):  # most plans have none
        _approval_states(result, every, items)
    wave_of = result.wave_of()  # empty when blocked: items then carry no wave
    if wave_of:
        for entry in items:
            entry["wave"] = wave_of.get(entry["id"])
    if result.resolved:  # only where evidence was verified
        by_position = {item.position: entry for item, entry in zip(every, items, strict=True)}
        for (position, j), (start, end, digest) in result.resolved.items():
            entry = by_position[position]["evidence"][j]
            entry["resolved_lines"] = f"{start}-{end}"
            entry["hash"] = digest
    if result.owners:  # only where the repository has a CODEOWNERS file
        for item, entry in zip(every, items, strict=True):
            if item.position in result.owners:
                entry["owners"] = list(result.owners[item.position])
                if item.position in result.owners_incomplete:
                    entry["owners_incomplete"] = True
    waves = [list(w) for w in result.waves]
    estimates = _estimates(result, every, items)
    given = plan_values(result.plan)
    document = {
        "format": FORMAT,
        "plan": given.get("plan"),  # the name and the goal are always written (null: none)
        "goal": given.get("goal"),
        "source": source,
        "root": root,
        "evidence_verified": result.evidence_verified,
        "status": result.status,
        **({"reason": reason} if (reason := result.reason()) else {}),
        "summary": {
            "items": len(items),
            "waves": len(waves),
            "widest_wave": max(map(len, waves), default=0),
            "errors": result.count("error"),
            "warnings": result.count("warning"),
        },
        "progress": _progress(every),
        "issues": [relocate(d) for d in result.diagnostics],
        "waves": waves,
        "critical_path": list(result.critical_path),
        **({"complexity": result.complexity.to_dict()} if result.complexity is not None else {}),
        **({"budget": given["budget"]} if "budget" in given else {}),
        # Every other plan field the plan gives, as it gives it (compiler/model/values.py: plan_values).
        **{name: value for name, value in given.items() if name not in _PLACED},
        "items": items,
    }
    if estimates is not None:  # only a plan that gives an estimate or a claim: the others' bytes are as they were
        if "claims" in given:
            document["claims"] = given["claims"]
        document["estimates"] = estimates
        if result.schedule is not None:
            document["schedule"] = result.schedule
        if result.forecast is not None:
            document["forecast"] = result.forecast
        document["items"] = document.pop("items")  # items stay last
    return document


def _estimates(result: CompileResult, every: tuple[Any, ...], items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Whether the plan's estimates and claims are grounded (EP112), and each flagged item's
    reasons on the item; None when the plan gives neither."""
    given = [(item, entry) for item, entry in zip(every, items, strict=True)
             if item.options and item.option("estimate") is not None] if result.plan.gives("estimate") else []
    if not given and not result.plan.claims:
        return None
    from compiler.analysis.estimates import flags
    from compiler.model.fields import UNITS_STATED

    flagged: list[dict[str, Any]] = []
    for item, entry in given:
        reasons = [flag.reason for flag in flags(item.option("estimate"), result.max_spread)]
        if reasons:
            entry["ungrounded"] = reasons
            flagged += [{"item": item.id, "claim": None, "reason": reason} for reason in reasons]
    for n, (_, claim) in enumerate(result.plan.claims, 1):
        flagged += [{"item": None, "claim": n, "reason": flag.reason} for flag in flags(claim, result.max_spread)]
    return {"grounded": not flagged, "max_spread": result.max_spread, "units": UNITS_STATED,
            "estimated": len(given), "missing": len(every) - len(given), "flagged": flagged}


def _approval_states(result: CompileResult, every: tuple[Any, ...], entries: list[dict[str, Any]]) -> None:
    """Each approval item's state, what it covers and its digest now (compiler/analysis/approvals.py)."""
    from compiler.analysis.approvals import states

    found = states(result.plan.items)
    done: set[str] = set()
    for item, entry in zip(every, entries, strict=True):
        state = found.get(item.id)
        if state is None or state.coverage is None or item.id in done or entry.get("kind") != "approval":
            continue
        done.add(item.id)
        entry["approval_state"] = state.state
        entry["approval_covers"] = list(state.coverage.covers)
        entry["approval_digest_now"] = state.coverage.digest


def _progress(every: tuple[Item, ...]) -> dict[str, int]:
    """Items per status: an item that does not give one is todo (and is written without it, so
    that a compiled file reads back as the plan it was made from); one whose status could not be
    read (see its ``invalid``) is not counted."""
    if not tracked(every):
        return counts([DEFAULT] * sum(1 for item in every if "id" not in item.broken))
    return counts([status(item) for item in every if "id" not in item.broken and "status" not in item.broken])


def _c_encoder() -> Any:
    """json's C encoder, made once: ``JSONEncoder.encode`` builds a new one per call, which is
    most of the cost of encoding a plan element by element. (json's indent= would switch to the
    pure-Python encoder, 20x slower on large plans.) No circular-reference markers: a compiled
    document is a tree by construction."""
    from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]

    if c_make_encoder is None:  # pragma: no cover - CPython always has it
        return None

    def refuse(value: Any) -> Any:
        raise TypeError(f"{type(value).__name__} is not JSON")

    return c_make_encoder(None, refuse, encode_basestring, None, ": ", ", ", False, False, False)


_C_ENCODER = _c_encoder()
_SLOW_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": ")).encode


def _encode(value: Any) -> str:
    if _C_ENCODER is None:  # pragma: no cover
        return _SLOW_ENCODE(value)
    if isinstance(value, str):
        return encode_string(value)
    return "".join(_C_ENCODER(value, 0))


# Elements encoded and joined at a time, when the document is written in pieces.
PIECE = 2_000


def _elements(values: list[Any]) -> Iterator[str]:
    """The elements of a list, one per line, a piece at a time: the C encoder called directly,
    without _encode's checks (it takes strings too), since a plan's items list is most of the
    document."""
    encoder = _C_ENCODER
    for start in range(0, len(values), PIECE):
        piece = values[start:start + PIECE]
        if encoder is None:  # pragma: no cover
            text = ",\n".join([f"    {_encode(value)}" for value in piece])
        else:  # each element's chunks joined, in C: no Python step per element
            text = "    " + ",\n    ".join(map("".join, map(encoder, piece, repeat(0))))
        yield text if start == 0 else ",\n" + text


def dump_pieces(document: Any) -> Iterator[str]:
    """``dumps``, as pieces that join to it: a large plan's JSON is written as it is made, and
    never held whole (at a million items, the text and its list of lines were 700 MB). Each
    piece holds whole strings, and no ``##[`` (compiler.core.cilog.json_safe: the data is the same)."""
    from compiler.core.cilog import json_pieces

    return json_pieces(_pieces(document))


def _pieces(document: Any) -> Iterator[str]:
    if not isinstance(document, dict):
        yield _encode(document) + "\n"
        return
    yield "{\n"
    last = len(document) - 1
    for n, (key, value) in enumerate(document.items()):
        comma = "," if n < last else ""
        if isinstance(value, list) and value:
            yield f"  {_encode(key)}: [\n"
            yield from _elements(value)
            yield f"\n  ]{comma}\n"
        else:
            yield f"  {_encode(key)}: {_encode(value)}{comma}\n"
    yield "}\n"


def dumps(document: Any) -> str:
    """A top-level object with one key per line, and each list one element per line: readable,
    diff-friendly (a changed item is a changed line), and fast."""
    return "".join(dump_pieces(document))
