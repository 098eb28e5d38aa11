"""compiler/analysis/progress.py and `evidence-plan next` (compiler/commands/next.py): statuses, the waves
of the live items (the same as compiler/analysis/graph.py's, without networkx), and the next items of a
plan, doing ones first, in wave order, with their proofs; exit 0 with next items or when all is
done, 1 when blocked, 2 on an input error."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import run
from work import GROWTH_LIMIT, count, growth

from compiler.analysis import progress
from compiler.analysis.graph import build_graph, waves
from compiler.api import next as api_next
from compiler.model.values import Item

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "progress" / "plan.yaml"


def item(ident: str, deps: tuple[str, ...] = (), status: str | None = None, position: int = 0) -> Item:
    options = (("status", status),) if status is not None else ()
    return Item(ident, f"do {ident}", (), deps, f"make {ident}", position, options=options)


def write(folder: Path, text: str) -> Path:
    (folder / "a.py").write_text("x\n", encoding="utf-8")
    path = folder / "plan.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def entry(ident: str, status: str | None = None, deps: str = "", reason: str | None = None) -> str:
    text = f"  - id: {ident}\n    change: do {ident}\n    evidence: [a.py]\n    proof: make {ident}\n"
    if deps:
        text += f"    depends_on: [{deps}]\n"
    if status:
        text += f"    status: {status}\n"
    if reason:
        text += f"    reason: {reason}\n"
    return text


# --- the library ------------------------------------------------------------------------------------


def test_status_is_todo_unless_given() -> None:
    assert progress.status(item("a")) == "todo"
    assert progress.status(item("a", status="doing")) == "doing"
    assert progress.STATUSES == ("todo", "doing", "done", "dropped")


def test_live_drops_only_the_dropped_and_keeps_the_tuple_when_none_is() -> None:
    items = (item("a"), item("b", status="dropped"), item("c", status="done"))
    assert [i.id for i in progress.live(items)] == ["a", "c"]
    plain = (item("a"), item("b"))
    assert progress.live(plain) is plain


def test_counts_name_every_status() -> None:
    assert progress.counts(["done", "todo", "done"]) == {"todo": 1, "doing": 0, "done": 2, "dropped": 0}


_DAGS = st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, n - 1), max_size=3), min_size=n, max_size=n),
    st.lists(st.sampled_from(["todo", "doing", "done", "dropped", None]), min_size=n, max_size=n)))


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(max_examples=300, deadline=None)
@given(_DAGS, st.randoms(use_true_random=False))
def test_the_wave_numbers_are_the_graph_modules_waves_of_the_live_items(dag: tuple[list[list[int]], list],
                                                                        rnd: random.Random) -> None:
    """In the plan's order (one pass) and shuffled (Kahn's algorithm): the same waves as networkx's."""
    edges, statuses = dag
    # Only on earlier items: no cycle (the checks have refused any before this runs).
    items = tuple(item(f"i{n}", tuple(f"i{d}" for d in deps if d < n), statuses[n], n)
                  for n, deps in enumerate(edges))
    if rnd.random() < 0.5:
        shuffled = list(items)
        rnd.shuffle(shuffled)
        items = tuple(shuffled)
    expected = waves(build_graph(progress.live(items)))
    numbers = progress.wave_numbers(items)
    assert {ident: w for w, wave in enumerate(expected, 1) for ident in wave} == numbers


def test_next_items_are_doing_first_then_in_wave_order() -> None:
    items = (item("a", status="done"), item("b", ("a",)), item("c", ("a",), "doing"), item("d", ("b",)),
             item("e"), item("f", ("c",), "doing"))
    found = progress.next_items(items, progress.wave_numbers(items))
    assert [(n.id, n.status, n.wave) for n in found] == [("c", "doing", 2), ("e", "todo", 1), ("b", "todo", 2)]
    assert found[0].proof == "make c" and found[0].depends_on == ("a",)


# --- `next`: the acceptance test, on a half-done plan ---------------------------------------------------


