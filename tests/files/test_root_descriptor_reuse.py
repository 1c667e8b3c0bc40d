"""A read below a held directory opens from a descriptor of the pinned root that is still
its own when the open happens: calls under other roots meanwhile (another thread's run of
the API) may close that descriptor and reuse its number for another root."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fixture_migrate.files import beneath
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.files.root import pin_root
from fixture_migrate.files.walk import iter_files


def _repo(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    evals = root / "skills" / "s" / "evals"
    evals.mkdir(parents=True)
    (evals / "cases.json").write_text(f'{{"root": "{name}"}}')
    pin_root(root)
    return root


@pytest.mark.skipif(not beneath.available(), reason="this kernel (or sandbox) has no openat2")
def test_reads_under_other_roots_meanwhile_never_make_a_read_open_another_roots_file(tmp_path: Path, monkeypatch):
    roots = [_repo(tmp_path, name) for name in ("a", "b", "c", "d")]
    walks = [iter_files([root], root=root) for root in roots]
    firsts = [next(walk)[0] for walk in walks]  # each walk holds its directory
    real = beneath.open_beneath
    interleaved: list[bytes] = []
    started: list[bool] = []

    def other_runs_first(fd: int, relative: str, flags: int):
        # What another thread may do between the descriptor being taken and the open:
        # reads under three other roots (each keeps its root's descriptor, at most two).
        if not started:
            started.append(True)
            interleaved.extend(read_fixture(path, root=root) for path, root in zip(firsts[1:], roots[1:]))
        return real(fd, relative, flags)

    monkeypatch.setattr(beneath, "open_beneath", other_runs_first)
    try:
        assert read_fixture(firsts[0], root=roots[0]) == b'{"root": "a"}'
        assert interleaved == [b'{"root": "b"}', b'{"root": "c"}', b'{"root": "d"}']
    finally:
        for walk in walks:
            walk.close()


def test_lstat_held_is_the_file_s_own_lstat_inside_a_walk_and_out(tmp_path: Path, monkeypatch):
    from fixture_migrate.files.root import lstat_held

    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    for name in ("a.json", "b.json"):
        (root / "evals" / name).write_text("{}\n")
    (root / "evals" / "c.json").symlink_to(root / "evals" / "a.json")
    pin_root(root)
    seen = []
    for path, _ in iter_files([root], root=root):  # the walk holds each directory while it yields its files
        plain = os.lstat(path)
        with monkeypatch.context() as patch:  # relative to the directory held: no lstat of the path
            patch.setattr(os, "lstat", lambda *args, **kwargs: pytest.fail("the whole path was resolved"))
            held = lstat_held(path)
        seen.append((path.name, (held.st_dev, held.st_ino, held.st_mode) == (plain.st_dev, plain.st_ino, plain.st_mode)))
    assert seen == [("a.json", True), ("b.json", True)]  # the symlink's target is walked itself
    assert lstat_held(root / "evals" / "b.json").st_ino == os.lstat(root / "evals" / "b.json").st_ino  # no walk
    assert stat.S_ISLNK(lstat_held(root / "evals" / "c.json").st_mode)  # the link itself, not followed
    with pytest.raises(OSError):
        lstat_held(root / "evals" / "gone.json")
