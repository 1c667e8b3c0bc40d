"""spec_plan_output_quality_cases_v1: `cases` of `id`, `input`, `expected_outcome`,
`input_files`, `baseline_risks`, `with_skill_expectations`, `objective_assertions`,
`missing_evidence`, `evidence_status`, with file-level `coverage_tags`.

Everything the reference drops goes under the case's `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_plan_output_quality_cases_v1"
PATH = "skills/trip-planner/evals/output-quality-cases.json"

# Tabs and CRLF.
TABS_CRLF = (
    "{\r\n"
    '\t"schema_version": "spec-first.spec-plan-output-quality-cases.v1",\r\n'
    '\t"skill": "trip-planner",\r\n'
    '\t"coverage_tags": ["expected"],\r\n'
    '\t"source_refs": ["skills/trip-planner/SKILL.md"],\r\n'
    '\t"cases": [\r\n'
    "\t\t{\r\n"
    '\t\t\t"id": "weekend-rome",\r\n'
    '\t\t\t"input": "Plan a weekend in Rome on a budget.",\r\n'
    '\t\t\t"input_files": ["notes/rome.md"],\r\n'
    '\t\t\t"expected_outcome": "A two-day plan with costs.",\r\n'
    '\t\t\t"objective_assertions": [\r\n'
    '\t\t\t\t{"id": "days", "check": "two days"}\r\n'
    "\t\t\t],\r\n"
    '\t\t\t"evidence_status": "recorded"\r\n'
    "\t\t}\r\n"
    "\t]\r\n"
    "}\r\n"
)

# All six dropped members (two of them empty arrays), 2-space indent.
ALL_MEMBERS = """\
{
  "schema_version": "spec-first.spec-plan-output-quality-cases.v1",
  "skill": "trip-planner",
  "cases": [
    {
      "id": "rainy-lisbon",
      "input": "Rework the Lisbon plan for three rainy days.",
      "expected_outcome": ["indoor options", "same budget"],
      "input_files": [],
      "baseline_risks": ["keeps the beach day"],
      "with_skill_expectations": ["swaps outdoor stops"],
      "objective_assertions": [],
      "missing_evidence": ["opening hours"],
      "evidence_status": "missing"
    }
  ]
}
"""

SAMPLES = [pytest.param(TABS_CRLF, id="tabs-crlf"), pytest.param(ALL_MEMBERS, id="all-dropped-members")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_dropped_members_move_under_extensions():
    case = orjson.loads(migrate_sample(ALL_MEMBERS, PATH).after)["cases"][0]
    assert list(case) == ["id", "input", "expected_outcome", "extensions"]
    assert case["extensions"] == {
        "input_files": [],
        "baseline_risks": ["keeps the beach day"],
        "with_skill_expectations": ["swaps outdoor stops"],
        "objective_assertions": [],
        "missing_evidence": ["opening hours"],
        "evidence_status": "missing",
    }
