"""The repository's settings for evidence-plan: ``[tool.evidence-plan]`` of its ``pyproject.toml``,
or an ``.evidence-plan.toml`` at its root (which wins when both exist: it is the file that exists
for this tool alone). Each setting is declared once, here (name, kind, default, meaning); the
docs/reference/settings.md's table of settings is generated from SETTINGS, and options on the command line override
what a file says.

The file is the repository's, so it is read like evidence (compiler/repo/files.py: inside the
root only, no FIFO, bounded), with the standard library's ``tomllib``. A ``pyproject.toml`` that
does not mention the tool is not parsed at all: most repositories have one, and ``check`` of a
plan should not pay for reading it. A bad value is an input error (EP009) located at its key.

``tomllib`` reads arrays and inline tables by recursion, so a file that nests them a few hundred
deep (``a = [[[[...]]]]``) would end in a RecursionError: values nested deeper than MAX_DEPTH
are refused before it reads the file, EP009 at the bracket that goes too deep.
"""

from __future__ import annotations

import re
from typing import Any, Literal, NamedTuple

from compiler.core.diagnostics import Diagnostic, Location, PlanInputError
from compiler.core.display import clip, quoted
from compiler.core.lazy import lazy
from compiler.model.fields import MAX_SPREAD

TIERS = ("simple", "medium", "complex")
SettingKind = Literal["bool", "tier", "thresholds", "spread"]
OWN_FILE = ".evidence-plan.toml"
PYPROJECT = "pyproject.toml"
TABLE = "tool.evidence-plan"


class Setting(NamedTuple):
    key: str  # dotted, below [tool.evidence-plan] (or at the top of .evidence-plan.toml)
    kind: SettingKind
    default: Any
    description: str


# What makes a plan complex, measured on the compiled plan (compiler/analysis/complexity.py): each pair is
# the value from which the measure makes a plan medium, and complex.
MEASURES = ("items", "waves", "widest_wave", "irreversible", "files")
SETTINGS: tuple[Setting, ...] = (
    Setting("strict", "bool", False,
            description="warnings block too, as `check --strict` (the option also turns it on)"),
    Setting("max_spread", "spread", MAX_SPREAD,
            description="an estimate or claim whose high is more than this many times its low"
            " is flagged (EP112); `--max-spread N` overrides it"),
    Setting("max_tier", "tier", "complex", description="the highest complexity tier a plan may have without a warning"
            " (EP311): `simple`, `medium` or `complex` (the default: never a warning)"),
    Setting("tiers.items", "thresholds", (10, 30), description="items from which a plan is medium, and complex"),
    Setting("tiers.waves", "thresholds", (4, 8), description="waves from which a plan is medium, and complex"),
    Setting("tiers.widest_wave", "thresholds", (4, 10),
            description="items in the widest wave from which a plan is medium, and complex"),
    Setting("tiers.irreversible", "thresholds", (1, 3),
            description="irreversible items from which a plan is medium, and complex"),
    Setting("tiers.files", "thresholds", (10, 30), description="distinct files cited as evidence or listed in `paths`"
            " from which a plan is medium, and complex"),
)
_BY_KEY = {s.key: s for s in SETTINGS}
MAX_BYTES = 1 << 20  # a settings file larger than this is refused (EP009): no real one comes near
MAX_DEPTH = 100  # arrays and inline tables nested in one value at most (a real file nests a few)


class Settings(NamedTuple):
    values: dict[str, Any]  # key -> value, every setting (the defaults filled in)
    source: str | None = None  # the file they were read from, relative to the root (None: defaults)

    def get(self, key: str) -> Any:
        return self.values[key]


DEFAULTS = Settings({s.key: s.default for s in SETTINGS})


def _fail(file: str, text: str, key: str | None, message: str, hint: str | None = None) -> PlanInputError:
    where = _position_of(text, key) if key is not None else None
    location = Location(file, *where) if where is not None else Location(file)
    return PlanInputError(Diagnostic("EP009", message, location=location, hint=hint))


def _position_of(text: str, key: str) -> tuple[int, int] | None:
    """(line, column) where ``key`` (dotted, below the tool's table) is written: as ``a.b = ``,
    or as ``b = `` in a ``[...a]`` table; None when it cannot be told (the message names it)."""
    leaf = key.rsplit(".", 1)[-1]
    # `key =`, or `key.x =`: a value that is a table, written with dotted keys
    key_line = re.compile(rf"^(\s*)(?:\"?{re.escape(key)}\"?|\"?{re.escape(leaf)}\"?)\s*[=.]")
    lines = text.split("\n")
    # In a pyproject.toml, from the tool's first table on: another tool may use the same key.
    first = next((n for n, line in enumerate(lines) if re.match(r"\s*\[\s*tool\.evidence-plan\b", line)), 0)
    for n in range(first, len(lines)):
        m = key_line.match(lines[n])
        if m:
            return n + 1, len(m.group(1)) + 1
    return None


def _check(value: Any, setting: Setting) -> str | None:
    """Why ``value`` is not a value of ``setting``, or None."""
    if setting.kind == "bool":
        return None if type(value) is bool else "must be true or false"
    if setting.kind == "spread":
        import math

        number = type(value) in (int, float) and math.isfinite(value)
        return None if number and value >= 1 else "must be a number of at least 1"
    if setting.kind == "tier":
        return None if value in TIERS else "must be " + ", ".join(f"{quoted(t)}" for t in TIERS)
    ok = (type(value) is list and len(value) == 2 and all(type(v) is int and v >= 1 for v in value)
          and value[0] <= value[1])
    return None if ok else "must be two whole numbers from 1, the first not above the second: [medium, complex]"


