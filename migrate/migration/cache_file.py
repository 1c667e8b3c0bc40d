"""The entries of a cache file (`fixture_migrate.migration.cache`): held compact, read in bounded
chunks, written one entry a line.

On disk an entry is, in a JSON object: `relative path: [digest hex, status, adapter names,
cases, first changed line, fields moved to extensions per adapter, reason, pins nothing]`,
the last a bool: whether the pin index (`fixture_migrate.consumers.pins`) found nothing in
those bytes that could pin a file (False when not known). This module writes the object
one entry a line (still one JSON document, which any JSON reader reads), a piece at a
time (`dump_chunks`), and reads a file of that layout a few thousand lines at a time, so
the whole document is never parsed into objects at once. In memory an entry is one
integer (its 128-bit digest and the number of its verdict) under its path, and each
distinct verdict (the entry less its digest: most files of a tree share a few) is kept
once. An entry that does not fit that form (a digest that is no 32-digit lower-case hex
string) is kept as it was read. A file of any other layout is read whole, as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import orjson

CHUNK_BYTES = 1 << 16
"""About how many bytes of entries are parsed at once."""

_VERDICT_BITS = 32
_DIGEST = (1 << 128) - 1
_HELD = (1 << (128 + _VERDICT_BITS)) - 1
"""The bits of an entry's integer below a seen file's identity. From its lowest bit the
integer holds: its verdict number (30 bits), the `_LEARNT` and `_SEEN` bits, its 128-bit
digest, and for an entry seen in this run (`see`) the file's `identity` (64 bits)."""
_SEEN = 1 << 31
"""The bit of an entry's integer that marks it seen in this run (`see`) (never written: `get`, and
so `dump`, leave it out); a tree's verdict numbers stay far below it (a few distinct ones)."""
_LEARNT = 1 << 30
"""The bit that marks an entry whose "pins nothing" this run learnt (`learn_pins_nothing`);
never written either."""
_NUMBER = _LEARNT - 1


def identity(info: os.stat_result) -> int:
    """A file's identity as a `stat` gives it, as 64 bits: device, inode, size, and the
    modification and change times (ns). A file written since (in place, or replaced) has
    another, but for a write within the same tick of the file system's clock that keeps
    the size."""
    return hash((info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)) & (2**64 - 1)


def valid_entry(entry: Any, statuses: tuple[str, ...]) -> bool:
    """Whether `entry` has the shape of a cache entry whose status is one of `statuses`."""
    return (
        isinstance(entry, list)
        and len(entry) == 8
        and isinstance(entry[0], str)
        and entry[1] in statuses
        and isinstance(entry[2], list)
        and all(isinstance(name, str) for name in entry[2])
        and type(entry[3]) is int
        and type(entry[4]) is int
        and isinstance(entry[5], dict)
        and all(type(count) is int for count in entry[5].values())
        and isinstance(entry[6], str)
        and type(entry[7]) is bool
    )


