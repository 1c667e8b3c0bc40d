"""A worker's kept directories (`root.keep_directories`): the root rule holds for every
read through one, no descriptor leaks, and a forked child keeps none."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.files import root as files_root
from fixture_migrate.files.parallel import ordered_map
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.files.root import keep_directories, pin_root
from fixture_migrate.files.writes import write_atomic

from tests.helpers import inside_and_outside


@pytest.fixture(autouse=True)
def _keeping() -> Iterator[None]:
    keep_directories()
    yield
    keep_directories(False)


def _tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    """`inside_and_outside`, its root pinned for the run."""
    root, evals, outside = inside_and_outside(tmp_path)
    pin_root(root)
    return root, evals, outside


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_read_keeps_its_directory_and_the_next_read_there_opens_only_the_file(tmp_path: Path, monkeypatch):
    root, evals, _ = _tree(tmp_path)
    assert read_fixture(evals / "a.json", root=root) == b'{"inside": true}'
    assert (str(evals.resolve()), files_root.real_root(root)) in files_root._KEPT
    walked = []
    real_open_directory = files_root.open_directory
    monkeypatch.setattr(files_root, "open_directory", lambda *args: walked.append(args) or real_open_directory(*args))
    assert read_fixture(evals / "b.json", root=root) == b'{"inside": true}'
    assert walked == []


def test_a_kept_directory_swapped_for_a_symlink_between_two_reads_is_never_followed(tmp_path: Path):
    """As the walk's held directories: `evals`, kept after the first read, is swapped for a
    symlink leading outside before the second; that read never reaches outside the root."""
    root, evals, outside = _tree(tmp_path)
    assert read_fixture(evals / "a.json", root=root) == b'{"inside": true}'
    os.rename(evals, root / "moved")
    os.symlink(outside, evals, target_is_directory=True)
    with pytest.raises(FixtureError) as caught:
        read_fixture(evals / "b.json", root=root)
    assert caught.value.code == "symlink_outside_repo"
    assert files_root._KEPT == {}  # the kept directory failed its check: closed


def test_a_swap_right_after_the_check_still_reads_the_directory_kept(tmp_path: Path, monkeypatch):
    """The swap lands between the check of the kept directory and the open of the file: the
    file is opened relative to the directory reached without following any symlink."""
    root, evals, outside = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    real_stat = os.stat
    swapped = []

    def stat(path, *args, **kwargs):
        info = real_stat(path, *args, **kwargs)
        if os.fspath(path) == str(evals) and kwargs.get("follow_symlinks") is False and not swapped:
            os.rename(evals, root / "moved")
            os.symlink(outside, evals, target_is_directory=True)
            swapped.append(True)
        return info

    monkeypatch.setattr(os, "stat", stat)
    found = read_fixture(evals / "b.json", root=root)
    assert swapped
    assert found == b'{"inside": true}'


def test_a_kept_directory_renamed_away_is_not_read_from_again(tmp_path: Path):
    root, evals, outside = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    os.rename(evals, outside / "evals")  # now outside the root
    evals.mkdir()
    (evals / "b.json").write_text('{"new": true}')
    assert read_fixture(evals / "b.json", root=root) == b'{"new": true}'


def test_a_symlinked_file_in_a_kept_directory_takes_the_full_walk(tmp_path: Path):
    root, evals, outside = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    (evals / "b.json").unlink()
    os.symlink(outside / "b.json", evals / "b.json")
    with pytest.raises(FixtureError) as caught:
        read_fixture(evals / "b.json", root=root)
    assert caught.value.code == "symlink_outside_repo"


def test_a_root_replaced_since_it_was_pinned_refuses_a_read_through_a_kept_directory(tmp_path: Path):
    root, evals, _ = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    os.rename(root, tmp_path / "old")
    (evals).mkdir(parents=True)
    (evals / "b.json").write_text('{"swapped": true}')
    with pytest.raises(FixtureError) as caught:
        read_fixture(evals / "b.json", root=root)
    assert caught.value.code == "changed_meanwhile"


def test_a_write_never_uses_a_kept_directory(tmp_path: Path, monkeypatch):
    root, evals, _ = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    walked = []
    real_open_directory = files_root.open_directory
    monkeypatch.setattr(files_root, "open_directory", lambda *args: walked.append(args) or real_open_directory(*args))
    write_atomic(evals / "a.json", b'{"written": true}', original=b'{"inside": true}', root=root)
    assert walked
    assert (evals / "a.json").read_bytes() == b'{"written": true}'


def _many(tmp_path: Path, directories: int) -> tuple[Path, list[Path]]:
    root = tmp_path / "repo"
    files = []
    for n in range(directories):
        directory = root / "skills" / f"s{n:02d}" / "evals"
        directory.mkdir(parents=True)
        for name in ("a.json", "b.json"):
            (directory / name).write_text("{}")
            files.append(directory / name)
    pin_root(root)
    return root, files


def test_kept_directories_are_bounded_and_closed(tmp_path: Path):
    root, files = _many(tmp_path, 40)
    keep_directories(False)
    before = _open_fds()
    keep_directories()
    for path in files:
        assert read_fixture(path, root=root) == b"{}"
        assert _open_fds() <= before + files_root.KEPT_DIRECTORIES
    assert len(files_root._KEPT) == files_root.KEPT_DIRECTORIES
    keep_directories(False)
    assert _open_fds() == before


def _read_and_count(job: tuple[str, str]) -> tuple[bytes, int, int, int]:
    path, root = job
    return read_fixture(Path(path), root=Path(root)), _open_fds(), len(files_root._KEPT), os.getpid()


def _noop() -> None:
    pass


def test_workers_keep_directories_without_leaking_and_the_parent_keeps_none(tmp_path: Path):
    keep_directories(False)
    root, files = _many(tmp_path, 60)
    before = _open_fds()
    jobs = [(str(path), str(root)) for path in files]
    results = list(ordered_map(_read_and_count, jobs, jobs=2, initializer=_noop, initargs=()))
    assert [data for data, _, _, _ in results] == [b"{}"] * len(files)
    if len(os.sched_getaffinity(0)) > 1:  # the run was spread over workers, which kept directories
        assert {pid for _, _, _, pid in results} - {os.getpid()}
        assert max(kept for _, _, kept, _ in results) == files_root.KEPT_DIRECTORIES
    # In each process, the descriptors open beyond those kept stay the same: none leaks.
    beyond: dict[int, set[int]] = {}
    for _, fds, kept, pid in results:
        beyond.setdefault(pid, set()).add(fds - kept)
    assert all(len(counts) == 1 for counts in beyond.values()), beyond
    assert _open_fds() == before
    assert files_root._KEPT == {}


def test_a_forked_child_keeps_no_directory(tmp_path: Path):
    root, evals, _ = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    [(fd, _, _)] = files_root._KEPT.values()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing kept, the parent's descriptor closed, not keeping
        try:
            os.fstat(fd)
            closed = False
        except OSError:
            closed = True
        ok = not files_root._KEPT and closed and not files_root._KEEPING
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.close(write)
    assert len(files_root._KEPT) == 1
    os.fstat(fd)  # the parent's is still open


def test_a_read_named_by_the_real_path_of_a_kept_directory_resolves_nothing(tmp_path: Path, monkeypatch):
    root, evals, _ = _tree(tmp_path)
    evals = evals.resolve()
    read_fixture(evals / "a.json", root=root)
    resolved = []
    real_resolve = files_root.resolve_target
    monkeypatch.setattr(files_root, "resolve_target", lambda *args: resolved.append(args) or real_resolve(*args))
    assert read_fixture(evals / "b.json", root=root) == b'{"inside": true}'
    assert resolved == []


def test_a_symlink_to_a_file_beside_it_in_a_kept_directory_reads_that_file(tmp_path: Path):
    root, evals, _ = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    (evals / "b.json").unlink()
    os.symlink("a.json", evals / "b.json")
    assert read_fixture(evals / "b.json", root=root) == b'{"inside": true}'


def test_a_kept_directory_named_through_a_symlink_inside_the_root_reads_the_same_files(tmp_path: Path):
    root, evals, _ = _tree(tmp_path)
    read_fixture(evals / "a.json", root=root)
    os.symlink(evals, root / "alias", target_is_directory=True)
    assert read_fixture(root / "alias" / "b.json", root=root) == b'{"inside": true}'
    assert read_fixture(evals / "b.json", root=root) == b'{"inside": true}'


def test_a_path_ending_in_dotdot_under_a_kept_directory_is_never_opened_through_it(tmp_path: Path):
    root, evals, _ = _tree(tmp_path)
    evals = evals.resolve()
    (evals / "sub").mkdir()
    read_fixture(evals / "a.json", root=root)
    with pytest.raises(FixtureError) as caught:
        read_fixture(evals / "sub" / "..", root=root)
    assert caught.value.code == "not_regular"


def test_a_kept_directory_whose_parent_is_moved_outside_behind_a_symlink_is_never_read(tmp_path: Path):
    """`evals/deep` is kept; `evals` is then moved outside the root and a symlink to it left in
    its place. `evals/deep` still lstats as the very directory kept (the symlink is a parent,
    followed), yet that directory is now outside the root: nothing may be read from it."""
    root, evals, outside = _tree(tmp_path)
    deep = evals / "deep"
    deep.mkdir()
    (deep / "a.json").write_text('{"inside": true}')
    (deep / "b.json").write_text('{"inside": true}')
    root_real = Path(files_root.real_root(root))
    deep_real = root_real / "evals" / "deep"
    assert read_fixture(deep_real / "a.json", root=root) == b'{"inside": true}'
    os.rename(evals, outside / "evals")
    (outside / "evals" / "deep" / "b.json").write_text('{"secret": "outside"}')
    os.symlink(outside / "evals", evals, target_is_directory=True)
    with pytest.raises(FixtureError) as caught:
        read_fixture(deep_real / "b.json", root=root)
    assert caught.value.code in ("symlink_outside_repo", "changed_meanwhile")
