"""fixture_migrate.files.writes: atomic writes, read-only files, concurrent edits, and the
temporary file never staying behind on an error path."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.files import writes
from fixture_migrate.files.writes import TEMP_SUFFIX, write_atomic, write_dest, write_new

from tests.files import NEW, OLD, temps


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


# --- DEST: the output file of import and export ---------------------------------------------


def test_write_dest_makes_its_folders_then_replaces_only_what_it_was_planned_from(repo):
    dest = repo / "out" / "new" / "samples.jsonl"
    write_dest(dest, OLD, original=None, root=repo)
    assert dest.read_bytes() == OLD and temps(repo) == []
    dest.chmod(0o600)
    write_dest(dest, NEW, original=OLD, root=repo)
    assert dest.read_bytes() == NEW and stat.S_IMODE(dest.stat().st_mode) == 0o600
    with pytest.raises(FixtureError) as caught:
        write_dest(dest, OLD, original=OLD, root=repo)  # planned from bytes it no longer holds
    assert caught.value.code == "changed_meanwhile" and dest.read_bytes() == NEW


def test_write_dest_never_makes_a_folder_outside_the_root(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(FixtureError) as caught:
        write_dest(repo / "link" / "new" / "samples.jsonl", NEW, original=None, root=repo)
    assert caught.value.code == "symlink_outside_repo" and list(outside.iterdir()) == []


def test_write_dest_reports_a_failure_of_the_system_as_io(repo, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writes, "write_atomic", full)
    with pytest.raises(FixtureError) as caught:
        write_dest(repo / "samples.jsonl", NEW, original=None, root=repo)
    assert (caught.value.code, caught.value.message) == ("io", "cannot write: [Errno 28] No space left on device")
