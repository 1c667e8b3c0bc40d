"""`spec-first.spec-write-tasks-trigger-cases.v1`: trigger cases of spec-write-tasks
(skills/spec-write-tasks/evals/trigger-cases.json, 2026-05-01 to 2026-06-14).

`expected_decision` and `expected_next_action` become the `expected_outcome` object;
`context` goes under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_write_tasks_trigger_cases_v1",
    schema_version="spec-first.spec-write-tasks-trigger-cases.v1",
    summary="spec-write-tasks trigger cases: expected_decision/next_action",
)
