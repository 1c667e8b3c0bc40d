"""Pinned fixture files: the repository checks their bytes, so `migrate` leaves them alone.

A file is pinned when another tracked text file of the repository holds its sha256 or
sha1 hex digest, or its exact byte count on a line that names it (its base name). Such a
file is left byte-identical by `migrate` and named with the place that pins it
("pinned by `tests/ports.test.ts:40`"), unless `--include-pinned`. The files of the
tool's cache, when its directory lies inside the root and holds nothing else, are not
the repository's: they are never read.

The index is built once per run, and only when a run has a change to make: one pass
over the tracked text files (`git ls-files`, else a walk), keeping each 40- and 64-digit
hex string and each (base name, number) pair of a line. A run may build it first
(`PinIndex.build`) and learn from the same pass the bytes of every file it read, so that
a re-run whose cache holds a "would change" reads each file once, not twice.

What an index was built from is kept as one digest (`PinIndex.inputs`): the path and the
bytes' digest of every tracked file it read, in order. A run's record
(`fixture_migrate.migration.replay`) keeps it, and a re-run compares it with
`inputs_digest` of the repository as it is: the same digest, the same index.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from bisect import bisect_left
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fixture_migrate.files import beneath
from fixture_migrate.files.reads import READ_FLAGS, read_regular
from fixture_migrate.files.walk import SKIPPED_DIRS
from fixture_migrate.migration.engine import fingerprint  # noqa: F401 - re-exported: what a pin matches

MAX_TEXT_BYTES = 2 * 1024 * 1024
FEED_BUDGET = 100_000
"""How many digests and places `PinIndex.feed` keeps, at most, of what it found in the files
given to it (each costs some 100 bytes until the build): past it, it keeps none."""
_HEX = re.compile(rb"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{40})(?![0-9a-fA-F])")
_NAME = re.compile(rb"[\w.-]+\.(?:jsonl|json|ya?ml|py)\b")
_NUMBER = re.compile(rb"(?<![\w.])\d{1,12}(?![\w.])")


def _git_names(root: Path) -> list[bytes] | None:
    """The names `git ls-files -z` lists (relative to root, as git writes them: in the order
    of git's index, sorted by their bytes), or None where root holds no `.git` or git cannot
    list them."""
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    names = done.stdout.split(b"\0")
    if names and not names[-1]:
        names.pop()
    return names


def _named(root: Path, names: list[bytes]) -> Iterator[tuple[str, str]]:
    """`_tracked`'s pairs for the names git listed."""
    base = str(root)
    for name in names:
        if name:
            text = os.fsdecode(name)
            yield os.path.join(base, text), Path(text).as_posix()


def _tracked(root: Path) -> Iterator[tuple[str, str]]:
    """`(path, path relative to root, POSIX)` of each tracked file: `git ls-files`, else a walk
    (yielded as it goes, so a large repository's list is never held whole)."""
    names = _git_names(root)
    if names is not None:
        yield from _named(root, names)
        return
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        if names:
            below = Path(directory).relative_to(root).as_posix()
            prefix = "" if below == "." else below + "/"
            for name in sorted(names):
                yield os.path.join(directory, name), prefix + name


_HEX_SKETCH = bytes(104 if chr(b) in "0123456789abcdefABCDEF" else 46 for b in range(256))
_HEX_RUN = b"h" * 40
"""A file's bytes with every hex digit mapped to `h` (`bytes.translate`, one pass in C): a digest
(40 or 64 hex digits) can only be where the sketch holds 40 `h` in a row, which one substring
search finds; most files hold none and are never searched by the (slower) regex."""

_SUFFIX = re.compile(rb"\.(?:jsonl|json|ya?ml|py)\b")
"""The end of every `_NAME` (a regex led by a literal, which the engine finds fast): a line
without one names no file."""


def _line_breaks(data: bytes, start: int, end: int) -> int:
    """How many line breaks `data[start:end]` holds, as `bytes.splitlines` splits (`\n`, `\r`,
    `\r\n` once); `start` and `end` never fall inside a `\r\n`."""
    breaks = data.count(b"\n", start, end)
    if data.find(b"\r", start, end) >= 0:
        breaks += data.count(b"\r", start, end) - data.count(b"\r\n", start, end)
    return breaks


class TrackedReader:
    """Reads the tracked text files of one index build: `read(path)` gives the bytes of the
    regular file `path` (not a symlink, at most `MAX_TEXT_BYTES`), or None; also None when its
    real path lies outside `root` (a tracked name whose folder is now a symlink leading outside
    is not read there). Only a regular file is read: a pipe is opened without blocking (where
    the file is opened from the root in one call, its type is told by the descriptor; else an
    `lstat` comes first) and never read, so it never blocks the run. `close()` ends the build.

    Where the kernel can (`fixture_migrate.files.beneath`), the file is opened in one call from
    a descriptor of the real root, along its folder's real path (resolved once per folder),
    never through a symlink: a folder swapped for one since cannot lead the read outside.
    When that call fails, or where there is none, the file's own real path is resolved and
    checked right before it is opened, as for every file before.

    `direct` says of the last file read whether it was read at its own path, in the one call
    that opens below the root and follows no symlink, along `relative` (its POSIX path from
    the root) itself; `info` is then the `fstat` of what was read. (A file read on the
    slower path is not direct: a folder swapped between its checks and its open could lead
    elsewhere, which only the pins may risk.)"""

    def __init__(self, root: Path) -> None:
        real_root = os.path.realpath(root)
        self._inside = real_root.rstrip(os.sep) + os.sep
        self._folders: dict[str, str | None] = {}  # folder: its real path below the root + "/", or None
        self._root_fd = -1
        self.direct = False
        self.info: os.stat_result | None = None
        self.info: os.stat_result | None = None
        if beneath.available():
            try:
                self._root_fd = os.open(real_root, os.O_RDONLY | os.O_DIRECTORY | READ_FLAGS)
            except OSError:
                pass

    def close(self) -> None:
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    def read(self, path: str, relative: str) -> bytes | None:
        self.direct, self.info = False, None
        try:
            fd = None
            if self._root_fd >= 0:
                folder, _, name = path.rpartition(os.sep)
                below = self._folders.get(folder, "")
                if below == "":
                    real = os.path.realpath(folder or os.sep) + os.sep
                    below = self._folders[folder] = real[len(self._inside) :] if real.startswith(self._inside) else None
                if below is None:
                    return None  # a folder on its way is a symlink leading outside the root
                # No symlink on the way, the file itself included; a pipe opens without
                # blocking, and is never read (below).
                fd = beneath.open_beneath(self._root_fd, below + name, READ_FLAGS)
                direct = fd is not None and below + name == relative
            if fd is None:
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):
                    return None  # a symlink (or a pipe, a device): not read
                real = os.path.realpath(path)
                if not real.startswith(self._inside):
                    return None  # a folder on its way is now a symlink leading outside the root
                fd = os.open(real, READ_FLAGS)
                direct = False
            # Not a regular file (swapped since the `lstat`), or too large: None.
            found = read_regular(fd, MAX_TEXT_BYTES)
            if found is None:
                return None
            data, self.info = found
            self.direct = direct
            return data
        except OSError:
            return None


