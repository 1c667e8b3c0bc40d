"""spec_app_consistency_audit_recorded_output_fixtures_v1: `cases` of `id`, `input`,
`input_summary`, `recorded_output`, `assertions`, `expected_outcome`, `coverage_tags`,
with a file-level `description` and `execution_kind`.

`input_summary`, `recorded_output` and `assertions` go under the case's
`extensions`, `execution_kind` under the file's; `description` is canonical.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_app_consistency_audit_recorded_output_fixtures_v1"
PATH = "skills/shop-consistency/evals/recorded-output-fixtures.json"

# Raw non-ASCII text; new members are written raw too.
RECORDED = """\
{
  "schema_version": "spec-app-consistency-audit-recorded-output-fixtures.v1",
  "skill": "shop-consistency",
  "description": "Recorded audits of the café shop app.",
  "execution_kind": "recorded",
  "source_refs": ["skills/shop-consistency/SKILL.md"],
  "cases": [
    {
      "id": "price-mismatch",
      "input": "Le prix du croissant diffère entre l'app et le site.",
      "input_summary": "croissant : 1,20 € vs 1,40 €",
      "coverage_tags": ["expected"],
      "expected_outcome": "Reports one price inconsistency.",
      "recorded_output": {
        "issues": [{"screen": "menu", "field": "price"}],
        "rejected_issues": []
      },
      "assertions": ["names both prices", "no fix applied"]
    }
  ]
}
"""

# No description or execution_kind; a case with an empty recorded output.
MINIMAL = """\
{
  "schema_version": "spec-app-consistency-audit-recorded-output-fixtures.v1",
  "skill": "shop-consistency",
  "cases": [
    {"id": "all-consistent", "input": "Audit the checkout flow.", "expected_outcome": "No issues.", "recorded_output": "", "assertions": []}
  ]
}
"""

SAMPLES = [pytest.param(RECORDED, id="raw-utf8-recorded"), pytest.param(MINIMAL, id="minimal")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_dropped_members_are_kept():
    data = orjson.loads(migrate_sample(RECORDED, PATH).after)
    assert data["description"] == "Recorded audits of the café shop app."
    assert data["extensions"] == {
        "migrated_from": "spec-app-consistency-audit-recorded-output-fixtures.v1",
        "execution_kind": "recorded",
    }
    case = data["cases"][0]
    assert list(case["extensions"]) == ["input_summary", "recorded_output", "assertions"]
    assert case["extensions"]["input_summary"] == "croissant : 1,20 € vs 1,40 €"
    assert case["extensions"]["recorded_output"]["rejected_issues"] == []