def test_next_on_a_half_done_plan_prints_the_doing_item_first_then_the_rest_of_its_wave(tmp_path: Path) -> None:
    """examples/progress/plan.yaml: contract done, implementation doing, backfill dropped (with its
    reason), docs and integration todo. integration waits on implementation and docs."""
    result = run("next", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "doing  wave 2  implementation: Reject normalized duplicates in create_account\n"
        "       proof: python3 -m unittest tests.test_accounts\n"
        "todo   wave 2  docs: Document the 409 response for a duplicate email\n"
        '       proof: grep -n "409" docs/api.md\n')
    assert result.stderr == f"{EXAMPLE}: 2 next items; 1 of 4 done, 1 dropped\n"


def test_next_json_has_stable_keys_for_agents() -> None:
    result = run("next", str(EXAMPLE), "--format", "json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert list(answer) == ["plan", "source", "status", "progress", "remaining", "all_done", "next", "issues"]
    assert answer["status"] == "ready" and answer["all_done"] is False and answer["issues"] == []
    assert answer["progress"] == {"todo": 2, "doing": 1, "done": 1, "dropped": 1}
    assert answer["remaining"] == 3
    assert answer["next"][0] == {
        "id": "implementation", "status": "doing", "wave": 2,
        "change": "Reject normalized duplicates in create_account",
        "proof": "python3 -m unittest tests.test_accounts", "depends_on": ["contract"]}
    assert [n["id"] for n in answer["next"]] == ["implementation", "docs"]


def test_next_moves_on_when_an_item_is_done(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE.parent.parent / "duplicate-email", tmp_path / "duplicate-email")
    (tmp_path / "progress").mkdir()
    text = EXAMPLE.read_text(encoding="utf-8").replace("status: doing", "status: done")
    text = text.replace('proof: grep -n "409" docs/api.md\n', 'proof: grep -n "409" docs/api.md\n    status: done\n')
    plan = tmp_path / "progress" / "plan.yaml"
    plan.write_text(text, encoding="utf-8")
    result = run("next", str(plan), "--root", str(tmp_path / "duplicate-email"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "todo  wave 3  integration: Run the whole suite against the new behavior"


def test_next_on_a_plan_with_nothing_started_is_its_first_wave(tmp_path: Path) -> None:
    plan = write(tmp_path, "items:\n" + entry("a") + entry("b", deps="a") + entry("c"))
    result = run("next", str(plan), "--format", "json")
    answer = json.loads(result.stdout)
    assert [(n["id"], n["wave"]) for n in answer["next"]] == [("a", 1), ("c", 1)]
    assert answer["progress"] == {"todo": 3, "doing": 0, "done": 0, "dropped": 0}


def test_next_when_everything_is_done_says_so_and_exits_0(tmp_path: Path) -> None:
    plan = write(tmp_path, "items:\n" + entry("a", "done") + entry("b", "done", deps="a")
                 + entry("c", "dropped", reason="not needed"))
    result = run("next", str(plan))
    assert (result.exit_code, result.stdout) == (0, "all 2 items done, 1 dropped\n")
    answer = json.loads(run("next", str(plan), "--format", "json").stdout)
    assert (answer["all_done"], answer["remaining"], answer["next"]) == (True, 0, [])


def test_next_when_every_item_is_dropped(tmp_path: Path) -> None:
    plan = write(tmp_path, "items:\n" + entry("a", "dropped", reason="r"))
    result = run("next", str(plan))
    assert (result.exit_code, result.stdout) == (0, "nothing to do: 1 item dropped\n")


def test_next_on_a_blocked_plan_shows_the_issues_as_check_does_and_exits_1(tmp_path: Path) -> None:
    plan = write(tmp_path, "items:\n" + entry("a", "dropped") + entry("b", deps="a"))
    result = run("next", str(plan))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == f"{plan}:6:13: error EP019 a is dropped without a reason"
    assert f"{plan}:11:18: error EP307 b depends on a, which is dropped" in result.stdout
    assert result.stdout == run("check", "--format", "text", str(plan)).stdout
    assert result.stderr == f"{plan}: blocked: 2 errors: fix them first, then ask again\n"
    answer = json.loads(run("next", str(plan), "--format", "json").stdout)
    assert (answer["status"], answer["next"]) == ("blocked", [])
    assert [(i["code"], i["item"], i["location"]["line"]) for i in answer["issues"]] == [
        ("EP019", "a", 6), ("EP307", "b", 11)]


def test_next_shows_warnings_and_is_not_blocked_by_them(tmp_path: Path) -> None:
    plan = write(tmp_path, "items:\n" + entry("a", "doing") + entry("b", "done", deps="a"))
    result = run("next", str(plan))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "doing  wave 1  a: do a"
    assert f"{plan}:11:18: warning EP308 b is done, but depends on a, which is doing" in result.stderr


def test_next_on_a_wrong_status_is_blocked_with_the_value_meant(tmp_path: Path) -> None:
    plan = write(tmp_path, "items:\n" + entry("a", "finished"))
    result = run("next", str(plan))
    assert result.exit_code == 1
    assert result.stdout == (f"{plan}:6:13: error EP011 a: status must be 'todo', 'doing', 'done' or"
                             " 'dropped', not 'finished'\n  hint: did you mean done?\n")


def test_next_on_an_unreadable_plan_is_exit_2(tmp_path: Path) -> None:
    result = run("next", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2 and "EP001" in result.stderr


def test_next_shows_plan_text_escaped(tmp_path: Path) -> None:
    plan = write(tmp_path, 'items:\n  - id: a\n    change: "x\\n::error::y"\n    evidence: [a.py]\n'
                           '    proof: "make\\x1b[2J"\n')
    result = run("next", str(plan))
    assert result.stdout == "todo  wave 1  a: x\\n::error::y\n      proof: make\\x1b[2J\n"


def test_next_help_has_examples() -> None:
    result = run("next", "--help")
    assert result.exit_code == 0 and "evidence-plan next plan.yaml --format json" in result.stdout
    assert "next" in run("--help").stdout


def test_next_of_a_ready_plan_imports_neither_pydantic_nor_networkx() -> None:
    code = ("import sys\nfrom compiler.cli import main\nmain(['next', sys.argv[1]])\n"
            "print(sorted(m for m in ('pydantic', 'networkx', 'jinja2', 'ruamel') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code, str(EXAMPLE)], capture_output=True, text=True, check=True,
                          cwd=REPO)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


@pytest.mark.performance
@pytest.mark.parametrize("listed", ["in order", "last first"])
def test_ordering_and_picking_the_next_items_is_linear(listed: str) -> None:
    """What next adds to check, the waves and the next items, on 10x the items: less than
    GROWTH_LIMIT times the calls (tests/work.py), in the plan's order (one pass) and listed last
    first (Kahn's algorithm): 10.0x measured both ways; a quadratic pass would be 100x."""
    def chain(n: int) -> tuple[Item, ...]:
        order = range(n) if listed == "in order" else range(n - 1, -1, -1)
        return tuple(item(f"i{k}", (f"i{k - 1}",) if k else (), "done" if k < n // 2 else None, p)
                     for p, k in enumerate(order))

    chains = {n: chain(n) for n in (2_000, 20_000)}
    large = chains[20_000]
    assert [n.id for n in progress.next_items(large, progress.wave_numbers(large))] == ["i10000"]
    grew = growth(lambda n: progress.next_items(chains[n], progress.wave_numbers(chains[n])), 2_000)
    assert grew.ratio < GROWTH_LIMIT, str(grew)


@pytest.mark.performance
def test_next_costs_little_more_than_check(tmp_path: Path) -> None:
    """next reads and checks the plan as check does, then orders it: at most twice check's calls
    (tests/work.py; 1.09x measured)."""
    from compiler.compile.pipeline import compile_plan

    n = 2_000
    items = [{"id": f"i{k}", "change": "c", "evidence": ["a.py"], "proof": "p",
              "depends_on": [f"i{k - 1}"] if k else [], "status": "done" if k < n // 2 else "todo"}
             for k in range(n)]
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"items": items}), encoding="utf-8")
    found = api_next.plan_next(str(path))  # and the imports, not counted
    assert [n.id for n in found.items] == ["i1000"]
    compile_plan(str(path), order=False)
    check = count(lambda: compile_plan(str(path), order=False))
    chosen = count(lambda: api_next.plan_next(str(path)))
    assert chosen.calls < 2 * check.calls, (chosen.calls, check.calls, chosen.top())
