"""Module a."""

ANSWER = 42
