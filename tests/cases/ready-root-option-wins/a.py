"""Module a."""
