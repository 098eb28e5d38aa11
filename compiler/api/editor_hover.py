"""What an editor shows on hover over a place of a plan: for an evidence entry, the cited lines as
the repository holds them and what resolved them; for an item's id (or a depends_on entry naming
one), the item; and for each diagnostic whose range holds the place, its code explained. Markdown,
in which every text of the plan or the repository is escaped (compiler/core/markdown.py) or
fenced, so that none can break out of its place. No protocol here (compiler/serve/lsp.py).

Bounded: at most ``MAX_LINES`` cited lines, each cut at ``MAX_LINE_CHARACTERS``, read from the
repository as evidence checking reads it (compiler/repo/files.py: inside the root only, a symlink
leading out of it refused, never followed).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, NamedTuple

from compiler.api.editor import Analysis, Node, Range, diagnostic_range, item_index, node_at
from compiler.api.editor_places import evidence_at, id_index, item_at, role, value_range
from compiler.core.display import UNSAFE, escape
from compiler.core.markdown import code, md

if TYPE_CHECKING:
    from compiler.core.diagnostics import Diagnostic
    from compiler.model.values import Evidence, Item
    from compiler.repo.files import FileFacts
    from compiler.repo.repository import Repository

MAX_LINES = 40  # cited lines shown
MAX_LINE_CHARACTERS = 200  # of each line
MAX_NAMES = 20  # dependencies or dependents listed

# A file's suffix (or its whole name) -> the language its fenced code block names, for highlighting;
# a file of any other name gets a block without one.
LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".md": "markdown", ".markdown": "markdown", ".yaml": "yaml",
    ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".js": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx", ".ts": "typescript", ".tsx": "tsx", ".rs": "rust",
    ".go": "go", ".sh": "sh", ".bash": "bash", ".zsh": "zsh", ".rb": "ruby", ".java": "java", ".kt": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".swift": "swift",
    ".php": "php", ".sql": "sql", ".html": "html", ".css": "css", ".xml": "xml", ".lua": "lua",
    "Dockerfile": "dockerfile", "Makefile": "makefile",
}

# Why a cited path's lines are not shown, by what compiler/repo/files.py found there (a file is shown).
NOT_SHOWN: dict[str, str] = {
    "missing": "{path} does not exist under the repository root.",
    "unsafe": "{path} was not read: it {problem}.",
    "special": "{path} was not read: it {problem}.",
    "unreadable": "{path} cannot be read: {problem}.",
    "folder": "{path} is a folder: there are no lines to show.",
}


class Hover(NamedTuple):
    markdown: str
    range: Range


def hover(analysis: Analysis, line: int, column: int) -> Hover | None:
    """What to show for the place: its evidence entry or item (when it is one), then each
    diagnostic whose range holds it; None when there is nothing to say."""
    parts: list[str] = []
    place = None
    if analysis.readable:
        node = node_at(analysis, line, column)
        if node is not None:
            entry = evidence_at(analysis, node)
            said = evidence_text(analysis, *entry) if entry is not None else _named_text(analysis, node)
            if said is not None:
                parts.append(said)
                place = value_range(analysis, node)
    shown = [d for d in analysis.diagnostics if diagnostic_range(analysis, d).contains(line, column)]
    parts.extend(diagnostic_text(d) for d in shown)
    if not parts:
        return None
    return Hover("\n\n---\n\n".join(parts), place if place is not None else diagnostic_range(analysis, shown[0]))


# --- an evidence entry -----------------------------------------------------------------------------


def evidence_text(analysis: Analysis, item: Item, j: int) -> str:
    """The j-th evidence entry of ``item``: what it cites and what resolved it, with the lines."""
    from compiler.repo.repository import Repository

    ev = item.evidence[j]
    if ev.url is not None:
        return _link(ev.url)
    result = analysis.result
    assert result is not None and ev.path is not None
    head = f"**Evidence** {code(ev.ref())}"
    if not result.evidence_verified:
        return f"{head}\n\nNot read: the plan's root was refused (EP208), so none of its evidence is."
    repo = Repository(result.root)
    try:
        return f"{head}\n\n{_cited(repo, ev, result.resolved.get((item.position, j)))}"
    finally:
        repo.close()


def _link(url: str) -> str:
    """A URL as a link, when it is a web address Markdown can hold as one; else as code."""
    if re.fullmatch(r"https?://[^\s<>`]+", url) and UNSAFE.search(url) is None:
        return f"<{url}>"
    return code(url)


def _cited(repo: Repository, ev: Evidence, resolved: tuple[int, int, str] | None) -> str:
    from compiler.checks.evidence import covered_lines
    from compiler.core.pins import pin_of

    assert ev.path is not None
    path = code(ev.path)
    facts = repo.facts(ev.path)
    if facts.kind != "file":
        return NOT_SHOWN[facts.kind].format(path=path, problem=md(facts.problem or "cannot be read"))
    if resolved is not None:
        start, end, digest = resolved
    else:
        span = covered_lines(ev, repo)
        if span is None:
            return _unresolved(repo, ev, facts, path)
        start, end = span
        digest = pin_of(repo.text(ev.path, start, end) or "")
    lines = f"line {start}" if start == end else f"lines {start}-{end}"
    if ev.symbol is not None:
        said = [f"Resolved: {code(ev.symbol)} is {lines} of {path}.", _pin_state(ev.pin, digest)]
    elif ev.start is not None:
        said = [f"Resolved: {lines} of {path}.", _pin_state(ev.pin, digest)]
    else:
        said = [f"Resolved: the whole of {path} ({end - start + 1:,} line{'' if start == end else 's'})."]
    first = start
    if ev.symbol is None and ev.start is None and ev.contains:
        found = repo.find(ev.path, ev.contains, limit=1)
        if found:
            first = found[0]
            said.append(f"Shown from line {first}, where its `contains` text is.")
    said.append(_excerpt(repo, ev.path, first, end))
    return "\n\n".join(said)


def _pin_state(pin: str | None, digest: str) -> str:
    if pin is None:
        return f"Not pinned: the lines hash {code(digest)} (`evidence-plan fix --pin` pins them)."
    if pin == digest:
        return f"Pinned {code(pin)}: the lines are as they were pinned."
    return f"Pinned {code(pin)}, but the lines hash {code(digest)} now: the pin is stale."


def _unresolved(repo: Repository, ev: Evidence, facts: FileFacts, path: str) -> str:
    """Why a file's cited lines could not be resolved."""
    from compiler.repo.files import MAX_TEXT_BYTES

    assert ev.path is not None
    if facts.binary:
        return f"{path} is a binary file ({facts.size:,} bytes): it is not shown."
    if facts.line_count == 0:
        return f"{path} is empty."
    if ev.symbol is not None:
        if facts.mapped is not None or repo.too_large_to_parse(ev.path):
            return f"{path} is too large to search for {code(ev.symbol)}."
        sections = repo.ambiguous(ev.path, ev.symbol)
        if sections:
            return f"{path} has {len(sections):,} sections named {code(ev.symbol)}: it names none of them for sure."
        return f"{path} defines no {code(ev.symbol)}."
    if ev.end is not None and ev.end > facts.line_count:
        count = f"{facts.line_count:,} line{'' if facts.line_count == 1 else 's'}"
        return f"{path} has {count}: the cited lines {ev.start}-{ev.end} are not all in it."
    return f"{path} is too large to show whole (over {MAX_TEXT_BYTES >> 20} MiB): cite its lines."


