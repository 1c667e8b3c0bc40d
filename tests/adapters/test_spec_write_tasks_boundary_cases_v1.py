"""spec_write_tasks_boundary_cases_v1: `cases` of `input`, `context`,
`expected_decision`/`expected_next_action`, `dispatch_authorization`, `boundary_note`.

`expected_decision` and `expected_next_action` become one `expected_outcome` object;
`context` (copied by the reference) and `dispatch_authorization` (dropped by it) go
under `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_write_tasks_boundary_cases_v1"

# 4-space indent, multi-line arrays, an existing case `extensions`.
MOVING_DAY = """\
{
    "schema_version": "spec-first.spec-write-tasks-boundary-cases.v1",
    "skill": "moving-day",
    "source_refs": [
        "skills/moving-day/SKILL.md"
    ],
    "cases": [
        {
            "id": "pack-without-plan",
            "input": "Split packing the flat into tasks; there is no floor plan yet.",
            "context": "The plan step was skipped.",
            "coverage_tags": [
                "boundary"
            ],
            "expected_decision": "block",
            "expected_next_action": "Ask for the floor plan first.",
            "dispatch_authorization": {
                "allowed": false,
                "by": "owner"
            },
            "boundary_note": "No tasks from an unsettled plan.",
            "extensions": {
                "reviewed": true
            }
        },
        {
            "id": "van-booked",
            "input": "The van is booked; turn the plan into tasks.",
            "coverage_tags": [
                "trigger"
            ],
            "expected_decision": "compile",
            "forbidden_signals": [
                "start loading the van"
            ]
        }
    ]
}
"""

# Inline cases, no skill, only the next action besides the decision.
INLINE_NO_SKILL = """\
{
  "schema_version": "spec-first.spec-write-tasks-boundary-cases.v1",
  "cases": [
    {"id": "split-attic", "input": "Attic and garage together?", "expected_decision": "split", "dispatch_authorization": "none", "context": "two rooms"}
  ]
}
"""

SAMPLES = [
    pytest.param(MOVING_DAY, "skills/moving-day/evals/boundary-cases.json", id="four-space-multiline-arrays"),
    pytest.param(INLINE_NO_SKILL, "skills/attic-sorter/evals/boundary-cases.json", id="inline-no-skill"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_decision_object_and_dropped_members():
    first, second = orjson.loads(migrate_sample(MOVING_DAY).after)["cases"]
    assert first["expected_outcome"] == {
        "expected_decision": "block",
        "expected_next_action": "Ask for the floor plan first.",
    }
    assert first["extensions"] == {
        "reviewed": True,
        "context": "The plan step was skipped.",
        "dispatch_authorization": {"allowed": False, "by": "owner"},
    }
    assert second["expected_outcome"] == {"expected_decision": "compile"}
    assert "extensions" not in second
