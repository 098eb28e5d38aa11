"""Plans between formats: YAML <-> JSON, and either -> Markdown (through the compiled document).

A converted plan holds the normalized items in the canonical shape (its plan fields, then items),
so YAML -> JSON -> YAML keeps every item field, and with the root its evidence needs seen from
where it is written (see ``output_root``). Markdown is an output only: it is derived from
evidence-plan.json, which is the source of truth.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from compiler.core.diagnostics import Diagnostic
    from compiler.load.document import Document
    from compiler.load.limits import Limits
    from compiler.model.values import Plan

Target = str  # a name of TARGETS (at the end of this module)
# The format a file name asks for, by its extension.
EXTENSIONS: dict[str, Target] = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "md", ".markdown": "md"}


def target_for(path: str) -> Target | None:
    return EXTENSIONS.get(os.path.splitext(path)[1].lower())


class Conversion(NamedTuple):
    """What ``convert`` made: the text, or (a plan whose items do not fit the format) none and
    the diagnostics that say why."""

    name: str  # the plan's name, as diagnostics call it
    text: str | None
    diagnostics: tuple[Diagnostic, ...] = ()
    # The root written, when it leads out of the git work tree (or folder) that will hold the
    # output: compiled there, the output is refused (EP208) unless given --root.
    root_outside: str | None = None


def convert(source: str, kind: Target, out_dir: str, *, root: str | None = None, verify_evidence: bool = True,
            limits: Limits | None = None) -> Conversion:
    """Convert the plan at ``source`` (``-``: stdin) to ``kind``, to be written in ``out_dir``
    (relative paths in the result are made from there).

    YAML and JSON hold the normalized items, and only a plan whose items are valid converts;
    Markdown is the rendering of the compiled plan, ready or blocked (evidence is checked against
    ``root`` unless ``verify_evidence`` is off). Raises ``PlanInputError`` when ``source`` cannot be
    read or is not a plan.
    """
    from compiler.load.document import load
    from compiler.load.limits import DEFAULT_LIMITS

    doc = load(source, limits=limits or DEFAULT_LIMITS)
    if kind == "md":
        from compiler.compile.emit import build_output
        from compiler.compile.pipeline import compile_document
        from compiler.render.markdown import render_markdown

        document = build_output(compile_document(doc, source, root=root, verify_evidence=verify_evidence), out_dir)
        return Conversion(doc.name, render_markdown(document, base=document["root"]))
    from compiler.model.validate import build_plan

    plan = build_plan(doc)
    if plan.diagnostics:
        return Conversion(doc.name, None, tuple(plan.diagnostics))
    own_root, outside = output_root(doc, plan, source, out_dir, root=root, verify_evidence=verify_evidence)
    data = plan_data(plan, own_root)
    return Conversion(doc.name, WRITERS[kind](data), root_outside=own_root if outside else None)


def output_root(doc: Document, plan: Plan, source: str, out_dir: str, *, root: str | None = None,
                verify_evidence: bool = True) -> tuple[str | None, bool]:
    """The ``root:`` a converted plan written in ``out_dir`` needs, so that compiled from there
    its evidence resolves against the root the input's did (``compile``'s discovery: ``root``,
    else the plan's ``root:``, else the git work tree that holds the plan, else its folder), and
    whether that root leads out of the work tree (or folder) that holds ``out_dir``.

    None when the output would find that root by itself (no ``root:``, and the output's work
    tree, or folder outside git, is it): the output stays minimal. A plan's own root refused
    by EP208 is carried over as it was (relative to ``out_dir``): converting does not make it
    acceptable, nor fix it. With ``verify_evidence`` off, a root that is not a folder is carried
    over the same way; with it on, that is the input error ``compile`` gives (EP006)."""
    from compiler.compile.pipeline import find_root, plan_folder
    from compiler.core.diagnostics import Location, PlanInputError
    from compiler.core.paths import inside, relative_posix, work_tree
    from compiler.load.errors import with_excerpt

    def carried() -> str | None:
        return None if plan.root is None else relative_posix(os.path.join(plan_folder(source), plan.root), out_dir)

    try:
        found = find_root(source, plan.root, root, Location(doc.name))
    except PlanInputError as err:
        if not verify_evidence:
            return carried(), False
        pos = doc.source_map.value(("root",)) if root is None and plan.root is not None else None
        if pos is None:
            raise
        raise with_excerpt(PlanInputError(err.diagnostic._replace(location=Location(doc.name, *pos))),
                           doc.text) from None
    if found.refused is not None:
        return carried(), False
    target = os.path.abspath(out_dir)
    boundary = os.path.realpath(work_tree(target) or target)
    real = os.path.realpath(found.path)
    if real == boundary:
        return None, False  # what the output finds by itself
    return relative_posix(found.path, out_dir), not inside(real, boundary)


def plan_data(plan: Plan, root: str | None = None) -> dict[str, Any]:
    """The canonical plan file for a validated plan. ``root`` overrides the plan's own root."""
    from compiler.model.fields import PLAN_FIELDS
    from compiler.model.references import item_input
    from compiler.model.values import plan_values

    given = plan_values(plan)
    if root is not None:
        given["root"] = root
    # Each plan field the plan gives, in the declarations' order, then the items.
    data: dict[str, Any] = {f.name: given[f.name] for f in PLAN_FIELDS if f.name in given}
    data["items"] = [item_input(item) for item in plan.items]
    return data


