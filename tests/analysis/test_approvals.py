"""compiler/analysis/approvals.py and `evidence-plan approve`: what an approval covers, its digest, the
gate pass (linear, iterative), and the record written into the plan keeping every other byte.
The rules (EP310, EP111) are tests/checks/test_gates.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support import docs_block, write_plan
from work import GROWTH_LIMIT, growth

from compiler.analysis import approvals
from compiler.api import approve
from compiler.cli import cli
from compiler.compile.emit import build_output
from compiler.core import display
from compiler.load.document import parse_text
from compiler.model.validate import build_plan
from compiler.model.values import Item
from compiler.render.mermaid import flowchart
from compiler.render.view import plan_view

PLAN = """\
# Retire the old users table
items:
  - id: backup          # first, always
    change: Back up users_old
    evidence: [a.py:1]
    proof: make backup
  - id: sign-off
    kind: approval
    change: A person checks the backup
    evidence: [a.py:1]
    depends_on: [backup]
    proof: make show-backup
  - id: schema
    change: Add the new column
    evidence: [a.py:1]
    proof: make schema
  - id: drop-table
    change: Drop users_old
    evidence: [a.py:1]
    depends_on: [sign-off, schema]
    proof: make drop
    irreversible: true
  - id: announce
    change: Tell the team it is done
    evidence: [a.py:1]
    depends_on: [sign-off]
    proof: make announce
