"""Module d: evidence for item d."""
