"""Stage 1: read a plan file (YAML or JSON) into plain data and a source map."""

import json


def load_json(text):
    """Parse JSON text into plain data.

    Every value keeps the line and column it was written at, so that
    later stages can point at it.
    """
    return json.loads(text)


def load_yaml(text):
    """Parse YAML text into plain data (YAML 1.2: on, no and yes are text)."""
    raise NotImplementedError


FORMATS = {".json": load_json, ".yaml": load_yaml, ".yml": load_yaml}