def _flatten(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    stack = [(prefix, table)]
    while stack:  # iterative: a settings file is shallow, but nothing here recurses on input
        base, current = stack.pop()
        for key, value in current.items():
            dotted = f"{base}{key}"
            if isinstance(value, dict) and f"{dotted}." in {s.key[:len(dotted) + 1] for s in SETTINGS}:
                stack.append((f"{dotted}.", value))
            else:
                out.append((dotted, value))
    return out


# What the depth check reads: strings (whose brackets are text), comments, brackets and braces.
# Each kind of string reads to its end, or to the end of the text (or line) when it has none:
# never a match that fails and is tried again further on, so one pass over the text.
_TOML_TOKEN = lazy("|".join((
    r'"""(?:\\[\s\S]|[^\\"]|"(?!""))*(?:"""(?:"{1,2}(?!"))?)?',  # a multi-line string (may end in "" more)
    r"'''(?:[^']|'(?!''))*(?:'''(?:'{1,2}(?!'))?)?",  # a multi-line literal string
    r'"(?:\\.|[^"\\\n])*"?',  # a string
    r"'[^'\n]*'?",  # a literal string
    r"#[^\n]*",  # a comment
    r"[\[{\]}]",
)))


def too_deep(text: str) -> tuple[int, int] | None:
    """Where (line, column, 1-based) a value of TOML text opens its array or inline table past
    MAX_DEPTH, or None. Read token by token (strings and comments skipped whole), never by
    recursion; a text with fewer brackets than that is not read at all."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth = 0
    for token in _TOML_TOKEN().finditer(text):
        c = token.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                at = token.start()
                line_start = text.rfind("\n", 0, at) + 1
                return text.count("\n", 0, at) + 1, at - line_start + 1
        elif c in "]}":
            depth = max(depth - 1, 0)
    return None


def _shown(value: Any) -> str:
    """A bad value, as its message shows it: a table or an array that holds others is named, not
    written out (tables nest as deep as dotted keys go, and repr recurses)."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        return f"an array of {len(value):,} values"
    return clip(repr(value), 60)


def parse(text: str, file: str, *, own: bool) -> Settings:
    """The settings a file gives (``own``: an .evidence-plan.toml; else a pyproject.toml, whose
    [tool.evidence-plan] table is read), checked. Raises PlanInputError (EP009)."""
    import tomllib

    if (deep := too_deep(text)) is not None:
        raise PlanInputError(Diagnostic(
            "EP009", f"{file} nests arrays or inline tables more than {MAX_DEPTH} deep: it is not read",
            location=Location(file, *deep), hint="no setting needs more than one level: write the value flat"))
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        location = Location(file, int(where.group(1)), int(where.group(2))) if where else Location(file)
        raise PlanInputError(Diagnostic("EP009", f"{file} is not valid TOML: {message}", location=location)) from None
    table: Any = document
    if not own:
        table = document.get("tool", {}).get("evidence-plan")
        if table is None:
            return DEFAULTS
        if not isinstance(table, dict):
            raise _fail(file, text, None, f"{file}: [{TABLE}] must be a table")
    values = dict(DEFAULTS.values)
    for key, value in _flatten(table):
        setting = _BY_KEY.get(key)
        if setting is None:
            from compiler.core.diagnostics import closest

            guess = closest(key, list(_BY_KEY))
            hint = f"did you mean {guess}?" if guess else "the settings are listed in docs/reference/settings.md"
            raise _fail(file, text, key, f"{file}: unknown setting {quoted(key)} in [{TABLE}]"
                        if not own else f"{file}: unknown setting {quoted(key)}", hint)
        problem = _check(value, setting)
        if problem is not None:
            raise _fail(file, text, key, f"{file}: {key} {problem}, not {_shown(value)}")
        values[key] = tuple(value) if setting.kind == "thresholds" else value
    return Settings(values, file)


def load(root: str) -> Settings:
    """The settings of the repository at ``root``: its .evidence-plan.toml, else the tool's
    table in its pyproject.toml, else the defaults. Read through the repository's safe reader."""
    import os

    from compiler.repo.repository import Repository

    with Repository(root) as repo:
        for name, own in ((OWN_FILE, True), (PYPROJECT, False)):
            facts = repo.facts(name)
            if facts.kind == "missing":
                continue
            shown = os.path.relpath(os.path.join(root, name))  # as the user may open it
            if facts.kind != "file" or facts.binary or facts.size > MAX_BYTES:
                problem = facts.problem or ("it is binary" if facts.binary else
                                            f"it is over {MAX_BYTES >> 20} MiB" if facts.size > MAX_BYTES
                                            else f"it is a {facts.kind}")
                if own:
                    raise PlanInputError(Diagnostic("EP009", f"{shown} cannot be read: {problem}",
                                                    location=Location(shown)))
                continue  # a pyproject.toml that cannot be read is not ours to judge
            text = repo.text(name) or ""
            if not own and "evidence-plan" not in text:
                continue
            return parse(text, shown, own=own)
    return DEFAULTS


def markdown_table() -> str:
    """The table of settings (docs/reference/settings.md), generated so that it cannot go stale."""
    lines = ["| setting | default | meaning |", "|---|---|---|"]
    for s in SETTINGS:
        default = ("`true`" if s.default else "`false`") if s.kind == "bool" else f"`{s.default}`" if (
            s.kind == "spread") else (
            f"`{list(s.default)}`" if s.kind == "thresholds" else f"`{s.default!r}`".replace("'", '"'))
        lines.append(f"| `{s.key}` | {default} | {s.description} |")
    return "\n".join(lines) + "\n"