def _excerpt(repo: Repository, path: str, start: int, end: int) -> str:
    """Lines start..end of a file in a fenced code block, at most MAX_LINES of them, each cut at
    MAX_LINE_CHARACTERS; the fence is longer than any run of backticks inside, so no line closes it."""
    last = min(end, start + MAX_LINES - 1)
    lines = (repo.text(path, start, last) or "").split("\n")
    cut = sum(len(line) > MAX_LINE_CHARACTERS for line in lines)
    out = [_fenced(lines, language(path))]
    if last < end:
        more = end - last
        out.append(f"{more:,} more line{'' if more == 1 else 's'} not shown (to line {end:,}).")
    if cut:
        out.append(f"{cut:,} line{' was' if cut == 1 else 's were'} cut at {MAX_LINE_CHARACTERS} characters.")
    return "\n\n".join(out)


def _shown_line(line: str) -> str:
    """A line of a cited file as the code block shows it: cut, its control characters but tabs
    (indentation) shown as escapes, so that none can redraw or reorder what the reader sees."""
    if len(line) > MAX_LINE_CHARACTERS:
        line = line[:MAX_LINE_CHARACTERS] + "…"
    if UNSAFE.search(line) is None:
        return line
    return "\t".join(escape(part) for part in line.split("\t"))


