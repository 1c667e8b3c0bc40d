"""fixture_migrate.files.root: the root rule as a write meets it: symlinks inside and
outside the root, a root reached through a symlink."""

from __future__ import annotations

import os

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.root import resolve_target
from fixture_migrate.files.writes import write_atomic

from tests.files import NEW, OLD, temps


def test_a_symlink_inside_the_root_is_written_through(repo):
    (repo / "real.json").write_bytes(OLD)
    (repo / "link.json").symlink_to("real.json")
    write_atomic(repo / "link.json", NEW, original=OLD, root=repo)
    assert (repo / "link.json").is_symlink() and os.readlink(repo / "link.json") == "real.json"
    assert (repo / "real.json").read_bytes() == NEW and temps(repo) == []


def test_a_symlink_leading_outside_the_root_is_refused(tmp_path, repo):
    outside = tmp_path / "outside.json"
    outside.write_bytes(OLD)
    (repo / "link.json").symlink_to(outside)
    with pytest.raises(FixtureError) as caught:
        write_atomic(repo / "link.json", NEW, original=OLD, root=repo)
    assert caught.value.code == "symlink_outside_repo"
    assert outside.read_bytes() == OLD and temps(tmp_path) == []


def test_a_symlinked_directory_leading_outside_the_root_is_refused(tmp_path, repo):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "cases.json").write_bytes(OLD)
    (repo / "evals").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(FixtureError) as caught:
        resolve_target(repo / "evals" / "cases.json", repo)
    assert caught.value.code == "symlink_outside_repo"


def test_a_file_named_outside_the_root_without_symlinks_is_written(tmp_path, repo):
    outside = tmp_path / "outside.json"
    outside.write_bytes(OLD)
    write_atomic(outside, NEW, original=OLD, root=repo)
    assert outside.read_bytes() == NEW


def test_a_root_reached_through_a_symlink_still_contains_its_files(tmp_path, repo):
    alias = tmp_path / "alias"
    alias.symlink_to(repo, target_is_directory=True)
    (repo / "cases.json").write_bytes(OLD)
    write_atomic(alias / "cases.json", NEW, original=OLD, root=alias)
    assert (repo / "cases.json").read_bytes() == NEW
