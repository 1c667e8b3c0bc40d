"""Conformance over every entry of the spec-first corpus (read in place from ../shared/corpus).

For each historical fixture version: `normalize` gives exactly the reference
normalizer's output, `validate --no-ref-check` exactly its errors, and
`migrate` gives a v1 file that keeps every leaf, normalizes compatibly with the
reference's view of the legacy file, adds no validation error, and is stable
under a second run.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from fixture_migrate.cli.jsontext import dump_json
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.compatibility import compatibility_violations
from fixture_migrate.contract.conservation import leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import RefChecker, validate_cases
from fixture_migrate.formats import json_regular
from fixture_migrate.migration.engine import Engine, Options
from fixture_migrate.migration.reader import Reader, validation_errors

from tests.helpers import CORPUS_ABSENT, SPEC_FIRST

ENTRIES = sorted(p.name for p in SPEC_FIRST.iterdir() if p.is_dir()) if SPEC_FIRST.is_dir() else []
pytestmark = pytest.mark.skipif(not ENTRIES, reason=CORPUS_ABSENT)


def _entry(name: str) -> tuple[Path, Path, dict]:
    folder = SPEC_FIRST / name
    root = folder / "input"
    meta = json.loads((folder / "meta.json").read_text())
    return root, root / meta["path"], meta


def _reference(name: str, file: str) -> object | None:
    path = SPEC_FIRST / name / file
    return json.loads(path.read_text()) if path.exists() else None


@pytest.fixture(params=ENTRIES or ["absent"])
def entry(request):
    return request.param


def test_normalize_is_the_reference(entry):
    root, path, _ = _entry(entry)
    reader = Reader(Engine(Options(repo_root=root)))
    loaded = reader.load(path)
    assert loaded.error is None, loaded.error and loaded.error.message
    cases = reader.cases(loaded)
    expected = _reference(entry, "js-normalized.json")
    if expected is None:
        # The reference threw on this file (JSON Lines); the view of its migration is given instead.
        assert (SPEC_FIRST / entry / "js-error.txt").exists()
        assert cases and all(case["normalized_from"] == "legacy_adapter" for case in cases)
        return
    assert cases == expected
    # Byte for byte, as JSON.stringify(value, null, 2) + "\n" printed it.
    assert dump_json(cases) + "\n" == (SPEC_FIRST / entry / "js-normalized.json").read_text()


def test_validate_is_the_reference(entry):
    root, path, _ = _entry(entry)
    expected = _reference(entry, "js-validation.json")
    if expected is None:
        pytest.skip("the reference threw on this file: it has no validation to compare")
    reader = Reader(Engine(Options(repo_root=root)))
    errors, problems = validation_errors(reader, [reader.load(path)], RefChecker(root, check_exists=False))
    assert problems == []
    assert errors == expected


def test_migration_conserves_is_compatible_and_stable(entry):
    root, path, meta = _entry(entry)
    engine = Engine(Options(repo_root=root))
    result = engine.plan(path)
    assert result.status != "error", result.error and result.error.message
    if meta["path"].endswith("semantic_config.json"):
        assert result.status == "not_fixture"
        return
    if meta["schema_version"] == c.CANONICAL_SCHEMA_VERSION:
        assert result.status == "unchanged", "a canonical file is never rewritten"
        return
    assert result.status == "changed"
    assert result.new_bytes is not None
    new_path = result.new_path or path
    data = orjson.loads(result.new_bytes)
    assert data["schema_version"] == c.CANONICAL_SCHEMA_VERSION
    if meta["schema_version"] is not None:
        assert data["extensions"]["migrated_from"] == meta["schema_version"]

    # Conservation, counted here independently of the engine's own check.
    if path.suffix == ".jsonl":
        before = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    else:
        before = orjson.loads(path.read_bytes())
    assert not (leaves(before) - leaves(data))

    source_file = new_path.relative_to(root).as_posix()
    migrated = normalize_payload(data, source_file=source_file)
    reference = _reference(entry, "js-normalized.json") or []
    assert compatibility_violations(reference, migrated) == []
    if reference:
        refs = RefChecker(root, check_exists=False)
        new_errors = {(e["reason_code"], e["id"]) for e in validate_cases(migrated, refs)}
        old_errors = {(e["reason_code"], e["id"]) for e in _reference(entry, "js-validation.json")}
        assert new_errors <= old_errors

    again = engine.plan_bytes(new_path, result.new_bytes)
    assert again.status == "unchanged", "a second run must change nothing"


def test_regular_files_migrate_as_the_writer_migrates_them(entry, monkeypatch):
    """A JSON file laid out as a pretty printer lays it out is written by orjson
    (`formats.json_regular`): the same outcome and bytes as the writer's edits."""
    root, path, _ = _entry(entry)
    if path.suffix != ".json":
        pytest.skip("not a JSON file")
    engine = Engine(Options(repo_root=root))
    here = engine.plan(path)
    monkeypatch.setattr(json_regular, "render_regular", lambda *args: None)
    by_writer = engine.plan(path)
    assert (here.status, here.new_bytes) == (by_writer.status, by_writer.new_bytes)


def test_most_json_files_a_migration_rewrites_are_regular(monkeypatch):
    """Of the corpus's JSON files a migration rewrites, most take orjson's path (the
    README and `json_regular` say 61 of 77)."""
    real = json_regular.render_regular
    written: list[bool] = []

    def counted(*args: object) -> bytes | None:
        out = real(*args)  # type: ignore[arg-type]
        written.append(out is not None)
        return out

    monkeypatch.setattr(json_regular, "render_regular", counted)
    for name in ENTRIES:
        root, path, _ = _entry(name)
        if path.suffix == ".json":
            Engine(Options(repo_root=root)).plan(path)
    assert len(written) > 50 and sum(written) > len(written) / 2


def test_normalize_as_migrated_is_normalize_after_migrate(entry, tmp_path):
    """`normalize --as-migrated` on the legacy file prints what `normalize` prints once
    `migrate` has run: the same cases, source_file and provenance."""
    root, path, _ = _entry(entry)
    copy = tmp_path / path.relative_to(root)
    copy.parent.mkdir(parents=True)
    copy.write_bytes(path.read_bytes())
    engine = Engine(Options(repo_root=tmp_path))
    reader = Reader(engine)
    loaded = reader.load(copy)
    assert loaded.error is None, loaded.error and loaded.error.message
    promised = reader.cases(loaded, as_migrated=True)
    result = engine.plan(copy)
    if result.status == "changed":
        engine.apply(result)
    migrated = reader.load(result.new_path or copy)
    assert reader.cases(migrated) == promised
