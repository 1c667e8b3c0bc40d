"""JSON text as the tool prints it: `JSON.stringify(value, null, 2)`'s layout, written by
orjson, with every character a terminal could act on escaped as `\\uXXXX` (still valid
JSON); JSON Lines for `normalize --output-format jsonl`; and a writer of bytes to a
text stream."""

from __future__ import annotations

import itertools
import json
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


_DICT, _LEAD = {dict}, {"schema_version"}
_BETWEEN_CASES = b'},{"schema_version":'
"""Where one normalized case ends and the next begins in the compact JSON of a list of them
(`contract.NORMALIZED_KEYS` leads with `schema_version`)."""


def json_lines(cases: list[Any]) -> bytes:
    """One compact JSON line per case, escaped as `dump_json` escapes.

    The list is serialized in one call and cut between its cases, when that cut is sure: a
    `"` inside a string is escaped, so `_BETWEEN_CASES` can only be found between two cases
    or inside one's nested objects; when every case is an object led by `schema_version`,
    each boundary holds it, and exactly `len(cases) - 1` finds are the boundaries.
    Otherwise (a case holding the sequence, or cases of another shape) each case is
    serialized alone; both give the same bytes."""
    dumps = orjson.dumps
    try:
        # Every case a dict led by `schema_version` (in C: the type of each, and the first key
        # of each, None for an empty one).
        if (
            len(cases) > 1
            and set(map(type, cases)) == _DICT
            and set(map(next, map(iter, cases), itertools.repeat(None))) == _LEAD
        ):
            raw = dumps(cases)
            if raw.count(_BETWEEN_CASES) == len(cases) - 1:
                return _escaped(raw[1:-1].replace(_BETWEEN_CASES, b'}\n{"schema_version":') + b"\n")
        raw = b"\n".join([dumps(case) for case in cases]) + b"\n"
    except TypeError:  # an integer beyond 64 bits somewhere: case by case, as dump_json does
        return b"".join(dump_json_bytes(case, indent=None) + b"\n" for case in cases)
    return _escaped(raw)


def byte_writer(out: TextIO) -> Any:
    """A function writing bytes to `out`: to its binary buffer where it has one (flushed
    first, so text written before stays in order), else decoded."""
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        return lambda data: out.write(data.decode("utf-8"))
    out.flush()
    return buffer.write
