"""The case folders are small repositories (plans and the files they cite), not tests: a case may
cite a ``tests/test_*.py`` of its own, which pytest must not collect. tests/test_cases.py runs
them."""

collect_ignore_glob = ["*"]
