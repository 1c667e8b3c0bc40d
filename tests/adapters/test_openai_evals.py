"""openai_evals: OpenAI Evals JSONL samples, with their registry YAML, imported as canonical cases."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fixture_migrate.adapters.openai_evals import class_tag

from tests.import_helpers import EXAMPLES, EXTERNAL, check_import, corpus_files, plan, refused, requires_external

SAMPLES = EXAMPLES / "openai-evals" / "registry" / "data" / "capitals" / "samples.jsonl"
REGISTRY = EXAMPLES / "openai-evals" / "registry" / "evals" / "capitals.yaml"
ROOT = EXAMPLES.parents[1]


def test_imports_samples_with_their_registry_entry(tmp_path, snapshot_json):
    text = check_import([SAMPLES, REGISTRY], tmp_path / "capitals.json", root=ROOT, skill="geo")
    assert text == snapshot_json
    data = json.loads(text)
    assert data["description"] == "Capital cities, answered by name."
    assert [case["input"] for case in data["cases"]] == [
        "What is the capital of France? Answer with one word.",
        "Capital of Japan?",  # the last user message of a chat
        "Name the capital of Kazakhstan. It was renamed in 2019 and again in 2022.",  # system-only chat
    ]
    assert [case["source_refs"][0].rpartition("#")[2] for case in data["cases"]] == ["L1", "L2", "L4"]
    assert all(case["coverage_tags"] == ["includes", "expected"] for case in data["cases"])


def test_without_registry_there_is_no_class_tag(tmp_path):
    data = json.loads(plan([SAMPLES], tmp_path / "x.json", root=ROOT).new_bytes)
    assert [case["coverage_tags"] for case in data["cases"]] == [["expected"]] * 3
    assert "description" not in data


def test_ids_are_content_hashes_that_survive_reordering(tmp_path):
    lines = SAMPLES.read_text(encoding="utf-8").splitlines(keepends=True)
    swapped = tmp_path / "samples.jsonl"
    swapped.write_text("".join(reversed([line for line in lines if line.strip()])), encoding="utf-8")
    before = json.loads(plan([SAMPLES], tmp_path / "a.json", root=ROOT).new_bytes)
    after = json.loads(plan([swapped], tmp_path / "b.json", root=tmp_path).new_bytes)
    assert sorted(case["id"] for case in before["cases"]) == sorted(case["id"] for case in after["cases"])
    assert all(re.fullmatch(r"sample-[0-9a-f]{10}", case["id"]) for case in before["cases"])


def test_model_graded_samples_without_ideal_have_no_outcome(tmp_path):
    source = tmp_path / "graded.jsonl"
    source.write_text('{"input": "Write a haiku about rain.", "input1": "a", "input2": "b"}\n', encoding="utf-8")
    data = json.loads(plan([source], tmp_path / "out.json", root=tmp_path, fmt="openai-evals").new_bytes)
    (case,) = data["cases"]
    assert "expected_outcome" not in case and "coverage_tags" not in case
    assert case["extensions"]["openai_evals"] == {"input1": "a", "input2": "b"}


@pytest.mark.parametrize(
    "spec, tag",
    [
        pytest.param({"class": "evals.elsuite.basic.match:Match"}, "match", id="match"),
        pytest.param({"class": "evals.elsuite.basic.fuzzy_match:FuzzyMatch"}, "fuzzy-match", id="fuzzy"),
        pytest.param(
            {"class": "evals.elsuite.modelgraded.classify:ModelBasedClassify", "args": {"modelgraded_spec": "fact"}},
            "modelgraded-fact",
            id="modelgraded-spec",
        ),
        pytest.param(
            {
                "class": "evals.elsuite.modelgraded.classify:ModelBasedClassify",
                "args": {"modelgraded_spec_file": "closedqa"},
            },
            "modelgraded-closedqa",
            id="modelgraded-spec-file",
        ),
        pytest.param({"class": "my_evals.custom:ArithmeticEval"}, "arithmeticeval", id="other-class"),
    ],
)
def test_class_tags(spec, tag):
    assert class_tag(spec) == tag


def test_few_shot_file_is_refused(tmp_path):
    source = tmp_path / "few_shot.jsonl"
    source.write_text('{"sample": [{"role": "system", "content": "Example."}]}\n', encoding="utf-8")
    ((_, code, message),) = refused([source], tmp_path / "out.json", root=tmp_path, skill="x")
    assert code == "refused" and "few-shot" in message
    ((_, code, _),) = refused([source], tmp_path / "out.json", root=tmp_path, skill="x", fmt="openai-evals")
    assert code == "refused"


def test_registry_alone_has_no_cases(tmp_path):
    ((path, code, message),) = refused([REGISTRY], tmp_path / "out.json", root=ROOT, skill="x")
    assert code == "no_cases" and "samples_jsonl" in message and path.endswith("capitals.yaml")


def _corpus_jobs() -> list[object]:
    jobs = []
    for data in corpus_files("openai_evals", ".jsonl"):
        prefix = data.name.removesuffix("samples.jsonl")
        registries = [p for p in corpus_files("openai_evals", ".yaml") if p.name.startswith(prefix)]
        jobs.append(pytest.param([data, *registries], id=f"{data.name}+registry"))
        jobs.append(pytest.param([data], id=data.name))
    return jobs or [pytest.param([], id="absent")]


@requires_external("openai_evals")
@pytest.mark.parametrize("sources", _corpus_jobs())
def test_corpus_samples_import(sources: list[Path], tmp_path):
    text = check_import(sources, tmp_path / "imported.json", root=EXTERNAL)
    data = json.loads(text)
    assert data["coverage_tags"] == ["openai-evals"]
    if len(sources) > 1:
        assert data["description"] and data["extensions"]["openai_evals"]["registry"]
        assert all(len(case["coverage_tags"]) == 2 for case in data["cases"])  # the class, then `expected`


GRADED = EXAMPLES / "openai-evals" / "registry" / "data" / "graded" / "samples.jsonl"


def test_model_graded_sample_text_is_a_case_not_a_few_shot_file(tmp_path):
    # The first two lines are detected (a `sample` text); the third has neither `input` nor
    # `sample`, so detection needs --from, which then takes its text members.
    ((_, code, message),) = refused([GRADED], tmp_path / "o.json", root=ROOT, skill="x")
    assert code == "unknown_format" and "line 3 has no `input` (nor a `sample` text)" in message
    text = check_import([GRADED], tmp_path / "graded.json", root=ROOT, skill="facts", fmt="openai-evals")
    first, second, third = json.loads(text)["cases"]
    assert first["input"] == "The Treaty of Westphalia was signed in 1648."
    assert first["expected_outcome"] == "1648"
    assert first["extensions"]["openai_evals"]["rendered_from"] == "sample"
    assert "expected_outcome" not in second and second["extensions"]["openai_evals"]["choice"] == "Yes"
    assert third["input"] == "input1: Name a prime number.\ninput2: Name an even prime number."
    assert third["extensions"]["openai_evals"]["rendered_from"] == "members"


def test_a_graded_file_without_input_lines_is_detected(tmp_path):
    source = tmp_path / "graded.jsonl"
    source.write_text('{"sample": "Paris is in France.", "ideal": "Yes"}\n', encoding="utf-8")
    assert plan([source], tmp_path / "o.json", root=tmp_path, skill="x").adapter.format == "openai-evals"
