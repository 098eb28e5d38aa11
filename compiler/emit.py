"""Stage 5: the compiled plan as evidence-plan.json (the source of truth).

Output is deterministic: no timestamps, stable key order, POSIX paths relative to the folder of
the JSON file, UTF-8, two-space indent, trailing newline. Writing it (atomically, and only where
it is meant to go) is compiler.write's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from json.encoder import encode_basestring as encode_string
from typing import Any

from compiler.compile import CompileResult
from compiler.diagnostics import Diagnostic
from compiler.display import escape_surrogates
from compiler.fields import FORMAT
from compiler.load import STDIN
from compiler.paths import relative_posix

JSON_NAME = "evidence-plan.json"
MARKDOWN_NAME = "evidence-plan.md"


def build_output(result: CompileResult, out_dir: str | os.PathLike[str] = ".") -> dict[str, Any]:
    """The evidence-plan.json document for a result, with paths relative to ``out_dir``."""
    # Paths are text in the JSON: a name that is not UTF-8 is written with \xNN escapes.
    source = "<stdin>" if result.path == STDIN else escape_surrogates(relative_posix(result.path, out_dir))
    root = escape_surrogates(relative_posix(result.root, out_dir))

    def relocate(d: Diagnostic) -> dict[str, Any]:
        out = d.to_dict()
        for loc in [out["location"], *(n["location"] for n in out.get("related", []))]:
            if loc is not None and loc["file"] == result.document.name:
                loc["file"] = source
        return out

    # A blocked report lists every item; one that could not be read whole says which of its
    # keys (as the plan gives them) were not read.
    every = result.plan.every_item()
    items = [item.to_dict() if not item.broken else {**item.to_dict(), "invalid": list(item.broken)}
             for item in every]
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
    waves = [list(w) for w in result.waves]
    return {
        "format": FORMAT,
        "plan": result.plan.name,
        "goal": result.plan.goal,
        "source": source,
        "root": root,
        "evidence_verified": result.evidence_verified,
        "status": result.status,
        "summary": {
            "items": len(items),
            "waves": len(waves),
            "widest_wave": max(map(len, waves), default=0),
            "errors": result.count("error"),
            "warnings": result.count("warning"),
        },
        "issues": [relocate(d) for d in result.diagnostics],
        "waves": waves,
        "critical_path": list(result.critical_path),
        "items": items,
    }


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
        else:
            text = ",\n".join(["    " + "".join(encoder(value, 0)) for value in piece])
        yield text if start == 0 else ",\n" + text


def dump_pieces(document: Any) -> Iterator[str]:
    """``dumps``, as pieces that join to it: a large plan's JSON is written as it is made, and
    never held whole (at a million items, the text and its list of lines were 700 MB)."""
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
