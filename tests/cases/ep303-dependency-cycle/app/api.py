"""The api module."""
