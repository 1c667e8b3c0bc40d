"""`spec-first.skill-audit-eval-cases.v1`: audit-quality cases of spec-skill-audit
(skills/spec-skill-audit/evals/audit-quality-cases.json, 2026-05-01 to 2026-06-14).

`expected` becomes `expected_outcome`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="skill_audit_eval_cases_v1",
    schema_version="spec-first.skill-audit-eval-cases.v1",
    summary="spec-skill-audit audit-quality cases: expected",
)
