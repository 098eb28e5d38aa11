"""Backfill the new column."""
