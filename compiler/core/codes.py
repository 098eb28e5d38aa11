"""The registry of diagnostic codes: one line each, the single source of the codes table and pages.

Ranges: EP00x the file cannot be read as a plan (exit 2); EP01x an item does not fit the format;
EP1xx an item breaks a commitment (evidence, proof, change, unique id); EP2xx evidence does not
hold in the repository; EP3xx the dependency graph; EP4xx the plan's budgets and revisions (the
plan-execute loop's failure modes: no plan, a plan too long, replanning without end).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Severity = Literal["error", "warning"]
# The stages that report problems themselves, outside the rules: reading the file (load), the
# repository's settings, validating items and plan fields, finding the repository root, and
# measuring the ordered plan's complexity (compiler/api/explain.py names the function of each).
Stage = Literal["load", "settings", "validate", "root", "complexity"]


class Code(NamedTuple):
    code: str
    name: str
    severity: Severity
    summary: str
    input_error: bool = False  # the file is not a usable plan: exit 2, nothing written
    # The stage that reports it, for a code no rule owns (compiler/checks/registry.py: every other
    # code is one rule's): each code has exactly one owner (tests/checks/test_registry.py).
    stage: Stage | None = None
    # The word the plan-execute loop reports for this failure (``no_plan``, ``step_budget``,
    # ``replan_budget``): agents key on it, so a blocked evidence-plan.json carries it as
    # ``reason`` and the message ends with it (compiler/checks/budget.py).
    reason: str | None = None
    # What `fix` does for it, and how far that may be trusted (safe, unsafe: a guess), when the
    # repair is mechanical: its rule then gives the diagnostic a Fix (compiler/core/diagnostics.py),
    # whose edits are the ones `check --format json` and SARIF show and `fix` applies
    # (tests/api/test_fixes.py holds the two equal for every code that declares one).
    fix: str | None = None


_ALL = [
    Code("EP001", "unreadable-file", "error", "the plan file cannot be read: missing, a folder, not permitted, or not UTF-8; or a plan of git history (`REV:path`, `diff --base`, `graph --rev`) cannot be read from the local repository (no git, not in a git repository, unknown revision or path, not a file, an object the clone has not fetched: nothing is fetched), or a name is both a file and a `REV:path` git has (ambiguous: `./NAME` is the file)", True, stage="load"),
    Code("EP002", "syntax-error", "error", "the file is not valid YAML or JSON", True, stage="load"),
    Code("EP003", "duplicate-key", "error", "a mapping gives the same key twice (the first one is named)", True, stage="load"),
    Code("EP004", "not-a-plan", "error", "the document is not a plan: expected a mapping with `items`, a list of items, or a compiled evidence-plan.json", True, stage="load"),
    Code("EP005", "refused-input", "error", "input refused for safety: non-core YAML tags (`!!python/...`), merge keys, non-text keys, aliases that expand too far, nesting too deep, a plan file that is a symlink out of the repository that holds it, a YAML plan over 256 KiB that needs the strict reader", True, stage="load"),
    Code("EP006", "bad-root", "error", "the repository root (`--root` or `root:`) is not a folder, or holds a NUL character", True, stage="root"),
    Code("EP007", "too-large", "error", "the file, or the blob of git history, is larger than `--max-bytes` (default 256 MiB); checked before it is read", True, stage="load"),
    Code("EP008", "too-many-items", "error", "the plan has more items than `--max-items` (default 1,000,000)", True, stage="load"),
    Code("EP009", "bad-config", "error", "the repository's settings (`.evidence-plan.toml`, or `[tool.evidence-plan]` in `pyproject.toml`) are not valid TOML, name an unknown setting (with a did-you-mean), give a bad value, or nest arrays or inline tables more than 100 deep; located at its key (at the bracket too deep)", True, stage="settings"),
    Code("EP010", "unknown-field", "error", "a field the plan format does not define, with a did-you-mean for spellings (`depend_on` -> `depends_on`) and for the synonyms writers use (`file` -> `path`, `summary` -> `change`)", stage="validate",
         fix="the key renamed to the field the did-you-mean names, its value kept (`files:` becomes `paths:`); unsafe: a guess. None when the mapping gives that field already"),
    Code("EP011", "wrong-type", "error", "a field or item has the wrong type, e.g. a number where text is expected", stage="validate",
         fix="the value the message spells out: text where a list is meant becomes a list of it (`[baseline]`: safe; text with commas, the list it spells: unsafe), a range written as a list becomes text (`lines: 970-1041`: safe), a number or boolean where text is meant goes in quotes, as written (safe), `\"true\"` or `\"false\"` loses its quotes (safe; `yes`, `no`, `on`, `off`: unsafe), a wrong word of a choice becomes the one meant (`finished`: `done`, `day`: `days`; unsafe, but safe when it differs only in case)"),
    Code("EP012", "missing-id", "error", "an item has no `id`", stage="validate"),
    Code("EP013", "conflicting-fields", "error", "an item gives both `depends_on` and its alias `dependencies`", stage="validate"),
    Code("EP014", "bad-evidence", "error", "an evidence reference cannot be parsed: empty path, line 0, reversed range, both `line` and `lines`", stage="validate",
         fix="another tool's line notation rewritten as the reference it means (`src/x.py#L73-L239` becomes `src/x.py:73-239`); safe: the same lines"),
    Code("EP015", "invalid-id", "error", "an id breaks the id grammar: letters and digits of any script and `- _ . / :`, starting with a letter or digit, at most 128 characters"),
    Code("EP016", "confusable-id", "error", "an id mixes Latin, Cyrillic and Greek letters, or looks like another id of the plan (`cоntract` with a Cyrillic `о`)"),
    Code("EP017", "missing-field", "error", "a field that must be given is missing (within an object that has it: an item's `id` is EP012)", stage="validate"),
    Code("EP018", "bad-path", "error", "an entry of `paths` is not a path relative to the root: absolute, a `..` or `.` segment, an empty segment (`a//b`), a backslash, `**` inside a name, a character class (`[abc]`, not supported), a name over 255 characters or a path over 4,096", stage="validate",
         fix="the path normalised as the message says: a backslash written `/`, `.`, `..` and empty segments taken out (`./src\\a.py` becomes `src/a.py`); safe: the same path. None for a path that leaves the root"),
    Code("EP019", "missing-reason", "error", "an item is `status: dropped` without a `reason` (what replaced it, or why it is no longer needed); located at its status"),
    Code("EP101", "no-evidence", "error", "`X has no repository evidence`: the item cites no evidence"),
    Code("EP102", "no-proof", "error", "`X has no proof command`: the proof is missing or blank"),
    Code("EP103", "no-change", "error", "`X has no change`: the change is missing or blank"),
    Code("EP104", "duplicate-id", "error", "two items share an id; the message says where the first one is"),
    Code("EP105", "duplicate-evidence", "warning", "an item cites the same evidence twice",
         fix="the repeat removed (the first is kept); safe"),
    Code("EP106", "external-only", "warning", "`X has no repository evidence: only external links`: every evidence entry is a URL"),
    Code("EP107", "compound-proof", "warning", "the proof is visibly several commands (`a && b`, `a; b`, a list): split the item, one proof each"),
    Code("EP108", "similar-ids", "warning", "two ids differ only in case or in `-` against `_` (`duration-class`, `Duration_Class`): one item meant twice, or a dependency that names the wrong one"),
    Code("EP109", "backslash-path", "warning", "an evidence path written with `\\` (`src\\app.py`): found, but written back as is, and a broken link in the Markdown: write `/`",
         fix="the path written with `/`; safe: the file that was found"),
    Code("EP110", "prose-proof", "warning", "the proof reads as a sentence, not a command (`run the tests and make sure they pass`, `Does the page load?`): give the one exact check that closes the item; judged from the shell's grammar, never run"),
    Code("EP111", "stale-approval", "error", "a recorded approval (`approved_by`, `approved_at`, `approval_digest`) that does not hold: its digest no longer matches what it covers (the items it names changed since), the record is incomplete, `approved_at` is no ISO 8601 date-time, or the item is not `kind: approval`; `evidence-plan approve` records it again"),
    Code("EP112", "ungrounded-estimate", "warning", "an estimate or a claim is not grounded: `low` <= 0, `high` < `low`, `high / low` over 100 (the `max_spread` setting, `--max-spread N`), or no `evidence`; names the rule and the ratio, at the part it is about"),
    Code("EP201", "missing-file", "error", "cited file does not exist, with a did-you-mean (same name elsewhere, case differences, close spelling); an estimate's or a claim's evidence too, when it is a repository reference (`app/x.py`, `README.md:3`) rather than words",
         fix="the path the did-you-mean names, in the entry's own form; unsafe: a guess"),
    Code("EP202", "line-out-of-range", "error", "cited line or range goes past the end of the file"),
    Code("EP203", "contains-not-found", "error", "`contains` text is not in the cited lines; says where it is when found elsewhere",
         fix="the entry's line moved to the text's line (one line: safe); a range carried through the cited file's change since the plan's commit, when the plan is in git and unchanged since (safe: the same lines, moved whole), else shifted as little as covers the text (unsafe: a guess)"),
    Code("EP204", "outside-root", "error", "absolute path, `..` escape or symlink leading outside the repository root; the file is never opened"),
    Code("EP205", "folder-with-lines", "error", "a folder cited with lines, a symbol or contains (a folder alone is valid evidence)"),
    Code("EP206", "unknown-symbol", "error", "`path::symbol` names no definition in the file, with a did-you-mean among its symbols",
         fix="the symbol the did-you-mean names (or `other.py::Name`, where the file imports it from); unsafe: a guess"),
    Code("EP207", "unreadable-evidence", "error", "cited file cannot be read as text: binary cited by line, not a regular file, not permitted, too large to search for a symbol, or a TOML file cited by symbol that is not valid TOML"),
    Code("EP208", "plan-root-outside", "error", "a plan's `root:` leads outside the git work tree that holds the plan (or its folder when there is none); its evidence is not checked. `--root` on the command line is trusted", stage="root"),
    Code("EP209", "missing-proof-script", "error", "a proof runs a script of the repository (`./tools/check.sh`, `python3 scripts/check_links.py`) that does not exist and that neither its item nor an item it depends on lists in `paths:` (what the plan will write); a did-you-mean for a plausible typo; read from the proof's words, never run",
         fix="the script the did-you-mean names, in place of the one the proof runs; unsafe: a guess"),
    Code("EP210", "missing-test-target", "error", "a proof runs tests that are not in the repository: a test file, folder or test of `pytest path::Class::test`, `python -m unittest pkg.mod.Case.test`, `unittest discover -s DIR`, found as symbol evidence is found (a class's tests with those of its base classes in the repository; a parameter id among those of a literal `parametrize`), with a did-you-mean; a file or folder that its item or an item it depends on lists in `paths:` is planned, not missing; `-k` and `-m` are left alone; read from the proof's words, never run",
         fix="the test, file or parameter id the did-you-mean names, in place of the one the proof runs; unsafe: a guess"),
    Code("EP211", "pin-drift", "error", "a pinned entry's lines no longer hash to its `pin`: the code under the evidence changed; says where the pinned lines are when they moved",
         fix="the entry moved to where its pinned lines are now, found whole at one place (or at several, the one as far away as the file's other pinned entries moved); safe"),
    Code("EP212", "ambiguous-symbol", "error", "`path::symbol` names more than one definition (a Markdown heading written twice, `### Output` under each release): says how to name each one uniquely (qualified by its parent headings, `26.10.0.Output`) or to cite its lines"),
    Code("EP301", "unknown-dependency", "error", "`X depends on unknown items: a, b`, with a did-you-mean where an id is close",
         fix="each unknown id replaced by the one the did-you-mean names; unsafe: a guess"),
    Code("EP302", "self-dependency", "error", "an item depends on itself"),
    Code("EP303", "dependency-cycle", "error", "`dependency cycle among: a, b (a -> b -> a)`, reported once per cycle, with a note at each `depends_on` entry on the loop"),
    Code("EP304", "duplicate-dependency", "warning", "an item lists the same dependency twice",
         fix="the repeat removed (the first is kept); safe"),
    Code("EP305", "path-conflict", "error", "two items of one wave (they may run in parallel) have `paths` that can overlap: `a and b may run in parallel (wave 2) and both may write app/models/user.py`, with a note at the other item's path; add a dependency or split ownership"),
    Code("EP306", "redundant-dependency", "warning", "a dependency already implied through another (`a` depends on `b` and `c`, and `b` on `c`): `a depends on c, which it already depends on through b (a -> b -> c)`, at that entry, with a note at the other",
         fix="the dependency removed: the order stays the same; safe"),
    Code("EP307", "depends-on-dropped", "error", "`X depends on Y, which is dropped`: a live item (todo, doing or done) depends on a dropped one, which has left the graph; at that `depends_on` entry, with a note at Y's status. Drop X too, or depend on what replaced Y"),
    Code("EP308", "done-before-dependency", "warning", "`X is done, but depends on Y, which is todo` (or doing): X's status, or the dependency, is wrong"),
    Code("EP309", "path-check-incomplete", "warning", "`paths` were not all compared, so a conflict may be missed: the plan's 200,000 comparisons or 2,000,000 steps of their search ran out (paths that start with a wildcard are compared with every other path of their wave), or one pair's 50,000 steps did (at the later item's path, with a note at the other's); start paths with their literal folder, use fewer wildcards"),
    Code("EP310", "unapproved-irreversible", "error", "`X is irreversible but no approval precedes it`: an `irreversible: true` item has no `kind: approval` item among its transitive dependencies (an approval on another branch does not count); judged in the same run as a cycle (EP303), on any path to the item"),
    Code("EP311", "too-complex", "warning", "the plan's complexity tier (items, waves, widest wave, irreversible items, distinct files) is above the `max_tier` the repository's settings allow: split it", stage="complexity"),
    Code("EP312", "phase-order", "error", "`X (phase 1 of 3) depends on Y, of the later phase cleanup`: an item needs an item of a later phase, so its phase could not finish first; phases are ordered by where each first appears in the plan; at that `depends_on` entry, with a note at Y's phase"),
    Code("EP401", "no-plan", "error", "the plan has no items: nothing to do and nothing to prove, so it is never ready; write the items, or, for an agent whose plan came out empty, a recovery plan (what to try next, each with its proof); located at `items`", reason="no_plan"),
    Code("EP402", "step-budget", "error", "the plan has more items than its `budget: {max_items: N}`: shorten the plan (merge or drop items, or split it into plans that each fit), or raise the budget deliberately; located at `max_items`", reason="step_budget"),
    Code("EP403", "replan-budget", "error", "a compile would make revision N, past the plan's `budget: {max_revisions: M}` (revisions are counted in the evidence-plan.json at the output path): stop replanning, feed the last error back and route around it in this revision, or have a person raise the budget; `compile` only, located at `max_revisions`", reason="replan_budget"),
    Code("EP404", "replan-repeat", "warning", "`replan repeats revision K`: the items are the same, by digest, as an earlier revision's that was blocked (an agent resubmitting a broken plan loops): read that revision's issues and change what they name; `compile` only"),
]

CODES: dict[str, Code] = {c.code: c for c in _ALL}
FIXABLE: tuple[str, ...] = tuple(c.code for c in _ALL if c.fix)  # the codes whose diagnostics may carry a fix
# The failure reasons in the order the loop meets them (an empty plan, too many steps, too many
# replans): a plan blocked for several reports the first.
REASONS: tuple[Code, ...] = tuple(c for c in _ALL if c.reason)


def fixes_table() -> str:
    """The table of what `fix` does for each code it repairs (docs/reference/fix.md)."""
    lines = ["| code | name | what `fix` does |", "|---|---|---|"]
    lines += [f"| [`{c.code}`](../codes/{c.code}.md) | {c.name} | {c.fix} |" for c in _ALL if c.fix]
    return "\n".join(lines) + "\n"


def markdown_table() -> str:
    """The table of codes (docs/reference/codes.md), generated so that it cannot go stale."""
    lines = ["| code | name | severity | meaning |", "|---|---|---|---|"]
    for c in _ALL:
        severity = "error (exit 2)" if c.input_error else c.severity
        reason = f"; reported as `reason: {c.reason}`" if c.reason else ""
        fix = f". **`fix`:** {c.fix}" if c.fix else ""
        lines.append(f"| `{c.code}` | {c.name} | {severity} | {c.summary}{reason}{fix} |")
    return "\n".join(lines) + "\n"
