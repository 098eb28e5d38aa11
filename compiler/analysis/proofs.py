"""What a proof command runs, read with the shell's grammar (never run): the commands of a proof
line and, for each, the repository script it names (EP209) and the tests it selects (EP210), and
whether the proof is a command at all (EP110).

A script is named by the command word itself when it is a relative path (``./tools/x.sh``,
``scripts/check.py``), or by the first argument of an interpreter (``python3 scripts/check_links.py``,
``bash tools/x.sh``; not ``python -m pytest``, whose first argument is an option). Words after an
environment assignment (``CI=1 ./x.sh``) count the same. Absolute paths, ``~`` and variables are
someone else's: not named.

A test target is a word given to pytest (``pytest``, ``py.test``, ``python -m pytest``, also behind
``uv run``, ``poetry run``, ``pipenv run``, ``hatch run``, ``pdm run``, ``coverage run -m``) that reads
as a path or a node id (it has a ``/``, ends in ``.py`` or holds ``::``), or to unittest (``python -m
unittest``): a path, a dotted name (``tests.test_x.Case.test``), or ``discover``'s start folder. The
values of options are not targets (``-k EXPR``, ``--ignore DIR``, ``--opt=value``), nor is a word
with glob characters, ``$``, ``~`` or an absolute path. After a ``cd`` the working folder is not the
root any more: later commands name nothing this module can place."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import NamedTuple

from compiler.analysis.shell import may_split, split_commands
from compiler.core.paths import is_absolute

INTERPRETERS = frozenset({"python", "python3", "py", "bash", "sh", "zsh", "node", "ruby", "perl", "pwsh"})
# check imports this module for every plan with proofs, and a regular expression costs about 0.1 ms
# to compile, more than all the checks of a 20-item plan: the paths most proofs take use string
# methods, and the patterns of the others are compiled on first use (_re).
# Most proofs name no script (`pytest ...`, `make test`): these settle them.
_SCRIPT_HINTS = ("./", ".py", ".sh", ".bash", ".js", ".mjs", ".rb", ".pl", ".ps1")
_CHANGES_FOLDER = frozenset({"cd", "pushd", "popd"})
# `uv run pytest ...`: a runner of the project's environment, then the command.
_RUN_PREFIXES = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye"})
# Characters of words the shell would expand: not the literal path the runner gets.
_EXPANDS = frozenset("*?{}$`~")


@functools.cache
def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isascii() and name.isidentifier()


def _is_python(name: str) -> bool:
    """python, python3, python3.12, py, pypy3: an interpreter that runs ``-m MODULE``."""
    if name in ("py", "pypy", "pypy3"):
        return True
    version = name[6:]
    return name.startswith("python") and (not version or all(part.isdigit() for part in version.split(".")))


def _ends_arguments(word: str) -> bool:
    """A pipe, a redirection (``>``, ``2>&1``, ``<in``) or a background ``&``: the arguments end."""
    return word.startswith(("|", "&")) or word.lstrip("0123456789")[:1] in ("<", ">")


def _literal(word: str) -> bool:
    """Whether the runner gets the word as written, a path relative to the working folder."""
    return _EXPANDS.isdisjoint(word) and not is_absolute(word)


def _identifier(word: str) -> bool:
    return word.isascii() and word.isidentifier()


# Options of pytest (and its common plugins) whose value is the next word: never a target.
PYTEST_VALUE_OPTIONS = frozenset("""
-k -m -p -c -o -W -n -r --rootdir --deselect --ignore --ignore-glob --maxfail --tb --junitxml --junit-xml
--junit-prefix --cov --cov-report --cov-config --cov-fail-under --cov-context --basetemp --confcutdir
--durations --durations-min --log-level --log-file --log-file-level --log-format --log-date-format
--log-cli-level --log-cli-format --log-cli-date-format --log-file-format --log-file-date-format
--log-disable --import-mode --capture --color --code-highlight --pastebin --override-ini --config-file
--pythonwarnings --doctest-glob --doctest-report --report-log --html --css --json-report-file --dist
--tx --rsyncdir --maxprocesses --max-worker-restart --numprocesses --reruns --reruns-delay --only-rerun
--timeout --timeout-method --randomly-seed --hypothesis-seed --hypothesis-profile --hypothesis-verbosity
--count --repeat-scope --splits --group --splitting-algorithm --durations-path --benchmark-save
--benchmark-json --benchmark-storage --benchmark-columns --benchmark-sort --benchmark-group-by
--benchmark-compare --asyncio-mode --ds --dc --verbosity --pdbcls --assert --show-capture
--log-auto-indent --junit-family --base-url --driver --browser --mypy-ini-file
""".split())
# Options of pytest known to take no value: the word after one is read as any other.
PYTEST_FLAGS = frozenset("""
--lf --ff --nf --sw --last-failed --failed-first --new-first --stepwise --stepwise-skip --sw-skip --exitfirst
--verbose --quiet --strict --strict-markers --strict-config --no-header --no-summary --showlocals --pdb
--trace --collect-only --co --setup-show --setup-only --setup-plan --disable-warnings --full-trace
--doctest-modules --runxfail --cache-clear --cov-branch --no-cov --forked --looponfail --fixtures
--fixtures-per-test --markers --continue-on-collection-errors --noconftest --keep-duplicates --cache-show
--debug --trace-config --help --version --benchmark-only --benchmark-skip --benchmark-disable --mypy
--doctest-continue-on-failure --runslow --run-slow --integration --no-cov-on-fail --random-order
""".split())
UNITTEST_VALUE_OPTIONS = frozenset({"-k", "--durations"})
DISCOVER_VALUE_OPTIONS = frozenset({"-s", "--start-directory", "-p", "--pattern", "-t", "--top-level-directory"})


class Target(NamedTuple):
    """A test a proof selects, as its runner reads the word."""

    word: str  # the word, as the shell hands it to the runner
    path: str = ""  # the file or folder it names (pytest, unittest's path form, discover's start)
    names: tuple[str, ...] = ()  # pytest: the node's parts after the file (Class, test), parameters dropped
    dotted: tuple[str, ...] = ()  # unittest: a dotted name, module parts then names, resolved against the tree
    folder: bool = False  # must be a folder (unittest discover's start)


def words(command: str) -> list[str] | None:
    """The words of one command as the shell splits them (quotes removed, a ``#`` comment
    dropped), or None when it cannot be read (a quote never closed). Without quotes or
    backslashes (most proofs) a plain split gives what shlex would (it also splits at the rarer
    ASCII separators, form feed and the like), without importing it."""
    if "'" in command or '"' in command or "\\" in command:
        import shlex  # only for the proofs that quote

        try:
            return shlex.split(command, comments=True)
        except ValueError:
            return None
    return command.split("#", 1)[0].split()


def _commands(proof: str) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """(the variables assigned before it, its words) for each command of a proof that runs in the
    proof's own working folder: a ``cd`` (or ``pushd``) moves the rest of the chain elsewhere, so the
    commands after it are not read."""
    # Without a separator a proof is one command (most are): no need to walk it character by character.
    for command in split_commands(proof) if may_split(proof) else [proof]:
        said = words(command)
        if said is None:  # an unclosed quote: not a command we can read, so nothing to check
            continue
        assigned: list[str] = []
        if said and said[0] == "env":
            said = said[1:]
            if said and said[0].startswith("-"):
                continue  # env -i, env -C DIR: another environment, or another folder
        while said and _is_assignment(said[0]):
            assigned.append(said[0].split("=", 1)[0])
            said = said[1:]
        if not said:
            continue
        if said[0] in _CHANGES_FOLDER:
            return
        yield tuple(assigned), said


def scripts(proof: str) -> list[str]:
    """The repository scripts a proof runs, in order, each once."""
    if not any(hint in proof for hint in _SCRIPT_HINTS):
        return []
    out: list[str] = []
    seen: set[str] = set()
    for _, said in _commands(proof):
        first = said[0]
        name = first.rsplit("/", 1)[-1]
        if name in INTERPRETERS and len(said) > 1 and not said[1].startswith("-"):
            candidate = said[1]
        elif "/" in first and not (name in INTERPRETERS or _is_python(name)):
            candidate = first  # (.venv/bin/python is an environment's interpreter, not a script)
        else:
            continue
        if candidate.startswith(("/", "~")) or "$" in candidate or candidate.removeprefix("./") in seen:
            continue
        seen.add(candidate.removeprefix("./"))
        out.append(candidate)
    return out


# --- test targets -----------------------------------------------------------------------------


def _runner(said: list[str]) -> tuple[str, list[str]] | None:
    """("pytest" or "unittest", the runner's arguments) when a command runs one."""
    if len(said) > 2 and said[0] in _RUN_PREFIXES and said[1] == "run":
        said = said[2:]
        if said[0].startswith("-"):
            return None  # uv run --with X ...: options of the prefix, not worth guessing
    name = said[0].rsplit("/", 1)[-1]
    if name in ("pytest", "py.test"):
        return "pytest", said[1:]
    module: str | None = None
    rest: list[str] = []
    if _is_python(name):
        i = 1
        while i < len(said) and said[i].startswith("-") and module is None:
            option = said[i]
            if option == "-m" and i + 1 < len(said):
                module, rest = said[i + 1], said[i + 2:]
            elif option.startswith("-m") and len(option) > 2:
                module, rest = option[2:], said[i + 1:]
            elif option in ("-X", "-W", "-Q"):
                i += 1  # its value
            elif option.startswith("-c") or option == "-":
                return None
            i += 1
    elif name == "coverage" and len(said) > 1 and said[1] == "run" and "-m" in said[2:-1]:
        at = said.index("-m", 2)
        module, rest = said[at + 1], said[at + 2:]
    if module in ("pytest", "py.test"):
        return "pytest", rest
    if module == "unittest":
        return "unittest", rest
    return None


def _pytest_targets(args: list[str]) -> Iterator[Target]:
    options = True
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if _ends_arguments(word):
            return
        if options and word == "--":
            options = False
            continue
        if options and word.startswith("-"):
            if word == "--pyargs":
                return  # the words are packages to import, not paths
            if "=" in word or (not word.startswith("--") and len(word) > 2):
                continue  # --opt=value, -kEXPR, -vx: one word
            if word in PYTEST_VALUE_OPTIONS:
                i += 1  # its value
            elif word.startswith("--") and word not in PYTEST_FLAGS and i < len(args):
                # An option this module does not know may take a value: the next word counts
                # only when it can be nothing but a test (a .py file or a node id).
                path = args[i].partition("::")[0]
                if not (path.endswith(".py") or "::" in args[i]):
                    i += 1
            continue
        target = _pytest_target(word)
        if target is not None:
            yield target


def _pytest_target(word: str) -> Target | None:
    path, node, rest = word.partition("::")
    names = rest.split("[", 1)[0]  # test_x[1-2] is test_x, with parameters
    if not (_literal(path) and _literal(names)) or "[" in path:
        return None
    if not (node or path.endswith(".py") or "/" in path):
        return None  # a word, not a path: `pytest tests` is left alone
    parts = tuple(names.split("::")) if node else ()
    if parts and not all(map(_identifier, parts)):
        return None
    if parts and not path.endswith(".py"):
        return None  # a doctest of a text file, a node of a plugin's file: not a Python definition
    return Target(word, path.rstrip("/") or path, parts)


def _unittest_targets(args: list[str]) -> Iterator[Target]:
    if args and args[0] == "discover":
        i = 1
        start: str | None = None
        while i < len(args):
            word = args[i]
            if _ends_arguments(word):
                break
            if word in ("-s", "--start-directory") and i + 1 < len(args):
                start = args[i + 1]
            elif word.startswith("--start-directory="):
                start = word.split("=", 1)[1]
            elif word.startswith("-s") and len(word) > 2:
                start = word[2:]
            elif word in DISCOVER_VALUE_OPTIONS or word in UNITTEST_VALUE_OPTIONS:
                i += 1
            elif not word.startswith("-") and start is None:
                start = word  # discover [start [pattern [top]]]
            i += 1
        if start is not None and _literal(start):
            yield Target(f"unittest discover -s {start}", start.rstrip("/") or start, folder=True)
        return
    for word in _arguments(args, UNITTEST_VALUE_OPTIONS):
        if not _literal(word) or "[" in word:
            continue
        if "/" in word or word.endswith(".py"):
            yield Target(word, word.rstrip("/") or word)
        elif "." in word and all(map(_identifier, word.split("."))):
            yield Target(word, dotted=tuple(word.split(".")))


def _arguments(args: list[str], takes_value: frozenset[str]) -> Iterator[str]:
    """The words of ``args`` that are not options or option values, up to a pipe or redirection."""
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if _ends_arguments(word):
            return
        if word.startswith("-"):
            if word in takes_value:
                i += 1
            continue
        yield word


def targets_of(proof: str) -> list[Target]:
    """The test files, folders and tests a proof selects, in order, each once. Only commands that
    run pytest or unittest from the proof's own working folder count (see the module's doc)."""
    if "pytest" not in proof and "py.test" not in proof and "unittest" not in proof:
        return []
    if "\\" in proof.replace("\\\n", ""):
        return []  # tests\test_x.py: a path of Windows, which a POSIX shell reads as teststest_x.py
    out: list[Target] = []
    seen: set[str] = set()
    for assigned, said in _commands(proof):
        found = _runner(said)
        if found is None:
            continue
        runner, args = found
        targets = _pytest_targets(args) if runner == "pytest" else _unittest_targets(args)
        for target in targets:
            if target.dotted and "PYTHONPATH" in assigned:
                continue  # imported from elsewhere than the root
            if target.word not in seen:
                seen.add(target.word)
                out.append(target)
    return out


# --- a proof that is no command ---------------------------------------------------------------

# What only a command has: an option, an operator, a redirection, a variable, an assignment, a glob.
_COMMAND_SYNTAX = r"(?:^|\s)-|[|&;<>$(){}=*~\\\[\]]"
# What a command may have and a sentence too, rarely: a path, a dotted name, @ % + ^ :.
_COMMAND_WORD = r"[/@%+^:]|\w\.\w"
_SYNTAX_CHARS = frozenset("|&;<>$(){}=*~\\[]")
_QUOTED = r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`"
_PROSE_APOSTROPHE = r"(?<=[A-Za-z])'(?=[A-Za-z])"  # don't, user's: no quote of the shell
_PLAIN = r"[A-Za-z][A-Za-z'-]*[.,?!]?|\d+[.,?!]?|\x00"
_SENTENCE_END = r"[A-Za-z][A-Za-z'-]*[.?!]"
_CLAUSE_END = r"[A-Za-z][A-Za-z'-]*[,?!.]"
_CAPITALISED = r"[A-Z][a-z]+"
_LOWER = r"[a-z][a-z'-]*[.,?!]?"
_COMMENT = r"(?:^|\s)#.*"
# Builtins whose arguments are free text: `echo Tests pass.` is a command.
_PRINTS_TEXT = frozenset({"echo", "printf"})


def reads_as_prose(proof: str) -> bool:
    """Whether a proof reads as a sentence rather than a command (EP110), judged from the shell's
    grammar: a command has options, operators, paths or a program's name first; a sentence has
    words of letters, sentence punctuation at their ends (``works.``, ``pass?``, ``first,``), a
    capitalised first word followed by lowercase ones, apostrophes (``don't``) that the shell
    would read as an unclosed quote. Conservative: anything with an option, an operator, a
    redirection or a variable is a command; a path or digits need two signs of a sentence.
    Quoted text counts as one neutral word."""
    text = proof.strip()
    if "\n" in text or text.count(" ") < 2:
        return False  # a script of several lines, or fewer than three words: a command's shape
    if ((" -" in text or "\t-" in text or text[0] == "-" or not _SYNTAX_CHARS.isdisjoint(text))
            and "'" not in text and '"' not in text and "`" not in text):
        return False  # an option or an operator, none of it quoted: a command (most proofs end here)
    bare = _re(_COMMENT).sub("", _re(_QUOTED).sub(" \x00 ", _re(_PROSE_APOSTROPHE).sub("", text)))
    if _re(_COMMAND_SYNTAX).search(bare) or "'" in bare or '"' in bare or "`" in bare:
        return False
    said = bare.split()
    if len(said) < 3 or said[0] in _PRINTS_TEXT:
        return False
    apostrophe = _re(_PROSE_APOSTROPHE).search(text) is not None
    signs = (apostrophe + (_re(_SENTENCE_END).fullmatch(said[-1]) is not None)
             + any(_re(_CLAUSE_END).fullmatch(w) for w in said[:-1])
             + (_re(_CAPITALISED).fullmatch(said[0]) is not None and any(_re(_LOWER).fullmatch(w) for w in said[1:])))
    if _re(_COMMAND_WORD).search(bare) or not all(_re(_PLAIN).fullmatch(w) for w in said):
        return signs >= 2
    if signs:
        return True
    # Lowercase words only, no punctuation: a sentence is long and made of short words; a
    # command's words (`rustup component add clippy`, `pip install a b c`) are fewer, or longer.
    letters = [len(w) for w in said if w != "\x00"]
    return len(letters) >= 5 and sum(letters) / len(letters) <= 4.5
