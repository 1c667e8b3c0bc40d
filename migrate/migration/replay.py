"""A run's record: a re-run of `migrate --check` over an unchanged tree replays it.

The cache (`fixture_migrate.migration.cache`) spares a re-run the planning of each file,
but it still makes and reports an outcome per file. A check run whose every input is the
same as the run before it can only print what that run printed and end with its exit
code; a record of that run lets it do so after reading and hashing every input, and
nothing else.

A record is written beside the cache file it goes with (`<key>.run` beside
`<key>.cache`: the same tool, adapters, parsers and configuration), by a run that
qualifies (below), and it holds:

- the invocation: a digest of the merged options and paths of the run, the working
  directory, the environment variables the tool or its output read, and the encodings
  of the two output streams (`invocation`);
- the inputs: per file of the run, in its order, the 16-byte digest its outcome is of
  (its bytes, and what else of the file system its verdict read: where a symlink leads,
  the markers on its way; `cache.entry_digest`), and one digest of the paths of those files as the walk gave them, in
  that order (`Inputs`); and, when the run built the index of pinned files, that index's
  inputs (every tracked file's path and bytes, `fixture_migrate.consumers.pins.inputs_digest`);
- what the run wrote on stdout and stderr, in order, and its exit code.

A re-run with the same invocation walks the tree as a run does (the same walk, ignore
rules and selection), reads every file below the root and hashes it, compares each
digest with the record's as it goes (it stops at the first that differs), then reads
the index's inputs when the record has them; only when everything is the same does it
write the recorded output and exit with the recorded code. Anything else, and it runs as
usual. Since every byte a verdict depends on is read and compared, a replay is exactly
what the run would print: the verdict of a file depends on its path, its bytes and the
cache key (the cache's own rule), a pin on the index's inputs, the run's output on its
outcomes and the invocation.

A run qualifies for a record only where that holds by construction: `--check` without
`--diff` (it writes nothing), the cache on, neither stdout nor stderr a terminal (no
progress bar, no colour: the output is the same bytes each time), every file's verdict
one the cache keeps (`cache.CACHEABLE`) or a file left unclaimed or to another tool (no
error, no skipped file, no JSON Lines file renamed), no worker process started, and the
output valid text under `MAX_OUTPUT_CHARS`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
from fixture_migrate.errors import FixtureError
from fixture_migrate.files import beneath
from fixture_migrate.files.paths import relative_source
from fixture_migrate.files.reads import READ_FLAGS, read_regular
from fixture_migrate.formats.limits import MAX_FILE_BYTES
from fixture_migrate.migration.cache import RECORD_MAGIC_PREFIX
from fixture_migrate.slots import Record
from xxhash import xxh3_128_digest

MAGIC = RECORD_MAGIC_PREFIX + b"1\n"
"""The first line of a record file: a file without it is not a record of this format."""

MAX_OUTPUT_CHARS = 8 * 1024 * 1024
"""The most output a record keeps; a run that printed more is not recorded."""

STDOUT, STDERR, STDOUT_BYTES = 1, 2, 3
"""The kinds of an output event: text written to stdout, text to stderr, bytes to
stdout's binary buffer (kept decoded as UTF-8)."""

ENVIRONMENT = ("NO_COLOR", "TERM", "GITHUB_ACTIONS", "FORCE_COLOR", "COLUMNS")
"""The environment variables the output may depend on, besides every `FIXTURE_MIGRATE_*`
one (the size limits, the cache directory)."""


def invocation(values: dict[str, Any], paths: Iterable[Path], streams: Iterable[Any]) -> bytes:
    """The digest (16 bytes) of what a run's output depends on besides its inputs: the
    merged option `values` of the subcommand (name -> value), the `paths` as named, the
    working directory, the environment variables `ENVIRONMENT` and `FIXTURE_MIGRATE_*`,
    the encoding and error handler of each of the output `streams`, and the file system's
    encoding and error handler."""
    environment = sorted(
        (name, value) for name, value in os.environ.items() if name in ENVIRONMENT or name.startswith("FIXTURE_MIGRATE_")
    )
    parts = [
        sorted(values.items()),
        [str(path) for path in paths],
        os.getcwd(),
        environment,
        [[getattr(stream, "encoding", None), getattr(stream, "errors", None)] for stream in streams],
        # How a file name's bytes become the text printed (a name not in UTF-8, say).
        [sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()],
    ]
    return xxh3_128_digest(orjson.dumps(parts, default=str))