"""


def _items(text: str, fmt: str = "yaml") -> tuple[Item, ...]:
    return build_plan(parse_text(text, f"plan.{fmt}", fmt)).items  # type: ignore[arg-type]


# --- what an approval covers, and its digest -------------------------------------------------------

def test_an_approval_covers_its_irreversible_dependents_and_all_they_depend_on() -> None:
    """drop-table depends on sign-off: covered, with everything it depends on (schema too, on
    another branch into it); announce depends on sign-off but is not irreversible, nor depended
    on by an irreversible item: not covered."""
    cover = approvals.coverage(_items(PLAN), "sign-off")
    assert cover.gates == ("drop-table",)
    assert cover.covers == ("backup", "sign-off", "schema", "drop-table")
    assert len(cover.digest) == 32 and int(cover.digest, 16) >= 0


def test_the_digest_is_of_the_content_not_of_how_it_is_written() -> None:
    """The same plan in JSON, with evidence in the object form and keys in another order, has the
    same digest: the content is normalized before it is hashed."""
    data = parse_text(PLAN, "plan.yaml", "yaml").data
    for item in data["items"]:
        item["evidence"] = [{"path": "a.py", "line": 1}]
    data["items"] = [dict(reversed(list(item.items()))) for item in data["items"]]
    as_json = _items(json.dumps(data), "json")
    assert approvals.coverage(as_json, "sign-off").digest == approvals.coverage(_items(PLAN), "sign-off").digest


@pytest.mark.parametrize(("edit", "stale"), [
    (("make drop", "make drop --force"), True),  # a covered item's proof
    (("Add the new column", "Add two columns"), True),  # the change of a covered item on another branch
    (("evidence: [a.py:1]\n    depends_on: [sign-off, schema]", "evidence: [a.py:2]\n    depends_on: [sign-off,"
      " schema]"), True),  # a covered item's evidence
    (("Tell the team it is done", "Tell everyone"), False),  # an item it does not cover
    (("# Retire the old users table", "# Retire it"), False),  # a comment
    (("    depends_on: [sign-off]\n    proof: make announce", "    depends_on: [sign-off]\n    proof: make announce"
      "\n    irreversible: true"), True),  # an irreversible item joins what it covers
])
def test_the_digest_changes_exactly_when_covered_content_does(edit: tuple[str, str], stale: bool) -> None:
    before = approvals.coverage(_items(PLAN), "sign-off").digest
    assert PLAN.count(edit[0]) == 1
    after = approvals.coverage(_items(PLAN.replace(*edit)), "sign-off").digest
    assert (after != before) is stale


# --- what an approval binds: every field that changes what runs or in what order -------------------

def test_the_digest_is_128_bits_of_sha256_over_the_documented_content() -> None:
    """Held to the description of docs/reference/approvals.md by an independent computation: 32
    hex digits of the SHA-256 of the sorted [id, item digest] pairs, each item digest the full SHA-256 of its
    fields that an approval binds. A 48-bit digest fell to a birthday search on one core."""
    import hashlib

    def sha(value: object) -> str:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    items = {item.id: item for item in _items(PLAN)}
    pairs = []
    for ident in ("backup", "sign-off", "schema", "drop-table"):
        item = items[ident]
        content = {"id": ident, "change": item.change, "evidence": [{"path": "a.py", "line": 1}],
                   "depends_on": sorted(item.depends_on), "proof": item.proof,
                   "kind": item.option("kind", "task"), "irreversible": item.option("irreversible", False),
                   "status": True, "paths": []}
        pairs.append([ident, sha(content)])
    assert approvals.coverage(_items(PLAN), "sign-off").digest == sha(sorted(pairs))[:32]


def test_every_item_field_states_whether_an_approval_binds_it() -> None:
    """A new field is a decision (compiler/model/fields.py's ``approved``), never a silent hole."""
    from compiler.model.fields import ITEM_FIELDS

    assert [f.name for f in ITEM_FIELDS if f.approved is None] == []
    assert {f.name for f in ITEM_FIELDS if f.approved} == {
        "id", "change", "evidence", "depends_on", "proof", "kind", "irreversible", "paths", "status"}


def test_the_docs_name_exactly_the_fields_an_approval_binds() -> None:
    from compiler.model.fields import ITEM_FIELDS

    section = docs_block("reference/approvals.md", "approval-binds")
    bound, _, unbound = section.partition("It does not bind")
    for f in ITEM_FIELDS:
        assert f"`{f.name}`" in (bound if f.approved else unbound), f.name


@pytest.mark.parametrize(("edit", "voids"), [
    # what runs, or in what order: each voids the approval
    (("    depends_on: [sign-off, schema]\n", "    depends_on: [backup, schema]\n"), True),  # the drop skips the gate
    (("    proof: make drop\n", "    proof: make drop\n    paths: [db/]\n"), True),  # what it writes
    (("  - id: schema\n", "  - id: schema\n    kind: approval\n"), True),  # a task becomes a gate
    (("    proof: make drop\n    irreversible: true\n", "    proof: make drop\n    irreversible: true\n"
      "    status: dropped\n    reason: not needed\n"), True),  # it will not run
    (("    proof: make schema\n", "    proof: make schema\n    status: dropped\n    reason: later\n"), True),
    # what does not: the same plan written otherwise, progress, prose, time
    (("    depends_on: [sign-off, schema]\n", "    depends_on: [schema, sign-off, schema]\n"), False),
    (("    proof: make drop\n", "    proof: make drop\n    status: done\n"), False),
    (("    proof: make schema\n", "    proof: make schema\n    status: doing\n    reason: half of it\n"), False),
    (("    proof: make schema\n", "    proof: make schema\n    estimate: {low: 1, high: 2, unit: hours}\n"), False),
    (("    proof: make drop\n", "    proof: make drop\n    kind: task\n"), False),  # the default, written
])
def test_an_approval_binds_what_runs_and_in_what_order(edit: tuple[str, str], voids: bool) -> None:
    before = approvals.coverage(_items(PLAN), "sign-off").digest
    assert PLAN.count(edit[0]) == 1
    assert (approvals.coverage(_items(PLAN.replace(*edit)), "sign-off").digest != before) is voids


def test_paths_are_bound_as_a_set() -> None:
    one = PLAN.replace("    proof: make drop\n", "    proof: make drop\n    paths: [db/a.sql, db/b.sql]\n")
    other = PLAN.replace("    proof: make drop\n", "    proof: make drop\n    paths: [db/b.sql, db/a.sql]\n")
    assert approvals.coverage(_items(one), "sign-off").digest == approvals.coverage(_items(other), "sign-off").digest


def test_a_pinned_entry_is_bound_by_its_pin_not_its_lines() -> None:
    """Lines that moved whole keep their pin: the approval holds. Another pin does not."""
    pinned = PLAN.replace("    evidence: [a.py:1]\n    depends_on: [sign-off, schema]\n",
                          "    evidence: [{path: a.py, lines: 3-4, pin: 0123456789ab}]\n"
                          "    depends_on: [sign-off, schema]\n")
    before = approvals.coverage(_items(pinned), "sign-off").digest
    moved = pinned.replace("lines: 3-4", "lines: 10-11")
    assert approvals.coverage(_items(moved), "sign-off").digest == before
    repinned = pinned.replace("0123456789ab", "0123456789ac")
    assert approvals.coverage(_items(repinned), "sign-off").digest != before
    unpinned = PLAN.replace("    evidence: [a.py:1]\n    depends_on: [sign-off, schema]\n",
                            "    evidence: [a.py:3-4]\n    depends_on: [sign-off, schema]\n")
    assert approvals.coverage(_items(unpinned.replace("a.py:3-4", "a.py:10-11")), "sign-off").digest != (
        approvals.coverage(_items(unpinned), "sign-off").digest)  # without a pin, the lines are the content


def test_rewiring_the_drop_past_the_copy_voids_the_bundled_approval(tmp_path: Path) -> None:
    """The report's attack on examples/approval-gate: drop-table made to depend on sign-off
    instead of migrate would drop the table before the rows are copied."""
    import shutil

    from compiler.compile.pipeline import compile_plan

    example = Path(__file__).resolve().parents[2] / "examples" / "approval-gate"
    shutil.copytree(example, tmp_path / "ex")
    plan = tmp_path / "ex" / "plan.yaml"
    text = plan.read_text(encoding="utf-8")
    drop = text.index("  - id: drop-table")
    rewired = text[:drop] + text[drop:].replace("depends_on: [migrate]", "depends_on: [sign-off]", 1)
    assert rewired != text
    plan.write_text(rewired, encoding="utf-8")
    result = compile_plan(str(plan))
    assert [(d.code, d.item) for d in result.diagnostics] == [("EP111", "sign-off")]


def test_a_pinned_line_moved_whole_then_fixed_keeps_the_approval(tmp_path: Path) -> None:
    """One line inserted at the top of a cited file, then `fix`: the pinned entry's lines move,
    its content does not, and the release gate needs no new approval."""
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    text = PLAN.replace("    evidence: [a.py:1]\n    depends_on: [sign-off, schema]\n",
                        "    evidence: [a.py:2]\n    depends_on: [sign-off, schema]\n")
    plan = write_plan(tmp_path, text)
    runner = CliRunner()
    assert runner.invoke(cli, ["fix", "--pin", str(plan), "--root", str(tmp_path)]).exit_code == 0
    assert runner.invoke(cli, ["approve", str(plan), "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z",
                               "--root", str(tmp_path)]).exit_code == 0
    assert _check(plan, tmp_path)[0] == 0
    (tmp_path / "a.py").write_text("# a header\nx = 1\ny = 2\n", encoding="utf-8")
    code, output = _check(plan, tmp_path)
    assert code == 1 and "EP211" in output and "EP111" not in output  # the pin drifted, the approval held
    fixed = runner.invoke(cli, ["fix", str(plan), "--root", str(tmp_path)])
    assert fixed.exit_code == 0, fixed.output
    assert "line: 3, pin: " in plan.read_text(encoding="utf-8")  # the entry moved with its line
    code, output = _check(plan, tmp_path)
    assert code == 0, output


def test_a_digest_of_the_old_format_is_never_current() -> None:
    """12 hex digits, what approve wrote before: read as approved under the old format, to be
    approved again (EP111, at the digest), even when it is the old digest of this very content."""
    import hashlib

    from compiler.compile.pipeline import compile_document

    text = PLAN.replace("    proof: make show-backup\n", "    proof: make show-backup\n    approved_by: ana\n"
                        "    approved_at: '2026-12-01T15:04:05Z'\n    approval_digest: "
                        + hashlib.sha256(b"anything").hexdigest()[:12] + "\n")
    doc = parse_text(text, "plan.yaml", "yaml")
    result = compile_document(doc, "plan.yaml", verify_evidence=False)
    (d,) = [d for d in result.diagnostics if d.code == "EP111"]
    assert (d.item, d.location.line) == ("sign-off", 15)
    assert "approved under the old digest format" in d.message and "approve it again" in d.message
    assert d.hint == "review what it covers, then record it: evidence-plan approve PLAN sign-off --by NAME"
    assert approvals.states(result.plan.items)["sign-off"].state == "stale"


def test_another_approvals_record_changes_no_digest() -> None:
    two = PLAN.replace("  - id: schema\n", "  - id: schema\n    kind: approval\n")
    before = approvals.coverage(_items(two), "sign-off").digest
    recorded = two.replace("    proof: make schema\n", "    proof: make schema\n    approved_by: bo\n"
                           "    approved_at: '2026-12-01T15:04:05Z'\n    approval_digest: 0123456789ab\n")
    assert approvals.coverage(_items(recorded), "sign-off").digest == before


def test_an_approval_that_precedes_no_irreversible_item_covers_nothing() -> None:
    cover = approvals.coverage(_items(PLAN.replace("    irreversible: true\n", "")), "sign-off")
    assert (cover.gates, cover.covers) == ((), ())


@pytest.mark.parametrize(("text", "valid"), [
    ("2026-12-01T15:04:05Z", True), ("2026-12-01T15:04:05+01:00", True), ("2026-12-01T15:04:05.25-05:30", True),
    ("2026-12-01T15:04:05", False), ("2026-12-01", False), ("2026-02-30T10:00:00Z", False),
    ("2026-12-01 15:04:05Z", False), ("yesterday", False), ("2026-12-01T24:00:00Z", False),
])
def test_approved_at_is_an_iso_8601_date_time_with_its_offset(text: str, valid: bool) -> None:
    assert approvals.valid_date_time(text) is valid


# --- linear and iterative --------------------------------------------------------------------------

def _chain(n: int, *, approval_at: int | None = 0) -> tuple[Item, ...]:
    options = {approval_at: (("kind", "approval"),)} if approval_at is not None else {}
    return tuple(Item(f"i{k}", "c", (), (f"i{k - 1}",) if k else (), "p", k,
                      options=options.get(k, (("irreversible", True),) if k == n - 1 else ())) for k in range(n))


def _wide(n: int) -> tuple[Item, ...]:
    """One approval, then n irreversible items after it, each also after one of n plain items."""
    gate = Item("gate", "c", (), (), "p", 0, options=(("kind", "approval"),))
    plain = [Item(f"p{k}", "c", (), (), "p", 1 + k) for k in range(n)]
    last = [Item(f"x{k}", "c", (), ("gate", f"p{k}"), "p", 1 + n + k, options=(("irreversible", True),))
            for k in range(n)]
    return (gate, *plain, *last)


@pytest.mark.slow
def test_a_deep_chain_is_judged_without_recursion() -> None:
    """20,000 items in a chain, far past the recursion limit: gated, ungated, and covered (the
    figures of docs/performance.md take 100,000)."""
    n = 20_000
    assert n > sys.getrecursionlimit() * 10
    assert approvals.ungated(_chain(n)) == []
    assert [i.id for i in approvals.ungated(_chain(n, approval_at=None))] == [f"i{n - 1}"]
    assert len(approvals.coverage(_chain(n), "i0").covers) == n


@pytest.mark.performance
@pytest.mark.parametrize("shape", [_chain, _wide], ids=["chain", "wide"])
def test_the_gate_pass_and_a_digest_grow_linearly(shape: object) -> None:
    """10x the items cost less than GROWTH_LIMIT times the calls (tests/work.py; 10.0x
    measured), for the gate pass (EP310) and for one approval's digest (EP111)."""
    plans = {n: shape(n) for n in (500, 5_000)}  # type: ignore[operator]

    def judge(n: int) -> None:
        items = tuple(list(plans[n]))  # a new tuple: the coverages of the last one are kept (approvals.graph_of)
        approvals.ungated(items)
        approvals.states(items)

    grew = growth(judge, 500)
    assert grew.ratio < GROWTH_LIMIT, str(grew)


# --- the compiled plan ---------------------------------------------------------------------------

def _compiled(tmp_path: Path, text: str) -> dict[str, object]:
    from compiler.compile.pipeline import compile_document

    (tmp_path / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    plan = write_plan(tmp_path, text)
    doc = parse_text(text, str(plan), "yaml")
    return build_output(compile_document(doc, str(plan), root=str(tmp_path)), tmp_path)


def test_the_json_shows_each_approval_its_state_what_it_covers_and_its_digest(tmp_path: Path) -> None:
    document = _compiled(tmp_path, PLAN)
    items = {item["id"]: item for item in document["items"]}  # type: ignore[attr-defined]
    digest = approvals.coverage(_items(PLAN), "sign-off").digest
    assert items["sign-off"]["kind"] == "approval"
    assert (items["sign-off"]["approval_state"], items["sign-off"]["approval_covers"],
            items["sign-off"]["approval_digest_now"]) == ("unrecorded", ["backup", "sign-off", "schema", "drop-table"],
                                                          digest)
    assert items["drop-table"]["irreversible"] is True and "approval_state" not in items["drop-table"]
    assert "kind" not in items["backup"]  # a field not given is not written: the default is task


@pytest.mark.parametrize("blocked", [False, True], ids=["by-wave", "blocked"])
def test_approval_items_are_drawn_as_hexagons(tmp_path: Path, blocked: bool) -> None:
    """In a wave's subgraph, and in the graph of a blocked plan (no waves) alike."""
    document = _compiled(tmp_path, PLAN.replace("make announce", "") if blocked else PLAN)
    assert (document["status"] == "blocked") is blocked
    graph, _ = flowchart(plan_view(document).graph)
    assert graph is not None
    assert '{{"sign-off"}}' in graph and '["backup"]' in graph and '{{"backup"}}' not in graph


# --- evidence-plan approve -------------------------------------------------------------------------

def _approve(tmp_path: Path, *args: str, text: str = PLAN, name: str = "plan.yaml") -> tuple[int, str, Path]:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    plan = write_plan(tmp_path, text, name)
    result = CliRunner().invoke(cli, ["approve", str(plan), *args, "--root", str(tmp_path)])
    return result.exit_code, result.output, plan


def _check(plan: Path, tmp_path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", "--format", "text", "--root", str(tmp_path), str(plan)])
    return result.exit_code, result.output


def test_approve_writes_the_record_and_keeps_every_other_byte(tmp_path: Path) -> None:
    code, output, plan = _approve(tmp_path, "sign-off", "--by", "Ana Lima", "--at", "2026-12-01T15:04:05Z")
    digest = approvals.coverage(_items(PLAN), "sign-off").digest
    assert code == 0, output
    assert plan.read_text(encoding="utf-8") == PLAN.replace(
        "    proof: make show-backup\n", "    proof: make show-backup\n    approved_by: 'Ana Lima'\n"
        f"    approved_at: '2026-12-01T15:04:05Z'\n    approval_digest: {digest}\n")
    assert f"approved sign-off by Ana Lima at 2026-12-01T15:04:05Z, digest {digest}" in output
    assert "covers 4 items: backup, sign-off, schema, drop-table" in output
    assert _check(plan, tmp_path)[0] == 0


def test_approve_again_replaces_a_stale_record_in_place(tmp_path: Path) -> None:
    _, _, plan = _approve(tmp_path, "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z")
    plan.write_text(plan.read_text(encoding="utf-8").replace("make drop", "make drop --force"), encoding="utf-8")
    code, output = _check(plan, tmp_path)
    assert code == 1 and "plan.yaml:15:22: error EP111 sign-off is a stale approval: it covers 4 items" in output
    stale = plan.read_text(encoding="utf-8")
    result = CliRunner().invoke(cli, ["approve", str(plan), "sign-off", "--by", "bo", "--at", "2026-12-02T09:00:00Z",
                                      "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    new = approvals.coverage(_items(stale), "sign-off").digest
    old = approvals.coverage(_items(PLAN), "sign-off").digest
    assert plan.read_text(encoding="utf-8") == stale.replace("approved_by: ana", "approved_by: bo").replace(
        "2026-12-01T15:04:05Z", "2026-12-02T09:00:00Z").replace(old, new)
    assert _check(plan, tmp_path)[0] == 0


def test_approve_fills_keys_left_blank(tmp_path: Path) -> None:
    text = PLAN.replace("    proof: make show-backup\n", "    proof: make show-backup\n    approved_by:\n"
                        "    approved_at: ~   # to fill\n")
    code, output, plan = _approve(tmp_path, "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z", text=text)
    assert code == 0, output
    assert "    approved_by: ana\n    approved_at: '2026-12-01T15:04:05Z'   # to fill\n    approval_digest: " in (
        plan.read_text(encoding="utf-8"))


def test_approve_rewrites_a_json_plan_in_converts_layout(tmp_path: Path) -> None:
    from compiler.api.convert import dump_json

    data = parse_text(PLAN, "plan.yaml", "yaml").data
    code, output, plan = _approve(tmp_path, "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z",
                                  text=json.dumps(data), name="plan.json")
    assert code == 0, output
    data["items"][1].update(approved_by="ana", approved_at="2026-12-01T15:04:05Z",
                            approval_digest=approvals.coverage(_items(PLAN), "sign-off").digest)
    assert plan.read_text(encoding="utf-8") == dump_json(data)
    assert _check(plan, tmp_path)[0] == 0


def test_approve_at_defaults_to_now_in_utc_to_the_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(approve, "now", lambda: "2030-01-02T03:04:05Z")
    code, _, plan = _approve(tmp_path, "sign-off", "--by", "ana")
    assert code == 0 and "approved_at: '2030-01-02T03:04:05Z'" in plan.read_text(encoding="utf-8")
    monkeypatch.undo()
    assert approvals.valid_date_time(approve.now()) and approve.now().endswith("Z")


def test_approve_an_unknown_id_is_exit_2_with_a_did_you_mean(tmp_path: Path) -> None:
    code, output, plan = _approve(tmp_path, "sign-of", "--by", "ana")
    assert code == 2 and "error: the plan has no item 'sign-of' (did you mean sign-off?)" in output
    assert plan.read_text(encoding="utf-8") == PLAN


def test_approve_an_item_that_is_no_approval_is_exit_2_at_its_id(tmp_path: Path) -> None:
    code, output, plan = _approve(tmp_path, "drop-table", "--by", "ana")
    assert code == 2
    assert "plan.yaml:17:9: error: 'drop-table' is not an approval: only an item with kind: approval is approved" in (
        output)
    assert plan.read_text(encoding="utf-8") == PLAN


def test_approve_refuses_a_plan_blocked_by_other_problems(tmp_path: Path) -> None:
    text = PLAN.replace("make announce", "")
    code, output, plan = _approve(tmp_path, "sign-off", "--by", "ana", text=text)
    assert code == 1
    assert "error: the plan is blocked by 1 other problem: fix them first" in output
    assert "plan.yaml:27:11: error EP102 announce has no proof command" in output
    assert plan.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("args", "words"), [
    (["--by", "ana", "--at", "tomorrow"], "is not an ISO 8601 date-time"),
    (["--by", " "], "give the name of who approves"),
    ([], "Missing option '--by'"),
])
def test_approve_bad_options_are_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    code, output, plan = _approve(tmp_path, "sign-off", *args)
    assert code == 2 and words in output
    assert plan.read_text(encoding="utf-8") == PLAN


@pytest.mark.parametrize("name", ["\x1b[31mred\x1b[0m", "Ana\nLima", "Ana\u202eLima", "Ana\tLima", "Ana\u200bLima",
                                  "Ana\x85Lima"])
def test_approve_refuses_a_name_with_control_or_invisible_characters(tmp_path: Path, name: str) -> None:
    """--by is a person's name: a control character, a line break, a bidirectional control or an
    invisible one (compiler/core/display.py's UNSAFE) is a usage error (exit 2, nothing written), its
    character shown escaped, never raw."""
    code, output, plan = _approve(tmp_path, "sign-off", "--by", name, "--at", "2026-12-01T15:04:05Z")
    assert code == 2, output
    assert "give a person's name" in output and "control or invisible character" in output
    assert display.UNSAFE.search(output.replace("\n", "")) is None
    assert plan.read_text(encoding="utf-8") == PLAN


def test_convert_keeps_the_gate_fields_and_the_approval_stays_current(tmp_path: Path) -> None:
    _, _, plan = _approve(tmp_path, "sign-off", "--by", "ana", "--at", "2026-12-01T15:04:05Z")
    for fmt in ("json", "yaml"):
        out = tmp_path / f"converted.{fmt}"
        result = CliRunner().invoke(cli, ["convert", str(plan), str(out), "--root", str(tmp_path)])
        assert result.exit_code == 0, result.output
        items = {i.id: i for i in _items(out.read_text(encoding="utf-8"), fmt)}
        assert items["sign-off"].option("kind") == "approval" and items["drop-table"].option("irreversible") is True
        assert items["sign-off"].option("approved_at") == "2026-12-01T15:04:05Z"
        assert _check(out, tmp_path)[0] == 0


def test_the_documented_example_is_ready_and_its_approval_current() -> None:
    """examples/approval-gate, the example of docs/reference/approvals.md: as committed, ready, with
    a current approval over the five items the page names."""
    from compiler.compile.pipeline import compile_plan

    result = compile_plan(str(Path(__file__).resolve().parents[2] / "examples" / "approval-gate" / "plan.yaml"))
    assert result.status == "ready" and result.diagnostics == ()
    (state,) = approvals.states(result.plan.items).values()
    assert state.state == "current" and state.coverage is not None
    assert len(state.coverage.digest) == 32
    assert state.coverage.covers == ("read-new-table", "backup", "sign-off", "migrate", "drop-table")


def test_a_compile_works_out_each_approvals_coverage_once(tmp_path: Path) -> None:
    """EP111's check and evidence-plan.json's approval states share one walk and one digest per
    approval (approvals.graph_of): the JSON costs the compile no second digest."""
    from work import count

    from compiler.compile.pipeline import compile_document

    (tmp_path / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    text = PLAN.replace("    kind: approval\n", "    kind: approval\n    approved_by: Ana\n"
                        "    approved_at: '2026-12-01T15:04:05Z'\n    approval_digest: " + "a" * 32 + "\n")
    plan = write_plan(tmp_path, text)
    doc = parse_text(text, str(plan), "yaml")
    result = compile_document(doc, str(plan), root=str(tmp_path))
    assert [d.code for d in result.diagnostics] == ["EP111"], [d.message for d in result.diagnostics]
    approvals_in_plan = sum(1 for item in result.plan.items if approvals.is_approval(item))
    work = count(lambda: build_output(result, tmp_path))
    assert approvals_in_plan and work.of("_coverage") == 0, work.top()
    fresh = count(lambda: approvals.states(tuple(list(result.plan.items))))
    assert fresh.of("_coverage") == approvals_in_plan
