"""Stage 2: the plan format's fields, the validated values, validation, the JSON Schemas, the settings."""
