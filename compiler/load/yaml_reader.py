"""A YAML plan into plain data and a source map: the fast reader, and the reference reader behind it.

YAML is read by libyaml and built into plain values from its events (compiler/load/fastyaml.py),
and whenever that path is not sure, or libyaml is missing, by the reference reader: ruamel.yaml
*composes* the file (every node keeps its start mark) and its nodes are turned into plain values
in one iterative pass, so that positions cost nothing extra, deep documents do not recurse here,
explicit tags are refused instead of constructed, and aliases are expanded under a budget. Both
give the same values, positions and errors (tests/load/test_fast_yaml.py).

Bounded (see ``Limits``): the item list is counted while it is composed, nesting is bounded while
composing, alias expansion while building values, and a long file that only the reference would
decide gets libyaml's answer instead of minutes of ruamel.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from compiler.core.diagnostics import PlanInputError
from compiler.core.display import clip, printable, quoted
from compiler.core.lazy import lazy
from compiler.load.errors import input_error
from compiler.load.limits import Limits, too_many_items
from compiler.load.sourcemap import LineIndex, Path, Position, SourceMap

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null")}
_TAG_WORDS = {_CORE + "int": "a whole number", _CORE + "float": "a number", _CORE + "bool": "true or false",
              _CORE + "null": "null"}


def _mark(node: Any) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _yaml_hint(problem: str, line: str, text: str) -> str | None:
    if "\t" in problem or "'\\t'" in problem or (line.lstrip(" ").startswith("\t")):
        return "YAML indents with spaces, never tabs"
    if "\ufeff" in text:
        return "a byte-order mark (U+FEFF) may only start the file: remove the one inside it"
    if "found undefined alias" in problem:
        return "an alias (*name) must follow its anchor (&name)"
    if "mapping values are not allowed" in problem:
        return "quote text that holds ': ' (a colon and a space)"
    return None


def parse_yaml(text: str, name: str, limits: Limits) -> tuple[Any, SourceMap]:
    """The plain data of a YAML plan and its source map: libyaml's when it is sure, else the
    reference reader's. A PlanInputError when the text is not a YAML document we read."""
    from compiler.load import fastyaml

    try:
        fast = fastyaml.parse(text, max_depth=limits.max_depth, max_items=limits.max_items)
    except fastyaml.TooManyItems as err:
        raise too_many_items(name, err.position or (1, 1), limits) from None
    if fast is not None:
        return fast
    if len(text) > limits.max_reference_chars:
        _refuse_for_the_reference(text, name, limits)
    return _parse_yaml_reference(text, name, limits)


def _refuse_for_the_reference(text: str, name: str, limits: Limits) -> None:
    """A large YAML file that the fast reader leaves to the reference: refused with libyaml's own
    error (EP002), or with what only the reference decides and where (EP005), unless that is
    libyaml missing altogether (then the reference reads it, however long that takes)."""
    from compiler.load import fastyaml

    try:
        doubt = fastyaml.doubt(text, max_depth=limits.max_depth, max_items=limits.max_items)
    except fastyaml.TooManyItems as err:  # as on the first reading: the item list is too long
        raise too_many_items(name, err.position or (1, 1), limits) from None
    if doubt is None or (doubt.position is None and doubt.code is None):
        return
    if doubt.code == "EP002":
        raise input_error("EP002", f"invalid YAML: {clip(doubt.what, 400)}", name, doubt.position,
                          hint=_yaml_hint(doubt.what, "", text))
    if doubt.code is not None:
        raise input_error(doubt.code, doubt.what, name, doubt.position, hint="plans are a few levels deep")
    size = f"{limits.max_reference_chars:,}"
    raise input_error("EP005", f"{doubt.what} in a YAML plan of more than {size} characters: only the strict"
                      " YAML reader decides it, and that reader is too slow for a plan this long", name, doubt.position,
                      hint="remove it, split the plan, or give it as JSON (read quickly at any size)")


# A directive starts a line, and YAML ends lines at \r too (a file with mixed line ends).
def _yaml_position(text: str, offset: int) -> Position:
    """Line and column of an offset as YAML counts lines (\\r\\n, \\r and \\n each end one), for
    the errors found in the text rather than by a YAML reader. Error paths only."""
    lines = re.split(r"\r\n|\r|\n", text[:offset])
    return len(lines), len(lines[-1]) + 1


_YAML_VERSION = lazy(r"(?:\A|(?<=[\r\n]))%YAML[ \t]+(\S+)")
_BAD_ESCAPE = lazy(r"\\U(?:0*(?:[2-9a-fA-F][0-9a-fA-F]{5}|1[1-9a-fA-F][0-9a-fA-F]{4})|[0-9a-fA-F]{9,})")


