"""Helpers the test modules share: migrating a sample in memory and checking it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.conservation import missing_leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import RefChecker, validate_cases
from fixture_migrate.files.diff import render_file_diff
from fixture_migrate.formats import load_document
from fixture_migrate.migration.engine import Engine, FileResult, Options, reference_cases

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SPEC_FIRST = CORPUS / "spec-first"
CORPUS_ABSENT = "../shared/corpus is absent: the spec-first corpus is read in place, never redistributed"

requires_corpus = pytest.mark.skipif(not SPEC_FIRST.is_dir(), reason=CORPUS_ABSENT)

DEFAULT_PATH = "skills/demo-skill/evals/cases.json"

# A one-case legacy file and a canonical one, for tests of whole runs.
LEGACY = """{
  "schema_version": "prompt-examples/v1",
  "skill": "demo",
  "examples": [
    {"name": "Greets", "user_intent": "Say hello.", "expected_posture": "Hello back."}
  ]
}
"""
CANONICAL = """{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "demo",
  "source_refs": ["skills/demo/SKILL.md"],
  "cases": [{"id": "a", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "y"}]
}
"""


@dataclass
class Migrated:
    """A sample migrated in memory: the engine's result plus its texts and diff."""

    result: FileResult
    before: str
    after: str
    diff: str


def plan(
    source: str | bytes, path: str = DEFAULT_PATH, *, root: Path = Path("/repo"), skill: str | None = None
) -> FileResult:
    """The engine's plan for `source` as if it were the file `root/path` (nothing is read or written)."""
    raw = source.encode("utf-8") if isinstance(source, str) else source
    return Engine(Options(repo_root=root, skill=skill)).plan_bytes(root / path, raw)


def migrate_sample(source: str | bytes, path: str = DEFAULT_PATH, **kwargs: Any) -> Migrated:
    """Migrate `source` in memory; fails the test unless a change is planned."""
    result = plan(source, path, **kwargs)
    assert result.status == "changed", result.error and result.error.message
    assert result.old_bytes is not None and result.new_bytes is not None
    before, after = result.old_bytes.decode("utf-8-sig"), result.new_bytes.decode("utf-8-sig")
    new_path = None if result.new_path is None else Path(path).with_suffix(result.new_path.suffix).as_posix()
    return Migrated(result, before, after, render_file_diff(result.old_bytes, result.new_bytes, path, new_path))


def _errors(cases: list[dict[str, Any]]) -> set[tuple[str, Any]]:
    return {(e["reason_code"], e["id"]) for e in validate_cases(cases, RefChecker(Path("."), check_exists=False))}


def check_migration(
    source: str, adapter: str, snapshot_json: Any, snapshot_diff: Any, path: str = DEFAULT_PATH
) -> Migrated:
    """The three assertions every migration sample gets, plus the adapter that claimed it:

    1. the migrated text and its diff match their snapshots;
    2. a second run changes nothing;
    3. the output re-parses as canonical v1, keeps every leaf of the source, and
       validates with no error the legacy file did not have.
    """
    migrated = migrate_sample(source, path)
    assert migrated.result.adapters == [adapter]
    assert migrated.after == snapshot_json
    assert migrated.diff == snapshot_diff

    new_path = path if migrated.result.new_path is None else Path(path).with_suffix(".json").as_posix()
    again = plan(migrated.after, new_path)
    assert again.status == "unchanged", again.error and again.error.message

    data = orjson.loads(migrated.after)
    assert data["schema_version"] == c.CANONICAL_SCHEMA_VERSION
    old_units = load_document(Path(path), source.encode()).units
    assert not missing_leaves([unit.data for unit in old_units], [data])
    after_cases = normalize_payload(data, source_file=new_path)
    assert after_cases, "the migrated file yields no case"
    before_cases = reference_cases(old_units[0], Context(source_file=path))
    if before_cases:
        assert _errors(after_cases) <= _errors(before_cases)
    return migrated


def assert_untouched(source: str, path: str = DEFAULT_PATH) -> None:
    """A file that is canonical already plans no change at all."""
    result = plan(source, path)
    assert result.status == "unchanged", result.error and result.error.message
    assert result.new_bytes is None


def property_examples(count: int) -> int:
    """The example count of a property test that sets its own: `count` (or the profile's
    count, if that is larger) under `HYPOTHESIS_PROFILE=long`, and at most the profile's
    count under `ci`, the default (see `tests/conftest.py`)."""
    import os

    from hypothesis import settings

    profile_count = settings.default.max_examples
    if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "long":
        return max(count, profile_count)
    return min(count, profile_count)


def inside_and_outside(tmp_path: Path) -> tuple[Path, Path, Path]:
    """`(root, evals, outside)`: two fixtures `a.json`, `b.json` in `root/evals`, and files of
    the same names (holding a secret) in `outside`, beside the root: for the root-rule tests."""
    root = tmp_path / "repo"
    evals = root / "evals"
    evals.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("a.json", "b.json"):
        (evals / name).write_text('{"inside": true}')
        (outside / name).write_text('{"secret": "outside"}')
    return root, evals, outside
