"""The canonical file wins: an imported case edited since the import is exported as it is now.

A case comes back as its kept record only when importing that record gives the case
as it is; otherwise its current fields are mapped onto the record (the record's other
members stay) and what the target cannot hold is in the loss report.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.exporting.test_pipeline import ROOT, export, native_data
from tests.import_helpers import EXAMPLES, plan
from tests.runner import run_cli

SAMPLES = [
    ("inspect", "inspect/security.jsonl", ".jsonl"),
    ("inspect", "inspect/security.csv", ".csv"),
    ("openai-evals", "openai-evals/registry/data/capitals/samples.jsonl", ".jsonl"),
    ("skill-creator", "skill-creator/evals/evals.json", ".json"),
    ("deepeval", "deepeval/goldens.json", ".json"),
    ("langsmith", "langsmith/examples.jsonl", ".jsonl"),
    ("promptfoo", "promptfoo/promptfooconfig.yaml", ".yaml"),
]
PROPERTY = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture], max_examples=3)
TEXT = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=12).map(
    lambda s: "Edited " + s
)


def imported(tmp_path: Path, name: str, fmt: str) -> tuple[dict[str, Any], Path]:
    source = EXAMPLES / name
    canonical = plan([source], tmp_path / "c.json", root=ROOT, fmt=fmt)
    return json.loads(canonical.new_bytes), tmp_path / "c.json"


def write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def reimport(tmp_path: Path, fmt: str, exported: Any, suffix: str) -> dict[str, Any]:
    dest = tmp_path / "out" / f"back{suffix}"
    dest.parent.mkdir(exist_ok=True)
    dest.write_bytes(exported.new_bytes)
    again = plan([dest], tmp_path / "again.json", root=ROOT, fmt=fmt, source_refs=[f"out/back{suffix}"])
    return json.loads(again.new_bytes)


@pytest.mark.parametrize(("fmt", "name", "suffix"), SAMPLES, ids=[s[1] for s in SAMPLES])
@PROPERTY
@given(text=TEXT)
def test_an_edited_input_is_exported(fmt, name, suffix, text, tmp_path_factory):
    """For any new input of an imported case, the export holds it: importing the export
    gives the case with that input (and the other cases as they were)."""
    tmp_path = tmp_path_factory.mktemp("edit")
    data, path = imported(tmp_path, name, fmt)
    data["cases"][0]["input"] = text
    write(path, data)
    if fmt == "promptfoo":  # the config's file:// references are read beside it
        shutil.copytree(EXAMPLES / "promptfoo", tmp_path / "out")
    exported = export([path], fmt, tmp_path / "out" / f"back{suffix}")
    back = reimport(tmp_path, fmt, exported, suffix)
    assert back["cases"][0]["input"] == text
    assert [case["input"] for case in back["cases"][1:]] == [case["input"] for case in data["cases"][1:]]


@pytest.mark.parametrize(("fmt", "name", "suffix"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_an_unedited_file_comes_back_as_imported(fmt, name, suffix, tmp_path):
    data, path = imported(tmp_path, name, fmt)
    write(path, data)
    if fmt == "promptfoo":  # the config's file:// references are read beside it
        shutil.copytree(EXAMPLES / "promptfoo", tmp_path / "out")
    exported = export([path], fmt, tmp_path / "out" / f"back{suffix}")
    assert exported.restored == len(data["cases"]) and not exported.losses


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda case: case.__setitem__("forbidden_signals", ["secret"]), "forbidden_signals"),
        (lambda case: case.__setitem__("boundary_note", "only on weekdays"), "boundary_note"),
    ],
    ids=["forbidden_signals", "boundary_note"],
)
def test_an_edit_the_target_cannot_hold_is_a_loss_and_strict_refuses(edit, field, tmp_path, monkeypatch, capsys):
    data, path = imported(tmp_path, "inspect/security.jsonl", "inspect")
    edit(data["cases"][0])
    write(path, data)
    exported = export([path], "inspect", tmp_path / "out.jsonl")
    assert [loss.field for loss in exported.losses.losses] == [field]
    dest = tmp_path / "strict.jsonl"
    run = run_cli(
        ["export", str(path), "--to", "inspect", "--out", str(dest), "--strict"], tmp_path, monkeypatch, capsys
    )
    assert run.code == 2 and not dest.exists()


def test_added_tags_refs_extensions_and_a_new_id_are_exported(tmp_path):
    data, path = imported(tmp_path, "inspect/security.jsonl", "inspect")
    case = data["cases"][0]
    case["coverage_tags"] = [*case.get("coverage_tags", []), "boundary"]
    case["source_refs"].append("docs/policy.md")
    case["extensions"]["owner"] = "sec-team"
    data["cases"][1]["id"] = "renamed"
    write(path, data)
    exported = export([path], "inspect", tmp_path / "out.jsonl")
    first, second = native_data(Path("x.jsonl"), exported.new_bytes)[:2]
    meta = first["metadata"]["fixture_migrate"]
    assert "boundary" in meta["coverage_tags"] and meta["source_refs"] == ["docs/policy.md"]
    assert meta["extensions"] == {"owner": "sec-team"}
    assert second["id"] == "renamed"
    assert exported.restored == len(data["cases"]) - 1  # the id is the record's own: renamed with it


def test_a_fake_import_record_is_mapped_from_the_fields(tmp_path):
    # `extensions.import` names the format but nothing was kept: the case is a native one.
    path = tmp_path / "c.json"
    write(
        path,
        {
            "schema_version": "spec-first.workflow-eval-fixtures.v1",
            "skill": "demo",
            "cases": [
                {
                    "id": "x",
                    "input": "y",
                    "expected_outcome": "z",
                    "extensions": {"import": {"format": "promptfoo"}},
                }
            ],
        },
    )
    config = native_data(Path("c.yaml"), export([path], "promptfoo", tmp_path / "c.yaml").new_bytes)
    assert config["tests"][0]["vars"] == {"input": "y"}
    assert config["tests"][0]["assert"] == [{"type": "llm-rubric", "value": "z"}]


def test_deleted_scenario_cases_are_not_exported(tmp_path):
    config = EXAMPLES / "promptfoo/scenarios/promptfooconfig.yaml"
    data, path = imported(tmp_path, "promptfoo/scenarios/promptfooconfig.yaml", "promptfoo")
    assert len(data["cases"]) > 2
    kept = data["cases"][:1]
    data["cases"] = kept
    write(path, data)
    exported = native_data(config, export([path], "promptfoo", tmp_path / "out.yaml").new_bytes)
    assert "scenarios" not in exported
    assert len(exported["tests"]) == 1
    back = json.loads(
        plan(
            [_written(tmp_path, exported)], tmp_path / "again.json", root=ROOT, fmt="promptfoo", source_refs=["x.yaml"]
        ).new_bytes
    )
    assert [case["input"] for case in back["cases"]] == [kept[0]["input"]]


def _written(tmp_path: Path, config: dict[str, Any]) -> Path:
    dest = tmp_path / "again.yaml"
    dest.write_text(json.dumps(config), encoding="utf-8")
    return dest


def test_an_edited_test_of_a_tests_file_is_written_inline(tmp_path):
    # A config naming tests files by file://: an edited case cannot stay in a file the
    # export does not rewrite, so every test is written inline and the files are not named.
    folder = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "promptfoo", folder)
    ref = "examples/external/promptfoo/promptfooconfig.yaml"
    canonical = plan([folder / "promptfooconfig.yaml"], tmp_path / "c.json", root=ROOT, source_refs=[ref])
    data = json.loads(canonical.new_bytes)
    from_file = next(
        i for i, case in enumerate(data["cases"]) if "tests/" in case["extensions"]["import"]["source_file"]
    )
    data["cases"][from_file]["input"] = "Edited input"
    write(tmp_path / "c.json", data)
    exported = export([tmp_path / "c.json"], "promptfoo", folder / "promptfooconfig.yaml")
    config = native_data(Path("c.yaml"), exported.new_bytes)
    assert all(isinstance(test, dict) for test in config["tests"])
    assert len(config["tests"]) == len(data["cases"])
    assert any(test.get("vars", {}).get("input") == "Edited input" for test in config["tests"])


def test_file_references_that_name_nothing_beside_dest_are_reported(tmp_path):
    data, path = imported(tmp_path, "promptfoo/promptfooconfig.yaml", "promptfoo")
    write(path, data)
    elsewhere = export([path], "promptfoo", tmp_path / "elsewhere" / "promptfooconfig.yaml")
    dangling = {loss.field for loss in elsewhere.losses.losses if loss.case is None}
    assert {"file://tests/cases.csv", "file://tests/edge.yaml", "file://asserts/common.yaml"} <= dangling
    shutil.copytree(EXAMPLES / "promptfoo", tmp_path / "beside")
    beside = export([path], "promptfoo", tmp_path / "beside" / "other.yaml")
    assert not beside.losses


def test_an_edited_outcome_keeps_the_records_input_as_written(tmp_path):
    # The chat messages of an Inspect sample stay when only its target was edited; an
    # edited input replaces them (the finding: an edited chat input was dropped).
    source = tmp_path / "in.jsonl"
    source.write_text(
        '{"input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q?"}], "target": "A"}\n',
        encoding="utf-8",
    )
    canonical = plan([source], tmp_path / "c.json", root=ROOT, fmt="inspect", source_refs=["in.jsonl"])
    data = json.loads(canonical.new_bytes)
    data["cases"][0]["expected_outcome"] = "B"
    write(path := tmp_path / "c.json", data)
    (record,) = native_data(Path("x.jsonl"), export([path], "inspect", tmp_path / "o1.jsonl").new_bytes)
    assert record["input"][0] == {"role": "system", "content": "Be brief."} and record["target"] == "B"
    data["cases"][0]["input"] = "New question?"
    write(path, data)
    (record,) = native_data(Path("x.jsonl"), export([path], "inspect", tmp_path / "o2.jsonl").new_bytes)
    assert record["input"] == "New question?" and record["target"] == "B"


def test_an_edited_signal_keeps_the_promptfoo_vars(tmp_path):
    source = tmp_path / "promptfooconfig.yaml"
    source.write_text(
        "prompts: ['{{question}} {{lang}}']\nproviders: [echo]\n"
        "defaultTest:\n  assert:\n    - {type: contains, value: base}\n"
        "tests:\n  - vars: {question: Hi, lang: en}\n    assert:\n      - {type: not-contains, value: bad}\n",
        encoding="utf-8",
    )
    canonical = plan([source], tmp_path / "c.json", root=ROOT, source_refs=["promptfooconfig.yaml"])
    data = json.loads(canonical.new_bytes)
    data["cases"][0]["forbidden_signals"].append("worse")
    data["cases"][0]["expected_outcome"].append({"type": "not-icontains", "value": "worse"})
    write(path := tmp_path / "c.json", data)
    (test,) = native_data(Path("c.yaml"), export([path], "promptfoo", tmp_path / "out.yaml").new_bytes)["tests"]
    assert test["vars"] == {"question": "Hi", "lang": "en"}
    assert test["assert"] == [{"type": "not-contains", "value": "bad"}, {"type": "not-icontains", "value": "worse"}]


def test_a_recursive_tests_glob_that_the_import_followed_is_not_reported(tmp_path):
    # `**` spans any number of folders, as the import reads it (not as `glob.glob` without
    # `recursive`, which takes it for one folder).
    folder = tmp_path / "suite"
    (folder / "cases" / "a" / "b").mkdir(parents=True)
    (folder / "cases" / "a" / "b" / "t.yaml").write_text("- vars: {input: Deep test}\n", encoding="utf-8")
    config = 'prompts: ["{{input}}"]\nproviders: [echo]\ntests: file://cases/**/*.yaml\n'
    (folder / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
    ref = "vendor/promptfooconfig.yaml"
    canonical = plan(
        [folder / "promptfooconfig.yaml"], tmp_path / "c.json", root=ROOT, fmt="promptfoo", source_refs=[ref]
    )
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    exported = export([tmp_path / "c.json"], "promptfoo", folder / "other.yaml")
    assert b"file://cases/**/*.yaml" in exported.new_bytes
    assert not exported.losses
