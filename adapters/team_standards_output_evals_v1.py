"""`team-standards-output-evals/v1`: output evals of spec-team-standards-governance
(skills/spec-team-standards-governance/evals/output-cases.json, 2026-06-23).

The earliest version has no `id` and no input at all: the reference numbers its cases
`case-<n>`, and so does the migration (compatibility forbids another id; `case_id`
stays under `extensions`). `must_not`, which the reference drops, fills
`forbidden_signals`. `case_type`, `input_refs`, `required_fields`, `must_route_away`
and `threshold_result` go under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="team_standards_output_evals_v1",
    schema_version="team-standards-output-evals/v1",
    summary="team-standards output evals: case_id, required_fields, must_not",
    fills={"forbidden_signals": ("must_not",)},
)
