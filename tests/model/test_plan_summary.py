"""compiler/model/summary.py: the plan format in a page an agent is given, made from the schema."""

from __future__ import annotations

import json
import re

from compiler.compile.pipeline import compile_document
from compiler.load.document import parse_text
from compiler.model.json_schema import committed
from compiler.model.summary import EXAMPLE, PARTS, plan_summary

TOKEN_BUDGET = 1500  # tokens, at about 4 bytes each: the bound for what an agent is given


def test_the_summary_is_under_its_token_budget() -> None:
    size = len(plan_summary().encode("utf-8"))
    assert size / 4 < TOKEN_BUDGET, f"{size} bytes, about {size // 4} tokens"


def test_every_field_of_the_schema_is_named_and_none_else() -> None:
    schema = json.loads(committed("input"))
    page = plan_summary(schema)
    named = set(re.findall(r"^- `(\w+)` \(", page, re.M))
    written = set(re.findall(r"`(\w+)`", page.split("Written by the tool, never by hand: ")[1].split("\n")[0]))
    fields = {f for name, _ in PARTS for f in schema["$defs"][name]["properties"]}
    assert named | written == fields and not named & written
    assert written == {"approved_by", "approved_at", "approval_digest", "pin"}
    assert "- `proof` (text or list of text, required): the one exact command that closes the item" in page
    assert "- `status` (todo|doing|done|dropped, optional): " in page


def test_the_example_it_shows_is_a_plan_the_tool_accepts() -> None:
    result = compile_document(parse_text(EXAMPLE, "plan.yaml", "yaml"), "plan.yaml", verify_evidence=False)
    assert (result.status, result.diagnostics) == ("ready", ())
    assert "```yaml\n" + EXAMPLE + "```\n" in plan_summary()
