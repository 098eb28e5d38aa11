"""Module a: evidence for the case's first item."""
