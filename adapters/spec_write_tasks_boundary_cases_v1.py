"""`spec-first.spec-write-tasks-boundary-cases.v1`: boundary cases of spec-write-tasks
(skills/spec-write-tasks/evals/boundary-cases.json, 2026-05-01 to 2026-06-23).

`expected_decision` and `expected_next_action` become the `expected_outcome` object the
reference builds; `context` goes under `extensions` as the reference copies it there;
`dispatch_authorization`, which the reference drops, goes under `extensions` too.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_write_tasks_boundary_cases_v1",
    schema_version="spec-first.spec-write-tasks-boundary-cases.v1",
    summary="spec-write-tasks boundary cases: expected_decision/next_action, dispatch_authorization",
)