def scan(data: bytes, relative: str, digests: dict[str, str], sizes: dict[tuple[str, int], list[str]]) -> bool:
    """Add to `digests` (hex digest, lower case -> first `file:line`) and `sizes` ((base name,
    number) -> every `file:line`) what the text `data` of the file `relative` holds: each
    40- or 64-digit hex string, and each number on a line that names a fixture file.
    Returns whether it found any (what it found depends on `data` alone, but for the
    places, which name `relative`).

    The same as reading `data.splitlines()` line by line with `_HEX`, `_NAME` and `_NUMBER`
    (no match crosses a line break, and a line break is neither a hex digit nor a word
    character), with the regexes run only where a fast search says they can match."""
    held = False
    if _HEX_RUN in data.translate(_HEX_SKETCH):
        line, at = 1, 0
        for match in _HEX.finditer(data):
            line += _line_breaks(data, at, match.start())
            at = match.start()
            digests.setdefault(match.group().decode().lower(), f"{relative}:{line}")
            held = True
    found = _SUFFIX.search(data)
    line, at = 1, 0
    while found is not None:
        where = found.start()
        start = max(data.rfind(b"\n", 0, where), data.rfind(b"\r", 0, where)) + 1
        ends = [end for end in (data.find(b"\n", where), data.find(b"\r", where)) if end >= 0]
        end = min(ends) if ends else len(data)
        line += _line_breaks(data, at, start)
        at = start
        text = data[start:end]
        names = _NAME.findall(text)
        if names:
            for size in _NUMBER.findall(text):
                for name in names:
                    sizes.setdefault((name.decode("utf-8", "replace"), int(size)), []).append(f"{relative}:{line}")
                    held = True
        found = _SUFFIX.search(data, end)
    return held


