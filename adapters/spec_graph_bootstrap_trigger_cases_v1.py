"""`spec-first.spec-graph-bootstrap-trigger-cases.v1`: trigger cases of
spec-graph-bootstrap (skills/spec-graph-bootstrap/evals/trigger-cases.json, 2026-05-04).

`expected_decision` and `expected_next_action` become the `expected_outcome` object;
the `skill` is written from the path.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_graph_bootstrap_trigger_cases_v1",
    schema_version="spec-first.spec-graph-bootstrap-trigger-cases.v1",
    summary="spec-graph-bootstrap trigger cases: expected_decision/next_action",
)
