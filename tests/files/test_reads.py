"""fixture_migrate.files.reads: bounded reads of regular files only, never waiting on a pipe."""

from __future__ import annotations

import errno
import os

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.reads import read_fixture, read_head
from fixture_migrate.formats.limits import MAX_FILE_BYTES
from fixture_migrate.migration.unreadable import LFS_POINTER, described, recognize

from tests.files import OLD


def test_read_refuses_a_file_over_the_limit_without_reading_it(repo, monkeypatch):
    big = repo / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    monkeypatch.setattr(os, "read", lambda *a: pytest.fail("a file over the limit was read"))
    with pytest.raises(FixtureError) as caught:
        read_fixture(big)
    assert caught.value.code == "too_large"
    assert caught.value.message == "file is 16,777,217 bytes, over the 16,777,216-byte limit (16 MiB): not read"


def test_read_stops_a_file_that_grows_past_the_limit(repo, monkeypatch):
    small = repo / "small.json"
    small.write_bytes(b"{}")
    endless = iter([b"x" * 6, b"x" * 6, b""])
    monkeypatch.setattr(os, "read", lambda fd, n: next(endless)[:n])
    with pytest.raises(FixtureError) as caught:
        read_fixture(small, limit=10)
    assert caught.value.code == "too_large" and caught.value.message.startswith("file is 11 bytes, over the 10-byte")


def test_read_never_waits_on_a_named_pipe(repo):
    fifo = repo / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(FixtureError) as caught:
        read_fixture(fifo)  # a blocking open would hang here: no writer ever comes
    assert caught.value.code == "not_regular"


def test_read_refuses_a_directory(repo):
    (repo / "dir.json").mkdir()
    with pytest.raises(FixtureError) as caught:
        read_fixture(repo / "dir.json")
    assert caught.value.code == "not_regular"


def test_read_reports_a_missing_file(repo):
    with pytest.raises(FixtureError) as caught:
        read_fixture(repo / "gone.json")
    assert (caught.value.code, caught.value.message) == ("io", "cannot read: No such file or directory")


def test_read_of_an_unreadable_file(repo, monkeypatch):
    target = repo / "secret.json"
    target.write_bytes(OLD)

    def deny(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(FixtureError) as caught:
        read_fixture(target)
    assert caught.value.message == "cannot read: Permission denied"


def test_read_head_reads_the_start_of_a_file_of_any_size(repo):
    target = repo / "big.json"
    target.write_bytes(b"x" * (MAX_FILE_BYTES + 10))
    assert read_head(target, 4, root=repo) == b"xxxx"
    (repo / "dir.json").mkdir()
    with pytest.raises(FixtureError) as caught:
        read_head(repo / "dir.json", 4, root=repo)
    assert caught.value.code == "not_regular"


def test_recognizing_an_unreadable_file_keeps_to_the_repo_root(tmp_path):
    # A Git LFS pointer outside the repo, reached through a symlink in it: with the root
    # given, it is not read (the parser refused the link already), so nothing is said of it.
    repo = tmp_path / "repo"
    repo.mkdir()
    outside = tmp_path / "pointer.json"
    outside.write_bytes(LFS_POINTER + b"v1\n")
    (repo / "cases.json").symlink_to(outside)
    assert recognize(repo / "cases.json") is not None
    assert recognize(repo / "cases.json", root=repo) is None
    error = FixtureError("bad", code="invalid_json")
    assert described(repo / "cases.json", error, root=repo) is error
