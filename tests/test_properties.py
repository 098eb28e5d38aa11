"""Properties over random plans (hypothesis), and random damage to real plan files.

For random valid plans (ids from a safe alphabet, a random dependency DAG listed in random
order, any text in the other fields): the plan is ready; every item is in exactly one wave; each
item's wave comes right after the latest wave of its dependencies; ids are sorted in a wave; the
output is deterministic (the same bytes twice, and the same document from YAML and from JSON
input); the compiled evidence-plan.json read back as a plan gives the same items and waves; and
``convert`` YAML -> JSON -> YAML keeps every item.

For random mutations of valid plan files (bytes deleted, inserted or replaced, lines swapped,
duplicated or deleted, the file truncated), ``check`` ends with exit 0, 1 or 2: never a
traceback, never an internal error.

Deterministic: a fixed profile (derandomize=True, no example database), modest example counts.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.cli import main
from compiler.compile.emit import build_output, dumps
from compiler.compile.pipeline import compile_plan
from compiler.model.output_model import CompiledPlan

REPO = Path(__file__).resolve().parent.parent

settings.register_profile(
    "evidence-plan-properties",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=50,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = settings.get_profile("evidence-plan-properties")


# --- random valid plans ---------------------------------------------------------------------------

_ID_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ID_REST = _ID_START + "0123456789-_./:"
ids = st.builds(lambda a, b: a + b, st.sampled_from(_ID_START), st.text(_ID_REST, max_size=12))
# Any text but surrogates (which no UTF-8 file can hold); blank text counts as missing.
text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40).filter(lambda s: s.strip() != "")
evidence_entry = st.one_of(
    st.sampled_from(["app.py", "app/accounts.py:18", "app/accounts.py:18-24", "lib/m.py::Cls.method",
                     "docs/", "https://example.com/issue/1"]),
    st.builds(lambda path, start, length: f"{path}:{start}-{start + length}",
              st.sampled_from(["a.py", "src/b.ts", "c d/e.md"]), st.integers(1, 10**6), st.integers(0, 50)),
    st.builds(lambda path, start, contains: {"path": path, "lines": f"{start}-{start + 3}", "contains": contains},
              st.sampled_from(["a.py", "x/y.go"]), st.integers(1, 1000), text),
    st.builds(lambda path, line: {"path": path, "line": line}, st.sampled_from(["a.py", "z.rs"]), st.integers(1, 99)),
)


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    """A plan as data: distinct ids, dependencies only on earlier items of a hidden order, items
    then listed in a random order (so dependencies point forwards and backwards)."""
    names = draw(st.lists(ids, min_size=1, max_size=10, unique_by=str.lower))
    items = []
    for n, ident in enumerate(names):
        deps = draw(st.lists(st.sampled_from(names[:n]), unique=True, max_size=min(n, 4))) if n else []
        item: dict[str, Any] = {
            "id": ident,
            "change": draw(text),
            "evidence": draw(st.lists(evidence_entry, min_size=1, max_size=3, unique_by=repr)),
            "proof": draw(text),
        }
        if deps or draw(st.booleans()):
            item["depends_on"] = deps
        items.append(item)
    order = draw(st.permutations(items))
    data: dict[str, Any] = {}
    if draw(st.booleans()):
        data["plan"] = draw(text)
    if draw(st.booleans()):
        data["goal"] = draw(text)
    data["items"] = list(order)
    return data


def yaml_quote(value: str) -> str:
    """A YAML double-quoted scalar: printable ASCII as is, everything else escaped (\\u, \\U)."""
    out = []
    for ch in value:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block-style YAML written by hand (not by the product's own dumper)."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        lines = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{key}:\n{to_yaml(item, indent + 2)}")
            else:
                lines.append(f"{pad}{key}: {to_yaml(item)}")
        return "\n".join(lines)
    if isinstance(value, list):
        if not value:
            return "[]"
        lines = []
        for item in value:
            if isinstance(item, dict) and item:
                body = to_yaml(item, indent + 2)
                lines.append(f"{pad}- {body[indent + 2:]}")
            else:
                lines.append(f"{pad}- {to_yaml(item)}")
        return "\n".join(lines)
    if isinstance(value, str):
        return yaml_quote(value)
    return json.dumps(value)


def write_plan(folder: Path, data: dict[str, Any], fmt: str) -> Path:
    path = folder / f"plan.{fmt}"
    text_ = to_yaml(data) + "\n" if fmt == "yaml" else json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    path.write_text(text_, encoding="utf-8")
    return path


def fresh(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    return folder


def without_locations(document: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in document.items() if k != "source"}
    out["issues"] = [{k: v for k, v in issue.items() if k not in ("location", "related")}
                     for issue in document["issues"]]
    return out


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@PROFILE
@given(data=plans())
def test_random_plans_compile_into_valid_waves(data: dict[str, Any], tmp_path: Path) -> None:
    folder = fresh(tmp_path, "plan")
    path = write_plan(folder, data, "yaml")
    result = compile_plan(str(path), verify_evidence=False)
    assert result.status == "ready", [str(d.location) + " " + d.message for d in result.diagnostics]
    deps = {item["id"]: item.get("depends_on", []) for item in data["items"]}
    wave_of: dict[str, int] = {}
    for n, wave in enumerate(result.waves, 1):
        assert list(wave) == sorted(wave), wave
        assert wave, "no empty wave"
        for ident in wave:
            assert ident not in wave_of, f"{ident} in two waves"
            wave_of[ident] = n
    assert set(wave_of) == set(deps), "every item in exactly one wave"
    for ident, needs in deps.items():
        assert all(wave_of[d] < wave_of[ident] for d in needs), (ident, needs)
        assert wave_of[ident] == 1 + max((wave_of[d] for d in needs), default=0), "as early as possible"
    assert [item.id for item in result.plan.items] == [item["id"] for item in data["items"]], "input order"
    CompiledPlan.model_validate(build_output(result, folder))  # what compile writes, the output model describes


@pytest.mark.slow
@settings(PROFILE, max_examples=30)
@given(data=plans())
def test_output_is_deterministic_and_the_same_from_yaml_and_json(data: dict[str, Any], tmp_path: Path) -> None:
    folder = fresh(tmp_path, "plan")
    yaml_path = write_plan(folder, data, "yaml")
    json_path = write_plan(folder, data, "json")
    first = dumps(build_output(compile_plan(str(yaml_path), verify_evidence=False), folder))
    second = dumps(build_output(compile_plan(str(yaml_path), verify_evidence=False), folder))
    assert first == second
    from_json = build_output(compile_plan(str(json_path), verify_evidence=False), folder)
    assert dumps(from_json) == dumps(build_output(compile_plan(str(json_path), verify_evidence=False), folder))
    assert without_locations(json.loads(first)) == without_locations(from_json)
    CompiledPlan.model_validate(from_json)  # what compile writes, the output model describes


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(PROFILE, max_examples=25)
@given(data=plans())
def test_compiled_json_reads_back_as_the_same_plan(data: dict[str, Any], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = fresh(tmp_path, "plan")
    path = write_plan(folder, data, "yaml")
    out_dir = folder / "out"
    assert main(["compile", "--no-verify-evidence", str(path), "-o", str(out_dir)]) == 0, capsys.readouterr()
    capsys.readouterr()
    original = compile_plan(str(path), verify_evidence=False)
    CompiledPlan.model_validate_json((out_dir / "evidence-plan.json").read_bytes())
    again = compile_plan(str(out_dir / "evidence-plan.json"), verify_evidence=False)
    assert again.status == "ready"
    assert [i.to_dict() for i in again.plan.items] == [i.to_dict() for i in original.plan.items]
    assert again.waves == original.waves
    assert again.critical_path == original.critical_path
    assert (again.plan.name, again.plan.goal) == (original.plan.name, original.plan.goal)


@pytest.mark.slow  # a property test: the full suite runs it, the inner loop does not
@settings(PROFILE, max_examples=25)
@given(data=plans())
def test_convert_yaml_json_yaml_keeps_every_item(data: dict[str, Any], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = fresh(tmp_path, "plan")
    path = write_plan(folder, data, "yaml")
    as_json, as_yaml = folder / "converted.json", folder / "converted.yaml"
    assert main(["convert", "--no-verify-evidence", str(path), str(as_json)]) == 0, capsys.readouterr()
    assert main(["convert", "--no-verify-evidence", str(as_json), str(as_yaml)]) == 0, capsys.readouterr()
    capsys.readouterr()
    original = compile_plan(str(path), verify_evidence=False)
    for converted in (as_json, as_yaml):
        result = compile_plan(str(converted), verify_evidence=False)
        assert [i.to_dict() for i in result.plan.items] == [i.to_dict() for i in original.plan.items]
        assert result.waves == original.waves
        assert (result.plan.name, result.plan.goal) == (original.plan.name, original.plan.goal)
    # And once more around: a fixed point.
    again = folder / "again.yaml"
    assert main(["convert", "--no-verify-evidence", str(as_yaml), str(again)]) == 0
    capsys.readouterr()
    assert again.read_bytes() == as_yaml.read_bytes()


# --- random damage to real plan files ----------------------------------------------------------

_SEED_FILES = [
    REPO / "examples" / "duplicate-email" / "plan.yaml",
    REPO / "examples" / "blocked" / "plan.yaml",
    REPO / "tests" / "cases" / "ready-json" / "plan.json",
    REPO / "tests" / "cases" / "ready-compiled-json" / "plan.json",
    REPO / "outputs" / "evidence-plan.json",
]
_SEED_TEXTS = {
    "flow.yaml": b"plan: flow\nitems:\n  - {id: a, change: 'Do a', evidence: [app.py:1], proof: make a}\n"
                 b"  - {id: b, change: \"Do b\", evidence: [{path: app.py, lines: 1-2, contains: x}],"
                 b" depends_on: [a], proof: make b}\n",
    "anchors.yaml": b"# anchors and a block scalar\nitems:\n  - id: a\n    change: |\n      Do a\n      well\n"
                    b"    evidence: &ev [app.py]\n    proof: >-\n      make\n      a\n  - id: b\n    change: Do b\n"
                    b"    evidence: *ev\n    dependencies: [a]\n    proof: make b\n",
    "list.yaml": b"- id: a\n  change: Do a\n  evidence: [app.py]\n  proof: make a\n",
    "crlf.yaml": b"items:\r\n  - id: a\r\n    change: Do a\r\n    evidence: [app.py]\r\n    proof: make a\r\n",
    "plan.json": b'{\n  "plan": "j",\n  "items": [\n    {"id": "a", "change": "Do a", "evidence": ["app.py:1"],'
                 b' "proof": "make a"},\n    {"id": "b", "change": "Do b", "evidence": [{"path": "app.py",'
                 b' "line": 1}], "depends_on": ["a"], "proof": "make b"}\n  ]\n}\n',
}
SEEDS: dict[str, bytes] = {**{f"{p.parent.name}-{p.name}": p.read_bytes() for p in _SEED_FILES if p.exists()},
                           **_SEED_TEXTS}
_NASTY = b"\x00\xff\xfe\t\r\n \"'[]{}&*!:-#%|>@`,?\\\x85\xe2\x80\xa8"


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(SEEDS)))
    data = bytearray(SEEDS[name])
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "swap", "duplicate", "drop-line", "truncate"]))
        size = len(data)
        pos = draw(st.integers(0, max(size - 1, 0)))
        if op == "delete":
            del data[pos:pos + draw(st.integers(1, 12))]
        elif op in ("insert", "replace"):
            chunk = draw(st.one_of(
                st.binary(min_size=1, max_size=6),
                st.lists(st.sampled_from(list(_NASTY)), min_size=1, max_size=6).map(bytes),
                st.sampled_from([b": ", b"- ", b"&a ", b"*a", b"!!python/object:os.system ", b"<<: ", b"\n  ",
                                 b"%YAML 1.1\n---\n", b"\xef\xbb\xbf", b"NaN", b"1e999", b"9" * 40, b"\\ud800"])))
            if op == "insert":
                data[pos:pos] = chunk
            else:
                data[pos:pos + len(chunk)] = chunk
        elif op in ("swap", "duplicate", "drop-line"):
            lines = bytes(data).splitlines(keepends=True)
            if len(lines) < 2:
                continue
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if op == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            elif op == "duplicate":
                lines.insert(j, lines[i])
            else:
                del lines[i]
            data = bytearray(b"".join(lines))
        else:
            del data[pos:]
    return name, bytes(data)


def _check_survives(capsys: pytest.CaptureFixture[str], *argv: str) -> None:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "internal error" not in err, err
    assert code in (0, 1, 2), (code, out[-2000:], err[-2000:])


@settings(PROFILE, max_examples=300)
@pytest.mark.hostile  # damaged plans: a fuzz test, with the hostile corpus's tests
@given(case=mutations())
def test_damaged_plans_never_crash_check(case: tuple[str, bytes], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    name, content = case
    suffix = ".json" if name.endswith(".json") else ".yaml"
    path = tmp_path / f"damaged{suffix}"
    path.write_bytes(content)
    _check_survives(capsys, "check", "--no-verify-evidence", str(path))


@settings(PROFILE, max_examples=150)
@pytest.mark.hostile
@given(case=mutations())
def test_whatever_compile_writes_render_reads(case: tuple[str, bytes], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Blocked plans too: every document compile writes matches the output model, and render
    reads it (a blocked plan's hints once made render refuse what compile had just written)."""
    name, content = case
    path = tmp_path / ("damaged.json" if name.endswith(".json") else "damaged.yaml")
    path.write_bytes(content)
    code = main(["compile", "--no-verify-evidence", str(path), "-o", str(tmp_path / "out")])
    capsys.readouterr()
    if code in (0, 1):
        compiled = tmp_path / "out" / "evidence-plan.json"
        CompiledPlan.model_validate(json.loads(compiled.read_text(encoding="utf-8")))
        assert main(["render", str(compiled)]) == 0, capsys.readouterr()
        capsys.readouterr()


@settings(PROFILE, max_examples=100)
@pytest.mark.hostile
@given(case=mutations())
def test_damaged_plans_never_crash_evidence_verification_or_fix(case: tuple[str, bytes], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The same damage with evidence verified against the example repository (read-only), and
    fix --dry-run, which edits nothing."""
    name, content = case
    suffix = ".json" if name.endswith(".json") else ".yaml"
    path = tmp_path / f"damaged{suffix}"
    path.write_bytes(content)
    root = str(REPO / "examples" / "duplicate-email")
    _check_survives(capsys, "check", "--format", "json", "--root", root, str(path))
    _check_survives(capsys, "fix", "--dry-run", "--root", root, str(path))
    assert path.read_bytes() == content