class _CacheFolder:
    """Whether a tracked file is one of the cache's own (`in_it(relative)`): it lies in the
    cache's directory (`fixture_migrate.migration.cache.cache_dir`) inside the root, and
    that directory holds only the cache's files (`cache.usable`, asked the first time a
    file lies there). Those files are the tool's, rewritten by every run: never the
    repository's text, so never read for pins. A folder named for the cache that holds
    anything else is the repository's, read as any."""

    def __init__(self, root: Path) -> None:
        from fixture_migrate.migration.cache import cache_dir

        self._root = root
        self._directory = cache_dir(root)
        found = os.path.relpath(os.path.realpath(self._directory), os.path.realpath(root))
        outside = found == os.curdir or found == os.pardir or found.startswith(os.pardir + os.sep)
        self._prefix = None if outside else found.replace(os.sep, "/") + "/"
        self._ours: bool | None = None

    def in_it(self, relative: str) -> bool:
        if self._prefix is None or not relative.startswith(self._prefix):
            return False
        if self._ours is None:
            from fixture_migrate.migration.cache import usable

            self._ours = usable(self._directory, self._root) == "ours"
        return self._ours


def _input(relative: str, content_digest: bytes | None) -> bytes:
    """What one tracked file adds to an index's `inputs`: its path (no NUL in it), then its
    bytes' digest, or a mark that it was not read (a symlink, too large, gone)."""
    return os.fsencode(relative) + (b"\0\1" + content_digest if content_digest is not None else b"\0\2")


def inputs_digest(root: Path, known: dict[str, bytes]) -> bytes:
    """The `PinIndex.inputs` an index of `root` built now would have (16 bytes), without
    scanning anything: each tracked file read as the index reads it, but for the files in
    `known` (POSIX path from the root -> the digest of its bytes), read just before by the
    caller at that very path, below the root and through no symlink, as the index reads them."""
    from xxhash import xxh3_128, xxh3_128_digest

    inputs = xxh3_128()
    pending: list[bytes] = []  # hashed a few hundred at a time: one call, not one a file
    cache = _CacheFolder(root)
    reader = TrackedReader(root)
    try:
        for path, relative in _tracked(root):
            if cache.in_it(relative):
                continue
            found = known.get(relative)
            if found is None:
                data = reader.read(path, relative)
                found = None if data is None else xxh3_128_digest(data)
            pending.append(_input(relative, found))
            if len(pending) >= 512:
                inputs.update(b"".join(pending))
                pending.clear()
    finally:
        reader.close()
    inputs.update(b"".join(pending))
    return inputs.digest()


