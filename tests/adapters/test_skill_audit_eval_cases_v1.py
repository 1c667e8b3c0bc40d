"""skill_audit_eval_cases_v1: `cases` of `id`, `input`, `expected`, `coverage_tags`.

`expected` becomes `expected_outcome` (even an object or null); a stray member goes
under `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "skill_audit_eval_cases_v1"
PATH = "skills/poem-audit/evals/audit-quality-cases.json"

# Tabs, no final newline, multi-line arrays.
TABS = (
    "{\n"
    '\t"schema_version": "spec-first.skill-audit-eval-cases.v1",\n'
    '\t"skill": "poem-audit",\n'
    '\t"source_refs": [\n\t\t"skills/poem-audit/SKILL.md"\n\t],\n'
    '\t"cases": [\n'
    "\t\t{\n"
    '\t\t\t"id": "haiku-count",\n'
    '\t\t\t"input": "Audit a haiku skill that never counts syllables.",\n'
    '\t\t\t"coverage_tags": [\n\t\t\t\t"expected"\n\t\t\t],\n'
    '\t\t\t"expected": {\n\t\t\t\t"finding": "no syllable check",\n\t\t\t\t"severity": "medium"\n\t\t\t},\n'
    '\t\t\t"reviewer": "kai"\n'
    "\t\t}\n"
    "\t]\n"
    "}"
)

# No skill; a null `expected` is present, so it is the outcome.
NULL_EXPECTED = """\
{
  "schema_version": "spec-first.skill-audit-eval-cases.v1",
  "cases": [
    {"id": "limerick", "input": "Audit a limerick skill.", "expected": null, "coverage_tags": ["trigger"]}
  ]
}
"""

SAMPLES = [pytest.param(TABS, id="tabs-no-final-newline"), pytest.param(NULL_EXPECTED, id="null-expected-no-skill")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


def test_expected_becomes_outcome():
    case = orjson.loads(migrate_sample(TABS, PATH).after)["cases"][0]
    assert case["expected_outcome"] == {"finding": "no syllable check", "severity": "medium"}
    assert case["extensions"] == {"reviewer": "kai"}
    null_case = orjson.loads(migrate_sample(NULL_EXPECTED, PATH).after)["cases"][0]
    assert "expected_outcome" in null_case and null_case["expected_outcome"] is None


def test_file_level_empty_extensions():
    source = """\
{
  "schema_version": "spec-first.skill-audit-eval-cases.v1",
  "skill": "poem-audit",
  "extensions": {},
  "cases": [{"id": "sonnet", "input": "Audit a sonnet skill.", "expected": "Checks the volta."}]
}
"""
    data = orjson.loads(migrate_sample(source, PATH).after)
    assert data["extensions"] == {"migrated_from": "spec-first.skill-audit-eval-cases.v1"}
