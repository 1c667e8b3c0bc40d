"""agent_native_architecture_eval_examples_v1: `examples` of `id`, `user_intent`,
`expected_posture`, `forbidden_signals`, `coverage_tags`, case-level `source_refs`.

`examples` becomes `cases`, `user_intent` becomes `input` and `expected_posture`
becomes `expected_outcome`. One sample starts with a byte order mark, which stays.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample, plan

ADAPTER = "agent_native_architecture_eval_examples_v1"
PATH = "skills/robot-designer/evals/examples.json"

BOM = """\ufeff{
  "schema_version": "spec-first.agent-native-architecture-eval-examples.v1",
  "skill": "robot-designer",
  "source_ref_authority": "source",
  "examples": [
    {
      "id": "tool-first",
      "user_intent": "Design the vacuum robot so an agent can drive every action.",
      "expected_posture": "Exposes each action as a tool before adding a UI.",
      "forbidden_signals": ["UI-only buttons"],
      "coverage_tags": ["trigger"],
      "source_refs": ["skills/robot-designer/SKILL.md#tools"]
    }
  ]
}
"""

# No id (the reference numbers it), a stray member, no skill.
NO_ID_NO_SKILL = """\
{
  "schema_version": "spec-first.agent-native-architecture-eval-examples.v1",
  "examples": [
    {"id": "parity", "user_intent": "Can the agent do what the app does?", "expected_posture": "Checks parity."},
    {"user_intent": "Add a hidden admin switch.", "expected_posture": "Refuses hidden state.", "risk": "medium"}
  ]
}
"""

SAMPLES = [pytest.param(BOM, id="bom"), pytest.param(NO_ID_NO_SKILL, id="no-id-no-skill")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_bom_is_kept():
    result = plan(BOM, PATH)
    assert result.new_bytes is not None and result.new_bytes.startswith(b"\xef\xbb\xbf{")
    assert result.new_bytes.count(b"\xef\xbb\xbf") == 1


def test_case_number_id_and_renames():
    data = orjson.loads(migrate_sample(NO_ID_NO_SKILL, PATH).after)
    assert data["skill"] == "robot-designer"
    assert [case["id"] for case in data["cases"]] == ["parity", "case-2"]
    assert data["cases"][1] == {
        "id": "case-2",
        "input": "Add a hidden admin switch.",
        "expected_outcome": "Refuses hidden state.",
        "extensions": {"risk": "medium"},
    }
