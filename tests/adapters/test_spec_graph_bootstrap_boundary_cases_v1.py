"""spec_graph_bootstrap_boundary_cases_v1: `cases` of `input`, `context`,
`expected_decision`, `expected_boundary`, in files with no `skill`.

`expected_decision` becomes the `expected_outcome` object; `expected_boundary`
fills `boundary_note` where the case has no note (a blank note is kept under
`extensions`), else it stays under `extensions`. The skill comes from the path.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_graph_bootstrap_boundary_cases_v1"
PATH = "skills/repo-grapher/evals/boundary-cases.json"

FILLS = """\
{
  "schema_version": "spec-first.spec-graph-bootstrap-boundary-cases.v1",
  "cases": [
    {
      "id": "huge-monorepo",
      "input": "Graph a monorepo with forty thousand files.",
      "context": "CI has a ten-minute limit.",
      "expected_decision": "narrow",
      "expected_boundary": "Scope to one package first."
    },
    {
      "id": "blank-note",
      "input": "Graph only the docs folder.",
      "boundary_note": " ",
      "expected_boundary": "Docs alone are not a code graph.",
      "expected_decision": "decline"
    }
  ]
}
"""

# A case whose own note wins: expected_boundary stays local. Compact, no final newline.
KEEPS = (
    '{"schema_version": "spec-first.spec-graph-bootstrap-boundary-cases.v1", "cases": ['
    '{"id": "already-mapped", "input": "Graph it again.", "boundary_note": "Reuse the existing graph.", '
    '"expected_boundary": "No rebuild without changes.", "expected_decision": "reuse"}]}'
)

SAMPLES = [pytest.param(FILLS, id="fills-boundary-note"), pytest.param(KEEPS, id="note-exists")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_expected_boundary_fills_boundary_note():
    data = orjson.loads(migrate_sample(FILLS, PATH).after)
    assert data["skill"] == "repo-grapher"
    first, second = data["cases"]
    assert first["boundary_note"] == "Scope to one package first."
    assert first["expected_outcome"] == {"expected_decision": "narrow"}
    assert first["extensions"] == {"context": "CI has a ten-minute limit."}
    assert second["boundary_note"] == "Docs alone are not a code graph."
    assert second["extensions"] == {"boundary_note": " "}


def test_expected_boundary_stays_under_extensions_when_a_note_exists():
    case = orjson.loads(migrate_sample(KEEPS, PATH).after)["cases"][0]
    assert case["boundary_note"] == "Reuse the existing graph."
    assert case["extensions"] == {"expected_boundary": "No rebuild without changes."}
