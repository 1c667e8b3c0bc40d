"""prompt_examples_v1: `examples` named by `name`, user_intent/expected_posture/negative_signal."""

import pytest

from tests.helpers import check_migration, plan

ADAPTER = "prompt_examples_v1"

TWO_EXAMPLES = """\
{
  "schema_version": "prompt-examples/v1",
  "skill": "demo-skill",
  "source_refs": ["skills/demo-skill/SKILL.md"],
  "examples": [
    {
      "name": "Asks for a Review, gets one",
      "user_intent": "Please review the attached plan.",
      "expected_posture": "Review the plan and lead with findings.",
      "boundary_note": "Reviewing is not rewriting.",
      "negative_signal": "Rewrites the plan without being asked.",
      "context_snippets": ["Review Scope", "Findings First"],
      "source_note": "from the review section"
    },
    {
      "name": "café order — no trigger",
      "user_intent": "Order me a coffee.",
      "expected_posture": "Decline: out of scope.",
      "negative_signal": ["Starts a review", "Starts a review"],
      "coverage_tags": ["boundary"]
    }
  ]
}
"""

CRLF_NO_SKILL = (
    '{\r\n\t"schema_version": "prompt-examples/v1",\r\n\t"examples": [\r\n'
    '\t\t{"name": "Tab indented", "user_intent": "Say hi.", "expected_posture": "Greets back."}\r\n'
    "\t]\r\n}"
)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(TWO_EXAMPLES, id="two-examples"),
        pytest.param(CRLF_NO_SKILL, id="crlf-tabs-no-final-newline-no-skill"),
    ],
)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff)


def test_a_schema_version_without_a_case_list_is_not_a_fixture():
    # A sidecar that quotes the version (meta.json, say) is not the family's file.
    assert plan('{"schema_version": "prompt-examples/v1", "case_count": 5}').status == "not_fixture"
