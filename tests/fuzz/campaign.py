#!/usr/bin/env python3
"""Mutation fuzzing campaign against the evidence-plan CLI: every command of the group, on every mutant.

Not a test module (its name is not test_*.py, so pytest never collects it). Run it with the
project's virtualenv, from anywhere:

    .venv/bin/python tests/fuzz/campaign.py --mutants 20000 --seed 1 --jobs 2 --out /work/fuzz/run1
    .venv/bin/python tests/fuzz/campaign.py --mutants 200 --seed 7 --out /tmp/smoke   # smoke test
    .venv/bin/python tests/fuzz/campaign.py --seed 1 --show 1234 --out /tmp/m1234    # one mutant again
    .venv/bin/python tests/fuzz/campaign.py --selftest                               # harness checks
    .venv/bin/python tests/fuzz/campaign.py --replay /work/fuzz/run1   # saved findings vs today's code

The same seed gives the same mutants (``--show N`` regenerates mutant N, writes its files and runs
it in fresh processes).

What it does
------------
Seeds: every plan of tests/cases/*/ (each mutant runs in a temporary copy of its case folder, so
evidence is verified against real files), tests/hostile/*.yaml|json, tests/golden/*.yaml|json and
examples/*/plan.yaml. Every temporary repository gets an empty ``.git`` folder, so that without
``--root`` the work tree is that copy (``root:`` must stay inside it).

Mutations, several per mutant: byte level (flip, insert, delete, duplicate a span, splice from
another seed); token level (a scalar replaced by a hostile value from a dictionary: huge numbers,
``1e999``, ``.nan``, YAML 1.1 booleans, control characters, line separators, bidi controls, lone
surrogate escapes, 100 KB strings, path traversal, hostile evidence references); structure level
(duplicate an item, drop or rename a key, deep nesting, anchors, aliases and alias bombs, tags,
merge keys, ``%YAML 1.1``, flow/block swaps, tabs, CRLF, mixed line endings, BOMs, ``root:``
values); and tree level (the seed parsed, a node replaced, re-emitted as YAML in random styles or
as JSON).

Runs: for each mutant, ``check --format text``, ``check --format json`` and ``compile -o DIR``, on
the default YAML path (libyaml, compiler/load/fastyaml.py) and, for YAML files, on the reference path
(``compiler.load.fastyaml.parse`` replaced by a function returning None, so that compiler/load/yaml_reader.py's
``parse_yaml`` always falls back to ruamel.yaml; ``--selftest`` verifies this by instrumenting
``_parse_yaml_reference``). Some mutants add ``--no-verify-evidence`` runs, a second compile
(determinism), ``--format github`` and ``sarif``, and standard input.

And the drive: every other command of the CLI group, as click lists it (``CliInfo``: the group of
compiler/cli.py with the lazily loaded compiler/commands/), each through its driver in DRIVERS,
which says how a user runs it on the mutant; a command without a driver, a driver without a
command, or a choice of a command's Choice option (a --format) without an output kind in
CHOICE_KINDS stops the campaign at start (``harness:`` lines, exit 2). The runs are drawn per
mutant from the campaign's seed and the mutant's index (their own random stream, so the mutants
stay those the seed gave before), each driver with its probability, so that over 10,000 mutants
each command runs thousands of times at about 1.3x the CPU of check and compile alone:
``check --format F`` (any format); ``compile --html``; ``render`` of compile's JSON, to a file
beside it, to stdout and ``--html``; ``diff SEED MUTANT``, ``diff MUTANT SEED``, ``diff MUTANT
MUTANT`` and ``diff JSON MUTANT`` in each --format (SEED: the mutant's seed, copied beside it);
``graph MUTANT --format F`` for each format, to stdout or ``-o``; ``next``; ``convert MUTANT OUT``
(.yaml, .yml, .json, .md, .markdown beside the plan, or - with --to), then ``check OUT``;
``fix --dry-run`` and ``fix`` (the plan is put back after it and its check), with --pin or
--to-symbols now and then, then ``check``; ``approve MUTANT ID --by NAME --at 2026-12-01T00:00:00Z``
for an approval id of the mutant (else another id), then ``check``; ``schema``; ``symbols`` of the
plan, of a file of the case folder or of the mutant's bytes saved as .md, .toml, .py or .txt;
``where TEXT``, TEXT from a line of the mutant, in the case folder. Each run gets the mutant's
options that the command takes. A run that needs another's output (render, diff of compile's
JSON, the checks after a writer) is skipped when that run failed (counted in the summary).

For throughput the runs execute in persistent worker processes that call ``compiler.cli.main``
in-process (stdout and stderr captured as a real process would encode them, a faulthandler dump
after --slow seconds, a watchdog that kills and restarts the worker after --timeout seconds).
An audit hook (sys.addaudithook) records every file opened, folder listed, rename, process
spawned and socket used while the CLI runs. Every finding is afterwards re-run in fresh
subprocesses (one process per CLI invocation, peak RSS from os.wait4) to confirm it.

Verdicts, for every run of every command: exit code in {0,1,2} (graph, render and symbols {0,2},
schema 0, as their help says); no Traceback; no hang; compile exit 2 leaves the output folder as
it was (earlier artifacts kept, nothing new); compile 0/1 writes both artifacts, the JSON parses
and its status is ready <-> exit 0 and its own invariants hold; check text, check json and
compile agree on the exit code; the two YAML paths agree on exit code, diagnostics (code, line)
and artifacts; two compiles give byte-identical artifacts; text outputs hold no workflow command
(``::`` starting a line after white space, ``##[`` anywhere) and no raw U+2060 but inside those
(compiler/core/cilog.py's guard), no raw ESC, CR or other unsafe control character, no line over 2,000
characters;
nothing read outside the repository copy (and the output a run is given), nothing written
outside the output folder or what the run is told to write (fix, approve: the plan; convert: OUT;
-o FILE), no process or socket; no run slower than --slow seconds, none over 500 MB.
The drive's outputs by their kind (CHOICE_KINDS, judge_output): text as above (diff's text,
symbols and where carry values whole: no line limit), JSON and SARIF parse, github formats are
workflow commands of their kind and nothing else, Markdown as compile's, Mermaid and DOT as text
and without a Mermaid directive, SVG and HTML parse and hold no script, event handler, network
resource or raw control character; no output of any kind holds a workflow command. And
what commands must agree on: render's Markdown beside the JSON is compile's, byte for byte (and
--html compile --html's page); graph exits 2 exactly when compile does; next exits 2 when check
does and is blocked when compile is; diff A B and diff B A agree, diff A A is never "different",
its JSON's ``same`` is its exit code; fix --dry-run and fix agree (exit code, and a diff exactly
when the plan changes); fix exit 2 and approve exit 1 or 2 leave the plan as it was; the plan a
fix or an approve wrote, or convert's OUT, of a plan check reads is still one (not exit 2), a fix or approve
that said ready leaves no error, an approve leaves its approval current (no EP111), and a ready
plan converts to a ready plan; where finds TEXT that is on a line of the plan, at that line.

Output (OUT): log.txt (HEAD, settings, progress), mutants.jsonl (one line per mutant),
summary.json and summary.txt (runs, exit codes and CPU per command, skipped runs, slowest runs,
the workers' peak RSS, findings), findings/<bucket>/ (the first examples, mutant-N.EXT with
mutant-N.seed.EXT and mutant-N.meta.json, the minimized reproducer as a ready-to-run folder
``repro/`` whose ``commands.sh`` runs check, compile and the finding's runs in a copy of it), and
slowest/.
"""

from __future__ import annotations

import argparse
import codecs
import collections
import copy
import hashlib
import io
import json
import os
import pickle
import posixpath
import random
import re
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, cast

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

JSON_NAME, MD_NAME, HTML_NAME = "evidence-plan.json", "evidence-plan.md", "evidence-plan.html"
STALE_JSON, STALE_MD = b'{"stale": true}\n', b"# stale\n"
MEMORY_LIMIT_KB = 500 * 1024
YAML_EXTS = (".yaml", ".yml")

REF_BOOTSTRAP = ("import compiler.load.fastyaml as f; f.parse = lambda *a, **k: None; "
                 "from compiler.cli import main; raise SystemExit(main())")


# --------------------------------------------------------------------------------------------
# encoding helper: lone surrogates from surrogateescape stay raw bytes, others become CESU bytes
# --------------------------------------------------------------------------------------------

def _fuzz_errors(err: UnicodeError) -> tuple[bytes, int]:
    assert isinstance(err, UnicodeEncodeError)
    out = bytearray()
    for ch in err.object[err.start:err.end]:
        c = ord(ch)
        if 0xDC80 <= c <= 0xDCFF:
            out.append(c - 0xDC00)
        else:
            out += ch.encode("utf-8", "surrogatepass")
    return bytes(out), err.end


codecs.register_error("epfuzz", _fuzz_errors)


def enc(text: str) -> bytes:
    return text.encode("utf-8", "epfuzz")


