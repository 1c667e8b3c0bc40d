"""`fixture-migrate schema`: a JSON Schema every migrated file meets and broken files do not."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import orjson
import pytest
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.schema import canonical_schema
from fixture_migrate.formats import load_document
from fixture_migrate.migration.engine import Engine, Options

from tests.helpers import ROOT, SPEC_FIRST, requires_corpus
from tests.runner import run_cli

EXAMPLES = ROOT / "examples" / "legacy"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = canonical_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _migrated(path: Path, root: Path) -> list[object]:
    """The unit data of `path` after `migrate` (its own data when already canonical; none
    when it is not a fixture)."""
    result = Engine(Options(repo_root=root)).plan(path)
    if result.status == "not_fixture":
        return []
    assert result.status in ("changed", "unchanged"), (path, result.status, result.error and result.error.message)
    raw = result.new_bytes if result.status == "changed" else path.read_bytes()
    assert raw is not None
    return [unit.data for unit in load_document(result.new_path or path, raw).units]


def test_schema_command_prints_it(tmp_path, monkeypatch, capsys):
    run = run_cli(["schema"], tmp_path, monkeypatch, capsys)
    assert run.code == 0
    assert json.loads(run.out) == canonical_schema()
    assert json.loads(run.out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_members_are_the_contract_members():
    schema = canonical_schema()
    assert set(schema["properties"]) == set(c.FILE_KEYS)
    assert set(schema["$defs"]["case"]["properties"]) == set(c.CASE_KEYS)
    assert schema["properties"]["source_ref_authority"] == {"$ref": "#/$defs/source_ref_authority"}
    assert schema["$defs"]["source_ref_authority"]["enum"] == list(c.SOURCE_REF_AUTHORITIES)


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".json", ".jsonl")))
def test_every_migrated_sample_is_valid(name, validator, tmp_path):
    for data in _migrated(EXAMPLES / name, ROOT):
        assert list(validator.iter_errors(data)) == []


@requires_corpus
def test_every_migrated_corpus_file_is_valid(validator):
    checked = 0
    for entry in sorted(p for p in SPEC_FIRST.iterdir() if (p / "meta.json").is_file()):
        meta = json.loads((entry / "meta.json").read_text(encoding="utf-8"))
        root = entry / "input"
        for data in _migrated(root / meta["path"], root):
            errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
            assert errors == [], entry.name
            checked += 1
    assert checked == 86  # every entry but the one semantic config, which is not a fixture


GOOD = {
    "schema_version": c.CANONICAL_SCHEMA_VERSION,
    "skill": "demo",
    "source_refs": "skills/demo/SKILL.md",
    "coverage_tags": ["trigger"],
    "cases": [
        {
            "id": "a",
            "input": "Do it.",
            "coverage_tags": "boundary",
            "expected_outcome": {"decision": "refuse"},
            "forbidden_signals": "Does it anyway.",
            "extensions": {"name": "A"},
        },
        {"id": "b", "expected_outcome": None},
    ],
}


def _broken(change) -> dict:
    data = copy.deepcopy(GOOD)
    change(data)
    return data


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_broken(lambda d: d.update(schema_version="prompt-examples/v1")), id="legacy-version"),
        pytest.param(_broken(lambda d: d.pop("cases")), id="no-cases"),
        pytest.param(_broken(lambda d: d.update(examples=d.pop("cases"))), id="examples-not-cases"),
        pytest.param(_broken(lambda d: d["cases"][0].update(must_find=["x"])), id="stray-case-member"),
        pytest.param(_broken(lambda d: d.update(owner="me")), id="stray-file-member"),
        pytest.param(_broken(lambda d: d["cases"][1].pop("id")), id="case-without-id"),
        pytest.param(_broken(lambda d: d["cases"][0].update(coverage_tags=["Trigger"])), id="bad-tag"),
        pytest.param(_broken(lambda d: d["cases"][0].update(expected_outcome=3)), id="number-outcome"),
        pytest.param(_broken(lambda d: d.update(source_ref_authority="primary")), id="bad-authority"),
        pytest.param(_broken(lambda d: d["cases"][0].update(extensions=["x"])), id="extensions-array"),
        pytest.param(_broken(lambda d: d["cases"].append("not a case")), id="case-not-object"),
        pytest.param(_broken(lambda d: d.update(source_refs=[1])), id="ref-not-string"),
    ],
)
def test_broken_files_are_rejected(data, validator):
    assert not validator.is_valid(data)


def test_good_file_with_lone_strings_and_null_outcome_is_accepted(validator):
    assert list(validator.iter_errors(GOOD)) == []
    assert validator.is_valid(orjson.loads(orjson.dumps(GOOD)))