# Words that YAML 1.1 readers (PyYAML, many CI tools) take as booleans or null: quote them so
# that every reader sees the text the plan meant. (Patterns, compiled on the first dump: the CLI
# imports this module for TARGETS, and check has no use for them.) The rest of YAML 1.1's
# surprises (base 60 `12:30`, `0b1`, `0x1F`, `012`, `1_000`, `.inf`, `=`, `<<`, dates) are
# found by asking a YAML 1.1 resolver itself: PyYAML's, see _read_as_non_text.
_YAML11_SURPRISES = r"^(?:y|n|yes|no|on|off|true|false|null|~)$"
# What the specifications' own resolvers read as non-text, beyond what PyYAML's regular expressions
# do: YAML 1.1's float (https://yaml.org/type/float.html) has optional digits on both sides of the
# point, so a reader that follows it takes `.` (the repository root, a real evidence path), `-.`,
# `+.` and `1.2.3` for numbers, where PyYAML sees text; and YAML 1.2's core schema reads `0o7` and
# `1e3` as numbers (ruamel.yaml's emitter quotes those already; kept here so the list is whole).
_SPEC_NON_TEXT = (r"\A(?:[-+]?(?:[0-9][0-9_]*)?\.[0-9.]*(?:[eE][-+][0-9]+)?"  # 1.1 float, base 10
                  r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"  # 1.1 int and float, base 60
                  r"|[-+]?(?:0b[0-1_]+|0[0-7_]+|0|[1-9][0-9_]*|0x[0-9a-fA-F_]+)"  # 1.1 int
                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"  # 1.1 and 1.2 infinity, not a number
                  r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
                  r"(?:[ \t]*Z|[-+][0-9]{1,2}(?::[0-9]{2})?)?)?"  # 1.1 timestamp
                  r"|<<|=|~|null|Null|NULL|true|True|TRUE|false|False|FALSE"  # 1.1 merge and value; null, bool
                  r"|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"  # 1.2 core int
                  r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"  # 1.2 core float
                  r")\Z")
# Characters that YAML readers (ruamel.yaml and libyaml alike) take as line breaks inside a
# quoted scalar, where they fold into a space: written raw, they would be lost on reading back.
_READ_AS_BREAKS = "[\x85\u2028\u2029]"


def dump_yaml(data: Any) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import SafeRepresenter

    from compiler.core.cilog import yaml_hazard, yaml_safe

    words = re.compile(_YAML11_SURPRISES, re.IGNORECASE).match
    spec = re.compile(_SPEC_NON_TEXT).match
    breaks = re.compile(_READ_AS_BREAKS).search
    not_text = _read_as_non_text()

    class Representer(SafeRepresenter):  # a subclass: add_representer changes the class it is called on
        def represent_str(self, value: str) -> Any:
            # A "##[" or a "::" that could start a line is escaped (yaml_safe), in double quotes.
            style = ('"' if yaml_hazard(value) or breaks(value) else
                     "'" if words(value) or spec(value) or not_text(value) else None)
            return self.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Representer.add_representer(str, Representer.represent_str)
    yaml = YAML(typ="safe", pure=True)
    yaml.Representer = Representer
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.width = 4096  # never fold a long proof command across lines
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]  # keep the key order
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return yaml_safe(buffer.getvalue())


_END: Any = object()


def _read_as_non_text() -> Callable[[str], bool]:
    """Whether a YAML 1.1 reader takes this text, written plain, as something else than text: a
    number, a date, a boolean, null, a merge key or a value key. PyYAML's resolver is YAML 1.1's
    regular expressions, the ones PyYAML's ``safe_load`` resolves with (ruamel.yaml, reading YAML
    1.2 as it writes, already quotes what 1.2 would read as a number)."""
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    resolve = Resolver().resolve
    text = Resolver.DEFAULT_SCALAR_TAG

    def check(value: str) -> bool:
        return bool(resolve(ScalarNode, value, (True, False)) != text)

    return check


def dump_json(data: Any) -> str:
    """A plan as JSON for people to read and edit: every key and list element on its own line,
    indented by two spaces (what ``json.dumps(data, indent=2, ensure_ascii=False)`` writes), so
    that a diagnostic's column stays short (``plan.json:9:21``, not ``plan.json:5:277``). Built
    with a stack, not recursion: ``fix`` writes any JSON plan it read this way."""
    import json
    from json.encoder import encode_basestring

    def scalar(value: Any) -> str:
        if isinstance(value, str):
            return encode_basestring(value)
        if value is True or value is False or value is None:
            return "true" if value is True else "false" if value is False else "null"
        return json.dumps(value, allow_nan=False)  # numbers; {} and []

    parts: list[str] = []
    stack: list[list[Any]] = []  # [iterator, closing bracket, depth, first, is a mapping]

    def open_(value: Any, depth: int) -> None:
        if isinstance(value, dict) and value:
            parts.append("{")
            stack.append([iter(value.items()), "}", depth + 1, True, True])
        elif isinstance(value, list) and value:
            parts.append("[")
            stack.append([iter(value), "]", depth + 1, True, False])
        else:
            parts.append(scalar(value))

    open_(data, 0)
    while stack:
        top = stack[-1]
        entry: Any = next(top[0], _END)
        if entry is _END:
            stack.pop()
            parts.append("\n" + "  " * (top[2] - 1) + top[1])
            continue
        parts.append(("\n" if top[3] else ",\n") + "  " * top[2])
        top[3] = False
        if top[4]:
            key, entry = entry
            parts.append(encode_basestring(key) + ": ")
        open_(entry, top[2])
    parts.append("\n")
    from compiler.core.cilog import json_safe

    return json_safe("".join(parts))


# The formats convert writes: a plan file, from the plan's data, as YAML or JSON; and "md", the
# compiled plan's page (compiler/render/markdown.py). `convert --to` offers exactly these.
WRITERS: dict[str, Callable[[Any], str]] = {"yaml": dump_yaml, "json": dump_json}
TARGETS: tuple[Target, ...] = (*WRITERS, "md")
