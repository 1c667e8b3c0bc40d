"""Shared fixtures: snapshot extensions that store readable files under `snapshots/`.

Snapshots mirror the `tests/` tree: the snapshots of `tests/adapters/test_x.py`
live in `snapshots/adapters/test_x/`, one file per snapshot, named after the
test (and its parameter id), so two test modules never share a snapshot file.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SNAPSHOTS = ROOT / "snapshots"


class _MirroredText(SingleFileSnapshotExtension):
    """A text snapshot stored at `snapshots/<tests-relative dir>/<test module>/<test>.<ext>`.

    Stored as UTF-8 bytes, so line endings (a CRLF fixture's) survive the round trip.
    """

    _write_mode = WriteMode.BINARY

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        relative = Path(test_location.filepath).resolve().relative_to(TESTS)
        return str(SNAPSHOTS / relative.parent / test_location.basename)

    def serialize(self, data: Any, **kwargs: Any) -> bytes:
        if isinstance(data, bytes):
            return data
        if not isinstance(data, str):
            data = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        return data.encode("utf-8")


class JsonSnapshot(_MirroredText):
    file_extension = "json"


class DiffSnapshot(_MirroredText):
    file_extension = "diff"


class TextSnapshot(_MirroredText):
    file_extension = "txt"


@pytest.fixture
def snapshot_json(snapshot: Any) -> Any:
    """Snapshot of JSON data or JSON text, stored as a `.json` file."""
    return snapshot.use_extension(JsonSnapshot)


@pytest.fixture
def snapshot_diff(snapshot: Any) -> Any:
    """Snapshot of a unified diff, stored as a `.diff` file."""
    return snapshot.use_extension(DiffSnapshot)


@pytest.fixture
def snapshot_text(snapshot: Any) -> Any:
    """Snapshot of command output, stored as a `.txt` file."""
    return snapshot.use_extension(TextSnapshot)


# Hypothesis profiles: `ci` (the default) keeps the property tests to a few seconds;
# `HYPOTHESIS_PROFILE=long python -m pytest tests/test_properties.py` runs a long search.
settings.register_profile("ci", max_examples=40, deadline=None, print_blob=True)
settings.register_profile("long", max_examples=3000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Runs started as subprocesses (with a copy of this environment) keep their cache here,
# outside the trees the tests compare file by file; removed when the session ends.
_SESSION_CACHE = tempfile.mkdtemp(prefix="fixture-migrate-test-cache-")
os.environ["FIXTURE_MIGRATE_CACHE_DIR"] = _SESSION_CACHE
atexit.register(shutil.rmtree, _SESSION_CACHE, True)


@pytest.fixture(autouse=True)
def _cache_per_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets a cache directory of its own, outside the trees it checks: a run
    caches its verdicts as a user's does, and no test sees another's (or the user's)."""
    monkeypatch.setenv("FIXTURE_MIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("fixture-migrate-cache")))
