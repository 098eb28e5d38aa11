"""Load a plan file (YAML or JSON) into plain data plus a source map.

Stage 1 of the pipeline. Anything that makes the file unusable as a plan raises
``PlanInputError`` carrying a located diagnostic (exit 2 at the CLI edge); nothing here prints.

YAML is read by libyaml and built into plain values from its events (compiler.load.fastyaml), and
whenever that path is not sure, or libyaml is missing, by the reference reader: ruamel.yaml
*composes* the file (every node keeps its start mark) and its nodes are turned into plain values
in one iterative pass, so that positions cost nothing extra, deep documents do not recurse here,
explicit tags are refused instead of constructed, and aliases are expanded under a budget. Both
give the same values, positions and errors (tests/test_fast_yaml.py).

Bounded work on any input (see ``Limits``): the file's size is checked before it is read, the
item count right after parsing, YAML nesting while composing, and alias expansion while
building values. JSON is parsed only with the standard library (never with a YAML parser).
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path as FsPath
from typing import Any, Literal, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.core.display import clip, escape_surrogates, kind_of, printable, quoted
from compiler.load.sourcemap import (
    JSON_TOKEN,
    LineIndex,
    OrderedSourceMap,
    Path,
    Position,
    SourceMap,
    scan_json,
    scan_json_ordered,
)

Format = Literal["yaml", "json"]

STDIN = "-"
STDIN_NAME = "<stdin>"


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


_YAML_EXTENSIONS = {".yaml", ".yml"}
_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null")}
_TAG_WORDS = {_CORE + "int": "a whole number", _CORE + "float": "a number", _CORE + "bool": "true or false",
              _CORE + "null": "null"}


class Document(NamedTuple):
    """A parsed file: plain JSON-like data, where each node came from, and the file's name."""

    data: Any
    source_map: SourceMap
    name: str
    format: Format
    empty: bool = False  # the text is blank (as opposed to, say, only comments)
    text: str = ""  # the text it was parsed from, for excerpts in later input errors


def _fail(code: str, message: str, name: str, pos: Position | None = None, hint: str | None = None) -> PlanInputError:
    loc = Location(name, pos[0], pos[1]) if pos else Location(name)
    return PlanInputError(Diagnostic(code, message, None, loc, hint=hint))


def _too_large(name: str, limits: Limits) -> PlanInputError:
    return _fail("EP007", f"larger than {limits.max_bytes:,} bytes", name,
                 hint="raise the limit with --max-bytes if this plan is meant to be this large")


def display_name(path: str) -> str:
    """A path as messages and artifacts name it: a name that is not UTF-8 reaches Python with
    lone surrogates for its raw bytes, which no UTF-8 output can hold; they become ``\\xNN``."""
    return escape_surrogates(path)


def read_text(path: str, *, stdin: Any = None, limits: Limits = DEFAULT_LIMITS) -> tuple[str, str]:
    """Return (display name, text). ``-`` reads standard input. Errors become EP001, EP005 or
    EP007; the size is checked before anything is read."""
    if path == STDIN:
        import sys

        name = STDIN_NAME
        if stdin is None and sys.stdin is None:  # started with standard input closed (<&-)
            raise _fail("EP001", "standard input is closed", name, hint="give the plan's path, or pipe it in")
        stream = stdin if stdin is not None else sys.stdin.buffer
        try:
            raw = stream.read(limits.max_bytes + 1)
        except OSError as err:
            raise _fail("EP001", f"cannot read standard input: {err.strerror or err}", name) from None
        if len(raw) > limits.max_bytes:
            raise _too_large(name, limits)
    else:
        name = display_name(path)
        raw = _read_file(path, name, limits)
    if isinstance(raw, str):
        return name, raw
    return name, decode(raw, name)


