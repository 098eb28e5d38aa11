"""JSON Schemas of the plan file and of evidence-plan.json, generated from the pydantic models.

The generated files are committed in schemas/ (``python tests/regenerate.py`` rewrites them) and
the CLI prints the committed copy, so that ``evidence-plan schema`` needs no pydantic at all.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, cast


def _both(a: str, b: str) -> dict[str, Any]:
    """Valid only when a and b are not both given: a key left blank (null) counts as not given,
    as the tool reads it."""
    given = {"not": {"type": "null"}}
    return {"description": f"give either {a} or {b}, not both",
            "not": {"required": [a, b], "properties": {a: given, b: given}}}


def _item(item: dict[str, Any]) -> None:
    """A work item, as the tool reads it (compiler/model/items.py): a key left blank (null) means the
    same as a missing one, so a field that may be missing may be null; a field the checks need
    (EP101-EP103) must be given, not blank; depends_on or its alias, not both."""
    from compiler.model import fields

    properties = item["properties"]
    for field in fields.ITEM_FIELDS:
        if field.needed:
            item["required"].append(field.name)
            properties[field.name].pop("default", None)
        elif not field.required:
            for key in filter(None, (field.name, field.alias)):
                if {"type": "null"} in properties[key].get("anyOf", ()):
                    continue  # optional text: null already
                said = {k: properties[key].pop(k) for k in ("title", "description", "default") if k in properties[key]}
                properties[key] = {"anyOf": [properties[key], {"type": "null"}], **said}
        if field.alias:
            item.setdefault("allOf", []).append(_both(field.name, field.alias))
    # A dropped item says why (EP019, compiler/checks/status.py): a reason that is not blank.
    from compiler.model.references import NOT_BLANK

    item.setdefault("allOf", []).append({
        "if": {"required": ["status"], "properties": {"status": {"const": "dropped"}}},
        "then": {"required": ["reason"], "properties": {"reason": {"type": "string", "pattern": NOT_BLANK}}},
    })
    _approval_record(item, fields.APPROVAL_RECORD)


def _approval_record(item: dict[str, Any], record: tuple[str, ...]) -> None:
    """An approval's record is whole, and only on an approval (EP111, compiler/analysis/approvals.py).
    Not ``dependentRequired``: it counts a key left blank (null) as given, which the tool does not."""
    def given(key: str) -> dict[str, Any]:
        return {"required": [key], "properties": {key: {"not": {"type": "null"}}}}

    for key in record:
        others = [other for other in record if other != key]
        item["allOf"].append({
            "description": f"an approval record is whole: {key} needs {' and '.join(others)}",
            "if": given(key),
            "then": {"allOf": [given(other) for other in others]},
        })
    item["allOf"].append({
        "description": f"an approval record ({', '.join(record)}) is on an item of kind: approval only",
        "if": {"anyOf": [given(key) for key in record]},
        "then": {"required": ["kind"], "properties": {"kind": {"const": "approval"}}},
    })


def _evidence(evidence: dict[str, Any]) -> None:
    """The evidence object's rules between fields (compiler/model/references.py: parse_object)."""
    null = {"type": "null"}
    evidence["allOf"] = [
        _both("line", "lines"),
        _both("symbol", "line"),
        _both("symbol", "lines"),
        {
            "description": "evidence with a url takes no path, line, lines or symbol; without one, it needs a path",
            "if": {"required": ["url"], "properties": {"url": {"not": null}}},
            "then": {"properties": {key: null for key in ("path", "line", "lines", "symbol")}},
            "else": {"required": ["path"], "properties": {"path": {"not": null}}},
        },
        {
            "description": "a pin needs line, lines or a symbol: it is the hash of the cited lines",
            "if": {"required": ["pin"], "properties": {"pin": {"not": null}}},
            "then": {"anyOf": [{"required": [key], "properties": {key: {"not": null}}}
                               for key in ("line", "lines", "symbol")]},
        },
    ]