def _fenced(lines: list[str], language: str) -> str:
    """Lines in a fenced code block (``_shown_line``), whose fence is longer than any run of
    backticks inside, so that no line closes it."""
    body = "\n".join(_shown_line(line) for line in lines)
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def language(path: str) -> str:
    """The language of a file's code block, from its name (``LANGUAGES``); empty when none is known."""
    name = path.replace("\\", "/").rpartition("/")[2]
    if name in LANGUAGES:
        return LANGUAGES[name]
    stem, dot, suffix = name.rpartition(".")
    return LANGUAGES.get("." + suffix.lower(), "") if dot and stem else ""


# --- an item --------------------------------------------------------------------------------------------


def _named_text(analysis: Analysis, node: Node) -> str | None:
    """The item an id's value belongs to, or that a depends_on entry names; None for another node."""
    found = role(analysis, node)
    if found is None or analysis.result is None:
        return None
    plan = analysis.result.plan
    index = item_index(analysis, node.path) if found == "id" else id_index(plan, node.value)
    item = item_at(plan, index) if index is not None else None
    if item is None:
        return f"{code(node.value)}: no item of this plan has this id."
    return item_text(analysis, item)


def item_text(analysis: Analysis, item: Item) -> str:
    """An item: its change, proof, wave, what it depends on and what depends on it."""
    assert analysis.result is not None
    said = [f"**Item** {code(item.id)}"]
    if item.change:
        said.append(f"Change: {md(item.change)}")
    if "\n" in item.proof.strip("\n"):
        said.append("Proof:\n\n" + _fenced(item.proof.strip("\n").split("\n"), "sh"))
    elif item.proof:
        said.append(f"Proof: {code(item.proof.strip(chr(10)))}")
    said.append(_wave(analysis, item))
    said.append(f"Depends on: {_names(item.depends_on)}." if item.depends_on else "Depends on no item.")
    dependents = [other.id for other in analysis.result.plan.items if item.id in other.depends_on]
    said.append(f"Needed by: {_names(dependents)}." if dependents else "No item depends on it.")
    return "\n\n".join(said)


def _wave(analysis: Analysis, item: Item) -> str:
    result = analysis.result
    assert result is not None
    if not result.waves:
        return "No wave: the plan is blocked, so it is not ordered."
    for n, wave in enumerate(result.waves, 1):
        if item.id in wave:
            return f"Wave {n} of {len(result.waves)}."
    return "In no wave: a dropped item is not ordered."


def _names(idents: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(code(ident) for ident in idents[:MAX_NAMES])
    return shown + (f" and {len(idents) - MAX_NAMES:,} more" if len(idents) > MAX_NAMES else "")


# --- a diagnostic ----------------------------------------------------------------------------------------


def diagnostic_text(diagnostic: Diagnostic) -> str:
    """A diagnostic and its code explained: the message (and hint), what the code means, why it
    matters, how to fix it, and where its page is."""
    from compiler.core.advice import ADVICE
    from compiler.core.codes import CODES

    entry, advice = CODES[diagnostic.code], ADVICE[diagnostic.code]
    said = [f"**{diagnostic.code} {entry.name}** ({diagnostic.severity}): {md(diagnostic.message)}"]
    if diagnostic.hint:
        said.append(f"Hint: {md(diagnostic.hint)}")
    said += [entry.summary, f"*Why it matters:* {advice.why}", f"*How to fix it:* {advice.fix}"]
    url = _docs_url(diagnostic.code)
    said.append(f"[{diagnostic.code} in the documentation]({url})" if url is not None
                else f"More: `evidence-plan explain {diagnostic.code}`")
    return "\n\n".join(said)


@functools.cache
def _docs_url(which: str) -> str | None:
    """The code's page on the documentation site (read from the package's metadata once)."""
    from compiler.api.explain import docs_url

    return docs_url(which)