def _parse_yaml_reference(text: str, name: str, limits: Limits) -> tuple[Any, SourceMap]:
    """ruamel.yaml reads the file: where libyaml is missing, or not sure (see compiler.load.fastyaml)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.composer import MaxDepthExceededError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    version = next((v for v in _YAML_VERSION().finditer(text) if v.group(1) not in ("1.1", "1.2")), None)
    if version is not None:  # ruamel asserts on other versions, on any document
        raise input_error("EP002", f"invalid YAML: version {clip(version.group(1), 20)} is not one YAML knows", name,
                          _yaml_position(text, version.start(1)), hint="say %YAML 1.2, or leave the directive out")
    yaml = YAML(typ="safe", pure=True)  # a new one each time: ruamel keeps state across calls
    yaml.max_depth = limits.max_depth  # checked while composing, before recursion runs deep
    yaml.Composer = _counting_composer(limits.max_items)
    try:
        yaml.composer.warn_double_anchors = False  # a reused anchor is legal YAML, not a warning
        with warnings.catch_warnings():  # its YAML 1.1 warnings are ours to word, or to drop
            warnings.simplefilter("ignore")
            root = yaml.compose(text)
    except _TooManyItems as err:
        raise too_many_items(name, err.position or (1, 1), limits) from None
    except MaxDepthExceededError as err:
        deep = err.problem_mark
        raise input_error("EP005", f"nesting deeper than {limits.max_depth} levels", name,
                          (deep.line + 1, deep.column + 1) if deep is not None else None,
                          hint="plans are a few levels deep") from None
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        problem = err.problem or err.context or "invalid YAML"
        if ("<stream end>" in problem or "end of stream" in problem) and err.context_mark is not None and err.context:
            # An unclosed bracket or quote: the end of the file says little; its start says all.
            mark = err.context_mark
            problem += f" ({err.context} that starts here)"
        pos = (mark.line + 1, mark.column + 1) if mark is not None else None
        line = text.split("\n")[pos[0] - 1] if pos and pos[0] <= text.count("\n") + 1 else ""
        raise input_error("EP002", f"invalid YAML: {clip(problem, 400)}", name, pos,
                          hint=_yaml_hint(problem, line, text)) from None
    except ReaderError as err:  # a character YAML forbids (NUL, other controls): only an offset
        pos = LineIndex(text).position(err.position)
        what = f"#x{err.character:04x}" if isinstance(err.character, int) else repr(err.character)
        raise input_error("EP002", f"invalid YAML: the character {what} is not allowed", name, pos,
                          hint="remove control characters from the plan") from None
    except RecursionError:
        raise input_error("EP005", "nesting too deep", name, hint="plans are a few levels deep") from None
    except YAMLError as err:
        raise input_error("EP002", f"invalid YAML: {clip(str(err), 400)}", name) from None
    except ValueError as err:  # a \U escape past U+10FFFF: ruamel's chr() fails
        escape = _BAD_ESCAPE().search(text)
        raise input_error("EP002", "invalid YAML: an escape that is no character" if escape else f"invalid YAML: {err}",
                          name, _yaml_position(text, escape.start()) if escape else None,
                          hint="\\U escapes go up to \\U0010FFFF" if escape else None) from None
    except MemoryError:
        raise input_error("EP007", "too large to parse in the memory available", name) from None
    if root is None:
        return None, SourceMap({(): (1, 1)}, {})
    with warnings.catch_warnings():  # the constructor warns about YAML 1.1 floats (`1e3`)
        warnings.simplefilter("ignore")
        return _build(root, name, yaml.constructor, limits, text)


class _TooManyItems(Exception):
    def __init__(self, position: Position | None) -> None:
        super().__init__(position)
        self.position = position  # the `items` key's, or None for a top-level list


def _counting_composer(max_items: int) -> Any:
    """ruamel's composer, refusing the item list while it is being composed, as soon as it has
    more than ``max_items`` entries: a huge plan is refused before it is held in memory. The item
    list is a top-level sequence, or the sequence under the top-level key ``items`` (where that
    key is, is what the refusal points at, as on the fast path)."""
    from ruamel.yaml.composer import Composer
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    class CountingComposer(Composer):
        item_list: Any = None  # the sequence under `items`, once its first entry is composed
        items_key: Any = None  # the `items` key's node while its value is being composed

        def compose_node(self, parent: Any, index: Any) -> Any:
            if isinstance(parent, SequenceNode) and isinstance(index, int):
                if self.items_key is not None and self.depth == 2 and self.item_list is None:
                    self.item_list = parent
                if index >= max_items and (self.depth == 1 or parent is self.item_list):
                    key = self.items_key if parent is self.item_list else None
                    raise _TooManyItems(None if key is None else (key.start_mark.line + 1, key.start_mark.column + 1))
            if (self.depth == 1 and isinstance(parent, MappingNode) and isinstance(index, ScalarNode)
                    and index.value == "items"):
                self.items_key = index
                try:
                    return super().compose_node(parent, index)
                finally:
                    self.items_key = None
            return super().compose_node(parent, index)

    return CountingComposer


def _build(root: Any, name: str, constructor: Any, limits: Limits, text: str) -> tuple[Any, SourceMap]:
    """ruamel's nodes -> plain values, iteratively. Records the position of every value and key."""
    values: dict[Path, Position] = {}
    keys: dict[Path, Position] = {}
    seen: set[int] = set()
    alias_budget = limits.max_alias_nodes

    def refuse_tag(node: Any) -> PlanInputError:
        tag, short = str(node.tag), clip(str(node.tag).replace(_CORE, "!!"))
        if tag in _SCALAR_TAGS or tag in (_CORE + "seq", _CORE + "map"):  # a core tag, in the wrong place
            what = {"ScalarNode": "a single value", "SequenceNode": "a list"}.get(type(node).__name__, "a mapping")
            return input_error("EP005", f"the tag {short} does not fit {what}", name, _mark(node),
                               hint="leave the tag out: plans need none")
        return input_error("EP005", f"unsupported tag {short}", name, _mark(node),
                           hint="plans hold plain text, numbers, lists and mappings; tags are never constructed")

    def scalar(node: Any) -> Any:
        tag = str(node.tag)
        if tag == _CORE + "str":
            return node.value
        if tag not in _SCALAR_TAGS:
            if tag == _CORE + "timestamp" and not node.style and text[node.start_mark.index:][:1] != "!":
                return node.value  # an unquoted date is the text the user wrote (not !!timestamp x)
            raise refuse_tag(node)
        try:
            value = constructor.construct_object(node)
        except (ValueError, KeyError, TypeError, IndexError) as err:
            if "digits" not in str(err):  # an explicit tag on a value it does not fit: !!bool x
                what = _TAG_WORDS.get(tag, "a value of its tag")
                raise input_error("EP002", f"invalid YAML: {quoted(str(node.value), 40)} is not {what}"
                                  f" ({tag.replace(_CORE, '!!')})", name, _mark(node),
                                  hint="write the value the tag says, or leave the tag out") from None
            value = None  # a decimal integer of more than 4,300 digits
        else:
            if type(value) is not int or printable(value):
                return value
        # Too long to build, or (a hexadecimal, octal or binary one) to write in decimal.
        raise input_error("EP002", "a number with more than 4,300 digits", name, _mark(node),
                          hint="quote it if it is meant as text")

    result: list[Any] = [None]
    # Work items: (node, path, container, slot)
    stack: list[tuple[Any, Path, Any, Any]] = [(root, (), result, 0)]
    while stack:
        node, path, container, slot = stack.pop()
        if len(path) >= limits.max_depth:
            # ruamel bounds nesting while composing, so only an alias can lead this deep: one
            # that refers to a node containing it. (Left alone, it would expand forever.)
            raise input_error("EP005", "an alias refers to a node that contains it", name, _mark(node),
                              hint="remove the recursive alias")
        if id(node) in seen:
            alias_budget -= 1
            if alias_budget < 0:
                raise input_error("EP005", f"aliases expand to more than {limits.max_alias_nodes:,} nodes", name,
                                  _mark(node), hint="write the repeated parts out, or remove the aliases")
        else:
            seen.add(id(node))
        if path not in values:
            values[path] = _mark(node)
        kind = type(node).__name__
        if kind == "ScalarNode":
            container[slot] = scalar(node)
        elif kind == "SequenceNode":
            if node.tag != _CORE + "seq":
                raise refuse_tag(node)
            seq: list[Any] = [None] * len(node.value)
            container[slot] = seq
            for i in range(len(node.value) - 1, -1, -1):
                stack.append((node.value[i], (*path, i), seq, i))
        elif kind == "MappingNode":
            if node.tag != _CORE + "map":
                raise refuse_tag(node)
            mapping: dict[str, Any] = {}
            container[slot] = mapping
            first: dict[str, Position] = {}
            children = []
            for knode, vnode in node.value:
                if type(knode).__name__ != "ScalarNode":
                    raise input_error("EP005", "a key must be plain text", name, _mark(knode))
                if str(knode.tag) == _CORE + "merge":
                    raise input_error("EP005", "merge keys (<<) are not supported", name, _mark(knode),
                                      hint="write the fields out in each item")
                key = str(knode.value)
                kpos = _mark(knode)
                if key in first:
                    raise input_error("EP003", f"duplicate key {quoted(key)} (first at line {first[key][0]})", name,
                                      kpos)
                first[key] = kpos
                keys[(*path, key)] = kpos
                if type(vnode).__name__ == "ScalarNode" and vnode.value == "" and not vnode.style:
                    # An empty value (`proof:` then a newline): ruamel places it at the next token,
                    # often the next line; it belongs just after its key's colon.
                    values[(*path, key)] = (knode.end_mark.line + 1, knode.end_mark.column + 2)
                mapping[key] = None
                children.append((vnode, (*path, key), mapping, key))
            stack.extend(reversed(children))
        else:  # pragma: no cover - ruamel only composes these three node kinds
            raise input_error("EP005", "unsupported YAML node", name, _mark(node))
    return result[0], SourceMap(values, keys)