def _read_file(path: str, name: str, limits: Limits) -> bytes:
    """The bytes of a plan file. Opened without blocking, and judged by the file it opened (a
    FIFO swapped in after a look at the path would block a plain open forever); a symlink that
    leads out of the repository holding it is refused before anything is read."""
    import os
    import stat

    from compiler.core.paths import inside, work_tree

    real = os.path.realpath(path)
    if real != os.path.abspath(path):
        # The plan came from inside a repository (the pre-commit hook, a CI checkout): a link
        # out of it would show another file's first line in our messages.
        tree = work_tree(os.path.dirname(os.path.abspath(path)))
        if tree is not None and not inside(real, os.path.realpath(tree)):
            raise _fail("EP005", "is a symlink that leads outside the repository that holds it; it was not read",
                        name, hint="a plan in a repository is a file of that repository")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise _fail("EP001", "no such file", name, hint="check the path") from None
    except IsADirectoryError:
        raise _fail("EP001", "is a folder, not a plan file", name) from None
    except OSError as err:
        raise _fail("EP001", f"cannot read: {err.strerror or err}", name) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _fail("EP001", "is a folder, not a plan file", name)
        if not stat.S_ISREG(info.st_mode):
            raise _fail("EP001", "is not a regular file", name, hint="give the plan's own path")
        if info.st_size > limits.max_bytes:
            raise _too_large(name, limits)
        with os.fdopen(fd, "rb") as handle:
            fd = -1  # the file object closes it now
            # As much as the file holds, and one byte more to see it grew: asking for the limit
            # would allocate all of it (256 MiB) for any plan.
            raw = handle.read(info.st_size + 1)
            if raw is not None and len(raw) > info.st_size:  # it grew: read on, to the limit
                raw += handle.read(limits.max_bytes + 1 - len(raw)) or b""
    except BlockingIOError:  # a "regular" file that would block, such as /proc/kmsg
        raw = None
    except OSError as err:
        raise _fail("EP001", f"cannot read: {err.strerror or err}", name) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if raw is None:
        raise _fail("EP001", "cannot read: it would block", name)
    if len(raw) > limits.max_bytes:  # it grew while we looked
        raise _too_large(name, limits)
    return raw


_OTHER_ENCODINGS = (
    (b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"),
)


def decode(raw: bytes, name: str) -> str:
    """UTF-8, with or without a byte-order mark. Anything else is EP001 with the place it breaks."""
    for bom, encoding in _OTHER_ENCODINGS:
        if raw.startswith(bom):
            raise _fail("EP001", f"the file is {encoding}, not UTF-8", name, (1, 1),
                        hint="save the plan as UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        text = raw[: err.start].decode("utf-8", errors="replace")
        pos = LineIndex(text).position(len(text))
        line_start = raw.rfind(b"\n", 0, err.start) + 1
        line_end = raw.find(b"\n", err.start)
        line = raw[line_start: line_end if line_end >= 0 else len(raw)].decode("utf-8", errors="replace")
        failure = _fail("EP001", f"not UTF-8 (byte 0x{raw[err.start]:02x})", name, pos,
                        hint="save the plan as UTF-8")
        raise with_excerpt(failure, "\n" * (pos[0] - 1) + line) from None


def detect_format(path: str, text: str) -> Format:
    suffix = FsPath(path).suffix.lower() if path != STDIN else ""
    if suffix == ".json":
        return "json"
    if suffix in _YAML_EXTENSIONS:
        return "yaml"
    # Standard input, by content: JSON documents start with { or [ ; anything else is YAML.
    return "json" if text.lstrip()[:1] in ("{", "[") else "yaml"


def load(path: str, *, stdin: Any = None, limits: Limits = DEFAULT_LIMITS) -> Document:
    """Read and parse a plan file. Raises PlanInputError (exit 2) when it cannot be read or parsed."""
    return load_with_text(path, stdin=stdin, limits=limits)[0]


def load_with_text(path: str, *, stdin: Any = None, limits: Limits = DEFAULT_LIMITS) -> tuple[Document, str]:
    """``load``, also returning the text it parsed (for tools that edit the file, like fix)."""
    if path != STDIN:
        suffix = FsPath(path).suffix.lower()
        if suffix not in _YAML_EXTENSIONS and suffix != ".json":
            raise _fail("EP001", f"unknown extension {suffix or '(none)'!r}", path,
                        hint="plan files end in .yaml, .yml or .json (use - for standard input)")
    name, text = read_text(path, stdin=stdin, limits=limits)
    return parse_text(text, name, detect_format(path, text), limits=limits), text


def parse_text(text: str, name: str, fmt: Format, *, limits: Limits = DEFAULT_LIMITS) -> Document:
    """Parse a plan's text. A PlanInputError that has a line carries that line as its excerpt."""
    try:
        if fmt == "json":
            data, smap = _parse_json(text, name, limits)
        else:
            data, smap = _parse_yaml(text, name, limits)
        if "\\u" in text or "\\U" in text:  # only escapes can make lone surrogates
            _refuse_surrogates(data, smap, name)
        _check_item_count(data, smap, name, limits)
    except PlanInputError as err:
        raise with_excerpt(err, text) from None
    return Document(data, smap, name, fmt, empty=not text.strip(), text=text)


def with_excerpt(err: PlanInputError, text: str) -> PlanInputError:
    """The same error, carrying the source line it points at (shown with a caret)."""
    loc = err.diagnostic.location
    if loc is None or loc.line is None or err.diagnostic.excerpt is not None:
        return err
    # An error path only: splitting the whole text is fine. \r alone ends a line too in YAML.
    lines = re.split(r"\r\n|\r|\n", text, maxsplit=loc.line) if "\r" in text else text.split("\n", loc.line)
    if loc.line > len(lines):
        return err
    return PlanInputError(err.diagnostic._replace(excerpt=lines[loc.line - 1]))


def _check_item_count(data: Any, smap: SourceMap, name: str, limits: Limits) -> None:
    items = data.get("items") if isinstance(data, dict) else data
    if isinstance(items, list) and len(items) > limits.max_items:
        path = ("items",) if isinstance(data, dict) else ()
        raise _too_many_items(name, smap.key(path), limits)


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
                raise _fail("EP002", "a \\u escape makes a lone surrogate, which is not text", name,
                            smap.value(path), hint="escape a whole character (a surrogate pair)") from None
        elif isinstance(value, dict):
            stack.extend((v, (*path, k)) for k, v in value.items())
            stack.extend((k, path) for k in value)
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))


