#!/usr/bin/env python3

import ast
import asyncio
import inspect
import io
import itertools
import logging
import multiprocessing
import os
import pickle
import re
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, redirect_stderr
from dataclasses import fields, replace
from importlib.metadata import version as imp_version
from io import BytesIO
from pathlib import Path, WindowsPath
from platform import system
from tempfile import NamedTemporaryFile, TemporaryDirectory
from typing import Any, TypeVar
from unittest.mock import MagicMock, patch

import click
import pytest
from click import unstyle
from click.testing import CliRunner as _CliRunner
from packaging.version import Version
from pathspec import GitIgnoreSpec

import black
import black.files
from black import Feature, TargetVersion
from black import re_compile_maybe_verbose as compile_pattern
from black.cache import FileData, get_cache_dir, get_cache_file
from black.debug import DebugVisitor
from black.mode import Mode, Preview
from black.output import color_diff, diff
from black.parsing import ASTSafetyError, SourceASTParseError
from black.report import Report
from black.strings import lines_with_leading_tabs_expanded

# Import other test classes
from tests.util import (
    DATA_DIR,
    DEFAULT_MODE,
    DETERMINISTIC_HEADER,
    PROJECT_ROOT,
    PY36_VERSIONS,
    THIS_DIR,
    BlackBaseTestCase,
    assert_format,
    change_directory,
    dump_to_stderr,
    ff,
    fs,
    get_case_path,
    read_data,
    read_data_from_file,
)

THIS_FILE = Path(__file__)
EMPTY_CONFIG = THIS_DIR / "data" / "empty_pyproject.toml"
PY36_ARGS = [f"--target-version={version.name.lower()}" for version in PY36_VERSIONS]
DEFAULT_EXCLUDE = black.re_compile_maybe_verbose(black.const.DEFAULT_EXCLUDES)
DEFAULT_INCLUDE = black.re_compile_maybe_verbose(black.const.DEFAULT_INCLUDES)
T = TypeVar("T")
R = TypeVar("R")

# Match the time output in a diff, but nothing else
DIFF_TIME = re.compile(r"\t[\d\-:+\. ]+")


@contextmanager
def cache_dir(exists: bool = True) -> Iterator[Path]:
    with TemporaryDirectory() as workspace:
        cache_dir = Path(workspace)
        if not exists:
            cache_dir = cache_dir / "new"
        with patch("black.cache.CACHE_DIR", cache_dir):
            yield cache_dir


@contextmanager
def event_loop() -> Iterator[None]:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield

    finally:
        loop.close()


class FakeContext(click.Context):
    """A fake click Context for when calling functions that need it."""

    def __init__(self) -> None:
        self.default_map: dict[str, Any] = {}
        self.params: dict[str, Any] = {}
        self.command: click.Command = black.main
        # Dummy root, since most of the tests don't care about it
        self.obj: dict[str, Any] = {"root": PROJECT_ROOT}


class BlackRunner(_CliRunner):
    """Make sure STDOUT and STDERR are kept separate when testing Black via its CLI."""

    def __init__(self) -> None:
        if Version(imp_version("click")) >= Version("8.2.0"):
            super().__init__()
        else:
            super().__init__(mix_stderr=False)  # type: ignore


def invokeBlack(
    args: list[str], exit_code: int = 0, ignore_config: bool = True
) -> None:
    runner = BlackRunner()
    if ignore_config:
        args = ["--verbose", "--config", str(THIS_DIR / "empty.toml"), *args]
    result = runner.invoke(black.main, args, catch_exceptions=False)
    assert result.stdout_bytes is not None
    assert result.stderr_bytes is not None
    msg = (
        f"Failed with args: {args}\n"
        f"stdout: {result.stdout_bytes.decode()!r}\n"
        f"stderr: {result.stderr_bytes.decode()!r}\n"
        f"exception: {result.exception}"
    )
    assert result.exit_code == exit_code, msg


def docstring_value(source: str) -> str:
    # Not ast.get_docstring(): its default clean=True runs inspect.cleandoc,
    # which trims exactly the whitespace these tests are about.
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    expr = node.body[0]
    assert isinstance(expr, ast.Expr)
    assert isinstance(expr.value, ast.Constant)
    return str(expr.value.value)


