"""YAML read by libyaml (PyYAML's C parser), built into plain values straight from its events.

ruamel.yaml is the reference reader: its pure-Python parser takes about 7 us per byte, which is
most of `check`'s time on a small plan and minutes on a large one. libyaml reads the same text
about 30x faster, and every event carries its line and column. So a YAML plan is first read
here, and whenever this path is not sure it gives up (returns None) and ruamel.yaml reads the
file from the start, says what is wrong in its own words, and decides every corner case:

- PyYAML or its C extension missing; a ``%YAML`` directive (libyaml knows YAML 1.1 only);
- any error libyaml reports (the reference's message and position are the ones users see);
- aliases and anchors (the reference expands aliases under a budget), explicit tags, non-text
  keys, merge keys, duplicate keys, more than one document, nesting at the depth limit;
- what libyaml reads and ruamel.yaml refuses (found by fuzzing both): any tab, a comment glued
  to a block scalar's header, leading blank lines in a block scalar; and what they read
  differently: U+2028, U+2029, U+0085 and a byte-order mark inside the text;
- a plain scalar whose value only ruamel's constructor can build exactly (say ``0x1F`` or
  ``1_000.5``): ruamel.yaml is imported for that one value and builds it.

Plain scalars are resolved by YAML 1.2's core schema exactly as ruamel.yaml resolves them
(``yes`` and ``on`` stay text; libyaml on its own would read them as booleans, by YAML 1.1).
The values are built in one pass over the events, without libyaml's node graph (at a million
items that graph alone would need several gigabytes), and without positions: the source map
reads the text a second time, with positions, only when a diagnostic first asks for one.
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from compiler.core.display import printable
from compiler.load.sourcemap import LineIndex, OrderedSourceMap, Position, SourceMap, positions_array

_CORE = "tag:yaml.org,2002:"

# ruamel.yaml's implicit resolvers for YAML 1.2 (ruamel/yaml/resolver.py), verbatim and in its
# order (the first that matches decides; re.X drops the bare spaces, as in ruamel). tests/
# tests/load/test_fast_yaml.py checks that this table resolves every sample exactly as ruamel's own does.
_IMPLICIT: list[tuple[str, str, str]] = [
    ("bool", r"""^(?:true|True|TRUE|false|False|FALSE)$""", "tTfF"),
    ("float", r"""^(?:
         [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""", "-+0123456789."),
    ("int", r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0o?[0-7_]+
        |[-+]?[0-9_]+
        |[-+]?0x[0-9a-fA-F_]+)$""", "-+0123456789"),
    ("merge", r"^(?:<<)$", "<"),
    ("null", r"""^(?: ~
        |null|Null|NULL
        | )$""", "~nN"),
    ("timestamp", r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
        (?:[Tt]|[ \t]+)[0-9][0-9]?
        :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", "0123456789"),
    ("value", r"^(?:=)$", "="),
    ("yaml", r"^(?:!|&|\*)$", "!&*"),
]
# First character -> [tag, its pattern compiled on first use (None until then), the pattern's text]:
# a plan's scalars start with few of them, and compiling all was 1.5 ms of every start.
_BY_START: dict[str, list[list[Any]]] = {}
for _tag, _pattern, _starts in _IMPLICIT:
    for _c in _starts:
        _BY_START.setdefault(_c, []).append([_CORE + _tag, None, _pattern])
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
# A float as ruamel.yaml's constructor builds it with float() alone: digits, a point, digits (no
# underscores, exponent, infinity or nan, which it reads its own way).
_DECIMAL_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*\Z")


def resolve_plain(value: str) -> str:
    """The tag YAML 1.2 (as ruamel.yaml reads it) gives a plain scalar."""
    for entry in _BY_START.get(value[:1], ()):
        pattern = entry[1]
        if pattern is None:
            pattern = entry[1] = re.compile(entry[2], re.X)  # the same text compiled again is re's cache hit
        if pattern.match(value):
            tag: str = entry[0]
            return tag
    return _CORE + "str" if value else _CORE + "null"


class _Unsure(Exception):
    """This path is not sure: the reference reader decides. ``what`` says why, for the one case
    where the reference is not asked (a file too large for it: see ``doubt``)."""

    def __init__(self, what: str, mark: Any = None, code: str | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.mark = mark
        self.code = code


class Doubt(NamedTuple):
    """Why this path gave a file to the reference reader, and where: a construct only the
    reference decides, or (``code`` set) an answer of its own: libyaml's error (EP002), the
    nesting limit (EP005)."""

    what: str
    position: Position | None
    code: str | None = None


class TooManyItems(Exception):
    """The item list passed the limit; ``position`` is its key's (or None for a top-level list)."""

    def __init__(self, position: Position | None) -> None:
        super().__init__(position)
        self.position = position


def _plain(value: str) -> Any:
    """A plain scalar's value, built as ruamel.yaml builds it (``_build`` calls it only for a value
    that may be no text: empty, or starting as a number, a null or a boolean may)."""
    tag = resolve_plain(value)
    if tag == _CORE + "str":
        return value
    if tag == _CORE + "null":
        return None
    if tag == _CORE + "bool":
        return value[0] in "tT"
    if tag == _CORE + "timestamp":
        return value  # an unquoted date is the text the user wrote (as on the reference path)
    if tag == _CORE + "int" and _DECIMAL.match(value):
        try:
            return int(value)
        except ValueError:  # more than 4,300 digits: the reference says so
            raise _Unsure("a number of more than 4,300 digits") from None
    if tag == _CORE + "float" and _DECIMAL_FLOAT.match(value):  # 2.5, an estimate's bound: float() is ruamel's
        return float(value)
    if tag in (_CORE + "int", _CORE + "float"):
        return _construct_with_ruamel(tag, value)
    raise _Unsure(f"the value {value}")  # merge (<<) or value (=) as a value: refused by the reference


@functools.cache
def _ruamel_constructor() -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).constructor


def _construct_with_ruamel(tag: str, value: str) -> Any:
    """Octal, hexadecimal, binary, underscores, floats: ruamel.yaml's constructor builds them
    (one constructor for them all: a plan may hold many)."""
    from ruamel.yaml.nodes import ScalarNode

    constructor, node = _ruamel_constructor(), ScalarNode(tag, value)
    try:
        built = constructor.construct_object(node)
    except Exception:  # noqa: BLE001 - any doubt: the reference reads the whole file
        raise _Unsure(f"the number {value[:40]}") from None
    finally:
        constructor.constructed_objects.pop(node, None)  # it remembers each node it built
        constructor.recursive_objects.pop(node, None)
    if not printable(built):  # 0x and 5,000 digits: the reference refuses it, in its words
        raise _Unsure("a number of more than 4,300 digits")
    return built


_LINE_BREAKS_1_1 = "\x85\u2028\u2029\ufeff"  # looked for with str.find: no pattern to compile at every start


def _line_break_1_1(text: str) -> int:
    """Where the first of _LINE_BREAKS_1_1 is in ``text``, or -1."""
    found = [at for at in map(text.find, _LINE_BREAKS_1_1) if at >= 0]
    return min(found) if found else -1
_BLOCK_HEADER_COMMENT = re.compile(r"[|>][-+0-9]*#")


def _lax_block(text: str, start: int, value: str) -> bool:
    """A block scalar that libyaml reads and ruamel.yaml refuses: a comment glued to its header
    (``|# note``), or leading blank lines (where ruamel checks their indentation)."""
    return value.startswith("\n") or _BLOCK_HEADER_COMMENT.match(text, start) is not None


def parse(text: str, *, max_depth: int, max_items: int) -> tuple[Any, SourceMap] | None:
    """The plan's data and source map, or None when the reference reader must decide.

    Raises TooManyItems as soon as the item list (a top-level list, or the top-level ``items``)
    has more than ``max_items`` entries: a huge plan is refused before it is built.

    Positions are read only when a diagnostic first asks for one, by reading the text again
    (most plans have no diagnostic), and kept as two arrays in document order."""
    data = _read(text, max_depth, max_items)
    if isinstance(data, Doubt):
        return None
    if data is NO_DOCUMENT:
        return None, SourceMap({(): (1, 1)}, {})
    return data, OrderedSourceMap(data, lambda: _positions(text))


def _skipped(text: str) -> Doubt | None:
    """Why this path does not even start on ``text``, and where; None when it may."""
    for what, at in (("a %YAML directive", text.find("%YAML")), ("a tab", text.find("\t"))):
        if at >= 0:
            return Doubt(what, LineIndex(text).position(at))
    other = _line_break_1_1(text)
    if other >= 0:
        return Doubt(f"the character U+{ord(text[other]):04X}", LineIndex(text).position(other))
    return None


NO_DOCUMENT = object()  # a text without a document (nothing, or only comments), not a null one


def event_parser(text: str) -> Any:
    """libyaml's parser for ``text``, or None where this path is not to be taken (also the
    condition of compiler/load/yaml_nodes.py, which composes the nodes an edit needs from its events)."""
    if "%YAML" in text or "\t" in text or _line_break_1_1(text) >= 0:
        # libyaml (1.1) knows no directive for 1.2. Tabs: libyaml, as the YAML spec, takes them
        # between tokens and inside plain text, where ruamel.yaml refuses them. U+2028, U+2029
        # and U+0085 are line breaks to YAML 1.1 and text to 1.2, and a byte-order mark inside
        # the text is read differently too: the two readers disagree on their values and lines.
        return None
    try:
        from yaml._yaml import CParser
    except ImportError:  # PyYAML missing, or built without libyaml
        return None
    return CParser(text)


def _read(text: str, max_depth: int, max_items: int) -> Any:
    """The data, or a Doubt."""
    parser = event_parser(text)
    if parser is None:
        return _skipped(text) or Doubt("libyaml is not installed", None)
    from yaml import events

    try:
        return _build(text, parser.get_event, events, max_depth, max_items)
    except _Unsure as unsure:
        mark = unsure.mark
        return Doubt(unsure.what, (mark.line + 1, mark.column + 1) if mark is not None else None, unsure.code)
    except TooManyItems:
        raise
    except Exception as err:  # noqa: BLE001 - libyaml's errors: the reference explains them
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        problem = getattr(err, "problem", None) or getattr(err, "context", None) or "invalid YAML"
        return Doubt(str(problem), (mark.line + 1, mark.column + 1) if mark is not None else None, "EP002")
    finally:
        parser.dispose()


def doubt(text: str, *, max_depth: int, max_items: int) -> Doubt | None:
    """Why ``parse`` gives ``text`` to the reference reader, and where (None: it does not). Read
    again from the start: asked only when the reference is not to be asked (a large file)."""
    found = _read(text, max_depth, max_items)
    return found if isinstance(found, Doubt) else None


def _positions(text: str) -> tuple[Any, Any]:
    """The line and column of every node and key, in document order (for OrderedSourceMap): a
    second, lean pass over the events of a text that the first pass read whole, building no
    values. An empty value (``proof:`` then a line break) is placed just after its key's colon."""
    from yaml import events

    lines, columns = positions_array(text), positions_array(text)
    parser = event_parser(text)
    assert parser is not None  # the first pass took this path
    scalar, mapping_start, sequence_start = events.ScalarEvent, events.MappingStartEvent, events.SequenceStartEvent
    mapping_end, sequence_end = events.MappingEndEvent, events.SequenceEndEvent
    # The open collections, innermost last: [a mapping waiting for a key, the pending key's end]
    # for a mapping, None for a sequence.
    stack: list[list[Any] | None] = []
    try:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is mapping_end or kind is sequence_end:
                stack.pop()
                continue
            if kind is not scalar and kind is not mapping_start and kind is not sequence_start:
                if kind is events.StreamEndEvent:
                    break
                continue
            mark = event.start_mark
            top = stack[-1] if stack else None
            if top is not None:
                if top[0]:  # a key
                    top[0], top[1] = False, event.end_mark
                else:  # a value
                    top[0] = True
                    if kind is scalar and not event.style and event.value == "":
                        mark = top[1]
                        lines.append(mark.line + 1)
                        columns.append(mark.column + 2)
                        continue
            lines.append(mark.line + 1)
            columns.append(mark.column + 1)
            if kind is mapping_start:
                stack.append([True, None])
            elif kind is sequence_start:
                stack.append(None)
    finally:
        parser.dispose()
    return lines, columns


def _build(text: str, get_event: Any, events: Any, max_depth: int, max_items: int) -> Any:
    """One pass over the events, building the values (positions are _positions's)."""
    scalar, mapping_start, sequence_start = events.ScalarEvent, events.MappingStartEvent, events.SequenceStartEvent
    mapping_end, sequence_end = events.MappingEndEvent, events.SequenceEndEvent
    by_start = _BY_START
    top_keys: dict[str, Position] = {}  # the top-level keys' positions (where `items:` is)
    root: list[Any] = []
    # The open collections, innermost last, each [container, its depth, the pending key of a
    # mapping (None while a key is expected), whether it is the item list].
    stack: list[list[Any]] = []
    documents = 0
    event = None
    try:
        while True:
            event = get_event()
            kind = type(event)
            if kind is mapping_end or kind is sequence_end:
                stack.pop()
                continue
            if kind is not scalar and kind is not mapping_start and kind is not sequence_start:
                if kind is events.StreamEndEvent:
                    break
                if kind is events.AliasEvent:
                    raise _Unsure("an alias (*name)")  # expanded by the reference, under its budget
                if kind is events.DocumentStartEvent:
                    if documents:
                        raise _Unsure("a second document")  # the reference refuses it
                    documents += 1
                continue
            if event.tag is not None or event.anchor is not None:
                # Explicit tags: the reference accepts !!str and refuses the rest. Anchors: libyaml
                # takes `&name:` as an anchor before an empty key, where ruamel.yaml refuses it.
                raise _Unsure("an explicit tag (!tag)" if event.tag is not None else "an anchor (&name)")
            if not stack:
                depth = 0
            else:
                top = stack[-1]
                container = top[0]
                depth = top[1] + 1
                if type(container) is list:
                    if top[3] and len(container) >= max_items:
                        raise TooManyItems(top_keys.get("items") if depth == 2 else None)
                elif top[2] is None:  # a mapping's key
                    key = event.value if kind is scalar else None
                    if key is None or key in container or (key == "<<" and not event.style):
                        # a key that is not text, is repeated or merges: the reference says so
                        raise _Unsure("a key that is not text" if key is None else "a merge key (<<)" if key == "<<"
                                      else f"the repeated key {key[:40]!r}")
                    top[2] = key
                    if depth == 1:
                        mark = event.start_mark
                        top_keys[key] = (mark.line + 1, mark.column + 1)
                    continue
                else:  # a mapping's value
                    key = top[2]
                    top[2] = None
            if kind is scalar:
                if event.implicit[0]:
                    value = event.value
                    if not value or value[0] in by_start:  # by far the most common plain scalar is text
                        value = _plain(value)
                else:
                    value = event.value
                    if event.style in ("|", ">") and _lax_block(text, event.start_mark.index, value):
                        raise _Unsure("a block scalar the reference reads strictly")
            else:
                if depth >= max_depth - 1:
                    raise _Unsure(f"nesting deeper than {max_depth} levels", code="EP005")
                value = {} if kind is mapping_start else []
                items = kind is sequence_start and (
                    depth == 0 or (depth == 1 and type(container) is dict and key == "items"))
                stack.append([value, depth, None, items])
            if not depth:
                root.append(value)
            elif type(container) is list:
                container.append(value)
            else:
                container[key] = value
    except _Unsure as unsure:  # where: the event being read
        if unsure.mark is None and event is not None:
            unsure.mark = event.start_mark
        raise
    return root[0] if root else NO_DOCUMENT  # no document, or only comments