class PinIndex:
    """The digests and (name, size) pairs the repository's text files hold, with where.

    `root` is the repository root; the index is read on first use (`pinned_by`), or when
    `build` is called. With `keep_inputs` set before, the build keeps `inputs`: the digest
    of what it read (`inputs_digest`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._digests: dict[str, str] | None = None
        self._sizes: dict[tuple[str, int], list[str]] = {}
        self.keep_inputs = False  # whether a build keeps `inputs` (a run's record needs them)
        self.inputs: bytes | None = None  # what the index was built from (`inputs_digest`), once built so
        # What `feed` was given, per POSIX path from the root: whether the bytes were within
        # `MAX_TEXT_BYTES`, their digest (with `keep_inputs`), and what `scan` found in them.
        self._fed: dict[str, tuple[bool, bytes | None, tuple[dict[str, str], dict[Any, list[str]]] | None]] = {}
        self._fed_found = 0  # the digests and places those hold, all together
        self._git: list[bytes] | None = None  # what git lists (None: no git; any name may be tracked)
        self._git_known = False  # whether `_git` was asked for (by the first `feed`)
        self._feeding = True  # False once `feed` gave up (`FEED_BUDGET`)

    def feed(self, relative: str, data: bytes) -> None:
        """Learn, before the index is built, the bytes `data` of the file at `relative` (POSIX,
        from the root), read by the caller in one call that opens below the root and follows no
        symlink, along that very path (`fixture_migrate.files.root.last_beneath`): the read the
        build makes of a tracked file there. The build takes them for that file (if it is
        tracked) instead of reading it; what they add to the index is the same, in the same
        place of its order. Ignored once the index is built, for a file git does not track
        (the names `git ls-files` gives at the first call, which the build then reads its
        files from), and once what it found in the files given exceeds `FEED_BUDGET` digests
        and places: it then drops them all, and the build reads those files as any."""
        if self._digests is not None or not self._feeding:
            return
        if not self._git_known:
            self._git, self._git_known = _git_names(self.root), True  # the build lists these
        if self._git is not None:
            name = os.fsencode(relative)
            at = bisect_left(self._git, name)
            if at == len(self._git) or self._git[at] != name:
                return  # git does not track it (or lists it out of order): the build reads it
        if len(data) > MAX_TEXT_BYTES:
            self._fed[relative] = (False, None, None)  # the build would not read it either
            return
        digest = None
        if self.keep_inputs:
            from xxhash import xxh3_128_digest

            digest = xxh3_128_digest(data)
        found = None
        if data.find(b"\0", 0, 8192) < 0:
            digests: dict[str, str] = {}
            sizes: dict[tuple[str, int], list[str]] = {}
            if scan(data, relative, digests, sizes):
                found = (digests, sizes)
                self._fed_found += len(digests) + sum(map(len, sizes.values()))
                if self._fed_found > FEED_BUDGET:
                    # Many digests or sizes in the files read: past the budget, what was
                    # given is dropped and the build reads those files itself.
                    self._fed.clear()
                    self._feeding = False
                    return
        self._fed[relative] = (True, digest, found)

    def build(
        self,
        on_read: Callable[[str, bytes, os.stat_result], bool] | None = None,
        on_nothing: Callable[[str], object] | None = None,
    ) -> None:
        """Read the index now (again, if it was read).

        `on_read(relative, data, info)` is called for each file read at its own path
        (`relative`: POSIX, from the root; `data`: its bytes, at most `MAX_TEXT_BYTES`;
        `info`: the `fstat` of the file read; a file reached through a symlink, or read where
        the kernel cannot open it below the root in one call, is not given), so the caller
        can learn from the same read what it would read the file for; it returns True when it
        knows those bytes hold nothing that could pin a file (nothing `scan` would find), and
        they are not scanned. For such a file whose bytes add nothing to the index (scanned
        and holding nothing, or not text: a NUL in its first 8 KiB), `on_nothing(relative)`
        is called."""
        self._sizes = {}
        self._digests = self._build(on_read, on_nothing)

    def _build(
        self,
        on_read: Callable[[str, bytes, os.stat_result], bool] | None = None,
        on_nothing: Callable[[str], object] | None = None,
    ) -> dict[str, str]:
        digests: dict[str, str] = {}
        inputs = None
        if self.keep_inputs:
            from xxhash import xxh3_128, xxh3_128_digest  # here: most runs keep no inputs

            inputs = xxh3_128()
        cache = _CacheFolder(self.root)
        reader = TrackedReader(self.root)
        fed, self._fed = self._fed, {}
        # The names git listed at the first `feed`, the moment the index is made of (where
        # it is built at a run's first change, this is when it listed them).
        names, self._git, self._git_known = self._git, None, False
        try:
            for path, relative in _tracked(self.root) if names is None else _named(self.root, names):
                if cache.in_it(relative):
                    continue  # the tool's own files
                given_before = fed.pop(relative, None) if fed else None
                if given_before is not None and inputs is not None and given_before[0] and given_before[1] is None:
                    given_before = None  # fed before `keep_inputs` was set: no digest kept, read again
                if given_before is not None:  # read by the caller already (`feed`)
                    read, digest, found = given_before
                    if inputs is not None:
                        inputs.update(_input(relative, digest if read else None))
                    if found is not None:  # merged as `scan` adds them: the first place of a digest wins
                        for hex_digest, place in found[0].items():
                            digests.setdefault(hex_digest, place)
                        for pair, places in found[1].items():
                            self._sizes.setdefault(pair, []).extend(places)
                    continue
                data = reader.read(path, relative)
                if inputs is not None:
                    inputs.update(_input(relative, None if data is None else xxh3_128_digest(data)))
                if data is None:
                    continue
                given = on_read is not None and reader.direct
                if given and on_read(relative, data, reader.info):  # type: ignore[misc]
                    continue  # known to pin nothing
                if data.find(b"\0", 0, 8192) < 0 and scan(data, relative, digests, self._sizes):
                    continue
                if given and on_nothing is not None:
                    on_nothing(relative)
        finally:
            reader.close()
        self.inputs = None if inputs is None else inputs.digest()
        return digests

    def pinned_by(self, path: Path, print_: tuple[int, str, str]) -> str | None:
        """Where the repository pins the file `path` whose bytes have the `fingerprint`
        `print_` (`file:line`), or None."""
        if self._digests is None:
            self._digests = self._build()
        size, sha1, sha256 = print_
        candidates = [self._digests.get(sha256), self._digests.get(sha1), *self._sizes.get((path.name, size), ())]
        if not any(candidates):
            return None  # pinned nowhere: the file's own name in the repository is not needed
        try:
            own = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            own = path.as_posix()
        for place in candidates:
            if place is not None and place.rsplit(":", 1)[0] != own:
                return place
        return None
