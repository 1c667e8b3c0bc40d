"""The vocabulary's roles by name pattern and by value shape (`fixture_migrate.adapting.vocabulary`):
one test per pattern, and the family mapping they make."""

from __future__ import annotations

import json

import pytest
from fixture_migrate.adapting import vocabulary as v

from tests.helpers import plan


def _example(pattern: str) -> str:
    """A member name the pattern matches and no exact name or earlier pattern takes."""
    return pattern.replace("*", "zz")


@pytest.mark.parametrize(
    ("role", "pattern"), [(role, pattern) for role, patterns in v.ROLE_PATTERNS for pattern in patterns]
)
def test_every_pattern_gives_its_role(role, pattern):
    name = _example(pattern)
    found = v.role_of(name)
    assert found is not None, name
    if v.exact_role(name) is None:
        assert found == (role, f"pattern `{pattern}`") or found[0] == role, (name, found)


@pytest.mark.parametrize("name", ["expected_entrypoint", "artifact_expected", "system_prompt", "id", "input"])
def test_fixed_homes_never_take_a_role_by_pattern(name):
    found = v.role_of(name)
    assert found is None or found[1] == "exact name"


@pytest.mark.parametrize(
    ("record", "member", "field"),
    [
        ({"query": "q", "expected_mode": "plan"}, "expected_mode", "expected_outcome"),
        ({"query": "q", "acceptance_tests": ["a"]}, "acceptance_tests", "expected_outcome"),
        ({"query": "q", "must_mention": ["a"]}, "must_mention", "expected_outcome"),
        ({"query": "q", "ground_truth": "g"}, "ground_truth", "expected_outcome"),
        ({"query": "q", "should_cite": ["a"]}, "should_cite", "expected_outcome"),
        ({"query": "q", "never_say": ["x"]}, "never_say", "forbidden_signals"),
        ({"query": "q", "should_not_mention": ["x"]}, "should_not_mention", "forbidden_signals"),
        ({"user_ask_prompt": "do it", "ideal": "i"}, "user_ask_prompt", "input"),
    ],
)
def test_a_pattern_member_fills_its_canonical_field(record, member, field):
    result = plan(json.dumps({"cases": [record]}), "skills/demo/evals/x.json")
    case = json.loads(result.new_bytes)["cases"][0]
    value = record[member]
    assert case[field] == (value if field != "forbidden_signals" or isinstance(value, list) else [value])


def test_the_one_free_text_field_is_the_input_by_value_shape():
    records = [{"id": "a", "scenario_text": "the user asks the agent to deploy the app now", "expected": "x"}]
    roles = v.family_roles(records)
    assert roles.reasons["scenario_text"] == ("input", "value shape: the one free-text field")
    titled = [{"id": "a", "title": "a title that is long enough to be free text here", "expected": "x"}]
    assert "title" not in v.family_roles(titled).reasons


def test_contract_tags_and_polarity_words_in_a_tag_field():
    assert v.tags_of(["boundary", "Routing", "misc"]) == (["boundary", "routing"], None)
    assert v.tags_of("negative") == ([], False)


def test_tags_are_added_only_where_they_add_no_validation_error():
    cases = [
        {"id": "t1", "query": "q", "category": "trigger", "expected_skill": "s"},
        {"id": "t2", "query": "q", "category": "trigger"},  # no outcome: `trigger` would add an error
        {"id": "b1", "query": "q", "kind": "boundary", "must_not": ["x"]},
        {"id": "b2", "query": "q", "kind": "boundary"},
        {"id": "n1", "query": "q", "kind": "negative"},
    ]
    result = plan(json.dumps({"cases": cases}), "skills/demo/evals/x.json")
    got = {c["id"]: c.get("coverage_tags") for c in json.loads(result.new_bytes)["cases"]}
    assert got == {
        "t1": ["trigger"],
        "t2": None,
        "b1": ["boundary"],
        "b2": None,
        "n1": ["boundary", "should-not-trigger"],
    }


def test_a_trigger_case_keeps_its_real_expectation_as_the_outcome():
    case = plan(
        json.dumps({"cases": [{"prompt": "p", "should_trigger": True, "expected_mode": "plan"}]}),
        "skills/demo/evals/x.json",
    )
    migrated = json.loads(case.new_bytes)["cases"][0]
    assert migrated["expected_outcome"] == "plan" and migrated["coverage_tags"] == ["trigger", "should-trigger"]


def test_one_family_one_mapping_whatever_the_file():
    a = v.family_roles([{"id": "1", "question": "q", "checks": ["c"], "type": "routing"}])
    b = v.family_roles([{"id": "9", "question": "other", "checks": [], "type": "misc"}])
    assert a.fills == b.fills and a.tag_fields == b.tag_fields == ("type",)
