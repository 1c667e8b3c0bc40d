"""fixture_migrate.files.hard_links: every name of a hard-linked file is re-pointed, none
is ever half written, and a name outside the root refuses the write."""

from __future__ import annotations

import errno
import os
import stat

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.hard_links import HardLinks
from fixture_migrate.files.writes import write_atomic

from tests.files import NEW, OLD, temps


def test_every_hard_link_sees_the_new_content_and_they_stay_one_file(repo):
    (repo / "a").mkdir()
    (repo / "b").mkdir()
    first = repo / "a" / "cases.json"
    first.write_bytes(OLD)
    first.chmod(0o600)
    second = repo / "b" / "same.json"
    os.link(first, second)
    third = repo / "a" / ".hidden-copy.json"
    os.link(first, third)
    write_atomic(first, NEW, original=OLD, root=repo, hard_links=HardLinks(repo))
    assert first.read_bytes() == second.read_bytes() == third.read_bytes() == NEW
    assert first.stat().st_nlink == 3
    assert first.stat().st_ino == second.stat().st_ino == third.stat().st_ino
    assert stat.S_IMODE(second.stat().st_mode) == 0o600
    assert temps(repo) == []


def test_no_hard_link_is_ever_half_written(repo, monkeypatch):
    first = repo / "cases.json"
    first.write_bytes(OLD)
    second = repo / "other.json"
    os.link(first, second)
    seen: list[bytes] = []
    real_replace = os.replace

    def replace(src, dst, **kwargs):
        # Between any two renames, every name holds a whole file: the old or the new one.
        seen.extend([first.read_bytes(), second.read_bytes()])
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    write_atomic(first, NEW, original=OLD, root=repo, hard_links=HardLinks(repo))
    assert set(seen) <= {OLD, NEW} and first.read_bytes() == second.read_bytes() == NEW


def test_a_hard_link_outside_the_root_is_refused(tmp_path, repo):
    inside = repo / "cases.json"
    inside.write_bytes(OLD)
    os.link(inside, tmp_path / "outside.json")
    with pytest.raises(FixtureError) as caught:
        write_atomic(inside, NEW, original=OLD, root=repo, hard_links=HardLinks(repo))
    assert caught.value.code == "hard_link_outside_repo" and "2 hard links" in caught.value.message
    assert inside.read_bytes() == (tmp_path / "outside.json").read_bytes() == OLD
    assert temps(tmp_path) == []


def test_a_hard_link_made_after_the_scan_is_found(repo):
    links = HardLinks(repo)
    first = repo / "one.json"
    first.write_bytes(OLD)
    os.link(first, repo / "two.json")
    write_atomic(first, NEW, original=OLD, root=repo, hard_links=links)
    os.link(first, repo / "three.json")  # after the index was built
    write_atomic(first, OLD, original=NEW, root=repo, hard_links=links)
    assert {p.read_bytes() for p in repo.iterdir()} == {OLD}


def test_a_hard_linked_file_without_a_root_to_search_is_refused(repo):
    first = repo / "one.json"
    first.write_bytes(OLD)
    os.link(first, repo / "two.json")
    with pytest.raises(FixtureError) as caught:
        write_atomic(first, NEW, original=OLD)
    assert caught.value.code == "hard_link_outside_repo" and first.read_bytes() == OLD


def test_a_failure_while_linking_removes_every_temporary_name(repo, monkeypatch):
    first = repo / "one.json"
    first.write_bytes(OLD)
    os.link(first, repo / "two.json")
    os.link(first, repo / "three.json")
    real_link = os.link
    calls = []

    def link(src, dst, **kwargs):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(errno.EMLINK, "Too many links")
        real_link(src, dst, **kwargs)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(FixtureError) as caught:
        write_atomic(first, NEW, original=OLD, root=repo, hard_links=HardLinks(repo))
    assert caught.value.message == "cannot write: Too many links; the file is unchanged"
    assert {p.read_bytes() for p in repo.iterdir()} == {OLD} and temps(repo) == []
