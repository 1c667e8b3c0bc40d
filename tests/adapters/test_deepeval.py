"""deepeval: DeepEval goldens, single- and multi-turn, snake or camel keys, JSON or CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.import_helpers import EXAMPLES, EXTERNAL, check_import, corpus_files, plan, requires_external

JSON = EXAMPLES / "deepeval" / "goldens.json"
CSV = EXAMPLES / "deepeval" / "goldens.csv"
ROOT = EXAMPLES.parents[1]


def test_imports_goldens(tmp_path, snapshot_json):
    text = check_import([JSON, CSV], tmp_path / "shop.json", root=ROOT, skill="shop")
    assert text == snapshot_json
    named, camel, conversation, csv = json.loads(text)["cases"]
    assert named["id"] == "refund-window"
    assert named["extensions"]["context"] == ["Refunds are accepted within 30 days of delivery."]
    assert camel["expected_outcome"]["expected_tools"][0]["name"] == "book_table"
    assert camel["extensions"]["deepeval"]["key_style"] == "camel"
    assert conversation["input"] == "A customer tries to change a delivery address"
    assert conversation["coverage_tags"] == ["multi-turn", "expected"]
    assert conversation["extensions"]["deepeval"]["turns"][0]["role"] == "user"  # parsed from its JSON string
    assert csv["extensions"]["context"] == ["Arithmetic", "Small numbers"]
    assert csv["extensions"]["deepeval"]["additional_metadata"] == {"source": "handbook", "page": 3}
    assert csv["extensions"]["deepeval"]["tools_called"] == [{"name": "calculator"}, {"name": "memory"}]


def test_a_golden_without_expected_output_has_no_outcome_tag(tmp_path):
    source = tmp_path / "goldens.jsonl"
    source.write_text('{"input": "Hi", "actual_output": null, "expected_output": null}\n', encoding="utf-8")
    (case,) = json.loads(plan([source], tmp_path / "o.json", root=tmp_path).new_bytes)["cases"]
    assert case["expected_outcome"] is None and "coverage_tags" not in case


def _corpus_jobs() -> list[object]:
    jobs = [pytest.param(path, id=path.name) for path in corpus_files("deepeval", ".json", ".jsonl", ".csv")]
    return jobs or [pytest.param(None, id="absent")]


@requires_external("deepeval")
@pytest.mark.parametrize("source", _corpus_jobs())
def test_corpus_samples_import(source: Path, tmp_path):
    text = check_import([source], tmp_path / "imported.json", root=EXTERNAL)
    assert json.loads(text)["coverage_tags"] == ["deepeval"]


def test_goldens_whose_input_is_query(tmp_path):
    text = check_import([EXAMPLES / "deepeval" / "query-goldens.json"], tmp_path / "q.json", root=ROOT, skill="shop")
    first, second = json.loads(text)["cases"]
    assert first["input"] == "How do I reset my password?"
    assert first["extensions"]["deepeval"]["input_key"] == "query"
    assert second["extensions"]["context"] == ["Orders ship within 2 days."]


def test_goldens_in_an_object_with_other_members(tmp_path):
    source = EXAMPLES / "deepeval" / "wrapped-goldens.json"
    text = check_import([source], tmp_path / "w.json", root=ROOT, skill="shop")
    data = json.loads(text)
    assert data["cases"][0]["source_refs"] == ["examples/external/deepeval/wrapped-goldens.json#/goldens/0"]
    held = data["extensions"]["deepeval"]["files"]["examples/external/deepeval/wrapped-goldens.json"]
    assert held == {"list_key": "goldens", "members": {"name": "support goldens", "version": 2}}
