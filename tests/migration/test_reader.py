"""`fixture_migrate.migration.reader`: files read for normalize, validate and detect."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_migrate.contract.validate import RefChecker
from fixture_migrate.migration.engine import Engine, Options
from fixture_migrate.migration.reader import Reader, validation_errors

LEGACY = '{"schema_version": "prompt-examples/v1", "skill": "demo", "examples": [{"name": "A", "user_intent": "x"}]}\n'


@pytest.fixture
def reader(tmp_path: Path) -> Reader:
    return Reader(Engine(Options(repo_root=tmp_path)))


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_load_detects_each_unit(reader: Reader, tmp_path: Path):
    loaded = reader.load(write(tmp_path, "a.json", LEGACY))
    assert loaded.error is None
    assert [adapter.name for adapter in loaded.adapters] == ["prompt_examples_v1"]


def test_load_keeps_errors_in_the_result(reader: Reader, tmp_path: Path):
    assert reader.load(write(tmp_path, "a.json", "{")).error.code == "invalid_json"
    assert reader.load(tmp_path / "missing.json").error.code == "io"


def test_a_repeated_key_is_read_as_json_parse_reads_it_when_asked(reader: Reader, tmp_path: Path):
    path = write(tmp_path, "a.json", '{"skill": "a", "skill": "b", "cases": [{"id": "x", "input": "y"}]}')
    assert reader.load(path).error.code == "duplicate_key"
    loaded = reader.load(path, last_duplicate_wins=True)
    assert loaded.error is None and loaded.duplicate.code == "duplicate_key"
    assert loaded.document.units[0].data["skill"] == "b"


def test_a_repeated_key_reads_the_file_once(reader: Reader, tmp_path: Path, monkeypatch):
    # Parsed twice (refusing, then as JSON.parse reads it), but from one read: the second
    # parse sees the very bytes whose repeated key is reported.
    path = write(tmp_path, "a.json", '{"skill": "a", "skill": "b", "cases": [{"id": "x", "input": "y"}]}')
    reads: list[Path] = []
    real_read = reader.engine.read
    monkeypatch.setattr(reader.engine, "read", lambda p: reads.append(p) or real_read(p))
    loaded = reader.load(path, last_duplicate_wins=True)
    assert loaded.duplicate.code == "duplicate_key" and reads == [path]


def test_cases_as_the_reference_reads_them_and_as_migrated(reader: Reader, tmp_path: Path):
    loaded = reader.load(write(tmp_path, "a.json", LEGACY))
    [case] = reader.cases(loaded)
    assert (case["id"], case["normalized_from"]) == ("a", "legacy_adapter")
    [migrated] = reader.cases(loaded, as_migrated=True)
    assert migrated["normalized_from"] == "canonical"


def test_non_object_cases_are_placed(reader: Reader, tmp_path: Path):
    text = (
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1",\n "cases": [\n  {"id": "a", "input": "x"},\n  3\n]}'
    )
    loaded = reader.load(write(tmp_path, "a.json", text))
    assert reader.non_object_cases(loaded) == [(2, (4, 3))]


def test_non_object_cases_of_a_file_with_a_repeated_key_are_told_without_a_place(tmp_path: Path, capsys):
    # Found by a break attempt: the place was asked of a span tree such a file cannot have,
    # and `validate` ended in an internal error instead of reporting the repeat.
    from fixture_migrate.cli.app import main

    text = '{"skill": "s", "skill": "s", "schema_version": "spec-first.workflow-eval-fixtures.v1", "cases": [{"id": "x"}, 1]}'
    path = write(tmp_path, "skills/s/evals/f.json", text)
    reader = Reader(Engine(Options(repo_root=tmp_path)))
    loaded = reader.load(path, last_duplicate_wins=True)
    assert loaded.duplicate is not None
    assert reader.non_object_cases(loaded) == [(2, None)]
    code = main(["validate", "--no-ref-check", "--output-format", "json", "--repo-root", str(tmp_path), str(path)])
    assert code == 2  # bad input (the repeat, the non-object case)
    out, err = capsys.readouterr()
    assert "internal error" not in err
    assert '"reason_code": "duplicate_key"' in out and '"reason_code": "case_not_object"' in out


def test_validation_errors_count_duplicates_across_files_and_give_origins(reader: Reader, tmp_path: Path):
    body = '{"skill": "demo", "cases": [{"id": "a", "input": "x", "coverage_tags": ["t"], "source_refs": ["r.md"]}]}'
    files = [reader.load(write(tmp_path, name, body)) for name in ("one.json", "two.json")]
    files.append(reader.load(write(tmp_path, "bad.json", "[")))
    places: list = []
    errors, problems = validation_errors(reader, files, RefChecker(tmp_path, check_exists=False), places=places)
    assert [(e["source_file"], e["reason_code"]) for e in errors] == [("two.json", "duplicate_case_id")]
    assert places[0].case == ("cases", 0)
    assert [(path.name, error.code) for path, error in problems] == [("bad.json", "invalid_json")]
