"""Shared fixtures: snapshot extensions that store readable files under `snapshots/`.

Snapshots mirror the `tests/` tree: the snapshots of `tests/adapters/test_x.py`
live in `snapshots/adapters/test_x/`, one file per snapshot, named after the
test (and its parameter id), so two test modules never share a snapshot file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SNAPSHOTS = ROOT / "snapshots"


class _MirroredText(SingleFileSnapshotExtension):
    """A text snapshot stored at `snapshots/<tests-relative dir>/<test module>/<test>.<ext>`."""

    _write_mode = WriteMode.TEXT

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        relative = Path(test_location.filepath).resolve().relative_to(TESTS)
        return str(SNAPSHOTS / relative.parent / test_location.basename)

    def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str, session_id: str) -> Any:
        # Read with newline="" so a CRLF sample's snapshot keeps its "\r\n" (text mode would make it "\n").
        try:
            with open(snapshot_location, encoding="utf-8", newline="") as handle:
                return handle.read()
        except FileNotFoundError:
            return None

    def serialize(self, data: Any, **kwargs: Any) -> str:
        if isinstance(data, str):
            return data
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


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
