"""team_standards_trigger_evals_v1: `cases` of `case_id`, `case_type`, `prompt`,
`expected_result`, `expected_mode`, `reason_code`; later versions add `id`, `input`,
`expected_outcome`, `coverage_tags`, `source_refs`, `boundary_note`.

Where a case has no input, `prompt` fills `input`, and `expected_result` fills
`expected_outcome`; where the canonical members exist, `prompt` and
`expected_result` stay under `extensions`. A case without `id` gets `case-<n>`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "team_standards_trigger_evals_v1"
PATH = "skills/kitchen-rules/evals/trigger-cases.json"

# The earliest shape: prompt and expected_result only, inline cases, no skill.
EARLY = """\
{
  "schema_version": "team-standards-trigger-evals/v1",
  "cases": [
    {"case_id": "TRIG-1", "case_type": "acquire", "prompt": "Collect the kitchen rules for the night shift.", "expected_result": "should-trigger", "expected_mode": "init", "reason_code": "single-target"},
    {"case_id": "TRIG-2", "case_type": "query", "prompt": "What does rule K-7 mean?", "expected_result": "should-not-trigger", "expected_mode": "query", "reason_code": "query-only"}
  ]
}
"""

# The later shape, with tabs: canonical members present, copies stay local.
LATER_TABS = (
    "{\n"
    '\t"schema_version": "team-standards-trigger-evals/v1",\n'
    '\t"coverage_tags": ["trigger"],\n'
    '\t"source_refs": ["docs/standards/kitchen.md"],\n'
    '\t"cases": [\n'
    "\t\t{\n"
    '\t\t\t"id": "trig-3",\n'
    '\t\t\t"case_id": "TRIG-3",\n'
    '\t\t\t"input": "Merge the bakery and grill rules in one pass.",\n'
    '\t\t\t"prompt": "Merge the bakery and grill rules in one pass.",\n'
    '\t\t\t"expected_outcome": "boundary",\n'
    '\t\t\t"expected_result": "boundary",\n'
    '\t\t\t"boundary_note": "Split by station first.",\n'
    '\t\t\t"reason_code": "mixed-stations"\n'
    "\t\t}\n"
    "\t]\n"
    "}\n"
)

SAMPLES = [pytest.param(EARLY, id="early-prompt-only"), pytest.param(LATER_TABS, id="later-tabs")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_prompt_and_expected_result_fill():
    first, second = orjson.loads(migrate_sample(EARLY, PATH).after)["cases"]
    assert first["id"] == "case-1"
    assert first["input"] == "Collect the kitchen rules for the night shift."
    assert first["expected_outcome"] == "should-trigger"
    assert first["extensions"] == {
        "case_id": "TRIG-1",
        "case_type": "acquire",
        "expected_mode": "init",
        "reason_code": "single-target",
    }
    assert second["input"] == "What does rule K-7 mean?"
    assert second["expected_outcome"] == "should-not-trigger"


def test_copies_stay_under_extensions_when_canonical_members_exist():
    case = orjson.loads(migrate_sample(LATER_TABS, PATH).after)["cases"][0]
    assert case["input"] == "Merge the bakery and grill rules in one pass."
    assert case["expected_outcome"] == "boundary"
    assert case["extensions"] == {
        "case_id": "TRIG-3",
        "prompt": "Merge the bakery and grill rules in one pass.",
        "expected_result": "boundary",
        "reason_code": "mixed-stations",
    }
