"""The pipeline in one call, the evidence-plan.json it emits, and its revision history."""