def test_fmt_off_reindent_reports_black_not_the_user(tmp_path: Path) -> None:
    """Black must own the error when its own output fails to parse.

    Reindenting to 4 spaces stops at a ``# fmt: off`` region, so the result can
    mix indent widths and fail the forced second pass. That parse failure is
    Black's, but it used to surface as ``cannot parse: <user file>:<line>``,
    which is exactly what a genuine syntax error in the user's source looks
    like.
    """
    source = tmp_path / "reindent.py"
    source.write_text(
        'if __name__ == "__main__":\n'
        "  foo = 3\n"
        "  # fmt: off\n"
        "  bar = 1\n"
        "  baz  =  2\n"
        "  # fmt: on\n"
        "  qux = 4\n",
        encoding="utf8",
    )
    # the file itself is valid Python; only Black's own output is not
    ast.parse(source.read_text(encoding="utf8"))

    result = BlackRunner().invoke(
        black.main, ["--config", str(THIS_DIR / "empty.toml"), str(source)]
    )

    assert result.exit_code == 123
    # the internal error must come first, so the parse location that follows is
    # read as part of it rather than as a syntax error in the user's file
    assert result.stderr.startswith("error: INTERNAL ERROR:")
    assert "produced invalid code" in result.stderr
    assert "https://github.com/psf/black/issues" in result.stderr
    # the parse location is kept, it points into Black's output
    assert f"cannot parse: {source}:" in result.stderr


def test_invalid_input_error_includes_path_location(tmp_path: Path) -> None:
    source = tmp_path / "invalid.py"
    source.write_text("return if you can\n", encoding="utf8")

    result = BlackRunner().invoke(
        black.main, ["--config", str(THIS_DIR / "empty.toml"), str(source)]
    )

    assert result.exit_code == 123
    assert (
        f"error: cannot parse: {source}:1:7\n"
        "    return if you can\n"
        "          ^\n"
        "ParseError: bad input\n"
        in result.stderr
    )

    second_source = tmp_path / "also_invalid.py"
    second_source.write_text("print(\n", encoding="utf8")
    result = BlackRunner().invoke(
        black.main,
        [
            "--config",
            str(THIS_DIR / "empty.toml"),
            str(source),
            str(second_source),
        ],
    )

    assert result.exit_code == 123
    assert f"error: cannot parse: {source}:1:7\n" in result.stderr
    assert f"error: cannot parse: {second_source}:1:6\n" in result.stderr


class BlackTestCase(BlackBaseTestCase):
    invokeBlack = staticmethod(invokeBlack)

    def test_empty_ff(self) -> None:
        expected = ""
        tmp_file = Path(black.dump_to_file())
        try:
            self.assertFalse(ff(tmp_file, write_back=black.WriteBack.YES))
            actual = tmp_file.read_text(encoding="utf-8")
        finally:
            os.unlink(tmp_file)
        self.assertFormatEqual(expected, actual)

    @patch("black.dump_to_file", dump_to_stderr)
    def test_one_empty_line(self) -> None:
        for nl in ["\n", "\r\n"]:
            source = expected = nl
            assert_format(source, expected)

    def test_one_empty_line_ff(self) -> None:
        for nl in ["\n", "\r\n"]:
            expected = nl
            tmp_file = Path(black.dump_to_file(nl))
            if system() == "Windows":
                # Writing files in text mode automatically uses the system newline,
                # but in this case we don't want this for testing reasons. See:
                # https://github.com/psf/black/pull/3348
                with open(tmp_file, "wb") as f:
                    f.write(nl.encode("utf-8"))
            try:
                self.assertFalse(ff(tmp_file, write_back=black.WriteBack.YES))
                with open(tmp_file, "rb") as f:
                    actual = f.read().decode("utf-8")
            finally:
                os.unlink(tmp_file)
            self.assertFormatEqual(expected, actual)

    def test_piping(self) -> None:
        _, source, expected = read_data_from_file(
            PROJECT_ROOT / "src/black/__init__.py"
        )
        result = BlackRunner().invoke(
            black.main,
            [
                "-",
                "--fast",
                f"--line-length={black.DEFAULT_LINE_LENGTH}",
                f"--config={EMPTY_CONFIG}",
            ],
            input=BytesIO(source.encode("utf-8")),
        )
        self.assertEqual(result.exit_code, 0)
        self.assertFormatEqual(expected, result.stdout)
        if source != result.stdout:
            black.assert_equivalent(source, result.stdout)
