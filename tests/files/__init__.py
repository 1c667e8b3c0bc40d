"""Tests of `fixture_migrate.files`, one module each, and what they share."""

from __future__ import annotations

from pathlib import Path

from fixture_migrate.files.writes import TEMP_SUFFIX

OLD = b'{"old": true}\n'
NEW = b'{\n  "new": true\n}\n'


def temps(directory: Path) -> list[str]:
    """Every temporary file of a write left anywhere under `directory`."""
    return sorted(p.name for p in directory.rglob("*") if p.name.endswith(TEMP_SUFFIX))
