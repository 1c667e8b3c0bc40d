from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty repo root (no `.git`) under `tmp_path`."""
    root = tmp_path / "repo"
    root.mkdir()
    return root
