"""`spec-first.skill-audit-security-cases.v1`: security review cases of spec-skill-audit
(skills/spec-skill-audit/evals/security-review-cases.json, 2026-05-01 to 2026-06-20).

`expected_signal` becomes `expected_outcome`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="skill_audit_security_cases_v1",
    schema_version="spec-first.skill-audit-security-cases.v1",
    summary="spec-skill-audit security review cases: expected_signal",
)
