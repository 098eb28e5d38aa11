"""The audit module."""
