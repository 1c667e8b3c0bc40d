"""Snapshot fixtures for the syntax tests: migrated YAML and Python texts stored as readable files.

A migrated Python module is stored as `.pysrc`, so no tool takes the snapshot for
project code (formatters would change it, test runners collect it).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import _MirroredText


class YamlSnapshot(_MirroredText):
    file_extension = "yaml"


class PythonSnapshot(_MirroredText):
    file_extension = "pysrc"


@pytest.fixture
def snapshot_yaml(snapshot: Any) -> Any:
    """Snapshot of a migrated YAML text, stored as a `.yaml` file."""
    return snapshot.use_extension(YamlSnapshot)


@pytest.fixture
def snapshot_py(snapshot: Any) -> Any:
    """Snapshot of a migrated Python module, stored as a `.pysrc` file."""
    return snapshot.use_extension(PythonSnapshot)