def dec(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------------------------
# audit hook: what the CLI touches while it runs (installed in workers and in fresh children)
# --------------------------------------------------------------------------------------------

_WATCH = frozenset({
    "open", "os.listdir", "os.scandir", "os.rename", "os.remove", "os.rmdir", "os.mkdir",
    "os.chmod", "os.chown", "os.symlink", "os.link", "os.truncate", "os.chdir", "os.walk",
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "pty.spawn", "os.kill", "os.killpg",
    "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.sendto", "socket.__new__", "urllib.Request",
    "http.client.connect", "webbrowser.open", "shutil.rmtree", "shutil.move", "shutil.copyfile",
})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Audit:
    def __init__(self) -> None:
        self.active = False
        self.busy = False
        self.thread = threading.get_ident()  # only the thread that runs the CLI is watched
        self.events: list[tuple[Any, ...]] = []

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or self.busy or event not in _WATCH or threading.get_ident() != self.thread:
            return
        self.busy = True
        try:
            self.events.append(self._describe(event, args))
        except Exception as exc:  # noqa: BLE001 - a hook that raises would break the program under test
            self.events.append((event, f"<audit error {exc!r}>", "", False))
        finally:
            self.busy = False

    @staticmethod
    def _path(p: Any) -> tuple[str, str]:
        if isinstance(p, int) or p is None:
            return "", ""
        p = os.fsdecode(p)
        a = os.path.abspath(p)
        try:
            r = os.path.realpath(a)
        except (OSError, ValueError):
            r = a
        return a, r

    def _describe(self, event: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
        if event == "socket.__new__" and len(args) > 2:  # (socket, family, type, proto)
            return (event, f"family={args[1]} type={args[2]}", "", True)
        if event == "open":
            path, mode, flags = [*args, None, None, None][:3]
            if isinstance(path, int):
                return ("open-fd", str(path), "", False)
            write = False
            if isinstance(flags, int) and flags & _WRITE_FLAGS:
                write = True
            if isinstance(mode, str) and any(c in mode for c in "wax+"):
                write = True
            a, r = self._path(path)
            return ("open", a, r, write)
        if event in ("os.listdir", "os.scandir", "os.walk", "os.chdir", "os.remove", "os.rmdir",
                     "os.mkdir", "os.chmod", "os.chown", "os.truncate", "shutil.rmtree"):
            p = args[0] if args else None
            if p is None and event in ("os.listdir", "os.scandir"):
                p = "."
            a, r = self._path(p)
            return (event, a, r, event not in ("os.listdir", "os.scandir", "os.walk"))
        if event in ("os.rename", "os.symlink", "os.link", "shutil.move", "shutil.copyfile"):
            a, r = self._path(args[1] if len(args) > 1 else None)
            return (event, a, r, True)
        return (event, repr(args)[:300], "", True)


AUDIT = Audit()


# --------------------------------------------------------------------------------------------
# seeds
# --------------------------------------------------------------------------------------------

class Seed:
    def __init__(self, name: str, data: bytes, ext: str, template: str | None, plan_rel: str,
                 args: list[str]) -> None:
        self.name, self.data, self.ext, self.template, self.plan_rel, self.args = (
            name, data, ext, template, plan_rel, args)
        self.tree: Any = None
        self.files: list[str] = []  # files of the template repository (relative, POSIX)
        self.regular: list[str] = []  # those of them that are regular files (symbols reads them)
        self.symbols: list[str] = []


def _depth(node: Any, d: int = 0) -> int:
    if d > 60:
        return d
    if isinstance(node, dict):
        return max([_depth(v, d + 1) for v in node.values()] + [d + 1])
    if isinstance(node, list):
        return max([_depth(v, d + 1) for v in node] + [d + 1])
    return d


def _plainify(node: Any) -> Any:
    if isinstance(node, dict):
        return {str(k) if not isinstance(k, (str, int)) else k: _plainify(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plainify(v) for v in node]
    if node is None or isinstance(node, (str, int, float, bool)):
        return node
    return str(node)


def snapshot_corpus(dest: Path) -> Path:
    """Copy the seed corpus (others edit tests/ while the campaign runs): same seed, same mutants."""
    if dest.exists():
        shutil.rmtree(dest)
    for rel in ("tests/cases", "tests/hostile", "tests/golden", "examples"):
        shutil.copytree(REPO / rel, dest / rel, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def corpus_digest(base: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(base.rglob("*")):
        if p.is_file() and not p.is_symlink():
            h.update(p.relative_to(base).as_posix().encode() + b"\0" + p.read_bytes())
        elif p.is_symlink():
            h.update(p.relative_to(base).as_posix().encode() + b"->" + os.readlink(p).encode())
    return h.hexdigest()[:16]


def load_seeds(base: Path = REPO) -> list[Seed]:
    CASES, HOSTILE, GOLDEN, EXAMPLES = (base / "tests" / "cases", base / "tests" / "hostile", base / "tests" / "golden",
                                        base / "examples")
    seeds: list[Seed] = []
    for case in sorted(CASES.iterdir()):
        if not case.is_dir() or case.name.startswith(("_", ".")):
            continue
        for name in ("plan.yaml", "plan.json"):
            plan = case / name
            if plan.is_file():
                args = ["--root", "."]
                if (case / "args.txt").exists():
                    args = shlex.split((case / "args.txt").read_text(encoding="utf-8"), comments=True)
                seeds.append(Seed(f"cases/{case.name}", plan.read_bytes(), plan.suffix, str(case), name, args))
    manifest: dict[str, list[str]] = {}
    for line in (HOSTILE / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) > 3 and cols[3] != "-":
            manifest[cols[0]] = shlex.split(cols[3])
    for folder, label in ((HOSTILE, "hostile"), (GOLDEN, "golden")):
        for f in sorted(folder.iterdir()):
            if f.suffix in (".yaml", ".json") and f.is_file():
                seeds.append(Seed(f"{label}/{f.name}", f.read_bytes(), f.suffix, None, f.name,
                                  manifest.get(f.name, []) if label == "hostile" else []))
    for ex in sorted(EXAMPLES.iterdir()):
        if (ex / "plan.yaml").is_file():
            seeds.append(Seed(f"examples/{ex.name}", (ex / "plan.yaml").read_bytes(), ".yaml", str(EXAMPLES),
                              f"{ex.name}/plan.yaml", []))
    import yaml  # PyYAML: only to get trees for the tree-level mutations

    sym_re = re.compile(r"^\s*(?:def|class|function|fn|func|struct|const|let|var|#+)\s+([A-Za-z_][\w.]*)", re.M)
    for s in seeds:
        text = s.data.decode("utf-8", "replace")
        if len(s.data) < 200_000 and not re.search(r"[&*][A-Za-z0-9_]", text) and "!!" not in text:
            try:
                tree = json.loads(text) if s.ext == ".json" else yaml.load(text, Loader=yaml.CSafeLoader)
                if isinstance(tree, (dict, list)) and _depth(tree) < 40:
                    s.tree = _plainify(tree)
            except Exception:  # noqa: BLE001 - hostile seeds: any that does not load gets no tree mutations
                s.tree = None
        if s.template:
            base = Path(s.template)
            for p in sorted(base.rglob("*")):
                rel = p.relative_to(base).as_posix()
                if rel in (s.plan_rel, "expected.txt", "args.txt") or "__pycache__" in rel:
                    continue
                s.files.append(rel)
                if p.is_file() and not p.is_symlink():
                    s.regular.append(rel)
                if p.is_file() and not p.is_symlink() and p.stat().st_size < 100_000:
                    s.symbols += sym_re.findall(p.read_text(encoding="utf-8", errors="replace"))[:20]
    return seeds


# --------------------------------------------------------------------------------------------
# hostile dictionary
# --------------------------------------------------------------------------------------------

HUGE_HEX = "0x" + "deadbeef" * 625  # 5000 hex digits
HUGE_DEC = "1234567890" * 500  # 5000 digits
BIG_STR = "A" * 100_000

STRINGS = [
    "\n::error::x", "::error::injected", "::warning file=a::x", "x\r\ny", "\r", "a\rb", "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07", "\x1bc", "\x1b", "%%{init: {\"theme\":\"dark\"}}%%", "javascript:alert(1)",
    "../../../../etc/passwd", "/etc/passwd", "a::b", "x.py:0", "x.py:5-2", "x.py:99999999999",
    "x.py:" + "9" * 5000, "\u2028", "\u2029", "\u0085", "\ufeff", "a\u2028b", "a\u2029b", "a\u0085b",
    "x\ufeffy", "\ud800", "\udfff", "a\udcffb", "\u202e", "abc\u202edef\u202c", "\u2066x\u2069", "\x00",
    "a\x00b", BIG_STR, " ", "\t", "", "é", "\U0001d518", "ｉｄ", "c\u043entract", "<script>alert(1)</script>",
    "[x](javascript:alert(1))", "|", "`", "```", "<!--", "-->", "{{ 7*7 }}", "{% raw %}", "$(touch /tmp/pwn)",
    "; touch /tmp/pwn", "a && b", "'", "\"", "\\", "%0A", "%25", "a,b", "a:b:c", "${HOME}", "x.py:\u0661",
    "x.py:\u2460", "x.py:1:2", "x.py:-1", "x.py:0x10", "x.py:1_0", "x.py:+1", "x.py::", "::x",
    "x.py::a.b.c", "x.py::__init__", ".", "..", "./", ".git", ".git/config", "plan.yaml", "plan.yaml:1",
    "/proc/self/environ", "/dev/zero", "/dev/stdin", "https://example.com/x", "http://127.0.0.1:1/",
    "file:///etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share", "~/.ssh/id_rsa", "a/../../b",
    "x" * 129, "x" * 128, "end\n", "line1\nline2\n", "a\tb", "a\x0bb", "a\x0cb", "a\x7fb", "a\x9bb",
    "\u200b", "id\u200b", "\u00a0", "ﬁ", "K\u0301", "Ω", "\U000e0041", "a" * 5000, "-", "-x", "?", "*",
    "1.0", "01", "1e3", "0o7", "nan", "null", "true", "yes", "no", "on", "~", "plan.yaml::x", "plan.yaml::items",
    "plan.yaml:1-99999", "plan.json::items", "README.md::Quick start", "a.md::" + "#" * 50,
]

RAW_YAML = [
    HUGE_HEX, HUGE_DEC, "-" + HUGE_DEC, HUGE_DEC + ".5", "1e999", "-1e999", "1e-999", "-0", "-0.0", "0",
    ".nan", ".NaN", ".inf", "-.inf", "~", "null", "yes", "no", "on", "off", "y", "n", "true", "False", "",
    "2024-01-01", "2001-12-14t21:59:43.10-05:00", "0o17", "017", "0b101", "+12", "1_000", "0x1F", "0x_",
    "12:30:00", "=", "<<", "[]", "{}", "[[]]", "{a: b}", "[a, [b]]", "*a", "&a x", "!!str x", "!x", "|", ">",
    "- x", "? x", "a: b: c", "[unclosed", "{unclosed", "\"unclosed", "'unclosed", "#c", "%x", "@x", "`x",
    "!!binary aGVsbG8=", "!!python/object/apply:os.system [\"true\"]", "!!python/name:os.system",
    "!!python/object:__main__.X {}", "!!set {a, b}", "!!omap [a: 1]", "!!timestamp 2001-01-01", "!!float 1",
    "!!int \"12\"", "!!bool yes", "!!null \"\"", "!<tag:yaml.org,2002:str> x", "!!map {}", "!!seq []",
    "!custom x", "!<!> x", "\"\\ud800\"", "\"\\udfff\"", "\"\\ud83d\\ude00\"", "\"\\0\"", "\"a\\0b\"",
    "\"\\x1b[31mred\\x1b[0m\"", "\"\\e[2J\"", "\"\\n::error::x\"", "\"\\r\"", "\"\\L\"", "\"\\P\"", "\"\\N\"",
    "\"\\u2028\"", "\"\\u2029\"", "\"\\u0085\"", "\"\\ufeff\"", "\"\\u202e\"", "\"\\U0010FFFF\"",
    "\"\\U00110000\"", "\"\\x\"", "\"\\q\"", "\"\\_\"", "'it''s'", "\"tab\\there\"", "\"\\ud800\\udc00\"",
    "\"\\uDBFF\"", "\"x\\\n  y\"", "a \u2028 b", "\u2029", "\u0085x", "x\ufeff", "\t", "x\tx",
    "!!int", "!!float", "!!bool", "!!null", "!!str", "!!int \"\"", "!!float _", "!!int _", "!!bool ''",
    "!!timestamp x", "!!seq x", "!!map x", "!!int 12x",
]

RAW_JSON = [
    HUGE_HEX, HUGE_DEC, "-" + HUGE_DEC, HUGE_DEC + ".5", "1e999", "-1e999", "1e-999", "-0", "-0.0", "0",
    "NaN", "Infinity", "-Infinity", "null", "true", "false", "[]", "{}", "[[]]", "\"\\ud800\"", "\"\\udfff\"",
    "\"\\ud83d\\ude00\"", "\"\\u0000\"", "\"\\u001b[31m\"", "\"\\n::error::x\"", "\"\\r\"", "\"\\u2028\"",
    "\"\\u2029\"", "\"\\u0085\"", "\"\\ufeff\"", "\"\\u202e\"", "\"\\x41\"", "\"\\q\"", "'single'", "01",
    ".5", "+1", "0x1F", "undefined", "\"" + BIG_STR + "\"", "\"unclosed", "1,", "{\"a\": 1, \"a\": 2}",
    "\"\x00\"", "\"\t\"", "\"\u2028\"", "\"a\ufeffb\"", "\"\\uDBFF\\uDBFF\"", "[" * 50 + "]" * 50,
]

NEAR = {
    "id": ["ID", "Id", "ids", "_id", "iD", "\u0456d", "id\u200b"],
    "change": ["changes", "chnage", "Change", "summary", "chang"],
    "evidence": ["evidences", "evidnce", "Evidence", "evidance", "proofs"],
    "depends_on": ["depend_on", "dependson", "depends-on", "dependencies", "Depends_on", "depends_on_", "deps"],
    "dependencies": ["depends_on", "dependency", "dependancies"],
    "proof": ["proofs", "prof", "Proof", "proof_", "test"],
    "items": ["item", "Items", "itmes", "tasks"],
    "path": ["paths", "file", "Path", "pth"],
    "lines": ["line", "Lines", "range", "lnes"],
    "line": ["lines", "ln", "Line"],
    "contains": ["contain", "Contains", "text", "contians"],
    "symbol": ["symbols", "sym", "Symbol"],
    "root": ["Root", "roots", "repo", "rot"],
    "plan": ["name", "Plan", "plans"],
    "goal": ["goals", "Goal"],
    "url": ["URL", "href", "uri"],
}
KEYS = sorted(NEAR)

ROOTS = ["../..", "..", "/", "/proc", "/proc/self", "/etc", "/dev", "/dev/null", ".", "", "~", "repo/../..",
         "./../", "x" * 10_000, "a/" * 3000, "\x00", "plan.yaml", ".git", "/tmp", "nonexistent", "\u2028",
         "app/..", "%2e%2e", "C:\\", "\\\\server\\share", "file:///", "~root"]

TAGS = ["!!python/object/apply:os.system", "!!python/object:os.system", "!!python/name:os.system",
        "!!python/tuple", "!!binary", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!set", "!!omap",
        "!!pairs", "!!map", "!!seq", "!!timestamp", "!custom", "!", "!<tag:yaml.org,2002:str>",
        "!<tag:example.com,2000:x>", "!!merge", "!!value", "!!yaml", "!e!x"]

DIRECTIVES = ["%YAML 1.1\n---\n", "%YAML 1.2\n---\n", "%YAML 1.3\n---\n", "%YAML 2.0\n---\n",
              "%TAG ! tag:example.com,2000:\n---\n", "%TAG !e! tag:e.com:\n---\n", "--- !!map\n", "---\n",
              "%YAML 1.1\n%YAML 1.1\n---\n", "%FOO bar\n---\n", "%YAML 1.1\n",
              "%YAML 1.2\n---\n%YAML 2.0\n---\n", "%YAML 1.2\n---\n%YAML 1.3\n---\n"]

INTERESTING_BYTES = [b"\x00", b"\t", b"\r", b"\n", b"\r\n", b":", b": ", b"-", b"- ", b"[", b"]", b"{", b"}",
                     b"\"", b"'", b"#", b"&", b"*", b"!", b"|", b">", b"%", b"@", b"`", b"\xef\xbb\xbf",
                     b"\xff", b"\xc3", b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xc2\x85", b"\xed\xa0\x80", b" ",
                     b"  ", b",", b"\\", b"\x1b", b"\x7f", b"?", b"---", b"...", b"\xf0\x9f\x98"]


class Raw(str):
    """Text emitted verbatim (a YAML or JSON token)."""


# --------------------------------------------------------------------------------------------
# emitters (tree -> text)
# --------------------------------------------------------------------------------------------

_PLAIN_BAD_START = set("-?:,[]{}#&*!|>'\"%@` \t")
_NUM_LIKE = re.compile(r"^(?:[-+]?[0-9][0-9_.eE+-]*|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)|0x[0-9a-fA-F_]+|0o[0-7_]+|"
                       r"true|True|TRUE|false|False|FALSE|null|Null|NULL|~|=|<<)$")
_UNSAFE_CH = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _dq(s: str, raw_unicode: bool) -> str:
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t" if not raw_unicode else "\t")
        elif c < 0x20 or c == 0x7F:
            out.append("\\0" if c == 0 else f"\\x{c:02x}")
        elif 0x80 <= c <= 0x9F or c in (0x2028, 0x2029, 0xFEFF) or 0xD800 <= c <= 0xDFFF:
            out.append(ch if raw_unicode and not (0xD800 <= c <= 0xDFFF) else f"\\u{c:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


class YamlEmitter:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.flow_bias = rng.random() * 0.35
        self.raw_unicode = rng.random() < 0.4
        self.indent = rng.choice([2, 2, 2, 4, 1, 3])
        self.indentless = rng.random() < 0.3

    def plain_ok(self, s: str, flow: bool) -> bool:
        if not s or s != s.strip() or s[0] in _PLAIN_BAD_START or ": " in s or " #" in s or s.endswith(":"):
            return False
        if _UNSAFE_CH.search(s) or _NUM_LIKE.match(s) or s.lower() in ("yes", "no", "on", "off", "y", "n"):
            return False
        return not (flow and any(c in s for c in ",[]{}"))

    def scalar(self, v: Any, flow: bool, ind: int) -> str:
        r = self.rng.random()
        if isinstance(v, Raw):
            return str(v)
        if v is None:
            return self.rng.choice(["", "~", "null"]) if not flow else "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v) if v == v and v not in (float("inf"), float("-inf")) else ".nan"
        s = str(v)
        if self.plain_ok(s, flow) and r < 0.6:
            return s
        if not flow and "\n" in s and r < 0.8 and not _UNSAFE_CH.search(s.replace("\n", "")) and s.strip():
            pad = " " * (ind + self.indent)
            body = s[:-1] if s.endswith("\n") else s
            chomp = "" if s.endswith("\n") and not s.endswith("\n\n") else ("-" if not s.endswith("\n") else "+")
            return "|" + chomp + "\n" + "\n".join(pad + line if line else "" for line in body.split("\n"))
        if r < 0.9 or _UNSAFE_CH.search(s) or "\n" in s:
            return _dq(s, self.raw_unicode)
        return "'" + s.replace("'", "''") + "'"

    def key(self, k: Any, flow: bool) -> str:
        if isinstance(k, Raw):
            return str(k)
        if isinstance(k, str):
            return k if self.plain_ok(k, flow) else _dq(k, self.raw_unicode)
        return str(k)

    def flow(self, v: Any) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.key(k, True)}: {self.flow(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(self.flow(x) for x in v) + "]"
        return self.scalar(v, True, 0)

    def block(self, v: Any, ind: int) -> list[str]:
        sp = " " * ind
        if isinstance(v, dict):
            if not v:
                return [sp + "{}"]
            lines: list[str] = []
            for k, x in v.items():
                kk = self.key(k, False)
                if isinstance(x, (dict, list)) and x and self.rng.random() > self.flow_bias:
                    lines.append(f"{sp}{kk}:")
                    sub = ind if (isinstance(x, list) and self.indentless) else ind + self.indent
                    lines += self.block(x, sub)
                elif isinstance(x, (dict, list)):
                    lines.append(f"{sp}{kk}: {self.flow(x)}")
                else:
                    s = self.scalar(x, False, ind)
                    lines.append(f"{sp}{kk}:" + (" " + s if s else ""))
            return lines
        if isinstance(v, list):
            if not v:
                return [sp + "[]"]
            lines = []
            for x in v:
                if isinstance(x, (dict, list)) and x and self.rng.random() > self.flow_bias:
                    nested = self.block(x, ind + 2)
                    nested[0] = sp + "- " + nested[0][ind + 2:]
                    lines += nested
                elif isinstance(x, (dict, list)):
                    lines.append(f"{sp}- {self.flow(x)}")
                else:
                    s = self.scalar(x, False, ind)
                    lines.append(f"{sp}-" + (" " + s if s else ""))
            return lines
        return [sp + self.scalar(v, False, ind)]

    def emit(self, data: Any) -> str:
        if self.rng.random() < 0.1:
            return self.flow(data) + "\n"
        return "\n".join(self.block(data, 0)) + "\n"


def emit_json(data: Any, rng: random.Random) -> str:
    raws: list[str] = []

    def conv(v: Any) -> Any:
        if isinstance(v, Raw):
            raws.append(str(v))
            return f"@@RAW{len(raws) - 1}@@"
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        return v

    text = json.dumps(conv(data), indent=rng.choice([None, 2, 2, 4, "\t"]), ensure_ascii=rng.random() < 0.5)
    for n, r in enumerate(raws):
        text = text.replace(f'"@@RAW{n}@@"', r, 1)
    return text + ("\n" if rng.random() < 0.9 else "")


# --------------------------------------------------------------------------------------------
# mutator
# --------------------------------------------------------------------------------------------

MAX_MUTANT = 600_000


class Mutant:
    def __init__(self, index: int, seed: Seed) -> None:
        self.index = index
        self.seed = seed.name
        self.template = seed.template
        self.plan_rel = seed.plan_rel
        self.ext = seed.ext
        self.args = list(seed.args)
        self.ops: list[str] = []
        self.data = b""
        self.extras: list[str] = []
        self.out_mode = "stale"
        self.drive: list[dict[str, Any]] = []  # the runs of the other commands (draw_drive)
        self.seed_data = seed.data  # diff's other side
        self.seed_ext = seed.ext

    def plan_path(self) -> str:
        return str(Path(self.plan_rel).with_suffix(self.ext))

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "seed": self.seed, "template": self.template, "plan_rel": self.plan_path(),
                "ext": self.ext, "args": self.args, "ops": self.ops, "extras": self.extras,
                "out_mode": self.out_mode, "size": len(self.data), "sha": hashlib.sha256(self.data).hexdigest()[:16],
                "drive": self.drive, "seed_ext": self.seed_ext}


class Mutator:
    def __init__(self, seeds: list[Seed], seed: int, info: CliInfo | None = None) -> None:
        self.seeds = seeds
        self.seed = seed
        self.info = info  # when given, each mutant also drives every other command (draw_drive)
        self.by_group: dict[str, list[Seed]] = {}
        for s in seeds:
            self.by_group.setdefault(s.name.split("/")[0], []).append(s)

    # ----- hostile values
    def hostile_str(self, rng: random.Random, s: Seed) -> str:
        r = rng.random()
        if r < 0.2 and s.files:
            f = rng.choice(s.files)
            spans = ["0", "1", "2", "99999", "1-99999", "5-2", "1-1", str(2**31), "9" * 30]
            return rng.choice([f, f"{f}:{rng.choice(spans)}",
                               f"{f}::{rng.choice(s.symbols or ['main'])}", f"{f}::{rng.choice(STRINGS[:40])}",
                               f"./{f}", f"{f}/", f"{f}/../{f}", f"{f.upper()}", f"{f}:{rng.choice(STRINGS)}",
                               f"../{Path(s.template or '.').name}/{f}"])
        if r < 0.3:
            a, b = rng.choice(STRINGS), rng.choice(STRINGS)
            return a[:2000] + b[:2000]
        return rng.choice(STRINGS)

    def hostile_value(self, rng: random.Random, s: Seed, json_mode: bool) -> Any:
        r = rng.random()
        if r < 0.35:
            return Raw(rng.choice(RAW_JSON if json_mode else RAW_YAML))
        if r < 0.85:
            return self.hostile_str(rng, s)
        if r < 0.9:
            return rng.choice([0, -1, 2**64, 1.5, True, False, None])
        if r < 0.95:
            return [self.hostile_str(rng, s) for _ in range(rng.randint(0, 4))]
        return {rng.choice(KEYS): self.hostile_str(rng, s) for _ in range(rng.randint(0, 3))}

    def hostile_evidence(self, rng: random.Random, s: Seed, json_mode: bool) -> Any:
        f = rng.choice(s.files) if s.files and rng.random() < 0.7 else self.hostile_str(rng, s)
        r = rng.random()
        if r < 0.4:
            return self.hostile_str(rng, s)
        obj: dict[str, Any] = {"path": f}
        for k in rng.sample(["lines", "line", "contains", "symbol", "url", "pin", "path", "note"], rng.randint(0, 3)):
            obj[k] = rng.choice([self.hostile_value(rng, s, json_mode),
                                 rng.choice(["1", "1-2", "0", "5-2", 3, "1-99999"]),
                                 rng.choice(s.symbols or ["x"])])
        return obj

    # ----- tree mutations
    def _nodes(self, tree: Any) -> list[tuple[Any, Any]]:
        """(container, key) pairs of every node below the root."""
        out: list[tuple[Any, Any]] = []
        stack = [tree]
        while stack and len(out) < 5000:
            node = stack.pop()
            if isinstance(node, dict):
                for k in list(node):
                    out.append((node, k))
                    stack.append(node[k])
            elif isinstance(node, list):
                for i in range(len(node)):
                    out.append((node, i))
                    stack.append(node[i])
        return out

    def tree_op(self, tree: Any, rng: random.Random, s: Seed, json_mode: bool) -> tuple[Any, str]:
        nodes = self._nodes(tree)
        items = tree.get("items") if isinstance(tree, dict) else tree
        items = items if isinstance(items, list) else None
        op = rng.choice(["leaf", "leaf", "leaf", "key-rename", "drop-key", "dup", "nest", "root", "type-swap",
                         "evidence", "evidence", "depends", "id", "many-items", "alias-shared", "add-field"])
        if op == "root" and isinstance(tree, dict):
            tree["root"] = rng.choice(ROOTS)
            return tree, "tree-root"
        if op == "many-items" and items:
            n = rng.choice([50, 200, 1000, 3000])
            base = [copy.deepcopy(rng.choice(items)) for _ in range(min(n, 3000))]
            for k, it in enumerate(base):
                if isinstance(it, dict):
                    it["id"] = f"item-{k}"
                    it["depends_on"] = ([f"item-{j}" for j in rng.sample(range(max(k, 1)), min(k, rng.randint(0, 3)))]
                                        if k else [])
            items.extend(base)
            return tree, f"tree-many-items-{n}"
        if op == "evidence" and items:
            it = rng.choice(items)
            if isinstance(it, dict):
                ev = it.get("evidence")
                new = self.hostile_evidence(rng, s, json_mode)
                if isinstance(ev, list) and ev and rng.random() < 0.7:
                    ev[rng.randrange(len(ev))] = new
                else:
                    it["evidence"] = [new] if rng.random() < 0.8 else new
                return tree, "tree-evidence"
        if op == "depends" and items:
            it = rng.choice(items)
            ids = [x.get("id") for x in items if isinstance(x, dict) and isinstance(x.get("id"), str)]
            if isinstance(it, dict):
                choice = rng.random()
                if choice < 0.3 and ids:
                    it["depends_on"] = rng.sample(ids, min(len(ids), rng.randint(1, 4)))  # cycles likely
                elif choice < 0.5:
                    it["depends_on"] = [self.hostile_str(rng, s) for _ in range(rng.randint(1, 3))]
                elif choice < 0.6:
                    it["dependencies"] = ids[:2]
                elif choice < 0.7 and ids:
                    it["depends_on"] = [ids[0]] * rng.randint(2, 5)
                else:
                    it["depends_on"] = self.hostile_value(rng, s, json_mode)
                return tree, "tree-depends"
        if op == "id" and items:
            it = rng.choice(items)
            if isinstance(it, dict):
                ids = [x.get("id") for x in items if isinstance(x, dict) and isinstance(x.get("id"), str)]
                if ids and rng.random() < 0.3:
                    old_id = cast(str, rng.choice(ids))  # ids keeps only str ids
                    it["id"] = rng.choice([old_id, old_id.upper(), old_id.replace("o", "\u043e"), old_id + "\u200b",
                                           old_id.replace("-", "_"), old_id.replace("e", "\u0435", 1), old_id + " ",
                                           "\u202e" + old_id])
                else:
                    it["id"] = self.hostile_value(rng, s, json_mode)
                return tree, "tree-id"
        if not nodes:
            return tree, "tree-noop"
        cont, key = rng.choice(nodes)
        if op == "key-rename" and isinstance(cont, dict):
            kname = str(key)
            new = rng.choice(NEAR.get(kname, [kname + "_", kname.upper(), kname[:-1] or "x", kname + "\u200b"]))
            if rng.random() < 0.15:
                new = Raw(rng.choice(["1", "null", "true", "[a]", "{a: b}", "<<", "? x", "\"\\ud800\"", "~", "1.5"])) \
                    if not json_mode else rng.choice(["", "\ud800", "<<", "\u2028", "a" * 5000])
            cont[new] = cont.pop(key)
            return tree, "tree-key-rename"
        if op == "drop-key" and isinstance(cont, dict):
            del cont[key]
            return tree, "tree-drop-key"
        if op == "drop-key" and isinstance(cont, list):
            del cont[key]
            return tree, "tree-drop-elem"
        if op == "dup" and isinstance(cont, list):
            cont.insert(rng.randint(0, len(cont)), copy.deepcopy(cont[key]))
            return tree, "tree-dup"
        if op == "nest":
            d = rng.choice([10, 50, 99, 100, 101, 150, 500, 1000])
            v = cont[key]
            for _ in range(d):
                v = [v] if rng.random() < 0.5 else {"a": v}
            cont[key] = v
            return tree, f"tree-nest-{d}"
        if op == "type-swap":
            v = cont[key]
            if isinstance(v, str):
                cont[key] = rng.choice([[v], {"x": v}, 12, None, True, [[v]], Raw("1e999")])
            elif isinstance(v, list):
                cont[key] = rng.choice([", ".join(map(str, v)), {"0": v}, None, 0, ""])
            elif isinstance(v, dict):
                cont[key] = rng.choice([list(v.items()), list(v), None, "x", [v]])
            else:
                cont[key] = str(v)
            return tree, "tree-type-swap"
        if op == "alias-shared":
            cont[key] = [cont[key]] * rng.randint(2, 6)
            return tree, "tree-shared"
        if op == "add-field" and isinstance(cont, dict):
            cont[rng.choice([*KEYS, "estimate", "status", "paths", "kind", "budget", "pin", "claims"])] = \
                self.hostile_value(rng, s, json_mode)
            return tree, "tree-add-field"
        cont[key] = self.hostile_value(rng, s, json_mode)
        return tree, "tree-leaf"

    # ----- text mutations
    def yaml_text_op(self, text: str, rng: random.Random, s: Seed) -> tuple[str, str]:
        lines = text.splitlines(keepends=True) or [""]
        op = rng.choice(["scalar"] * 6 + ["evidence"] * 2 + ["dup-item", "drop-key", "rename-key", "rename-key",
                         "nest", "anchor-alias", "alias-bomb", "tag", "merge", "directive", "flow-swap", "tabs",
                         "crlf", "bom", "root", "root", "separator", "comment", "indent", "dup-key", "doc-marker",
                         "long", "quote-break", "block-scalar"])
        val_re = re.compile(r"^(\s*(?:-\s+)?(?:[^\s:#][^:#]*?:\s+|-\s+))([^|>\s#&*!\[{].*?)(\s+#.*)?(\r?\n)?$")
        if op in ("scalar", "evidence"):
            cands = [i for i, ln in enumerate(lines) if val_re.match(ln)]
            if op == "evidence":
                ev = [i for i in cands if re.match(r"^\s*-\s", lines[i])
                      or re.match(r"^\s*(path|lines|line|contains|symbol):", lines[i])]
                cands = ev or cands
            if cands:
                i = rng.choice(cands)
                m = val_re.match(lines[i])
                assert m
                v = self.hostile_value(rng, s, False) if op == "scalar" else self.hostile_evidence(rng, s, False)
                em = YamlEmitter(rng)
                tok = (str(v) if isinstance(v, Raw) else em.flow(v) if isinstance(v, (dict, list))
                       else em.scalar(v, True, 0))
                lines[i] = m.group(1) + tok + (m.group(3) or "") + (m.group(4) or "")
                return "".join(lines), f"yaml-{op}"
        if op == "dup-item":
            starts = [i for i, ln in enumerate(lines) if re.match(r"^\s*- ", ln)]
            if starts:
                i = rng.choice(starts)
                ind = len(lines[i]) - len(lines[i].lstrip())
                j = i + 1
                while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > ind):
                    j += 1
                block = lines[i:j]
                if block and not block[-1].endswith("\n"):
                    block[-1] += "\n"
                for _ in range(rng.choice([1, 1, 2, 10])):
                    lines[j:j] = block
                return "".join(lines), "yaml-dup-item"
        if op == "drop-key":
            cands = [i for i, ln in enumerate(lines) if re.match(r"^\s*(?:-\s+)?[\w-]+:", ln)]
            if cands:
                i = rng.choice(cands)
                ind = len(lines[i]) - len(lines[i].lstrip())
                j = i + 1
                while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > ind):
                    j += 1
                if re.match(r"^\s*-\s+", lines[i]):  # keep the dash: drop only the key
                    lines[i] = re.sub(r"^(\s*-\s+).*", r"\1x: 1", lines[i].rstrip("\r\n")) + "\n"
                    del lines[i + 1:j]
                else:
                    del lines[i:j]
                return "".join(lines), "yaml-drop-key"
        if op == "rename-key":
            cands = [i for i, ln in enumerate(lines) if re.match(r"^\s*(?:-\s+)?[\w-]+:", ln)]
            if cands:
                i = rng.choice(cands)
                m = re.match(r"^(\s*(?:-\s+)?)([\w-]+)(:.*)$", lines[i], re.S)
                if m:
                    k = m.group(2)
                    new = rng.choice(NEAR.get(k, [k + "s", k[:-1] or "x", k.upper(), k + "\u200b", "<<", "? " + k]))
                    lines[i] = m.group(1) + new + m.group(3)
                    return "".join(lines), "yaml-rename-key"
        if op == "nest":
            cands = [i for i, ln in enumerate(lines) if val_re.match(ln)]
            if cands:
                i = rng.choice(cands)
                m = val_re.match(lines[i])
                assert m
                d = rng.choice([10, 99, 100, 101, 150, 1000, 5000, 20000])
                tok = rng.choice([("[" * d) + "x" + ("]" * d), ("{a: " * d) + "x" + ("}" * d), ("[" * d)])
                lines[i] = m.group(1) + tok + (m.group(4) or "")
                if rng.random() < 0.3:  # block nesting instead
                    dd = min(d, 300)
                    lines[i] = m.group(1) + "\n" + "".join(" " * (2 * k + 2) + "- \n" for k in range(dd))
                    lines[i] = lines[i].rstrip("\n") + " x\n"
                return "".join(lines), f"yaml-nest-{d}"
        if op == "anchor-alias":
            cands = [i for i, ln in enumerate(lines) if val_re.match(ln)]
            if len(cands) >= 2:
                i, j = sorted(rng.sample(cands, 2))
                mi, mj = val_re.match(lines[i]), val_re.match(lines[j])
                assert mi and mj
                lines[i] = mi.group(1) + "&a " + mi.group(2) + (mi.group(4) or "")
                alias = rng.choice(["*a", "*a", "*b", "*a ", "*a\u2028"])
                lines[j] = mj.group(1) + alias + (mj.group(4) or "")
                if rng.random() < 0.3:  # forward alias / recursive anchor
                    lines[i], lines[j] = lines[j], lines[i]
                return "".join(lines), "yaml-anchor-alias"
        if op == "alias-bomb":
            depth, width = rng.randint(3, 12), rng.randint(2, 10)
            bomb = [f"a0: &a0 [{', '.join(['lol'] * width)}]\n"]
            for k in range(1, depth):
                bomb.append(f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * width)}]\n")
            where = rng.random()
            if where < 0.5:
                text2 = "".join(bomb) + text
            else:
                text2 = text + ("\n" if not text.endswith("\n") else "") + "".join(bomb)
            if rng.random() < 0.5:
                text2 = text2.replace("evidence:", f"evidence: *a{depth - 1}\n    x_evidence:", 1)
            return text2, f"yaml-alias-bomb-{depth}x{width}"
        if op == "tag":
            cands = [i for i, ln in enumerate(lines) if val_re.match(ln)]
            if cands:
                i = rng.choice(cands)
                m = val_re.match(lines[i])
                assert m
                lines[i] = m.group(1) + rng.choice(TAGS) + " " + m.group(2) + (m.group(4) or "")
                return "".join(lines), "yaml-tag"
        if op == "merge":
            cands = [i for i, ln in enumerate(lines) if re.match(r"^\s*- id:", ln)]
            if cands:
                i = rng.choice(cands)
                ind = len(lines[i]) - len(lines[i].lstrip()) + 2
                merge = rng.choice(["<<: {proof: x}", "<<: *m", "<<: [*m, *m]", "<<: 1", "\"<<\": {a: 1}",
                                    "<< : {x: 1}"])
                lines.insert(i + 1, " " * ind + merge + "\n")
                if "*m" in merge:
                    lines.insert(0, "m: &m {proof: make}\n")
                return "".join(lines), "yaml-merge"
        if op == "directive":
            return rng.choice(DIRECTIVES) + text, "yaml-directive"
        if op == "flow-swap":
            cands = [i for i, ln in enumerate(lines) if re.match(r"^\s*(?:-\s+)?[\w-]+:\s*\[.*\]\s*$", ln)]
            if cands and rng.random() < 0.5:
                i = rng.choice(cands)
                m = re.match(r"^(\s*)((?:-\s+)?)([\w-]+):\s*\[(.*)\]\s*$", lines[i])
                assert m
                ind = len(m.group(1)) + len(m.group(2))
                elems = [e.strip() for e in m.group(4).split(",") if e.strip()]
                lines[i:i + 1] = [m.group(1) + m.group(2) + m.group(3) + ":\n"] + [
                    " " * (ind + rng.choice([0, 2])) + "- " + e + "\n" for e in elems]
                return "".join(lines), "yaml-flow-to-block"
            if s.tree is not None:
                return (json.dumps(s.tree, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1])) + "\n",
                        "yaml-as-json")
        if op == "tabs":
            i = rng.randrange(len(lines))
            ln = lines[i]
            r = rng.random()
            if r < 0.4:
                lines[i] = re.sub(r"^( +)", lambda m: "\t" * max(1, len(m.group(1)) // 2), ln)
            elif r < 0.7:
                lines[i] = ln.replace(": ", ":\t", 1)
            else:
                lines[i] = ln.rstrip("\r\n") + "\t\n"
            return "".join(lines), "yaml-tabs"
        if op == "crlf":
            r = rng.random()
            if r < 0.4:
                return text.replace("\r\n", "\n").replace("\n", "\r\n"), "crlf"
            if r < 0.6:
                return text.replace("\r\n", "\n").replace("\n", "\r"), "cr-only"
            return "".join(ln.replace("\n", rng.choice(["\r\n", "\n", "\r", "\n\r"])) for ln in lines), "mixed-eol"
        if op == "bom":
            if rng.random() < 0.5:
                return "\ufeff" + text, "bom-start"
            p = rng.randrange(len(text) + 1)
            return text[:p] + "\ufeff" + text[p:], "bom-inside"
        if op == "root":
            value = rng.choice(ROOTS)
            em = YamlEmitter(rng)
            tok = em.scalar(value, False, 0) if value else ""
            new = f"root: {tok}\n" if tok else "root:\n"
            cands = [i for i, ln in enumerate(lines) if re.match(r"^root:", ln)]
            if cands:
                lines[cands[0]] = new
            else:
                top = [i for i, ln in enumerate(lines) if re.match(r"^[A-Za-z_]+:", ln)]
                lines.insert(top[0] if top else 0, new)
            return "".join(lines), "root"
        if op == "separator":
            ch = rng.choice(["\u2028", "\u2029", "\u0085", "\ufeff", "\u200b", "\u202e", "\x0b", "\x0c", "\x1b", "\x00",
                             "\x7f"])
            p = rng.randrange(len(text) + 1)
            return text[:p] + ch + text[p:], f"insert-char-U+{ord(ch):04X}"
        if op == "comment":
            i = rng.randrange(len(lines))
            c = rng.choice(["# c", "#\u2028x", "# \x1b[31m", "#" + "x" * 10000, "# \ud800", "#\t", "  # a: b"])
            lines.insert(i, c + "\n")
            return "".join(lines), "comment"
        if op == "indent":
            i = rng.randrange(len(lines))
            d = rng.choice([-2, -1, 1, 2, 3])
            lines[i] = (" " * d + lines[i]) if d > 0 else lines[i][min(-d, len(lines[i]) - len(lines[i].lstrip(" "))):]
            return "".join(lines), "indent"
        if op == "dup-key":
            cands = [i for i, ln in enumerate(lines) if re.match(r"^\s*(?:-\s+)?[\w-]+:", ln)]
            if cands:
                i = rng.choice(cands)
                ln = lines[i]
                ln2 = re.sub(r"^(\s*)-\s+", lambda m: m.group(1) + "  ", ln)
                if not ln2.endswith("\n"):
                    ln2 += "\n"
                lines.insert(i + 1, ln2)
                return "".join(lines), "yaml-dup-key"
        if op == "doc-marker":
            r = rng.random()
            if r < 0.3:
                return text + "\n---\nitems: []\n", "two-docs"
            if r < 0.6:
                return "---\n" + text + "...\n", "doc-markers"
            return text + "...\ngarbage: [\n", "doc-end-garbage"
        if op == "long":
            i = rng.randrange(len(lines))
            lines[i] = lines[i].rstrip("\r\n") + " " + "x" * rng.choice([3000, 100_000]) + "\n"
            return "".join(lines), "long-line"
        if op == "quote-break":
            p = rng.randrange(len(text) + 1)
            return (text[:p] + rng.choice(["\"", "'", "[", "{", "]", "}", ": ", "- ", "? ", "|", "&", "*"]) + text[p:],
                    "quote-break")
        if op == "block-scalar":
            cands = [i for i, ln in enumerate(lines) if val_re.match(ln)]
            if cands:
                i = rng.choice(cands)
                m = val_re.match(lines[i])
                assert m
                ind = len(m.group(1)) - len(m.group(1).lstrip()) + 2
                head = rng.choice(["|", ">", "|-", ">+", "|2", "|#c", "| # c", "|9", "|0"])
                body = rng.choice(["\n" + " " * ind + "x\n", "\n\n" + " " * ind + "x\n", "\n" + " " * ind + "\t x\n",
                                   "\n" + " " * (ind + 4) + "a\n" + " " * ind + "b\n", "\n"])
                lines[i] = m.group(1) + head + body
                return "".join(lines), "yaml-block-scalar"
        return self.byte_like_text(text, rng), "text-fallback"

    def json_text_op(self, text: str, rng: random.Random, s: Seed) -> tuple[str, str]:
        op = rng.choice(["token"] * 5 + ["nest", "dupkey", "trailing-comma", "comment", "crlf", "bom", "separator",
                         "root", "quote-swap", "drop-token", "long"])
        tok_re = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')
        toks = list(tok_re.finditer(text))
        if op == "token" and toks:
            m = rng.choice(toks)
            v = self.hostile_value(rng, s, True)
            rep = str(v) if isinstance(v, Raw) else json.dumps(v, ensure_ascii=rng.random() < 0.5)
            return text[:m.start()] + rep + text[m.end():], "json-token"
        if op == "nest" and toks:
            m = rng.choice(toks)
            d = rng.choice([100, 999, 1000, 5000, 100_000])
            rep = rng.choice(["[" * d + "1" + "]" * d, '{"a":' * d + "1" + "}" * d, "[" * d])
            return text[:m.start()] + rep + text[m.end():], f"json-nest-{d}"
        if op == "dupkey":
            spots = [m.end() for m in re.finditer(r"\{", text)]
            if spots:
                q = rng.choice(spots)
                return (text[:q] + rng.choice(['"id": "dup",', '"items": [],', '"proof": "x",', '"a": 1, "a": 2,'])
                        + text[q:], "json-dupkey")
        if op == "trailing-comma":
            spots = [m.start() for m in re.finditer(r"[\]}]", text)]
            if spots:
                q = rng.choice(spots)
                return text[:q] + "," + text[q:], "json-trailing-comma"
        if op == "comment":
            p = rng.randrange(len(text) + 1)
            return text[:p] + rng.choice(["// c\n", "/* c */", "#c\n"]) + text[p:], "json-comment"
        if op == "crlf":
            return text.replace("\n", rng.choice(["\r\n", "\r"])), "crlf"
        if op == "bom":
            if rng.random() < 0.5:
                return "\ufeff" + text, "bom-start"
            p = rng.randrange(len(text) + 1)
            return text[:p] + "\ufeff" + text[p:], "bom-inside"
        if op == "separator":
            ch = rng.choice(["\u2028", "\u2029", "\u0085", "\x00", "\x1b", "\x0c", "\u00a0", "\u3000"])
            p = rng.randrange(len(text) + 1)
            return text[:p] + ch + text[p:], f"insert-char-U+{ord(ch):04X}"
        if op == "root":
            q = text.find("{")
            if q >= 0:
                return text[:q + 1] + f'"root": {json.dumps(rng.choice(ROOTS))},' + text[q + 1:], "root"
        if op == "quote-swap":
            return text.replace('"', "'", rng.randint(1, 5)), "json-quote-swap"
        if op == "drop-token" and toks:
            m = rng.choice(toks)
            return text[:m.start()] + text[m.end():], "json-drop-token"
        if op == "long":
            return text.replace('"', '"' + "x" * 100_000, 1), "long-string"
        return self.byte_like_text(text, rng), "text-fallback"

    def byte_like_text(self, text: str, rng: random.Random) -> str:
        p = rng.randrange(len(text) + 1)
        return text[:p] + rng.choice(["\n", ":", "-", " ", "\t", "\"", "#"]) + text[p:]

    def byte_op(self, data: bytes, rng: random.Random) -> tuple[bytes, str]:
        n = len(data)
        op = rng.choice(["flip", "insert", "insert", "delete", "dup-span", "splice"])
        if n == 0:
            op = "insert"
        if op == "flip":
            b = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(n)
                b[i] ^= 1 << rng.randrange(8)
            return bytes(b), "byte-flip"
        if op == "insert":
            p = rng.randrange(n + 1)
            return data[:p] + rng.choice(INTERESTING_BYTES) * rng.choice([1, 1, 1, 2, 50]) + data[p:], "byte-insert"
        if op == "delete":
            p = rng.randrange(n)
            return data[:p] + data[p + rng.randint(1, min(64, n - p)):], "byte-delete"
        if op == "dup-span":
            p = rng.randrange(n)
            q = min(n, p + rng.randint(1, 200))
            return data[:q] + data[p:q] * rng.randint(1, 3) + data[q:], "byte-dup-span"
        other = rng.choice(self.seeds).data
        if not other:
            return data, "splice-empty"
        p, q = rng.randrange(len(other)), rng.randrange(n + 1)
        span = other[p:p + rng.randint(1, 400)]
        if rng.random() < 0.5:
            return data[:q] + span + data[q:], "byte-splice"
        return data[:q] + span + data[q + len(span):], "byte-splice-over"

    # ----- one mutant
    def make(self, index: int) -> Mutant:
        rng = random.Random(f"evidence-plan-fuzz:{self.seed}:{index}")
        r = rng.random()
        group = "cases" if r < 0.55 else "hostile" if r < 0.78 else "golden" if r < 0.88 else "examples"
        pool = self.by_group.get(group) or self.seeds
        s = pool[rng.randrange(len(pool))]
        m = Mutant(index, s)
        data = s.data
        ext = s.ext
        if rng.random() < 0.03:
            ext = rng.choice([".yml", ".json", ".yaml"])
        m.ext = ext
        json_mode = ext == ".json"
        extra_text = 1 + int(rng.random() < 0.35) + int(rng.random() < 0.1)
        if s.tree is not None and rng.random() < 0.55:
            for _attempt in range(3):
                tree = copy.deepcopy(s.tree)
                ops = []
                for _ in range(1 + int(rng.random() < 0.4) + int(rng.random() < 0.15)):
                    try:
                        tree, op = self.tree_op(tree, rng, s, json_mode)
                    except (IndexError, ValueError, KeyError, TypeError):
                        op = "tree-error"
                    ops.append(op)
                try:
                    if json_mode or rng.random() < 0.1:
                        text = emit_json(tree, rng)
                        ops.append("emit-json")
                    else:
                        text = YamlEmitter(rng).emit(tree)
                        ops.append("emit-yaml")
                except RecursionError:
                    continue
                nd = enc(text)
                if len(nd) <= MAX_MUTANT:
                    data = nd
                    m.ops += ops
                    break
            extra_text = 1 if rng.random() < 0.2 else 0
        for _ in range(extra_text):
            text = dec(data)
            for _try in range(5):
                try:
                    if json_mode:
                        new, op = self.json_text_op(text, rng, s)
                    else:
                        new, op = self.yaml_text_op(text, rng, s)
                except (IndexError, ValueError):
                    new, op = text, "text-error"
                if op != "text-fallback" or _try == 4:
                    break
            nd = enc(new)
            if len(nd) <= MAX_MUTANT:
                data = nd
                m.ops.append(op)
        if rng.random() < 0.12:
            for _ in range(1 + int(rng.random() < 0.3)):
                data, op = self.byte_op(data, rng)
                m.ops.append(op)
        m.data = data
        # options and extras
        if s.name.startswith("cases/") and m.args == ["--root", "."] and rng.random() < 0.5:
            m.args = []  # the .git of the copy makes it the work tree: root: decides
        r = rng.random()
        m.extras = [e for e, p in (("nv", 0.15), ("det", 0.05), ("gh", 0.1), ("sarif", 0.05), ("stdin", 0.08))
                    if rng.random() < p]
        m.out_mode = "stale" if r < 0.5 else "absent"
        if self.info is not None:
            m.drive = draw_drive(self.info, m, s, self.seed)
        return m


# --------------------------------------------------------------------------------------------
# run plan of a mutant: the base runs (check and compile, both YAML paths) and the drive
# --------------------------------------------------------------------------------------------

# Placeholders in a run's argv start with a NUL, which no real argument can hold (so no text
# taken from a mutant can be mistaken for one): the plan's file name (the runs' working folder is
# the plan's folder), the run's own output folder, and a file of another run's output folder.
P = "\x00"
P_PLAN, P_OUT = P + "plan", P + "out"


def p_out(name: str) -> str:
    return f"{P}out/{name}"


def p_art(run: str, name: str) -> str:
    return f"{P}art/{run}/{name}"


def run_specs(m: dict[str, Any]) -> list[dict[str, Any]]:
    paths = ["fast", "ref"] if m["ext"] in YAML_EXTS else ["fast"]
    args = m["args"]
    runs: list[dict[str, Any]] = []
    for p in paths:
        runs.append({"name": f"check-text-{p}", "path": p, "argv": ["check", "--format", "text", *args, P_PLAN]})
        runs.append({"name": f"check-json-{p}", "path": p, "argv": ["check", "--format", "json", *args, P_PLAN]})
        runs.append({"name": f"compile-{p}", "path": p, "argv": ["compile", P_PLAN, "-o", P_OUT, *args], "out": True})
        if "nv" in m["extras"]:
            runs.append({"name": f"check-json-nv-{p}", "path": p,
                         "argv": ["check", "--format", "json", "--no-verify-evidence", *args, P_PLAN]})
            runs.append({"name": f"compile-nv-{p}", "path": p,
                         "argv": ["compile", P_PLAN, "-o", P_OUT, "--no-verify-evidence", *args], "out": True})
    if "det" in m["extras"]:
        runs.append({"name": "compile-det-fast", "path": "fast", "argv": ["compile", P_PLAN, "-o", P_OUT, *args],
                     "out": True})
    if "gh" in m["extras"]:
        runs.append({"name": "check-github-fast", "path": "fast",
                     "argv": ["check", "--format", "github", *args, P_PLAN]})
    if "sarif" in m["extras"]:
        runs.append({"name": "check-sarif-fast", "path": "fast",
                     "argv": ["check", "--format", "sarif", *args, P_PLAN]})
    if "stdin" in m["extras"] and m["ext"] in YAML_EXTS and "--root" in args:
        runs.append({"name": "check-json-stdin-fast", "path": "fast", "stdin": True,
                     "argv": ["check", "--format", "json", *args, "-"]})
    for r in runs:
        r["cmd"] = r["argv"][0]
    return runs + [dict(r) for r in m.get("drive", [])]


def runs_closure(runs: list[dict[str, Any]], names: set[str]) -> list[dict[str, Any]]:
    """The runs named, and the runs they need (their ``needs``), in the spec's order."""
    by = {r["name"]: r for r in runs}
    want = set()
    stack = [n for n in names if n in by]
    while stack:
        n = stack.pop()
        if n in want:
            continue
        want.add(n)
        need = by[n].get("needs")
        if need and need[0] in by:
            stack.append(need[0])
    return [r for r in runs if r["name"] in want]


# --------------------------------------------------------------------------------------------
# every command of the CLI group, each with a driver: how a user runs it on a mutant
# --------------------------------------------------------------------------------------------

# What each choice of each command's Choice parameters prints, as judge_output judges it:
#   text        for people: text_findings (no line starting with ::, no raw unsafe control
#               character, no line over 2,000 characters);
#   text-whole  the same, without the line limit, for outputs that must carry a value whole:
#               diff's text holds each revised field's old and new value whole (README, "Plan
#               revisions"); symbols and where print ready-to-paste evidence entries (a clipped
#               symbol name or contains text would not resolve);
#   json, sarif, yaml (parse, no line starting with ::), github-error / github-notice (workflow
#   commands of that kind and nothing else), markdown (the artifact's Markdown checks), mermaid
#   and dot (text, and no Mermaid directive), svg and html (markup: no script, no event handler,
#   nothing from the network, no raw control character).
# A choice missing here is a harness error, reported at start (a format added later is judged
# on purpose, not by accident).
CHOICE_KINDS: dict[tuple[str, str], dict[str, str]] = {
    ("check", "fmt"): {"auto": "text", "text": "text", "json": "json", "github": "github-error", "sarif": "sarif"},
    ("diff", "fmt"): {"text": "text-whole", "json": "json", "markdown": "markdown", "github": "github-notice"},
    ("graph", "fmt"): {"mermaid": "mermaid", "dot": "dot", "svg": "svg", "json": "json"},
    ("next", "fmt"): {"text": "text", "json": "json"},
    ("verify", "fmt"): {"text": "text", "json": "json", "github": "github-error"},  # always --dry-run
    ("symbols", "fmt"): {"text": "text-whole", "json": "json"},
    ("where", "fmt"): {"text": "text-whole", "json": "json"},
    ("convert", "to"): {"yaml": "yaml", "json": "json", "md": "markdown"},
    ("schema", "kind"): {"input": "json", "output": "json"},
    ("explain", "fmt"): {"text": "text", "markdown": "markdown", "json": "json"},
}
# Exit codes a command may give besides the group's {0, 1, 2} rule, where its help says fewer.
EXITS: dict[str, set[int]] = {"graph": {0, 2}, "render": {0, 2}, "symbols": {0, 2}, "schema": {0}, "explain": {0, 2},
                              "init": {0, 2}}
# Files the drivers make in the plan's folder for one run (and remove after it).
SEED_COPY, CONVERTED, SYMBOLS_COPY = "_fuzz-seed", "_fuzz-converted", "_fuzz-symbols"
STARTER = "_fuzz-starter.plan.yaml"  # init's plan
APPROVED_AT = "2026-12-01T00:00:00Z"  # approve is given --at, always: no run reads the clock


class CliInfo:
    """The CLI group's commands as click lists them (compiler/cli.py's group, with the lazily
    loaded compiler/commands/): the campaign's list of commands is this one. ``problems`` says
    what the harness cannot drive: a command without a driver, a driver without a command, a
    choice without an output kind."""

    def __init__(self) -> None:
        import click

        from compiler.cli import cli

        ctx = click.Context(cli, info_name="evidence-plan")
        self.names: list[str] = list(cli.list_commands(ctx))
        self.commands: dict[str, Any] = {}
        self.problems: list[str] = []
        for name in self.names:
            try:
                command = cli.get_command(ctx, name)
            except Exception as exc:  # noqa: BLE001 - reported as a problem of the harness's start
                self.problems.append(f"command {name!r} of the CLI group cannot be loaded: {exc!r}")
                continue
            if command is None:
                self.problems.append(f"command {name!r} is listed by the CLI group but not found")
                continue
            self.commands[name] = command
            if isinstance(command, click.Group):  # its commands too, by their whole name ("ci github")
                group = click.Context(command, info_name=name, parent=ctx)
                for sub in command.list_commands(group):
                    found = command.get_command(group, sub)
                    if found is not None:
                        self.commands[f"{name} {sub}"] = found
            if name not in DRIVERS:
                self.problems.append(f"command {name!r} of the CLI group has no driver: add one to DRIVERS in "
                                     f"{Path(__file__).name} (how a user runs it on a mutant, and its verdicts)")
        for name in DRIVERS:
            if name not in self.names:
                self.problems.append(f"DRIVERS has a driver for {name!r}, which the CLI group does not list")
        self.arity: dict[str, bool] = {}  # every option of every command: does it take a value
        for name, command in self.commands.items():
            for param in command.params:
                if isinstance(param, click.Option):
                    for opt in (*param.opts, *param.secondary_opts):
                        self.arity[opt] = not param.is_flag and not param.count
                if isinstance(param.type, click.Choice):
                    known = CHOICE_KINDS.get((name, param.name or ""), {})
                    missing = [str(c) for c in param.type.choices if c not in known]
                    if missing:
                        self.problems.append(f"{name} {'/'.join(param.opts)}: {', '.join(missing)} has no output kind "
                                             f"in CHOICE_KINDS of {Path(__file__).name}")

    def choices(self, command: str, param: str) -> list[str]:
        import click

        for p in self.commands[command].params:
            if p.name == param and isinstance(p.type, click.Choice):
                return [str(c) for c in p.type.choices]
        raise KeyError(f"{command} has no Choice parameter {param}")

    def options(self, command: str) -> set[str]:
        import click

        return {o for p in self.commands[command].params if isinstance(p, click.Option)
                for o in (*p.opts, *p.secondary_opts)}

    def filter_args(self, command: str, args: list[str]) -> tuple[list[str], bool]:
        """The mutant's options that ``command`` takes (with their values), and whether any was left out."""
        accepted = self.options(command)
        kept: list[str] = []
        dropped = False
        i = 0
        while i < len(args):
            a = args[i]
            key = a.split("=", 1)[0]
            takes = self.arity.get(key, False) and "=" not in a
            n = 2 if takes and i + 1 < len(args) else 1
            if key in accepted:
                kept += args[i:i + n]
            else:
                dropped = True
            i += n
        return kept, dropped


_CLI: list[CliInfo] = []


def cli_info() -> CliInfo:
    """The CLI's commands, read once per process."""
    if not _CLI:
        _CLI.append(CliInfo())
    return _CLI[0]


def harness_problems() -> list[str]:
    return cli_info().problems


_ID_RE = re.compile(r"""(?:^|[{,\n])[ \t-]*["']?id["']?[ \t]*:[ \t]*["']?([^"'\s,}\]#]+)""")


def plan_ids(text: str) -> tuple[list[str], list[str]]:
    """The item ids a plan's text seems to give, and those of them that seem to be approvals (an
    item whose text, between the ids before and after it, says approval): a guess, for drivers.
    An id holding NUL is left out: no command line can hold it, and NUL marks a run's placeholder."""
    found = [m for m in _ID_RE.finditer(text[:300_000]) if P not in m.group(1)]
    ids, approvals = [], []
    for k, m in enumerate(found):
        ident = m.group(1)
        ids.append(ident)
        lo = found[k - 1].end() if k else 0
        hi = found[k + 1].start() if k + 1 < len(found) else len(text)
        if "approval" in text[lo:m.start()] or "approval" in text[m.end():hi]:
            approvals.append(ident)
    return ids[:2000], approvals


class Drive:
    """Draws the runs of the commands other than the base check and compile for one mutant:
    each driver says how a user would run its command on the mutant. ``full`` (the self-test)
    takes every variant of every driver instead of a sample."""

    def __init__(self, info: CliInfo, m: Mutant, seed: Seed, rng: random.Random, full: bool = False) -> None:
        self.info, self.m, self.seed, self.rng, self.full = info, m, seed, rng, full
        self.runs: list[dict[str, Any]] = []
        self.plan_dir = posixpath.dirname(m.plan_path())
        self.text = dec(m.data)

    # ----- helpers
    def chance(self, p: float) -> bool:
        return self.full or self.rng.random() < p

    def some(self, seq: list[str]) -> list[str]:
        """All of ``seq`` in full mode or now and then, else one of them."""
        if self.full or self.rng.random() < 0.1:
            return list(seq)
        return [self.rng.choice(seq)]

    def args(self, command: str) -> tuple[list[str], bool]:
        return self.info.filter_args(command, self.m.args)

    def kind(self, command: str, param: str, choice: str) -> str:
        return CHOICE_KINDS[(command, param)][choice]

    def add(self, name: str, argv: list[str], **kw: Any) -> str:
        full = f"{name}-fast"
        self.runs.append({"name": full, "cmd": argv[0], "path": "fast", "argv": argv, **kw})
        return full

    def hostile_arg(self) -> str:
        return self.rng.choice(STRINGS[:60]).replace("\x00", "")[:200]

    def seed_copy(self) -> str:
        return SEED_COPY + self.seed.ext

    def case_files(self) -> list[str]:
        """The case folder's regular files, relative to the plan's folder."""
        return [posixpath.relpath(f, self.plan_dir or ".") for f in self.seed.regular]


def _drive_check(d: Drive) -> None:
    # The base runs hold --format text and json on both YAML paths, github, sarif and stdin as
    # extras: here, now and then, any --format of the command's, so that one added later runs too.
    if not d.chance(0.1):
        return
    args, dropped = d.args("check")
    fmts = d.info.choices("check", "fmt")
    for fmt in (fmts if d.full else [d.rng.choice(fmts)]):
        d.add(f"check-fmt-{fmt}", ["check", "--format", fmt, *args, P_PLAN], stdout=d.kind("check", "fmt", fmt),
              args_dropped=dropped)


def _drive_compile(d: Drive) -> None:
    # compile -o DIR runs in the base runs; --html writes the page too
    if d.chance(0.2):
        args, dropped = d.args("compile")
        d.add("compile-html", ["compile", P_PLAN, "-o", P_OUT, "--html", *args], out=True, args_dropped=dropped)


def _drive_render(d: Drive) -> None:
    # render the JSON that compile wrote (base run compile-fast; compile-html-fast's for --html,
    # when it runs): to a file beside it (then it must be compile's Markdown, byte for byte), to
    # stdout, and as HTML (often: it runs only when compile wrote the JSON, about 4 mutants in 10)
    if not d.chance(0.7):
        return
    from compiler.compile.emit import JSON_NAME as json_name

    args, dropped = d.args("render")
    art = p_art("compile-fast", json_name)
    variants = ["file", "stdout", "html"]
    for v in (variants if d.full else [d.rng.choice(variants)]):
        if v == "file":
            d.add("render-md", ["render", art, "-o", p_out("rendered.md"), *args], out="empty",
                  outputs={p_out("rendered.md"): "markdown"}, needs=["compile-fast", [0, 1]], args_dropped=dropped,
                  reads=[P + "art/compile-fast"])
        elif v == "stdout":
            d.add("render-stdout", ["render", art, *args], stdout="markdown", needs=["compile-fast", [0, 1]],
                  args_dropped=dropped, reads=[P + "art/compile-fast"])
        else:
            src = "compile-html-fast" if any(r["name"] == "compile-html-fast" for r in d.runs) else "compile-fast"
            d.add("render-html", ["render", p_art(src, json_name), "--html", "-o", p_out("page.html"), *args],
                  out="empty", outputs={p_out("page.html"): "html"}, needs=[src, [0, 1]], args_dropped=dropped,
                  reads=[P + "art/" + src])


def _drive_diff(d: Drive) -> None:
    # diff SEED MUTANT and MUTANT SEED (a revision each way: both must agree on same/different),
    # MUTANT MUTANT (the same), and compile's JSON against the plan
    if not d.chance(0.35):
        return
    args, dropped = d.args("diff")
    seed = d.seed_copy()
    fmts = d.some(d.info.choices("diff", "fmt"))
    r = d.rng.random()
    shapes = (["sm", "ms", "mm", "am"] if d.full else ["sm", "ms"] if r < 0.4 else [d.rng.choice(["sm", "ms"])]
              if r < 0.65 else ["mm"] if r < 0.8 else ["am"])
    from compiler.compile.emit import JSON_NAME as json_name

    sides = {"sm": (seed, P_PLAN), "ms": (P_PLAN, seed), "mm": (P_PLAN, P_PLAN),
             "am": (p_art("compile-fast", json_name), P_PLAN)}
    for fmt in fmts:
        for shape in shapes:
            old, new = sides[shape]
            kw: dict[str, Any] = {"stdout": d.kind("diff", "fmt", fmt), "args_dropped": dropped}
            if seed in (old, new):
                kw["make"] = {seed: "seed"}
            if shape == "am":
                kw["needs"] = ["compile-fast", [0, 1]]
                kw["reads"] = [P + "art/compile-fast"]
            d.add(f"diff-{fmt}-{shape}", ["diff", "--format", fmt, *args, old, new], **kw)


def _drive_graph(d: Drive) -> None:
    if not d.chance(0.35):
        return
    args, dropped = d.args("graph")
    ext = {"mermaid": "mmd", "dot": "dot", "svg": "svg", "json": "json"}
    for fmt in d.some(d.info.choices("graph", "fmt")):
        kind = d.kind("graph", "fmt", fmt)
        to_file = d.rng.random() < 0.2
        if to_file or d.full:
            name = f"graph.{ext.get(fmt, fmt)}"
            d.add(f"graph-{fmt}-o", ["graph", P_PLAN, "--format", fmt, "-o", p_out(name), *args], out="empty",
                  outputs={p_out(name): kind}, args_dropped=dropped)
        if not to_file or d.full:
            d.add(f"graph-{fmt}", ["graph", P_PLAN, "--format", fmt, *args], stdout=kind, args_dropped=dropped)


def _drive_next(d: Drive) -> None:
    if not d.chance(0.3):
        return
    args, dropped = d.args("next")
    for fmt in d.some(d.info.choices("next", "fmt")):
        d.add(f"next-{fmt}", ["next", "--format", fmt, *args, P_PLAN], stdout=d.kind("next", "fmt", fmt),
              args_dropped=dropped)


def _drive_verify(d: Drive) -> None:
    # Always --dry-run: a mutant's proofs are nobody's to run (tests/api/test_verify.py runs real ones).
    if not d.chance(0.3):
        return
    args, dropped = d.args("verify")
    for fmt in d.some(d.info.choices("verify", "fmt")):
        d.add(f"verify-{fmt}", ["verify", "--dry-run", "--format", fmt, *args, P_PLAN],
              stdout=d.kind("verify", "fmt", fmt), args_dropped=dropped)


def _drive_ci(d: Drive) -> None:
    # ci github MUTANT -o -: the workflow on stdout, YAML that reads back; it writes and runs nothing
    if not d.chance(0.2):
        return
    args, dropped = d.args("ci github")
    d.add("ci-github", ["ci", "github", "-o", "-", *args, P_PLAN], stdout="yaml", args_dropped=dropped)


def _drive_convert(d: Drive) -> None:
    # convert MUTANT OUT into the plan's folder (as the README's examples do), then check OUT
    if not d.chance(0.3):
        return
    args, dropped = d.args("convert")
    check_args, check_dropped = d.args("check")
    exts = {"yaml": [".yaml", ".yml"], "json": [".json"], "md": [".md", ".markdown"]}
    for to in d.some(d.info.choices("convert", "to")):
        kind = d.kind("convert", "to", to)
        if not d.full and d.rng.random() < 0.2:
            d.add(f"convert-{to}-stdout", ["convert", *args, P_PLAN, "-", "--to", to], stdout=kind,
                  args_dropped=dropped)
            continue
        target = CONVERTED + d.rng.choice(exts.get(to, ["." + to]))
        if kind == "markdown":
            d.add(f"convert-{to}", ["convert", *args, P_PLAN, target], outputs={target: kind}, writes=[target],
                  cleanup=[target], args_dropped=dropped)
            continue
        conv = d.add(f"convert-{to}", ["convert", *args, P_PLAN, target], outputs={target: kind}, writes=[target],
                     args_dropped=dropped)
        d.add(f"convert-{to}-check", ["check", "--format", "json", *check_args, target], needs=[conv, [0]],
              stdout="json", cleanup=[target], args_dropped=dropped or check_dropped, recheck=conv)


def _drive_fix(d: Drive) -> None:
    # fix --dry-run (writes nothing), fix (writes the plan: restored after), then check the fixed plan
    if not d.chance(0.3):
        return
    args, dropped = d.args("fix")
    check_args, check_dropped = d.args("check")
    flags = (["--pin"] if d.rng.random() < 0.3 else []) + (["--to-symbols"] if d.rng.random() < 0.2 else [])
    r = d.rng.random()
    shapes = ["dry", "write"] if d.full or r < 0.3 else ["dry"] if r < 0.7 else ["write"]
    if "dry" in shapes:
        d.add("fix-dry", ["fix", "--dry-run", *flags, *args, P_PLAN], stdout="unified-diff", args_dropped=dropped)
    if "write" in shapes:
        fix = d.add("fix", ["fix", *flags, *args, P_PLAN], writes=[P_PLAN], keep_plan=True, args_dropped=dropped)
        d.add("fix-check", ["check", "--format", "json", *check_args, P_PLAN], needs=[fix, [0, 1]], stdout="json",
              args_dropped=dropped or check_dropped, recheck=fix)


def _drive_approve(d: Drive) -> None:
    # approve MUTANT ID --by NAME --at DATE for an approval of the mutant (else another id), then
    # check it; mostly on the mutants that have an approval (few seeds have one)
    ids, approvals = plan_ids(d.text)
    if not d.chance(0.8 if approvals else 0.25):
        return
    args, dropped = d.args("approve")
    check_args, check_dropped = d.args("check")
    if approvals and (d.full or d.rng.random() < 0.85):
        ident = d.rng.choice(approvals)
    elif ids and d.rng.random() < 0.5:
        ident = d.rng.choice(ids)
    else:
        ident = d.hostile_arg() or "x"
    by = "Fuzz Tester" if d.full or d.rng.random() < 0.8 else (d.hostile_arg() or "x")
    at = APPROVED_AT if d.full or d.rng.random() < 0.95 else d.rng.choice(["2026-12-01", "2026-13-01T00:00:00Z",
                                                                             "2026-12-01T00:00:00+99:00", "now"])
    approve = d.add("approve", ["approve", *args, "--by", by, "--at", at, "--", P_PLAN, ident], writes=[P_PLAN],
                    keep_plan=True, args_dropped=dropped, ident=ident)
    d.add("approve-check", ["check", "--format", "json", *check_args, P_PLAN], needs=[approve, [0]], stdout="json",
          args_dropped=dropped or check_dropped, recheck=approve)


def _drive_schema(d: Drive) -> None:
    if not d.chance(0.2):  # no input, and a millisecond: run often all the same
        return
    kinds = d.info.choices("schema", "kind")
    for kind in (kinds if d.full else [d.rng.choice(kinds)]):
        d.add(f"schema-{kind}", ["schema", kind], stdout=d.kind("schema", "kind", kind))


def _drive_symbols(d: Drive) -> None:
    # symbols of the plan itself, of a file of the case folder, or of the mutant's bytes saved as
    # Markdown, TOML, Python or text (the section and symbol finders on hostile bytes)
    if not d.chance(0.3):
        return
    fmts = d.info.choices("symbols", "fmt")
    files = d.case_files()
    variants = ["plan", "case", "copy"] if d.full else [d.rng.choice(["plan", "case", "copy", "copy"])]
    for v in variants:
        fmt = d.rng.choice(fmts)
        kw: dict[str, Any] = {"stdout": d.kind("symbols", "fmt", fmt)}
        if v == "case" and files:
            paths = d.rng.sample(files, min(len(files), d.rng.choice([1, 1, 2])))
        elif v == "copy" or (v == "case" and not files):
            copy_name = SYMBOLS_COPY + d.rng.choice([".md", ".toml", ".py", ".txt", ".markdown"])
            paths = [copy_name]
            kw["make"] = {copy_name: "data"}
        else:
            paths = [P_PLAN]
        root = ["--root", "."] if d.rng.random() < 0.2 else []
        d.add(f"symbols-{v}-{fmt}", ["symbols", "--format", fmt, *root, *paths], **kw)


def _drive_where(d: Drive) -> None:
    # where TEXT, TEXT taken from the mutant, searched in the case folder (the plan's folder is
    # the working folder: its git work tree is the case copy)
    if not d.chance(0.3):
        return
    lines = [ln.rstrip("\r") for ln in d.text.split("\n") if ln.strip()]
    r = d.rng.random()
    if not lines or (r < 0.04 and not d.full):
        text = d.rng.choice(["", " ", "a\nb", "\t"])
    else:
        line = d.rng.choice(lines)
        if r < 0.35 or d.full:
            text = line.strip()
        else:
            a = d.rng.randrange(len(line))
            text = line[a:a + d.rng.randint(1, 60)]
    text = text.replace("\x00", "")[:200]
    fmt = d.rng.choice(d.info.choices("where", "fmt"))
    r = d.rng.random()
    within = ["--in", P_PLAN] if r < 0.2 else ["--in", "."] if r < 0.3 else []
    limit = ["--max", "1"] if d.rng.random() < 0.1 else []
    d.add(f"where-{fmt}", ["where", "--format", fmt, *within, *limit, "--", text],
          stdout=d.kind("where", "fmt", fmt), text=text)


def _drive_explain(d: Drive) -> None:
    # explain a code, a rule name, or a word that names none (the did-you-mean on hostile words); no input file
    if not d.chance(0.1):
        return
    word = d.rng.choice(["EP201", "ep303", "missing-file", "dependancy-cycle", d.hostile_arg() or "x"])
    for fmt in d.some(d.info.choices("explain", "fmt")):
        d.add(f"explain-{fmt}", ["explain", "--format", fmt, "--", word], stdout=d.kind("explain", "fmt", fmt))


def _drive_init(d: Drive) -> None:
    # init in the case folder (the mutant is one of its files): a starter plan of what it holds,
    # which check finds ready
    if not d.chance(0.1):
        return
    init = d.add("init", ["init", "--root", ".", "-o", STARTER], writes=[STARTER], cleanup=[STARTER])
    d.add("init-check", ["check", "--format", "json", STARTER], needs=[init, [0]], stdout="json", cleanup=[STARTER],
          recheck=init)


def _drive_mcp(d: Drive) -> None:
    # the agent server, given a client's session on stdin (mcp_session): the mutant checked by path
    # and as text, fixed (written nowhere) and asked for its next items; JSON-RPC lines out
    if not d.chance(0.2):
        return
    d.add("mcp", ["mcp", "--root", "."], stdout="jsonl", mcp=True)


def _drive_lsp(d: Drive) -> None:
    # the editor server, given an editor's session on stdin (lsp_session): the mutant opened (so
    # checked) and every question of an editor asked of its first lines; framed JSON-RPC out
    if not d.chance(0.2):
        return
    d.add("lsp", ["lsp"], stdout="lsp", lsp=True)


LSP_ROOT = Path("/nonexistent-fuzz-root")  # where the session says the plan is: see lsp_session


def lsp_session(plan: str, data: bytes) -> bytes:
    """An editor's side of an LSP session on the plan ``plan``, whose bytes are ``data``
    (tests/support.py's lsp_session and lsp_questions write it). The session is written before the
    run's folder exists, and a document's URI is absolute: the plan is said to lie in LSP_ROOT,
    where nothing is, so its text (sent in the session) is read and checked, every question asked,
    and no evidence read (the root is not a folder: EP006)."""
    from support import lsp_questions
    from support import lsp_session as session

    text = data.decode("utf-8", "replace")  # a client sends text: bytes that are not UTF-8, replaced
    return session(LSP_ROOT, {LSP_ROOT / plan: text}, lsp_questions(LSP_ROOT / plan, text, lines=20))


def mcp_session(plan: str, data: bytes) -> bytes:
    """A client's side of an MCP session on the plan ``plan`` of the working folder, whose bytes
    are ``data`` (as tests/support.py's mcp_session writes one): initialize, then the calls."""
    text = data.decode("utf-8", "replace")  # a client sends text: bytes that are not UTF-8, replaced
    calls = [("check_plan", {"path": plan}), ("check_plan", {"text": text}), ("fix_plan", {"path": plan}),
             ("next_items", {"path": plan})]
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             *({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
               for n, (name, arguments) in enumerate(calls, 2))]
    return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")


def run_stdin(run: dict[str, Any], spec: dict[str, Any]) -> bytes:
    """What a run reads on stdin: the mutant (check -), an MCP session on it (mcp), or nothing."""
    if run.get("mcp"):
        return mcp_session(posixpath.basename(spec["plan_rel"]), spec["data"])
    if run.get("lsp"):
        return lsp_session(posixpath.basename(spec["plan_rel"]), spec["data"])
    return spec["data"] if run.get("stdin") else b""


DRIVERS: dict[str, Any] = {
    "approve": _drive_approve, "check": _drive_check, "ci": _drive_ci, "compile": _drive_compile,
    "convert": _drive_convert, "diff": _drive_diff, "explain": _drive_explain, "fix": _drive_fix,
    "graph": _drive_graph, "init": _drive_init, "lsp": _drive_lsp,
    "mcp": _drive_mcp, "next": _drive_next, "render": _drive_render,
    "schema": _drive_schema, "symbols": _drive_symbols, "verify": _drive_verify, "where": _drive_where,
}


def draw_drive(info: CliInfo, m: Mutant, seed: Seed, campaign_seed: int, full: bool = False) -> list[dict[str, Any]]:
    """The runs of every command beside the base runs, drawn from the campaign's seed and the
    mutant's index (their own random stream: the mutants stay those of the same seed before)."""
    rng = random.Random(f"evidence-plan-fuzz-drive:{campaign_seed}:{m.index}")
    d = Drive(info, m, seed, rng, full)
    for name in info.names:
        DRIVERS[name](d)  # in the group's order: render after compile-html, checks after their writer
    return d.runs


# --------------------------------------------------------------------------------------------
# workspace (shared by in-process workers and fresh-subprocess confirmation)
# --------------------------------------------------------------------------------------------

def build_workspace(spec: dict[str, Any], base: str) -> dict[str, str]:
    ws = os.path.join(base, f"m{spec['index']}-{os.getpid()}-{time.monotonic_ns() % 10**9}")
    repo = os.path.join(ws, "repo")
    if spec["template"]:
        shutil.copytree(spec["template"], repo, symlinks=True,
                        ignore=shutil.ignore_patterns("expected.txt", "args.txt", "__pycache__"))
    else:
        os.makedirs(repo)
    os.makedirs(os.path.join(repo, ".git"), exist_ok=True)
    plan = os.path.join(repo, spec["plan_rel"])
    os.makedirs(os.path.dirname(plan), exist_ok=True)
    if os.path.lexists(plan):
        os.remove(plan)
    with open(plan, "wb") as fh:
        fh.write(spec["data"])
    return {"ws": ws, "repo": repo, "plan": plan, "cwd": os.path.dirname(plan)}


def prepare_out(ws: dict[str, str], run: dict[str, Any], out_mode: str) -> str:
    out = os.path.join(ws["ws"], "out-" + run["name"])
    if os.path.exists(out):
        shutil.rmtree(out)
    if run.get("out") == "empty":  # a folder for the files a run is told to write (-o)
        os.makedirs(out)
    elif out_mode == "stale":
        os.makedirs(out)
        with open(os.path.join(out, JSON_NAME), "wb") as fh:
            fh.write(STALE_JSON)
        with open(os.path.join(out, MD_NAME), "wb") as fh:
            fh.write(STALE_MD)
    return out


def resolve(arg: str, ws: dict[str, str], out: str | None) -> str:
    """A run's argument with its placeholder (P_PLAN, P_OUT, p_out, p_art) replaced."""
    if not arg.startswith(P):
        return arg
    body = arg[1:]
    if body == "plan":
        return os.path.basename(ws["plan"])
    if body == "out":
        return out or ""
    if body.startswith("out/"):
        return os.path.join(out or "", body[4:])
    if body.startswith("art/"):
        return os.path.join(ws["ws"], "out-" + body[4:])  # art/RUN/NAME: NAME in RUN's output folder
    raise ValueError(f"unknown placeholder {arg!r}")


def argv_for(run: dict[str, Any], ws: dict[str, str], out: str | None) -> list[str]:
    return [resolve(a, ws, out) for a in run["argv"]]


def needs_met(run: dict[str, Any], exits: dict[str, Any]) -> bool:
    """Whether the run it needs ran and gave one of the exit codes it needs (render needs compile's JSON)."""
    need = run.get("needs")
    return not need or exits.get(need[0]) in need[1]


def pre_run(ws: dict[str, str], run: dict[str, Any], spec: dict[str, Any]) -> None:
    """The files a run needs made in the plan's folder (diff's seed copy, symbols' copies)."""
    for name, what in run.get("make", {}).items():
        with open(os.path.join(ws["cwd"], name), "wb") as fh:
            fh.write(spec["data"] if what == "data" else spec.get("seed_data", b""))


def _read_capped(path: str) -> bytes | None:
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > 8_000_000:
            return None
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def post_run(ws: dict[str, str], run: dict[str, Any], spec: dict[str, Any], res: dict[str, Any] | None,
             out: str | None) -> None:
    """After a run (res) or instead of it (skipped: None): its output files read into res, the
    plan as a writing run left it, then what it made removed and the plan put back as the mutant."""
    if res is not None:
        res["files"] = {key: _read_capped(os.path.join(ws["cwd"], resolve(key, ws, out)))
                        for key in run.get("outputs", {})}
        if P_PLAN in run.get("writes", []):
            after = _read_capped(ws["plan"])
            res["plan_changed"] = after != spec["data"]
            res["plan_after"] = after if after != spec["data"] else None
    cleanup(ws, run, spec)


def cleanup(ws: dict[str, str], run: dict[str, Any], spec: dict[str, Any]) -> None:
    for name in [*run.get("make", {}), *run.get("cleanup", [])]:
        path = os.path.join(ws["cwd"], name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.remove(path)
    if not run.get("keep_plan"):
        restore_plan(ws, spec)


def restore_plan(ws: dict[str, str], spec: dict[str, Any]) -> None:
    """The plan as the mutant, after a run that rewrote it (fix, approve) and its check."""
    plan = ws["plan"]
    if os.path.isfile(plan) and not os.path.islink(plan) and _read_capped(plan) == spec["data"]:
        return
    if os.path.isdir(plan) and not os.path.islink(plan):
        shutil.rmtree(plan)
    elif os.path.lexists(plan):
        os.remove(plan)
    with open(plan, "wb") as fh:
        fh.write(spec["data"])


def allowed_writes(ws: dict[str, str], run: dict[str, Any], out: str | None) -> list[str]:
    """The files a run is told to write, besides its output folder (fix and approve: the plan;
    convert: OUT), as absolute paths."""
    return [os.path.realpath(os.path.join(ws["cwd"], resolve(w, ws, out))) for w in run.get("writes", [])]


def snapshot(folder: str) -> dict[str, tuple[int, int]]:
    snap = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for n in filenames + dirnames:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
                snap[os.path.relpath(p, folder)] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
    return snap


def read_out(out: str) -> dict[str, Any] | None:
    if not os.path.isdir(out):
        return None if not os.path.exists(out) else {"<not a folder>": b""}
    files: dict[str, Any] = {}
    for n in sorted(os.listdir(out)):
        p = os.path.join(out, n)
        if os.path.isfile(p):
            size = os.path.getsize(p)
            if size <= 8_000_000:
                with open(p, "rb") as fh:
                    files[n] = fh.read()
            else:
                files[n] = ("big", size)
        else:
            files[n] = ("dir", 0)
    return files


def _current_rss_kb() -> int:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# Peak RSS, from the kernel's high-water mark of this process's memory (VmHWM), which a run can
# reset (clear_refs 5). Not ru_maxrss: Linux starts a process's at its parent's high-water mark
# (taken over at fork and exec), so every worker and fresh child started after the campaign's own
# process passed 500 MB would report that, and no run's own peak.
def _hwm_reset() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _hwm_kb() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            m = re.search(r"VmHWM:\s+(\d+)", fh.read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


# --------------------------------------------------------------------------------------------
# in-process worker
# --------------------------------------------------------------------------------------------

def _send(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    data = struct.pack(">Q", len(data)) + data
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _read_exact(fd: int, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


class Sampler:
    """The main thread's stack, sampled once a run passes the slow threshold. Python-level (it takes
    the GIL), so it is safe, unlike faulthandler's asynchronous dump (which is kept for hangs only,
    just before the watchdog kills the worker: it crashed a worker once, mid-run)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.cond = threading.Condition()
        self.deadline: float | None = None
        self.text = ""
        self.gen = 0
        self.main = threading.get_ident()
        threading.Thread(target=self._loop, daemon=True).start()

    def arm(self, delay: float) -> None:
        with self.cond:
            self.deadline = time.monotonic() + delay
            self.text = ""
            self.gen += 1
            self.cond.notify()

    def disarm(self) -> str:
        with self.cond:
            self.deadline = None
            self.cond.notify()
            return self.text

    def _loop(self) -> None:
        while True:
            with self.cond:
                while self.deadline is None:
                    self.cond.wait()
                left = self.deadline - time.monotonic()
                if left > 0:
                    self.cond.wait(left)
                    continue
                gen = self.gen
                self.deadline = None
            frame = sys._current_frames().get(self.main)
            text = ""
            if frame is not None:
                frames = list(traceback.walk_stack(frame))[::-1]  # outermost first, no source lines read
                text = "Traceback (sampled at the slow threshold):\n" + "".join(
                    f'  File "{f.f_code.co_filename}", line {n}, in {f.f_code.co_name}\n' for f, n in frames)
            with self.cond:
                if gen == self.gen:
                    self.text = text
            try:
                with open(self.path, "w", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError:
                pass


def worker_main(workdir: str, slow: float, timeout: float = 20.0) -> None:
    """Runs mutants in-process; requests on fd 0, answers on (a dup of) fd 1."""
    import resource

    req = os.dup(0)
    resp = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    try:  # bound the damage of a runaway input; a MemoryError is then an exit 3 (a finding)
        if not os.environ.get("EPFUZZ_X_NORLIMIT"):
            resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    except (ValueError, OSError):
        pass
    os.makedirs(workdir, exist_ok=True)
    fault_path = os.path.join(workdir, "fault.txt")
    fault = open(fault_path, "w+")
    sampler = Sampler(os.path.join(workdir, "sample.txt"))
    hang_dump = max(slow, timeout - 1.5)
    if not os.environ.get("EPFUZZ_X_NOAUDIT"):
        sys.addaudithook(AUDIT.hook)
    import compiler.load.fastyaml as fastyaml
    from compiler.cli import main as cli_main

    original_parse = fastyaml.parse

    def no_fast(*a: Any, **k: Any) -> None:
        return None

    # warm up: import everything both paths use, outside any measured run
    try:
        import ruamel.yaml  # noqa: F401

        import compiler.compile.pipeline  # noqa: F401
    except Exception:  # noqa: BLE001 - warm-up only: the measured runs report any import failure themselves
        pass
    limit = sys.getrecursionlimit()
    int_digits = sys.get_int_max_str_digits()
    environ = dict(os.environ)
    _send(resp, ("ready", os.getpid()))
    while True:
        head = _read_exact(req, 8)
        if head is None:
            return
        body = _read_exact(req, struct.unpack(">Q", head)[0])
        if body is None:
            return
        spec = pickle.loads(body)
        if spec == "exit":
            return
        ws = build_workspace(spec, workdir)
        exits: dict[str, Any] = {}
        for i, run in enumerate(spec["runs"]):
            if not needs_met(run, exits):
                cleanup(ws, run, spec)
                _send(resp, ("skip", i))
                continue
            _send(resp, ("start", i))
            res = _run_inprocess(cli_main, fastyaml, original_parse, no_fast, run, ws, spec, fault, fault_path, slow,
                                 sampler, hang_dump)
            exits[run["name"]] = res["exit"]
            if res["exit"] == 3:  # the traceback, for the bucket signature
                restore_plan(ws, spec)
                _send(resp, ("debug", i))
                dbg = _run_inprocess(cli_main, fastyaml, original_parse, no_fast,
                                     dict(run, argv=["--debug", *run["argv"]], name=run["name"] + "-debug"),
                                     ws, spec, fault, fault_path, slow, sampler, hang_dump)
                res["debug_stderr"] = dbg["stderr"][-20000:]
            sys.setrecursionlimit(limit)
            sys.set_int_max_str_digits(int_digits)
            if os.environ != environ:
                res["env_changed"] = True
                os.environ.clear()
                os.environ.update(environ)
            _send(resp, ("done", i, res))
        shutil.rmtree(ws["ws"], ignore_errors=True)
        _send(resp, ("end",))


def _run_inprocess(cli_main: Any, fastyaml: Any, original_parse: Any, no_fast: Any, run: dict[str, Any],
                   ws: dict[str, str], spec: dict[str, Any], fault: Any, fault_path: str, slow: float,
                   sampler: Sampler, hang_dump: float) -> dict[str, Any]:
    import faulthandler

    out = prepare_out(ws, run, spec["out_mode"]) if run.get("out") else None
    argv = argv_for(run, ws, out)
    pre_run(ws, run, spec)
    before = snapshot(ws["repo"])
    out_buf, err_buf = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out_buf, encoding="utf-8", errors="surrogateescape", newline="\n", write_through=True)
    stderr = io.TextIOWrapper(err_buf, encoding="utf-8", errors="backslashreplace", newline="\n", write_through=True)
    stdin = io.TextIOWrapper(io.BytesIO(run_stdin(run, spec)), encoding="utf-8", errors="surrogateescape")
    saved = sys.stdout, sys.stderr, sys.stdin
    fastyaml.parse = no_fast if run["path"] == "ref" else original_parse
    fault.seek(0)
    fault.truncate()
    hwm = _hwm_reset()
    rss_before = _current_rss_kb()
    os.chdir(ws["cwd"])
    escaped = None
    code: Any = None
    AUDIT.events = []
    faulthandler.dump_traceback_later(hang_dump, repeat=False, file=fault)
    sampler.arm(slow)
    t0 = time.perf_counter()
    c0 = time.process_time()
    sys.stdout, sys.stderr, sys.stdin = stdout, stderr, stdin
    AUDIT.active = True
    prof = None
    if os.environ.get("EPFUZZ_PROFILE"):  # harness debugging: profile each run
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    try:
        code = cli_main(argv)
    except SystemExit as exc:
        escaped = f"SystemExit({exc.code!r})"
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001
        escaped = "".join(traceback.format_exception(exc))[-5000:]
    finally:
        AUDIT.active = False
        sys.stdout, sys.stderr, sys.stdin = saved
        if prof is not None:
            prof.disable()
            prof.dump_stats(os.environ["EPFUZZ_PROFILE"] + f".{run['name']}")
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    faulthandler.cancel_dump_traceback_later()
    sample = sampler.disarm()
    fastyaml.parse = original_parse
    os.chdir("/")
    flush_error = None
    for stream in (stdout, stderr):
        try:
            stream.flush()
        except Exception as exc:  # noqa: BLE001
            flush_error = repr(exc)
    rss_after = _current_rss_kb()
    peak = _hwm_kb() if hwm else None  # the whole worker's peak during the run (imports and harness too)
    dump = sample[-20000:]
    res = {
        "name": run["name"], "cmd": run.get("cmd"), "argv": argv, "exit": code, "stdout": out_buf.getvalue(),
        "stderr": err_buf.getvalue(),
        "time": dt, "cpu": cpu, "rss_kb": peak if peak is not None else rss_after if rss_after > rss_before else 0,
        "rss_max_kb": peak if peak is not None else rss_after,
        "escaped": escaped, "flush_error": flush_error, "audit": AUDIT.events, "fault": dump,
        "repo_changed": _diff_snap(before, snapshot(ws["repo"])), "out_files": read_out(out) if out else None,
        "out": out, "ws": ws, "allow_write": allowed_writes(ws, run, out),
        "allow_read": [os.path.realpath(resolve(r, ws, out)) for r in run.get("reads", [])],
    }
    post_run(ws, run, spec, res, out)
    return res


def _diff_snap(a: dict[str, tuple[int, int]], b: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[:20]


class WorkerHandle:
    def __init__(self, wid: int, base: str, slow: float, log: Any) -> None:
        self.wid = wid
        self.dir = os.path.join(base, f"w{wid}")
        self.slow = slow
        self.timeout = 20.0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = log
        self.done = 0
        self.buf = bytearray()  # grown in place: a run's output of hundreds of MB is not copied per chunk

    def start(self) -> None:
        os.makedirs(self.dir, exist_ok=True)
        errlog = open(os.path.join(self.dir, "worker-stderr.log"), "ab")
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", self.dir,
                                      str(self.slow), str(self.timeout)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, env=env,
                                     start_new_session=True, bufsize=0)
        errlog.close()
        self.buf = bytearray()  # grown in place: a run's output of hundreds of MB is not copied per chunk
        self.done = 0
        msg = self._recv(60)
        if not (isinstance(msg, tuple) and msg[0] == "ready"):
            raise RuntimeError(f"worker {self.wid} did not start: {msg!r}")

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
            self.proc = None

    def _recv(self, timeout: float) -> Any:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 8:
                n = struct.unpack(">Q", self.buf[:8])[0]
                if len(self.buf) >= 8 + n:
                    obj = pickle.loads(self.buf[8:8 + n])  # a copy: no export holds the buffer
                    del self.buf[:8 + n]
                    return obj
            left = deadline - time.monotonic()
            if left <= 0:
                return "TIMEOUT"
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return "EOF"
                self.buf += chunk

    def run(self, spec: dict[str, Any], timeout: float) -> tuple[list[dict[str, Any] | None], str]:
        if self.proc is not None and timeout != self.timeout:
            self.stop()  # the worker dumps its stack just before this timeout
        self.timeout = timeout
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        data = pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(struct.pack(">Q", len(data)) + data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return [None] * len(spec["runs"]), "crash"
        results: list[dict[str, Any] | None] = [None] * len(spec["runs"])
        current = -1
        in_debug = False
        status = "ok"
        t_start = time.monotonic()
        while True:
            msg = self._recv(timeout if current >= 0 else 60)
            if msg == "TIMEOUT" and in_debug:  # the --debug re-run of an exit 3 hung: keep the result
                self.stop()
                status = "debug-hang"
                break
            if msg == "TIMEOUT" or msg == "EOF":
                rc = None
                if msg == "EOF":
                    assert self.proc is not None
                    rc = self.proc.wait()
                self.stop()
                fault = ""
                for dump in ("fault.txt", "sample.txt"):
                    try:
                        with open(os.path.join(self.dir, dump), encoding="utf-8", errors="replace") as fh:
                            fault = fh.read()[:20000]
                    except OSError:
                        pass
                    if fault.strip():
                        break
                if msg == "EOF" and time.monotonic() - t_start >= timeout - 2 and not in_debug:
                    msg = "TIMEOUT"  # died in faulthandler's dump just before the watchdog: a hang
                if current >= 0:
                    run = spec["runs"][current]
                    results[current] = {"name": run["name"], "cmd": run.get("cmd"), "argv": run["argv"], "exit": None,
                                        "hang": msg == "TIMEOUT", "crash_rc": rc, "time": time.monotonic() - t_start,
                                        "stdout": b"", "stderr": b"", "fault": fault, "audit": [], "rss_kb": 0}
                status = "hang" if msg == "TIMEOUT" else "crash"
                break
            if msg[0] == "skip":  # what it needs did not give what it needs (render: compile's JSON)
                continue
            if msg[0] == "start":
                current = msg[1]
                in_debug = False
                t_start = time.monotonic()
            elif msg[0] == "debug":
                in_debug = True
            elif msg[0] == "done":
                results[msg[1]] = msg[2]
                # a single run over the timeout counts as a hang even if it finished in 2x
                if msg[2]["time"] > timeout:
                    msg[2]["hang"] = True
            elif msg[0] == "end":
                break
        self.done += 1
        rss = max((r.get("rss_max_kb", 0) for r in results if r), default=0)
        if status == "ok" and (rss > 1_500_000 or self.done >= 1500):
            self.stop()  # fresh worker: per-run RSS stays measurable, leaks stay bounded
        return results, status


# --------------------------------------------------------------------------------------------
# fresh subprocess runner (confirmation) and the child bootstrap
# --------------------------------------------------------------------------------------------

def child_main(argv: list[str]) -> None:
    """``campaign.py --child PATH AUDIT_FILE -- ARGS``: one CLI invocation in a fresh process."""
    mode, audit_file = argv[0], argv[1]
    args = argv[3:]
    sys.addaudithook(AUDIT.hook)
    import compiler.load.fastyaml as fastyaml
    from compiler.cli import main as cli_main

    if mode == "ref":
        fastyaml.parse = lambda *a, **k: None
    AUDIT.active = True
    code = 3
    try:
        code = cli_main(args)
    finally:
        AUDIT.active = False
        with open(audit_file, "w", encoding="utf-8", errors="surrogateescape") as fh:
            json.dump({"events": AUDIT.events, "vmhwm_kb": _hwm_kb()}, fh)
    sys.exit(code)


def run_fresh(spec: dict[str, Any], base: str, timeout: float,
              only: set[str] | None = None) -> list[dict[str, Any] | None]:
    ws = build_workspace(spec, base)
    results: list[dict[str, Any] | None] = []
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
    if only is not None:  # and the runs they need
        only = {r["name"] for r in runs_closure(spec["runs"], only)}
    exits: dict[str, Any] = {}
    for run in spec["runs"]:
        if (only is not None and run["name"] not in only) or not needs_met(run, exits):
            cleanup(ws, run, spec)
            results.append(None)
            continue
        out = prepare_out(ws, run, spec["out_mode"]) if run.get("out") else None
        argv = argv_for(run, ws, out)
        pre_run(ws, run, spec)
        before = snapshot(ws["repo"])
        audit_file = os.path.join(ws["ws"], f"audit-{run['name']}.json")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", run["path"], audit_file, "--", *argv]
        t0 = time.perf_counter()
        with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe, tempfile.TemporaryFile() as fi:
            fi.write(run_stdin(run, spec))
            fi.seek(0)
            p = subprocess.Popen(cmd, cwd=ws["cwd"], stdin=fi, stdout=fo, stderr=fe, env=env, start_new_session=True)
            hang = False
            rusage = None
            status = 0
            while True:
                pid, status, rusage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - t0 > timeout:
                    hang = True
                    os.killpg(p.pid, signal.SIGKILL)
                    pid, status, rusage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.005)
            p.returncode = os.waitstatus_to_exitcode(status)
            dt = time.perf_counter() - t0
            fo.seek(0)
            fe.seek(0)
            stdout, stderr = fo.read(), fe.read()
        events: list[Any] = []
        peak = 0  # unknown when the child left no audit file (killed): not its ru_maxrss (see _hwm_reset)
        try:
            with open(audit_file, encoding="utf-8", errors="surrogateescape") as fh:
                told = json.load(fh)
            events = [tuple(e) for e in told["events"]]
            peak = told.get("vmhwm_kb") or 0
        except (OSError, ValueError, KeyError, TypeError):
            pass
        code = None if hang else p.returncode
        exits[run["name"]] = code
        entry: dict[str, Any] = {
            "name": run["name"], "cmd": run.get("cmd"), "argv": argv, "exit": code, "stdout": stdout,
            "stderr": stderr, "time": dt,
            "cpu": (rusage.ru_utime + rusage.ru_stime) if rusage else dt, "rss_kb": peak,
            "escaped": None, "audit": events, "fault": "",
            "hang": hang, "repo_changed": _diff_snap(before, snapshot(ws["repo"])),
            "out_files": read_out(out) if out else None, "out": out, "ws": ws, "fresh": True,
            "allow_write": allowed_writes(ws, run, out),
            "allow_read": [os.path.realpath(resolve(r, ws, out)) for r in run.get("reads", [])],
        }
        post_run(ws, run, spec, entry, out)
        results.append(entry)
        if code == 3:
            restore_plan(ws, spec)
            pre_run(ws, run, spec)
            dbg = subprocess.run([sys.executable, "-m", "compiler", "--debug", *argv], cwd=ws["cwd"],
                                 capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL, check=False)
            cleanup(ws, run, spec)
            entry["debug_stderr"] = dbg.stderr[-20000:]
    shutil.rmtree(ws["ws"], ignore_errors=True)
    return results


# --------------------------------------------------------------------------------------------
# verdicts
# --------------------------------------------------------------------------------------------

def _allowed_roots() -> tuple[list[str], list[str]]:
    import site
    import sysconfig

    py = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages(),
          sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"], sysconfig.get_paths()["purelib"]}
    import compiler

    py.add(os.path.dirname(compiler.__file__))
    read = [os.path.realpath(p) for p in py if p] + [str(REPO / "templates"), str(REPO / "schemas"),
                                                       str(REPO / "compiler")]
    ALLOWED_LIST[:] = sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)})
    special = ["/dev/null", "/dev/urandom", "/etc/localtime", "/usr/share/zoneinfo", "/usr/lib/locale",
               "/proc/self/maps"]
    return sorted(set(read)), special


# filled in main()
ALLOWED_READ: list[str] = []
ALLOWED_SPECIAL: list[str] = []
ALLOWED_LIST: list[str] = []
CODES: dict[str, Any] = {}
INPUT_CODES: set[str] = set()
_TB = re.compile(rb"Traceback \(most recent call last\)")
_PYWARN = re.compile(rb"^\S+:\d+: \w*Warning: ", re.M)
_DIAG_CODE = re.compile(r" (?:error|warning) (EP\d{3}) ")
_BAD_TEXT = [
    ("text-esc", re.compile("\x1b")), ("text-cr", re.compile("\r")),
    ("text-control", re.compile("[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")),
    ("text-c1", re.compile("[\x80-\x9f]")), ("text-linesep", re.compile("[\u2028\u2029]")),
    ("text-bidi", re.compile("[\u202a-\u202e\u2066-\u2069\u061c\u200e\u200f]")),
    ("text-surrogate", re.compile("[\ud800-\udfff]")),
]


def known_code(code: Any) -> bool:
    """A code of compiler/core/codes.py; read again when unknown (others add codes while the campaign runs)."""
    if code in CODES:
        return True
    import importlib

    import compiler.core.codes

    CODES.update(importlib.reload(compiler.core.codes).CODES)
    INPUT_CODES.update(c for c, v in CODES.items() if v.input_error)
    return code in CODES


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


class Finding:
    __slots__ = ("detail", "kind", "run", "sig")

    def __init__(self, kind: str, sig: str, detail: str, run: str = "") -> None:
        self.kind, self.sig, self.detail, self.run = kind, sig, detail, run


def _norm(text: str, res: dict[str, Any]) -> str:
    ws = (res.get("ws") or {}).get("ws")
    return text.replace(ws, "$WS") if ws else text


def _line_class(line: str, last: str) -> str:
    m = _DIAG_CODE.search(line)
    if m:
        return m.group(1)
    s = line.strip()
    if s.startswith(("note:",)) or " note: " in line[:400]:
        return f"{last}-note"
    if s.startswith("hint:"):
        return f"{last}-hint"
    if re.match(r"^\s+\d*\s*\|", line):
        return f"{last}-excerpt"
    if s.startswith("wrote "):
        return "wrote"
    if ": ready:" in line or ": blocked:" in line:
        return "summary"
    if s.startswith("wave ") or s.startswith("... "):
        return "wave"
    if re.match(r"^\d+ plans?: ", line):
        return "check-summary"
    if "internal error" in line or "This is a bug" in line:
        return "internal-error"
    return "other"


# GitHub Actions' runner: "::" after .NET white space at a line start, "##[" anywhere; the guard's
# U+2060 (compiler/core/cilog.py) is allowed inside those two and nowhere else.
_BLANK = "\t\x0b\x0c \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_NEUTRALISED = re.compile(f"^([{_BLANK}]*:)\u2060(?=:)|##\u2060(?=\\[)")
_GH_COMMAND = re.compile(f"[{_BLANK}]*::")


def gh_commands(line: str) -> list[str]:
    """The kinds of workflow command a line is, or holds, for the runner: none, one or both."""
    found = ["text-gh-command"] if _GH_COMMAND.match(line) else []
    return [*found, "text-gh-legacy-command"] if "##[" in line else found


def text_findings(data: bytes, cmd: str, stream: str, res: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        out.append(Finding("text-not-utf8", f"text-not-utf8:{cmd}:{stream}", f"{err}"))
        text = data.decode("utf-8", "surrogateescape")
    seen: set[str] = set()
    last = "none"
    for line in text.split("\n"):  # (a raw "\r", which starts a line for the runner too, is text-cr)
        cls = _line_class(line, last)
        if re.match(r"EP\d{3}$", cls):
            last = cls
        checks = gh_commands(line)
        if "\u2060" in _NEUTRALISED.sub("", line):
            checks.append("text-invisible")
        if len(line) > 2000:
            checks.append("text-long-line")
        for kind, pat in _BAD_TEXT:
            if pat.search(line):
                checks.append(kind)
        for kind in checks:
            sig = f"{kind}:{cmd}:{cls}"
            if sig not in seen:
                seen.add(sig)
                out.append(Finding(kind, sig, f"{stream}: {_norm(line[:300], res)!r} (len {len(line)})"))
    return out


def _frame_sig(text: str) -> str:
    """The innermost frame in compiler/ (or else any) of a traceback or faulthandler dump."""
    frames = re.findall(r'File "([^"]+)", line (\d+)(?:, in | in )(\S+)', text)
    if not frames:
        return "?"
    # tracebacks list innermost last; faulthandler dumps list it first
    order = frames if "Traceback" in text else list(reversed(frames))
    pick = None
    for f, _, fn in order:
        if "/compiler/" in f:
            pick = (f, fn)
    if pick is None:
        for f, _, fn in order:
            if "campaign.py" not in f and "/click/" not in f:
                pick = (f, fn)
    if pick is None:
        pick = (order[-1][0], order[-1][2])
    f, fn = pick
    return f"{Path(f).parent.name}/{Path(f).name}:{fn}"


def _diags(res: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    if not res or res.get("exit") not in (0, 1, 2):
        return None
    try:
        d = json.loads(res["stdout"].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return d if isinstance(d, list) else None


def _key(d: dict[str, Any]) -> tuple[str, int | None]:
    loc = d.get("location") or {}
    return (d.get("code", "?"), loc.get("line"))


def _keycol(d: dict[str, Any]) -> tuple[str, int | None, int | None]:
    loc = d.get("location") or {}
    return (d.get("code", "?"), loc.get("line"), loc.get("column"))


def _artifact(res: dict[str, Any] | None) -> dict[str, Any] | None:
    if not res or not res.get("out_files"):
        return None
    raw = res["out_files"].get(JSON_NAME)
    if not isinstance(raw, bytes) or raw == STALE_JSON:
        return None
    try:
        doc: dict[str, Any] | None = json.loads(raw.decode("utf-8"))
        return doc
    except (ValueError, UnicodeDecodeError):
        return None


def features(data: bytes) -> list[str]:
    t = dec(data)
    f = []
    for name, pat in (("u2028", "\u2028"), ("u2029", "\u2029"), ("u0085", "\u0085"), ("cr", "\r"), ("tab", "\t"),
                      ("nul", "\x00"), ("esc", "\x1b"), ("bidi", "\u202e")):
        if pat in t:
            f.append(name)
    if "\ufeff" in (t[1:] if t.startswith("\ufeff") else t):
        f.append("bom-inner")
    if re.search(r"0x[0-9a-fA-F_]{1000,}", t):
        f.append("huge-hex")
    if re.search(r"\d{4000,}", t):
        f.append("huge-dec")
    if re.search(r"\\[uU]0*[dD][89a-fA-F][0-9a-fA-F]{2}", t):
        f.append("surrogate-escape")
    if re.search(r"(?m)^\s*root\s*:", t) or '"root"' in t:
        f.append("root")
    if re.search(r"[&*][A-Za-z0-9_]", t):
        f.append("alias")
    if "!!" in t or re.search(r"(?m)(?:^|\s)![A-Za-z<]", t):
        f.append("tag")
    if "<<" in t:
        f.append("merge")
    if "%YAML" in t:
        f.append("directive")
    return f


SEP_FEATURES = {"u2028", "u2029", "u0085", "bom-inner"}


def analyse(spec: dict[str, Any], results: list[dict[str, Any] | None], status: str, slow: float) -> list[Finding]:
    found: list[Finding] = []
    feats = features(spec["data"])
    sep_tag = "sep" if SEP_FEATURES & set(feats) else "nosep"
    by = {r["name"]: r for r in results if r}
    runs_by_name = {r["name"]: r for r in spec["runs"]}

    def add(kind: str, sig: str, detail: str, run: str = "") -> None:
        found.append(Finding(kind, sig, detail, run))

    for res in results:
        if res is None:
            continue
        name = res["name"]
        cmd = res.get("cmd") or name.split("-")[0]
        run_spec = runs_by_name.get(name, {})
        code = res.get("exit")
        if res.get("hang"):
            add("hang", f"hang:{_frame_sig(res.get('fault', '')).split(':')[0]}",
                f"{name}: no answer after {res['time']:.1f}s [at {_frame_sig(res.get('fault', ''))}]", name)
            continue
        if res.get("crash_rc") is not None or (code is None and not res.get("escaped")):
            add("crash", f"crash:rc={res.get('crash_rc')}:{_frame_sig(res.get('fault', ''))}", f"{name}: worker died",
                name)
            continue
        if res.get("escaped"):
            first = res["escaped"].strip().splitlines()[-1][:80] if res["escaped"].strip() else "?"
            add("escaped", f"escaped:{first.split(':')[0]}:{_frame_sig(res['escaped'])}", f"{name}: {first}", name)
        if code == 3:
            dbg = res.get("debug_stderr", b"").decode("utf-8", "replace")
            last = [ln for ln in dbg.strip().splitlines() if re.match(r"^[A-Za-z_.]+(Error|Exception|Warning)?\b", ln)
                    and not ln.startswith(("Traceback", "This is", "evidence-plan"))]
            msg = res["stderr"].decode("utf-8", "replace").strip().splitlines()
            m = re.search(r"internal error: ([\w.]+): ?(.*)", msg[0] if msg else "")
            exc = m.group(1) if m else (last[-1].split(":")[0] if last else "?")
            # the bucket: exception type and message shape (values out), not the frame (it varies)
            shape = re.sub(r"'[^']*'|\"[^\"]*\"|\d+|0x[0-9a-f]+", "_", m.group(2))[:60] if m else ""
            add("exit3", f"exit3:{exc}:{shape}", f"{name}: {msg[0][:300] if msg else ''} [at {_frame_sig(dbg)}]", name)
        elif code not in (0, 1, 2):
            add("bad-exit", f"bad-exit:{code}", f"{name}: exit {code}", name)
        for stream in ("stdout", "stderr"):
            if _TB.search(res.get(stream, b"")):
                add("traceback", f"traceback:{cmd}:{stream}", f"{name}", name)
        wm = _PYWARN.search(res.get("stderr", b""))
        if wm:
            add("python-warning", "python-warning", f"{name}: {res['stderr'][wm.start():wm.start() + 200]!r}", name)
        if res.get("flush_error"):
            add("flush-error", "flush-error", f"{name}: {res['flush_error']}", name)
        if res.get("env_changed"):
            add("env-changed", "env-changed", name, name)
        if res["time"] > slow and res.get("cpu", res["time"]) > slow * 0.8 and not res.get("fresh"):
            add("slow", f"slow:{_frame_sig(res.get('fault', '')).split(':')[0]}",
                f"{name}: {res['time']:.1f}s wall, {res.get('cpu', 0):.1f}s CPU "
                f"[at {_frame_sig(res.get('fault', ''))}]", name)
        if res.get("rss_kb", 0) > MEMORY_LIMIT_KB and (res.get("fresh") or res.get("rss_kb")):
            add("memory", "memory", f"{name}: peak RSS {res['rss_kb'] // 1024} MB", name)
        # text outputs (text format only: json, github and sarif carry their own escaping); the
        # drive's runs say what they print (judge_output, in drive_run_findings)
        if "stdout" not in run_spec and ("text" in name or cmd == "compile"):
            found.extend(Finding(f.kind, f.sig, f"{name}: {f.detail}", name)
                         for f in text_findings(res["stdout"], cmd, "stdout", res))
        found.extend(Finding(f.kind, f.sig, f"{name}: {f.detail}", name)
                     for f in text_findings(res["stderr"], cmd, "stderr", res))
        # audit
        ws = res.get("ws") or {}
        repo = os.path.realpath(ws["repo"]) if ws.get("repo") else None
        out = os.path.realpath(res["out"]) if res.get("out") else None
        told = res.get("allow_write", [])  # fix, approve: the plan; convert: OUT
        also_read = res.get("allow_read", [])  # render: compile's output folder
        seen_audit: set[str] = set()
        for ev in res.get("audit", []):
            event, a, r, write = ev[0], ev[1], ev[2], ev[3]
            kind = None
            if event in ("open-fd",):
                continue
            if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                         "os.forkpty", "pty.spawn", "os.kill", "os.killpg"):
                kind = "exec"
            elif event == "socket.__new__" and a.startswith(f"family={socket.AF_UNIX} "):
                continue  # a local socket pair, no network: the event loop's wake-up (asyncio, under mcp's SDK)
            elif event.startswith(("socket.", "urllib", "http.", "webbrowser")):
                kind = "network"
            elif event == "os.chdir":
                kind = "chdir"
            elif write:
                ok = out is not None and (_inside(r, [out]) or _inside(a, [out]))
                if "/__pycache__/" in a and _inside(r, ALLOWED_READ):
                    ok = True
                if told and (r in told or _is_temporary_of(r, told)):
                    ok = True
                if not ok:
                    kind = "write-outside-out"
            else:
                if event != "open" and r in ALLOWED_LIST:
                    continue  # the import system lists sys.path folders
                if not (repo and (_inside(r, [repo]) or _inside(a, [repo]))) and not (out and _inside(r, [out])) \
                        and not _inside(r, ALLOWED_READ) and not any(r.startswith(s) for s in ALLOWED_SPECIAL) \
                        and not _inside(r, also_read):
                    kind = "read-outside-repo" if event == "open" else "list-outside-repo"
            if kind:
                shown = _norm(f"{event} {a}" + (f" -> {r}" if r and r != a else ""), res)
                sig = f"{kind}:{cmd}" + (f":{event}" if kind in ("exec", "network") else "")
                if sig not in seen_audit:
                    seen_audit.add(sig)
                    add(kind, sig, f"{name}: {shown[:300]}", name)
        changed = res.get("repo_changed") or []
        if changed and repo and told:  # what the run was told to write may change (and its folder), nothing else
            folders = {os.path.dirname(t) for t in told}
            changed = [c for c in changed if os.path.realpath(os.path.join(repo, c)) not in (*told, *folders)]
        if changed:
            add("repo-modified", f"repo-modified:{cmd}", f"{name}: {changed[:5]}", name)
        # compile artifacts
        if cmd == "compile" and code in (0, 1, 2):
            files = res.get("out_files")
            if code == 2:
                if spec["out_mode"] == "stale":
                    if files != {JSON_NAME: STALE_JSON, MD_NAME: STALE_MD}:
                        add("compile-exit2-touched", "compile-exit2-touched",
                            f"{name}: out folder after exit 2: {sorted(files or {})}", name)
                elif files:
                    add("compile-exit2-wrote", "compile-exit2-wrote",
                        f"{name}: out folder after exit 2: {sorted(files)}", name)
            else:
                names = sorted(files or {})
                expected = sorted([JSON_NAME, MD_NAME, *([HTML_NAME] if "--html" in res["argv"] else [])])
                if names != expected:
                    extra = sorted(set(names) - set(expected))
                    kind = "compile-leftover" if extra else "compile-missing-artifact"
                    add(kind, kind, f"{name}: out folder: {names[:10]}", name)
                raw = (files or {}).get(JSON_NAME)
                md = (files or {}).get(MD_NAME)
                if raw == STALE_JSON or md == STALE_MD:
                    add("compile-stale-artifact", "compile-stale-artifact",
                        f"{name}: exit {code} kept a stale artifact", name)
                elif isinstance(raw, bytes):
                    found.extend(Finding(f.kind, f.sig, f"{name}: {f.detail}", name)
                                 for f in artifact_findings(raw, md, code))
                if res["stdout"].strip():
                    add("compile-stdout", "compile-stdout",
                        f"{name}: compile wrote to stdout: {res['stdout'][:100]!r}", name)
        # check json outputs
        if name.startswith("check-json") and code in (0, 1, 2):
            d = _diags(res)
            if d is None:
                add("check-json-invalid", "check-json-invalid",
                    f"{name}: stdout is not a JSON list: {res['stdout'][:120]!r}", name)
            else:
                errs = [x for x in d if x.get("severity") == "error"]
                inputs = [x for x in d if x.get("code") in INPUT_CODES]
                expect = 2 if inputs else 1 if errs else 0
                if expect != code:
                    add("check-exit-vs-diags", f"check-exit-vs-diags:exit={code},expected={expect}",
                        f"{name}: codes {[x.get('code') for x in d][:10]}", name)
                for x in d:
                    loc = x.get("location") or {}
                    for k in ("line", "column"):
                        v = loc.get(k)
                        if v is not None and (not isinstance(v, int) or v < 1):
                            add("diag-bad-location", f"diag-bad-location:{x.get('code')}", f"{name}: {loc}", name)
                    if not known_code(x.get("code")):
                        add("diag-unknown-code", "diag-unknown-code", f"{name}: {x.get('code')}", name)
        if name.startswith("check-github") and code in (0, 1, 2):
            lines = res["stdout"].decode("utf-8", "replace").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            bad = [ln for ln in lines if not re.match(r"^::(error|warning) ", ln)]
            d = _diags(by.get("check-json-fast"))
            if bad:
                add("github-format", "github-format:line-not-a-command", f"{name}: {bad[0][:200]!r}", name)
            elif d is not None and by.get("check-json-fast", {}).get("exit") == code and len(d) != len(lines):
                add("github-format", "github-format:count", f"{name}: {len(lines)} lines for {len(d)} diagnostics",
                    name)
        if name.startswith("check-sarif") and code in (0, 1, 2):
            try:
                doc = json.loads(res["stdout"].decode("utf-8"))
                n_results = len(doc["runs"][0]["results"])
                d = _diags(by.get("check-json-fast"))
                if d is not None and n_results != len(d):
                    add("sarif-format", "sarif-format:count", f"{name}: {n_results} results for {len(d)} diagnostics",
                        name)
            except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
                add("sarif-format", "sarif-format:invalid", f"{name}: {exc!r}", name)
        found.extend(drive_run_findings(spec, res, run_spec))
    found.extend(drive_cross_findings(spec, by, runs_by_name))

    # agreement between commands of one path
    for p in ("fast", "ref"):
        for suffix in ("", "nv-"):
            trio = [by.get(f"check-text-{p}") if not suffix else None, by.get(f"check-json-{suffix}{p}"),
                    by.get(f"compile-{suffix}{p}")]
            codes = [r["exit"] for r in trio if r and r.get("exit") in (0, 1, 2)]
            if len(set(codes)) > 1:
                names = [f"{r['name']}={r['exit']}" for r in trio if r and r.get("exit") in (0, 1, 2)]
                ek = ("check=" + str(trio[1]["exit"] if trio[1] else "?")
                      + ",compile=" + str(trio[2]["exit"] if trio[2] else "?"))
                add("cmd-exit-disagree", f"cmd-exit-disagree:{ek}:{sep_tag}", f"{p}: {', '.join(names)}")
            cj, cc = trio[1], trio[2]
            art = _artifact(cc)
            d = _diags(cj)
            if art is not None and d is not None and cj and cc and cj["exit"] == cc["exit"]:
                a = sorted(map(_keycol, art.get("issues", [])), key=repr)
                b = sorted(map(_keycol, d), key=repr)
                if a != b:
                    diff = sorted(set(map(repr, a)) ^ set(map(repr, b)))[:4]
                    add("check-compile-diag-disagree", "check-compile-diag-disagree", f"{p}{suffix}: {diff}")
    # agreement between the two YAML paths
    for suffix in ("", "nv-"):
        fj, rj = by.get(f"check-json-{suffix}fast"), by.get(f"check-json-{suffix}ref")
        if not (fj and rj) or fj.get("exit") not in (0, 1, 2) or rj.get("exit") not in (0, 1, 2):
            continue
        df, dr = _diags(fj) or [], _diags(rj) or []
        cf = df[0]["code"] if df else "-"
        cr = dr[0]["code"] if dr else "-"
        if fj["exit"] != rj["exit"]:
            add("path-exit-disagree", f"path-exit-disagree:fast={fj['exit']}({cf}),ref={rj['exit']}({cr}):{sep_tag}",
                f"fast {[_keycol(x) for x in df][:5]} ref {[_keycol(x) for x in dr][:5]}")
            continue
        kf, kr = sorted(map(_key, df), key=repr), sorted(map(_key, dr), key=repr)
        if kf != kr:
            cf2 = collections.Counter(x[0] for x in kf)
            cr2 = collections.Counter(x[0] for x in kr)
            only_f = sorted((cf2 - cr2).keys())
            only_r = sorted((cr2 - cf2).keys())
            what = f"{','.join(only_f) or 'lines'}/{','.join(only_r) or 'lines'}"
            add("path-diag-disagree", f"path-diag-disagree:{what}:{sep_tag}",
                f"fast-only {sorted(set(map(repr, kf)) - set(map(repr, kr)))[:4]} "
                f"ref-only {sorted(set(map(repr, kr)) - set(map(repr, kf)))[:4]}")
            continue
        if sorted(map(_keycol, df), key=repr) != sorted(map(_keycol, dr), key=repr):
            add("path-column-disagree", f"path-column-disagree:{sep_tag}",
                f"fast {[_keycol(x) for x in df][:4]} ref {[_keycol(x) for x in dr][:4]}")
            continue
        if [x.get("message") for x in df] != [x.get("message") for x in dr]:
            # same length: the sorted keys of df and dr compared equal above
            diffs = [(a.get("code"), a.get("message", "")[:120], b.get("message", "")[:120])
                     for a, b in zip(df, dr, strict=True) if a.get("message") != b.get("message")]
            add("path-message-disagree", f"path-message-disagree:{diffs[0][0] if diffs else '?'}:{sep_tag}",
                f"{diffs[:2]}")
        cf_, cr_ = by.get(f"compile-{suffix}fast"), by.get(f"compile-{suffix}ref")
        if cf_ and cr_ and cf_.get("exit") in (0, 1) and cf_.get("exit") == cr_.get("exit"):
            for n in (JSON_NAME, MD_NAME):
                fa, ra = (cf_.get("out_files") or {}).get(n), (cr_.get("out_files") or {}).get(n)
                if fa != ra:
                    add("path-artifact-differ", f"path-artifact-differ:{n}:{sep_tag}", _first_diff(fa, ra))
                    break
    # determinism
    c1, c2 = by.get("compile-fast"), by.get("compile-det-fast")
    if c1 and c2 and c1.get("exit") in (0, 1) and c2.get("exit") == c1.get("exit"):
        for n in (JSON_NAME, MD_NAME):
            if (c1.get("out_files") or {}).get(n) != (c2.get("out_files") or {}).get(n):
                add("nondeterministic", f"nondeterministic:{n}",
                    _first_diff((c1["out_files"] or {}).get(n), (c2["out_files"] or {}).get(n)))
    # stdin
    st, fj = by.get("check-json-stdin-fast"), by.get("check-json-fast")
    if st and fj and st.get("exit") in (0, 1, 2) and fj.get("exit") in (0, 1, 2):
        lead = dec(spec["data"]).lstrip().lstrip("\ufeff").lstrip()[:1]
        if lead not in ("{", "["):
            if st["exit"] != fj["exit"]:
                add("stdin-disagree", f"stdin-disagree:file={fj['exit']},stdin={st['exit']}", "")
            elif sorted(map(_key, _diags(st) or [])) != sorted(map(_key, _diags(fj) or [])):
                add("stdin-disagree", "stdin-disagree:diagnostics", "")
    return found


def _first_diff(a: Any, b: Any) -> str:
    if not isinstance(a, bytes) or not isinstance(b, bytes):
        return f"{type(a).__name__} vs {type(b).__name__}"
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"first difference at byte {i}: {a[max(0, i - 60):i + 60]!r} vs {b[max(0, i - 60):i + 60]!r}"


_MD_BAD = [("md-raw-esc", "\x1b"), ("md-raw-cr", "\r"), ("md-raw-nul", "\x00"), ("md-raw-linesep", "\u2028"),
           ("md-raw-linesep", "\u2029"), ("md-raw-nel", "\u0085"), ("md-raw-bidi", "\u202e")]


def artifact_findings(raw: bytes, md: Any, code: int) -> list[Finding]:
    out: list[Finding] = []

    def add(kind: str, sig: str, detail: str) -> None:
        out.append(Finding(kind, sig, detail))

    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (ValueError, UnicodeDecodeError) as exc:
        add("artifact-json-invalid", "artifact-json-invalid", repr(exc)[:200])
        return out
    if not raw.endswith(b"\n"):
        add("artifact-invariant", "artifact-invariant:no-trailing-newline", "")
    if not isinstance(doc, dict):
        add("artifact-invariant", "artifact-invariant:not-an-object", "")
        return out
    status = doc.get("status")
    if (status == "ready") != (code == 0) or status not in ("ready", "blocked"):
        add("artifact-status-exit", f"artifact-status-exit:{status},exit={code}", "")
    issues = doc.get("issues", [])
    items = doc.get("items", [])
    errors = [i for i in issues if i.get("severity") == "error"]
    summary = doc.get("summary", {})
    if status == "ready" and errors:
        add("artifact-invariant", "artifact-invariant:ready-with-errors", str([i.get("code") for i in errors][:5]))
    if status == "blocked" and not errors:
        add("artifact-invariant", "artifact-invariant:blocked-without-errors", "")
    if status == "blocked" and (doc.get("waves") or doc.get("critical_path")):
        add("artifact-invariant", "artifact-invariant:blocked-with-waves", "")
    if status == "blocked" and any(isinstance(i, dict) and "wave" in i for i in items):
        add("artifact-invariant", "artifact-invariant:blocked-item-wave", "")
    if status == "ready":
        ids_in_waves = [x for w in doc.get("waves", []) for x in w]
        # a dropped item leaves the graph: "wave": null (README, "Output" and "Progress")
        dropped = [i for i in items if isinstance(i, dict) and i.get("status") == "dropped"]
        live = [i for i in items if not (isinstance(i, dict) and i.get("status") == "dropped")]
        if any(not isinstance(i, dict) or not isinstance(i.get("wave"), int) or i["wave"] < 1 for i in live):
            add("artifact-invariant", "artifact-invariant:ready-item-without-wave", "")
        if any(i.get("wave") is not None for i in dropped):
            add("artifact-invariant", "artifact-invariant:dropped-item-with-wave", "")
        if sorted(map(str, ids_in_waves)) != sorted(str(i.get("id")) for i in live if isinstance(i, dict)):
            add("artifact-invariant", "artifact-invariant:waves-vs-items", "")
        for w in doc.get("waves", []):
            if w != sorted(w):
                add("artifact-invariant", "artifact-invariant:wave-not-sorted", str(w[:5]))
    if summary.get("errors") != len(errors) or summary.get("warnings") != len(issues) - len(errors):
        add("artifact-invariant", "artifact-invariant:summary-counts",
            f"{summary} vs {len(errors)} errors of {len(issues)}")
    if summary.get("items") != len(items):
        add("artifact-invariant", "artifact-invariant:summary-items", f"{summary.get('items')} vs {len(items)}")
    for k in ("source", "root"):
        v = doc.get(k)
        if isinstance(v, str) and (v.startswith("/") or re.match(r"^[A-Za-z]:", v)):
            add("artifact-invariant", f"artifact-invariant:absolute-{k}", v[:200])
    for i in issues:
        if not known_code(i.get("code")):
            add("artifact-invariant", "artifact-invariant:unknown-code", str(i.get("code")))
        loc = i.get("location") or {}
        for k in ("line", "column"):
            v = loc.get(k)
            if v is not None and (not isinstance(v, int) or v < 1):
                add("artifact-invariant", f"artifact-invariant:bad-location-{i.get('code')}", str(loc))
    if not isinstance(md, bytes):
        return out
    return out + md_findings(md)


def md_findings(md: bytes) -> list[Finding]:
    """A Markdown text's invariants (compile's artifact, render's, convert's, diff --format markdown)."""
    out: list[Finding] = []

    def add(kind: str, sig: str, detail: str) -> None:
        out.append(Finding(kind, sig, detail))

    try:
        mdt = md.decode("utf-8")
    except UnicodeDecodeError:
        add("md-invalid", "md-not-utf8", "")
        return out
    if not mdt.endswith("\n"):
        add("md-invalid", "md-no-trailing-newline", "")
    for kind, ch in _MD_BAD:
        if ch in mdt:
            p = mdt.index(ch)
            add(kind, kind, repr(mdt[max(0, p - 80):p + 40]))
    # Code is shown as code: fenced blocks (indented too, as in a list item, and closed by a fence
    # at least as long) and code spans are not prose.
    fences = re.sub(r"(?ms)^[ \t]*(`{3,}).*?^[ \t]*\1`*[ \t]*$", "", mdt)
    prose = re.sub(r"(`+)(?:(?!\1).)*?\1", "", fences)
    if re.search(r"(?<!\\)\]\(\s*(?:javascript|vbscript|data):", prose, re.I):
        add("md-js-link", "md-js-link", "")
    in_mermaid = False
    for line in mdt.split("\n"):
        if line.startswith("```"):
            in_mermaid = line.strip() == "```mermaid"
            continue
        if in_mermaid and line.lstrip().startswith("%%{"):
            add("md-mermaid-directive", "md-mermaid-directive", line[:200])
            break
    m = re.search(r"<(script|iframe|img|svg|a|style|object|embed)\b|<[^>\n]*\bon\w+\s*=", prose, re.I)
    if m:
        add("md-html", f"md-raw-html:{m.group(1) or 'on*='}", repr(prose[max(0, m.start() - 80):m.start() + 60]))
    return out


# --------------------------------------------------------------------------------------------
# verdicts of the drive's runs: each output by its kind, and agreements between commands
# --------------------------------------------------------------------------------------------

def _is_temporary_of(path: str, targets: list[str]) -> bool:
    """compiler/core/write.py's temporary file or backup of one of ``targets`` (.NAME.PID.XXXX.tmp|bak, beside it)."""
    folder, name = os.path.split(path)
    for t in targets:
        tf, tn = os.path.split(t)
        if tf == folder and re.fullmatch(rf"\.{re.escape(tn)}\.[0-9]+\.[^/]+\.(?:tmp|bak)", name):
            return True
    return False


_GH_LINE = {"github-error": re.compile(r"^::(error|warning) "), "github-notice": re.compile(r"^::notice ")}
_MARKUP_BAD = [
    ("script", re.compile(r"<script\b", re.I)), ("event-handler", re.compile(r"<[^>]*\son[a-z]+\s*=", re.I)),
    ("javascript-url", re.compile(r"(?:href|src|xlink:href)\s*=\s*[\"']?\s*(?:javascript|vbscript|data):", re.I)),
    ("network", re.compile(r"(?:href|src)\s*=\s*[\"']?\s*(?:https?:)?//|url\(\s*[\"']?\s*(?:https?:)?//|@import",
                           re.I)),
    ("embed", re.compile(r"<(?:iframe|object|embed|link|meta\s+http-equiv|base)\b", re.I)),
]


def judge_output(kind: str, data: bytes, cmd: str, where: str, res: dict[str, Any], valid: bool) -> list[Finding]:
    """An output's invariants by its kind (CHOICE_KINDS says which). ``valid``: the run succeeded,
    so the output must also parse as its format (a JSON, an SVG...)."""
    out: list[Finding] = []
    name = res["name"]

    def add(k: str, sig: str, detail: str) -> None:
        out.append(Finding(k, sig, f"{name}: {where}: {detail}", name))

    def text(long_ok: bool, data: bytes = data) -> None:
        for f in text_findings(data, cmd, where, res):
            if not (long_ok and f.kind == "text-long-line"):
                out.append(Finding(f.kind, f.sig, f"{name}: {f.detail}", name))

    def gh_lines(t: str) -> None:  # any output may reach a CI log: no line of it may be a workflow command
        for line in t.split("\n"):
            found = gh_commands(line)
            if found:
                add(found[0], f"{found[0]}:{cmd}:{kind}", repr(_norm(line[:200], res)))
                break

    if kind == "text":
        text(False)
        return out
    if kind == "text-whole":
        text(True)
        return out
    if kind == "unified-diff":  # fix --dry-run: a CRLF plan's lines keep their CR before the LF (redraws nothing)
        text(True, data.replace(b"\r\n", b"\n"))
        return out
    t = data.decode("utf-8", "surrogateescape")
    if kind in _GH_LINE:
        lines = t.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        bad = [ln for ln in lines if not _GH_LINE[kind].match(ln)]
        if bad:
            add("github-format", f"github-format:{cmd}:line-not-a-{kind}", repr(_norm(bad[0][:200], res)))
        return out
    gh_lines(t)
    if kind == "lsp":  # lsp: framed JSON-RPC messages (Content-Length), each body JSON
        try:
            while data:
                header, _, rest = data.partition(b"\r\n\r\n")
                length = int(dict(ln.split(b": ", 1) for ln in header.split(b"\r\n"))[b"Content-Length"])
                json.loads(rest[:length], parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                data = rest[length:]
        except (ValueError, KeyError) as exc:
            add("lsp-invalid", f"lsp-invalid:{cmd}", repr(exc)[:200])
        return out
    if kind == "jsonl":  # mcp: a JSON-RPC message a line, each line ending at \n
        for line in t.split("\n")[:-1]:
            try:
                json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError as exc:
                add("jsonl-invalid", f"jsonl-invalid:{cmd}", repr(exc)[:200])
                break
        return out
    if kind in ("json", "sarif"):
        if valid or data.strip():
            try:
                doc = json.loads(data.decode("utf-8"), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                if kind == "sarif" and not isinstance(doc["runs"][0]["results"], list):
                    raise ValueError("runs[0].results is no list")
            except (ValueError, UnicodeDecodeError, KeyError, IndexError, TypeError) as exc:
                add(f"{kind}-invalid", f"{kind}-invalid:{cmd}", repr(exc)[:200])
        return out
    if kind == "yaml":
        if valid:
            import yaml

            try:
                yaml.load(t, Loader=yaml.CSafeLoader)
            except Exception as exc:  # noqa: BLE001 - any error of the reader: the output is no YAML
                add("yaml-invalid", f"yaml-invalid:{cmd}", repr(exc)[:200])
        return out
    if kind == "markdown":
        if valid or data:
            out.extend(Finding(f.kind, f"{f.sig}:{cmd}", f"{name}: {where}: {f.detail}", name)
                       for f in md_findings(data))
        return out
    if kind in ("mermaid", "dot"):
        text(False)
        for line in t.split("\n"):
            if line.lstrip().startswith("%%{"):
                add("mermaid-directive", f"mermaid-directive:{cmd}:{kind}", repr(line[:200]))
                break
        return out
    if kind in ("svg", "html"):
        for k, pat in _BAD_TEXT:
            if k == "text-cr":
                continue
            m = pat.search(t)
            if m:
                add(f"markup-{k[5:]}", f"markup-{k[5:]}:{cmd}:{kind}", repr(t[max(0, m.start() - 80):m.start() + 40]))
        for k, pat in _MARKUP_BAD:
            m = pat.search(t)
            if m:
                add(f"markup-{k}", f"markup-{k}:{cmd}:{kind}", repr(t[max(0, m.start() - 80):m.start() + 80]))
        if kind == "svg" and valid and data:
            import xml.etree.ElementTree as ET

            try:
                ET.fromstring(data)
            except ET.ParseError as exc:
                add("svg-invalid", f"svg-invalid:{cmd}", repr(exc)[:200])
        return out
    raise ValueError(f"no verdict for output kind {kind!r}")


def drive_run_findings(spec: dict[str, Any], res: dict[str, Any], run: dict[str, Any]) -> list[Finding]:
    """One run's verdicts beyond the group's (exit code, traceback, time, memory, audit): the
    command's own exit codes, and its outputs by their kind."""
    out: list[Finding] = []
    name, code = res["name"], res.get("exit")
    cmd = run.get("cmd") or name.split("-")[0]
    if code not in (0, 1, 2):
        return out
    allowed = EXITS.get(cmd)
    if allowed is not None and code not in allowed:
        out.append(Finding("bad-exit-for-command", f"bad-exit-for-command:{cmd}={code}",
                           f"{name}: exit {code}, its help says {sorted(allowed)}", name))
    if run.get("stdout"):
        out.extend(judge_output(run["stdout"], res["stdout"], cmd, "stdout", res, code == 0))
    for key, kind in run.get("outputs", {}).items():
        data = (res.get("files") or {}).get(key)
        if data is None:
            if code == 0:
                out.append(Finding("output-missing", f"output-missing:{cmd}", f"{name}: exit 0 and no {key!r}", name))
            continue
        out.extend(judge_output(kind, data, cmd, "file", res, code == 0))
    if cmd == "compile" and "--html" in res["argv"] and code in (0, 1):
        page = (res.get("out_files") or {}).get(HTML_NAME)
        if isinstance(page, bytes):
            out.extend(judge_output("html", page, cmd, HTML_NAME, res, True))
    # fix writes its repairs even when problems remain (exit 1); approve writes nothing unless it recorded
    if ((cmd == "fix" and code == 2) or (cmd == "approve" and code in (1, 2))) and res.get("plan_changed"):
        out.append(Finding(f"{cmd}-wrote-on-failure", f"{cmd}-wrote-on-failure:exit={code}",
                           f"{name}: exit {code} and the plan was rewritten", name))
    if cmd == "schema" and code == 0:
        try:
            if not isinstance(json.loads(res["stdout"]), dict):
                raise ValueError("not an object")
        except ValueError as exc:
            out.append(Finding("schema-invalid", "schema-invalid", f"{name}: {exc!r}"[:200], name))
    if cmd == "symbols" and code == 0 and run.get("stdout") == "json":
        try:
            rows = json.loads(res["stdout"])
            for row in rows:
                first, last = (int(x) for x in row["lines"].split("-"))
                if not 1 <= first <= last:
                    raise ValueError(f"lines {row['lines']} of {row['evidence']!r}"[:200])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            out.append(Finding("symbols-json", "symbols-json:bad-row", f"{name}: {exc!r}"[:300], name))
    if cmd == "where" and code in (0, 1):
        out.extend(_where_findings(spec, res, run))
    return out


def _where_findings(spec: dict[str, Any], res: dict[str, Any], run: dict[str, Any]) -> list[Finding]:
    """where TEXT, TEXT from a line of the plan: found there (the plan is in the repository it
    searches), and each hit of the plan on a line that holds it. Only for a plan that is UTF-8
    text without NUL (a binary file is searched as a whole, not by line)."""
    out: list[Finding] = []
    text, name = run.get("text", ""), res["name"]
    data = spec["data"]
    if b"\x00" in data or not text.strip() or "\n" in text or "\r" in text or "\ufffd" in text:
        return out
    try:
        plan = data.decode("utf-8")
    except UnicodeDecodeError:
        return out
    plan = plan[1:] if plan.startswith("\ufeff") else plan
    lines = plan.split("\n")
    if not any(text in ln for ln in lines):
        return out
    if res["exit"] != 0:
        out.append(Finding("where-missed", "where-missed", f"{name}: {text[:100]!r} is on a line of the plan, "
                           f"where said exit {res['exit']}", name))
    if run.get("stdout") == "json" and res["exit"] == 0:
        try:
            rows = json.loads(res["stdout"])
        except ValueError:
            return out
        rel = posixpath.normpath(spec["plan_rel"])
        for row in rows:
            if isinstance(row, dict) and row.get("path") == rel:
                n = row.get("line")
                if not isinstance(n, int) or not 1 <= n <= len(lines) or text not in lines[n - 1]:
                    out.append(Finding("where-wrong-line", "where-wrong-line", f"{name}: {row.get('reference')!r} "
                                       f"does not hold {text[:100]!r}", name))
                    break
    return out


def drive_cross_findings(spec: dict[str, Any], by: dict[str, dict[str, Any]],
                         runs: dict[str, dict[str, Any]]) -> list[Finding]:
    """What commands run on one mutant must agree on (each only where its runs succeeded and got
    the same options: a run that left out one of the mutant's options is not compared)."""
    out: list[Finding] = []

    def add(kind: str, sig: str, detail: str, run: str = "") -> None:
        out.append(Finding(kind, sig, detail, run))

    def ok(name: str, *codes: int) -> dict[str, Any] | None:
        r = by.get(name)
        return r if r is not None and r.get("exit") in codes and not runs.get(name, {}).get("args_dropped") else None

    compiled = ok("compile-fast", 0, 1, 2)
    checked = ok("check-json-fast", 0, 1, 2)
    # render: compile's JSON rendered beside it is compile's Markdown; as HTML, compile --html's page
    r = ok("render-md-fast", 0)
    c = ok("compile-fast", 0, 1)
    if r and c:
        got, want = (r.get("files") or {}).get(p_out("rendered.md")), (c.get("out_files") or {}).get(MD_NAME)
        if got != want:
            add("render-differs", "render-differs:markdown", _first_diff(got, want), "render-md-fast")
    r, c = ok("render-html-fast", 0), ok("compile-html-fast", 0, 1)
    if r and c and P + "art/compile-html-fast" in runs["render-html-fast"].get("reads", []):
        got, want = (r.get("files") or {}).get(p_out("page.html")), (c.get("out_files") or {}).get(HTML_NAME)
        if got != want:
            add("render-differs", "render-differs:html", _first_diff(got, want), "render-html-fast")
    for name in sorted(by):
        res = ok(name, 0, 1, 2)
        if res is None:
            continue
        cmd, code = res.get("cmd"), res["exit"]
        # graph: exit 2 exactly when compile's is (a blocked plan is drawn)
        if cmd == "graph" and compiled and (code == 2) != (compiled["exit"] == 2):
            add("graph-compile-disagree", f"graph-compile-disagree:graph={code},compile={compiled['exit']}",
                f"{name}", f"{name},compile-fast")
        # next: checked as check checks it (exit 2 with it); blocked exactly when compile says so
        if cmd == "next":
            if checked and (code == 2) != (checked["exit"] == 2):
                add("next-check-disagree", f"next-check-disagree:next={code},check={checked['exit']}", name,
                    f"{name},check-json-fast")
            elif compiled and code in (0, 1) and compiled["exit"] in (0, 1) and code != compiled["exit"]:
                add("next-compile-disagree", f"next-compile-disagree:next={code},compile={compiled['exit']}", name,
                    f"{name},compile-fast")
            if runs[name].get("stdout") == "json" and code in (0, 1):
                try:
                    doc = json.loads(res["stdout"])
                    if (doc["status"] == "blocked") != (code == 1) or (code == 1 and doc["next"]):
                        add("next-json", f"next-json:status={doc['status']},exit={code}", name, name)
                except (ValueError, KeyError, TypeError):
                    pass  # judged by judge_output
        if cmd == "diff":
            shape = name.rsplit("-", 2)[-2]
            if shape == "mm" and code == 1:
                add("diff-self-differs", "diff-self-differs", f"{name}: a plan against itself is different", name)
            if shape == "sm":
                other = ok(name.replace("-sm-", "-ms-"), 0, 1, 2)
                if other and other["exit"] != code:
                    add("diff-asymmetric", f"diff-asymmetric:old-new={code},new-old={other['exit']}", name,
                        f"{name},{other['name']}")
            if runs[name].get("stdout") == "json" and code in (0, 1):
                try:
                    if json.loads(res["stdout"])["same"] != (code == 0):
                        add("diff-json", "diff-json:same-vs-exit", name, name)
                except (ValueError, KeyError, TypeError):
                    pass
            if runs[name].get("stdout") == "markdown" and len(res["stdout"].decode("utf-8", "replace")) > 65_536:
                add("diff-markdown-too-long", "diff-markdown-too-long",
                    f"{name}: {len(res['stdout'])} bytes (a pull-request comment takes 65,536 characters)", name)
        # the check after a command that wrote the plan (fix, approve) or a new one (convert)
        wrote = runs[name].get("recheck")
        if wrote:
            w = by.get(wrote)
            diags = _diags(res) or []
            errors = [x.get("code") for x in diags if x.get("severity") == "error"]
            wcmd = w.get("cmd") if w else "?"
            # (only for a plan check could read: a repository's settings that check refuses, EP009, are
            # refused for OUT too, and convert does not read them)
            if w and w.get("exit") in (0, 1) and code == 2 and checked and checked["exit"] in (0, 1):
                add(f"{wcmd}-output-unreadable", f"{wcmd}-output-unreadable:{sorted(set(errors))[:3]}",
                    f"{name}: {wcmd} exit {w.get('exit')}, then check exit 2: {errors[:5]}", name)
            elif w and w.get("exit") == 0 and wcmd in ("fix", "approve", "init") and errors:
                add(f"{wcmd}-ready-then-blocked", f"{wcmd}-ready-then-blocked:{sorted(set(errors))[:3]}",
                    f"{name}: {wcmd} exit 0, then check reports errors {errors[:5]}", name)
            if wcmd == "approve" and w and w.get("exit") == 0:
                ident = runs[wrote].get("ident")
                stale = [x for x in diags if x.get("code") == "EP111" and x.get("item") == ident]
                if stale:
                    add("approve-then-stale", "approve-then-stale", f"{name}: {stale[0].get('message', '')[:200]}",
                        name)
            if wcmd == "convert" and w and w.get("exit") == 0 and checked and checked["exit"] == 0 and code != 0:
                add("convert-changed-status", f"convert-changed-status:check={code}",
                    f"{name}: the plan is ready, its conversion is not: {errors[:5]}", f"{name},check-json-fast")
    # fix --dry-run says what fix writes
    dry, fix = ok("fix-dry-fast", 0, 1, 2), ok("fix-fast", 0, 1, 2)
    if dry and fix:
        if dry["exit"] != fix["exit"]:
            add("fix-dryrun-disagree", f"fix-dryrun-disagree:dry={dry['exit']},fix={fix['exit']}", "",
                "fix-dry-fast,fix-fast")
        elif bool(dry["stdout"].strip()) != bool(fix.get("plan_changed")):
            add("fix-dryrun-disagree", "fix-dryrun-disagree:diff-vs-write",
                f"dry-run printed {len(dry['stdout'])} bytes, fix {'changed' if fix.get('plan_changed') else 'kept'}"
                " the plan", "fix-dry-fast,fix-fast")
    return out


# --------------------------------------------------------------------------------------------
# known issues (others are fixing them): labels only, for the summary
# --------------------------------------------------------------------------------------------

def known_label(sig: str, feats: set[str], ops: set[str]) -> str | None:
    kind = sig.split(":")[0]
    if kind in ("text-gh-command", "text-esc", "text-cr", "text-control", "text-c1", "text-linesep", "text-bidi"):
        return "known: text-output injection (newlines/ESC in ids or messages)"
    if kind == "exit3" and "huge-hex" in feats:
        return "known: huge hex ints give exit 3"
    if kind.startswith("path-") and sig.endswith(":sep"):
        return "known: U+2028/U+2029/U+0085/inner BOM disagreements between the YAML paths"
    if kind in ("read-outside-repo", "list-outside-repo") and "root" in feats:
        return "known: root: escaping the repository"
    if kind in ("slow", "hang") and re.search(r"symbol|heading|suggest|close|mean|difflib|_near", sig, re.I):
        return "known?: slow symbol/heading lookups or quadratic did-you-mean"
    return None


# --------------------------------------------------------------------------------------------
# campaign driver
# --------------------------------------------------------------------------------------------

def git_head() -> str:
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip()


def _bucket_dir(sig: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._=,()-]+", "_", sig)[:90]
    return f"{safe}-{hashlib.sha1(sig.encode()).hexdigest()[:6]}"


def _spec(m: Mutant) -> dict[str, Any]:
    d = m.to_dict()
    d["data"] = m.data
    d["runs"] = run_specs(d)
    if any("seed" in r.get("make", {}).values() for r in d["runs"]):
        d["seed_data"] = m.seed_data
    return d


class Campaign:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "findings").mkdir(exist_ok=True)
        self.lock = threading.RLock()
        self.logf = open(self.out / "log.txt", "a", encoding="utf-8")
        self.mutf = open(self.out / "mutants.jsonl", "w", encoding="utf-8")
        self.buckets: dict[str, dict[str, Any]] = {}
        self.exit_counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.command_exits: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.skipped: collections.Counter[str] = collections.Counter()  # runs whose needed run failed
        self.peak_rss: tuple[int, int, str] = (0, -1, "")  # KB, mutant, run
        self.cpu: collections.Counter[str] = collections.Counter()  # CPU seconds of the runs, by command
        self.cpu_base = 0.0  # of the base runs (check and compile, as before the drive): the drive's cost is the rest
        self.kind_counts: collections.Counter[str] = collections.Counter()
        self.runs = 0
        self.mutants = 0
        self.slowest: list[tuple[float, int, str, str, float]] = []
        self.hangs = 0
        self.tracebacks = 0
        self.seed_counts: collections.Counter[str] = collections.Counter()
        self.op_counts: collections.Counter[str] = collections.Counter()
        self.t0 = time.time()
        self.base = tempfile.mkdtemp(prefix="epfuzz-")
        self.head = git_head()

    def log(self, text: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {text}"
        print(line, flush=True)
        self.logf.write(line + "\n")
        self.logf.flush()

    def record(self, spec: dict[str, Any], results: list[dict[str, Any] | None], status: str) -> list[Finding]:
        found = analyse(spec, results, status, self.args.slow)
        feats = set(features(spec["data"]))
        with self.lock:
            self.mutants += 1
            self.seed_counts[spec["seed"]] += 1
            self.op_counts.update(spec["ops"])
            for run, r in zip(spec["runs"], results, strict=True):
                if r is None:
                    if status == "ok":
                        self.skipped[run["name"].rsplit("-", 1)[0]] += 1
                    continue
                self.runs += 1
                cmd = r["name"].rsplit("-", 1)[0]
                verdict = str(r.get("exit")) if not r.get("hang") else "hang"
                self.exit_counts[cmd][verdict] += 1
                self.command_exits[r.get("cmd") or cmd.split("-")[0]][verdict] += 1
                self.cpu[r.get("cmd") or cmd.split("-")[0]] += r.get("cpu", 0.0)
                if not any(r["name"] == d["name"] for d in spec.get("drive", [])):
                    self.cpu_base += r.get("cpu", 0.0)
                if r.get("rss_max_kb", r.get("rss_kb", 0)) > self.peak_rss[0]:
                    self.peak_rss = (r.get("rss_max_kb", r.get("rss_kb", 0)), spec["index"], r["name"])
                self.slowest.append((r["time"], spec["index"], r["name"], spec["seed"], r.get("cpu", 0.0)))
                if _TB.search(r.get("stdout", b"") + r.get("stderr", b"")):
                    self.tracebacks += 1
                if r.get("hang"):
                    self.hangs += 1
            if len(self.slowest) > 200:
                self.slowest = sorted(self.slowest, reverse=True)[:20]
            sigs = sorted({f.sig for f in found})
            for f in found:
                self.kind_counts[f.kind] += 0  # make the kind appear
            for sig in sigs:
                f = next(x for x in found if x.sig == sig)
                self.kind_counts[f.kind] += 1
                b = self.buckets.get(sig)
                if b is None:
                    b = self.buckets[sig] = {"sig": sig, "kind": f.kind, "count": 0, "examples": [], "detail": f.detail,
                                             "first_head": self.head, "first_mutant": spec["index"],
                                             "run": f.run, "known": known_label(sig, feats, set(spec["ops"])),
                                             "smallest": None, "dir": _bucket_dir(sig), "seeds": collections.Counter()}
                b["count"] += 1
                b["last_head"] = self.head
                b["last_mutant"] = spec["index"]
                b["seeds"][spec["seed"]] += 1
                if len(b["examples"]) < 5 or (b["smallest"] is not None and len(spec["data"]) < b["smallest"][0]):
                    self._save_example(b, spec, f)
            self.mutf.write(json.dumps({**{k: v for k, v in spec.items() if k not in ("data", "runs", "seed_data")},
                                        "exits": {r["name"]: (r.get("exit") if not r.get("hang") else "hang")
                                                  for r in results if r},
                                        "max_time": round(max((r["time"] for r in results if r), default=0), 3),
                                        "cpu": round(sum(r.get("cpu", 0.0) for r in results if r), 3),
                                        "findings": sigs}) + "\n")
        return found

    def _save_example(self, b: dict[str, Any], spec: dict[str, Any], f: Finding) -> None:
        d = self.out / "findings" / b["dir"]
        d.mkdir(parents=True, exist_ok=True)
        name = f"mutant-{spec['index']}{spec['ext']}"
        (d / name).write_bytes(spec["data"])
        if "seed_data" in spec:  # diff's other side
            (d / f"mutant-{spec['index']}.seed{spec['seed_ext']}").write_bytes(spec["seed_data"])
        meta = {k: v for k, v in spec.items() if k not in ("data", "runs", "seed_data")}
        meta["detail"] = f.detail
        # .meta.json: a JSON mutant is mutant-N.json itself
        (d / f"mutant-{spec['index']}.meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        if len(b["examples"]) < 5:
            b["examples"].append(spec["index"])
        if b["smallest"] is None or len(spec["data"]) < b["smallest"][0]:
            b["smallest"] = (len(spec["data"]), spec["index"])
            b["smallest_spec"] = {k: v for k, v in spec.items() if k != "runs"}

    # ----- the main loop
    def run(self) -> None:
        args = self.args
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=False).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=False).stdout.strip()
        self.log(f"campaign start: HEAD {head}{' (with uncommitted changes)' if dirty else ''}; seed {args.seed}, "
                 f"mutants {args.mutants}, jobs {args.jobs}, timeout {args.timeout}s, slow {args.slow}s, "
                 f"out {self.out}")
        corpus = Path(args.corpus) if args.corpus else snapshot_corpus(self.out / "corpus")
        seeds = load_seeds(corpus)
        self.log(f"{len(seeds)} seeds from {corpus} (digest {corpus_digest(corpus)}; "
                 f"{sum(1 for s in seeds if s.tree is not None)} with a tree for tree mutations)")
        info = cli_info()
        self.log(f"commands of the CLI group, each driven: {', '.join(info.names)}")
        mutator = Mutator(seeds, args.seed, info)
        workers = [WorkerHandle(i, self.base, args.slow, self.log) for i in range(args.jobs)]
        counter = iter(range(args.start, args.start + args.mutants))
        gen_lock = threading.Lock()
        next_report = [0]

        def loop(w: WorkerHandle) -> None:
            while True:
                with gen_lock:
                    idx = next(counter, None)
                    if idx is None:
                        return
                    try:
                        spec = _spec(mutator.make(idx))
                    except Exception as exc:  # noqa: BLE001 - a harness bug: log it, skip the mutant
                        self.log(f"mutant {idx}: generation failed: {exc!r}\n{traceback.format_exc()}")
                        continue
                try:
                    results, status = w.run(spec, args.timeout)
                    self.record(spec, results, status)
                except Exception as exc:  # noqa: BLE001
                    self.log(f"mutant {idx}: harness error: {exc!r}\n{traceback.format_exc()}")
                    w.stop()
                with self.lock:
                    if self.mutants >= next_report[0]:
                        next_report[0] += args.report_every
                        self._progress()
                    if self.mutants % 2000 == 0:
                        self.write_summary(final=False)

        threads = [threading.Thread(target=loop, args=(w,), daemon=True) for w in workers]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(1.0)
        except KeyboardInterrupt:
            self.log("interrupted: writing the summary of what ran")
            counter = iter(())
            for w in workers:
                w.stop()
            self.write_summary(final=True)
            raise
        for w in workers:
            w.stop()
        self.mutf.flush()
        self.log(f"campaign loop done: {self.mutants} mutants, {self.runs} runs in {time.time() - self.t0:.0f}s")
        self.write_summary(final=False)
        if args.minimize:
            self.minimize_all(workers)
        if args.confirm:
            self.confirm_all()
        self.write_summary(final=True)
        shutil.rmtree(self.base, ignore_errors=True)

    def _progress(self) -> None:
        self.head = git_head()  # others commit while the campaign runs; workers restart on new code
        el = time.time() - self.t0
        rate = self.mutants / el if el else 0
        left = (self.args.mutants - self.mutants) / rate if rate else 0
        top = ", ".join(f"{k}={v}" for k, v in self.kind_counts.most_common(8) if v)
        self.log(f"HEAD {self.head}: {self.mutants}/{self.args.mutants} mutants, {self.runs} runs, "
                 f"{rate:.1f} mutants/s, ETA {left / 60:.1f} min;"
                 f" buckets {len(self.buckets)}; {top}")

    # ----- minimization
    def minimize_all(self, workers: list[WorkerHandle]) -> None:
        self.log(f"minimizing against HEAD {git_head()}")
        order = sorted(self.buckets.values(), key=lambda b: (b["known"] is not None, -b["count"]))
        queue = list(order)
        qlock = threading.Lock()
        t_end = time.time() + self.args.minimize_total

        def loop(w: WorkerHandle) -> None:
            while time.time() < t_end:
                with qlock:
                    if not queue:
                        return
                    b = queue.pop(0)
                try:
                    self.minimize(w, b, t_end)
                except Exception as exc:  # noqa: BLE001 - a harness bug must not lose the campaign
                    self.log(f"minimize {b['sig']}: harness error {exc!r}\n{traceback.format_exc()}")

        workers = [WorkerHandle(100 + i, self.base, self.args.slow, self.log) for i in range(self.args.jobs)]
        threads = [threading.Thread(target=loop, args=(w,), daemon=True) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for w in workers:
            w.stop()

    def minimize(self, w: WorkerHandle, b: dict[str, Any], t_end: float) -> None:
        spec0 = dict(b["smallest_spec"])
        sig = b["sig"]
        slowish = b["kind"] in ("hang", "slow", "memory")
        timeout = min(self.args.timeout, 3 * self.args.slow) if slowish else self.args.timeout
        evals = [0]
        budget = 25 if slowish else (60 if b["known"] else 400)
        deadline = min(t_end, time.time() + (150 if not b["known"] else 30))

        def keeps(data: bytes) -> bool:
            if evals[0] >= budget or time.time() > deadline:
                return False
            evals[0] += 1
            spec = dict(spec0, data=data)
            spec["runs"] = run_specs(spec)
            if b["run"]:  # only the run that showed it, and the runs it needs
                spec["runs"] = runs_closure(spec["runs"], set(b["run"].split(","))) or spec["runs"]
            results, status = w.run(spec, timeout)
            return any(f.sig == sig for f in analyse(spec, results, status, self.args.slow))

        data = spec0["data"]
        if not keeps(data):
            b["minimized"] = None
            b["minimize_note"] = "did not reproduce in-process"
            self.log(f"minimize {sig}: did not reproduce")
            return
        data = ddmin_lines(data, keeps)
        data = shrink_long(data, keeps)
        if len(data) <= 3000:
            data = ddmin_bytes(data, keeps)
        b["minimized"] = data
        b["minimize_evals"] = evals[0]
        spec = dict(spec0, data=data)
        d = self.out / "findings" / b["dir"]
        d.mkdir(parents=True, exist_ok=True)
        (d / f"minimized{spec0['ext']}").write_bytes(data)
        write_repro(d / "repro", spec, b)
        self.log(f"minimize {sig}: {len(spec0['data'])} -> {len(data)} bytes in {evals[0]} runs")

    # ----- confirmation in fresh processes
    def confirm_all(self) -> None:
        self.log(f"confirming in fresh processes against HEAD {git_head()}")
        items = sorted(self.buckets.values(), key=lambda b: (b["known"] is not None, -b["count"]))
        queue = list(items)
        qlock = threading.Lock()
        base = os.path.join(self.base, "fresh")
        os.makedirs(base, exist_ok=True)
        t_end = time.time() + self.args.confirm_total

        def loop() -> None:
            while time.time() < t_end:
                with qlock:
                    if not queue:
                        return
                    b = queue.pop(0)
                try:
                    self.confirm(b, base)
                except Exception as exc:  # noqa: BLE001
                    self.log(f"confirm {b['sig']}: harness error {exc!r}\n{traceback.format_exc()}")

        threads = [threading.Thread(target=loop, daemon=True) for _ in range(self.args.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def confirm(self, b: dict[str, Any], base: str) -> None:
        sig = b["sig"]
        candidates: list[tuple[str, bytes]] = []
        if b.get("minimized") is not None:
            candidates.append(("minimized", b["minimized"]))
        candidates.append((f"mutant-{b['smallest'][1]}", b["smallest_spec"]["data"]))
        outcomes = []
        slowish = b["kind"] in ("hang", "slow", "memory")
        for candidate, data in candidates[: 1 if slowish else 2]:
            label = candidate
            spec = dict(b["smallest_spec"], data=data)
            spec["runs"] = run_specs(spec)
            only = None
            if slowish and b["run"]:
                only = {b["run"]}
            results = run_fresh(spec, base, self.args.timeout, only)
            found = analyse(spec, results, "ok", self.args.slow)
            ok = any(f.sig == sig for f in found)
            if slowish and b["run"]:
                r = next((x for x in results if x and x["name"] == b["run"]), None)
                if r is not None:
                    ok = bool(r.get("hang")) if b["kind"] == "hang" else (
                        r["time"] > self.args.slow if b["kind"] == "slow" else r.get("rss_kb", 0) > MEMORY_LIMIT_KB)
                    label += f" ({r['time']:.1f}s, {r.get('rss_kb', 0) // 1024} MB{', hang' if r.get('hang') else ''})"
            if b["kind"] == "exit3":
                r = next((x for x in results if x and x.get("exit") == 3), None)
                if r is not None and r.get("debug_stderr"):
                    b["traceback"] = r["debug_stderr"].decode("utf-8", "replace")[-3000:]
            outcomes.append(f"{label}: {'confirmed' if ok else 'NOT reproduced'}")
            if ok and "fresh_detail" not in b:
                f = next(x for x in found if x.sig == sig) if any(x.sig == sig for x in found) else None
                b["fresh_detail"] = f.detail if f else ""
        b["confirm"] = outcomes
        self.log(f"confirm {sig}: {'; '.join(outcomes)}")

    # ----- summary
    def write_summary(self, final: bool) -> None:
        with self.lock:
            slow = sorted(self.slowest, reverse=True)[:10]
            buckets = sorted(self.buckets.values(), key=lambda b: (b["known"] is not None, b["kind"], -b["count"]))
            summary = {
                "head": subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                                       check=False).stdout.strip(),
                "seed": self.args.seed, "mutants": self.mutants, "runs": self.runs,
                "elapsed_s": round(time.time() - self.t0),
                "exit_codes": {k: dict(v) for k, v in sorted(self.exit_counts.items())},
                "runs_per_command": {k: sum(v.values()) for k, v in sorted(self.command_exits.items())},
                "exit_codes_per_command": {k: dict(sorted(v.items())) for k, v in sorted(self.command_exits.items())},
                "skipped_runs": dict(sorted(self.skipped.items())),
                "cpu_s_per_command": {k: round(v, 1) for k, v in sorted(self.cpu.items())},
                "cpu_s_base_runs": round(self.cpu_base, 1), "cpu_s_all_runs": round(sum(self.cpu.values()), 1),
                "peak_worker_rss_mb": {"mb": self.peak_rss[0] // 1024, "mutant": self.peak_rss[1],
                                       "run": self.peak_rss[2]},
                "tracebacks": self.tracebacks, "hangs": self.hangs,
                "slowest": [{"time": round(t, 2), "cpu": round(c, 2), "mutant": i, "run": n, "seed": s}
                            for t, i, n, s, c in slow],
                "violations_by_kind": dict(self.kind_counts.most_common()),
                "seeds_used": len(self.seed_counts), "ops": dict(self.op_counts.most_common()),
                "findings": [{
                    "sig": b["sig"], "kind": b["kind"], "count": b["count"], "known": b["known"],
                    "examples": b["examples"],
                    "smallest": b["smallest"], "detail": b["detail"], "dir": b["dir"], "run": b["run"],
                    "seeds": dict(b["seeds"].most_common(5)),
                    "minimized_size": len(b["minimized"]) if b.get("minimized") is not None else None,
                    "confirm": b.get("confirm"), "fresh_detail": b.get("fresh_detail"),
                    "first": [b.get("first_mutant"), b.get("first_head")],
                    "last": [b.get("last_mutant"), b.get("last_head")],
                    "traceback": b.get("traceback"),
                } for b in buckets],
            }
        (self.out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False), encoding="utf-8")
        lines = [f"evidence-plan fuzz campaign: HEAD {summary['head']}, seed {summary['seed']}",
                 f"mutants {summary['mutants']}, runs {summary['runs']}, {summary['elapsed_s']} s",
                 "runs per command (exit codes):"]
        lines += [f"  {k:8} {summary['runs_per_command'][k]:7}  {json.dumps(v)}"
                  for k, v in summary["exit_codes_per_command"].items()]
        lines += [f"skipped (what they need failed): {json.dumps(summary['skipped_runs'])}",
                  f"CPU of the runs: {summary['cpu_s_all_runs']} s, of which the base runs (check and compile) "
                  f"{summary['cpu_s_base_runs']} s; by command {json.dumps(summary['cpu_s_per_command'])}",
                  f"peak RSS of a run: {summary['peak_worker_rss_mb']['mb']} MB (mutant "
                  f"{summary['peak_worker_rss_mb']['mutant']}, {summary['peak_worker_rss_mb']['run']}; the worker "
                  "process's, its imports and the harness included)",
                  f"exit codes: {json.dumps(summary['exit_codes'])}",
                 f"tracebacks: {summary['tracebacks']}, hangs: {summary['hangs']}",
                 "slowest runs (wall, CPU):"]
        lines += [f"  {x['time']:7.2f}s {x['cpu']:6.2f}s  mutant {x['mutant']} {x['run']} ({x['seed']})"
                  for x in summary["slowest"]]
        lines.append("violations by kind (mutants): "
                     + ", ".join(f"{k}={v}" for k, v in summary["violations_by_kind"].items() if v))
        lines.append(f"distinct findings: {len(buckets)}")
        for f in summary["findings"]:
            lines.append(f"- [{f['count']}] {f['sig']}" + (f"  ({f['known']})" if f["known"] else "")
                         + f"  [first: mutant {f['first'][0]} at {f['first'][1]}; "
                           f"last: mutant {f['last'][0]} at {f['last'][1]}]")
            lines.append(f"    {f['detail'][:300]}")
            if f["minimized_size"] is not None:
                lines.append(f"    minimized to {f['minimized_size']} bytes: findings/{f['dir']}/repro/")
            if f["confirm"]:
                lines.append(f"    fresh process: {'; '.join(f['confirm'])}")
        (self.out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        if final:
            self.log("summary written: " + str(self.out / "summary.txt"))


def write_repro(folder: Path, spec: dict[str, Any], b: dict[str, Any]) -> None:
    """A ready-to-run folder: repo/ (the case copy with the mutant), files/ (what the runs make
    beside the plan: diff's seed copy, symbols' copies) and commands.sh, which runs the base
    check and compile and the finding's runs (with the runs they need) in a copy of repo/."""
    if folder.exists():
        shutil.rmtree(folder)
    ws = build_workspace(dict(spec, index="repro"), str(folder))
    final = folder / "repo"
    os.rename(ws["repo"], final)
    os.rmdir(ws["ws"])
    plan_dir = Path(spec["plan_rel"]).parent
    plan = Path(spec["plan_rel"]).name
    evp = REPO / ".venv" / "bin" / "evidence-plan"
    py = REPO / ".venv" / "bin" / "python"
    lines = ["#!/bin/sh", f"# {b['sig']}", f"# {b['detail'][:300]}",
             "# Runs in a copy of repo/ (fix and approve rewrite the plan); outputs go to $W/out.",
             'HERE="$(cd "$(dirname "$0")" && pwd)"', 'W="$(mktemp -d)"', 'cp -a "$HERE/repo" "$W/repo"',
             'OUT="$W/out"', 'mkdir -p "$OUT"', f'cd "$W/repo/{plan_dir}"']
    args = " ".join(shlex.quote(a) for a in spec["args"])
    lines.append(f"{evp} check --format text {args} {plan}; echo \"exit $?\"")
    lines.append(f"{evp} compile {plan} -o \"$OUT/compile\" {args}; echo \"exit $?\"")
    if spec["ext"] in YAML_EXTS:
        lines.append(f"{py} -c {shlex.quote(REF_BOOTSTRAP)} check --format text {args} {plan}; "
                     f"echo \"exit $? (reference path)\"")
    wanted = set(b["run"].split(",")) if b.get("run") else {r["name"] for r in spec.get("drive", [])}
    runs = runs_closure(spec.get("runs") or run_specs(spec), wanted)
    if runs:
        lines.append("# the finding's runs, and the runs they need:")
    made: dict[str, bytes] = {}

    def shell(arg: str, run: str) -> str:
        if not arg.startswith(P):
            return shlex.quote(arg)
        body = arg[1:]
        if body == "plan":
            return shlex.quote(plan)
        if body == "out":
            return f'"$OUT/{run}"'
        if body.startswith("out/"):
            return f'"$OUT/{run}/{body[4:]}"'
        if body.startswith("art/"):
            return f'"$OUT/{body[4:]}"'
        raise ValueError(arg)

    for run in runs:
        name = run["name"]
        for f, what in run.get("make", {}).items():
            made[f] = spec["data"] if what == "data" else spec.get("seed_data", b"")
            lines.append(f'cp "$HERE/files/{f}" .')
        if run.get("out"):
            lines.append(f'mkdir -p "$OUT/{name}"')
        exe = f"{py} -c {shlex.quote(REF_BOOTSTRAP)}" if run.get("path") == "ref" else str(evp)
        argv = " ".join(shell(a, name) for a in run["argv"])
        stdin = f" < {shlex.quote(plan)}" if run.get("stdin") else ""
        if run.get("mcp") or run.get("lsp"):  # the client's session, kept beside the runs' files
            made[f"{name}.session"] = run_stdin(run, spec)
            stdin = f' < "$HERE/files/{name}.session"'
        lines.append(f'{exe} {argv}{stdin}; echo "exit $? ({name})"')
        for f in [*run.get("make", {}), *run.get("cleanup", [])]:
            lines.append(f"rm -f {shlex.quote(f)}")
        if P_PLAN in run.get("writes", []):
            lines.append(f'cp {shlex.quote(plan)} "$W/{name}.plan-after"  # the plan as {name} left it')
        if not run.get("keep_plan") and any(P_PLAN in r.get("writes", []) for r in runs):
            lines.append(f'cp "$HERE/repo/{spec["plan_rel"]}" {shlex.quote(plan)}  # the mutant again')
    if made:
        (folder / "files").mkdir()
        for f, data in made.items():
            (folder / "files" / f).write_bytes(data)
    (folder / "commands.sh").write_bytes(enc("\n".join(lines) + "\n"))
    os.chmod(folder / "commands.sh", 0o755)


# --------------------------------------------------------------------------------------------
# minimizers
# --------------------------------------------------------------------------------------------

def ddmin_lines(data: bytes, keeps: Any) -> bytes:
    lines = data.splitlines(keepends=True)
    n = 2
    while len(lines) >= 2:
        chunk = max(1, len(lines) // n)
        removed = False
        i = 0
        while i < len(lines):
            cand = lines[:i] + lines[i + chunk:]
            if cand and keeps(b"".join(cand)):
                lines = cand
                removed = True
            else:
                i += chunk
        if not removed:
            if chunk == 1:
                break
            n = min(len(lines), n * 2)
    return b"".join(lines)


def shrink_long(data: bytes, keeps: Any) -> bytes:
    """Halve long runs (100 KB strings, 5000-digit numbers, deep brackets) while it still holds."""
    for _ in range(40):
        runs = sorted(((m.end() - m.start(), m.start(), m.end()) for m in re.finditer(rb"(.)\1{63,}", data, re.S)),
                      reverse=True)
        runs += [(m.end() - m.start(), m.start(), m.end()) for m in re.finditer(rb"(?:deadbeef|1234567890){8,}", data)]
        progress = False
        for length, a, z in runs[:4]:
            cand = data[:a] + data[a:a + length // 2] + data[z:]
            if keeps(cand):
                data = cand
                progress = True
                break
        if not progress:
            break
    return data


def ddmin_bytes(data: bytes, keeps: Any) -> bytes:
    n = 2
    while len(data) >= 2:
        chunk = max(1, len(data) // n)
        removed = False
        i = 0
        while i < len(data):
            cand = data[:i] + data[i + chunk:]
            if cand and keeps(cand):
                data = cand
                removed = True
            else:
                i += chunk
        if not removed:
            if chunk == 1:
                break
            n = min(len(data), n * 2)
    return data


# --------------------------------------------------------------------------------------------
# self-test and --show
# --------------------------------------------------------------------------------------------

def selftest() -> int:
    """The harness's own checks: the reference YAML path really is forced, and every command of
    the CLI group has a driver that runs it on known plans with the exit codes they should give."""
    ok = _selftest_reference_path()
    ok = _selftest_commands() and ok
    print("selftest", "OK" if ok else "FAILED")
    return 0 if ok else 1


# Known plans for the self-test: every run of the full drive gives 0 on the ready ones but these
# (by command, then by run name; "skipped": what it needs failed), on the blocked one these.
SELFTEST_PLANS: dict[str, dict[str, int | str]] = {
    "examples/approval-gate": {},
    "examples/progress": {"approve": 2, "approve-check-fast": "skipped"},  # done, doing, dropped; no approval
    "examples/blocked": {"check": 1, "compile": 1, "next": 1, "fix": 1, "approve": 2, "approve-check-fast": "skipped",
                         "convert-md-fast": 0, "convert": 1, "convert-yaml-check-fast": "skipped",
                         "convert-json-check-fast": "skipped", "diff-json-am-fast": 1, "diff-text-am-fast": 1,
                         "diff-markdown-am-fast": 1, "diff-github-am-fast": 1},
}


def _selftest_commands() -> bool:
    ok = True
    info = cli_info()
    for problem in info.problems:
        print(f"harness: {problem}")
        ok = False
    print(f"commands of the CLI group: {', '.join(info.names)}")
    import compiler.commands as registry

    registry.COMMANDS["zz-fuzz-probe"] = "compiler.commands.where:command"  # a command no driver knows
    try:
        probe = CliInfo()
    finally:
        del registry.COMMANDS["zz-fuzz-probe"]
    if not any("'zz-fuzz-probe'" in p and "no driver" in p for p in probe.problems):
        print(f"a command without a driver was not reported: {probe.problems}")
        ok = False
    _init_globals()
    seeds = {s.name: s for s in load_seeds(REPO)}
    base = tempfile.mkdtemp(prefix="epfuzz-selftest-")
    worker = WorkerHandle(0, base, 5.0, print)
    try:
        for seed_name, expected in SELFTEST_PLANS.items():
            s = seeds[seed_name]
            m = Mutant(0, s)
            m.data, m.out_mode, m.extras = s.data, "stale", ["gh", "sarif", "nv", "det"]
            m.drive = draw_drive(info, m, s, 0, full=True)
            spec = _spec(m)
            for how in ("in-process", "fresh processes"):
                t0 = time.monotonic()
                if how == "in-process":
                    results = worker.run(spec, 60.0)[0]
                elif seed_name == next(iter(SELFTEST_PLANS)):  # the runs that make, write or need (slow here)
                    results = run_fresh(spec, base, 60.0, {r["name"] for r in spec["runs"] if
                                                            {"make", "writes", "needs"} & set(r)})
                else:
                    continue
                took = time.monotonic() - t0
                seen: collections.Counter[str] = collections.Counter()
                for run, res in zip(spec["runs"], results, strict=True):
                    want = expected.get(run["name"], expected.get(run["cmd"], 0))
                    got = res.get("exit") if res else "skipped"
                    if res is None and how != "in-process":
                        continue  # not asked for
                    seen[run["cmd"]] += got == want
                    if got != want:
                        print(f"{seed_name} ({how}): {run['name']}: exit {got}, expected {want}: "
                              f"{(res or {}).get('stderr', b'')[-300:]!r}")
                        ok = False
                missing = [c for c in info.names if not seen[c]] if how == "in-process" else []
                if missing:
                    print(f"{seed_name} ({how}): not driven with the expected exit code: {', '.join(missing)}")
                    ok = False
                for f in analyse(spec, results, "ok", 5.0):
                    print(f"{seed_name} ({how}): finding on a known plan: {f.sig}: {f.detail[:300]}")
                    ok = False
                unmeasured = [r["name"] for r in results if r and not 0 < r.get("rss_kb", 0) < MEMORY_LIMIT_KB]
                if unmeasured:  # each run's own peak (VmHWM), never 0 nor a parent's
                    print(f"{seed_name} ({how}): peak RSS not measured: {unmeasured[:5]}")
                    ok = False
                print(f"{seed_name} ({how}): {len(results)} runs, {sum(seen.values())} with the expected exit code "
                      f"({took:.1f} s)")
    finally:
        worker.stop()
        shutil.rmtree(base, ignore_errors=True)
    return ok


def _selftest_reference_path() -> bool:
    """Verify that the reference path really is forced (in-process and in a fresh child)."""
    import compiler.load.document as load
    import compiler.load.fastyaml as fastyaml
    import compiler.load.yaml_reader as yaml_reader

    calls = {"ref": 0}
    original_ref = yaml_reader._parse_yaml_reference

    def counting(*a: Any, **k: Any) -> Any:
        calls["ref"] += 1
        return original_ref(*a, **k)

    yaml_reader._parse_yaml_reference = counting
    text = "items:\n  - id: a\n    change: x\n    evidence: [a.py]\n    proof: make\n"
    load.parse_text(text, "p.yaml", "yaml")
    default_calls = calls["ref"]
    original = fastyaml.parse
    fastyaml.parse = lambda *a, **k: None
    load.parse_text(text, "p.yaml", "yaml")
    fastyaml.parse = original
    forced_calls = calls["ref"] - default_calls
    print(f"in-process: reference reader calls: default path {default_calls}, forced {forced_calls}")
    probe = ("import compiler.load.yaml_reader as L; o = L._parse_yaml_reference; n = [0]\n"
             "def c(*a, **k):\n    n[0] += 1\n    return o(*a, **k)\n"
             "L._parse_yaml_reference = c\n"
             "import atexit; atexit.register(lambda: print('REFCALLS', n[0]))\n")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "plan.yaml").write_text(text)
        Path(tmp, "a.py").write_text("x = 1\n")
        outs = []
        for boot in ("from compiler.cli import main; raise SystemExit(main())", REF_BOOTSTRAP):
            p = subprocess.run([sys.executable, "-c", probe + boot, "check", "--root", ".", "plan.yaml"], cwd=tmp,
                               capture_output=True, text=True, check=False)
            outs.append((p.returncode, p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""))
        print(f"fresh child: default {outs[0]}, reference bootstrap {outs[1]}")
    return default_calls == 0 and forced_calls == 1 and outs[0][1] == "REFCALLS 0" and outs[1][1] == "REFCALLS 1"


def show(args: argparse.Namespace) -> int:
    seeds = load_seeds(Path(args.corpus) if args.corpus else REPO)
    problems = harness_problems()
    if problems:
        print("\n".join(f"harness: {p}" for p in problems), file=sys.stderr)
        return 2
    m = Mutator(seeds, args.seed, cli_info()).make(args.show)
    spec = _spec(m)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"mutant-{m.index}{m.ext}").write_bytes(m.data)
    print(json.dumps(m.to_dict(), indent=1))
    _init_globals()
    results = run_fresh(spec, tempfile.mkdtemp(prefix="epfuzz-show-"), args.timeout)
    for r in results:
        if r:
            print(f"{r['name']}: exit {r['exit']} in {r['time']:.2f}s, {r['rss_kb'] // 1024} MB")
    for f in analyse(spec, results, "ok", args.slow):
        print(f"FINDING {f.sig}: {f.detail[:300]}")
    write_repro(out / "repro", spec, {"sig": "show", "detail": ""})
    return 0


def replay(run_dir: Path, timeout: float, slow: float) -> int:
    """Re-run every saved example of a campaign's buckets in fresh processes against the code now
    on disk: which findings still reproduce (the code changes while campaigns run)."""
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    base = tempfile.mkdtemp(prefix="epfuzz-replay-")
    head = git_head()
    report = {}
    for f in summary["findings"]:
        rows = []
        for meta_path in sorted((run_dir / "findings" / f["dir"]).glob("mutant-*.meta.json")):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            stem = meta_path.parent / f"mutant-{meta['index']}"
            spec = dict(meta, data=stem.with_suffix(meta["ext"]).read_bytes())
            seed_path = stem.with_suffix(f".seed{meta.get('seed_ext', '')}")
            if seed_path.is_file():
                spec["seed_data"] = seed_path.read_bytes()
            spec["runs"] = run_specs(spec)
            results = run_fresh(spec, base, timeout, {f["run"]} if f["run"] else None)
            sigs = sorted({x.sig for x in analyse(spec, results, "ok", slow)})
            rows.append({"mutant": meta["index"], "reproduces": f["sig"] in sigs,
                         "exits": {r["name"]: r["exit"] for r in results if r}, "findings": sigs})
        n = sum(r["reproduces"] for r in rows)
        print(f"{f['sig']}: {n}/{len(rows)} saved examples reproduce at {head}", flush=True)
        report[f["sig"]] = rows
    (run_dir / f"replay-{head}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    shutil.rmtree(base, ignore_errors=True)
    return 0


def _init_globals() -> None:
    global ALLOWED_READ, ALLOWED_SPECIAL
    from compiler.core.codes import CODES as codes

    CODES.update(codes)
    INPUT_CODES.update(c for c, v in codes.items() if v.input_error)
    ALLOWED_READ, ALLOWED_SPECIAL = _allowed_roots()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        worker_main(argv[1], float(argv[2]), float(argv[3]) if len(argv) > 3 else 20.0)
        return 0
    if argv[:1] == ["--child"]:
        child_main(argv[1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutants", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first mutant index (default 0)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="/work/fuzz/run")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per CLI run before it counts as a hang")
    ap.add_argument("--slow", type=float, default=5.0, help="seconds per CLI run before it counts as slow")
    ap.add_argument("--no-minimize", dest="minimize", action="store_false")
    ap.add_argument("--no-confirm", dest="confirm", action="store_false")
    ap.add_argument("--minimize-total", type=float, default=1800, help="seconds for all minimization")
    ap.add_argument("--confirm-total", type=float, default=1200, help="seconds for all fresh-process confirmation")
    ap.add_argument("--report-every", type=int, default=500)
    ap.add_argument("--show", type=int, default=None, help="regenerate mutant N, run it in fresh processes")
    ap.add_argument("--corpus", default=None,
                    help="seed corpus folder (a campaign's OUT/corpus snapshot); "
                         "default: a fresh snapshot of the repository")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--replay", default=None, metavar="OUT",
                    help="re-run the saved examples of campaign OUT's findings against the current code")
    args = ap.parse_args(argv)
    sys.set_int_max_str_digits(0)
    sys.setrecursionlimit(12000)
    if args.selftest:
        return selftest()
    if args.show is not None:
        return show(args)
    if args.replay:
        _init_globals()
        return replay(Path(args.replay), args.timeout, args.slow)
    _init_globals()
    problems = harness_problems()
    if problems:  # a command the campaign cannot drive is an error of the harness, not a silent gap
        print("\n".join(f"harness: {p}" for p in problems), file=sys.stderr)
        return 2
    Campaign(args).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
