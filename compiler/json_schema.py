"""JSON Schemas of the plan file and of evidence-plan.json, generated from the pydantic models.

The generated files are committed in schemas/ (``python tests/regenerate.py`` rewrites them) and
the CLI prints the committed copy, so that ``evidence-plan schema`` needs no pydantic at all.
"""

from __future__ import annotations

import json
from typing import Any, Literal, cast

Kind = Literal["input", "output"]
FILES: dict[str, str] = {"input": "plan.schema.json", "output": "evidence-plan.schema.json"}


def generate(kind: Kind) -> str:
    """The schema text, exactly as committed in schemas/."""
    from pydantic import TypeAdapter

    schema: dict[str, Any]
    if kind == "input":
        from compiler.input_model import EvidenceObject, PlanFile, WorkItem

        schema = TypeAdapter(cast(Any, PlanFile | list[WorkItem])).json_schema(mode="validation")  # type: ignore[valid-type]
        schema["$defs"]["Evidence"] = EvidenceObject.model_json_schema(mode="validation")
        text = json.dumps(schema).replace('{"x-evidence-object": true}', '{"$ref": "#/$defs/Evidence"}')
        schema = json.loads(text)
        item = schema["$defs"]["WorkItem"]
        item["properties"]["dependencies"] = {**item["properties"]["depends_on"], "title": "Dependencies",
                                              "description": "alias of depends_on"}
        item["not"] = {"required": ["depends_on", "dependencies"]}
        schema["title"] = "evidence-plan plan file"
        schema["description"] = "A plan: work items, each with id, change, evidence, depends_on and proof."
    else:
        from compiler.output_model import CompiledPlan

        schema = CompiledPlan.model_json_schema(mode="serialization")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def committed(kind: Kind) -> str:
    from compiler.resources import read_text

    return read_text("schemas", FILES[kind])
