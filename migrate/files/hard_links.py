"""The names of a hard-linked file inside the repo root (`HardLinks`), so that a write
re-points every one of them.

Hard links: renaming over one name of a file with several hard links would
leave the other names holding the old content. POSIX has no way to replace an
inode's content atomically, and overwriting it in place has a window (and,
after a crash, a result) where it is half written. So every name of the inode
is re-pointed instead: the new content is written once to a temporary file,
hard-linked under a temporary name beside every other name, and each name is
then renamed over, one atomic `os.replace` each. At every instant each name
holds the whole old or the whole new file, never part of one; afterwards all
names are hard links of one new inode again, holding the migrated bytes. The
names are found by scanning the repo root (`HardLinks`); when some name lies
outside it (the link count is higher than the names found), the file is refused
(`hard_link_outside_repo`) rather than splitting the group. A crash between two
renames leaves some names old and some new, each whole; running again migrates
the old ones. A hard-linked group gets the checks before the renames, not the
one after (step 5).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.root import _same_file


class HardLinks:
    """Finds every name of a hard-linked file under a repo root.

    The root is scanned once, on the first question, without following symlinks
    or crossing into other file systems (where no hard link can be); each answer
    is checked against the current inode, and the scan is redone once when names
    seem to be missing (a link made after the scan).
    """

    def __init__(self, root: Path) -> None:
        self.root = os.path.realpath(root)
        self._index: dict[tuple[int, int], list[str]] | None = None

    def names(self, target: Path, info: os.stat_result) -> list[str]:
        """All names of `target`'s inode (`info` its stat), `target` first.

        Raises `FixtureError` (`hard_link_outside_repo`) when fewer than its
        `st_nlink` names lie under the root.
        """
        found = self._lookup(info)
        if len(found) < info.st_nlink:
            self._index = None
            found = self._lookup(info)
        if len(found) < info.st_nlink:
            raise FixtureError(
                f"refused: it has {info.st_nlink} hard links and only {len(found)} lie under the repo root; "
                "rewriting it would leave the others behind",
                code="hard_link_outside_repo",
            )
        own = str(target)
        return [own] + [name for name in found if name != own]

    def _lookup(self, info: os.stat_result) -> list[str]:
        if self._index is None:
            self._index = self._scan()
        names = []
        for name in self._index.get((info.st_dev, info.st_ino), []):
            try:
                now = os.lstat(name)
            except OSError:
                continue
            if _same_file(now, info):
                names.append(name)
        return names

    def _scan(self) -> dict[tuple[int, int], list[str]]:
        index: dict[tuple[int, int], list[str]] = {}
        try:
            device = os.stat(self.root).st_dev
        except OSError:
            return index
        for entry in _entries(self.root, device):
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                index.setdefault((info.st_dev, info.st_ino), []).append(entry.path)
        return index


def _entries(root: str, device: int) -> Iterator[os.DirEntry[str]]:
    """Every entry under `root` that is not a directory, on `device`, symlinks not followed."""
    stack = [root]
    while stack:
        try:
            with os.scandir(stack.pop()) as listing:
                for entry in listing:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.stat(follow_symlinks=False).st_dev == device:
                                stack.append(entry.path)
                        else:
                            yield entry
                    except OSError:
                        continue
        except OSError:
            continue
