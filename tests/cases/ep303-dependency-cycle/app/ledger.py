"""The ledger module."""
