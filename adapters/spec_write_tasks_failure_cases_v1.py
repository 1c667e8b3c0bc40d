"""`spec-first.spec-write-tasks-failure-cases.v1`: failure cases of spec-write-tasks
(skills/spec-write-tasks/evals/failure-cases.json, 2026-05-01 to 2026-06-14).

`expected_failure` and `expected_next_action` become the `expected_outcome` object the
reference builds; `context` goes under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_write_tasks_failure_cases_v1",
    schema_version="spec-first.spec-write-tasks-failure-cases.v1",
    summary="spec-write-tasks failure cases: expected_failure/next_action",
)
