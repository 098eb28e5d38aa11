"""Module c: evidence for the release item."""
