"""Repository facts behind evidence beyond a file's lines: where a symbol is defined, where pinned
lines moved, and what a missing path, folder or symbol probably meant.

``Repository`` is the reader of compiler/repo/files.py (safe, bounded, each file read at most
once) with these answers on top, each remembered for the run. Bounded too: a Python file too large
to parse whole gives its symbols from its top-level statements; the search for moved pinned lines
hashes at most MAX_PIN_SEARCH_BYTES a run; the did-you-mean walk of the tree sees at most
MAX_SUGGEST_ENTRIES files and folders, and every suggestion shares one budget.
"""

from __future__ import annotations

import os
import posixpath
from collections import deque
from typing import TYPE_CHECKING

from compiler.core.pins import MAX_SEARCH_BYTES as MAX_PIN_SEARCH_BYTES
from compiler.repo import sections
from compiler.repo import symbols as _symbols
from compiler.repo.discover import SKIPPED_FOLDERS  # the folders no walk of the tree enters
from compiler.repo.files import FileFacts, Files
from compiler.repo.symbols import (
    _UNSURE,
    TopLevel,
    heuristic_symbols,
    lookup_symbol,
    python_symbol_fast,
    python_symbols,
    python_symbols_by_statement,
    string_spans,
)

if TYPE_CHECKING:
    from compiler.core.suggest import Budget, PathSuggester, Suggester

MAX_SUGGEST_ENTRIES = 20_000
"""Files and folders the did-you-mean walk may see: 0.15 s with a warm cache, up to 0.5 s cold here
(6-25 us an entry; the 200,000 files allowed before took 3-18 s, from ``/``). A repository larger
than that is searched in its shallower part only."""


