"""inspect_ai: Inspect AI samples (JSON, JSONL, CSV), field mappings, multiple choice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.import_helpers import EXAMPLES, EXTERNAL, check_import, corpus_files, plan, refused, requires_external

JSONL = EXAMPLES / "inspect" / "security.jsonl"
CSV = EXAMPLES / "inspect" / "security.csv"
ROOT = EXAMPLES.parents[1]


def test_imports_samples(tmp_path, snapshot_json):
    text = check_import([JSONL, CSV], tmp_path / "security.json", root=ROOT, skill="security")
    assert text == snapshot_json
    chat, parts, choice, csv = json.loads(text)["cases"]
    assert (chat["id"], chat["input"]) == ("0", "How do I store passwords?")  # own id 0 kept, as text
    assert parts["input"] == "Is this query safe?"  # text parts only; the image stays in extensions
    assert parts["expected_outcome"] == ["no", "it is injectable"]
    assert choice["expected_outcome"] == {"target": "B", "choice_text": "X-Frame-Options"}
    assert choice["coverage_tags"] == ["multiple-choice", "expected"]
    assert csv["id"] == "007"
    assert csv["extensions"]["inspect_ai"]["metadata"] == {"difficulty": "easy", "reviewed": True}


def test_field_mapping_reads_other_column_names(tmp_path):
    source = tmp_path / "qa.jsonl"
    source.write_text(
        '{"id": "q1", "question": "Largest organ?", "answer": "Skin", "topic": "bio"}\n', encoding="utf-8"
    )
    ((_, code, message),) = refused([source], tmp_path / "o.json", root=tmp_path, skill="x")
    assert code == "unknown_format" and "--field" in message  # never guessed from generic names
    fields = {"input": "question", "target": "answer"}
    data = json.loads(plan([source], tmp_path / "o.json", root=tmp_path, fmt="inspect", fields=fields).new_bytes)
    (case,) = data["cases"]
    assert (case["id"], case["input"], case["expected_outcome"]) == ("q1", "Largest organ?", "Skin")
    assert case["extensions"]["inspect_ai"] == {"topic": "bio"}
    assert data["extensions"]["import"]["fields"] == fields


def test_a_field_mapping_that_clashes_is_refused(tmp_path):
    source = tmp_path / "qa.jsonl"
    source.write_text('{"input": "a", "question": "b", "target": "c"}\n', encoding="utf-8")
    ((_, code, _),) = refused(
        [source], tmp_path / "o.json", root=tmp_path, skill="x", fmt="inspect", fields={"input": "question"}
    )
    assert code == "field_clash"


def test_csv_choices_are_split(tmp_path):
    source = tmp_path / "mc.csv"
    source.write_text('input,choices,target\nPick one,"red, green, blue",C\n', encoding="utf-8")
    (case,) = json.loads(plan([source], tmp_path / "o.json", root=tmp_path).new_bytes)["cases"]
    assert case["expected_outcome"] == {"target": "C", "choice_text": "blue"}
    assert case["extensions"]["inspect_ai"]["original"] == {"choices": "red, green, blue"}


def _corpus_jobs() -> list[object]:
    # The upstream example reads biology_qa.jsonl with FieldSpec(input="question", target="answer", id="id").
    mappings = {"UKGovernmentBEIS__inspect_ai__biology_qa.jsonl": {"input": "question", "target": "answer"}}
    jobs = [
        pytest.param(path, mappings.get(path.name), id=path.name)
        for path in corpus_files("inspect_ai", ".json", ".jsonl", ".csv")
    ]
    return jobs or [pytest.param(None, None, id="absent")]


@requires_external("inspect_ai")
@pytest.mark.parametrize("source, fields", _corpus_jobs())
def test_corpus_samples_import(source: Path, fields: dict[str, str] | None, tmp_path):
    fmt = "inspect" if fields else "auto"
    text = check_import([source], tmp_path / "imported.json", root=EXTERNAL, fmt=fmt, fields=fields)
    assert json.loads(text)["coverage_tags"] == ["inspect-ai"]
