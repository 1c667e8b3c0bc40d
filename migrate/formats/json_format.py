"""JSON fixture files: read with orjson, written back as edits of the original text.

Reading is orjson's fast parse plus two checks orjson does not make: duplicate
keys (refused: JSON.parse would keep the last one and migrating would drop the
other) and integers beyond 64 bits (orjson reads them as floats; such files are
read again with the standard library so every digit is kept). A file is parsed
for spans (`json_text`) only when it is written or an error must be placed.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from migrate.errors import FixtureError, line_col
from migrate.formats import BOM, Document, Unit, decode_text
from migrate.formats.json_text import JNode, JsonStyle, JsonWriter, detect_style, parse_spans
from migrate.plan import Node, Src
from migrate.plan import Path as NodePath

_DIGITS_TO_ZERO = bytes(48 if 48 <= b <= 57 else 120 for b in range(256))
_LONG_RUN = b"0" * 19
"""After mapping every digit to `0` and every other byte to `x`, a run of 19 zeros marks
what may be an integer beyond 64 bits (or just digits in a string): a regex search for
`[0-9]{19}` costs ten times more."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _count_keys(data: Any) -> int:
    """How many object keys `data` holds, all levels together."""
    # orjson's compact output ends every key with `":` and writes a quote inside a
    # string only as `\"`: without `\":` in it, counting `":` counts the keys, in C.
    try:
        dumped = orjson.dumps(data)
    except TypeError:  # an integer beyond 64 bits, read exactly by the standard library
        dumped = b'\\":'
    if b'\\":' not in dumped:
        return dumped.count(b'":')
    keys = 0
    stack = [data]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            keys += len(value)
            stack.extend(value.values())
        elif type(value) is list:
            stack.extend(value)
    return keys


def parse_json(body: bytes, text: str | None = None, *, duplicates: str = "refuse") -> Any:
    """The data of a JSON text (`body` without BOM; `text` its decoded form, if known).

    With `duplicates="last"` a repeated key is not an error and the last value wins.
    Integers beyond 64 bits, which orjson reads as floats, are read exactly (the file
    is parsed again by the standard library when a run of 19 digits appears in it).

    Raises `FixtureError`: `invalid_json` with line and column, `duplicate_key` with
    the place of the repeated key, `empty` for an empty or blank file.
    """
    if not body.strip():
        raise FixtureError("empty file: no JSON value", code="empty", line=1, column=1)
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        message = str(exc.msg)
        if "UTF-8" in message:
            decode_text(body)  # raises with the place of the first bad byte
        if "depth limit" in message or "recursion" in message:
            message = "nesting deeper than 1024 levels"
        raise FixtureError(f"invalid JSON: {message}", code="invalid_json", line=exc.lineno, column=exc.colno) from None
    if _LONG_RUN in body.translate(_DIGITS_TO_ZERO):
        text = body.decode("utf-8") if text is None else text
        data = json.loads(text, parse_constant=_reject_constant)
    if duplicates == "last":
        return data
    if body.count(b'":') != _count_keys(data):
        # Fewer `":` than keys means spacing before colons; more means strings holding
        # `":` or a repeated key. Only a span parse can tell.
        parse_spans(body.decode("utf-8") if text is None else text)
    return data


class JsonDocument(Document):
    """A `.json` file holding one payload (a top-level object)."""

    syntax = "json"

    def __init__(self, path: Path, raw: bytes, *, duplicates: str = "refuse") -> None:
        super().__init__(path, raw)
        self.bom = raw.startswith(BOM)
        body = raw[3:] if self.bom else raw
        data = parse_json(body, duplicates=duplicates)
        if not isinstance(data, dict):
            kind = "an array" if isinstance(data, list) else "a scalar"
            raise FixtureError(
                f"top-level value is {kind}; a fixture file holds an object",
                code="not_an_object",
                line=1,
                column=1,
            )
        self.units = [Unit(data)]

    @cached_property
    def text(self) -> str:
        return decode_text(self.raw)[0]

    @cached_property
    def spans(self) -> JNode:
        return parse_spans(self.text)

    @cached_property
    def style(self) -> JsonStyle:
        return detect_style(self.text, self.spans)

    def render(self, targets: list[Node]) -> bytes:
        (target,) = targets
        if isinstance(target, Src) and target.path == ():
            return self.raw
        root = self.spans
        writer = JsonWriter(self.text, root, self.style)
        new = self.text[: root.start] + writer.render(target, "") + self.text[root.end :]
        return (BOM if self.bom else b"") + new.encode("utf-8")

    def reparse(self, raw: bytes) -> list[Any]:
        return [parse_json(raw[3:] if raw.startswith(BOM) else raw)]

    def locate(self, unit: int, path: NodePath) -> tuple[int, int] | None:
        try:
            node = self.spans
            for key in path:
                node = node.child(key)
        except (KeyError, IndexError, AttributeError):
            return None
        return line_col(self.text, node.start)


def read(path: Path, raw: bytes, *, duplicates: str = "refuse") -> JsonDocument:
    """Read a `.json` file; raises `FixtureError` as `parse_json` does, or `not_an_object`."""
    return JsonDocument(path, raw, duplicates=duplicates)
