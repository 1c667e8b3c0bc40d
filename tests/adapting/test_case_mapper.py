"""`fixture_migrate.adapting.case_mapper`: the shared mapping of legacy cases and payloads
onto the canonical shape, as plain data (`materialize` of the target tree)."""

from __future__ import annotations

import pytest
from fixture_migrate.adapting.case_mapper import CaseMapper, free_key
from fixture_migrate.contract import rules as c
from fixture_migrate.errors import MappingError
from fixture_migrate.formats.target import Src, is_unchanged, materialize


def mapped_case(entry, index=0, mapper=None):
    mapper = mapper or CaseMapper()
    return materialize(mapper.map_case(entry, ("cases", index), index), {"cases": [entry] * (index + 1)})


def mapped_file(payload, skill=None, mapper=None):
    return materialize((mapper or CaseMapper()).map_file(payload, skill=skill), payload)


@pytest.mark.parametrize(
    ("key", "taken", "expected"),
    [
        ("name", [], "name"),
        ("name", ["name"], "name__legacy"),
        ("name", ["name", "name__legacy"], "name__legacy_2"),
        ("name", ["name", "name__legacy", "name__legacy_2"], "name__legacy_3"),
    ],
)
def test_free_key(key, taken, expected):
    assert free_key(key, taken) == expected


def test_the_references_names_move_home():
    entry = {"name": "Says Hi!", "user_intent": "greet", "expected_posture": "hello", "negative_signal": "rude"}
    assert mapped_case(entry) == {
        "id": "says-hi",
        "input": "greet",
        "expected_outcome": "hello",
        "forbidden_signals": ["rude"],
        "extensions": {"name": "Says Hi!"},
    }


def test_a_canonical_case_stays_as_it_is():
    entry = {"id": "a", "input": "x", "coverage_tags": ["trigger"], "extensions": {"k": 1}}
    assert CaseMapper().map_case(entry, ("cases", 0), 0) == Src(("cases", 0))


def test_decision_members_become_one_outcome_object():
    entry = {"id": "a", "input": "x", "expected_decision": "stop", "expected_next_action": "ask"}
    assert mapped_case(entry)["expected_outcome"] == {"expected_decision": "stop", "expected_next_action": "ask"}


def test_unknown_members_go_under_extensions_without_overwriting():
    entry = {"id": "a", "input": "x", "owner": "me", "extensions": {"owner": "kept"}}
    assert mapped_case(entry)["extensions"] == {"owner": "kept", "owner__legacy": "me"}


def test_an_id_is_written_from_the_position_when_nothing_names_the_case():
    assert mapped_case({"input": "x"}, index=2)["id"] == "case-3"


def test_fills_fill_only_what_the_reference_leaves_empty():
    mapper = CaseMapper(fills={"input": ("prompt",)})
    assert mapped_case({"id": "a", "prompt": "from prompt"}, mapper=mapper)["input"] == "from prompt"
    kept = mapped_case({"id": "a", "input": "own", "prompt": "p"}, mapper=mapper)
    assert kept["input"] == "own" and kept["extensions"] == {"prompt": "p"}


def test_fills_are_checked():
    with pytest.raises(ValueError, match="non-fillable"):
        CaseMapper(fills={"id": ("name",)})


def test_a_case_that_is_not_an_object_is_a_mapping_error_with_its_path():
    with pytest.raises(MappingError) as caught:
        CaseMapper().map_case(["x"], ("cases", 1), 1)
    assert caught.value.code == c.CASE_NOT_OBJECT
    assert caught.value.path == ("cases", 1)


def test_map_file_writes_version_skill_and_keeps_the_legacy_version():
    payload = {"schema_version": "old/v1", "examples": [{"name": "A", "user_intent": "x"}], "owner": "me"}
    assert mapped_file(payload, skill="demo") == {
        "schema_version": c.CANONICAL_SCHEMA_VERSION,
        "skill": "demo",
        "extensions": {"migrated_from": "old/v1", "owner": "me"},
        "cases": [{"id": "a", "input": "x", "extensions": {"name": "A"}}],
    }


def test_map_file_leaves_a_canonical_payload_untouched():
    payload = {"schema_version": c.CANONICAL_SCHEMA_VERSION, "skill": "demo", "cases": [{"id": "a", "input": "x"}]}
    assert is_unchanged(CaseMapper().map_file(payload, skill="other"))
