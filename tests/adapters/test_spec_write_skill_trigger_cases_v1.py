"""spec_write_skill_trigger_cases_v1: `cases` of `id`, `case_id`, `case_type`,
`input`, `prompt`, `expected_outcome`, `expected_result`, `expected_mode`,
`reason_code`, `boundary_note`, `forbidden_signals`, `coverage_tags`.

The cases carry `input` and `expected_outcome`; `prompt` and `expected_result` fill
them where they are missing or blank, and otherwise stay under `extensions` with
`case_id`, `case_type`, `expected_mode` and `reason_code`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_write_skill_trigger_cases_v1"
PATH = "skills/skill-smith/evals/trigger-cases.json"

FILLS = """\
{
  "schema_version": "spec-first.spec-write-skill-trigger-cases.v1",
  "skill": "skill-smith",
  "source_refs": ["skills/skill-smith/SKILL.md"],
  "cases": [
    {
      "id": "photo-renamer",
      "case_id": "WS-01",
      "case_type": "create",
      "input": "",
      "prompt": "Write a skill that renames holiday photos by date.",
      "expected_result": "should-trigger",
      "coverage_tags": ["trigger"]
    },
    {
      "id": "readme-typo",
      "case_id": "WS-02",
      "input": "Fix a typo in the README.",
      "prompt": "Fix a typo in the README.",
      "expected_outcome": "should-not-trigger",
      "expected_result": "should-not-trigger",
      "expected_mode": "none",
      "reason_code": "not-a-skill",
      "forbidden_signals": ["scaffolds a skill"],
      "coverage_tags": ["boundary"],
      "boundary_note": "Edits are not new skills."
    }
  ]
}
"""

# Inline, no final newline, an escaped prompt.
INLINE = (
    '{\n  "schema_version": "spec-first.spec-write-skill-trigger-cases.v1",\n  "skill": "skill-smith",\n'
    '  "cases": [\n    {"id": "quote-skill", "prompt": "Write a skill for \\"quote of the day\\".", '
    '"expected_result": ["should-trigger"], "case_type": "create"}\n  ]\n}'
)

SAMPLES = [pytest.param(FILLS, id="fills-and-keeps"), pytest.param(INLINE, id="inline-escaped")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_prompt_and_expected_result_fill():
    first = orjson.loads(migrate_sample(FILLS, PATH).after)["cases"][0]
    assert first["input"] == "Write a skill that renames holiday photos by date."
    assert first["expected_outcome"] == "should-trigger"
    # The blank input it replaces is kept.
    assert first["extensions"] == {"input": "", "case_id": "WS-01", "case_type": "create"}
    inline = orjson.loads(migrate_sample(INLINE, PATH).after)["cases"][0]
    assert inline["input"] == 'Write a skill for "quote of the day".'
    assert inline["expected_outcome"] == ["should-trigger"]


def test_copies_stay_under_extensions_when_canonical_members_exist():
    second = orjson.loads(migrate_sample(FILLS, PATH).after)["cases"][1]
    assert second["input"] == "Fix a typo in the README."
    assert second["expected_outcome"] == "should-not-trigger"
    assert second["extensions"] == {
        "case_id": "WS-02",
        "prompt": "Fix a typo in the README.",
        "expected_result": "should-not-trigger",
        "expected_mode": "none",
        "reason_code": "not-a-skill",
    }
