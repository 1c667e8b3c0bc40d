"""fixture_migrate.files (writes, reads, moves, root, hard links): bounded reads, atomic writes,
symlinks, hard links, read-only files, concurrent edits, and the temporary file never staying
behind on an error path."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from fixture_migrate.errors import FixtureError

from fixture_migrate.migration.unreadable import LFS_POINTER, described, recognize
from fixture_migrate.files import writes
from fixture_migrate.files.hard_links import HardLinks
from fixture_migrate.files.reads import read_fixture, read_head
from fixture_migrate.files.root import resolve_target
from fixture_migrate.files.writes import TEMP_SUFFIX, write_atomic, write_new
from fixture_migrate.formats.limits import MAX_FILE_BYTES

OLD = b'{"old": true}\n'
NEW = b'{\n  "new": true\n}\n'


def temps(directory: Path) -> list[str]:
    """Every temporary file of a write left anywhere under `directory`."""
    return sorted(p.name for p in directory.rglob("*") if p.name.endswith(TEMP_SUFFIX))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def test_replaces_content_keeps_mode_and_leaves_no_temporary_file(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    target.chmod(0o640)
    write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == NEW
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert temps(repo) == []


def test_extended_attributes_are_kept(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    try:
        os.setxattr(target, "user.reviewed-by", b"ana")
    except (AttributeError, OSError):
        pytest.skip("this platform or file system has no user extended attributes")
    write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == NEW
    assert os.getxattr(target, "user.reviewed-by") == b"ana"


def test_the_temporary_file_is_fsynced_in_the_same_directory_then_the_directory(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else str(fd))
        real_fsync(fd)

    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        # Relative to the directory opened once: the names, and where that directory is.
        where = os.readlink(f"/proc/self/fd/{dst_dir_fd}") if os.path.exists("/proc/self/fd") else str(repo)
        replaced.append((os.path.join(where, src), os.path.join(where, dst)))
        real_replace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(writes, "_renameat2", lambda *args: False)  # the rename, where there is no exchange
    write_atomic(target, NEW, original=OLD, root=repo)
    ((source, destination),) = replaced
    assert Path(source).parent == repo and Path(source).name.startswith(".cases.json.")
    assert source.endswith(TEMP_SUFFIX) and destination == str(target)
    if os.path.exists("/proc/self/fd"):
        assert synced[0] == source and synced[-1] == str(repo), "file first, then the directory holding the rename"
    else:
        assert len(synced) == 2


def test_temporary_name_stays_short_for_a_long_file_name(repo):
    target = repo / ("é" * 120 + ".json")  # 241 bytes: a name beside it would pass NAME_MAX
    target.write_bytes(OLD)
    write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == NEW and temps(repo) == []


@pytest.mark.parametrize("call", ["write", "fsync", "fchmod", "replace"])
def test_disk_full_or_io_error_at_each_step_leaves_the_original_and_no_temporary_file(repo, monkeypatch, call):
    target = repo / "cases.json"
    target.write_bytes(OLD)

    def fail(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, call, fail)
    if call == "replace":
        monkeypatch.setattr(writes, "_renameat2", fail)  # the exchange that takes its place
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo)
    monkeypatch.undo()
    assert caught.value.code == "io"
    assert caught.value.message == "cannot write: No space left on device; the file is unchanged"
    assert target.read_bytes() == OLD and temps(repo) == []


def test_a_short_write_is_continued_not_truncated(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:3])))
    write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == NEW


def test_an_interrupt_during_the_write_removes_the_temporary_file(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)

    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == OLD and temps(repo) == []


def fail_directory_syncs(monkeypatch, error: OSError) -> None:
    """Make every fsync of a directory raise `error` (files still sync)."""
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise error
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_a_directory_that_cannot_be_synced_is_accepted(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    fail_directory_syncs(monkeypatch, OSError(errno.EINVAL, "Invalid argument"))
    write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == NEW


def test_a_directory_sync_failure_after_the_rename_says_the_file_is_migrated(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    fail_directory_syncs(monkeypatch, OSError(errno.EIO, "Input/output error"))
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo)
    assert caught.value.message.startswith("migrated, but the directory could not be synced to disk")
    assert target.read_bytes() == NEW and temps(repo) == []


# Concurrent edits


def test_a_file_edited_meanwhile_is_left_as_the_other_writer_left_it(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    edited = b'{"edited": "by someone else"}\n'
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo, before_swap=lambda: target.write_bytes(edited))
    assert caught.value.code == "changed_meanwhile"
    assert target.read_bytes() == edited and temps(repo) == []


def test_a_file_that_only_grew_meanwhile_is_not_overwritten(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo, before_swap=lambda: target.write_bytes(OLD + b" "))
    assert caught.value.code == "changed_meanwhile" and target.read_bytes() == OLD + b" "


def test_a_file_removed_meanwhile_is_not_recreated(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo, before_swap=target.unlink)
    assert caught.value.code == "changed_meanwhile" and "removed" in caught.value.message
    assert not target.exists() and temps(repo) == []


def test_a_file_that_holds_the_new_bytes_already_is_left_alone(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(NEW)
    monkeypatch.setattr(os, "replace", lambda *a: pytest.fail("nothing needs writing"))
    write_atomic(target, NEW, original=OLD, root=repo)
    assert target.read_bytes() == NEW and temps(repo) == []


def test_a_file_written_meanwhile_with_the_new_bytes_is_not_an_edit(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    write_atomic(target, NEW, original=OLD, root=repo, before_swap=lambda: target.write_bytes(NEW))
    assert target.read_bytes() == NEW and temps(repo) == []


def test_a_file_removed_before_the_write_is_not_recreated(repo):
    with pytest.raises(FixtureError) as caught:
        write_atomic(repo / "gone.json", NEW, original=OLD, root=repo)
    assert caught.value.code == "changed_meanwhile"
    assert list(repo.iterdir()) == []


# Symlinks


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


# Hard links


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


# Read-only files and directories (the mode bits count, also for the superuser)


def test_a_read_only_file_is_refused(repo):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    target.chmod(0o444)
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo)
    assert (caught.value.code, caught.value.message) == ("read_only", "refused: the file is read-only")
    assert target.read_bytes() == OLD and temps(repo) == []


def test_a_file_in_a_read_only_directory_is_refused(repo):
    directory = repo / "locked"
    directory.mkdir()
    target = directory / "cases.json"
    target.write_bytes(OLD)
    directory.chmod(0o555)
    try:
        with pytest.raises(FixtureError) as caught:
            write_atomic(target, NEW, original=OLD, root=repo)
    finally:
        directory.chmod(0o755)
    assert caught.value.message == "refused: its directory is read-only"
    assert target.read_bytes() == OLD and temps(repo) == []


def test_a_read_only_file_system_is_refused(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    monkeypatch.setattr(os, "access", lambda path, mode, **kwargs: False)  # what EROFS makes access() say
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo)
    assert caught.value.code == "read_only"


def test_permission_denied_by_the_kernel_is_an_io_error(repo, monkeypatch):
    target = repo / "cases.json"
    target.write_bytes(OLD)
    real_open = os.open

    def deny(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(FixtureError) as caught:
        write_atomic(target, NEW, original=OLD, root=repo)
    assert caught.value.message == "cannot write: Permission denied; the file is unchanged"
    assert target.read_bytes() == OLD


# New files (a JSONL file's migration)


def test_write_new_creates_with_the_mode_of_the_source(repo):
    source = repo / "cases.jsonl"
    source.write_bytes(OLD)
    source.chmod(0o604)
    assert write_new(repo / "cases.json", NEW, mode_from=source) is True
    assert (repo / "cases.json").read_bytes() == NEW
    assert stat.S_IMODE((repo / "cases.json").stat().st_mode) == 0o604 and temps(repo) == []


def test_write_new_never_clobbers_a_file_created_meanwhile(repo, monkeypatch):
    source = repo / "cases.jsonl"
    source.write_bytes(OLD)
    theirs = b'{"theirs": 1}\n'
    real_link = os.link

    def link(src, dst, **kwargs):
        # Someone creates the file between the check and the link (in the directory linked in).
        fd = os.open(dst, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=kwargs.get("dst_dir_fd"))
        os.write(fd, theirs)
        os.close(fd)
        real_link(src, dst, **kwargs)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(FixtureError) as caught:
        write_new(repo / "cases.json", NEW, mode_from=source)
    assert caught.value.code == "exists" and (repo / "cases.json").read_bytes() == theirs and temps(repo) == []


def test_write_new_accepts_its_own_earlier_result(repo):
    (repo / "cases.json").write_bytes(NEW)
    assert write_new(repo / "cases.json", NEW, mode_from=repo / "cases.jsonl") is False


def test_write_new_falls_back_to_rename_where_hard_links_are_unsupported(repo, monkeypatch):
    def no_links(src, dst, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    assert write_new(repo / "cases.json", NEW, mode_from=repo / "missing") is True
    assert (repo / "cases.json").read_bytes() == NEW and temps(repo) == []


# Reads


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
