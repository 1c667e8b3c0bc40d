"""`spec-first.spec-graph-bootstrap-boundary-cases.v1`: boundary cases of
spec-graph-bootstrap (skills/spec-graph-bootstrap/evals/boundary-cases.json, 2026-05-04).

`expected_decision` becomes the `expected_outcome` object. `expected_boundary`, which
the reference drops, states the boundary the case holds: it fills `boundary_note`.
The files carry no `skill`: it is written from the path.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="spec_graph_bootstrap_boundary_cases_v1",
    schema_version="spec-first.spec-graph-bootstrap-boundary-cases.v1",
    summary="spec-graph-bootstrap boundary cases: expected_decision, expected_boundary",
    fills={"boundary_note": ("expected_boundary",)},
)