# --- JSON -------------------------------------------------------------------------------------


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


class _Constant(Exception):
    pass


def _no_constant(token: str) -> Any:
    raise _Constant(token)


def _locate_token(text: str, wanted: set[str] | None = None, depth: int | None = None) -> Position | None:
    """The position of the first bare token in ``wanted``, or where nesting passes ``depth``."""
    level = 0
    for match in JSON_TOKEN.finditer(text):
        tok = match.group()
        if wanted is not None and tok in wanted:
            return LineIndex(text).position(match.start())
        if depth is not None and tok in "[{":
            level += 1
            if level > depth:
                return LineIndex(text).position(match.start())
        elif tok in "]}":
            level -= 1
    return None


_LONG_NUMBER = re.compile(r"-?\d{4300,}")


def _unclosed(text: str) -> tuple[str, int] | None:
    """The innermost bracket that is never closed, and where it opens (one pass, no recursion)."""
    stack: list[tuple[str, int]] = []
    for match in JSON_TOKEN.finditer(text):
        tok = match.group()
        if tok in ("[", "{"):
            stack.append((tok, match.start()))
        elif tok in ("]", "}") and stack:
            stack.pop()
    return stack[-1] if stack else None


def _json_problem(text: str, err: json.JSONDecodeError) -> tuple[str, str | None, int]:
    """What went wrong in words people use, the fix, and where (an offset): the habits of other
    formats (a trailing comma, a comment, single quotes) and a bracket left open, at its opening."""
    at, rest = err.pos, text[err.pos:]
    before = text[:at].rstrip()
    if rest.startswith(("//", "/*")):
        return "a comment", "JSON has no comments: remove it (a YAML plan may have # comments)", at
    if rest.startswith("'"):
        return "a string in single quotes", "JSON strings take double quotes", at
    if before.endswith(",") and rest[:1] in ("]", "}"):
        return f"a comma before the closing {rest[0]}", "JSON allows no comma after the last entry: remove it", len(
            before) - 1
    if not rest.strip():
        opened = _unclosed(text)
        if opened is not None:
            closing = "]" if opened[0] == "[" else "}"
            return (f"the {opened[0]} opened here is never closed", f"add the {closing} it needs (or a missing comma"
                    " or quote before the end)", opened[1])
    if err.msg.startswith("Invalid control character"):
        return "a line break or control character inside a string", "is a closing quote missing?", at
    return err.msg, None, at


