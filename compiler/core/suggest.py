"""Did-you-mean, with bounded work: the one helper behind every suggestion (unknown fields EP010,
unknown dependencies EP301, missing files EP201, unknown symbols EP206).

A suggestion is what ``difflib.get_close_matches(word, candidates, n=1, cutoff)`` returns, but a
plan can ask for thousands of them against thousands of candidates, and difflib compares the word
with every candidate each time: 4,000 unknown dependencies cost 22 s, 100 misspelt paths in a
10,000-file repository 9.5 s. A ``Suggester`` is built once per set of candidates and gives the
same answers for less:

- candidates are indexed by length: a ratio of at least ``cutoff`` needs lengths within a factor
  of ``cutoff / (2 - cutoff)`` (0.43 for 0.6), and lengths are tried from the closest, so that a
  good match found early rules out the rest without comparing them;
- a candidate is compared in full only when difflib's cheap upper bounds could still beat the
  best match so far (ties go to the greater string, as in difflib);
- each word is answered once;
- all comparisons draw on a ``Budget`` of work, counted in characters compared, never in
  seconds, so the output stays deterministic; once it is spent, no more suggestions are made.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

MAX_WORK = 2_000_000
"""Work for one budget, in characters compared: looking at a candidate costs 10 plus its length
(difflib's quick bound), and comparing it in full the product of its length and the word's. A
unit takes 0.05-0.1 us on an idle two-core machine (0.2-0.25 us when loaded), so a budget is spent
in 0.1-0.2 s (0.5 s loaded): enough for about 25 typos among 4,000 ids, 10 misspelt paths in a
10,000-file tree, or hundreds in a plan of a few hundred items."""


class Budget:
    """Work left for suggestions; shared by the suggesters of one check."""

    __slots__ = ("left",)

    def __init__(self, work: int = MAX_WORK) -> None:
        self.left = work

    def spend(self, work: int) -> bool:
        """Take ``work`` if it is left; else the budget is spent for good."""
        if work > self.left:
            self.left = 0
            return False
        self.left -= work
        return True


_QUICK = 10  # looking at a candidate at all (a few method calls), in the units of MAX_WORK


def _bound(a: int, b: int) -> float:
    """difflib's real_quick_ratio for lengths a and b: the best ratio they allow."""
    return 2.0 * min(a, b) / (a + b) if a + b else 1.0


class Suggester:
    """The closest of a fixed set of candidates to a word, as difflib finds it, within a budget."""

    def __init__(self, candidates: Iterable[str], *, budget: Budget | None = None) -> None:
        by_length: dict[int, list[str]] = {}
        # Sorted, so that where a spent budget stops does not depend on the candidates' order
        # (a set of ids has none that holds from one run to the next).
        for candidate in sorted(set(candidates)):
            by_length.setdefault(len(candidate), []).append(candidate)
        self._by_length = by_length
        self.budget = budget if budget is not None else Budget()
        self._answers: dict[tuple[str, float, str | None], str | None] = {}

    def closest(self, word: str, cutoff: float = 0.6, *, exclude: str | None = None) -> str | None:
        """``get_close_matches(word, candidates - {exclude}, n=1, cutoff)``, or None once the
        budget is spent."""
        key = (word, cutoff, exclude)
        if key not in self._answers:
            self._answers[key] = self._closest(word, cutoff, exclude)
        return self._answers[key]

    def _closest(self, word: str, cutoff: float, exclude: str | None) -> str | None:
        size = len(word)
        lengths = sorted((length for length in self._by_length if _bound(length, size) >= cutoff),
                         key=lambda length: (-_bound(length, size), length))
        matcher = SequenceMatcher()
        matcher.set_seq2(word)
        best_score, best = -1.0, ""
        for length in lengths:
            if _bound(length, size) < best_score:
                break  # no candidate of this length (or any later) can beat the best
            for candidate in self._by_length[length]:
                if candidate == exclude:
                    continue
                if not self.budget.spend(_QUICK + length):
                    return None
                matcher.set_seq1(candidate)
                quick = matcher.quick_ratio()
                if quick < cutoff or quick < best_score:
                    continue
                if not self.budget.spend(length * size):
                    return None
                score = matcher.ratio()
                if score >= cutoff and (score, candidate) > (best_score, best):
                    best_score, best = score, candidate
        return best if best_score >= 0 else None

    def most_similar(self, word: str, options: Sequence[str]) -> str | None:
        """The first of ``options`` with the highest ratio to ``word`` (difflib's ratio of option
        against word), or None once the budget is spent."""
        if len(options) == 1:
            return options[0]
        matcher = SequenceMatcher()
        matcher.set_seq2(word)
        best_score, best = -1.0, None
        for option in options:
            if not self.budget.spend(_QUICK + len(option) + len(option) * len(word)):
                return None
            matcher.set_seq1(option)
            score = matcher.ratio()
            if score > best_score:
                best_score, best = score, option
        return best


class PathSuggester:
    """A likely intended path for a missing one, among the files of a repository: a difference of
    case first, then the same file name elsewhere (the most similar path), then a close spelling."""

    def __init__(self, files: Sequence[str], *, budget: Budget | None = None) -> None:
        self._by_lower: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        for path in files:
            self._by_lower.setdefault(path.lower(), []).append(path)
            self._by_name.setdefault(posixpath.basename(path).lower(), []).append(path)
        self._spelling = Suggester(files, budget=budget)
        self._answers: dict[str, str | None] = {}

    def suggest(self, path: str) -> str | None:
        if path not in self._answers:
            self._answers[path] = self._suggest(path)
        return self._answers[path]

    def _suggest(self, path: str) -> str | None:
        itself = posixpath.normpath(path)  # never the path itself (a dangling symlink is listed)
        lowered = path.lower()
        for candidate in self._by_lower.get(lowered, ()):
            if candidate != itself:
                return candidate
        same_name = [c for c in self._by_name.get(posixpath.basename(lowered), ()) if c != itself]
        if same_name:
            return self._spelling.most_similar(path, same_name)
        return self._spelling.closest(path, 0.75, exclude=itself)
