"""`fixture_migrate.contract.compatibility`: what a migration may change in the normalized view."""

from __future__ import annotations

import copy

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.compatibility import compatibility_violations
from fixture_migrate.contract.normalize import normalize_payload

LEGACY = {
    "schema_version": "prompt-examples/v1",
    "skill": "demo",
    "examples": [{"name": "A", "user_intent": "x", "coverage_tags": ["trigger"], "negative_signal": ["no"]}],
}


def reference():
    return normalize_payload(LEGACY, source_file="skills/demo/evals/a.json")


def migrated(**changes):
    [case] = copy.deepcopy(reference())
    case.update(normalized_from="canonical", source_schema_version=c.CANONICAL_SCHEMA_VERSION)
    case.update(changes)
    return [case]


def test_a_faithful_migration_is_compatible():
    assert compatibility_violations(reference(), migrated()) == []


def test_what_may_grow_or_be_filled():
    [old] = reference()
    grown = migrated(
        coverage_tags=[*old["coverage_tags"], "boundary"],
        forbidden_signals=["no", "never"],
        extensions={**old["extensions"], "more": 1},
        expected_outcome="filled",  # the reference left it null
    )
    assert compatibility_violations(reference(), grown) == []


def test_a_changed_or_lost_value_is_named():
    problems = compatibility_violations(reference(), migrated(input="other", forbidden_signals=[]))
    assert problems == [
        "case 1 (a): input changed: 'x' -> 'other'",
        "case 1 (a): forbidden_signals lost values: ['no'] -> []",
    ]


def test_extensions_the_reference_copied_must_stay():
    assert compatibility_violations(reference(), migrated(extensions={})) == [
        "case 1 (a): extensions.name lost or changed"
    ]


def test_the_migration_must_read_as_canonical():
    assert compatibility_violations(reference(), migrated(normalized_from="legacy_adapter")) == [
        "case 1 (a): the migration does not normalize as canonical"
    ]


def test_case_counts_must_match_unless_the_reference_has_none():
    assert compatibility_violations(reference(), []) == ["the reference has 1 cases, the migration 0"]
    assert compatibility_violations([], migrated()) == []