def _parse_json(text: str, name: str, limits: Limits) -> tuple[Any, SourceMap]:
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        message, hint, at = _json_problem(text, err)
        raise _fail("EP002", f"invalid JSON: {message}", name, LineIndex(text).position(at), hint=hint) from None
    except _DuplicateKey as err:
        # The parser stops at the first object that repeats a key, and what follows it may not be
        # JSON at all: the scanner finds where, as far as it can read.
        _, _, dup = scan_json(text)
        if dup is None or dup[0] != err.key:
            raise _fail("EP003", f"duplicate key {quoted(err.key)}", name) from None
        key, first, second = dup
        raise _fail("EP003", f"duplicate key {quoted(key)} (first at line {first[0]})", name, second) from None
    except _Constant as err:
        token = str(err)
        pos = _locate_token(text, wanted={token})
        raise _fail("EP002", f"invalid JSON: {token} is not valid JSON", name, pos,
                    hint="JSON has no NaN or Infinity; plans need none") from None
    except RecursionError:
        pos = _locate_token(text, depth=limits.max_depth)
        raise _fail("EP005", "nesting too deep for the JSON parser", name, pos,
                    hint="plans are a few levels deep") from None
    except ValueError:  # an integer of more than 4,300 digits; nothing else reaches here
        match = _LONG_NUMBER.search(text)
        pos = LineIndex(text).position(match.start()) if match else None
        raise _fail("EP002", "invalid JSON: a number with more than 4,300 digits", name, pos) from None
    except MemoryError:
        raise _fail("EP007", "too large to parse in the memory available", name) from None

    return data, OrderedSourceMap(data, lambda: scan_json_ordered(text))


# --- YAML -------------------------------------------------------------------------------------


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


def _parse_yaml(text: str, name: str, limits: Limits) -> tuple[Any, SourceMap]:
    from compiler.load import fastyaml

    try:
        fast = fastyaml.parse(text, max_depth=limits.max_depth, max_items=limits.max_items)
    except fastyaml.TooManyItems as err:
        raise _too_many_items(name, err.position or (1, 1), limits) from None
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
        raise _too_many_items(name, err.position or (1, 1), limits) from None
    if doubt is None or (doubt.position is None and doubt.code is None):
        return
    if doubt.code == "EP002":
        raise _fail("EP002", f"invalid YAML: {clip(doubt.what, 400)}", name, doubt.position,
                    hint=_yaml_hint(doubt.what, "", text))
    if doubt.code is not None:
        raise _fail(doubt.code, doubt.what, name, doubt.position, hint="plans are a few levels deep")
    size = f"{limits.max_reference_chars:,}"
    raise _fail("EP005", f"{doubt.what} in a YAML plan of more than {size} characters: only the strict"
                " YAML reader decides it, and that reader is too slow for a plan this long", name, doubt.position,
                hint="remove it, split the plan, or give it as JSON (read quickly at any size)")


# A directive starts a line, and YAML ends lines at \r too (a file with mixed line ends).
def _yaml_position(text: str, offset: int) -> Position:
    """Line and column of an offset as YAML counts lines (\\r\\n, \\r and \\n each end one), for
    the errors found in the text rather than by a YAML reader. Error paths only."""
    lines = re.split(r"\r\n|\r|\n", text[:offset])
    return len(lines), len(lines[-1]) + 1


_YAML_VERSION = re.compile(r"(?:\A|(?<=[\r\n]))%YAML[ \t]+(\S+)")
_BAD_ESCAPE = re.compile(r"\\U(?:0*(?:[2-9a-fA-F][0-9a-fA-F]{5}|1[1-9a-fA-F][0-9a-fA-F]{4})|[0-9a-fA-F]{9,})")


