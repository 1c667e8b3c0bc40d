"""skill_audit_boundary_cases_v1: `cases` of `id`, `input`, `expected`, `coverage_tags`.

`expected` becomes `expected_outcome`; stray members go under `extensions`. The
samples use unusual spacing (`" : "`, three-space indent) that new members copy.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "skill_audit_boundary_cases_v1"
PATH = "skills/owl-watch/evals/boundary-review-cases.json"

SPACED_COLON = """\
{
   "schema_version" : "spec-first.skill-audit-boundary-cases.v1",
   "skill" : "owl-watch",
   "cases" : [
      {
         "id" : "noon-owls",
         "input" : "Spot owls at noon?",
         "coverage_tags" : [ "boundary" ],
         "expected" : "Explains that most owls are nocturnal.",
         "habitat" : "barn",
         "weight_g" : 510.5
      }
   ]
}
"""

# No skill, an existing `extensions` already holding a key the stray brings.
EXTENSIONS_TAKEN = """\
{
  "schema_version": "spec-first.skill-audit-boundary-cases.v1",
  "cases": [
    {
      "id": "owl-pellets",
      "input": "Identify bones in an owl pellet.",
      "expected": "Names the small-mammal bones.",
      "extensions": {"habitat": "forest"},
      "habitat": "meadow"
    }
  ]
}
"""

SAMPLES = [pytest.param(SPACED_COLON, id="spaced-colon"), pytest.param(EXTENSIONS_TAKEN, id="extensions-key-taken")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_new_members_copy_the_spacing():
    after = migrate_sample(SPACED_COLON, PATH).after
    assert '\n   "extensions" : {\n      "migrated_from" : ' in after
    assert '\n         "extensions" : {\n            "habitat" : "barn",' in after


def test_taken_key_is_not_overwritten():
    case = orjson.loads(migrate_sample(EXTENSIONS_TAKEN, PATH).after)["cases"][0]
    assert case["expected_outcome"] == "Names the small-mammal bones."
    assert case["extensions"] == {"habitat": "forest", "habitat__legacy": "meadow"}
