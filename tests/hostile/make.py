"""Write the hostile-input corpus: malformed and hostile plan files, and their MANIFEST.tsv.

    python tests/hostile/make.py            # (re)write every file of the corpus, next to this script
    python tests/hostile/make.py --check    # exit 1 when a file on disk differs from what it would write

Each case is one file that ``evidence-plan check --format text --no-verify-evidence [ARGS] FILE``
must answer with an exact exit code and a message fragment (and, where given, the place
``FILE:LINE:COL``), without a traceback, within seconds and a few hundred MB of memory.
tests/test_hostile.py runs them all. The files are generated (binary ones too: UTF-16, NUL bytes,
invalid UTF-8), deterministically, so that the corpus can be reviewed as code and regenerated
exactly. Inputs larger than about 100 KB (a 5 MB line, a million items, a file larger than
--max-bytes) are generated inside the tests instead, so that this folder stays small (< 2 MB).

MANIFEST.tsv columns, tab-separated, one case a line (``#`` lines are comments):

    file     the file name in this folder
    exit     the expected exit code (0 ready, 1 blocked, 2 input error)
    where    LINE:COL of the first diagnostic, or - when the case does not pin it
    args     extra options before FILE (e.g. ``--max-items 10``), or -
    fragment text that must appear in the output (stdout + stderr)
    what     what the case is about (for people)

An expectation is what the product must do, not what it does today: a case that fails because of
a bug is marked in tests/test_hostile.py (``KNOWN_BUGS``, strict xfail) and keeps its expectation.
"""

# ruff: noqa: E501  (the cases are a table: one case, one logical line)
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = "MANIFEST.tsv"

# A valid item body, to build plans around one hostile detail.
BODY = "    change: Do it\n    evidence: [app.py]\n    proof: make test\n"


def item(ident: str, extra: str = "") -> str:
    return f"  - id: {ident}\n{BODY}{extra}"


def plan(*items: str) -> str:
    return "plan: hostile\nitems:\n" + "".join(items)


JSON_ITEM = '{"id": "a", "change": "Do it", "evidence": ["app.py"], "proof": "make test"}'


@dataclass(frozen=True)
class Case:
    file: str
    content: bytes
    exit: int
    fragment: str
    where: str = "-"
    args: str = "-"
    what: str = ""


def b(text: str) -> bytes:
    return text.encode("utf-8")


