"""`fixture_migrate.files.paths`: the repo root and the names a file has in reports and diffs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_migrate.files.paths import diff_name, find_repo_root, relative_source


def test_find_repo_root(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    deep = tmp_path / "skills" / "demo" / "evals"
    deep.mkdir(parents=True)
    assert find_repo_root(deep) == tmp_path.resolve()
    bare = tmp_path / "skills"
    (bare / ".git").write_text("gitdir: elsewhere")  # a worktree's .git is a file
    assert find_repo_root(deep) == bare.resolve()


def test_find_repo_root_without_git_is_the_start(tmp_path: Path):
    start = tmp_path.resolve()
    if any((folder / ".git").exists() for folder in (start, *start.parents)):
        pytest.skip("the temporary directory lies inside a git repository")
    assert find_repo_root(tmp_path) == start


def test_relative_source(tmp_path: Path):
    assert relative_source(tmp_path / "skills" / "a.json", tmp_path) == "skills/a.json"
    assert relative_source(tmp_path.parent / "other" / "a.json", tmp_path) == "../other/a.json"


def test_diff_name_is_relative_inside_and_as_given_outside(tmp_path: Path):
    assert diff_name(tmp_path / "skills" / "a.json", tmp_path) == "skills/a.json"
    outside = tmp_path.parent / "elsewhere" / "a.json"
    assert diff_name(outside, tmp_path) == outside.as_posix()
