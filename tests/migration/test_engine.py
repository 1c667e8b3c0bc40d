"""`fixture_migrate.migration.engine`: plan, check, apply; one file's failure is that file's."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixture_migrate.adapting.protocol import FamilyAdapter
from fixture_migrate.claiming.registry import Registry
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats.target import Obj, Src, Val
from fixture_migrate.migration import engine as engine_module
from fixture_migrate.migration.engine import Engine, Options, first_changed_line, unexpected

LEGACY = b'{"schema_version": "prompt-examples/v1", "skill": "demo", "examples": [{"name": "A", "user_intent": "x"}]}\n'
CANONICAL = b'{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo", "cases": [{"id": "a", "input": "x"}]}\n'


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return Engine(Options(repo_root=tmp_path))


def test_statuses(engine: Engine, tmp_path: Path):
    path = tmp_path / "a.json"
    changed = engine.plan_bytes(path, LEGACY)
    assert (changed.status, changed.adapters, changed.cases) == ("changed", ["prompt_examples_v1"], 1)
    assert changed.to_extensions == {"prompt_examples_v1": 2}  # `name`, and the legacy version as migrated_from
    assert engine.plan_bytes(path, CANONICAL).status == "unchanged"
    assert engine.plan_bytes(path, b'{"name": "x"}').status == "not_fixture"
    broken = engine.plan_bytes(path, b"{")
    assert broken.status == "error" and broken.error.code == "invalid_json"


def test_every_outcome_is_a_member_of_the_one_status_enum(tmp_path: Path):
    """The engine, a cached verdict and the public API give `Status` members, not bare words."""
    import fixture_migrate
    from fixture_migrate.migration.cache import Cache, digest
    from fixture_migrate.migration.status import Status

    assert fixture_migrate.Status is Status
    options = Options(repo_root=tmp_path)
    engine = Engine(options)
    path = tmp_path / "a.json"
    found = [engine.plan_bytes(path, raw).status for raw in (LEGACY, CANONICAL, b'{"name": "x"}', b"{")]
    assert found == [Status.CHANGED, Status.UNCHANGED, Status.NOT_FIXTURE, Status.ERROR]
    assert all(type(status) is Status for status in found)
    path.write_bytes(CANONICAL)
    entry = [digest(CANONICAL).hex(), "unchanged", ["canonical"], 1, 1, {}, "", False]  # a word, as the cache file holds it
    cache = Cache(tmp_path / "verdicts.cache", "key", {"a.json": entry})
    cached = Engine(options, cache=cache).cached(path)
    assert cached is not None and type(cached.status) is Status and cached.status is Status.UNCHANGED


def test_plan_reads_and_apply_writes(engine: Engine, tmp_path: Path):
    path = tmp_path / "a.json"
    path.write_bytes(LEGACY)
    result = engine.plan(path)
    assert path.read_bytes() == LEGACY
    engine.apply(result)
    assert path.read_bytes() == result.new_bytes
    assert engine.plan(path).status == "unchanged"


def test_apply_refuses_a_file_changed_since_it_was_planned(engine: Engine, tmp_path: Path):
    path = tmp_path / "a.json"
    path.write_bytes(LEGACY)
    result = engine.plan(path)
    path.write_bytes(LEGACY + b"\n")
    with pytest.raises(FixtureError) as caught:
        engine.apply(result)
    assert caught.value.code == "changed_meanwhile"
    assert path.read_bytes() == LEGACY + b"\n"


def test_a_jsonl_file_is_planned_under_its_new_name(engine: Engine, tmp_path: Path):
    path = tmp_path / "out.jsonl"
    result = engine.plan_bytes(path, b'{"id": "a", "prompt": "p", "baseline_output": "b", "with_skill_output": "w"}\n')
    assert result.status == "changed" and result.new_path == tmp_path / "out.json"


class _Lossy:
    """An adapter whose migration drops a value: the engine must refuse it."""

    name, kind, summary = "lossy", "family", "drops the skill"

    def claims(self, unit):
        return isinstance(unit.data, dict) and unit.data.get("schema_version") == "lossy/v1"

    def to_canonical(self, unit, context):
        return Obj([("schema_version", Val("spec-first.workflow-eval-fixtures.v1")), ("cases", Src(("cases",)))])


def test_a_migration_that_loses_a_value_is_refused(tmp_path: Path):
    engine = Engine(Options(repo_root=tmp_path), Registry([_Lossy()]))
    result = engine.plan_bytes(tmp_path / "a.json", b'{"schema_version": "lossy/v1", "owner": "me", "cases": []}')
    assert result.status == "error"
    assert result.error.code == "conservation"
    assert "'lossy/v1'" in result.error.message or "'me'" in result.error.message


def test_a_bug_in_an_adapter_is_an_internal_error_of_that_file(tmp_path: Path, monkeypatch):
    family = FamilyAdapter(name="f", schema_version="f/v1", summary="f")
    engine = Engine(Options(repo_root=tmp_path), Registry([family]))
    monkeypatch.setattr(engine_module, "load_document", lambda *a, **k: (_ for _ in ()).throw(KeyError("boom")))
    result = engine.plan_bytes(tmp_path / "a.json", b"{}")
    assert result.status == "error" and result.error.code == "internal"
    assert "KeyError" in result.error.message


def test_unexpected():
    assert unexpected(RecursionError()).code == "too_deep"
    assert unexpected(ValueError("use sys.set_int_max_str_digits()")).code == "integer_too_long"
    assert unexpected(ZeroDivisionError("x")).code == "internal"


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [(b"a\nb\nc\n", b"a\nB\nc\n", 2), (b"a\n", b"b\n", 1), (b"a\nb", b"a\nb\nc", 2), (b"same", b"same", 1)],
)
def test_first_changed_line(old, new, line):
    assert first_changed_line(old, new) == line


def test_options_context_infers_nothing_itself(tmp_path: Path):
    context = Options(repo_root=tmp_path, skill="given").context(tmp_path / "skills" / "x" / "evals" / "a.json")
    assert (context.source_file, context.skill) == ("skills/x/evals/a.json", "given")


# The canonical fast path (`claiming.rules.proven_unchanged`, before any claim rule or mapper)
# against the full path: payloads near
# the canonical shape, members at home or not, in JSON and YAML.

CANONICAL_VERSION = "spec-first.workflow-eval-fixtures.v1"
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", " ", "x", "trigger", "a b"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["k", "name", "id"]), inner, max_size=2), max_leaves=6)
_CASE_MEMBERS = st.sampled_from(
    ["id", "input", "coverage_tags", "expected_outcome", "boundary_note", "forbidden_signals", "source_refs",
     "source_ref_authority", "extensions", "name", "user_intent", "expected", "negative_signal", "must_find"]
)  # fmt: skip
_FILE_MEMBERS = st.sampled_from(
    ["skill", "description", "source_refs", "source_ref_authority", "coverage_tags", "extensions", "examples", "notes"]
)
_AT_HOME_CASE = st.dictionaries(
    st.sampled_from(["id", "input", "coverage_tags", "expected_outcome", "extensions"]), _VALUES, min_size=1
)
_CASE = st.one_of(st.dictionaries(_CASE_MEMBERS, _VALUES, max_size=6), _AT_HOME_CASE, _AT_HOME_CASE, _SCALARS)


@st.composite
def near_canonical(draw: st.DrawFn) -> dict:
    version = st.sampled_from([CANONICAL_VERSION, CANONICAL_VERSION, CANONICAL_VERSION, "prompt-examples/v1", None])
    payload = {"schema_version": draw(version)}
    if not draw(st.integers(0, 5)):
        del payload["schema_version"]
    payload.update(draw(st.dictionaries(_FILE_MEMBERS, _VALUES, max_size=3)))
    if draw(st.integers(0, 4)):
        payload["cases"] = draw(st.lists(_CASE, max_size=4))
    elif draw(st.booleans()):
        payload["cases"] = draw(_VALUES)
    return payload


def _outcome(result) -> tuple:
    error = result.error
    fields = [getattr(result, name) for name in result.__slots__ if name not in ("path", "error")]
    return (*fields, None if error is None else (error.code, error.message, error.line, error.column))


@given(payload=near_canonical(), syntax=st.sampled_from(["json", "yaml"]), where=st.sampled_from(["skills/demo/evals/f", "data/f"]))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_canonical_fast_path_plans_what_the_full_path_plans(tmp_path, monkeypatch, payload, syntax, where):
    import json

    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n" if syntax == "json" else _yaml(payload)
    path = tmp_path / f"{where}.{syntax}"
    fast = Engine(Options(repo_root=tmp_path)).plan_bytes(path, text.encode("utf-8"))
    with monkeypatch.context() as patched:
        patched.setattr(engine_module, "proven_unchanged", lambda registry, document: None)
        full = Engine(Options(repo_root=tmp_path)).plan_bytes(path, text.encode("utf-8"))
    assert _outcome(fast) == _outcome(full)


_LEGACY_VERSIONS = st.sampled_from(
    ["prompt-examples/v1", "spec-first.skill-audit-eval-cases.v1", "spec-prd-evals.v1", CANONICAL_VERSION]
)


@given(payload=near_canonical(), version=_LEGACY_VERSIONS, syntax=st.sampled_from(["json", "yaml"]))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_second_run_check_plans_what_the_mapper_check_plans(tmp_path, monkeypatch, payload, version, syntax):
    # A planned change is checked by migrating the result again: by the key sets where they
    # prove it unchanged (`at_home`, as a second run's `_plan` does), else by the mapper. Both
    # ways give the same plan, byte for byte, and the same refusals.
    import json

    payload["schema_version"] = version
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n" if syntax == "json" else _yaml(payload)
    path = tmp_path / "skills" / "demo" / "evals" / f"f.{syntax}"
    fast = Engine(Options(repo_root=tmp_path, skill="demo")).plan_bytes(path, text.encode("utf-8"))
    with monkeypatch.context() as patched:
        patched.setattr(engine_module, "at_home", lambda adapter, unit: False)
        full = Engine(Options(repo_root=tmp_path, skill="demo")).plan_bytes(path, text.encode("utf-8"))
    assert _outcome(fast) == _outcome(full)


@given(payload=near_canonical(), skill=st.sampled_from([None, "demo", "other"]))
def test_at_home_payloads_map_to_themselves_under_any_context(payload, skill):
    from fixture_migrate.adapting.protocol import Context
    from fixture_migrate.claiming.registry import migration_registry
    from fixture_migrate.claiming.rules import at_home
    from fixture_migrate.formats import Unit
    from fixture_migrate.formats.target import is_unchanged

    unit = Unit(payload)
    adapter = migration_registry().detect(unit)
    if adapter is not None and at_home(adapter, unit):
        context = Context(source_file="skills/demo/evals/f.json", skill=skill)
        assert is_unchanged(adapter.to_canonical(unit, context))


def test_at_home_holds_for_a_canonical_payload_and_its_mapping_is_the_file_itself():
    # The property above reaches its assertion for a few percent of its examples only: this
    # one always does (a canonical payload whose every member is at home, one case without id).
    from fixture_migrate.adapting.protocol import Context
    from fixture_migrate.claiming.registry import migration_registry
    from fixture_migrate.claiming.rules import at_home
    from fixture_migrate.formats import Unit
    from fixture_migrate.formats.target import is_unchanged

    payload = {
        "schema_version": CANONICAL_VERSION,
        "skill": "demo",
        "cases": [{"id": "a", "input": "go", "expected_outcome": "done"}, {"input": "go"}],
    }
    unit = Unit(payload)
    adapter = migration_registry().detect(unit)
    assert adapter is not None and adapter.name == "canonical"
    assert at_home(adapter, unit)
    for skill in (None, "other"):
        assert is_unchanged(adapter.to_canonical(unit, Context(source_file="skills/demo/evals/f.json", skill=skill)))
    assert not at_home(adapter, Unit({**payload, "stray": 1}))  # a member with no home: the mapper decides


def _yaml(payload: dict) -> str:
    import io

    from ruamel.yaml import YAML

    out = io.StringIO()
    YAML().dump(payload, out)
    return out.getvalue()


def test_the_canonical_fast_path_runs_no_mapper_and_stops_at_a_stray_member(tmp_path, monkeypatch):
    from fixture_migrate.adapting.case_mapper import CaseMapper

    def refuse(*args, **kwargs):
        raise AssertionError("the mapper ran")

    monkeypatch.setattr(CaseMapper, "map_file", refuse)
    engine = Engine(Options(repo_root=tmp_path))
    unchanged = engine.plan_bytes(tmp_path / "a.json", CANONICAL)
    assert (unchanged.status, unchanged.adapters, unchanged.reason) == (
        "unchanged",
        ["canonical"],
        f"schema_version {CANONICAL_VERSION!r}",
    )
    stray = CANONICAL.replace(b'"input": "x"', b'"input": "x", "must_find": 1')
    assert engine.plan_bytes(tmp_path / "a.json", stray).error.message == "internal error: AssertionError: the mapper ran"
    monkeypatch.undo()
    moved = Engine(Options(repo_root=tmp_path)).plan_bytes(tmp_path / "a.json", stray)
    assert (moved.status, moved.to_extensions) == ("changed", {"canonical": 1})
