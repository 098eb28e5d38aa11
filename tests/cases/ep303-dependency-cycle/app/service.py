"""The service module."""
