"""`files.reads.RunReads` judges a file's directory inside the root once per run: its verdict
for a path must stay the one `check_inside` gives that very path, whatever was read before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.reads import RunReads
from fixture_migrate.files.root import check_inside


def test_a_read_of_the_root_itself_does_not_admit_its_parent(tmp_path: Path):
    # The root's own path passes `check_inside` (it *is* the root), and its directory is the
    # root's parent: that directory must not be taken as inside the root for later reads.
    root = tmp_path / "repo"
    root.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text('{"secret": 1}')
    reads = RunReads(root, root_given=True)
    with pytest.raises(FixtureError):
        reads.read(root)  # a directory: refused, after the lexical test passed
    with pytest.raises(FixtureError) as refused:
        check_inside(secret, root)
    assert refused.value.code == "path_outside_repo"
    with pytest.raises(FixtureError) as caught:
        reads.read(secret)
    assert caught.value.code == "path_outside_repo"


def test_a_cached_directory_does_not_admit_its_parent_named_by_dot_dot(tmp_path: Path):
    # `repo/x.json` admits the directory `repo`; `repo/..` lies in it by its text but names
    # the root's parent: `check_inside` refuses it, and so must the run.
    root = tmp_path / "repo"
    root.mkdir()
    (root / "x.json").write_text("{}")
    reads = RunReads(root, root_given=True)
    assert reads.read(root / "x.json") == b"{}"
    parent = os.fspath(root) + os.sep + os.pardir
    with pytest.raises(FixtureError) as caught:
        reads.read(parent)  # type: ignore[arg-type]
    assert caught.value.code == "path_outside_repo"
