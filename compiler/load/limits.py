"""The bounds on the work one input may cause, and how an input that passes one is refused.

Each is checked where its work happens: the file's size before it is read
(compiler/load/read.py), the item count while the YAML item list is composed and right after any
parsing, YAML nesting while composing, alias expansion while building values
(compiler/load/yaml_reader.py), and the length of YAML that only the slow reader decides. The
command line sets the first two (``--max-bytes``, ``--max-items``); Python callers pass a
``Limits``.
"""

from __future__ import annotations

from typing import NamedTuple

from compiler.core.diagnostics import PlanInputError
from compiler.load.errors import input_error
from compiler.load.sourcemap import Position


class Limits(NamedTuple):
    """Bounds on the work one input may cause; each is refused with a clear error (exit 2)."""

    max_bytes: int = 256 * 1024 * 1024  # the file's size
    max_items: int = 1_000_000  # work items in one plan
    # YAML only. Plans are a few levels deep; JSON nesting is bounded by Python's own parser
    # (about 1,000 levels), and nothing after parsing recurses on the data.
    max_depth: int = 100
    # Nodes that aliases may add beyond the document's own: a "billion laughs" document is
    # refused long before it costs memory (counting aliases alone is not enough: 73 make a bomb).
    max_alias_nodes: int = 100_000
    # YAML that the fast reader (libyaml) is not sure of goes to ruamel.yaml, which reads 70-300
    # KB a second (deep nesting is the slow end): past this many characters, such a file gets
    # libyaml's answer instead (its error, or what it was not sure of and where), so that no plan
    # takes more than a few seconds, let alone minutes, to refuse.
    max_reference_chars: int = 1 << 18


DEFAULT_LIMITS = Limits()


def too_large(name: str, limits: Limits) -> PlanInputError:
    return input_error("EP007", f"larger than {limits.max_bytes:,} bytes", name,
                       hint="raise the limit with --max-bytes if this plan is meant to be this large")


def too_many_items(name: str, pos: Position | None, limits: Limits) -> PlanInputError:
    return input_error("EP008", f"more than {limits.max_items:,} items", name, pos,
                       hint="raise the limit with --max-items, or split the plan")
