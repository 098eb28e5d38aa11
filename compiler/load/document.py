"""Load a plan file (YAML or JSON) into plain data plus a source map.

Stage 1 of the pipeline. Anything that makes the file unusable as a plan raises
``PlanInputError`` carrying a located diagnostic (exit 2 at the CLI edge); nothing here prints.

The text is read by compiler/load/read.py and parsed by compiler/load/json_reader.py or
compiler/load/yaml_reader.py; this module checks what holds for both (no lone surrogate, at most
``Limits.max_items`` items) and says whether the data has the shape of a plan (``plan_shape``).
Bounded work on any input: see compiler/load/limits.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.core.display import kind_of
from compiler.core.paths import suffix as file_suffix
from compiler.load.errors import input_error, with_excerpt
from compiler.load.limits import DEFAULT_LIMITS, Limits, too_many_items
from compiler.load.read import STDIN, YAML_SUFFIXES, Format, detect_format, read_text
from compiler.load.sourcemap import Path, SourceMap
from compiler.load.yaml_reader import parse_yaml


class Document(NamedTuple):
    """A parsed file: plain JSON-like data, where each node came from, and the file's name."""

    data: Any
    source_map: SourceMap
    name: str
    format: Format
    empty: bool = False  # the text is blank (as opposed to, say, only comments)
    text: str = ""  # the text it was parsed from, for excerpts in later input errors


def load(path: str, *, stdin: Any = None, limits: Limits = DEFAULT_LIMITS, unique_keys: bool = True) -> Document:
    """Read and parse a plan file. Raises PlanInputError (exit 2) when it cannot be read or parsed."""
    # unique_keys=False: a repeated key of a JSON file is not looked for (compiler/load/json_reader.py)
    return load_with_text(path, stdin=stdin, limits=limits, unique_keys=unique_keys)[0]


def load_with_text(path: str, *, stdin: Any = None, limits: Limits = DEFAULT_LIMITS,
                   unique_keys: bool = True) -> tuple[Document, str]:
    """``load``, also returning the text it parsed (for tools that edit the file, like fix)."""
    if path != STDIN:
        suffix = file_suffix(path).lower()
        if suffix not in YAML_SUFFIXES and suffix != ".json":
            raise input_error("EP001", f"unknown extension {suffix or '(none)'!r}", path,
                              hint="plan files end in .yaml, .yml or .json (use - for standard input)")
    name, text = read_text(path, stdin=stdin, limits=limits)
    return parse_text(text, name, detect_format(path, text), limits=limits, unique_keys=unique_keys), text


def parse_text(text: str, name: str, fmt: Format, *, limits: Limits = DEFAULT_LIMITS,
               unique_keys: bool = True) -> Document:
    """Parse a plan's text. A PlanInputError that has a line carries that line as its excerpt."""
    try:
        if fmt == "json":
            from compiler.load.json_reader import parse_json  # on first use: a YAML plan needs no json

            data, smap = parse_json(text, name, limits, unique_keys=unique_keys)
        else:
            data, smap = parse_yaml(text, name, limits)
        if "\\u" in text or "\\U" in text:  # only escapes can make lone surrogates
            _refuse_surrogates(data, smap, name)
        _check_item_count(data, smap, name, limits)
    except PlanInputError as err:
        raise with_excerpt(err, text) from None
    return Document(data=data, source_map=smap, name=name, format=fmt, empty=not text.strip(), text=text)


def _check_item_count(data: Any, smap: SourceMap, name: str, limits: Limits) -> None:
    items = data.get("items") if isinstance(data, dict) else data
    if isinstance(items, list) and len(items) > limits.max_items:
        path = ("items",) if isinstance(data, dict) else ()
        raise too_many_items(name, smap.key(path), limits)


def _refuse_surrogates(data: Any, smap: SourceMap, name: str) -> None:
    """Escapes such as \\ud800 decode to lone surrogates, which no UTF-8 file can hold: refuse
    them here rather than fail when the artifacts are written."""
    stack: list[tuple[Any, Path]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise input_error("EP002", "a \\u escape makes a lone surrogate, which is not text", name,
                                  smap.value(path), hint="escape a whole character (a surrogate pair)") from None
        elif isinstance(value, dict):
            stack.extend((v, (*path, k)) for k, v in value.items())
            stack.extend((k, path) for k in value)
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))


# --- the shape of a plan -----------------------------------------------------------------------


def _not_a_plan(doc: Document, path: Path, message: str, hint: str | None = None) -> PlanInputError:
    pos = doc.source_map.value(path)
    where = Location(doc.name, *pos) if pos else Location(doc.name)
    return with_excerpt(PlanInputError(Diagnostic("EP004", f"not a plan: {message}", location=where, hint=hint)),
                        doc.text)


_SHAPE_HINT = "a plan is a mapping with items: [...], or a list of items"


def plan_shape(doc: Document) -> tuple[dict[str, Any], list[Any], Path]:
    """The plan's own fields, its item list, and where that list is (``("items",)`` or ``()``).
    Raises PlanInputError (EP004) when the document is not a plan: no item list to read."""
    data = doc.data
    if isinstance(data, list):
        if data and not any(isinstance(entry, dict) for entry in data):
            kinds = sorted({kind_of(entry) for entry in data})
            raise _not_a_plan(doc, (), f"a list of {', '.join(kinds)}, not of items", _SHAPE_HINT)
        return {}, data, ()
    if isinstance(data, dict):
        if "items" not in data:
            hint = "a single item? put it in a list under items:" if "id" in data else _SHAPE_HINT
            raise _not_a_plan(doc, (), "no items", hint)
        items = data["items"]
        if not isinstance(items, list):
            raise _not_a_plan(doc, ("items",), f"items must be a list, not {kind_of(items)}")
        return data, items, ("items",)
    if data is None:
        content = [line for line in doc.text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        what = ("the file is empty" if doc.empty else "the document is null" if content
                else "the file holds only comments")
    else:
        what = f"the document is {kind_of(data)}"
    raise _not_a_plan(doc, (), what, _SHAPE_HINT)
