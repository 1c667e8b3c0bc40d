"""The pin index reads only below the repo root: a tracked file's folder swapped for a
symlink leading outside the root while the index is built is not read through."""

from __future__ import annotations

import os
from pathlib import Path

from fixture_migrate.consumers import pins


def test_a_folder_swapped_for_a_symlink_outside_during_the_build_is_not_read(tmp_path: Path, monkeypatch):
    root = tmp_path / "repo"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "1.txt").write_text("nothing here\n")
    (root / "notes" / "2.txt").write_text("nothing here either\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    digest = "ab" * 32
    (outside / "2.txt").write_text(digest + "\n")  # outside the root: never read
    tracked = pins._tracked

    def swapping(base: Path):
        for index, item in enumerate(tracked(base)):
            if index == 1:  # after the first file of `notes` was read
                os.rename(root / "notes", tmp_path / "moved")
                os.symlink(outside, root / "notes")
            yield item

    monkeypatch.setattr(pins, "_tracked", swapping)
    index = pins.PinIndex(root)
    assert index.pinned_by(root / "x.json", (5, "0" * 40, digest)) is None


def test_a_tracked_pipe_or_symlink_is_never_read(tmp_path: Path, monkeypatch):
    """A pipe among the tracked files neither blocks the build nor is read; a symlink (to a
    file inside the root that pins) is not read through: only the file itself pins."""
    root = tmp_path / "repo"
    root.mkdir()
    digest = "cd" * 32
    (root / "real.txt").write_text(digest + "\n")
    os.symlink(root / "real.txt", root / "link.txt")
    os.mkfifo(root / "pipe.txt")
    tracked = [(str(root / name), name) for name in ("pipe.txt", "link.txt", "real.txt")]
    monkeypatch.setattr(pins, "_tracked", lambda base: iter(tracked))
    given: list[str] = []
    index = pins.PinIndex(root)
    index.build(on_read=lambda relative, data, info: given.append(relative) or False)
    assert given == ["real.txt"]
    assert index.pinned_by(root / "x.json", (5, "0" * 40, digest)) == "real.txt:1"
