"""spec_graph_bootstrap_expected_behavior_cases_v1: `cases` of `input`,
`expected_decision`/`expected_output`, in files with no `skill`.

The skill is written from the `skills/<name>/` path; `expected_decision` and
`expected_output` become one `expected_outcome` object.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_graph_bootstrap_expected_behavior_cases_v1"
PATH = "skills/atlas-builder/evals/expected-behavior-cases.json"

MAPS = """\
{
  "schema_version": "spec-first.spec-graph-bootstrap-expected-behavior-cases.v1",
  "cases": [
    {
      "id": "first-map",
      "input": "Build the first map of this small library.",
      "expected_decision": "bootstrap",
      "expected_output": {
        "nodes": ["modules", "tests"],
        "edges": "imports"
      }
    },
    {
      "id": "stale-map",
      "input": "The map is a month old.",
      "expected_decision": "refresh",
      "stale_days": 31
    }
  ]
}
"""

# An empty skill is no skill: it is written from the path, the empty value kept.
EMPTY_SKILL = """\
{
  "schema_version": "spec-first.spec-graph-bootstrap-expected-behavior-cases.v1",
  "skill": "",
  "cases": [
    {"id": "no-git", "input": "Map a folder that is not a git repo.", "expected_output": "Maps the files it can read."}
  ]
}
"""

SAMPLES = [pytest.param(MAPS, id="two-cases"), pytest.param(EMPTY_SKILL, id="empty-skill")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_skill_from_path_and_outcome_object():
    data = orjson.loads(migrate_sample(MAPS, PATH).after)
    assert data["skill"] == "atlas-builder"
    first, second = data["cases"]
    assert first["expected_outcome"] == {
        "expected_decision": "bootstrap",
        "expected_output": {"nodes": ["modules", "tests"], "edges": "imports"},
    }
    assert second["expected_outcome"] == {"expected_decision": "refresh"}
    assert second["extensions"] == {"stale_days": 31}


def test_empty_skill_is_replaced_and_kept():
    data = orjson.loads(migrate_sample(EMPTY_SKILL, PATH).after)
    assert data["skill"] == "atlas-builder"
    assert data["extensions"]["skill"] == ""