class Entries:
    """Relative path -> cache entry (the list above), held compact. A mapping's reads
    (`in`, `len`, iteration over paths, `get`, `items`) and writes (`set`, `pop`)."""

    __slots__ = ("_values", "_verdicts", "_numbers")

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}  # an int (digest << 32 | verdict number), or the entry as read
        self._verdicts: list[tuple[Any, ...]] = []
        self._numbers: dict[tuple[Any, ...], int] = {}

    def __contains__(self, relative: object) -> bool:
        return relative in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def get(self, relative: str) -> list[Any] | None:
        """The entry of `relative` (a new list, its containers new too), or None."""
        value = self._values.get(relative)
        if value is None:
            return None
        if value.__class__ is not int:
            return [value[0], value[1], list(value[2]), value[3], value[4], dict(value[5]), value[6], value[7]]
        return self._entry(value)

    def _entry(self, value: int) -> list[Any]:
        status, adapters, cases, line, moved, reason, clean = self._verdicts[value & _NUMBER]
        digest = value >> _VERDICT_BITS & _DIGEST
        return [f"{digest:032x}", status, list(adapters), cases, line, dict(moved), reason, clean]

    def see(self, relative: str, content_digest: bytes, found: int) -> None:
        """Note that the file at `relative` was read in this run with the bytes whose digest
        is `content_digest` (16 bytes), the file's `identity` then `found`: when its entry is
        of those bytes, it is seen (`seen_entry`), else it is not (any more)."""
        value = self._values.get(relative)
        if value.__class__ is not int:
            return
        if value >> _VERDICT_BITS & _DIGEST == int.from_bytes(content_digest, "big"):
            self._values[relative] = value & _HELD | _SEEN | found << (128 + _VERDICT_BITS)
        elif value & _SEEN:
            self._values[relative] = value & _HELD & ~_SEEN

    def pins_nothing(self, relative: str) -> bool:
        """Whether the entry of `relative` is of the bytes a read of this run found (`see`) and
        says they pin nothing (its last member), without making the entry."""
        value = self._values.get(relative)
        return value.__class__ is int and bool(value & _SEEN) and self._verdicts[value & _NUMBER][6]

    def learn_pins_nothing(self, relative: str) -> bool:
        """Note in the entry of `relative`, when it is `seen`, that its bytes pin nothing (its
        last member); True when that is new. The entry stays one integer (`learnt` lists it)."""
        value = self._values.get(relative)
        if value.__class__ is not int or not value & _SEEN:
            return False
        verdict = self._verdicts[value & _NUMBER]
        if verdict[6]:
            return False
        self._values[relative] = value & ~_NUMBER | _LEARNT | self._number((*verdict[:6], True))
        return True

    def learnt(self) -> Iterator[tuple[str, int]]:
        """`(relative, digest)` of every entry whose "pins nothing" this run learnt (`digest`:
        the integer of its 16 bytes)."""
        for relative, value in self._values.items():
            if value.__class__ is int and value & _LEARNT:
                yield relative, value >> _VERDICT_BITS & _DIGEST

    def learn_from(self, other: Entries) -> None:
        """Take what `other` learnt (`learnt`) for the entries here of the same bytes."""
        for relative, digest in other.learnt():
            value = self._values.get(relative)
            if value.__class__ is int and value >> _VERDICT_BITS & _DIGEST == digest:
                verdict = self._verdicts[value & _NUMBER]
                if not verdict[6]:
                    self._values[relative] = value & ~_NUMBER | self._number((*verdict[:6], True))

    def _number(self, verdict: tuple[Any, ...]) -> int:
        """The number of `verdict` (one of `_verdicts`, added when new)."""
        number = self._numbers.get(verdict)
        if number is None:
            number = self._numbers[verdict] = len(self._verdicts)
            assert number < _LEARNT, "more distinct verdicts than an entry can number"
            self._verdicts.append(verdict)
        return number

    def seen(self, relative: str) -> bool:
        """Whether the entry of `relative` is of the bytes a read of this run found (`see`)."""
        value = self._values.get(relative)
        return value.__class__ is int and bool(value & _SEEN)

    def seen_entry(self, relative: str, found: int) -> list[Any] | None:
        """`get(relative)` when the entry is of the bytes a read of this run found (`see`)
        and the file's `identity` is still `found`, else None."""
        value = self._values.get(relative)
        if value.__class__ is not int or not value & _SEEN or value >> (128 + _VERDICT_BITS) != found:
            return None
        return self._entry(value)

    def holds(self, status: str, scope: list[str]) -> bool:
        """Whether an entry of a path in `scope` has the verdict `status` (a word of `Status`).
        `scope` holds POSIX paths from the root: a folder's ends with `/` (`""`: the root's),
        and covers every path below it; a file's is the path itself."""
        numbers = {number for number, verdict in enumerate(self._verdicts) if verdict[0] == status}
        folders = tuple(place for place in scope if place == "" or place.endswith("/"))
        files = {place for place in scope if place and not place.endswith("/")}
        for relative, value in self._values.items():
            if (value & _NUMBER in numbers) if value.__class__ is int else value[1] == status:
                if relative in files or relative.startswith(folders):
                    return True
        return False

    def digest_of(self, relative: str) -> str | None:
        """The digest hex of the entry of `relative`, or None (no entry)."""
        value = self._values.get(relative)
        if value is None:
            return None
        return f"{value >> _VERDICT_BITS & _DIGEST:032x}" if value.__class__ is int else value[0]

    def set(self, relative: str, entry: list[Any]) -> None:
        """Hold `entry` (a valid one, `valid_entry`) for `relative`."""
        digest = entry[0]
        number = None
        if len(digest) == 32:
            try:
                value = int(digest, 16)
            except ValueError:
                value = -1
            if value >= 0 and f"{value:032x}" == digest:
                verdict = (entry[1], tuple(entry[2]), entry[3], entry[4], tuple(entry[5].items()), entry[6], entry[7])
                self._values[relative] = value << _VERDICT_BITS | self._number(verdict)
                return
        self._values[relative] = [digest, entry[1], list(entry[2]), entry[3], entry[4], dict(entry[5]), *entry[6:8]]

    def pop(self, relative: str) -> None:
        """Forget the entry of `relative`, if any."""
        self._values.pop(relative, None)

    def items(self) -> Iterator[tuple[str, list[Any]]]:
        """`(relative, entry)` of every entry, in the order they were set."""
        for relative in self._values:
            yield relative, self.get(relative)  # type: ignore[misc]

    def keep(self, keep: Any) -> None:
        """Forget every entry whose path `keep(relative)` is false for."""
        self._values = {relative: value for relative, value in self._values.items() if keep(relative)}


def header(key: str) -> bytes:
    """The start of the JSON document of a cache of `key`, as `dump` writes it."""
    return b'{"key":' + orjson.dumps(key) + b',"entries":{'


def dump(key: str, entries: Entries) -> bytes:
    """The JSON document `{"key": key, "entries": {...}}`, one entry a line."""
    return b"".join(dump_chunks(key, entries))


