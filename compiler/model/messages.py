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

from compiler.core.diagnostics import Diagnostic, Location, did_you_mean
from compiler.core.display import kind_of, quoted
from compiler.load.document import Document
from compiler.load.sourcemap import Path
from compiler.model import fields
from compiler.model.kinds import hint_for

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
            hint: str | None = None) -> None:
        self.out.append(Diagnostic(code, message, item=item, location=self.loc(path, key=key), hint=hint))

    def pydantic(self, err: ValidationError, raw: Any, base: Path, label: str, item: str | None,
                 declared: tuple[fields.Field, ...], rename: dict[str, str] | None = None) -> None:
        for e in _unions_joined(err.errors(include_url=False, include_input=False), raw):
            value = value_at(raw, tuple(e["loc"]))
            loc = tuple(e["loc"])
            if rename and loc and loc[0] in rename:
                loc = (rename[loc[0]], *loc[1:])
            kind = e["type"]
            if kind == "extra_forbidden" and len(loc) > 1:  # inside an object field (an estimate)
                name = str(loc[-1])
                hint = did_you_mean(name, _PARTS_OF.get(str(loc[0]), ()))
                self.add("EP010", f"{label} {_field_name(loc[:-1])} has unknown field {quoted(name)}{hint}", item,
                         (*base, *loc), key=True)
            elif kind == "extra_forbidden":
                name = str(loc[-1])
                hint = suggest_field(name, declared)
                self.add("EP010", f"{label} has unknown field {quoted(name)}{hint}", item, (*base, *loc), key=True)
            elif kind == "missing" and loc == ("id",):
                self.add("EP012", f"{label} has no id", item, base)
            elif kind == "missing":
                self.add("EP017", f"{label} has no {_field_name(loc)}", item, (*base, *loc[:-1]))
            else:
                expected = expected_words(dict(e))
                # A word that is not one of a choice's is named: "not 'gate'", not "not text".
                named = kind in ("literal_error", "bool_type") and isinstance(value, str)
                actual = quoted(value) if named else kind_of(value)
                # YAML reads 12, 1e3, true (and, under %YAML 1.1, yes/no/on/off) as numbers and
                # booleans: never turned into text silently, but the fix is one pair of quotes.
                quote = kind == "string_type" and isinstance(value, (bool, int, float))
                fix = ("put it in quotes to keep it as text" if quote else
                       "write true or false, without quotes" if named and kind == "bool_type" else
                       hint_for(loc[-1] if loc else None, value, declared))
                if kind == "literal_error" and len(loc) == 1:  # a choice's wrong word: the one meant
                    fix = choice_hint(fields.by_name(declared).get(str(loc[0])), value) or fix
                self.add("EP011", f"{label}: {_field_name(loc)} must be {expected}, not {actual}", item,
                         (*base, *loc), hint=fix)


def choice_hint(field: fields.Field | None, value: Any) -> str | None:
    """The value meant by a wrong value of a choice field: the word writers use for it
    (``finished``: done), the same in another case (``Done``), or the closest spelling."""
    if field is None or not field.choices or type(value) is not str:
        return None
    word = value.strip().lower()
    meant = dict(field.meant).get(word) or (word if word in field.choices else None)
    if meant is None:
        from compiler.core.diagnostics import closest

        meant = closest(word, field.choices)
    return f"did you mean {meant}?" if meant else None


def suggest_field(key: str, declared: tuple[fields.Field, ...]) -> str:
    """' (did you mean X?)' for an unknown key: the field it is a common synonym of, else the
    closest spelling."""
    meant = fields.synonym(key, declared)
    return f" (did you mean {meant}?)" if meant else did_you_mean(key, fields.names(declared))


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
