"""langsmith: LangSmith dataset examples (inputs/outputs), ids, splits and chat inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.import_helpers import EXAMPLES, EXTERNAL, check_import, corpus_files, plan, refused, requires_external

EXAMPLES_FILE = EXAMPLES / "langsmith" / "examples.jsonl"
ROOT = EXAMPLES.parents[1]


def test_imports_examples(tmp_path, snapshot_json):
    text = check_import([EXAMPLES_FILE], tmp_path / "docs.json", root=ROOT, skill="docs")
    assert text == snapshot_json
    uuid, chat, no_outputs = json.loads(text)["cases"]
    assert uuid["id"] == "5b1f6c4e-0000-4000-8000-000000000001"
    assert uuid["coverage_tags"] == ["base", "hard-cases", "expected"]
    assert uuid["expected_outcome"] == "Its inputs, outputs, timing and feedback."  # a single-key object unwrapped
    assert chat["input"] == "Define a dataset split."
    assert chat["expected_outcome"] == {"answer": "A named subset of examples.", "score": 1}
    assert no_outputs["input"] == "topic: tracing\naudience: new users"
    assert no_outputs["expected_outcome"] is None


def test_inputs_without_outputs_are_not_langsmith(tmp_path):
    source = tmp_path / "mlflow.json"
    source.write_text('[{"inputs": {"q": "x"}, "expectations": {"expected_response": "y"}}]', encoding="utf-8")
    ((_, code, _),) = refused([source], tmp_path / "o.json", root=tmp_path, skill="x")
    assert code == "unknown_format"


def _corpus_jobs() -> list[object]:
    jobs = [pytest.param(path, id=path.name) for path in corpus_files("langsmith", ".json", ".jsonl")]
    return jobs or [pytest.param(None, id="absent")]


@requires_external("langsmith")
@pytest.mark.parametrize("source", _corpus_jobs())
def test_corpus_samples_import(source: Path, tmp_path):
    text = check_import([source], tmp_path / "imported.json", root=EXTERNAL)
    assert json.loads(text)["coverage_tags"] == ["langsmith"]


def test_examples_without_outputs(tmp_path):
    partial = EXAMPLES / "langsmith" / "partial.jsonl"
    text = check_import([partial], tmp_path / "faq.json", root=ROOT, skill="faq")
    first, second = json.loads(text)["cases"]
    assert "expected_outcome" not in first and first["extensions"]["langsmith"]["metadata"] == {"source": "faq"}
    assert second["expected_outcome"] == "Yes, to 30 countries."


def test_from_langsmith_takes_examples_with_no_outputs_at_all(tmp_path):
    source = tmp_path / "inputs.jsonl"
    source.write_text('{"inputs": {"question": "Hi?"}}\n', encoding="utf-8")
    ((_, code, message),) = refused([source], tmp_path / "o.json", root=tmp_path, skill="x")
    assert code == "unknown_format" and "--from langsmith" in message
    assert plan([source], tmp_path / "o.json", root=tmp_path, skill="x", fmt="langsmith").cases == 1
