"""`spec-prd-evals.v1`: the spec-prd workflow's evals (skills/spec-prd/evals/examples.json,
2026-05-31 to 2026-06-24; up to 415 cases a file).

`input` is `input_shape` (else `intent`), both also kept under `extensions` as the
reference keeps them; `expected` becomes `expected_outcome`. `must_not`, which the
reference drops, fills `forbidden_signals` when the case has none: it lists what the
output must not say. `case_type`, `quality_buckets` and the file's `case_contract` go
under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_prd_evals_v1",
    schema_version="spec-prd-evals.v1",
    summary="spec-prd evals: intent/input_shape/expected, must_not and quality buckets",
    fills={"forbidden_signals": ("must_not",)},
)
