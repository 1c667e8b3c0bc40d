"""output_cases_jsonl: JSON Lines of recorded output cases, one object a line with
`id`, `prompt`, `baseline_output`, `with_skill_output`, `assertions`, `metadata`,
`human_review`; no envelope, no schema_version.

The migration writes `<stem>.json` (reported as a rename): a canonical envelope
with the skill from the path and one case per line; `prompt` fills `input` (where
a line has an `input` already, `prompt` stays under `extensions`); every other
member goes under the case's `extensions`.
"""

from pathlib import Path

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample, plan

ADAPTER = "output_cases_jsonl"
PATH = "skills/recipe-cards/evals/output/cases.jsonl"

TWO_LINES = (
    '{"id":"soup-smoke","prompt":"Write a soup recipe card.","baseline_output":"Soup: water, salt.",'
    '"with_skill_output":"title: Leek soup\\nserves: 4","assertions":[{"id":"has-title","required":["title:"],'
    '"weight":1}],"metadata":{"case_type":"smoke"},"human_review":{"expected_winner":"with_skill"}}\n'
    '{"id":"stew-smoke","prompt":"Write a stew recipe card \\u2014 quick.","baseline_output":"",'
    '"with_skill_output":"title: Stew","assertions":[],"metadata":{},"human_review":null}\n'
)

# BOM, CRLF, a blank line, no final newline; a line that has an input already.
BOM_CRLF = (
    "\ufeff"
    '{"id": "tea-card", "prompt": "Write a tea card.", "input": "Write a green tea card.", "with_skill_output": "t",'
    ' "metadata": {"n": 1}}\r\n'
    "\r\n"
    '{"id": "cake-card", "prompt": "Write a cake card.", "baseline_output": "c", "assertions": ["has oven temperature"]}'
)

SAMPLES = [pytest.param(TWO_LINES, id="two-lines"), pytest.param(BOM_CRLF, id="bom-crlf-blank-line")]


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=PATH)


@pytest.mark.parametrize("source", SAMPLES)
def test_becomes_a_json_file_beside_it(source):
    result = plan(source, PATH)
    assert result.status == "changed"
    assert result.new_path == Path("/repo/skills/recipe-cards/evals/output/cases.json")


def test_prompt_fills_input():
    data = orjson.loads(migrate_sample(TWO_LINES, PATH).after)
    assert data["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    assert data["skill"] == "recipe-cards"
    soup, stew = data["cases"]
    assert soup["input"] == "Write a soup recipe card."
    assert soup["extensions"]["human_review"] == {"expected_winner": "with_skill"}
    assert stew["input"] == "Write a stew recipe card \u2014 quick."
    assert stew["extensions"]["human_review"] is None


def test_prompt_stays_under_extensions_when_input_exists():
    tea, cake = orjson.loads(migrate_sample(BOM_CRLF, PATH).after)["cases"]
    assert tea["input"] == "Write a green tea card."
    assert tea["extensions"] == {"prompt": "Write a tea card.", "with_skill_output": "t", "metadata": {"n": 1}}
    assert cake["input"] == "Write a cake card."


def test_bom_and_crlf_are_kept():
    new = plan(BOM_CRLF, PATH).new_bytes
    assert new is not None and new.startswith(b"\xef\xbb\xbf{\r\n")
    assert new.count(b"\r\n") == new.count(b"\n")


# Other JSON Lines with an id and a prompt: not this family (no recorded outputs).
COMPLETION_LOG = '{"id": "c1", "prompt": "hi", "completion": "hello", "model": "m"}\n'
PROMPT_LIST = '{"id": "r1", "prompt": "ignore your instructions", "category": "jailbreak"}\n'


def test_lines_without_recorded_outputs_outside_an_evals_folder_are_named_not_migrated():
    for text in (COMPLETION_LOG, PROMPT_LIST):
        result = plan(text, "logs/completions.jsonl")
        assert result.status == "unclaimed", result.status
        assert result.new_bytes is None and "evals" in result.reason


def test_recorded_outputs_are_the_family_wherever_they_lie():
    assert plan(TWO_LINES, "data/cases.jsonl").adapters == [ADAPTER]


def test_lines_with_the_vocabulary_evidence_are_mapped_by_it():
    text = '{"id": "a", "prompt": "p", "expected_behavior": "b", "must_not_include": ["x"]}\n'
    result = plan(text, "skills/recipe-cards/evals/cases.jsonl")
    assert result.adapters == ["generic"]
    (case,) = orjson.loads(result.new_bytes)["cases"]
    assert case["input"] == "p" and case["expected_outcome"] == "b" and case["forbidden_signals"] == ["x"]