class _Paths:
    """The digest of a sequence of paths (each as the walk gave it, then a NUL), taken a few
    hundred paths at a time: one hash call, not one a file, and no list of every path."""

    __slots__ = ("_hash", "_pending")

    def __init__(self) -> None:
        from xxhash import xxh3_128

        self._hash = xxh3_128()
        self._pending: list[str] = []

    def add(self, path: str) -> None:
        pending = self._pending
        pending.append(path)
        if len(pending) >= 512:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._pending.append("")
            self._hash.update(os.fsencode("\0".join(self._pending)))
            self._pending.clear()

    def digest(self) -> bytes:
        self._flush()
        return self._hash.digest()


class Inputs:
    """The inputs of a run as it goes: `add` each file's outcome, in order; `entries` (the
    digests of the files' bytes, 16 bytes each) is None once an outcome made the run one
    that cannot be recorded (see the module); `paths()` the digest of the files' paths."""

    __slots__ = ("entries", "_paths", "_recordable")

    def __init__(self) -> None:
        from fixture_migrate.migration.cache import CACHEABLE
        from fixture_migrate.migration.status import Status

        self.entries: bytearray | None = bytearray()
        self._paths = _Paths()
        # The cache's verdicts, and those it does not keep only for want of room in an
        # entry (a family, a rule, the tool to import with), decided by the same facts.
        self._recordable = frozenset((*CACHEABLE, Status.UNCLAIMED, Status.OTHER_TOOL))

    def add(self, result: Any) -> None:
        """Add the file of `result` (a `FileResult`) as planned, before the run settles it:
        its status must be a verdict the cache keeps (`cache.CACHEABLE`), or a file left
        unclaimed or to another tool, of known bytes; never an error (an unreadable file, a
        file that does not parse: its run is not recorded), never a JSON Lines file renamed
        (whether its new name is free is no input)."""
        entries = self.entries
        if entries is None:
            return
        if result.digest is None or result.status not in self._recordable or result.new_path is not None:
            self.entries = None
            return
        entries += result.digest
        self._paths.add(str(result.path))

    def paths(self) -> bytes:
        """The digest of the paths of the files added, in order."""
        return self._paths.digest()


class RunRecord(Record):
    """A recorded run: its `invocation` digest, the `entries` of its files (the digests of
    their bytes, 16 bytes each, in order), the digest of their `paths`, the `pins` inputs
    digest of the index of pinned files it built (or None), its `output` (a list of
    `[kind, text]`, kinds `STDOUT`, `STDERR`, `STDOUT_BYTES`) and its `exit_code`."""

    __slots__ = ("invocation", "entries", "paths", "pins", "output", "exit_code")

    def __init__(
        self,
        invocation: bytes,
        entries: bytes,
        paths: bytes,
        pins: bytes | None,
        output: list[list[Any]],
        exit_code: int,
    ) -> None:
        self.invocation = invocation
        self.entries = entries
        self.paths = paths
        self.pins = pins
        self.output = output
        self.exit_code = exit_code

    def dump(self) -> bytes:
        """The record file's bytes: `MAGIC`, a line with the checksum (XXH3-128, hex) of the
        rest, a JSON header line, the entries. Raises `TypeError` (orjson's
        `JSONEncodeError`) for output that is not valid text."""
        header = {
            "invocation": self.invocation.hex(),
            "files": len(self.entries) // 16,
            "paths": self.paths.hex(),
            "pins": None if self.pins is None else self.pins.hex(),
            "exit_code": self.exit_code,
            "output": self.output,
        }
        body = orjson.dumps(header) + b"\n" + self.entries
        return MAGIC + xxh3_128_digest(body).hex().encode() + b"\n" + body

    @classmethod
    def load(cls, raw: bytes) -> RunRecord | None:
        """The record of a record file's bytes, or None when they are not one (missing,
        corrupt, truncated, of another format)."""
        if not raw.startswith(MAGIC):
            return None
        start = len(MAGIC) + 33  # the checksum line: 32 hex digits and a line break
        if raw[start - 1 : start] != b"\n" or raw[len(MAGIC) : start - 1] != xxh3_128_digest(raw[start:]).hex().encode():
            return None  # damaged (a write cut short, a flipped byte): never replayed
        end = raw.find(b"\n", start)
        if end < 0:
            return None
        try:
            header = orjson.loads(raw[start:end])
            entries = raw[end + 1 :]
            if not isinstance(header, dict) or len(entries) != 16 * header["files"]:
                return None
            output = header["output"]
            valid = isinstance(output, list) and all(
                isinstance(event, list)
                and len(event) == 2
                and event[0] in (STDOUT, STDERR, STDOUT_BYTES)
                and isinstance(event[1], str)
                for event in output
            )
            code = header["exit_code"]
            if not valid or type(code) is not int:
                return None
            pins = None if header["pins"] is None else bytes.fromhex(header["pins"])
            return cls(bytes.fromhex(header["invocation"]), entries, bytes.fromhex(header["paths"]), pins, output, code)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None


