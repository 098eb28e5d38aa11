"""Evidence for the case."""
