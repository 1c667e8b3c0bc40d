"""`spec-first.spec-graph-bootstrap-expected-behavior-cases.v1`: expected-behavior cases of
spec-graph-bootstrap (skills/spec-graph-bootstrap/evals/expected-behavior-cases.json,
2026-05-04 to 2026-05-25).

The files carry no `skill`: it is written from the `skills/<name>/` path.
`expected_decision` and `expected_output` become the `expected_outcome` object.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_graph_bootstrap_expected_behavior_cases_v1",
    schema_version="spec-first.spec-graph-bootstrap-expected-behavior-cases.v1",
    summary="spec-graph-bootstrap expected-behavior cases: expected_decision/output, no skill",
)
