"""Module b."""
