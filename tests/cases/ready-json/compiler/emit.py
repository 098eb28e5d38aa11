"""Stage 5: write evidence-plan.json."""

import json

FORMAT = "evidence-plan/1"


def emit(data):
    return json.dumps(data, indent=2) + "\n"