def _parse_yaml_reference(text: str, name: str, limits: Limits) -> tuple[Any, SourceMap]:
    """ruamel.yaml reads the file: where libyaml is missing, or not sure (see compiler.load.fastyaml)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.composer import MaxDepthExceededError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    version = next((v for v in _YAML_VERSION.finditer(text) if v.group(1) not in ("1.1", "1.2")), None)
    if version is not None:  # ruamel asserts on other versions, on any document
        raise _fail("EP002", f"invalid YAML: version {clip(version.group(1), 20)} is not one YAML knows", name,
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
        raise _too_many_items(name, err.position or (1, 1), limits) from None
    except MaxDepthExceededError as err:
        deep = err.problem_mark
        raise _fail("EP005", f"nesting deeper than {limits.max_depth} levels", name,
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
        raise _fail("EP002", f"invalid YAML: {clip(problem, 400)}", name, pos,
                    hint=_yaml_hint(problem, line, text)) from None
    except ReaderError as err:  # a character YAML forbids (NUL, other controls): only an offset
        pos = LineIndex(text).position(err.position)
        what = f"#x{err.character:04x}" if isinstance(err.character, int) else repr(err.character)
        raise _fail("EP002", f"invalid YAML: the character {what} is not allowed", name, pos,
                    hint="remove control characters from the plan") from None
    except RecursionError:
        raise _fail("EP005", "nesting too deep", name, hint="plans are a few levels deep") from None
    except YAMLError as err:
        raise _fail("EP002", f"invalid YAML: {clip(str(err), 400)}", name) from None
    except ValueError as err:  # a \U escape past U+10FFFF: ruamel's chr() fails
        escape = _BAD_ESCAPE.search(text)
        raise _fail("EP002", "invalid YAML: an escape that is no character" if escape else f"invalid YAML: {err}",
                    name, _yaml_position(text, escape.start()) if escape else None,
                    hint="\\U escapes go up to \\U0010FFFF" if escape else None) from None
    except MemoryError:
        raise _fail("EP007", "too large to parse in the memory available", name) from None
    if root is None:
        return None, SourceMap({(): (1, 1)}, {})
    with warnings.catch_warnings():  # the constructor warns about YAML 1.1 floats (`1e3`)
        warnings.simplefilter("ignore")
        return _build(root, name, yaml.constructor, limits, text)


class _TooManyItems(Exception):
    def __init__(self, position: Position | None) -> None:
        super().__init__(position)
        self.position = position  # the `items` key's, or None for a top-level list


def _too_many_items(name: str, pos: Position | None, limits: Limits) -> PlanInputError:
    return _fail("EP008", f"more than {limits.max_items:,} items", name, pos,
                 hint="raise the limit with --max-items, or split the plan")


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
            return _fail("EP005", f"the tag {short} does not fit {what}", name, _mark(node),
                         hint="leave the tag out: plans need none")
        return _fail("EP005", f"unsupported tag {short}", name, _mark(node),
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
                raise _fail("EP002", f"invalid YAML: {quoted(str(node.value), 40)} is not {what}"
                            f" ({tag.replace(_CORE, '!!')})", name, _mark(node),
                            hint="write the value the tag says, or leave the tag out") from None
            value = None  # a decimal integer of more than 4,300 digits
        else:
            if type(value) is not int or printable(value):
                return value
        # Too long to build, or (a hexadecimal, octal or binary one) to write in decimal.
        raise _fail("EP002", "a number with more than 4,300 digits", name, _mark(node),
                    hint="quote it if it is meant as text")

    result: list[Any] = [None]
    # Work items: (node, path, container, slot)
    stack: list[tuple[Any, Path, Any, Any]] = [(root, (), result, 0)]
    while stack:
        node, path, container, slot = stack.pop()
        if len(path) >= limits.max_depth:
            # ruamel bounds nesting while composing, so only an alias can lead this deep: one
            # that refers to a node containing it. (Left alone, it would expand forever.)
            raise _fail("EP005", "an alias refers to a node that contains it", name, _mark(node),
                        hint="remove the recursive alias")
        if id(node) in seen:
            alias_budget -= 1
            if alias_budget < 0:
                raise _fail("EP005", f"aliases expand to more than {limits.max_alias_nodes:,} nodes", name,
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
                    raise _fail("EP005", "a key must be plain text", name, _mark(knode))
                if str(knode.tag) == _CORE + "merge":
                    raise _fail("EP005", "merge keys (<<) are not supported", name, _mark(knode),
                                hint="write the fields out in each item")
                key = str(knode.value)
                kpos = _mark(knode)
                if key in first:
                    raise _fail("EP003", f"duplicate key {quoted(key)} (first at line {first[key][0]})", name, kpos)
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
            raise _fail("EP005", "unsupported YAML node", name, _mark(node))
    return result[0], SourceMap(values, keys)


# --- the shape of a plan -----------------------------------------------------------------------


def _not_a_plan(doc: Document, path: Path, message: str, hint: str | None = None) -> PlanInputError:
    pos = doc.source_map.value(path)
    where = Location(doc.name, *pos) if pos else Location(doc.name)
    return with_excerpt(PlanInputError(Diagnostic("EP004", f"not a plan: {message}", None, where, hint=hint)),
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
