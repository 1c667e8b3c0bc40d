"""spec_write_tasks_trigger_cases_v1: `cases` of `input`, `context`,
`expected_decision`/`expected_next_action`, `coverage_tags`.

`expected_decision` and `expected_next_action` become one `expected_outcome` object;
`context` goes under `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_write_tasks_trigger_cases_v1"
PATH = "skills/quilt-tasks/evals/trigger-cases.json"

# Multi-line scalar arrays: a new array (from a lone negative_signal) is multi-line too.
MULTILINE = """\
{
  "schema_version": "spec-first.spec-write-tasks-trigger-cases.v1",
  "skill": "quilt-tasks",
  "source_refs": [
    "skills/quilt-tasks/SKILL.md"
  ],
  "cases": [
    {
      "id": "patchwork-plan",
      "input": "Turn the patchwork plan into sewing tasks.",
      "context": "The plan lists twelve blocks.",
      "coverage_tags": [
        "trigger"
      ],
      "expected_decision": "compile",
      "expected_next_action": "Emit one task per block row.",
      "negative_signal": "starts cutting fabric"
    }
  ]
}
"""

# Inline arrays: the new array is inline as well; no skill.
INLINE_NO_SKILL = """\
{
  "schema_version": "spec-first.spec-write-tasks-trigger-cases.v1",
  "cases": [
    {
      "id": "just-chat",
      "input": "Which thread colour goes with navy?",
      "coverage_tags": ["boundary"],
      "expected_decision": "do-not-trigger",
      "negative_signal": "creates tasks"
    }
  ]
}
"""

SAMPLES = [pytest.param(MULTILINE, id="multiline-arrays"), pytest.param(INLINE_NO_SKILL, id="inline-no-skill")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_new_array_follows_the_file():
    assert '"forbidden_signals": [\n        "starts cutting fabric"\n      ]' in migrate_sample(MULTILINE, PATH).after
    assert '"forbidden_signals": ["creates tasks"]' in migrate_sample(INLINE_NO_SKILL, PATH).after


def test_decision_object_and_context():
    case = orjson.loads(migrate_sample(MULTILINE, PATH).after)["cases"][0]
    assert case["expected_outcome"] == {
        "expected_decision": "compile",
        "expected_next_action": "Emit one task per block row.",
    }
    assert case["extensions"] == {"context": "The plan lists twelve blocks."}
