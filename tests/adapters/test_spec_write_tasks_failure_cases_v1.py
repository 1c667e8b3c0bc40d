"""spec_write_tasks_failure_cases_v1: `cases` of `input`, `context`,
`expected_failure`/`expected_next_action`, `coverage_tags`.

`expected_failure` and `expected_next_action` become one `expected_outcome` object;
`context` goes under `extensions`. One sample is a BOM + CRLF + tab file with no
final newline: all four stay.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample, plan

ADAPTER = "spec_write_tasks_failure_cases_v1"

BOM_CRLF_TABS = (
    "\ufeff{\r\n"
    '\t"schema_version": "spec-first.spec-write-tasks-failure-cases.v1",\r\n'
    '\t"skill": "bread-baker",\r\n'
    '\t"cases": [\r\n'
    "\t\t{\r\n"
    '\t\t\t"id": "flat-loaf",\r\n'
    '\t\t\t"input": "My loaf came out flat.",\r\n'
    '\t\t\t"context": "Rye flour, cold kitchen.",\r\n'
    '\t\t\t"coverage_tags": ["failure"],\r\n'
    '\t\t\t"expected_failure": "Blames the recipe without asking.",\r\n'
    '\t\t\t"expected_next_action": "Ask about proofing time."\r\n'
    "\t\t}\r\n"
    "\t]\r\n"
    "}"
)

# No skill; the next action alone does not make an outcome object (the reference's rule).
NEXT_ACTION_ONLY = """\
{
  "schema_version": "spec-first.spec-write-tasks-failure-cases.v1",
  "cases": [
    {"id": "burnt-crust", "input": "The crust burns every time.", "expected_failure": ["oven too hot"], "expected_next_action": "Lower the rack."},
    {"id": "no-rise", "input": "The dough never rises.", "expected_next_action": "Check the yeast date.", "context": {"flour": "spelt"}}
  ]
}
"""

SAMPLES = [
    pytest.param(BOM_CRLF_TABS, "skills/bread-baker/evals/failure-cases.json", id="bom-crlf-tabs"),
    pytest.param(NEXT_ACTION_ONLY, "skills/bread-baker/evals/failure-cases.json", id="next-action-only"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_bom_crlf_and_missing_final_newline_are_kept():
    new = plan(BOM_CRLF_TABS).new_bytes
    assert new is not None
    assert new.startswith(b"\xef\xbb\xbf{\r\n\t")
    assert new.endswith(b"\t]\r\n}")
    assert new.count(b"\r\n") == new.count(b"\n")


def test_failure_object():
    first, second = orjson.loads(migrate_sample(NEXT_ACTION_ONLY).after)["cases"]
    assert first["expected_outcome"] == {
        "expected_failure": ["oven too hot"],
        "expected_next_action": "Lower the rack.",
    }
    assert "expected_outcome" not in second
    assert second["extensions"] == {"expected_next_action": "Check the yeast date.", "context": {"flour": "spelt"}}
