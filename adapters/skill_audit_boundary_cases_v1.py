"""`spec-first.skill-audit-boundary-cases.v1`: boundary review cases of spec-skill-audit
(skills/spec-skill-audit/evals/boundary-review-cases.json, 2026-05-01 to 2026-06-14).

`expected` becomes `expected_outcome`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="skill_audit_boundary_cases_v1",
    schema_version="spec-first.skill-audit-boundary-cases.v1",
    summary="spec-skill-audit boundary review cases: expected",
)
