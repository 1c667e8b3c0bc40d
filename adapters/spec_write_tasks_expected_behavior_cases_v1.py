"""`spec-first.spec-write-tasks-expected-behavior-cases.v1`: expected-behavior cases of
spec-write-tasks (skills/spec-write-tasks/evals/expected-behavior-cases.json, 2026-05-01
to 2026-06-22).

`expected_decision` and `expected_output` become the `expected_outcome` object the
reference builds.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_write_tasks_expected_behavior_cases_v1",
    schema_version="spec-first.spec-write-tasks-expected-behavior-cases.v1",
    summary="spec-write-tasks expected-behavior cases: expected_decision/output",
)
