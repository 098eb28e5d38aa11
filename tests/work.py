"""The one measure of work the tests hold speed to: function calls, counted.

Timings on a shared machine are noise (a loaded core doubles them); the number of calls a piece of
code makes is not. ``count(fn)`` runs ``fn`` under the standard library's C profiler
(``_lsprof``, what cProfile wraps: a hook on every call event, as ``sys.setprofile`` gives) and
counts every call of a Python function (a generator's each resumption too) and every call of a C
function (``len``, ``str.find``, ``list.append``...). Nothing else is read: no clock decides
anything. The count is the same on every run and under every ``PYTHONHASHSEED``
(tests/test_work.py holds both), provided that

- the cyclic garbage collector is paused while counting (it would run finalizers at moments set
  by earlier allocations); ``count`` pauses it (and collects nothing first: a full collection of
  a test run's heap costs more than most counts);
- first-call work is done before counting: lazy imports and caches filled on a first call (a
  growth test warms up at the small size; a budget on a first call says so).

What it does not see: the work inside one C call (a regular expression's backtracking, a
``str.join`` of a large list, ``x in some_list``) and a Python loop that calls nothing. A
regression of that kind is held by the benchmark (benchmarks/run.py, ratios of time side by
side), or, where it would be a hang, by a generous timeout that kills it.

Growth: the calls at 10x the input over the calls at the input are about 10 for linear work (less
where a fixed part weighs at the small size: 5.2-10.1 measured), about 100 for quadratic work.
``GROWTH_LIMIT`` sits between; since the counts are exact, a limit of 15 also trips on a quadratic
part that costs a tenth of the work at the small size (any above about 6%), which a timing could
not tell from noise.

``command(COUNT_FILE, "-m", MODULE, ARGS...)`` is the argv of a process that runs a module (or
``"-c", CODE``) as ``python`` would, counting from its first line to its exit, and writes the count
to COUNT_FILE (``calls_in``): a whole process's work, its imports included, for the tests that
run one.
"""

from __future__ import annotations

import _lsprof
import gc
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

# The calls at 10x the input over the calls at the input: linear is ~10, quadratic ~100.
GROWTH_LIMIT = 15.0
FACTOR = 10


def _name(code: object) -> str:
    """A readable name for a profiler entry: file:line(function) for Python, the repr for C."""
    if isinstance(code, str):
        return re.sub(r" at 0x[0-9a-f]+", "", code)  # a type's address changes from run to run
    filename = getattr(code, "co_filename", "?").rsplit("/", 2)
    return f"{'/'.join(filename[-2:])}:{getattr(code, 'co_firstlineno', 0)}({getattr(code, 'co_qualname', '?')})"


@dataclass(frozen=True)
class Work(Generic[T]):
    """What ``count`` measured: the calls made, the value returned, and the calls per function."""

    calls: int
    value: T
    by_function: dict[str, int] = field(repr=False)

    def of(self, name: str) -> int:
        """The calls of the Python functions called ``name`` (``"_text_facts"``, or qualified:
        ``"Repository._text_facts"``), or of the C function whose profiler name is ``name``
        (``"<method 'decode' of 'bytes' objects>"``)."""
        return sum(n for key, n in self.by_function.items()
                   if key == name or key.endswith((f"({name})", f".{name})")))

    def top(self, k: int = 6) -> str:
        """The ``k`` functions called most: where the work went, for a failure's message."""
        ranked = sorted(self.by_function.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return ", ".join(f"{name} x{n:,}" for name, n in ranked)


def count(fn: Callable[[], T]) -> Work[T]:
    """Run ``fn()`` and count the calls it makes (Python and C), with the garbage collector paused."""
    collecting = gc.isenabled()
    gc.disable()
    profiler = _lsprof.Profiler(builtins=True)
    profiler.enable()
    try:
        value = fn()
    finally:
        profiler.disable()
        if collecting:
            gc.enable()
    by_function: dict[str, int] = {}
    for entry in profiler.getstats():
        name = _name(entry.code)
        if name == "<method 'disable' of '_lsprof.Profiler' objects>":
            continue  # the measure's own call, not the work's
        by_function[name] = by_function.get(name, 0) + entry.callcount
    return Work(sum(by_function.values()), value, by_function)


@dataclass(frozen=True)
class Growth:
    """The calls of one piece of work at ``small`` and at ``FACTOR`` x ``small``."""

    small: int
    at_small: Work[object]
    at_large: Work[object]

    @property
    def ratio(self) -> float:
        return self.at_large.calls / self.at_small.calls

    def worst(self, k: int = 5) -> str:
        """The functions whose calls grew most beyond linear: where a quadratic step shows."""
        names = set(self.at_small.by_function) | set(self.at_large.by_function)
        excess = {name: self.at_large.by_function.get(name, 0) - FACTOR * self.at_small.by_function.get(name, 0)
                  for name in names}
        ranked = sorted(excess.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return ", ".join(f"{name} {self.at_small.by_function.get(name, 0):,} -> "
                         f"{self.at_large.by_function.get(name, 0):,}" for name, _ in ranked)

    def __str__(self) -> str:
        return (f"{self.at_small.calls:,} calls at {self.small:,}, {self.at_large.calls:,} at "
                f"{self.small * FACTOR:,}: {self.ratio:.2f}x (limit {GROWTH_LIMIT:g}x); grew most: {self.worst()}")


def growth(run: Callable[[int], object], small: int) -> Growth:
    """The calls of ``run(small)`` and of ``run(FACTOR * small)``, after one ``run(small)`` to warm
    up (lazy imports, caches filled once): ``growth(...).ratio < GROWTH_LIMIT`` is the test."""
    run(small)
    return Growth(small, count(lambda: run(small)), count(lambda: run(small * FACTOR)))


# A process counted from its first line to its exit: ``python -c RUNNER COUNT_FILE -m MODULE ARGS...``
# (or ``-c CODE ARGS...``). A string run by ``python -c``, not this module run as a script, so that
# the modules this file imports are not imported before the counted program's own imports. The
# collector stays on: a fresh process allocates the same on every run, so it collects at the same
# moments, and the tests that run one also measure its peak memory.
RUNNER = """
import _lsprof, sys
out, how, what, *rest = sys.argv[1:]
sys.argv = [what if how == "-m" else "-c", *rest]
profiler = _lsprof.Profiler(builtins=True)
profiler.enable()
try:
    if how == "-m":
        import runpy
        runpy.run_module(what, run_name="__main__", alter_sys=True)
    else:
        exec(compile(what, "<string>", "exec"), {"__name__": "__main__"})
finally:
    profiler.disable()
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(f"{sum(entry.callcount for entry in profiler.getstats()) - 1}\\n")  # less disable()
"""


def command(count_file: str | os.PathLike[str], *argv: str) -> list[str]:
    """The argv of ``python ARGV`` counted: run it, then ``calls_in(count_file)``."""
    return [sys.executable, "-c", RUNNER, os.fspath(count_file), *argv]


def calls_in(count_file: str | os.PathLike[str]) -> int:
    """The count that a process run by ``command`` wrote."""
    with open(count_file, encoding="utf-8") as handle:
        return int(handle.read())