def is_text(name: str) -> bool:
    """Whether a file name from the disk is text (UTF-8), not raw bytes Python holds as surrogates."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # the surrogates Python gives the raw bytes of such a name
        return False
    return True


class Repository(Files):
    """The files under one root (compiler/repo/files.py), with what they define and what a
    missing name probably meant."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        super().__init__(root)
        self._all_files: list[str] | None = None
        self._paths: PathSuggester | None = None
        self._folders: Suggester | None = None
        self._symbol_suggesters: dict[str, Suggester] = {}
        self._budget: Budget | None = None
        self._pin_budget = MAX_PIN_SEARCH_BYTES  # bytes the search for moved pinned lines may still hash
        self._imports: dict[str, dict[str, tuple[int, str, str]]] = {}  # Python file -> its from-imports
        self._unique: dict[str, dict[tuple[int, int], str]] = {}  # file -> a definition's lines -> its name

    # --- symbols ------------------------------------------------------------------------------

    def find_pinned(self, path: str, length: int, pin: str) -> list[int] | None:
        """The first lines of the ranges of ``length`` lines of a file whose pin is ``pin`` (the
        first six), or None when the file is too large to search that way: over MAX_TEXT_BYTES,
        or past what is left of the run's MAX_PIN_SEARCH_BYTES. Each file and length is hashed
        once, however many entries ask."""
        from compiler.core import pins

        facts = self.facts(path)
        if facts.lines is None:
            return None
        if facts.pinned is None:
            facts.pinned = (pins.normal_lines(facts.lines), {})
        normal, indexes = facts.pinned
        found = indexes.get(length)
        if found is None:
            cost = pins.search_cost(normal, length)
            if cost > self._pin_budget:
                return None
            self._pin_budget -= cost
            found = indexes[length] = pins.index(normal, length)
        return found.get(pin, [])[:6]

    def symbol(self, path: str, name: str) -> tuple[int, int] | None:
        """Where ``name`` (dotted) is defined in a file: (first line, last line), or None (not
        found, or a Python file too large to parse whole: see ``too_large_to_parse``)."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary:
            return None
        if facts.resolved is None:
            facts.resolved = {}
        if name not in facts.resolved:  # checks and compile both ask: the answer is kept
            facts.resolved[name] = self._symbol(facts, path, name)
        return facts.resolved[name]

    def _symbol(self, facts: FileFacts, path: str, name: str) -> tuple[int, int] | None:
        python = path.endswith((".py", ".pyi"))
        if python and facts.lines is not None:
            if facts.spans is None or facts.definitions is None:
                text = self._whole_text(facts)
                facts.spans = string_spans(text)
                facts.definitions = TopLevel(text, facts.spans)
            found = python_symbol_fast(facts.lines, facts.spans, facts.definitions, name, _symbols.MAX_PARSE_BYTES)
            if found is not _UNSURE:
                return found  # type: ignore[return-value]
            if self.too_large_to_parse(path):
                return None
        table = self.symbols(path)
        if facts.names is not None:  # Markdown: a heading's text, or qualified by its parents'
            spans = facts.names.get(name)
            return spans[0] if spans is not None and len(spans) == 1 else None
        if path.endswith(sections.TOML_SUFFIXES):  # tool."evidence-plan" is tool.evidence-plan
            name = ".".join(sections.symbol_key(name))
        return lookup_symbol(table, name, facts.parsed)

    def ambiguous(self, path: str, name: str) -> list[tuple[int, int]]:
        """The sections that ``name`` answers to in a file where it is not unique (a Markdown
        heading written more than once, ``### Output`` under each release), in the file's order;
        empty when the name is unique or names nothing."""
        facts = self.facts(path)
        if facts.kind != "file" or facts.binary:
            return []
        self.symbols(path)
        spans = (facts.names or {}).get(name, [])
        return spans if len(spans) > 1 else []

    def unique_name(self, path: str, span: tuple[int, int]) -> str | None:
        """The name ``symbols`` lists the definition on exactly these lines under, if any."""
        key = posixpath.normpath(path.replace("\\", "/"))
        named = self._unique.get(key)
        if named is None:  # built once a file, however many entries ask
            named = self._unique[key] = {where: name for name, where in self.symbols(path).items()}
        return named.get(span)

    def too_large_to_parse(self, path: str) -> bool:
        """A Python or TOML file held in memory but over MAX_PARSE_BYTES: Python's symbols only
        from its top-level statements, never from a parse of the whole file; TOML's none."""
        facts = self.facts(path)
        return (facts.kind == "file" and facts.lines is not None
                and path.endswith((".py", ".pyi", *sections.TOML_SUFFIXES)) and facts.size > _symbols.MAX_PARSE_BYTES)

    def not_parsed(self, path: str) -> str | None:
        """Why a file whose symbols come from its syntax alone has none: not valid TOML."""
        self.symbols(path)
        return self.facts(path).not_parsed

    def symbols(self, path: str) -> dict[str, tuple[int, int]]:
        """Definitions in a file: dotted name -> (first line, last line). A Python file too large to
        parse whole gets the definition-looking lines that any other file gets."""
        facts = self.facts(path)
        if facts.symbols is None:
            text = self._whole_text(facts) if facts.lines is not None else ""
            lines = facts.lines or []
            found: dict[str, tuple[int, int]] | None = None
            if self.too_large_to_parse(path):
                found = {} if path.endswith(sections.TOML_SUFFIXES) else None
            elif path.endswith((".py", ".pyi")):
                found = python_symbols(text)
                if found is None and facts.lines is not None:  # does not parse: statement by statement
                    facts.spans = facts.spans if facts.spans is not None else string_spans(text)
                    facts.symbols = python_symbols_by_statement(lines, facts.spans)
                    return facts.symbols  # not parsed: a dotted name may still fall back to its last part
            elif path.endswith(sections.TOML_SUFFIXES):
                table = sections.toml_symbols(text)
                if isinstance(table, str):
                    facts.not_parsed, table = f"it is not valid TOML ({table})", {}
                found = table
            elif path.lower().endswith(sections.MARKDOWN_SUFFIXES):
                found, facts.names = sections.markdown_sections(lines)
            facts.parsed = found is not None
            facts.symbols = found if found is not None else heuristic_symbols(lines)
        return facts.symbols

    # --- the whole tree, for suggestions ------------------------------------------------------------

    def all_files(self) -> list[str]:
        """Relative POSIX paths of files under the root, in ``os.walk`` order (folders sorted, a
        folder's files before its subfolders), skipping VCS and vendored trees and never following
        symlinked folders. Bounded: the walk goes breadth first and stops before the folder that
        would take it past MAX_SUGGEST_ENTRIES files and folders seen, so a huge tree (or ``/``)
        gives its shallower part, the same on every run."""
        if self._all_files is None:
            found: list[tuple[tuple[str, ...], str]] = []
            queue: deque[tuple[str, ...]] = deque([()])
            seen = 0
            while queue:
                parts = queue.popleft()
                entries: list[os.DirEntry[str]] = []
                try:
                    with os.scandir(os.path.join(self.root, *parts)) as listing:
                        for entry in listing:
                            entries.append(entry)
                            if seen + len(entries) > MAX_SUGGEST_ENTRIES:
                                break
                except OSError:
                    continue  # as os.walk: a folder that cannot be listed is passed over
                seen += len(entries)
                if seen > MAX_SUGGEST_ENTRIES:
                    break
                for entry in sorted(entries, key=lambda e: e.name):
                    if not is_text(entry.name):
                        continue  # a name that is not UTF-8: no plan can cite it, and no output hold it
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        found.append((parts, entry.name))
                    elif entry.name not in SKIPPED_FOLDERS and not entry.is_symlink():
                        queue.append((*parts, entry.name))
            found.sort()  # breadth-first order to os.walk's: (folder parts, name)
            self._all_files = ["/".join((*parts, name)) for parts, name in found]
        return self._all_files

    def suggest(self, path: str) -> str | None:
        """A likely intended path for a missing one: case differences, the same name elsewhere,
        or a close spelling (see compiler/core/suggest.py; bounded, like every suggestion)."""
        if self._paths is None:
            from compiler.core.suggest import PathSuggester

            self._paths = PathSuggester(self.all_files(), budget=self._suggestion_budget())
        return self._paths.suggest(path)

    def suggest_folder(self, path: str) -> str | None:
        """The folder closest to a missing one (a test folder a proof names), among the folders
        that hold the files ``all_files`` lists, for a did-you-mean."""
        if self._folders is None:
            from compiler.core.suggest import Suggester

            folders: set[str] = set()
            for name in self.all_files():
                folder = posixpath.dirname(name)
                while folder and folder not in folders:  # each folder and its parents, once
                    folders.add(folder)
                    folder = posixpath.dirname(folder)
            self._folders = Suggester(folders, budget=self._suggestion_budget())
        return self._folders.closest(posixpath.normpath(path.replace("\\", "/")))

    def suggest_symbol(self, path: str, name: str) -> str | None:
        """The symbol of a file closest to ``name``, for a did-you-mean: the qualified names that
        end in it (``Report.done`` for ``done``, a method by its short name), else the closest
        spelling."""
        ending = "." + name
        qualified = [n for n in self.symbols(path) if n.endswith(ending)]
        if qualified:
            return " or ".join(qualified[:3]) + (f" ({len(qualified) - 3:,} more)" if len(qualified) > 3 else "")
        key = posixpath.normpath(path.replace("\\", "/"))
        suggester = self._symbol_suggesters.get(key)
        if suggester is None:
            from compiler.core.suggest import Suggester

            suggester = Suggester(self.symbols(path), budget=self._suggestion_budget())
            self._symbol_suggesters[key] = suggester
        return suggester.closest(name)

    def defined_elsewhere(self, path: str, name: str) -> str | None:
        """``other.py::Name`` for a name that a Python module only imports (``from .report import
        Report`` in ``__init__.py``): the file of the repository it is imported from, when that
        file defines it (a dotted name: its first part imported, the rest looked up there). A
        relative import is found from the module's folder; an absolute one from each folder above
        it (``src/`` for ``from pkg.report import ...`` in ``src/pkg/__init__.py``)."""
        facts = self.facts(path)
        if (not path.endswith((".py", ".pyi")) or facts.kind != "file" or facts.lines is None
                or self.too_large_to_parse(path)):
            return None
        head, _, rest = name.partition(".")
        key = posixpath.normpath(path.replace("\\", "/"))
        imports = self._imports.get(key)
        if imports is None:  # parsed once a file, however many entries ask
            imports = self._imports[key] = _symbols.imported_names(self._whole_text(facts))
        found = imports.get(head)
        if found is None:
            return None
        level, module, original = found
        folder = posixpath.dirname(posixpath.normpath(path))
        if level > 0:
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
            bases = [folder]
        else:
            bases = [folder]
            while folder:
                folder = posixpath.dirname(folder)
                bases.append(folder)
        wanted = original + ("." + rest if rest else "")
        tail = module.replace(".", "/")
        for base in bases:
            for candidate in (f"{tail}.py", f"{tail}/__init__.py"):
                other = posixpath.join(base, candidate) if base else candidate
                if other != posixpath.normpath(path) and self.symbol(other, wanted) is not None:
                    return f"{other}::{wanted}"
        return None

    def _suggestion_budget(self) -> Budget:
        """One budget for all suggestions about this repository (paths and symbols alike)."""
        if self._budget is None:
            from compiler.core.suggest import Budget

            self._budget = Budget()
        return self._budget
