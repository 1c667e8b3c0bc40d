"""`spec-app-consistency-audit-recorded-output-fixtures.v1`: recorded output fixtures of
spec-app-consistency-audit
(skills/spec-app-consistency-audit/evals/recorded-output-fixtures.json, 2026-06-21).

The reference drops `input_summary`, `recorded_output` and `assertions` of each case
and the file's `execution_kind`: they go under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_app_consistency_audit_recorded_output_fixtures_v1",
    schema_version="spec-app-consistency-audit-recorded-output-fixtures.v1",
    summary="spec-app-consistency-audit recorded output fixtures",
)
