"""Diagnostics in every format: text, JSON, GitHub annotations, SARIF."""
