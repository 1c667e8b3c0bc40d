"""team_standards_output_evals_v1: `cases` of `case_id`, `case_type`, `input_refs`,
`required_fields`, `must_not`, `must_route_away`, `threshold_result`; later versions
add `id`, `input`, `expected_outcome`, `coverage_tags` and `source_refs`.

A case without `id` gets the reference's `case-<n>` (its `case_id` stays under
`extensions`); `must_not` fills `forbidden_signals` where the case has none, else it
stays under `extensions` with the other local members.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "team_standards_output_evals_v1"
PATH = "skills/menu-standards/evals/output-cases.json"

# The earliest shape: no id, no input, no skill; 4-space indent, no final newline.
EARLY_NO_ID = """\
{
    "schema_version": "team-standards-output-evals/v1",
    "cases": [
        {
            "case_id": "OUT-MENU-01",
            "case_type": "menu-card",
            "input_refs": ["docs/menus/spring.md"],
            "required_fields": ["dish", "price", "allergens"],
            "must_not": ["lists peanuts as safe"],
            "threshold_result": "not-run"
        },
        {
            "case_id": "OUT-MENU-02",
            "case_type": "menu-card",
            "required_fields": ["dish"],
            "must_route_away": ["allergy advice", "diet plans"],
            "threshold_result": "not-run"
        }
    ]
}"""

# The later shape: ids, inputs, file-level refs and tags, a case with both lists.
LATER = """\
{
  "schema_version": "team-standards-output-evals/v1",
  "source_refs": ["docs/standards/menus.md"],
  "coverage_tags": ["expected"],
  "cases": [
    {
      "id": "out-menu-03",
      "case_id": "OUT-MENU-03",
      "input": "Check the autumn card lists every allergen.",
      "coverage_tags": ["expected"],
      "expected_outcome": "menu-card-contract",
      "forbidden_signals": ["omits sesame"],
      "must_not": ["marks soup vegan"],
      "threshold_result": "pass"
    }
  ]
}
"""

SAMPLES = [pytest.param(EARLY_NO_ID, id="early-no-id"), pytest.param(LATER, id="later")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_case_numbers_and_must_not_fill():
    data = orjson.loads(migrate_sample(EARLY_NO_ID, PATH).after)
    assert data["skill"] == "menu-standards"
    first, second = data["cases"]
    assert first["id"] == "case-1" and second["id"] == "case-2"
    assert first["extensions"]["case_id"] == "OUT-MENU-01"
    assert first["forbidden_signals"] == ["lists peanuts as safe"]
    assert "must_not" not in first["extensions"]
    # must_route_away is not a forbidden signal: it stays a local member.
    assert "forbidden_signals" not in second
    assert second["extensions"]["must_route_away"] == ["allergy advice", "diet plans"]


def test_must_not_stays_under_extensions_when_forbidden_signals_exist():
    case = orjson.loads(migrate_sample(LATER, PATH).after)["cases"][0]
    assert case["forbidden_signals"] == ["omits sesame"]
    assert case["extensions"] == {
        "case_id": "OUT-MENU-03",
        "must_not": ["marks soup vegan"],
        "threshold_result": "pass",
    }
