"""Load a plan file (YAML or JSON) into plain data plus a source map.

Stage 1 of the pipeline. Anything that makes the file unusable as a plan raises
``PlanInputError`` carrying a located diagnostic (exit 2 at the CLI edge); nothing here prints.

YAML is *composed* with ruamel.yaml (every node keeps its start mark) and turned into plain
values in one iterative pass, so that positions cost nothing extra, deep documents do not recurse
here, explicit tags are refused instead of constructed, and aliases are expanded under a budget.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any, Literal

from compiler.diagnostics import Diagnostic, Location, PlanInputError
from compiler.sourcemap import Path, Position, SourceMap, _Lines, scan_json

Format = Literal["yaml", "json"]

STDIN = "-"
STDIN_NAME = "<stdin>"
# Aliases may add at most this many nodes beyond the document's own: a "billion laughs"
# document is refused long before it costs memory.
MAX_ALIAS_NODES = 100_000
# Plans are a few levels deep; where a parser runs out of stack, the error names this depth.
MAX_DEPTH = 100

_YAML_EXTENSIONS = {".yaml", ".yml"}
_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null")}


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed file: plain JSON-like data, where each node came from, and the file's name."""

    data: Any
    source_map: SourceMap
    name: str
    format: Format


def _fail(code: str, message: str, name: str, pos: Position | None = None, hint: str | None = None) -> PlanInputError:
    loc = Location(name, pos[0], pos[1]) if pos else Location(name)
    return PlanInputError(Diagnostic(code, message, None, loc, hint=hint))


def read_text(path: str, *, stdin: Any = None) -> tuple[str, str]:
    """Return (display name, text). ``-`` reads standard input. Errors become EP001."""
    if path == STDIN:
        import sys

        stream = stdin if stdin is not None else sys.stdin.buffer
        raw = stream.read()
        name = STDIN_NAME
    else:
        name = path
        try:
            raw = FsPath(path).read_bytes()
        except FileNotFoundError:
            raise _fail("EP001", "no such file", name, hint="check the path") from None
        except IsADirectoryError:
            raise _fail("EP001", "is a folder, not a plan file", name) from None
        except OSError as err:
            raise _fail("EP001", f"cannot read: {err.strerror or err}", name) from None
    if isinstance(raw, str):
        return name, raw
    return name, decode(raw, name)


def decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        text = raw[: err.start].decode("utf-8", errors="replace")
        pos = _Lines(text).position(len(text))
        raise _fail("EP001", f"not UTF-8 (byte 0x{raw[err.start]:02x})", name, pos,
                    hint="save the plan as UTF-8") from None


def detect_format(path: str, text: str) -> Format:
    suffix = FsPath(path).suffix.lower() if path != STDIN else ""
    if suffix == ".json":
        return "json"
    if suffix in _YAML_EXTENSIONS:
        return "yaml"
    # By content: JSON documents start with { or [ ; everything else is read as YAML.
    head = text.lstrip()[:1]
    return "json" if head in ("{", "[") and path == STDIN else "yaml"


def load(path: str, *, stdin: Any = None) -> Document:
    """Read and parse a plan file. Raises PlanInputError (exit 2) when it cannot be read or parsed."""
    return load_with_text(path, stdin=stdin)[0]


def load_with_text(path: str, *, stdin: Any = None) -> tuple[Document, str]:
    """``load``, also returning the text it parsed (for tools that edit the file, like fix)."""
    name, text = read_text(path, stdin=stdin)
    if path != STDIN:
        suffix = FsPath(path).suffix.lower()
        if suffix not in _YAML_EXTENSIONS and suffix != ".json":
            raise _fail("EP001", f"unknown extension {suffix or '(none)'!r}", name,
                        hint="plan files end in .yaml, .yml or .json (use - for standard input)")
    return parse_text(text, name, detect_format(path, text)), text


def parse_text(text: str, name: str, fmt: Format) -> Document:
    if fmt == "json":
        data, smap = _parse_json(text, name)
    else:
        data, smap = _parse_yaml(text, name)
    return Document(data, smap, name, fmt)


# --- JSON -------------------------------------------------------------------------------------