DUMP_LINES = 2048
"""How many entries `dump_chunks` gives at once."""


def dump_chunks(key: str, entries: Entries) -> Iterator[bytes]:
    """`dump(key, entries)` a piece at a time (`DUMP_LINES` entries each), so that a large
    cache is written without its document ever held whole."""
    dumps = orjson.dumps
    if not len(entries):
        yield header(key) + b"}}"
        return
    yield header(key) + b"\n"
    lines: list[bytes] = []
    first = True
    for relative, entry in entries.items():
        lines.append(dumps(relative) + b":" + dumps(entry))
        if len(lines) == DUMP_LINES:
            yield (b"" if first else b",\n") + b",\n".join(lines)
            lines.clear()
            first = False
    if lines:
        yield (b"" if first else b",\n") + b",\n".join(lines)
    yield b"\n}}"


def load(body: bytes, key: str, statuses: tuple[str, ...]) -> Entries | None:
    """The entries of the JSON document `body` when it is a cache of `key` whose every entry
    is valid; an empty `Entries` when it is not (not JSON, another key, a bad entry). A
    document in `dump`'s layout is parsed a chunk of lines at a time; any other is parsed
    whole (the same answer either way: chunks are cut only where one entry ends)."""
    start = header(key)
    found = None
    if body.startswith(start) and body.endswith(b"}}"):
        found = _load_lines(body, len(start), statuses)
    if found is not None:
        return found
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return Entries()
    if not isinstance(value, dict) or value.get("key") != key or not isinstance(value.get("entries"), dict):
        return Entries()
    entries = Entries()
    for relative, entry in value["entries"].items():
        if not valid_entry(entry, statuses):
            return Entries()
        entries.set(relative, entry)
    return entries


def _load_lines(body: bytes, start: int, statuses: tuple[str, ...]) -> Entries | None:
    """The entries between the header (ending at `start`) and the closing `}}` of a document
    in `dump`'s layout, parsed a chunk of whole lines at a time; None when the layout is not
    `dump`'s (the caller parses the document whole then), an empty `Entries` for a bad entry."""
    end = len(body) - 2
    entries = Entries()
    if start == end:
        return entries
    if body[start : start + 1] != b"\n" or body[end - 1 : end] != b"\n" or end - start < 2:
        return None
    position, stop = start + 1, end - 1  # the entries' lines, without their first and last line breaks
    loads = orjson.loads
    while position < stop:
        cut = body.find(b",\n", min(position + CHUNK_BYTES, stop), stop)
        if cut < 0:
            cut = stop
        try:
            chunk = loads(b"{" + body[position:cut] + b"}")
        except orjson.JSONDecodeError:
            return None  # not cut between entries: not this layout
        for relative, entry in chunk.items():
            if not valid_entry(entry, statuses):
                return Entries()
            entries.set(relative, entry)
        position = cut + 2
    return entries


class Loader:
    """`load` of a cache file fed a block at a time (`feed`, then `finish`), so that neither
    the file's bytes nor its document are held whole: the file must start with `prefix`
    (the cache's first line, then `header(key)`) and be in `dump`'s layout."""

    def __init__(self, prefix: bytes, statuses: tuple[str, ...]) -> None:
        self.prefix: bytes | None = prefix  # None once it was read
        self.statuses = statuses
        self.pending = b""
        self.lines = False  # past the line break that starts `dump`'s lines
        self.entries: Entries | None = Entries()  # None: not `dump`'s layout
        self.bad = False  # an entry that is no cache entry: the file is none

    def feed(self, data: bytes) -> None:
        """Take the next bytes of the file."""
        if self.entries is None or self.bad:
            return
        pending = self.pending + data
        if self.prefix is not None:
            if len(pending) < len(self.prefix) + 1:
                self.pending = pending
                return
            if not pending.startswith(self.prefix):
                self.entries = None
                return
            pending = pending[len(self.prefix) :]
            self.prefix = None
            if pending[:1] == b"\n":
                pending, self.lines = pending[1:], True
        if self.lines:
            cut = pending.rfind(b",\n")
            if cut >= 0:
                self._parse(pending[:cut])
                pending = pending[cut + 2 :]
        self.pending = pending

    def finish(self) -> Entries | None:
        """The entries of the whole file (empty when an entry is no cache entry), or None
        when the file is not in `dump`'s layout (the caller reads it whole then)."""
        if self.bad:
            return Entries()
        if self.entries is None or self.prefix is not None:
            return None
        if not self.lines:
            return self.entries if self.pending == b"}}" else None
        if not self.pending.endswith(b"\n}}") or len(self.pending) < 4:
            return None
        self._parse(self.pending[:-3])
        return Entries() if self.bad else self.entries

    def _parse(self, part: bytes) -> None:
        if self.entries is None:
            return
        try:
            chunk = orjson.loads(b"{" + part + b"}")
        except orjson.JSONDecodeError:
            self.entries = None
            return
        for relative, entry in chunk.items():
            if not valid_entry(entry, self.statuses):
                self.bad = True
                return
            self.entries.set(relative, entry)
