from __future__ import annotations

import signal
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from support import STANDARD_FILES, git_repo

REPO = Path(__file__).resolve().parent.parent
HOSTILE = REPO / "tests" / "hostile"

# Hypothesis reads the clock twice by default: an example slower than 200 ms fails (its deadline),
# and so does drawing examples slowly (the too_slow health check). Both fail on a loaded machine
# for no fault of the code: off for every property test (a test's own settings add to these).
settings.register_profile("no-clock", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("no-clock")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test run on a file of the hostile corpus is a hostile test, wherever it is written
    (the corpus is large and slow by design): it carries the ``hostile`` mark, so the inner loop
    leaves it out. See pyproject.toml's markers."""
    for item in items:
        params = getattr(item, "callspec", None)
        if params is not None and any(
            isinstance(value, Path) and value.is_relative_to(HOSTILE) for value in params.params.values()
        ):
            item.add_marker(pytest.mark.hostile)


@pytest.fixture
def repo() -> Path:
    """The repository root (examples/, outputs/, schemas/ ...)."""
    return REPO


@pytest.fixture
def std_repo(tmp_path: Path) -> Path:
    """The standard repository of the code tables: ``STANDARD_FILES`` (tests/support.py) in a git
    work tree ``repo``, with a file ``outside.txt`` next to it and a symlink ``link.txt`` inside it
    that leads there."""
    root = git_repo(tmp_path / "repo", STANDARD_FILES)
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    return root


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """write("plan.yaml", '''...''') -> path; the text is dedented, so tests can indent it."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write


# How long a test may block before a hang guard fails it: a guard against a hang (an open of a
# FIFO, a read of /proc/kmsg), not a budget of speed; the guarded work takes well under a second.
HANG_SECONDS = 60


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail (not hang) if the test blocks for HANG_SECONDS, e.g. opening a FIFO that has no reader."""
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"blocked for {HANG_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


T = TypeVar("T")


def _within(work: Callable[[], T]) -> T:
    """``work()`` in a daemon thread: its result, its exception, or a failure once HANG_SECONDS
    have passed, so that a call that blocks (an open of a FIFO) fails the test, not hangs it."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = work()
        except BaseException as err:  # noqa: BLE001 - raised again below, in the test's thread
            box["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_SECONDS)
    assert not worker.is_alive(), f"still running after {HANG_SECONDS} s: it blocked"
    if "error" in box:
        raise box["error"]
    result: T = box["result"]
    return result


@pytest.fixture
def within() -> Callable[[Callable[[], Any]], Any]:
    """within(work) -> work(), failing the test when it has not returned within HANG_SECONDS."""
    return _within