class _DuplicateKey(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _DuplicateKey
    return out


class _Constant(Exception):
    pass


def _no_constant(token: str) -> Any:
    raise _Constant(token)


def _locate_token(text: str, wanted: set[str] | None = None, depth: int | None = None) -> Position | None:
    """The position of the first bare token in ``wanted``, or where nesting passes ``depth``."""
    from compiler.sourcemap import _JSON_TOKEN

    level = 0
    for match in _JSON_TOKEN.finditer(text):
        tok = match.group()
        if wanted is not None and tok in wanted:
            return _Lines(text).position(match.start())
        if depth is not None and tok in "[{":
            level += 1
            if level > depth:
                return _Lines(text).position(match.start())
        elif tok in "]}":
            level -= 1
    return None


def _parse_json(text: str, name: str) -> tuple[Any, SourceMap]:
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise _fail("EP002", f"invalid JSON: {err.msg}", name, (err.lineno, err.colno)) from None
    except _DuplicateKey:
        _, _, dup = scan_json(text)
        if dup is None:  # pragma: no cover - the scanner and json disagree: still an input error
            raise _fail("EP003", "duplicate key", name) from None
        key, first, second = dup
        raise _fail("EP003", f"duplicate key {key!r} (first at line {first[0]})", name, second) from None
    except _Constant as err:
        token = str(err)
        pos = _locate_token(text, wanted={token})
        raise _fail("EP002", f"invalid JSON: {token} is not valid JSON", name, pos,
                    hint="JSON has no NaN or Infinity; plans need none") from None
    except RecursionError:
        pos = _locate_token(text, depth=MAX_DEPTH)
        raise _fail("EP005", f"nesting too deep (more than {MAX_DEPTH} levels)", name, pos) from None
    except ValueError as err:  # e.g. an integer of more than 4,300 digits
        raise _fail("EP002", f"invalid JSON: {err}", name) from None

    def build() -> tuple[dict[Path, Position], dict[Path, Position]]:
        values, keys, _ = scan_json(text)
        return values, keys

    return data, SourceMap(builder=build)


# --- YAML -------------------------------------------------------------------------------------


def _mark(node: Any) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _parse_yaml(text: str, name: str) -> tuple[Any, SourceMap]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    try:
        root = yaml.compose(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        pos = (mark.line + 1, mark.column + 1) if mark is not None else None
        problem = err.problem or err.context or "invalid YAML"
        raise _fail("EP002", f"invalid YAML: {problem}", name, pos) from None
    except RecursionError:
        raise _fail("EP005", "nesting too deep", name) from None
    except YAMLError as err:
        raise _fail("EP002", f"invalid YAML: {err}", name) from None
    if root is None:
        return None, SourceMap({(): (1, 1)}, {})
    return _build(root, name, yaml.constructor)


def _build(root: Any, name: str, constructor: Any) -> tuple[Any, SourceMap]:
    """Nodes -> plain values, iteratively. Records the position of every value and key."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    values: dict[Path, Position] = {}
    keys: dict[Path, Position] = {}
    seen: set[int] = set()
    alias_budget = MAX_ALIAS_NODES

    def refuse_tag(node: Any) -> PlanInputError:
        return _fail("EP005", f"unsupported tag {node.tag.replace(_CORE, '!!')}", name, _mark(node),
                     hint="plans hold plain text, numbers, lists and mappings; tags are never constructed")

    def scalar(node: Any) -> Any:
        tag = node.tag
        if tag == _CORE + "str":
            return node.value
        if tag not in _SCALAR_TAGS:
            if tag == _CORE + "timestamp" and node.style is None:
                return node.value  # an unquoted date is the text the user wrote
            raise refuse_tag(node)
        return constructor.construct_object(node)

    result: list[Any] = [None]
    # Work items: (node, path, container, slot)
    stack: list[tuple[Any, Path, Any, Any]] = [(root, (), result, 0)]
    while stack:
        node, path, container, slot = stack.pop()
        if id(node) in seen:
            alias_budget -= 1
            if alias_budget < 0:
                raise _fail("EP005", f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes", name,
                            _mark(node), hint="write the repeated parts out, or remove the aliases")
        else:
            seen.add(id(node))
        if path not in values:
            values[path] = _mark(node)
        if isinstance(node, ScalarNode):
            container[slot] = scalar(node)
        elif isinstance(node, SequenceNode):
            if node.tag != _CORE + "seq":
                raise refuse_tag(node)
            seq: list[Any] = [None] * len(node.value)
            container[slot] = seq
            for i in range(len(node.value) - 1, -1, -1):
                stack.append((node.value[i], (*path, i), seq, i))
        elif isinstance(node, MappingNode):
            if node.tag != _CORE + "map":
                raise refuse_tag(node)
            mapping: dict[str, Any] = {}
            container[slot] = mapping
            first: dict[str, Position] = {}
            children = []
            for knode, vnode in node.value:
                if not isinstance(knode, ScalarNode):
                    raise _fail("EP005", "a key must be plain text", name, _mark(knode))
                if knode.tag == _CORE + "merge":
                    raise _fail("EP005", "merge keys (<<) are not supported", name, _mark(knode),
                                hint="write the fields out in each item")
                key = str(knode.value)
                kpos = _mark(knode)
                if key in first:
                    raise _fail("EP003", f"duplicate key {key!r} (first at line {first[key][0]})", name, kpos)
                first[key] = kpos
                keys[(*path, key)] = kpos
                if isinstance(vnode, ScalarNode) and vnode.value == "" and vnode.style is None:
                    # An empty value (`proof:` then a newline): ruamel places it at the next token,
                    # often the next line; it belongs just after its key's colon.
                    values[(*path, key)] = (knode.end_mark.line + 1, knode.end_mark.column + 2)
                mapping[key] = None
                children.append((vnode, (*path, key), mapping, key))
            stack.extend(reversed(children))
        else:  # pragma: no cover - ruamel only composes these three node kinds
            raise _fail("EP005", "unsupported YAML node", name, _mark(node))
    return result[0], SourceMap(values, keys)
