"""Plans between formats: YAML <-> JSON, and either -> Markdown (through the compiled document).

A converted plan holds the normalized items in the canonical shape (plan, goal, root, items),
so YAML -> JSON -> YAML keeps every item field. Markdown is an output only: it is derived from
evidence-plan.json, which is the source of truth.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, Literal

from compiler.values import Plan

Target = Literal["yaml", "json", "md"]
EXTENSIONS: dict[str, Target] = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "md", ".markdown": "md"}


def target_for(path: str) -> Target | None:
    return EXTENSIONS.get(Path(path).suffix.lower())


def plan_data(plan: Plan, root: str | None = None) -> dict[str, Any]:
    """The canonical plan file for a validated plan. ``root`` overrides the plan's own root."""
    data: dict[str, Any] = {}
    if plan.name is not None:
        data["plan"] = plan.name
    if plan.goal is not None:
        data["goal"] = plan.goal
    root = root if root is not None else plan.root
    if root is not None:
        data["root"] = root
    data["items"] = [item.to_input() for item in plan.items]
    return data


# Words that YAML 1.1 readers (PyYAML, many CI tools) take as booleans or null: quote them so
# that every reader sees the text the plan meant.
_YAML11_SURPRISES = re.compile(r"^(?:y|n|yes|no|on|off|true|false|null|~)$", re.IGNORECASE)
# Characters that YAML readers (ruamel.yaml and libyaml alike) take as line breaks inside a
# quoted scalar, where they fold into a space: written raw, they would be lost on reading back.
_READ_AS_BREAKS = re.compile("[\x85\u2028\u2029]")


def dump_yaml(data: Any) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import SafeRepresenter

    class Representer(SafeRepresenter):  # a subclass: add_representer changes the class it is called on
        def represent_str(self, value: str) -> Any:
            style = "'" if _YAML11_SURPRISES.match(value) else '"' if _READ_AS_BREAKS.search(value) else None
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
    return buffer.getvalue()


def dump_json(data: Any) -> str:
    from compiler.emit import dumps

    return dumps(data)
