"""Pinned fixture files: the repository checks their bytes, so `migrate` leaves them alone.

A file is pinned when another tracked text file of the repository holds its sha256 or
sha1 hex digest, or its exact byte count on a line that names it (its base name). Such a
file is left byte-identical by `migrate` and named with the place that pins it
("pinned by `tests/ports.test.ts:40`"), unless `--include-pinned`.

The index is built once per run, and only when a run has a change to make: one pass
over the tracked text files (`git ls-files`, else a walk), keeping each 40- and 64-digit
hex string and each (base name, number) pair of a line.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.migration.engine import fingerprint  # noqa: F401 - re-exported: what a pin matches
from fixture_migrate.files.walk import SKIPPED_DIRS

MAX_TEXT_BYTES = 2 * 1024 * 1024
_HEX = re.compile(rb"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{40})(?![0-9a-fA-F])")
_NAME = re.compile(rb"[\w.-]+\.(?:jsonl|json|ya?ml|py)\b")
_NUMBER = re.compile(rb"(?<![\w.])\d{1,12}(?![\w.])")


def _tracked(root: Path) -> list[Path]:
    if (root / ".git").exists():
        try:
            done = subprocess.run(
                ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, timeout=60, check=True
            )
            return [root / os.fsdecode(name) for name in done.stdout.split(b"\0") if name]
        except (OSError, subprocess.SubprocessError):
            pass
    found = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        found.extend(Path(directory) / name for name in sorted(names))
    return found


class PinIndex:
    """The digests and (name, size) pairs the repository's text files hold, with where.

    `root` is the repository root; the index is read on first use (`pinned_by`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._digests: dict[str, str] | None = None
        self._sizes: dict[tuple[str, int], list[str]] = {}

    def _build(self) -> dict[str, str]:
        digests: dict[str, str] = {}
        for path in _tracked(self.root):
            try:
                if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_TEXT_BYTES:
                    continue
                # Under the root rule (a tracked name whose folder is now a symlink leading
                # outside is not read there), bounded, never waiting on a pipe.
                data = read_fixture(path, limit=MAX_TEXT_BYTES, root=self.root)
            except (OSError, FixtureError):
                continue
            if b"\0" in data[:8192]:
                continue
            relative = path.relative_to(self.root).as_posix()
            for number, line in enumerate(data.splitlines(), 1):
                for match in _HEX.finditer(line):
                    digests.setdefault(match.group().decode().lower(), f"{relative}:{number}")
                names = _NAME.findall(line)
                if names:
                    for size in _NUMBER.findall(line):
                        for name in names:
                            self._sizes.setdefault((name.decode("utf-8", "replace"), int(size)), []).append(
                                f"{relative}:{number}"
                            )
        return digests

    def pinned_by(self, path: Path, print_: tuple[int, str, str]) -> str | None:
        """Where the repository pins the file `path` whose bytes have the `fingerprint`
        `print_` (`file:line`), or None."""
        if self._digests is None:
            self._digests = self._build()
        size, sha1, sha256 = print_
        try:
            own = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            own = path.as_posix()
        for digest in (sha256, sha1):
            place = self._digests.get(digest)
            if place is not None and place.rsplit(":", 1)[0] != own:
                return place
        for place in self._sizes.get((path.name, size), ()):
            if place.rsplit(":", 1)[0] != own:
                return place
        return None
