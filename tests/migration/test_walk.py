"""`fixture_migrate.migration.walk`: which files a run visits, in which order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_migrate.migration.walk import iter_files
from fixture_migrate.migration.writes import TEMP_SUFFIX


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in (
        "b/evals/z.json",
        "b/evals/a.yaml",
        "a/cases.jsonl",
        "a/test_cases.py",
        "a/notes.txt",
        ".hidden/x.json",
        "node_modules/pkg/package.json",
        "venv/lib/x.json",
        f"a/half{TEMP_SUFFIX}",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    return tmp_path


def names(found, root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path, error in found if error is None]


def test_a_directory_is_walked_sorted_for_the_suffixes_read(tree: Path):
    assert names(iter_files([tree]), tree) == ["a/cases.jsonl", "a/test_cases.py", "b/evals/a.yaml", "b/evals/z.json"]


def test_a_named_file_is_yielded_whatever_its_suffix(tree: Path):
    assert names(iter_files([tree / "a" / "notes.txt"]), tree) == ["a/notes.txt"]


def test_overlapping_arguments_yield_each_file_once(tree: Path):
    found = names(iter_files([tree / "a", tree / "a" / "cases.jsonl", tree / "a"]), tree)
    assert found == ["a/cases.jsonl", "a/test_cases.py"]


def test_a_missing_path_is_an_error_in_place(tree: Path):
    [(path, error)] = list(iter_files([tree / "nowhere.json"]))
    assert path == tree / "nowhere.json"
    assert error is not None and error.code == "io"


def test_symlinked_directories_are_not_followed(tree: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "x.json").write_text("{}")
    os.symlink(outside, tree / "b" / "link", target_is_directory=True)
    assert "b/link/x.json" not in names(iter_files([tree]), tree)
