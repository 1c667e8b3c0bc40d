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
