"""Why each diagnostic code matters and how to repair what it reports: the two parts of a code's
page (``evidence-plan explain CODE``, docs/codes/CODE.md) that its one-line meaning in
compiler/core/codes.py does not say. One entry per code of ``CODES``, keyed by the code
(tests/core/test_advice.py: no code without both parts, no entry without a code).

Written for the person or the agent who meets the code: ``why`` says what would go wrong if the
plan went on as it is; ``fix`` says what to change, naming the command that does it where one
does (`fix`, `approve`, `symbols`, `where`).
"""

from __future__ import annotations

from typing import NamedTuple


class Advice(NamedTuple):
    why: str  # what goes wrong if the plan stays as it is
    fix: str  # what to change


ADVICE: dict[str, Advice] = {
    # --- EP00x: the file is not a usable plan (exit 2, nothing written) ---------------------------
    "EP001": Advice(
        "Nothing can be checked in a file that cannot be read: the command stops before any rule runs, and a CI step"
        " or a hook that names the wrong file would otherwise pass by checking nothing.",
        "Give the path of an existing plan file (or `-` for standard input), save it as UTF-8, and for a plan of git"
        " history give a revision and path that the local clone has (`git show REV:path` must print it)."),
    "EP002": Advice(
        "A file that does not parse has no items to check: every later problem is hidden behind this one.",
        "Correct the YAML or JSON at the line and column shown (the excerpt points at it): a missing quote, a tab"
        " used for indentation, a stray `:`, a trailing comma, `NaN` in JSON."),
    "EP003": Advice(
        "YAML and JSON readers disagree about a repeated key (most keep the last one, silently), so the plan would"
        " mean different things to different tools, and half of what was written is lost.",
        "Keep one of the two keys: merge their values, or rename one if they were meant as different fields."),
    "EP004": Advice(
        "A document of another shape (a configuration file, an empty file, a list of words) is not a plan: reading"
        " it as one would report nonsense or nothing.",
        "Give a mapping with `items:` (a list of items), a top-level list of items, or a compiled"
        " `evidence-plan.json`."),
    "EP005": Advice(
        "Plans come from anyone who opens a pull request or runs an agent: tags that construct objects, aliases"
        " that expand a few bytes into gigabytes and deep nesting are how a file attacks its reader.",
        "Write plain YAML: no `!!python/...` or other tags, no merge keys (`<<`), no aliases (write the repeated"
        " parts out), text keys only, a few levels of nesting; give a very large plan as JSON."),
    "EP006": Advice(
        "Evidence is checked against the repository root: with no usable root, no citation can be judged.",
        "Give `--root` an existing folder, or fix the plan's `root:` key (relative to the plan's folder)."),
    "EP007": Advice(
        "Reading has a bound so that a huge or endless file cannot stall CI or exhaust memory; it is checked before"
        " the file is read.",
        "Split the plan, or raise the bound deliberately with `--max-bytes N` if the plan is meant to be this large."),
    "EP008": Advice(
        "A bound on items keeps every command's work bounded on any input.",
        "Split the plan into plans that each fit, or raise the bound with `--max-items N`."),
    "EP009": Advice(
        "The settings change what every plan of the repository is held to (strictness, budgets, tiers): a setting"
        " that is misspelt or malformed would otherwise be ignored without a word.",
        "Correct the key or value named at the location (the message gives a did-you-mean for a misspelt setting);"
        " see docs/reference/settings.md for every setting and its values."),
    # --- EP01x: an item does not fit the format -------------------------------------------------
    "EP010": Advice(
        "A field the format does not define is ignored by every tool: a misspelt `depend_on` silently drops the"
        " dependencies, a `file:` silently drops the evidence it meant.",
        "Rename the field to the one the did-you-mean names (`depends_on`, `path`, `change`), or remove it;"
        " `evidence-plan schema` prints every field."),
    "EP011": Advice(
        "A value of the wrong type cannot mean what the writer meant: a number where text is expected, a single"
        " string where a list is, and the item cannot be checked further.",
        "Write the value in the type the message names: quote text, write a list as `[a, b]` or one entry a line."),
    "EP012": Advice(
        "The id is how dependencies, approvals, receipts and messages name an item: an item without one cannot be"
        " depended on or reported on.",
        "Give the item an `id`: short, unique in the plan, letters, digits and `- _ . / :`."),
    "EP013": Advice(
        "`dependencies` is an alias of `depends_on`: when both are given, one list would be silently dropped.",
        "Merge the two lists into `depends_on` and remove `dependencies`."),
    "EP014": Advice(
        "An evidence reference that cannot be parsed cites nothing: the item's justification is gone.",
        "Write the reference as `path`, `path:LINE`, `path:START-END` (START <= END, both from 1) or `path::symbol`,"
        " or the object form with `path` and one of `line` or `lines`."),
    "EP015": Advice(
        "Ids appear in messages, file names, CI logs and shell commands: characters outside the grammar make them"
        " ambiguous or unsafe there.",
        "Rename the item (and every `depends_on` that names it) with letters, digits and `- _ . / :`, starting with"
        " a letter or digit, at most 128 characters."),
    "EP016": Advice(
        "Two ids that look the same but differ in script (a Cyrillic `о` for a Latin `o`) let a dependency point at"
        " the wrong item while every reader sees the right one.",
        "Write the id in one script, and make it differ visibly from the other ids of the plan."),
    "EP017": Advice(
        "A required field carries a commitment: without it the object (an evidence entry, an estimate, a budget)"
        " means nothing checkable.",
        "Add the field the message names, or remove the object that lacks it."),
    "EP018": Advice(
        "`paths` say what an item will write, so that items of one wave that write the same file are caught: a path"
        " that is absolute, escapes with `..` or uses an unsupported pattern cannot be compared.",
        "Write the path relative to the repository root, with `/`, no `.` or `..` segments, and only `*`, `**` and"
        " `?` as wildcards."),
    "EP019": Advice(
        "A dropped item leaves the graph: without a reason, a reviewer cannot tell a deliberate change of plan from"
        " work quietly abandoned.",
        "Add `reason:` to the dropped item: what replaced it, or why it is no longer needed."),
    # --- EP1xx: an item breaks a commitment --------------------------------------------------------
    "EP101": Advice(
        "An item without evidence is a change nobody has justified from the repository: the plan cannot show why it"
        " is needed or where it lands.",
        "Cite the repository facts behind the change under `evidence:` (`path:START-END`, `path::symbol`);"
        " `evidence-plan where TEXT` and `evidence-plan symbols FILE` print entries to paste."),
    "EP102": Advice(
        "Without a proof nothing says when the item is done: it can be marked done without being checked, and"
        " `verify` has nothing to run.",
        "Give `proof:` the one exact command that passes once the change is made, such as"
        " `python -m pytest tests/test_x.py::test_y`."),
    "EP103": Advice(
        "An item must say what it changes: without it there is nothing to review, to estimate or to prove.",
        "Write `change:`: the smallest behaviour or contract change the item makes, in one sentence."),
    "EP104": Advice(
        "Dependencies, approvals and receipts name items by id: two items of one id make each of those references"
        " ambiguous.",
        "Rename one of the two items (and the `depends_on` entries meant for it), or merge them if they are one."),
    "EP105": Advice(
        "The repeat adds nothing and hides intent: a reviewer wonders which of the two was meant to be different.",
        "Remove the repeated entry (`evidence-plan fix` does), or correct it to the other evidence it was meant to"
        " cite."),
    "EP106": Advice(
        "Links to the outside (issues, documentation) justify nothing in the repository: they cannot be checked and"
        " do not say where the change lands.",
        "Add at least one repository citation (a file, lines or a symbol) beside the links."),
    "EP107": Advice(
        "A proof made of several commands hides which one closes the item, and an item with several proofs is"
        " several items.",
        "Split the item into one item per command, each with its own proof, or put the steps in one script of the"
        " repository and run that."),
    "EP108": Advice(
        "Ids that differ only in case or in `-` against `_` are one item written twice, or a dependency that names"
        " the wrong one.",
        "Rename one so that the two differ in words, or merge them into one item."),
    "EP109": Advice(
        "Evidence is read with `/` on every system: a `\\` path is found but written back as is, and its link in"
        " the Markdown page is broken.",
        "Write the path with `/` (`src/app.py`)."),
    "EP110": Advice(
        "A sentence cannot be run: `verify` and CI cannot close the item with it, so the item is proved by nobody.",
        "Replace the sentence with the command that checks it, such as `python -m pytest tests/test_page.py`."),
    "EP111": Advice(
        "An approval is bound to what it approved by a digest: once the items it covers changed, the recorded"
        " approval vouches for something no one approved.",
        "Have a person look at the changed items and record the approval again with"
        " `evidence-plan approve PLAN ID --by NAME`."),
    "EP112": Advice(
        "An estimate with no evidence, or a range so wide that it says nothing, gives the forecast a number nobody"
        " can defend.",
        "Ground the estimate: cite `evidence`, and narrow `low`-`high` (at most the `max_spread` ratio apart), or"
        " split the item until it can be estimated."),
    # --- EP2xx: evidence does not hold in the repository --------------------------------------------------
    "EP201": Advice(
        "Evidence that points at nothing justifies nothing: the file was renamed, moved, or never existed, and the"
        " plan is built on it.",
        "Cite the file that exists (the did-you-mean names the likely one), or, if the item creates the file, cite"
        " what it is based on and list the new file in `paths:`."),
    "EP202": Advice(
        "Lines past the end of the file cite nothing: the code the plan was written against has changed.",
        "Cite the lines where the code is now (`evidence-plan symbols FILE` lists definitions with their lines), or"
        " cite the symbol by name so that moving lines cannot break it."),
    "EP203": Advice(
        "`contains` guards against drift: the text is no longer in the cited lines, so they no longer show what the"
        " plan says they show.",
        "Move the lines to where the text is (`evidence-plan fix` does when it is found once), or update the"
        " `contains` text to what the lines hold now."),
    "EP204": Advice(
        "A plan must never make the compiler read outside its repository: an absolute path, a `..` escape or a"
        " symlink out of the root could expose any file of the machine in a message.",
        "Cite the file by its path relative to the repository root, inside it."),
    "EP205": Advice(
        "A folder has no lines, symbols or text to match: the citation asks for something a folder cannot give.",
        "Cite the folder alone, or cite a file inside it with the lines, symbol or `contains`."),
    "EP206": Advice(
        "The symbol was renamed or removed, or is misspelt: the citation no longer points at the code it meant.",
        "Cite the name the did-you-mean gives, or one that `evidence-plan symbols FILE` lists."),
    "EP207": Advice(
        "Lines and symbols need a text file the compiler may read: a binary, a device, an unreadable or a malformed"
        " file cannot show them.",
        "Cite the file without lines or symbol, cite another file, or correct the file (valid TOML for a TOML"
        " symbol)."),
    "EP208": Advice(
        "A plan may come from anyone: a `root:` that leads out of the work tree that holds it would make the"
        " compiler read another repository or the machine's files.",
        "Give `root:` a folder inside the work tree that holds the plan, or remove it; to check against another"
        " folder deliberately, pass `--root DIR` on the command line."),
    "EP209": Advice(
        "A proof that runs a script that does not exist fails every time: the item can never be proved.",
        "Correct the script's path (the did-you-mean names a likely one), or, if the plan writes the script, list"
        " it in `paths:` of the item or of an item it depends on."),
    "EP210": Advice(
        "A proof that names tests that do not exist passes or errors without testing the change (pytest exits 4 or"
        " 5, unittest finds nothing): the item would be closed by nothing.",
        "Name a test that exists (the did-you-mean names a likely one), or, if the plan writes the test, list its"
        " file in `paths:` of the item or of an item it depends on."),
    "EP211": Advice(
        "The pin is a hash of the cited lines when the plan was written: a mismatch means the code under the"
        " evidence changed, and the plan's reasoning may no longer hold.",
        "Read the change; if the lines only moved, `evidence-plan fix` moves the entry to them; if the code"
        " changed, rethink the item and pin again with `evidence-plan fix --pin`."),
    "EP212": Advice(
        "A name that matches several definitions cites whichever one a tool picks: the evidence is not exactly"
        " right.",
        "Cite the one meant by the unique name the message gives (qualified by its parents, `26.10.0.Output`), or"
        " by its lines."),
    # --- EP3xx: the dependency graph -----------------------------------------------------------------
    "EP301": Advice(
        "A dependency on an item that does not exist orders nothing: the item could start before what it needs.",
        "Name an existing id (the did-you-mean gives the likely one), add the missing item, or remove the entry."),
    "EP302": Advice(
        "An item that depends on itself can never start: the plan has no order.",
        "Remove the item's own id from its `depends_on`."),
    "EP303": Advice(
        "Items on a cycle each wait for the others: none can start, so the plan has no order at all.",
        "Remove one `depends_on` entry on the loop (the notes point at each), or split an item so that the loop"
        " opens."),
    "EP304": Advice(
        "The repeat adds nothing and hides intent: a reviewer wonders which other item was meant.",
        "Remove the repeated entry (`evidence-plan fix` does), or correct it to the dependency it was meant to"
        " name."),
    "EP305": Advice(
        "Items of one wave may run at the same time: two that write the same file will overwrite or conflict with"
        " each other's work.",
        "Make one depend on the other, or split ownership so that their `paths` cannot overlap."),
    "EP306": Advice(
        "A dependency already implied through another adds nothing to the order and makes the graph harder to read"
        " and to change.",
        "Remove the entry (`evidence-plan fix` does): the waves stay the same."),
    "EP307": Advice(
        "A dropped item has left the graph: the live item that depends on it waits for work that will never be"
        " done.",
        "Drop the dependent item too, or make it depend on what replaced the dropped one."),
    "EP308": Advice(
        "A done item whose dependency is not done contradicts the order: either the status or the dependency is"
        " wrong, and progress reports are off.",
        "Mark the dependency done too, or the item `doing` until it is, or remove a dependency that is not real."),
    "EP309": Advice(
        "Comparing paths is bounded: when the bound runs out, a conflict between two items of one wave may be"
        " missed.",
        "Start paths with their literal folder (`src/billing/**/*.py`, not `**/billing/*.py`) and use fewer"
        " wildcards, or list the files."),
    "EP310": Advice(
        "An irreversible step (a migration, a deletion, a release) must not run before a person has agreed: with no"
        " approval before it, nothing stops it.",
        "Add an item with `kind: approval` and make the irreversible item depend on it (directly or through its"
        " dependencies)."),
    "EP311": Advice(
        "A plan above the repository's complexity tier is more than one change can carry safely: long, wide and"
        " hard to review.",
        "Split the plan into smaller plans, or raise `max_tier` in the repository's settings deliberately."),
    "EP312": Advice(
        "Phases finish in order: an item that needs an item of a later phase keeps its phase from ever finishing"
        " first.",
        "Move the dependency to the same phase or an earlier one, move the item to a later phase, or remove the"
        " dependency."),
    # --- EP4xx: budgets and revisions -------------------------------------------------------------
    "EP401": Advice(
        "A plan with no items has nothing to do and nothing to prove: it must not pass as ready, least of all when"
        " an agent's planning came out empty.",
        "Write the items; an agent whose plan came out empty writes a recovery plan: what to try next, each with"
        " its proof."),
    "EP402": Advice(
        "A budget of steps bounds what one plan may take on: a plan past it is too long to carry out or to review.",
        "Shorten the plan (merge or drop items, or split it into plans that each fit), or raise"
        " `budget: {max_items: N}` deliberately."),
    "EP403": Advice(
        "A budget of revisions stops replanning without end: past it, another revision is more likely to repeat"
        " the failure than to fix it.",
        "Stop replanning: feed the last error back (`evidence-plan check --format json`) and route around it in"
        " this revision, or have a person raise `budget: {max_revisions: N}`."),
    "EP404": Advice(
        "Resubmitting the items of a revision that was blocked is a loop: the same plan meets the same errors.",
        "Change what blocked that revision instead of resubmitting it: the items are the same, so"
        " `evidence-plan check` reports its problems again; repair what they name."),
}
