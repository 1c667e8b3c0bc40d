"""`using-spec-first-routing-cases/v1`: routing cases of using-spec-first
(skills/using-spec-first/evals/routing-cases.json, 2026-06-13 to 2026-06-16).

`user_intent` becomes `input`; `name` and the routing members the reference copies
(`public_workflow_required`, `expected_entrypoint`, `graphify_required`,
`artifact_expected`, `dispatch_decision`, `fallback_reason`) go under `extensions`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="using_spec_first_routing_cases_v1",
    schema_version="using-spec-first-routing-cases/v1",
    summary="using-spec-first routing cases: routing flags and expected entry points",
)
