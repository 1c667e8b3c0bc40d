"""`spec-first.spec-graph-bootstrap-failure-cases.v1`: failure cases of
spec-graph-bootstrap (skills/spec-graph-bootstrap/evals/failure-cases.json, 2026-05-04).

`expected_failure` and `expected_next_action` become the `expected_outcome` object;
the `skill` is written from the path.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_graph_bootstrap_failure_cases_v1",
    schema_version="spec-first.spec-graph-bootstrap-failure-cases.v1",
    summary="spec-graph-bootstrap failure cases: expected_failure/next_action",
)