def _billion_laughs() -> str:
    lines = ["lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"lol{i}: &a{i} [{refs}]")
    lines.append("items: *a9")
    return "\n".join(lines) + "\n"  # 10**10 nodes once expanded


def _quadratic_aliases() -> str:
    # One anchored list of 1,000 entries, referred to 200 times: 200,000 nodes, no nesting.
    anchor = "[" + ", ".join(["x"] * 1000) + "]"
    return "big: &big " + anchor + "\nitems: [" + ", ".join(["*big"] * 200) + "]\n"


def _deep_block(levels: int) -> str:
    return "".join("  " * i + "a:\n" for i in range(levels)) + "  " * levels + "b\n"


def _long_line(fmt: str) -> str:
    filler = "x" * 100_000
    if fmt == "yaml":
        # The error is at the end of the 100,000-character change (an unquoted ': ').
        return f"items:\n  - id: a\n    change: {filler}: oops\n    evidence: [app.py]\n    proof: make test\n"
    return '{"items": [{"id": "a", "change": "' + filler + '", , "proof": "make test"}]}\n'


def cases() -> list[Case]:
    big = "9" * 5000
    c: list[Case] = [
        # --- not a plan -----------------------------------------------------------------------
        Case("yaml-empty.yaml", b"", 2, "EP004 not a plan: the file is empty", "1:1", what="empty file"),
        Case("yaml-whitespace-only.yaml", b"\n   \n\n", 2, "EP004 not a plan: the file is empty", what="blank lines only"),
        Case("yaml-comments-only.yaml", b"# just a comment\n# and another\n", 2,
             "EP004 not a plan: the file holds only comments", what="comments only"),
        Case("yaml-scalar.yaml", b"just some text\n", 2, "EP004 not a plan: the document is text", "1:1",
             what="a scalar where a plan is expected"),
        Case("yaml-scalar-number.yaml", b"42\n", 2, "EP004 not a plan: the document is the number 42", "1:1",
             what="a number where a plan is expected"),
        Case("yaml-list-of-text.yaml", b"- contract\n- implementation\n", 2, "EP004 not a plan: a list of text",
             "1:1", what="a list of scalars where a plan is expected"),
        Case("yaml-items-null.yaml", b"plan: x\nitems:\n", 2, "EP004 not a plan: items must be a list, not null",
             what="items left blank"),
        Case("json-empty.json", b"", 2, "EP002 invalid JSON", "1:1", what="empty JSON file"),
        Case("json-scalar.json", b'"a plan"\n', 2, "EP004 not a plan: the document is text", "1:1",
             what="a JSON string where a plan is expected"),
        Case("json-list-of-numbers.json", b"[1, 2, 3]\n", 2, "EP004 not a plan: a list of", "1:1",
             what="a JSON list of numbers"),
        Case("json-items-mapping.json", b'{"items": {"a": 1}}\n', 2,
             "EP004 not a plan: items must be a list, not a mapping", "1:11", what="items is an object"),
        # --- YAML syntax ------------------------------------------------------------------------
        Case("yaml-tab-indent.yaml", b"items:\n  - id: a\n\tchange: Do it\n", 2, "hint: YAML indents with spaces, never tabs",
             "3:1", what="a tab used for indentation"),
        Case("yaml-unclosed-double-quote.yaml", b(plan(item('"contract'))), 2, "EP002 invalid YAML", "3:9",
             what="unclosed double quote: reported where the quote opens"),
        Case("yaml-unclosed-single-quote.yaml", b(plan(item("'contract"))), 2, "EP002 invalid YAML", "3:9",
             what="unclosed single quote"),
        Case("yaml-unclosed-flow-sequence.yaml", b"plan: x\nitems: [\n  {id: a, change: c, evidence: [app.py], proof: p}\n",
             2, "EP002 invalid YAML", what="unclosed ["),
        Case("yaml-unclosed-flow-mapping.yaml", b"plan: x\nitems:\n  - {id: a, change: c, evidence: [app.py]\n",
             2, "EP002 invalid YAML", what="unclosed {"),
        Case("yaml-duplicate-key.yaml", b(plan(item("a", "    proof: make other\n"))), 2,
             "EP003 duplicate key 'proof' (first at line 6)", "7:5", what="a key given twice in an item"),
        Case("yaml-duplicate-key-quoted.yaml", b(plan("  - id: a\n    \"id\": b\n" + BODY)), 2,
             "EP003 duplicate key 'id' (first at line 3)", "4:5", what="the same key, once quoted"),
        Case("yaml-duplicate-top-key.yaml", b(plan(item("a")) + "items: []\n"), 2,
             "EP003 duplicate key 'items' (first at line 2)", "7:1", what="items given twice"),
        Case("yaml-colon-in-value.yaml", b(plan("  - id: a\n    change: Do it\n    evidence: [app.py]\n"
                                                 "    proof: echo usage: make\n")), 2,
             "quote text that holds ': '", "6:22", what="an unquoted ': ' inside a value"),
        Case("yaml-undefined-alias.yaml", b(plan(item("a", "    depends_on: [*nothing]\n"))), 2,
             "EP002 invalid YAML", "7:18", what="an alias without its anchor"),
        Case("yaml-two-documents.yaml", b(plan(item("a")) + "---\n" + plan(item("b"))), 2,
             "EP002 invalid YAML", "7:1", what="two YAML documents in one file"),
        Case("yaml-bad-indentation.yaml", b"items:\n  - id: a\n   change: Do it\n    evidence: [app.py]\n", 2,
             "EP002 invalid YAML", what="inconsistent indentation"),
        Case("yaml-nul-byte.yaml", b"plan: x\nitems:\n  - id: a\x00b\n", 2, "EP002 invalid YAML: the character #x0000",
             "3:10", what="a NUL byte"),
        Case("yaml-escape-char.yaml", b"plan: x\nitems:\n  - id: a\x1b[31mb\n", 2,
             "EP002 invalid YAML: the character #x001b", "3:10", what="a terminal escape sequence"),
        # --- JSON syntax ------------------------------------------------------------------------
        Case("json-trailing-comma-object.json", b'{\n  "items": [],\n}\n', 2, "EP002 invalid JSON", "2:14",
             what="trailing comma in an object"),
        Case("json-trailing-comma-array.json", b('{"items": [' + JSON_ITEM + ",]}\n"), 2, "EP002 invalid JSON", "1:88",
             what="trailing comma in an array"),
        Case("json-duplicate-key.json", b('{\n  "items": [\n    {"id": "a",\n     "id": "b"}\n  ]\n}\n'), 2,
             "EP003 duplicate key 'id' (first at line 3)", "4:6", what="a key given twice"),
        Case("json-nan.json", b'{"plan": "x",\n "items": [],\n "goal": NaN}\n', 2, "NaN is not valid JSON", "3:10",
             what="NaN"),
        Case("json-infinity.json", b'{"items": [], "plan": -Infinity}\n', 2, "-Infinity is not valid JSON", "1:23",
             what="-Infinity"),
        Case("json-huge-integer.json", b('{"items": [],\n "plan": ' + big + "}\n"), 2,
             "a number with more than 4,300 digits", "2:10", what="an integer of 5,000 digits"),
        Case("json-huge-exponent.json", b'{"plan": 1e999999, "items": []}\n', 1,
             "EP011 plan field plan must be text, not the number inf", "1:10",
             what="1e999999 is a float (inf), reported as a type error"),
        Case("json-unclosed-string.json", b'{"items": [{"id": "a}]}\n', 2, "EP002 invalid JSON", "1:24",
             what="unclosed string"),
        Case("json-unclosed-bracket.json", b('{"items": [' + JSON_ITEM + "\n"), 2, "EP002 invalid JSON", what="unclosed ["),
        Case("json-comment.json", b"// a plan\n{\"items\": []}\n", 2, "EP002 invalid JSON", "1:1", what="a comment"),
        Case("json-single-quotes.json", b"{'items': []}\n", 2, "EP002 invalid JSON", "1:2", what="single quotes"),
        Case("json-nul-byte.json", b'{"items": [{"id": "a\x00b"}]}\n', 2, "EP002 invalid JSON", "1:21",
             what="a NUL byte in a string"),
        # --- encodings --------------------------------------------------------------------------
        Case("yaml-invalid-utf8.yaml", b"plan: x\nitems:\n  - id: caf\xe9\n", 2, "EP001 not UTF-8 (byte 0xe9)", "3:12",
             what="Latin-1 bytes"),
        Case("json-invalid-utf8.json", b'{"items": [],\n "goal": "\xff\xfe"}\n', 2, "EP001 not UTF-8 (byte 0xff)",
             "2:11", what="invalid UTF-8 bytes in JSON"),
        Case("yaml-utf16-le-bom.yaml", "\ufeff".encode("utf-16-le") + plan(item("a")).encode("utf-16-le"), 2,
             "EP001 the file is UTF-16, not UTF-8", "1:1", what="UTF-16 LE with a byte-order mark"),
        Case("json-utf16-be-bom.json", "\ufeff".encode("utf-16-be") + b"[]".decode().encode("utf-16-be"), 2,
             "EP001 the file is UTF-16, not UTF-8", "1:1", what="UTF-16 BE with a byte-order mark"),
        Case("yaml-utf32-bom.yaml", "\ufeffitems: []\n".encode("utf-32-le"), 2, "EP001 the file is UTF-32", "1:1",
             what="UTF-32"),
        Case("yaml-utf16-no-bom.yaml", "items: []\n".encode("utf-16-le"), 2, "the character #x0000", "1:2",
             what="UTF-16 without a byte-order mark reads as NUL bytes"),
        Case("yaml-utf8-bom.yaml", b"\xef\xbb\xbf" + b(plan(item("a"))), 0, "1 ready", what="a UTF-8 BOM is valid"),
        Case("json-utf8-bom.json", b'\xef\xbb\xbf{"items": [' + b(JSON_ITEM) + b"]}\n", 0, "1 ready",
             what="a UTF-8 BOM is valid in JSON too"),
        Case("yaml-bom-error.yaml", b"\xef\xbb\xbfplan: a: b\nitems: []\n", 2, "mapping values are not allowed", "1:8",
             what="the BOM does not count as a column"),
        Case("yaml-crlf.yaml", b(plan(item("a"), item("b", "    depends_on: [a]\n")).replace("\n", "\r\n")), 0,
             "1 ready", what="CRLF line endings are valid"),
        Case("json-crlf.json", b('{\r\n  "items": [\r\n    ' + JSON_ITEM + "\r\n  ]\r\n}\r\n"), 0, "1 ready",
             what="CRLF in JSON"),
        Case("yaml-crlf-error.yaml", b(plan(item("a"), "  - id: b: c\n").replace("\n", "\r\n")), 2,
             "EP002 invalid YAML", "7:10", what="an error in a CRLF file: right place, no \\r in the excerpt"),
        Case("yaml-cr-only-error.yaml", b(plan(item("a"), "  - id: b: c\n").replace("\n", "\r")), 2,
             "EP002 invalid YAML", "7:10", what="old Mac line endings (CR only): located, with an excerpt"),
        Case("yaml-line-separator-in-comment.yaml", b("# a comment\u2028with a line separator\n" + plan(item("a"))),
             0, "1 ready", what="YAML 1.2: U+2028 is not a line break, so it is part of the comment"),
        Case("json-lone-surrogate.json", b'{"items": [{"id": "\\ud800", "change": "c", "evidence": ["app.py"], '
                                         b'"proof": "p"}]}\n', 2, "lone surrogate", "1:19", what="\\ud800 in JSON"),
        Case("yaml-lone-surrogate.yaml", b(plan(item('"a\\udc00b"'))), 2, "lone surrogate", "3:9",
             what="\\udc00 in a double-quoted YAML scalar"),
        Case("json-surrogate-pair.json", b'{"items": [{"id": "a", "change": "smile \\ud83d\\ude00", '
                                         b'"evidence": ["app.py"], "proof": "p"}]}\n', 0, "1 ready",
             what="a surrogate pair escape is one character"),
        # --- YAML attacks -----------------------------------------------------------------------
        Case("yaml-billion-laughs.yaml", b(_billion_laughs()), 2, "EP005 aliases expand to more than 100,000 nodes",
             what="10**10 nodes once expanded: refused without expanding"),
        Case("yaml-quadratic-aliases.yaml", b(_quadratic_aliases()), 2, "EP005 aliases expand to more than",
             what="one big anchor referred to 200 times"),
        Case("yaml-recursive-alias.yaml", b"items: &a [*a]\n", 2, "EP005", "1:8",
             what="an alias inside its own anchor: a cycle"),
        Case("yaml-recursive-alias-mapping.yaml", b"items:\n  - &a {id: x, change: c, evidence: [app.py], proof: p, "
                                                  b"depends_on: *a}\n", 2, "EP005",
             what="a mapping that contains itself"),
        Case("yaml-aliases-ok.yaml", b("plan: x\nitems:\n  - id: a\n    change: Do it\n    evidence: &ev [app.py]\n"
                                       "    proof: &pr make test\n  - id: b\n    change: Do it too\n    evidence: *ev\n"
                                       "    proof: *pr\n"), 0, "1 ready", what="a few aliases are fine"),
        Case("yaml-python-object-apply.yaml",
             b(plan(item("a")) + '  - !!python/object/apply:os.system ["touch hostile-marker-apply"]\n'), 2,
             "EP005 unsupported tag !!python/object/apply:os.system", "7:5",
             what="a Python tag that would run a command: refused, never constructed"),
        Case("yaml-python-object-new.yaml",
             b"!!python/object/new:subprocess.Popen\nargs: [[touch, hostile-marker-new]]\n", 2,
             "EP005 unsupported tag !!python/object/new:subprocess.Popen", "1:1", what="subprocess.Popen"),
        Case("yaml-python-name.yaml", b(plan(item("a", "    depends_on: [!!python/name:os.system ''] \n"))), 2,
             "EP005 unsupported tag !!python/name:os.system", "7:18", what="a Python name"),
        Case("yaml-custom-tag.yaml", b"plan: x\nitems: !include other.yaml\n", 2, "EP005 unsupported tag !include",
             "2:8", what="an application tag"),
        Case("yaml-binary-tag.yaml", b(plan(item("a", "    goal: !!binary aGVsbG8=\n"))), 2, "EP005 unsupported tag !!binary",
             "7:11", what="!!binary"),
        Case("yaml-set-tag.yaml", b"items: !!set {a, b}\n", 2, "EP005 unsupported tag !!set", "1:8", what="!!set"),
        Case("yaml-merge-key.yaml", b("defaults: &d {change: Do it, proof: make test}\nitems:\n  - id: a\n"
                                      "    <<: *d\n    evidence: [app.py]\n"), 2, "EP005 merge keys (<<) are not supported",
             "4:5", what="merge keys"),
        Case("yaml-complex-key.yaml", b"items: []\n? [a, b]\n: c\n", 2, "EP005 a key must be plain text", "2:3",
             what="a sequence as a key"),
        Case("yaml-deep-flow-10000.yaml", b"[" * 10_000 + b"]" * 10_000, 2, "EP005 nesting deeper than 100 levels",
             "1:101", what="10,000 nested flow sequences"),
        Case("yaml-deep-block-150.yaml", b(_deep_block(150)), 2, "EP005 nesting deeper than 100 levels",
             what="150 nested block mappings"),
        Case("json-deep-10000.json", b"[" * 10_000 + b"]" * 10_000, 2, "EP005 nesting too deep", "1:101",
             what="10,000 nested arrays"),
        Case("json-deep-objects-10000.json", b'{"a":' * 10_000 + b"1" + b"}" * 10_000, 2, "EP005 nesting too deep",
             "1:501", what="10,000 nested objects"),
        Case("json-deep-600-unknown-field.json",
             b('{"extra": ' + "[" * 600 + "]" * 600 + ', "items": [' + JSON_ITEM + "]}\n"), 1,
             "EP010 unknown plan field 'extra'", "1:2",
             what="nesting the JSON parser accepts, in a field the plan does not define"),
        # --- YAML 1.1 surprises: an id never silently becomes a boolean or a number ----------------
        Case("yaml12-words-are-text.yaml",
             b(plan(item("on"), item("no", "    depends_on: [on, yes, off]\n"), item("yes"), item("off"),
                    item("y"), item("n", "    depends_on: [y, no]\n"))), 0, "1 ready",
             what="YAML 1.2: on, no, yes, off, y, n are text"),
        Case("yaml11-directive-yes.yaml", b("%YAML 1.1\n---\n" + plan(item("yes"))), 1,
             "EP011 item 1: id must be text, not true/false", "5:9",
             what="under %YAML 1.1, yes is a boolean: a type error with the hint to quote"),
        Case("yaml11-directive-depends-on.yaml",
             b("%YAML 1.1\n---\n" + plan(item("'on'"), item("b", "    depends_on: [on]\n"))), 1,
             "put it in quotes to keep it as text", "13:18", what="under %YAML 1.1, depends_on: [on] is [true]"),
        Case("yaml-id-true.yaml", b(plan(item("true"))), 1, "EP011 item 1: id must be text, not true/false", "3:9",
             what="true is a boolean under YAML 1.2 too"),
        Case("yaml-id-float-1e3.yaml", b(plan(item("1e3"))), 1, "id must be text, not the number 1000.0", "3:9",
             what="1e3 is a float"),
        Case("yaml-id-octal-012.yaml", b(plan(item("012"))), 1, "id must be text, not the number 12", "3:9",
             what="012 is a number (12 in YAML 1.2, 10 in 1.1), never the text 012"),
        Case("yaml-id-hex.yaml", b(plan(item("0x1F"))), 1, "put it in quotes to keep it as text", "3:9",
             what="0x1F is the number 31"),
        Case("yaml-id-nan.yaml", b(plan(item(".nan"))), 1, "id must be text, not the number nan", "3:9",
             what=".nan is a float"),
        Case("yaml-id-null.yaml", b(plan(item("null"))), 1, "EP012 item 1 has no id", "3:5",
             what="null is no id at all"),
        Case("yaml-id-date.yaml", b(plan(item("2024-01-31"))), 0, "1 ready",
             what="an unquoted date is the text written"),
        Case("yaml-huge-integer.yaml", b(plan(item("a", f"    goal: {big}\n"))), 2,
             "a number with more than 4,300 digits", "7:11", what="an integer of 5,000 digits"),
        Case("yaml-evidence-huge-line-number.yaml",
             b(plan("  - id: a\n    change: Do it\n    evidence: ['app.py:" + big + "']\n    proof: make test\n")), 1,
             "EP014", "5:16", what="a 5,000-digit line number in the string form of evidence"),
        Case("yaml-evidence-huge-range.yaml",
             b(plan("  - id: a\n    change: Do it\n    evidence:\n      - {path: app.py, lines: '1-" + big + "'}\n"
                    "    proof: make test\n")), 1, "EP014", what="a 5,000-digit line range in the object form"),
        Case("json-evidence-huge-line-number.json",
             b('{"items": [{"id": "a", "change": "c", "evidence": ["app.py:' + big + '"], "proof": "p"}]}\n'), 1,
             "EP014", what="a 5,000-digit line number in JSON"),
        # --- ids ------------------------------------------------------------------------------------
        Case("ids-grammar.yaml", b(plan(item('"has space"'), item('"-dash-first"'), item('"semi;colon"'),
                                        item("x" * 129))), 1, "EP015 id 'has space' contains a space", "3:9",
             what="ids that break the grammar"),
        Case("ids-zero-width.yaml", b(plan(item("contract"), item("con\u200btract"))), 1,
             "contains the control or invisible character U+200B", "7:9", what="a zero-width space"),
        Case("ids-bidi-override.yaml", b(plan(item("abc\u202edef"))), 1, "U+202E", "3:9",
             what="a right-to-left override"),
        Case("ids-mixed-scripts.yaml", b(plan(item("c\u043entract"))), 1,
             "EP016 id 'c\u043entract' mixes Latin and Cyrillic letters", "3:9",
             what="Latin with a Cyrillic o"),
        Case("ids-lookalike-cyrillic.yaml", b(plan(item("pop"), item("\u0440\u043e\u0440"))), 1,
             "EP016 id '\u0440\u043e\u0440' looks like 'pop'", "7:9", what="an all-Cyrillic id that reads as Latin"),
        Case("ids-lookalike-greek.yaml", b(plan(item("op"), item("\u03bf\u03c1"))), 1,
             "looks like 'op'", "7:9", what="an all-Greek id that reads as Latin"),
        Case("ids-lookalike-fullwidth.yaml", b(plan(item("contract"), item("\uff43\uff4f\uff4e\uff54\uff52\uff41\uff43\uff54"))),
             1, "looks like 'contract'", "7:9", what="fullwidth letters fold (NFKC) to Latin"),
        # --- limits ---------------------------------------------------------------------------------
        Case("limits-max-items.yaml", b(plan(*(item(f"i{n}") for n in range(11)))), 2,
             "EP008 more than 10 items", "2:1", "--max-items 10", what="--max-items"),
        Case("limits-max-items.json", b('{"items": [' + ", ".join([JSON_ITEM.replace('"a"', f'"i{n}"') for n in range(3)])
                                        + "]}\n"), 2, "EP008 more than 2 items", "1:2", "--max-items 2",
             what="--max-items, JSON"),
        Case("limits-max-bytes.yaml", b(plan(item("a"))), 2, "EP007 larger than 64 bytes", "-", "--max-bytes 64",
             what="--max-bytes, refused before reading"),
        Case("yaml-long-line-error.yaml", b(_long_line("yaml")), 2, "EP002 invalid YAML", "3:100013",
             what="an error at the end of a 100,000-character line: the excerpt is a window"),
        Case("json-long-line-error.json", b(_long_line("json")), 2, "EP002 invalid JSON", "1:100038",
             what="the same in JSON"),
        # --- injection into what reads our output: shown escaped, one screen -------------------------
        Case("inject-newline-in-id.yaml", b(plan('  - id: "a\\n::error::pwned"\n    change: Do it\n    evidence: [app.py]\n')),
             1, "EP102 a\\n::error::pwned has no proof command",
             what="a newline in an id would start a line that GitHub Actions runs as a workflow command"),
        Case("inject-warning-in-dependency.yaml",
             b(plan(item("a", '    depends_on: ["x\\n::warning file=README.md,line=1::all checks passed"]\n'))), 1,
             "depends on unknown items: x\\n::warning file=README.md,line=1::all checks passed",
             what="a forged annotation in a dependency name"),
        Case("inject-add-mask-in-evidence.yaml",
             b(plan('  - id: a\n    change: Do it\n    evidence: ["app.py\\n::add-mask::secret", "app.py\\n::add-mask::secret"]\n'
                    '    proof: make test\n')), 0, "cites app.py\\n::add-mask::secret twice",
             what="::add-mask:: in an evidence entry, shown by a warning"),
        Case("inject-carriage-return.yaml", b(plan('  - id: "a\\rb"\n    evidence: [app.py]\n    proof: make test\n')), 1,
             "EP103 a\\rb has no change", what="a carriage return in an id would redraw the line"),
        Case("inject-terminal-escape.yaml", b(plan('  - id: "a\\e[2J\\e[31m"\n    change: Do it\n    evidence: [app.py]\n')),
             1, "EP102 a\\x1b[2J\\x1b[31m has no proof command", what="terminal escape sequences in an id"),
        Case("inject-line-separator.yaml", b(plan(item("a", '    depends_on: ["b\\u2028::error::x"]\n'))), 1,
             "unknown items: b\\u2028::error::x", what="U+2028, a line break to some readers"),
        Case("inject-legacy-command.yaml",
             b('plan: "##[group]hostile ##[warning]name"\ngoal: "x ##[error]goal"\nitems:\n'
               + item("a", '    depends_on: ["b ##[warning]x"]\n')), 1, "depends on unknown items: b ##",
             what="the older ##[ syntax, read anywhere in a line: in the plan's name, goal and a dependency"),
        Case("inject-command-in-multiline-proof.yaml",
             b(plan('  - id: a\n    change: |-\n      one\n      ::error::from the change\n    evidence: [app.py]\n'
                    '    proof: |-\n      true\n      ::error::x\n        ::warning file=README.md,line=1::All checks passed\n')),
             0, "a proof runs 3 commands",
             what="::error:: at a line start of a multi-line proof and change (shown on their own lines in the pages)"),
        Case("inject-command-in-syntax-error.yaml",
             b("plan: hostile\nitems:\n  - id: a\n    change: [x, ::error::pwned ##[warning]x\n"), 2, "EP002 invalid YAML",
             "4:13", what="a syntax error whose quoted source line holds ::error:: and ##[ (read anywhere in a line)"),
        Case("long-root.yaml", b("root: " + "r" * 10_000 + "\n" + plan(item("a"))), 2,
             "(9,880 more characters) is not a folder", what="a 10,000-character root: is cut in the message"),
        Case("long-id.yaml", b(plan("  - id: " + "i" * 10_000 + "\n    change: Do it\n    evidence: [app.py]\n")), 1,
             "(9,880 more characters) has no proof command", what="a 10,000-character id is cut in every message"),
        Case("long-unknown-field.json", b('{"items": [' + JSON_ITEM[:-1] + ', "' + "k" * 5_000 + '": 1}]}\n'), 1,
             "has unknown field 'kkkkk", what="a 5,000-character key (YAML limits keys to 1,024)"),
        Case("many-unknown-ids.yaml", b(plan(item("a", "    depends_on: [" + ", ".join(f"u{n}" for n in range(10_000)) + "]\n"))),
             1, "u9 and 9,990 more", what="10,000 unknown dependencies: ten are named, the rest counted"),
        Case("long-cycle.yaml", b(plan(*(f"  - {{id: c{n}, change: x, evidence: [a], proof: p, depends_on: [c{(n + 1) % 1000}]}}\n"
                                       for n in range(1000)))),
             1, "note: ... and 990 more", what="a cycle through 1,000 items: its message and notes are cut"),
        Case("inject-mermaid-directive.yaml", b(plan(item("""'x%%{init: {"theme": "dark"}}%%'"""))), 1,
             "contains '%'", what="a Mermaid directive in an id: refused, and shown as text in the blocked plan's graph"),
        Case("inject-javascript-evidence.yaml",
             b(plan('  - id: a\n    change: Do it\n    evidence: ["javascript:alert(1)", "data:text/html,x", "vbscript:x"]\n'
                    '    proof: make test\n')), 0, "1 ready",
             what="path-form evidence that reads as a URL scheme: linked as ./javascript:..., never as a scheme"),
        Case("yaml-huge-hex-integer.yaml", b(plan(item("0x" + "f" * 5000))), 2, "a number with more than 4,300 digits",
             "3:9", what="a hexadecimal integer Python builds but cannot write in decimal"),
        Case("yaml-line-separator-in-value.yaml", b(plan(item("a", "    depends_on: [b\u2028c]\n"))), 1,
             "depends on unknown items", what="U+2028 inside a plain value: both YAML readers give the same answer"),
        Case("yaml-byte-order-mark-inside.yaml", b(plan(item("a")) + "\ufeff# a mark in the middle\n"), 2,
             "hint: a byte-order mark (U+FEFF) may only start the file", "8:1",
             what="a byte-order mark after the start: refused by both YAML readers, and shown in the excerpt"),
        # --- found by the mutation fuzzing campaign (tests/fuzz/campaign.py) -----------------------
        Case("yaml-version-1-3.yaml", b"%YAML 1.3\n---\nitems: []\n", 2, "EP002 invalid YAML: version 1.3", "1:7",
             what="a YAML version ruamel.yaml asserts on (was an internal error)"),
        Case("yaml-escape-past-unicode.yaml", b(plan('  - id: "\\U00110000"\n')), 2,
             "EP002 invalid YAML: an escape that is no character", "3:10",
             what="a \\U escape past U+10FFFF (was an internal error)"),
        Case("root-nul.yaml", b('root: "a\\0b"\n' + plan(item("a"))), 2, "EP006 the repository root a\\x00b holds a NUL",
             "1:7", what="a NUL in root: (was an internal error)"),
        Case("json-duplicate-key-then-garbage.json", b'{"items": [{"id": "a", "id": "b"}], "x": tru', 2,
             "EP003 duplicate key 'id'", "1:24", what="a repeated key, and no JSON after it (was an internal error)"),
        Case("yaml-flow-items-max-items.yaml", b("{items: [" + ", ".join(f"{{id: i{n}, change: c, evidence: [a.py], proof: p}}"
                                                                       for n in range(3)) + "]}\n"),
             2, "EP008 more than 2 items", "1:2", "--max-items 2",
             what="--max-items in flow style: both YAML readers point at the items key"),
        Case("yaml-other-list-max-items.yaml", b("tasks:\n" + "".join(f"  - {{id: i{n}}}\n" for n in range(3))), 2,
             "EP004 not a plan: no items", "1:1", "--max-items 2",
             what="a long list under another key is not the item list, on both YAML readers"),
        Case("yaml-tag-directive-empty.yaml", b"%TAG !e! tag:e.com:\n---\n# nothing here yet\n", 2,
             "EP004 not a plan: the document is null", "4:1", what="a null document after a directive: located alike"),
        Case("yaml11-float-warning.yaml", b("%YAML 1.1\n---\nplan: -1e999\n" + plan(item("a"))[len("plan: hostile\n"):]), 1,
             "plan field plan must be text", what="YAML 1.1 floats: ruamel.yaml's warning is not printed"),
        Case("yaml-tag-without-value.yaml", b"!!bool\n", 2, "EP002 invalid YAML: '' is not true or false (!!bool)", "1:1",
             what="a core tag on a value it does not fit (was an internal error)"),
        Case("yaml-int-tag-on-text.yaml", b(plan(item("a", "    x: !!int 12x\n"))), 2,
             "EP002 invalid YAML: '12x' is not a whole number (!!int)", "7:8", what="the same inside an item"),
        Case("yaml-empty-float-tag.yaml", b"!!float\n", 2, "EP002 invalid YAML: '' is not a number (!!float)", "1:1",
             what="a core tag with no value at all (was an internal error)"),
        Case("yaml-version-on-second-document.yaml", b"%YAML 1.2\n---\n%YAML 2.0\n", 2,
             "EP002 invalid YAML: version 2.0 is not one YAML knows", "3:7",
             what="a %YAML directive of a second document (was an internal error)"),
        Case("yaml-explicit-timestamp-tag.yaml", b(plan(item("a", "    x: !!timestamp not-a-date\n"))), 2,
             "EP005 unsupported tag !!timestamp", "7:8", what="!!timestamp is no YAML 1.2 core tag: refused, as the README says"),
        Case("yaml-seq-tag-on-a-scalar.yaml", b(plan(item("a", "    x: !!seq x\n"))), 2,
             "EP005 the tag !!seq does not fit a single value", "7:8", what="a core tag in the wrong place, named so"),
        Case("yaml-version-after-a-carriage-return.yaml", b"# a comment\r%YAML 1.3\n---\nitems: []\n", 2,
             "EP002 invalid YAML: version 1.3", "2:7", what="a directive after a line that ends in \\r alone"
             " (was an internal error)"),
        # --- never executes ----------------------------------------------------------------------
        Case("yaml-marker-proof.yaml",
             b(plan("  - id: a\n    change: Do it\n    evidence: [app.py]\n"
                    "    proof: touch hostile-marker-proof && python3 -c 'open(\"hostile-marker-py\", \"w\")'\n")),
             0, "1 ready", what="a proof that would create a marker file; the EP107 warning is fine"),
    ]
    return c


def manifest(all_cases: list[Case]) -> str:
    lines = [
        "# Generated by tests/hostile/make.py: edit that, then run it. Columns: see its docstring.",
        "# file\texit\twhere\targs\tfragment\twhat",
    ]
    for case in all_cases:
        for field in (case.fragment, case.what):
            assert "\t" not in field and "\n" not in field, case.file
        lines.append("\t".join([case.file, str(case.exit), case.where, case.args, case.fragment, case.what]))
    return "\n".join(lines) + "\n"


def outputs() -> dict[str, bytes]:
    """Every file of the corpus: name -> bytes (the manifest included)."""
    all_cases = cases()
    names = [case.file for case in all_cases]
    assert len(names) == len(set(names)), "duplicate file names"
    out = {case.file: case.content for case in all_cases}
    out[MANIFEST] = manifest(all_cases).encode("utf-8")
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, content in outputs().items():
        path = HERE / name
        if check:
            if not path.exists() or path.read_bytes() != content:
                stale.append(name)
        else:
            path.write_bytes(content)
    if stale:
        print("stale or missing: " + ", ".join(stale) + " (run python tests/hostile/make.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
