"""A call of the API leaves no descriptor of the repo root open once it returns: a
removed root is freed, and the file system that holds it can be unmounted."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import fixture_migrate

LEGACY = '{"skill": "s", "cases": [{"id": "a", "prompt": "hi", "expected": "x"}]}\n'


def _open_directories(under: Path) -> list[str]:
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target.startswith(os.fspath(under)):
            found.append(target)
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd here")
def test_no_descriptor_of_the_root_outlives_a_call(tmp_path: Path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    evals = root / "skills" / "s" / "evals"
    evals.mkdir(parents=True)
    (evals / "cases.json").write_text(LEGACY)
    (evals / "more.json").write_text(LEGACY.replace('"a"', '"b"'))
    fixture_migrate.validate(root, repo_root=root, check_refs=False)  # a walk, its files read meanwhile
    assert _open_directories(tmp_path) == []
    shutil.rmtree(root)
    assert _open_directories(tmp_path) == []  # not even of the removed root ("... (deleted)")
