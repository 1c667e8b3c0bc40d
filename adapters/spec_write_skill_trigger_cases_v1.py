"""`spec-first.spec-write-skill-trigger-cases.v1`: trigger cases of spec-write-skill
(skills/spec-write-skill/evals/trigger-cases.json, 2026-06-24).

Cases carry `input` and `expected_outcome` already; the copies the reference drops
(`prompt`, `expected_result`) and `case_id`, `case_type`, `expected_mode`,
`reason_code` go under `extensions`. Where a case lacks `input`, `prompt` fills it.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_write_skill_trigger_cases_v1",
    schema_version="spec-first.spec-write-skill-trigger-cases.v1",
    summary="spec-write-skill trigger cases: case_id, prompt, expected_result",
    fills={"input": ("prompt",), "expected_outcome": ("expected_result",)},
)
