"""The storage module."""
