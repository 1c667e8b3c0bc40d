"""Reads below a held directory in one call (`fixture_migrate.files.beneath`): the same
verdicts as the checks taken one by one, on every hostile change the walk tests make."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixture_migrate.files import beneath
from fixture_migrate.files import root as files_root
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.files.root import pin_root
from fixture_migrate.files.walk import iter_files
from tests.files import test_walk as walk_tests

needs_openat2 = pytest.mark.skipif(not beneath.available(), reason="this kernel (or sandbox) has no openat2")

_FLAGS = os.O_RDONLY | os.O_CLOEXEC


@needs_openat2
def test_open_beneath_reads_a_plain_path_and_refuses_every_way_out(tmp_path: Path):
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f.json").write_text("{}")
    outside = tmp_path / "outside.json"
    outside.write_text('{"secret": 1}')
    (root / "a" / "link").symlink_to(root / "a" / "b", target_is_directory=True)
    (root / "a" / "b" / "out.json").symlink_to(outside)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        opened = beneath.open_beneath(fd, "a/b/f.json", _FLAGS)
        assert opened is not None
        assert os.read(opened, 10) == b"{}"
        os.close(opened)
        for way_out in ("a/link/f.json", "a/b/out.json", "../outside.json", str(outside), "a/b/gone.json", "a/b\0/f"):
            assert beneath.open_beneath(fd, way_out, _FLAGS) is None, way_out
    finally:
        os.close(fd)


@needs_openat2
def test_a_read_below_a_held_directory_is_one_call_and_no_stat_per_directory(tmp_path: Path, monkeypatch):
    root = tmp_path / "repo"
    evals = root / "skills" / "s" / "evals"
    evals.mkdir(parents=True)
    (evals / "a.json").write_text('{"a": 1}')
    pin_root(root)
    calls: list[str] = []
    real = beneath.open_beneath
    monkeypatch.setattr(beneath, "open_beneath", lambda fd, rel, flags: calls.append(rel) or real(fd, rel, flags))
    walk = iter_files([root], root=root)
    first, _ = next(walk)
    stats: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: stats.append(os.fspath(path)) or real_stat(path, *a, **k))
    assert read_fixture(first, root=root) == b'{"a": 1}'
    monkeypatch.setattr(os, "stat", real_stat)
    walk.close()
    assert calls == ["skills/s/evals/a.json"]
    assert stats == [files_root.real_root(root)]  # the root still the one pinned; nothing between


_HELD_CASES = [
    (walk_tests.test_a_read_during_the_walk_never_follows_its_directory_swapped_for_a_symlink, {}),
    (walk_tests.test_a_held_directory_moved_out_of_the_root_is_not_read_from, {"symlink_left": True}),
    (walk_tests.test_a_held_directory_moved_out_of_the_root_is_not_read_from, {"symlink_left": False}),
    (walk_tests.test_a_file_swapped_for_a_symlink_in_a_held_directory_is_refused, {}),
    (walk_tests.test_a_root_swapped_during_the_walk_refuses_the_next_read_of_a_held_directory, {"how": "symlink"}),
    (walk_tests.test_a_root_swapped_during_the_walk_refuses_the_next_read_of_a_held_directory, {"how": "renamed"}),
    (walk_tests.test_a_deep_directory_swapped_for_a_symlink_below_the_held_levels_is_not_entered, {}),
]


@pytest.mark.parametrize("one_call", [False, True], ids=["checks-one-by-one", "one-call"])
@pytest.mark.parametrize(
    ("case", "kwargs"), _HELD_CASES, ids=[f"{case.__name__[5:]}{list(kw.values())}" for case, kw in _HELD_CASES]
)
def test_held_reads_decide_alike_with_and_without_the_one_call(case, kwargs, one_call, tmp_path, monkeypatch):
    """Each hostile change of the walk tests (a held directory swapped for a symlink, moved out
    of the root, a file swapped for a symlink, the root renamed or replaced) gets the same
    verdict whether a read below a held directory takes one call or the checks one by one."""
    if one_call and not beneath.available():
        pytest.skip("this kernel (or sandbox) has no openat2")
    monkeypatch.setattr(files_root, "_BENEATH", one_call)
    case(tmp_path=tmp_path, **kwargs)


def _root_descriptors(root: Path) -> int:
    real = os.path.realpath(root)
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{name}") == real
        except OSError:
            pass
    return count


@needs_openat2
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd here")
def test_a_root_descriptor_lives_as_long_as_its_held_directory_and_a_forked_child_closes_its_copy(tmp_path: Path):
    root = tmp_path / "repo"
    (root / "e").mkdir(parents=True)
    (root / "e" / "a.json").write_text("{}")
    (root / "e" / "b.json").write_text("{}")
    pin_root(root)
    before = _root_descriptors(root)
    walk = iter_files([root], root=root)
    first, _ = next(walk)
    assert read_fixture(first, root=root) == b"{}"
    during = _root_descriptors(root)  # the walk's own on the root, and the one noted for `e`
    assert during >= before + 2
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, str(during - _root_descriptors(root)).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 8) == b"1"  # the child closed its copy of the noted one
    os.close(read)
    os.close(write)
    assert [path.name for path, _ in walk] == ["b.json"]
    assert _root_descriptors(root) == before
