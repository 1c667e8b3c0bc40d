"""spec_graph_bootstrap_trigger_cases_v1: `cases` of `input`, `context`,
`expected_decision`/`expected_next_action`, in files with no `skill`.

`expected_decision` and `expected_next_action` become one `expected_outcome` object;
`context` goes under `extensions`; the skill comes from the path.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "spec_graph_bootstrap_trigger_cases_v1"
PATH = "skills/river-mapper/evals/trigger-cases.json"

# 4-space indent with CRLF line endings.
CRLF_FOUR_SPACES = (
    "{\r\n"
    '    "schema_version": "spec-first.spec-graph-bootstrap-trigger-cases.v1",\r\n'
    '    "cases": [\r\n'
    "        {\r\n"
    '            "id": "new-basin",\r\n'
    '            "input": "Chart the tributaries of this basin.",\r\n'
    '            "context": {\r\n'
    '                "gauges": 4,\r\n'
    '                "survey": "2021"\r\n'
    "            },\r\n"
    '            "expected_decision": "bootstrap",\r\n'
    '            "expected_next_action": "Collect gauge data."\r\n'
    "        }\r\n"
    "    ]\r\n"
    "}\r\n"
)

# Outside `skills/<name>/`: no skill can be inferred, and none is written.
OUTSIDE_SKILLS = """\
{
  "schema_version": "spec-first.spec-graph-bootstrap-trigger-cases.v1",
  "cases": [
    {"id": "dry-creek", "input": "Chart a creek that is dry all summer.", "expected_decision": "skip"}
  ]
}
"""

SAMPLES = [
    pytest.param(CRLF_FOUR_SPACES, PATH, id="crlf-four-spaces"),
    pytest.param(OUTSIDE_SKILLS, "fixtures/graph/trigger-cases.json", id="outside-skills-dir"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_context_moves_reindented_with_crlf():
    after = migrate_sample(CRLF_FOUR_SPACES, PATH).after
    assert (
        '            "extensions": {\r\n'
        '                "context": {\r\n'
        '                    "gauges": 4,\r\n'
        '                    "survey": "2021"\r\n'
        "                }\r\n"
        "            }\r\n"
    ) in after
    assert orjson.loads(after)["skill"] == "river-mapper"


def test_no_skill_outside_skills_dir():
    data = orjson.loads(migrate_sample(OUTSIDE_SKILLS, "fixtures/graph/trigger-cases.json").after)
    assert "skill" not in data
    assert data["cases"][0]["expected_outcome"] == {"expected_decision": "skip"}
