"""yao_semantic_trigger_cases_v1: query lists `should_trigger`, `should_not_trigger`
and `near_neighbor` (entries `{"text": ..., "family": ...}` or plain strings), with a
file-level `recommended_threshold`, `coverage_tags` and `source_refs`.

Each entry becomes a case: id `<list>-<n>`, `text` as `input`, an outcome and tags
by list (see the adapter), its other members under the case's `extensions`; the
threshold goes under the file's `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "yao_semantic_trigger_cases_v1"
PATH = "skills/bike-repair/evals/yao-trigger-cases.json"

# All three lists, inline arrays and inline entries; a plain-string entry and a
# non-string one.
THREE_LISTS = """\
{
  "schema_version": "yao.semantic-trigger-cases.v1",
  "skill": "bike-repair",
  "recommended_threshold": 0.61,
  "source_refs": ["skills/bike-repair/SKILL.md"],
  "coverage_tags": ["trigger", "boundary"],
  "should_trigger": [
    {"text": "My chain keeps slipping on hills.", "family": "drivetrain"},
    "Fix a flat tyre on my road bike."
  ],
  "should_not_trigger": [
    {"text": "Recommend a cycling route in the Alps.", "family": "routes"}
  ],
  "near_neighbor": [
    {"text": "Which car tyre pressure is right?", "family": "cars", "note": null},
    42
  ]
}
"""

# Tabs, no skill, multi-line arrays: the new tag arrays are multi-line too.
TABS_NO_SKILL = (
    "{\n"
    '\t"schema_version": "yao.semantic-trigger-cases.v1",\n'
    '\t"source_refs": [\n\t\t"skills/bike-repair/SKILL.md"\n\t],\n'
    '\t"should_trigger": [\n'
    '\t\t{\n\t\t\t"text": "Adjust my rear derailleur.",\n\t\t\t"family": "gears"\n\t\t}\n'
    "\t],\n"
    '\t"near_neighbor": [\n'
    '\t\t"Tune my piano."\n'
    "\t]\n"
    "}\n"
)

SAMPLES = [pytest.param(THREE_LISTS, id="three-lists"), pytest.param(TABS_NO_SKILL, id="tabs-no-skill")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_entries_become_cases():
    data = orjson.loads(migrate_sample(THREE_LISTS, PATH).after)
    assert data["extensions"] == {"migrated_from": "yao.semantic-trigger-cases.v1", "recommended_threshold": 0.61}
    assert data["coverage_tags"] == ["trigger", "boundary"]
    cases = {case["id"]: case for case in data["cases"]}
    assert list(cases) == [
        "should-trigger-1",
        "should-trigger-2",
        "should-not-trigger-1",
        "near-neighbor-1",
        "near-neighbor-2",
    ]
    assert cases["should-trigger-1"] == {
        "id": "should-trigger-1",
        "input": "My chain keeps slipping on hills.",
        "coverage_tags": ["trigger", "should-trigger"],
        "expected_outcome": "should-trigger",
        "extensions": {"family": "drivetrain"},
    }
    assert cases["should-trigger-2"]["input"] == "Fix a flat tyre on my road bike."
    assert "extensions" not in cases["should-trigger-2"]
    assert cases["should-not-trigger-1"]["coverage_tags"] == ["boundary", "should-not-trigger"]
    assert cases["near-neighbor-1"]["expected_outcome"] == "should-not-trigger"
    assert cases["near-neighbor-1"]["extensions"] == {"family": "cars", "note": None}
    # An entry that is neither text nor an object is kept whole; it has no input.
    assert cases["near-neighbor-2"]["extensions"] == {"entry": 42}
    assert "input" not in cases["near-neighbor-2"]


def test_skill_from_path_and_multiline_tags():
    after = migrate_sample(TABS_NO_SKILL, PATH).after
    assert orjson.loads(after)["skill"] == "bike-repair"
    assert '\t\t\t"coverage_tags": [\n\t\t\t\t"boundary",\n\t\t\t\t"near-neighbor"\n\t\t\t],\n' in after


def test_empty_list_is_kept():
    source = (
        '{"schema_version": "yao.semantic-trigger-cases.v1", "skill": "bike-repair", '
        '"should_trigger": ["True my wheel."], "near_neighbor": []}\n'
    )
    data = orjson.loads(migrate_sample(source, PATH).after)
    assert [case["id"] for case in data["cases"]] == ["should-trigger-1"]
