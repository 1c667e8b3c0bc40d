"""spec_graph_bootstrap_failure_cases_v1: `cases` of `input`, `context`,
`expected_failure`/`expected_next_action`, in files with no `skill`.

`expected_failure` and `expected_next_action` become one `expected_outcome` object;
`context` goes under `extensions`; the skill comes from the path.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_graph_bootstrap_failure_cases_v1"
PATH = "skills/star-mapper/evals/failure-cases.json"

# No whitespace at all between tokens.
TIGHT = (
    '{"schema_version":"spec-first.spec-graph-bootstrap-failure-cases.v1","cases":['
    '{"id":"no-telescope","input":"Map the sky without a telescope log.","context":"empty log",'
    '"expected_failure":"Invents star positions","expected_next_action":"Ask for the log"}]}\n'
)

# Pretty, with a second case that has neither failure member.
PRETTY = """\
{
  "schema_version": "spec-first.spec-graph-bootstrap-failure-cases.v1",
  "cases": [
    {
      "id": "cloudy-night",
      "input": "The whole night was cloudy.",
      "expected_failure": {"kind": "empty-input", "retry": false},
      "expected_next_action": "Reschedule"
    },
    {
      "id": "bad-date",
      "input": "The log is dated in the future.",
      "context": ["2999-01-01"]
    }
  ]
}
"""

SAMPLES = [pytest.param(TIGHT, id="no-whitespace"), pytest.param(PRETTY, id="pretty")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_tight_layout_is_kept():
    after = migrate_sample(TIGHT, PATH).after
    assert ": " not in after and ", " not in after
    assert after.startswith('{"schema_version":"spec-first.workflow-eval-fixtures.v1","skill":"star-mapper",')


def test_failure_object():
    first, second = orjson.loads(migrate_sample(PRETTY, PATH).after)["cases"]
    assert first["expected_outcome"] == {
        "expected_failure": {"kind": "empty-input", "retry": False},
        "expected_next_action": "Reschedule",
    }
    assert "expected_outcome" not in second
    assert second["extensions"] == {"context": ["2999-01-01"]}
