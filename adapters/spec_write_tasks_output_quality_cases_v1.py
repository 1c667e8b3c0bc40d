"""`spec-first.spec-write-tasks-output-quality-cases.v1`: output-quality cases of
spec-write-tasks (skills/spec-write-tasks/evals/output-quality-cases.json, 2026-06-22 to
2026-06-23).

The cases already use `input` and `expected_outcome`; everything the reference drops
(`input_files`, `baseline_risks`, `with_skill_expectations`, `objective_assertions`,
`deterministic_assertions`, `missing_evidence`, `evidence_status`) goes under
`extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_write_tasks_output_quality_cases_v1",
    schema_version="spec-first.spec-write-tasks-output-quality-cases.v1",
    summary="spec-write-tasks output-quality cases: assertions, risks and evidence",
)
