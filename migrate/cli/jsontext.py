"""JSON text as the tool prints it: `JSON.stringify(value, null, 2)`'s layout, written by
orjson, with every character a terminal could act on escaped as `\\uXXXX` (still valid
JSON); JSON Lines for `normalize --output-format jsonl`; and a writer of bytes to a
text stream."""

from __future__ import annotations

import io
import json
import os
from typing import Any, TextIO

import orjson
from fixture_migrate.files.diff import escape_json

_UNSAFE_LEADS = (
    b"\x7f",
    b"\xc2",
    b"\xe2\x80",
    b"\xe2\x81",
    b"\xd8\x9c",
    b"\xef\xbf",
    b"\xe1\xa0\x8e",
    b"\xef\xbb\xbf",
    b"\xf3\xa0\x80",
    b"\xf3\xa0\x81",
)
"""UTF-8 starts of every character `escape_json` rewrites (U+061C is D8 9C; U+FFF9-FFFB
start EF BF; U+180E is E1 A0 8E, U+FEFF EF BB BF, the tags U+E0000-E007F F3 A0 80/81)."""


def dump_json(value: Any, *, indent: int | None = 2) -> str:
    """JSON text as the reference prints it (`JSON.stringify(value, null, 2)`), with
    terminal-unsafe characters escaped as `\\uXXXX` (still valid JSON)."""
    return dump_json_bytes(value, indent=indent).decode("utf-8")


def dump_json_bytes(value: Any, *, indent: int | None = 2) -> bytes:
    """`dump_json` as UTF-8 bytes, as orjson writes them (no text in between unless a
    character must be escaped)."""
    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        raw = orjson.dumps(value, option=option)
    except TypeError:  # an integer beyond 64 bits: the standard library writes it exactly
        raw = json.dumps(value, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":")).encode()
    return _escaped(raw)


_NOT_LEADS = bytes(b for b in range(256) if b not in {lead[0] for lead in _UNSAFE_LEADS})
"""Every byte that starts none of `_UNSAFE_LEADS`."""


def _escaped(raw: bytes) -> bytes:
    # Every character escape_json rewrites is \x7f or starts with one of these UTF-8
    # byte sequences. Most texts (CJK included) hold none of their first bytes, which one
    # pass of `translate` shows (ten substring searches took ten times longer); the
    # others are cleared by the searches.
    if raw.translate(None, _NOT_LEADS) and any(lead in raw for lead in _UNSAFE_LEADS):
        return escape_json(raw.decode("utf-8")).encode("utf-8")
    return raw


def json_lines(cases: list[Any]) -> bytes:
    """One compact JSON line per case (each ending in a newline; one newline for no case),
    escaped as `dump_json` escapes. Each case is serialized by orjson and the lines joined
    in one call: as fast as one serialization of the list cut between its cases, with no
    cut to prove."""
    if not cases:
        return b"\n"
    try:
        raw = b"\n".join([*map(orjson.dumps, cases), b""])
    except TypeError:  # an integer beyond 64 bits somewhere: case by case, as dump_json does
        return b"".join(dump_json_bytes(case, indent=None) + b"\n" for case in cases)
    return _escaped(raw)


BATCH_BYTES = 1 << 18
"""How many bytes of output `ByteWriter` holds, at most, before it writes them to a file or
pipe (a terminal gets each write at once)."""


class ByteWriter:
    """Writes bytes to a text stream `out` (`writer(data)`): to its binary buffer where it has
    one (flushed first, so text written before stays in order), else decoded.

    Where that buffer is the interpreter's own writer of a file or a pipe (an
    `io.BufferedWriter`, or the `io.FileIO` beneath when output is unbuffered; not a
    wrapper of one), not a terminal, the bytes are held until
    `BATCH_BYTES` are, then written in one system call (`os.writev`, no copy): a run that
    prints a file's cases at a time makes a few hundred calls, not one per file. `flush()`
    writes what is held (call it before anything else is printed on the same file, and at
    the end)."""

    def __init__(self, out: TextIO) -> None:
        self._held: list[bytes] = []
        self._size = 0
        self._fd = -1
        buffer = getattr(out, "buffer", None)
        if buffer is None:
            self._write: Any = lambda data: out.write(data.decode("utf-8"))
            return
        out.flush()
        self._write = buffer.write
        if type(buffer) not in _OWN_WRITERS or not hasattr(os, "writev"):
            # A wrapper of the buffer (a run's recording, a test's capture) sees every write:
            # writing to the file beneath it would go round it.
            return
        try:
            fd = buffer.fileno()
            terminal = os.isatty(fd)
        except (OSError, ValueError):  # a detached or closed buffer: write through
            return
        if not terminal:
            buffer.flush()
            self._fd = fd

    def __call__(self, data: bytes) -> None:
        if self._fd < 0:
            self._write(data)
            return
        self._held.append(data)
        self._size += len(data)
        if self._size >= BATCH_BYTES or len(self._held) >= _MAX_PARTS:
            self.flush()

    def flush(self) -> None:
        """Write what is held, all of it: a short write is continued, and where the file is
        non-blocking (a pipe a parent process shares, say) and full, once it takes more."""
        held = self._held
        if not held:
            return
        self._held, self._size = [], 0
        parts: list[Any] = held
        while parts:
            try:
                written = os.writev(self._fd, parts)
            except BlockingIOError:
                import select

                select.select([], [self._fd], [])
                continue
            for index, part in enumerate(parts):
                if written < len(part):
                    parts = [memoryview(part)[written:], *parts[index + 1 :]]
                    break
                written -= len(part)
            else:
                parts = []


_OWN_WRITERS = (io.BufferedWriter, io.FileIO)
"""The binary writers a write to their file descriptor stands for (`ByteWriter`)."""

_MAX_PARTS = 512
"""Parts of one `os.writev` call, at most (the system's limit, `IOV_MAX`, is 1,024 on Linux)."""