def _compiled(schema: dict[str, Any]) -> None:
    """A compiled evidence-plan.json is read as a plan too (its `format` says so): the output's own
    keys are read past, as the tool does (fields.COMPILED_*)."""
    from compiler.model import fields

    defs = schema["$defs"]
    evidence = copy.deepcopy(defs["Evidence"])
    evidence["properties"].update({key: {} for key in fields.COMPILED_EVIDENCE_KEYS})
    evidence["title"] = "CompiledEvidence"
    item = json.loads(json.dumps(defs["WorkItem"]).replace('"#/$defs/Evidence"', '"#/$defs/CompiledEvidence"'))
    item["properties"].update({key: {} for key in fields.COMPILED_ITEM_KEYS})
    item["title"] = "CompiledWorkItem"
    plan = copy.deepcopy(defs["PlanFile"])
    plan["properties"].update({key: {} for key in fields.COMPILED_PLAN_KEYS})
    plan["properties"]["format"] = {"type": "string", "pattern": "^evidence-plan",
                                    "description": "a compiled evidence-plan.json, read back as a plan"}
    plan["properties"]["items"]["items"] = {"$ref": "#/$defs/CompiledWorkItem"}
    plan["required"] = ["format", "items"]
    plan["title"] = "CompiledPlan"
    plan["description"] = "A compiled evidence-plan.json, read as a plan: its items, their output-only keys read past."
    defs.update(CompiledEvidence=evidence, CompiledWorkItem=item, CompiledPlan=plan)
    schema["anyOf"].append({"$ref": "#/$defs/CompiledPlan"})


def _input_schema() -> dict[str, Any]:
    """A plan file: the input model, with what the models cannot say."""
    from pydantic import TypeAdapter

    from compiler.model.input_model import EvidenceObject, PlanFile, WorkItem

    schema: dict[str, Any] = TypeAdapter(cast(Any, PlanFile | list[WorkItem])).json_schema(mode="validation")  # type: ignore[valid-type]
    schema["$defs"]["Evidence"] = EvidenceObject.model_json_schema(mode="validation")
    text = json.dumps(schema).replace('{"x-evidence-object": true}', '{"$ref": "#/$defs/Evidence"}')
    schema = json.loads(text)
    item = schema["$defs"]["WorkItem"]
    item["properties"]["dependencies"] = {**item["properties"]["depends_on"], "title": "Dependencies",
                                          "description": "alias of depends_on"}
    _item(item)
    _evidence(schema["$defs"]["Evidence"])
    # A plan without items is blocked (EP401), so the schema asks for one, in both forms.
    schema["$defs"]["PlanFile"]["properties"]["items"]["minItems"] = 1
    next(form for form in schema["anyOf"] if form.get("type") == "array")["minItems"] = 1
    _compiled(schema)
    schema["title"] = "evidence-plan plan file"
    schema["description"] = ("A plan: work items, each with id, change, evidence, depends_on and proof. A plan"
                             " valid by this schema is one the tool does not refuse or block for its form;"
                             " what a schema cannot say (ids unique and unlike each other, dependencies on"
                             " ids the plan defines, a reversed range such as 5-3) the tool still checks.")
    return schema


def _output_schema() -> dict[str, Any]:
    """evidence-plan.json: the output model."""
    from compiler.model.output_model import CompiledPlan

    return cast(dict[str, Any], CompiledPlan.model_json_schema(mode="serialization"))


# The schemas `evidence-plan schema KIND` prints: kind -> its file in schemas/, and how it is made.
SCHEMAS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "input": ("plan.schema.json", _input_schema),
    "output": ("evidence-plan.schema.json", _output_schema),
}


def generate(kind: str) -> str:
    """The schema text, exactly as committed in schemas/."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **SCHEMAS[kind][1]()}
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def committed(kind: str) -> str:
    from compiler.core.resources import read_text

    return read_text("schemas", SCHEMAS[kind][0])
