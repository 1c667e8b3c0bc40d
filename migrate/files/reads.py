"""Bounded reads under the root rule: `read_fixture(path, limit=..., root=...)`, the bytes
of a regular file, and `read_head(path, size, root=...)`, its first bytes.

Reads (`read_fixture`): only a regular file is read (a named pipe or a device
named `*.json` is refused, never waited on), and at most `limit` bytes: a larger
file is refused before any of it is read, so memory stays bounded. The limits are those of `fixture_migrate.formats.limits`; the file is opened
under the root rule of `fixture_migrate.files.root`. Errors: `io`, `not_regular`,
`too_large`, and those of the root rule.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.root import _READ_FLAGS, _open_for_reading, _reason, check_inside
from fixture_migrate.files.root import _directory_inside as directory_inside
from fixture_migrate.formats import limits, syntax_of
from fixture_migrate.formats.limits import SizeLimit

READ_FLAGS = _READ_FLAGS
"""How the callers of `read_regular` open a file: the root rule's flags (no blocking on a
pipe, no inherited descriptor)."""


def _read_all(fd: int, limit: SizeLimit) -> bytes:
    """All bytes of the regular file `fd`, just opened, at most `limit.bytes`."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise FixtureError("not a regular file (a directory, pipe, socket or device): not read", code="not_regular")
    if info.st_size > limit.bytes:
        raise limit.refusal(info.st_size)
    chunks: list[bytes] = []
    remaining = limit.bytes + 1
    # The first read asks for more than the file holds, so that a short read tells its end:
    # for 64 KiB, or one byte more than its size, not for a 1 MiB buffer a small file would
    # leave mostly unused (allocating one, and shrinking it, costs four times what reading a
    # small file does).
    wanted = min(remaining, max(info.st_size + 1, 1 << 16), 1 << 20)
    while remaining > 0:
        chunk = os.read(fd, wanted)
        if not chunk:
            break
        if not chunks and len(chunk) == info.st_size < wanted:
            # Fewer bytes than asked from a regular file, as many as its size: its end was
            # reached (no second read to find it out).
            return chunk
        chunks.append(chunk)
        remaining -= len(chunk)
        wanted = min(remaining, 1 << 20)
    if remaining <= 0:
        raise limit.refusal(limit.bytes + 1 - remaining, grew=True)
    return b"".join(chunks)


def _reread(fd: int, size_hint: int) -> bytes:
    """The bytes of the open file `fd` from its start (for comparisons: at most
    `size_hint + 1` bytes are needed to tell a change)."""
    chunks: list[bytes] = []
    offset = 0
    wanted = size_hint + 1
    while offset < wanted:
        chunk = os.pread(fd, min(wanted - offset, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def read_fixture(path: Path, *, limit: int | SizeLimit | None = None, root: Path | None = None) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (default `limits.MAX_FILE_BYTES`).

    With `root`, the root rule holds (`resolve_target`, then the file is opened relative to
    its directory opened by `open_directory`, never through a symlink swapped in meanwhile).

    Raises `FixtureError`: `io` when it cannot be opened or read (gone, no
    permission), `not_regular` for a directory, pipe, socket or device (opened
    without blocking, never read), `too_large` when it holds more than `limit`
    bytes (decided from its size before reading; a file that grows while it is
    read is cut off at `limit + 1` bytes and refused the same way), and with `root`
    `symlink_outside_repo` / `changed_meanwhile` as `open_directory` raises them.
    """
    if not isinstance(limit, SizeLimit):
        limit = SizeLimit(limits.MAX_FILE_BYTES if limit is None else limit)
    fd = _open_for_reading(path, root)
    try:
        return _read_all(fd, limit)
    except OSError as exc:
        raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    finally:
        os.close(fd)


def read_regular(fd: int, limit: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes of the file open as `fd` (closed here) and its `fstat`, or None when it is
    not a regular file, holds more than `limit` bytes, or cannot be read. Open it without
    blocking: a pipe is never read."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = os.read(fd, info.st_size + 1)  # its size plus one byte tells a file that grew since
        while len(data) > info.st_size and len(data) <= limit:
            more = os.read(fd, limit + 1 - len(data))
            if not more:
                break
            data += more
        return (data, info) if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


class RunReads:
    """The reads of one run under the repo `root`: `read(path)` is `check_inside` (with
    `root_given`), then `read_fixture` with the file's `limit_for`; raises `FixtureError`
    as they do.

    What does not change within a run is worked out once: the lexical root test of an
    absolute path is a function of its directory alone (judged once per directory; a
    relative path is judged every time, its working directory may change), and a size
    limit is one per syntax (its environment variable read once per run)."""

    __slots__ = ("root", "root_given", "_inside", "_limits")

    def __init__(self, root: Path | None, *, root_given: bool = False) -> None:
        self.root = root
        self.root_given = root_given
        self._inside: set[str] = set()
        self._limits: dict[str | None, SizeLimit] = {}  # per syntax (None: none)

    def read(self, path: Path) -> bytes:
        root = self.root
        text = os.fspath(path)
        directory, _, name = text.rpartition(os.sep)
        plain = name not in ("", os.curdir, os.pardir)  # a name that stays in its directory
        if not (plain and directory in self._inside):
            check_inside(path, root, root_given=self.root_given)
            # Remembered only when the directory itself is inside (the root's own path passes
            # `check_inside` too, its directory being the root's parent).
            if (
                plain
                and directory
                and self.root_given
                and root is not None
                and os.path.isabs(text)
                and os.path.isabs(root)
                and directory_inside("", directory, os.fspath(root))
            ):
                self._inside.add(directory)
        return read_fixture(path, limit=self.limit(path) if plain else limits.limit_for(path), root=root)

    def limit(self, path: Path | str) -> SizeLimit:
        """`limits.limit_for(path)`, looked up once per syntax in a run (`path` names a file;
        its suffix decides)."""
        syntax = syntax_of(path)  # what `limit_for` decides by
        limit = self._limits.get(syntax)
        if limit is None:
            limit = self._limits[syntax] = limits.limit_for(path)
        return limit


def read_head(path: Path, size: int, *, root: Path | None = None) -> bytes:
    """The first `size` bytes (at most) of the regular file `path`, whatever its length;
    opened as `read_fixture` opens it. Raises `FixtureError` as `read_fixture` does, but
    never `too_large`."""
    fd = _open_for_reading(path, root)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FixtureError("not a regular file (a directory, pipe, socket or device): not read", code="not_regular")
        return os.read(fd, size)
    except OSError as exc:
        raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    finally:
        os.close(fd)
