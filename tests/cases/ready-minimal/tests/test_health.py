"""The test file the plan's proof runs (a case folder is the repository its plan is checked against)."""

import app.health


def test_the_health_module_imports() -> None:
    assert app.health.__doc__
