"""`team-standards-trigger-evals/v1`: trigger evals of spec-team-standards-governance
(skills/spec-team-standards-governance/evals/trigger-cases.json, 2026-06-23).

The earliest version keeps its input only under `prompt` and its outcome only under
`expected_result`, both of which the reference drops (its cases fail
`missing_input`): they fill `input` and `expected_outcome`. Later versions carry
`input` and `expected_outcome` themselves; `prompt` and `expected_result` then go under
`extensions` with `case_id`, `case_type`, `expected_mode` and `reason_code`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="team_standards_trigger_evals_v1",
    schema_version="team-standards-trigger-evals/v1",
    summary="team-standards trigger evals: prompt, expected_result, expected_mode",
    fills={"input": ("prompt",), "expected_outcome": ("expected_result",)},
)
