"""compiler.proofs: the repository scripts a proof runs, read with the shell's grammar."""

from __future__ import annotations

import pytest

from compiler.proofs import scripts


@pytest.mark.parametrize(("proof", "named"), [
    ("./deploy.sh", ["./deploy.sh"]),
    ("python3 scripts/check_links.py --all", ["scripts/check_links.py"]),
    ("CI=1 ./tools/x.sh && make test", ["./tools/x.sh"]),
    ("sh tools/run.sh; ./tools/run.sh", ["tools/run.sh"]),  # the same script once
    ("node scripts/build.mjs", ["scripts/build.mjs"]),
    ("python3 'scripts/a b.py'", ["scripts/a b.py"]),  # quotes as the shell reads them
    # Not a repository script: options, modules, absolute paths, variables, home, nothing runnable.
    ("python -m pytest tests/test_a.py", []),
    ("pytest tests/test_a.py::test_b", []),
    ("bash -c 'echo hi'", []),
    ("/usr/bin/env python3 a.py", []),
    ("$HOME/bin/x.sh", []),
    ("~/x.sh", []),
    ("echo 'tests/x.py'", []),
    ("make test", []),
    ("python3 'unclosed.py", []),  # a quote never closed: nothing read, nothing claimed
    ("./check.sh  # the smoke test", ["./check.sh"]),
])
def test_the_scripts_a_proof_runs(proof: str, named: list[str]) -> None:
    assert scripts(proof) == named
