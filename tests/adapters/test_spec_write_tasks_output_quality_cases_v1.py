"""spec_write_tasks_output_quality_cases_v1: `cases` with `input`, `expected_outcome`,
case-level `source_refs`, and the evaluation members `input_files`, `baseline_risks`,
`with_skill_expectations`, `objective_assertions`, `deterministic_assertions`,
`missing_evidence` and `evidence_status`.

The canonical members stay where they are; everything the reference drops goes under
the case's `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_write_tasks_output_quality_cases_v1"

# Multi-line arrays, nested objects, file-level coverage tags.
RECIPE = """\
{
  "schema_version": "spec-first.spec-write-tasks-output-quality-cases.v1",
  "skill": "recipe-tasks",
  "source_refs": [
    "skills/recipe-tasks/SKILL.md"
  ],
  "coverage_tags": [
    "expected"
  ],
  "cases": [
    {
      "id": "dinner-party",
      "input": "Turn the dinner-party menu into prep tasks.",
      "input_files": [
        "menus/dinner.md"
      ],
      "source_refs": [
        "skills/recipe-tasks/references/prep.md"
      ],
      "expected_outcome": "Tasks ordered by cooking time.",
      "baseline_risks": [
        "dessert prepared last"
      ],
      "with_skill_expectations": {
        "order": "longest first",
        "waves": 3
      },
      "objective_assertions": [
        {
          "id": "has-waves",
          "check": "mentions waves"
        }
      ],
      "deterministic_assertions": [],
      "missing_evidence": [
        "oven count"
      ],
      "evidence_status": "partial"
    }
  ]
}
"""

# Inline arrays, a source_ref_authority on the case, CRLF line endings.
BRUNCH_CRLF = (
    "{\r\n"
    '  "schema_version": "spec-first.spec-write-tasks-output-quality-cases.v1",\r\n'
    '  "skill": "recipe-tasks",\r\n'
    '  "source_ref_authority": "source",\r\n'
    '  "cases": [\r\n'
    "    {\r\n"
    '      "id": "brunch",\r\n'
    '      "input": "Plan brunch prep.",\r\n'
    '      "expected_outcome": ["eggs last", "coffee first"],\r\n'
    '      "source_refs": ["skills/recipe-tasks/SKILL.md"],\r\n'
    '      "source_ref_authority": "historical",\r\n'
    '      "evidence_status": "recorded",\r\n'
    '      "input_files": ["menus/brunch.md", "menus/drinks.md"]\r\n'
    "    }\r\n"
    "  ]\r\n"
    "}\r\n"
)

SAMPLES = [
    pytest.param(RECIPE, id="multiline-arrays"),
    pytest.param(BRUNCH_CRLF, id="crlf-inline-arrays"),
]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff)


def test_dropped_members_move_in_order():
    case = orjson.loads(migrate_sample(RECIPE).after)["cases"][0]
    assert list(case) == ["id", "input", "source_refs", "expected_outcome", "extensions"]
    assert list(case["extensions"]) == [
        "input_files",
        "baseline_risks",
        "with_skill_expectations",
        "objective_assertions",
        "deterministic_assertions",
        "missing_evidence",
        "evidence_status",
    ]
    assert case["extensions"]["deterministic_assertions"] == []


def test_crlf_is_kept():
    after = migrate_sample(BRUNCH_CRLF).after
    assert after.count("\r\n") == after.count("\n")