def same_inputs(record: RunRecord, files: Iterable[tuple[Path, FixtureError | None]], root: Path) -> bool:
    """Whether the run's inputs are still those of `record`: `files` the run's files as
    the walk gives them (`(path, error)`), `root` the repo root. It stops at the first file
    that differs. Where the kernel has no `openat2`, never (a replay needs it).

    Each file is opened in one call from the root along its path below it, never through
    a symlink (`fixture_migrate.files.beneath`: inside the root at the moment of the call),
    as the index of pinned files opens it; where that cannot be (no such call, a `..` or a
    symlink on the way, no regular file), the inputs are not the same: where such a path
    leads decides its verdict and its pin as well, and the run decides. With the record's
    `pins`, the inputs of the index are read too (`fixture_migrate.consumers.pins.inputs_digest`),
    each file opened so above (and within the index's size limit) not again."""
    from fixture_migrate.claiming.territory import forget_places, place_facts
    from fixture_migrate.consumers import pins
    from fixture_migrate.migration.cache import entry_digest

    forget_places()  # the markers on each file's way, as they are now
    entries = record.entries
    known: dict[str, bytes] | None = {} if record.pins is not None else None
    root_fd = -1
    if beneath.available():
        try:
            root_fd = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            root_fd = -1
    # Per folder: the POSIX path from the root its files' names follow (a run's files lie
    # in a few folders), or None for a folder spelled with `..` (after a symlinked folder
    # it leads elsewhere: the run's own read decides those); and the markers on its way
    # (`place_facts` of a file of it that is no symlink).
    folders: dict[str, tuple[str | None, str]] = {}
    paths = _Paths()
    count = 0
    try:
        for path, error in files:
            at = count * 16
            count += 1
            if error is not None or at + 16 > len(entries):
                return False
            text = str(path)
            folder, _, name = text.rpartition("/")
            known_folder = folders.get(folder)
            if known_folder is None:
                relative = relative_source(path, root)
                exact = relative == name or relative.endswith("/" + name)
                climbs = ".." in folder.split("/") or name in ("", ".", "..") or not exact
                prefix = None if climbs else relative[: len(relative) - len(name)]
                known_folder = folders[folder] = (prefix, place_facts(text, root, link=False))
            prefix, facts = known_folder
            data = None
            if prefix is not None and root_fd >= 0:
                fd = beneath.open_beneath(root_fd, prefix + name, READ_FLAGS)
                if fd is not None:
                    found_read = read_regular(fd, MAX_FILE_BYTES)  # a file over it is an error of the run
                    data = None if found_read is None else found_read[0]
            if data is not None:
                found = xxh3_128_digest(data)
                if known is not None and len(data) <= pins.MAX_TEXT_BYTES:
                    known[prefix + name] = found  # type: ignore[operator]
                if facts:  # opened through no symlink: no symlink itself, so its folder's facts
                    found = entry_digest(found, facts)
            else:
                # Not opened below the root along its own path: a symlink on its way (or a
                # `..`, or a file the pin index would not read). Where such a path leads
                # decides more than its bytes and markers say (a pin of the file itself is
                # told from its real path): such a run is run, never replayed.
                return False
            if found != entries[at : at + 16]:
                return False
            paths.add(text)
    finally:
        if root_fd >= 0:
            os.close(root_fd)
    if count * 16 != len(entries) or paths.digest() != record.paths:
        return False
    return known is None or pins.inputs_digest(root, known) == record.pins
