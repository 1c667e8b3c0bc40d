"""spec_write_tasks_expected_behavior_cases_v1: `cases` of `input`,
`expected_decision`/`expected_output`, `coverage_tags`.

`expected_decision` and `expected_output` become one `expected_outcome` object. The
samples hold `\\uXXXX` escapes: kept as written, and a skill inferred from a
non-ASCII `skills/<name>/` path is written escaped too, in the file's own style.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_write_tasks_expected_behavior_cases_v1"

# ASCII-only text with \u escapes, no skill, a skill directory with a non-ASCII name.
ESCAPED_NO_SKILL = """\
{
  "schema_version": "spec-first.spec-write-tasks-expected-behavior-cases.v1",
  "cases": [
    {
      "id": "cr\\u00eape-batter",
      "input": "Plan the cr\\u00eape batter \\u2014 rest it first.",
      "coverage_tags": ["expected"],
      "expected_decision": "compile",
      "expected_output": ["rest 30 min", "whisk \\"gently\\""],
      "pan_size_cm": 24
    }
  ]
}
"""
ESCAPED_PATH = "skills/cr\u00eapes/evals/expected-behavior-cases.json"

# Raw non-ASCII text: new members are written raw as well.
RAW_UTF8 = """\
{
  "schema_version": "spec-first.spec-write-tasks-expected-behavior-cases.v1",
  "skill": "galette-tasks",
  "cases": [
    {"id": "sarrasin", "input": "Galette au sarrasin pour 6 — quelles étapes ?", "expected_output": {"waves": 2}}
  ]
}
"""

SAMPLES = [
    pytest.param(ESCAPED_NO_SKILL, ESCAPED_PATH, id="unicode-escapes-no-skill"),
    pytest.param(RAW_UTF8, "skills/galette-tasks/evals/expected-behavior-cases.json", id="raw-utf8"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_escapes_are_kept_and_followed():
    after = migrate_sample(ESCAPED_NO_SKILL, ESCAPED_PATH).after
    assert after.isascii()
    assert '"skill": "cr\\u00eapes"' in after
    assert '"id": "cr\\u00eape-batter"' in after
    case = orjson.loads(after)["cases"][0]
    assert case["expected_outcome"] == {
        "expected_decision": "compile",
        "expected_output": ["rest 30 min", 'whisk "gently"'],
    }
    assert case["extensions"] == {"pan_size_cm": 24}


def test_decision_object_from_output_alone():
    case = orjson.loads(migrate_sample(RAW_UTF8).after)["cases"][0]
    assert case["expected_outcome"] == {"expected_output": {"waves": 2}}
    assert "extensions" not in case
