"""Module b: evidence for the case's second item."""
