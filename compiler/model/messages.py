"""Validation problems in our words, each a located diagnostic.

The input model (compiler/model/input_model.py, pydantic) finds what is wrong with an item, an
evidence entry, a claim or the budget; ``Collector`` turns its errors into the project's
diagnostics, located in the file through the document's source map: an unknown field with its
did-you-mean (EP010), a wrong type or word with the fix people need (EP011), a missing field
(EP012, EP017). No pydantic text reaches a user. compiler/model/output_model.py words the errors
of a compiled document with the same ``expected_words``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compiler.core.diagnostics import Diagnostic, Fix, Location, closest
from compiler.core.display import clip, kind_of, quoted
from compiler.load.document import Document
from compiler.load.sourcemap import Path
from compiler.model import fields
from compiler.model.kinds import Hint, hint_for

if TYPE_CHECKING:
    from pydantic import ValidationError

# What pydantic calls each kind of type it expects, in our words.
_EXPECTED = {
    "string_type": "text",
    "list_type": "a list",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "model_type": "a mapping",
    "dict_type": "a mapping",
    "number_type": "a number",
    "finite_number": "a finite number",
}
# The parts of the item fields that are objects, for did-you-mean inside them.
_PARTS_OF = {f.name: tuple(part for part, _ in fields.ESTIMATE_PARTS) for f in fields.ITEM_FIELDS
             if f.kind == "optional-estimate"}


def expected_words(error: dict[str, Any]) -> str:
    """What a pydantic error says was expected, in our words (never pydantic's sentence)."""
    kind = error["type"]
    if kind == "union":
        return str(error["words"])
    if kind in _EXPECTED:
        return _EXPECTED[kind]
    if kind in ("literal_error", "enum"):
        choices = (error.get("ctx") or {}).get("expected", "")
        return str(choices) if " or " in str(choices) else f"one of {choices}" if choices else "one of its values"
    if kind.startswith("greater_than") or kind.startswith("less_than"):
        limit = (error.get("ctx") or {})
        bound = limit.get("ge", limit.get("gt", limit.get("le", limit.get("lt", ""))))
        words = {"greater_than_equal": "at least", "greater_than": "more than", "less_than_equal": "at most",
                 "less_than": "less than"}
        return f"{words.get(kind, kind)} {bound}"
    return "a value of its field's type"  # never pydantic's own sentence


def value_at(data: Any, loc: tuple[Any, ...]) -> Any:
    """The value at a path of keys and indexes, or None where there is none."""
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _field_name(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")


class Collector:
    """The diagnostics of one document's validation, in the order they were found."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.out: list[Diagnostic] = []

    def loc(self, path: Path, *, key: bool = False) -> Location:
        smap = self.doc.source_map
        pos = smap.key(path) if key else smap.value(path)
        return Location(self.doc.name, *pos) if pos else Location(self.doc.name)

    def add(self, code: str, message: str, item: str | None, path: Path, *, key: bool = False,
            hint: str | None = None, fix: Fix | None = None) -> None:
        self.out.append(Diagnostic(code, message, item=item, location=self.loc(path, key=key), hint=hint, fix=fix))

    def pydantic(self, err: ValidationError, raw: Any, base: Path, label: str, item: str | None,
                 declared: tuple[fields.Field, ...], rename: dict[str, str] | None = None) -> None:
        for e in _unions_joined(err.errors(include_url=False, include_input=False), raw):
            value = value_at(raw, tuple(e["loc"]))
            loc = tuple(e["loc"])
            if rename and loc and loc[0] in rename:
                loc = (rename[loc[0]], *loc[1:])
            kind = e["type"]
            if kind == "extra_forbidden":
                name = str(loc[-1])
                # Inside an object field (an estimate): its parts; else the declared fields.
                inside = len(loc) > 1
                meant = (closest(name, _PARTS_OF.get(str(loc[0]), ())) if inside else meant_field(name, declared))
                where = f"{label} {_field_name(loc[:-1])}" if inside else label
                self.add("EP010", f"{where} has unknown field {quoted(name)}"
                         + (f" (did you mean {meant}?)" if meant else ""), item, (*base, *loc), key=True,
                         fix=renamed(where, value_at(raw, loc[:-1]), (*base, *loc), meant, () if inside else declared))
            elif kind == "missing" and loc == ("id",):
                self.add("EP012", f"{label} has no id", item, base)
            elif kind == "missing":
                self.add("EP017", f"{label} has no {_field_name(loc)}", item, (*base, *loc[:-1]))
            else:
                expected = expected_words(dict(e))
                # A word that is not one of a choice's is named: "not 'gate'", not "not text".
                named = kind in ("literal_error", "bool_type") and isinstance(value, str)
                actual = quoted(value) if named else kind_of(value)
                hint = _hint(kind, loc, value, named, declared)
                fix = None
                if hint is not None and hint.meant is not None:
                    from compiler.core.edits import SOURCE_TEXT
                    from compiler.core.scalars import yaml_value

                    shown = "its text, in quotes" if hint.meant is SOURCE_TEXT else clip(yaml_value(hint.meant))
                    fix = Fix(message=f"{label}: {_field_name(loc)} -> {shown}", applicability=hint.applicability,
                              changes=(((*base, *loc), hint.meant),))
                self.add("EP011", f"{label}: {_field_name(loc)} must be {expected}, not {actual}", item,
                         (*base, *loc), hint=hint.text if hint is not None else None, fix=fix)


def _hint(kind: str, loc: tuple[Any, ...], value: Any, named: bool, declared: tuple[fields.Field, ...]) -> Hint | None:
    """What to write instead of a wrong value, and the value meant where it can be said."""
    if kind == "string_type" and isinstance(value, (bool, int, float)):
        # YAML reads 12, 1e3, true (and, under %YAML 1.1, yes/no/on/off) as numbers and booleans:
        # never turned into text silently, but the fix is one pair of quotes: the same characters.
        from compiler.core.edits import SOURCE_TEXT

        return Hint("put it in quotes to keep it as text", SOURCE_TEXT)
    if named and kind == "bool_type":
        word = value.strip().lower()
        meant = _BOOLEAN_WORDS.get(word)
        return Hint("write true or false, without quotes", meant,
                    "safe" if word in ("true", "false") else "unsafe")
    if kind == "literal_error" and len(loc) == 1:  # a choice's wrong word: the one meant
        found = choice_hint(fields.by_name(declared).get(str(loc[0])), value)
        if found is not None:
            return found
    if kind == "literal_error" and len(loc) == 2 and str(loc[-1]) in _PART_CHOICES:  # an estimate's unit
        found = _meant_word(value, _PART_CHOICES[str(loc[-1])], ())
        if found is not None:
            return found
    return hint_for(loc[-1] if loc else None, value, declared)


# YAML 1.1's words for true and false, which a YAML 1.2 reader reads as text: what they meant.
_BOOLEAN_WORDS = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False,
                  "y": True, "n": False}
# The parts of an object field that are a choice (an estimate's unit and confidence).
_PART_CHOICES = {"unit": tuple(fields.UNIT_HOURS), "confidence": fields.CONFIDENCES}


def choice_hint(field: fields.Field | None, value: Any) -> Hint | None:
    """The value meant by a wrong value of a choice field: the word writers use for it
    (``finished``: done), the same in another case (``Done``), or the closest spelling."""
    if field is None or not field.choices:
        return None
    return _meant_word(value, field.choices, field.meant)


def _meant_word(value: Any, choices: tuple[str, ...], meant_words: tuple[tuple[str, str], ...]) -> Hint | None:
    """``did you mean W?`` for a wrong word of a choice: safe when it is W in another case or
    with spaces around it, a guess otherwise."""
    if type(value) is not str:
        return None
    word = value.strip().lower()
    meant = dict(meant_words).get(word) or (word if word in choices else None)
    if meant is None:
        meant = closest(word, choices)
    if meant is None:
        return None
    return Hint(f"did you mean {meant}?", meant, "safe" if word == meant else "unsafe")


def meant_field(key: str, declared: tuple[fields.Field, ...]) -> str | None:
    """The field an unknown key means: the field it is a common synonym of, else the closest
    spelling, else None."""
    return fields.synonym(key, declared) or closest(key, fields.names(declared))


def renamed(label: str, mapping: Any, path: Path, meant: str | None,
            declared: tuple[fields.Field, ...] = ()) -> Fix | None:
    """EP010's fix: the unknown key at ``path`` renamed to the field ``meant`` (its value kept), a
    guess; none when ``mapping`` (the one holding the key) gives that field already, or its alias."""
    if meant is None or not isinstance(mapping, dict):
        return None
    field = fields.by_name(declared).get(meant)
    taken = {meant, *((field.alias,) if field is not None and field.alias else ())}
    taken |= {f.name for f in declared if f.alias == meant}
    if taken.intersection(mapping):
        return None
    from compiler.core.edits import Rename  # on first use: a plan without an unknown key needs none

    return Fix(message=f"{label}: {quoted(str(path[-1]))} -> {meant}", applicability="unsafe",
               changes=((path, Rename(meant)),))


def _unions_joined(errors: list[Any], raw: Any) -> list[dict[str, Any]]:
    """pydantic reports a value that fits no member of a union (``str | int``) once per member,
    each at the field's path plus the member's name (``lines.str``, ``lines.int``): one error at
    the field's own path, expecting any of them."""
    out: list[dict[str, Any]] = []
    for error in errors:
        loc = tuple(error["loc"])
        member = loc and type(loc[-1]) is str and type(value_at(raw, loc[:-1])) is not dict
        if member and out and out[-1]["loc"] == loc[:-1] and out[-1].get("union"):
            out[-1]["expected"].append(expected_words(dict(error)))
        elif member:
            out.append({**error, "loc": loc[:-1], "union": True, "expected": [expected_words(dict(error))]})
        else:
            out.append(dict(error))
    for error in out:
        if error.pop("union", False):
            error["type"] = "union"
            error["words"] = " or ".join(dict.fromkeys(error.pop("expected")))
    return out
