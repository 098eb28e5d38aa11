"""tests/repo/black/ is a repository the tests cite (excerpts of black 26.10.1), not tests: its
tests/test_black.py must not be collected."""

collect_ignore = ["black"]
