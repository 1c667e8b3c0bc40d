"""using_spec_first_routing_cases_v1: `cases` named by `name`, with `user_intent`,
`expected_outcome` and routing members (`public_workflow_required`,
`expected_entrypoint`, `graphify_required`, `artifact_expected`, `dispatch_decision`,
`fallback_reason`).

`user_intent` becomes `input`; `name` (its slug is the id where there is none) and the
routing members go under `extensions`, where the reference copies them.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "using_spec_first_routing_cases_v1"

# Tab indentation, no skill, a case with both `id` and `name`.
TABS_NO_SKILL = (
    "{\n"
    '\t"schema_version": "using-spec-first-routing-cases/v1",\n'
    '\t"source_ref_authority": "advisory",\n'
    '\t"cases": [\n'
    "\t\t{\n"
    '\t\t\t"name": "Route: Bake Bread?",\n'
    '\t\t\t"user_intent": "Help me bake sourdough this weekend.",\n'
    '\t\t\t"expected_outcome": "Routes to the baking workflow.",\n'
    '\t\t\t"public_workflow_required": true,\n'
    '\t\t\t"expected_entrypoint": "bake-start",\n'
    '\t\t\t"graphify_required": false,\n'
    '\t\t\t"artifact_expected": null,\n'
    '\t\t\t"coverage_tags": ["trigger"]\n'
    "\t\t},\n"
    "\t\t{\n"
    '\t\t\t"id": "no-oven",\n'
    '\t\t\t"name": "No oven available",\n'
    '\t\t\t"user_intent": "I have no oven, can I still bake?",\n'
    '\t\t\t"dispatch_decision": "fallback",\n'
    '\t\t\t"fallback_reason": "missing-equipment",\n'
    '\t\t\t"boundary_note": "Stovetop recipes only."\n'
    "\t\t}\n"
    "\t]\n"
    "}\n"
)

WITH_SKILL = """\
{
  "schema_version": "using-spec-first-routing-cases/v1",
  "skill": "bakery-router",
  "cases": [
    {"id": "cake-order", "user_intent": "Order a birthday cake.", "expected_outcome": "Routes to orders.", "dispatch_decision": "route", "expected_entrypoint": "orders"}
  ]
}
"""

SAMPLES = [
    pytest.param(TABS_NO_SKILL, "skills/bakery-router/evals/routing-cases.json", id="tabs-no-skill"),
    pytest.param(WITH_SKILL, "skills/bakery-router/evals/routing-cases.json", id="inline-with-skill"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_ids_and_routing_members():
    data = orjson.loads(migrate_sample(TABS_NO_SKILL, "skills/bakery-router/evals/routing-cases.json").after)
    assert data["skill"] == "bakery-router"
    first, second = data["cases"]
    assert first["id"] == "route-bake-bread"
    assert first["input"] == "Help me bake sourdough this weekend."
    assert first["extensions"] == {
        "name": "Route: Bake Bread?",
        "public_workflow_required": True,
        "expected_entrypoint": "bake-start",
        "graphify_required": False,
        "artifact_expected": None,
    }
    assert second["id"] == "no-oven"
    assert second["extensions"]["fallback_reason"] == "missing-equipment"
