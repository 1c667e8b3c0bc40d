"""`spec-first.spec-plan-output-quality-cases.v1`: output-quality cases of spec-plan
(skills/spec-plan/evals/output-quality-cases.json, 2026-06-23).

Everything the reference drops (`input_files`, `baseline_risks`,
`with_skill_expectations`, `objective_assertions`, `missing_evidence`,
`evidence_status`) goes under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_plan_output_quality_cases_v1",
    schema_version="spec-first.spec-plan-output-quality-cases.v1",
    summary="spec-plan output-quality cases: assertions, risks and evidence",
)
