"""spec_prd_evals_v1: `cases` of `intent`/`input_shape`/`expected`, with `must_not`,
`case_type` and `quality_buckets`, and a file-level `case_contract`.

`input_shape` (else `intent`) becomes `input` and both stay under `extensions`;
`expected` becomes `expected_outcome`; `must_not` fills `forbidden_signals` where
the case has none, else it stays under `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_prd_evals_v1"

GARDEN = """\
{
  "schema_version": "spec-prd-evals.v1",
  "skill": "garden-planner",
  "description": "Requirement evals for the garden planner.",
  "case_contract": {
    "required": ["id", "intent", "expected"],
    "buckets": ["create", "refine"]
  },
  "cases": [
    {
      "id": "tomato-bed",
      "intent": "create",
      "input_shape": "a sunny two-by-four raised bed",
      "expected": ["spacing plan", "watering schedule"],
      "must_not": ["plant mint beside tomatoes"],
      "case_type": "happy-path",
      "quality_buckets": ["completeness", "traceability"]
    },
    {
      "id": "shade-corner",
      "intent": "refine",
      "input_shape": "   ",
      "expected": [],
      "coverage_tags": ["boundary"],
      "forbidden_signals": ["suggest tomatoes"],
      "must_not": "suggest sunflowers"
    }
  ]
}
"""

# No skill (inferred from the path), intent only, 4-space indent, no final newline.
ORCHARD_NO_SKILL = """\
{
    "schema_version": "spec-prd-evals.v1",
    "cases": [
        {
            "id": "apple-rows",
            "intent": "validate",
            "expected": "Flags rows planted too close.",
            "must_not": "approve the layout unchanged"
        }
    ]
}"""

SAMPLES = [
    pytest.param(GARDEN, "skills/garden-planner/evals/examples.json", id="garden-fills-and-keeps"),
    pytest.param(ORCHARD_NO_SKILL, "skills/orchard-planner/evals/examples.json", id="four-space-no-skill"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_must_not_fills_forbidden_signals():
    data = orjson.loads(migrate_sample(GARDEN).after)
    tomato = data["cases"][0]
    assert tomato["forbidden_signals"] == ["plant mint beside tomatoes"]
    assert "must_not" not in tomato["extensions"]
    # A lone string is the one-element array the contract reads it as.
    orchard = orjson.loads(migrate_sample(ORCHARD_NO_SKILL, "skills/orchard-planner/evals/examples.json").after)
    assert orchard["skill"] == "orchard-planner"
    assert orchard["cases"][0]["forbidden_signals"] == ["approve the layout unchanged"]
    assert orchard["cases"][0]["input"] == "validate"


def test_must_not_stays_under_extensions_when_forbidden_signals_exist():
    shade = orjson.loads(migrate_sample(GARDEN).after)["cases"][1]
    assert shade["forbidden_signals"] == ["suggest tomatoes"]
    assert shade["extensions"]["must_not"] == "suggest sunflowers"


def test_input_source_is_kept_under_extensions():
    data = orjson.loads(migrate_sample(GARDEN).after)
    tomato, shade = data["cases"]
    assert tomato["input"] == "a sunny two-by-four raised bed"
    assert tomato["extensions"]["input_shape"] == "a sunny two-by-four raised bed"
    assert tomato["extensions"]["intent"] == "create"
    # A blank input_shape is skipped, as the reference skips it.
    assert shade["input"] == "refine"
    assert data["extensions"]["case_contract"]["buckets"] == ["create", "refine"]
