"""The public API (`fixture_migrate.__all__`): its surface, its doctests, its errors."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path

import fixture_migrate
import pytest
from fixture_migrate import MigrationError, Status

from tests.helpers import ROOT

LEGACY = (
    '{\n  "schema_version": "prompt-examples/v1",\n  "skill": "demo",\n  "examples": [\n'
    '    {"name": "Says hi", "user_intent": "greet me", "expected_posture": "a greeting"}\n  ]\n}\n'
)


def test_the_surface_is_all_and_only_all() -> None:
    public = fixture_migrate.__all__
    assert len(set(public)) == len(public)
    assert dir(fixture_migrate) == sorted([*public, "__version__"])
    for name in public:
        assert (getattr(fixture_migrate, name).__doc__ or "").strip(), f"{name} has no docstring"
    with pytest.raises(AttributeError):
        fixture_migrate.Engine  # noqa: B018 - internals are not part of the API


def test_the_readme_names_only_public_names() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API", 1)[1].split("\n## ", 1)[0].split("### ", 1)[0]
    named = set(re.findall(r"fixture_migrate\.([A-Za-z]\w*)", section))
    assert named, "the README's Python API section names no fixture_migrate.<name>"
    assert named <= set(fixture_migrate.__all__)


def test_public_names_print_under_the_package() -> None:
    for name in ("Plan", "Status", "MigrationError"):
        assert getattr(fixture_migrate, name).__module__ == "fixture_migrate"


@pytest.mark.parametrize("module", ["fixture_migrate", "fixture_migrate._api"])
def test_doctests(module: str) -> None:
    imported = __import__(module, fromlist=["_"])
    result = doctest.testmod(imported, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if module == "fixture_migrate._api":
        assert result.attempted >= 9  # one example or more per entry point


def test_import_is_cheap() -> None:
    code = (
        "import sys, fixture_migrate; "
        "assert fixture_migrate.migrate_text(sys.argv[1]) != sys.argv[1].encode(); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'libcst', 'ruamel', 'typer', 'rich', 'pathspec'}))"
    )
    done = subprocess.run([sys.executable, "-c", code, LEGACY], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_migrate_text_keeps_unmoved_text_and_is_stable() -> None:
    new = fixture_migrate.migrate_text(LEGACY)
    assert b'"schema_version": "spec-first.workflow-eval-fixtures.v1"' in new
    assert b'"id": "says-hi"' in new
    assert fixture_migrate.migrate_text(new) == new
    assert fixture_migrate.migrate_text(new.decode()) == new


def test_migrate_text_leaves_a_non_fixture_as_it_is() -> None:
    assert fixture_migrate.migrate_text(b'{"name": "package.json"}') == b'{"name": "package.json"}'


def test_migrate_text_reads_the_syntax_of_its_path() -> None:
    yaml = "schema_version: prompt-examples/v1\nskill: demo\nexamples:\n  - name: Hi\n    user_intent: greet me\n"
    new = fixture_migrate.migrate_text(yaml, path="evals/cases.yaml").decode()
    assert "schema_version: spec-first.workflow-eval-fixtures.v1" in new
    assert "id: hi" in new


def test_migrate_text_infers_the_skill_from_its_path(tmp_path: Path) -> None:
    text = '{"schema_version": "prompt-examples/v1", "examples": []}'
    new = fixture_migrate.migrate_text(text, path="skills/review/evals/x.json", repo_root=tmp_path)
    assert fixture_migrate.load("x.json", new)[0]["skill"] == "review"


def test_migration_error_carries_place_and_code() -> None:
    with pytest.raises(MigrationError) as caught:
        fixture_migrate.migrate_text('{\n  "a": 1,\n  "a": 2\n}', path="dup.json")
    error = caught.value
    assert (error.path, error.line, error.code) == (Path("dup.json"), 3, "duplicate_key")
    assert error.column is not None
    assert str(error).startswith("dup.json:3:")
    assert isinstance(error, Exception)


def test_plan_file_writes_nothing(tmp_path: Path) -> None:
    file = tmp_path / "cases.json"
    file.write_text(LEGACY)
    plan = fixture_migrate.plan_file(file)
    assert plan.status is Status.CHANGED and plan.changed
    assert plan.line == 2
    assert file.read_text() == LEGACY
    assert plan.diff(repo_root=tmp_path).startswith("--- a/cases.json\n+++ b/cases.json\n")


@pytest.mark.parametrize(
    ("text", "status"),
    [
        pytest.param('{"name": "x"}', Status.NOT_FIXTURE, id="not-fixture"),
        pytest.param("{", Status.ERROR, id="error"),
    ],
)
def test_plan_file_statuses(tmp_path: Path, text: str, status: Status) -> None:
    file = tmp_path / "x.json"
    file.write_text(text)
    plan = fixture_migrate.plan_file(file)
    assert plan.status is status
    assert (plan.error is not None) == (status is Status.ERROR)
    assert plan.diff() == ""


def test_migrate_file_renames_jsonl(tmp_path: Path) -> None:
    file = tmp_path / "out.jsonl"
    file.write_text('{"id": "a", "prompt": "x", "baseline_output": "y", "with_skill_output": "z"}\n')
    plan = fixture_migrate.migrate_file(file, skill="demo")
    assert plan.status is Status.CHANGED
    assert plan.new_path == tmp_path / "out.json"
    assert not file.exists()
    assert fixture_migrate.load(tmp_path / "out.json")[0]["skill"] == "demo"


def test_migrate_file_raises_on_a_bad_file(tmp_path: Path) -> None:
    file = tmp_path / "bad.json"
    file.write_text("[1, 2")
    with pytest.raises(MigrationError) as caught:
        fixture_migrate.migrate_file(file)
    assert caught.value.path == file and caught.value.code == "invalid_json"
    assert file.read_text() == "[1, 2"


def test_load_reads_every_syntax(tmp_path: Path) -> None:
    assert fixture_migrate.load("a.json", '{"a": 1}') == [{"a": 1}]
    assert fixture_migrate.load("a.jsonl", '{"a": 1}\n{"a": 2}\n') == [[{"a": 1}, {"a": 2}]]
    assert fixture_migrate.load("a.yaml", "a: 1e3\n---\nb: 0x1F\n") == [{"a": "1e3"}, {"b": "0x1F"}]
    assert fixture_migrate.load("a.py", 'CASES = [{"id": "a", "input": "x"}]\n') == [[{"id": "a", "input": "x"}]]
    with pytest.raises(MigrationError):
        fixture_migrate.load(tmp_path / "missing.json")


def test_normalize_a_file(tmp_path: Path) -> None:
    file = tmp_path / "skills" / "demo" / "evals" / "cases.json"
    file.parent.mkdir(parents=True)
    file.write_text(LEGACY)
    [case] = fixture_migrate.normalize(file, repo_root=tmp_path)
    assert case["source_file"] == "skills/demo/evals/cases.json"
    assert case["normalized_from"] == "legacy_adapter"
    assert case["expected_outcome"] == "a greeting"


def test_validate_files_places_errors_and_counts_duplicates_across_files(tmp_path: Path) -> None:
    body = '{{\n  "schema_version": "spec-first.workflow-eval-fixtures.v1",\n  "skill": "demo",\n  "cases": [\n    {{"id": "a", "input": "x", "coverage_tags": [{tag}], "source_refs": ["README.md"]}}\n  ]\n}}\n'
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "one.json").write_text(body.format(tag='"ok"'))
    (tmp_path / "two.json").write_text(body.format(tag='"Bad"'))
    errors = fixture_migrate.validate(tmp_path, repo_root=tmp_path)
    codes = sorted((e["source_file"], e["reason_code"], e["line"]) for e in errors)
    assert codes == [("two.json", "duplicate_case_id", 5), ("two.json", "invalid_coverage_tag", 5)]
    assert fixture_migrate.validate(tmp_path / "one.json", repo_root=tmp_path) == []


def test_validate_raises_for_a_file_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(MigrationError) as caught:
        fixture_migrate.validate([tmp_path / "bad.json"])
    assert caught.value.code == "invalid_json"


def test_import_file_is_stable_and_can_dry_run(tmp_path: Path) -> None:
    source = tmp_path / "samples.jsonl"
    source.write_text('{"input": "2+2?", "ideal": "4"}\n')
    dest = tmp_path / "evals" / "imported.json"
    dry = fixture_migrate.import_file(source, dest, skill="math", repo_root=tmp_path, write=False)
    assert dry.status is Status.CHANGED and not dest.exists()
    done = fixture_migrate.import_file([source], dest, skill="math", repo_root=tmp_path)
    assert dest.read_bytes() == done.new_bytes == dry.new_bytes
    again = fixture_migrate.import_file(source, dest, skill="math", repo_root=tmp_path)
    assert again.status is Status.UNCHANGED


def test_import_file_raises_when_no_format_claims_the_source(tmp_path: Path) -> None:
    source = tmp_path / "notes.json"
    source.write_text('{"hello": "world"}')
    with pytest.raises(MigrationError):
        fixture_migrate.import_file(source, tmp_path / "x.json", repo_root=tmp_path)


def test_a_plugin_adapter_needs_only_the_api() -> None:
    adapter = fixture_migrate.FamilyAdapter(name="mine_v1", schema_version="mine/v1", summary="mine")
    assert isinstance(adapter, fixture_migrate.Adapter)
    assert fixture_migrate.Context(source_file="skills/x/evals/a.json").skill_for({}) == "x"


def test_files_follow_the_nearest_configuration(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixture-migrate]\npy-name = ["MY_CASES"]\nexclude = ["skills/old"]\n\n'
        '[tool.fixture-migrate.skill]\n"skills/tea/**" = "tea-sommelier"\n'
    )
    module = tmp_path / "skills" / "tea" / "test_cases.py"
    module.parent.mkdir(parents=True)
    module.write_text('MY_CASES = [{"name": "Steep", "user_intent": "how long?", "expected": "3 min"}]\n')
    plan = fixture_migrate.plan_file(module)
    assert (plan.status, plan.adapters) == (Status.CHANGED, ("case_list",))
    [case] = fixture_migrate.normalize(module)
    assert (case["skill"], case["source_file"]) == ("tea-sommelier", "skills/tea/test_cases.py")
    assert fixture_migrate.plan_file(module, skill="other").status is Status.CHANGED
    (tmp_path / "skills" / "old").mkdir()
    (tmp_path / "skills" / "old" / "x.json").write_text("{")
    assert [p.name for p in fixture_migrate.fixture_files(tmp_path, repo_root=tmp_path)] == ["test_cases.py"]
    assert fixture_migrate.validate(tmp_path / "skills", check_refs=False)  # the old, broken file is excluded


def test_a_bad_configuration_is_a_migration_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.fixture-migrate]\nno-such-key = 1\n")
    (tmp_path / "a.json").write_text("{}")
    with pytest.raises(MigrationError) as caught:
        fixture_migrate.plan_file(tmp_path / "a.json")
    assert caught.value.code == "config"
    assert "no-such-key" in caught.value.message


def test_export_file_reports_losses_and_can_dry_run(tmp_path: Path) -> None:
    case = {"id": "sum", "input": "2+2?", "boundary_note": "Integers only.", "expected_outcome": "4"}
    fixture = {"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "math", "cases": [case]}
    (tmp_path / "math.json").write_text(json.dumps(fixture))
    dest = tmp_path / "out" / "samples.jsonl"
    dry = fixture_migrate.export_file(tmp_path / "math.json", dest, to="openai-evals", write=False)
    assert dry.status is Status.CHANGED and not dest.exists()
    assert [(x["case"], x["field"], x["kind"]) for x in dry.losses] == [("sum", "boundary_note", "metadata")]
    with pytest.raises(MigrationError) as caught:
        fixture_migrate.export_file(tmp_path / "math.json", dest, to="openai-evals", strict=True)
    assert caught.value.code == "loss" and not dest.exists()
    done = fixture_migrate.export_file([tmp_path / "math.json"], dest, to="openai-evals")
    assert dest.read_bytes() == done.new_bytes
    assert fixture_migrate.export_file(tmp_path / "math.json", dest, to="openai-evals").status is Status.UNCHANGED


# -- encoding and decoding failures are MigrationError at the character (issue 22, item 5) --

_LONE = "\ud800"


def _surrogate_calls(tmp_path):
    good = tmp_path / "good.json"
    good.write_text('{"skill": "demo", "cases": []}')
    bad = tmp_path / f"a{_LONE}.json"
    return {
        "migrate_text": lambda: fixture_migrate.migrate_text("{}", path=bad, repo_root=tmp_path),
        "plan_file": lambda: fixture_migrate.plan_file(bad, repo_root=tmp_path),
        "migrate_file": lambda: fixture_migrate.migrate_file(bad, repo_root=tmp_path),
        "load": lambda: fixture_migrate.load(bad),
        "normalize": lambda: fixture_migrate.normalize(bad, repo_root=tmp_path),
        "validate": lambda: fixture_migrate.validate([good, bad], repo_root=tmp_path),
        "fixture_files": lambda: fixture_migrate.fixture_files(bad, repo_root=tmp_path),
        "import_file": lambda: fixture_migrate.import_file(bad, tmp_path / "out.json", repo_root=tmp_path),
        "export_file": lambda: fixture_migrate.export_file(good, bad, to="inspect", repo_root=tmp_path),
        "find_consumers": lambda: fixture_migrate.find_consumers(bad, repo_root=tmp_path),
    }


API_FUNCTIONS = [
    "migrate_text",
    "plan_file",
    "migrate_file",
    "load",
    "normalize",
    "validate",
    "fixture_files",
    "import_file",
    "export_file",
    "find_consumers",
]


def test_every_public_function_is_covered():
    public = {name for name in fixture_migrate.__all__ if callable(getattr(fixture_migrate, name))}
    classes = {"Plan", "Status", "MigrationError", "Adapter", "FamilyAdapter", "Context"}
    assert public - classes == set(API_FUNCTIONS)


@pytest.mark.parametrize("name", API_FUNCTIONS)
def test_a_path_holding_a_lone_surrogate_is_a_migration_error(tmp_path, name):
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        _surrogate_calls(tmp_path)[name]()
    assert raised.value.code == "encoding"
    assert "U+D800 at character" in raised.value.message and "\\ud800" in raised.value.message


@pytest.mark.parametrize("name", ["migrate_text", "load"])
def test_text_holding_a_lone_surrogate_is_placed_at_the_character(name):
    text = '{"skill": "demo",\n "cases": [{"id": "a\ud800"}]}'
    call = fixture_migrate.migrate_text if name == "migrate_text" else lambda t: fixture_migrate.load("x.json", t)
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        call(text)
    assert (raised.value.code, raised.value.line, raised.value.column) == ("encoding", 2, 21)
    assert "U+D800" in raised.value.message


def _undecodable(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"skill": "demo",\n "cases": [{"id": "a\xff"}]}')
    return path


@pytest.mark.parametrize(
    "name",
    ["migrate_text", "plan_file", "migrate_file", "load", "normalize", "validate", "import_file", "export_file"],
)
def test_undecodable_bytes_are_a_migration_error_at_the_byte(tmp_path, name):
    path = _undecodable(tmp_path)
    calls = {
        "migrate_text": lambda: fixture_migrate.migrate_text(path.read_bytes()),
        "plan_file": lambda: _raise(fixture_migrate.plan_file(path, repo_root=tmp_path).error),
        "migrate_file": lambda: fixture_migrate.migrate_file(path, repo_root=tmp_path),
        "load": lambda: fixture_migrate.load(path),
        "normalize": lambda: fixture_migrate.normalize(path, repo_root=tmp_path),
        "validate": lambda: fixture_migrate.validate(path, repo_root=tmp_path),
        "import_file": lambda: fixture_migrate.import_file(path, tmp_path / "out.json", repo_root=tmp_path),
        "export_file": lambda: fixture_migrate.export_file(path, tmp_path / "out.jsonl", to="inspect", repo_root=tmp_path),
    }
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        calls[name]()
    assert (raised.value.code, raised.value.line, raised.value.column) == ("encoding", 2, 21), str(raised.value)


def _raise(error):
    assert error is not None
    raise error


def test_fixture_files_leaves_out_a_walked_symlink_leading_outside(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "evals").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.json").write_text("{}")
    (root / "evals" / "a.json").write_text("{}")
    (root / "evals" / "b.json").symlink_to(outside / "secret.json")
    assert [p.name for p in fixture_migrate.fixture_files(root, repo_root=root)] == ["a.json"]
