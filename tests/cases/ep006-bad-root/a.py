"""Module a (would be the evidence, under a root that exists)."""
