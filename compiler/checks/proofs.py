"""Rules about what a proof runs, read from its words and never run (compiler/analysis/proofs.py):
the scripts of the repository it runs (EP209) and the tests it selects (EP210) are there, or the
plan writes them first (compiler/analysis/planned.py). Checked against the repository like
evidence, so skipped with --no-verify-evidence.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from compiler.checks.context import CheckContext, Rule
from compiler.core.diagnostics import Diagnostic, Fix
from compiler.core.display import clip
from compiler.core.paths import leaves_root
from compiler.model.values import Item

if TYPE_CHECKING:
    from compiler.analysis.proofs import Target
    from compiler.repo.testnames import Resolver


# What a missing script, test file or folder is told, when the plan does not say it will write it.
_PLAN_IT = "; if the plan creates it, list it in the paths: of this item or of an item it depends on"


class _Missing(NamedTuple):
    """What is missing of a script or test a proof runs, and the file or folder that the plan may
    write first (``paths:``), which excuses it; None when nothing can."""

    text: str
    path: str | None
    # The guess of a did-you-mean, as (the text replaced, its replacement): within the proof's word
    # once ``_missing_test`` or ``proof_scripts`` has made it so (the word, the word meant).
    swap: tuple[str, str] | None = None


def _typo(path: str, guess: str | None) -> str | None:
    """A did-you-mean for a missing file or folder a proof runs, when it reads as a typo of
    ``guess`` (the same name elsewhere, or a name spelt nearly the same); not a file of another name
    that merely sits beside it (``test_features.py`` is no typo of ``test_trans.py``)."""
    if guess is None:
        return None
    from difflib import SequenceMatcher

    mine, theirs = posixpath.basename(path).lower(), posixpath.basename(guess).lower()
    if mine == theirs:
        return guess
    stems = mine.rsplit(".", 1)[0], theirs.rsplit(".", 1)[0]
    return guess if SequenceMatcher(None, *stems).ratio() >= 0.8 else None


def _not_there(shown: str, path: str, guess: str | None) -> _Missing:
    hint = _typo(path, guess)
    return _Missing(f"{shown} does not exist" + (f" (did you mean {hint}?)" if hint else "") + _PLAN_IT, path,
                    (path, hint) if hint else None)


def _in_word(word: str, missing: _Missing) -> _Missing:
    """``missing`` with its guess made a swap of the whole word: its last occurrence of the text
    replaced (a test's name comes last: ``tests/x.py::Case::test_a``); none when the word does
    not hold that text."""
    if missing.swap is None:
        return missing
    old, new = missing.swap
    at = word.rfind(old)
    return missing._replace(swap=(word, word[:at] + new + word[at + len(old):]) if at >= 0 else None)


def _planned(ctx: CheckContext, found: list[tuple[Item, list[_Missing]]]) -> set[tuple[str, str]]:
    """The (item, path) pairs of what is missing that the item or one it depends on writes
    (compiler/analysis/planned.py); nothing to look at for a plan that gives no paths."""
    if not found or not ctx.plan.gives("paths"):
        return set()
    from compiler.analysis.planned import planned

    asks: dict[str, list[str]] = {}
    for item, problems in found:
        asks.setdefault(item.id, []).extend(m.path for m in problems if m.path is not None)
    return planned(ctx.plan.items, asks)


def _report(ctx: CheckContext, code: str, found: list[tuple[Item, list[_Missing]]]) -> Iterator[Diagnostic]:
    excused = _planned(ctx, found)
    for item, problems in found:
        for problem in problems:
            if problem.path is not None and (item.id, problem.path) in excused:
                continue
            yield Diagnostic(code, f"{clip(item.id)} proof runs {problem.text}", item=item.id,
                             location=ctx.loc(item, "proof"), fix=_swapped(ctx, item, problem))


# What a shell reads as more than a word's letters: a guess that holds one would change how the
# proof is split or expanded (a file of the repository may be named anything).
_SHELL_SIGNIFICANT = frozenset(" \t\n'\"\\$`;&|<>()*?!#~{}")


def _swapped(ctx: CheckContext, item: Item, problem: _Missing) -> Fix | None:
    """The fix of a did-you-mean: the proof with the word guessed in place of the word it runs,
    when the proof is one text that holds that word once and the guess is a plain word to the
    shell; a guess."""
    if problem.swap is None:
        return None
    old, new = problem.swap
    if _SHELL_SIGNIFICANT.intersection(new) - _SHELL_SIGNIFICANT.intersection(old):
        return None
    at = ctx.path(item, "proof")
    proof = ctx.raw(at)
    if not isinstance(proof, str) or proof.count(old) != 1:
        return None
    return Fix(message=f"{clip(item.id)}: proof runs {clip(new)}, not {clip(old)} (a guess)", applicability="unsafe",
               changes=((at, proof.replace(old, new)),))


def proof_scripts(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP209: a script a proof runs (``./tools/check.sh``, ``python3 scripts/links.py``) is in the
    repository, or the plan will write it first: it is in the ``paths:`` of the item or of an item
    it depends on, transitively (compiler/analysis/planned.py). The message offers a did-you-mean
    only for a plausible typo of a script that exists, and says where a script the plan creates
    belongs. Read from the proof's words, never run (compiler/analysis/proofs.py); checked against
    the repository like evidence, so skipped with --no-verify-evidence."""
    if ctx.repo is None:
        return
    from compiler.analysis.proofs import scripts

    repo = ctx.repo
    judged: dict[str, list[_Missing]] = {}  # proof -> what is missing of the scripts it runs: judged once per proof

    def missing(proof: str) -> list[_Missing]:
        out = []
        for script in scripts(proof):
            if leaves_root(script):
                continue  # outside the repository: not ours to judge
            path = script.removeprefix("./")
            if repo.facts(path).kind == "missing":
                out.append(_in_word(script, _not_there(f"{clip(script)}, but {clip(path)}", posixpath.normpath(path),
                                                       repo.suggest(path))))
        return out

    found: list[tuple[Item, list[_Missing]]] = []
    for item in ctx.plan.items:
        problems = judged.get(item.proof)
        if problems is None:
            problems = judged[item.proof] = missing(item.proof)
        if problems:
            found.append((item, problems))
    yield from _report(ctx, "EP209", found)


def _elsewhere(tests: Resolver, path: str, names: tuple[str, ...]) -> tuple[bool, str | None]:
    """Whether names missing from a file's own definitions may still be there at run time, and
    a name they may have meant: a method a class inherits from a base (followed through the
    repository, compiler/repo/testnames.py: a base from outside it may define anything), or a
    name the module imports (``from x import test_a``), which pytest and unittest collect but
    which is no definition of the file."""
    repo = tests.repo
    for k in range(len(names) - 1, 0, -1):
        owner = ".".join(names[:k])
        if repo.symbol(path, owner) is None:
            continue
        members = tests.members(path, owner)
        if members is None:
            return True, None  # not a class of the file's syntax: not judged
        if names[k] in members.names:
            return True, None  # inherited (or, deeper, a class inherited: not followed further)
        if not members.complete:
            return True, None
        from difflib import get_close_matches

        close = get_close_matches(names[k], sorted(members.names)[:1000], 1, 0.6)
        return False, (".".join((owner, close[0])) if close and k == len(names) - 1 else None)
    return any("import" in (repo.text(path, n, n) or "") for n in repo.find(path, names[0], limit=20)), None


def _missing_test(target: Target, tests: Resolver) -> _Missing | None:
    """What is missing of a test a proof selects ("F does not exist ...", "F defines no T ..."),
    with the file or folder whose planning excuses it; None when it is there or cannot be judged
    (outside the root, unreadable, too large)."""
    repo = tests.repo
    if target.dotted:
        return _missing_module(target.dotted, tests)
    path = target.path
    if leaves_root(path):
        return None
    facts = repo.facts(path)
    if facts.kind == "missing":
        folder = target.folder or "." not in posixpath.basename(path)  # tests/unit, not tests/test_x.py
        guess = repo.suggest_folder(path) if folder else repo.suggest(path)
        return _not_there(clip(posixpath.normpath(path)), posixpath.normpath(path), guess)
    if facts.kind == "file" and target.folder:
        return _Missing(f"{clip(posixpath.normpath(path))} is a file, not a folder", None)
    if facts.kind != "file" or not target.names:
        return None
    _, _, node = target.word.partition("::")
    parameter = node[node.index("[") + 1:-1] if "[" in node and node.endswith("]") else None
    return _missing_name(tests, posixpath.normpath(path), target.names, "::", parameter)


def _missing_name(tests: Resolver, path: str, names: tuple[str, ...], sep: str,
                  parameter: str | None = None) -> _Missing | None:
    repo = tests.repo
    facts = repo.facts(path)
    if facts.binary or facts.mapped is not None or repo.too_large_to_parse(path):
        return None
    dotted = ".".join(names)
    if repo.symbol(path, dotted) is not None:
        if parameter is None:
            return None
        ids = tests.parameter_ids(path, dotted)
        if ids is None or parameter in ids:
            return None
        from difflib import get_close_matches

        close = get_close_matches(parameter, ids[:1000], 1, 0.6)
        listed = ", ".join(ids[:10]) + (", ..." if len(ids) > 10 else "")
        return _Missing(f"{clip(path)} gives {clip(sep.join(names))} no parameter id {clip(parameter)}"
                        + (f" (did you mean {clip(close[0])}?)" if close else "") + f"; its ids are {clip(listed)}",
                        path, (f"[{parameter}]", f"[{close[0]}]") if close else None)
    maybe, meant = _elsewhere(tests, path, names)
    if maybe:
        return None
    guess = meant or repo.suggest_symbol(path, dotted)
    hint = f" (did you mean {guess.replace('.', sep)}?)" if guess else ""
    one = guess is not None and " or " not in guess  # several names: no fix to guess
    return _Missing(f"{clip(path)} defines no {clip(sep.join(names))}{hint}", path,
                    (sep.join(names), guess.replace(".", sep)) if guess is not None and one else None)


def _missing_module(parts: tuple[str, ...], tests: Resolver) -> _Missing | None:
    """unittest's dotted name: its longest prefix that is a module (``pkg/mod.py``) or a package
    (a folder) of the root, and the rest, names in that module. A first part the root does not
    have is left alone: it may be an installed package."""
    repo = tests.repo
    package = 0  # how many leading parts are folders
    for k in range(1, len(parts) + 1):
        base = "/".join(parts[:k])
        if repo.facts(base + ".py").kind == "file":
            return _missing_name(tests, base + ".py", parts[k:], ".") if k < len(parts) else None
        if repo.facts(base).kind != "folder":
            break
        package = k
    if package == 0 or package == len(parts):
        return None
    init = "/".join(parts[:package]) + "/__init__.py"
    if repo.facts(init).kind == "file" and repo.symbol(init, ".".join(parts[package:])) is not None:
        return None
    # The module meant: the parts up to the first capitalised one (a class), at least one more.
    end = next((k for k in range(package, len(parts)) if parts[k][:1].isupper()), len(parts))
    module = "/".join(parts[:max(end, package + 1)]) + ".py"
    return _not_there(clip(module), module, repo.suggest(module))


def proof_tests(ctx: CheckContext) -> Iterator[Diagnostic]:
    """EP210: the test files, folders and tests a proof selects (``pytest tests/x.py::test_a``,
    ``python -m unittest tests.test_x.Case``, ``unittest discover -s tests``) are in the repository,
    found as symbol evidence is found: a class's tests with those of the base classes the
    repository defines (a base from outside it may define anything), a parametrised id among
    those of a literal ``@pytest.mark.parametrize`` (compiler/repo/testnames.py). A file or folder
    the item or one it depends on writes (``paths:``, transitively) is planned: it, and the tests
    in it, need not exist yet. Read from the proof's words, never run; skipped with
    --no-verify-evidence."""
    if ctx.repo is None:
        return
    from compiler.analysis.proofs import targets_of
    from compiler.repo.testnames import Resolver

    tests = Resolver(ctx.repo)
    judged: dict[str, list[_Missing]] = {}  # proof -> what is missing of the tests it runs: judged once per proof
    found: list[tuple[Item, list[_Missing]]] = []
    for item in ctx.plan.items:
        problems = judged.get(item.proof)
        if problems is None:
            problems = judged[item.proof] = [
                _in_word(target.word, missing._replace(text=f"{clip(target.word)}, but {missing.text}"))
                for target in targets_of(item.proof) if (missing := _missing_test(target, tests)) is not None]
        if problems:
            found.append((item, problems))
    yield from _report(ctx, "EP210", found)


RULES = (
    Rule(proof_scripts, ("EP209",), "repository"),
    Rule(proof_tests, ("EP210",), "repository"),
)
