"""JSON fixture files: read with orjson, written back as edits of the original text.

Reading is orjson's fast parse plus two checks orjson does not make: duplicate
keys (refused: JSON.parse would keep the last one and migrating would drop the
other) and integers beyond 64 bits (orjson reads them as floats; such files are
read again with the standard library so every digit is kept). A file is parsed
for spans (`json_text`) only when it is written or an error must be placed; a file
laid out as a pretty printer lays it out is written without them, by orjson
(`json_regular`: the same bytes as the edits).
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.formats import BOM, MAX_DEPTH, Document, Unit, decode_text, integer_too_long
from fixture_migrate.formats.target import Node, Src
from fixture_migrate.formats.target import Path as NodePath
from fixture_migrate.patterns import LazyRegex

if TYPE_CHECKING:  # the span parser and writer are imported where a file is written or placed
    from fixture_migrate.formats.json_text import JNode, JsonStyle

CHECKS_DEPTH = True
"""`parse_json` refuses nesting deeper than `MAX_DEPTH` itself, placing the error."""

_SKETCH = bytes(
    48 if 48 <= b <= 57 else 91 if b in b"[{" else b if b in b'":' else 120  # 0-9 -> 0, [ { -> [
    for b in range(256)
)
_WHITESPACE = b" \t\r\n"
_LONG_RUN = b"0" * 19
"""`parse_json` reads a sketch of the text made in one pass (`bytes.translate`): every digit
mapped to `0`, `[` and `{` to `[`, quotes and colons kept, any other byte mapped to `x`. In
it, a run of 19 zeros marks what may be an integer beyond 64 bits (or just digits in a
string: a regex search for `[0-9]{19}` costs ten times more) and `[` counts the opening
brackets. With JSON whitespace deleted too, `":` ends every key."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(token: str) -> float:
    value = float(token)
    if math.isinf(value):
        raise ValueError(f"number {token[:40]} is too large for a floating-point value")
    return value


def _depth(data: Any) -> int:
    """How deeply arrays and objects nest in parsed JSON `data` (`[]` is 1), counted up to
    `MAX_DEPTH + 1`. Iterative and level by level, so any depth is measured cheaply."""
    kind = type(data)
    if kind is not dict and kind is not list:
        return 0
    depth = 0
    level = [data]
    while level and depth <= MAX_DEPTH:
        depth += 1
        below: list[Any] = []
        push = below.append
        for value in level:
            for item in value.values() if type(value) is dict else value:
                kind = type(item)
                if kind is dict or kind is list:
                    push(item)
        level = below
    return depth


_DEEP_LINE = b"\n" + b" " * (2 * MAX_DEPTH)
"""In orjson's output indented by two spaces, where each member of a container nested `k`
deep (the top level is 1) starts a line of `2k` spaces: no such line means nothing nests
`MAX_DEPTH + 1` deep (a container that deep would be a member of one `MAX_DEPTH` deep)."""


def _indented(data: Any) -> bytes | None:
    """orjson's output of `data` indented by two spaces, or None where orjson cannot write it
    (an integer beyond 64 bits)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2)
    except TypeError:
        return None


def _shallow(data: Any, indented: bytes | None = None) -> bool:
    """True when `data` (as orjson parses it) surely nests no deeper than `MAX_DEPTH`, told by
    orjson writing it indented (`indented`, when made already: `_indented(data)`), in C, and
    one search for a line indented that deep. False says nothing (`_depth` counts then): the
    search also finds a `MAX_DEPTH`-deep container that has members, and orjson cannot write
    an integer beyond 64 bits."""
    if indented is None:
        indented = _indented(data)
    return indented is not None and _DEEP_LINE not in indented


_STRUCTURE = LazyRegex(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _too_deep(text: str) -> FixtureError:
    """The error for a text nesting deeper than `MAX_DEPTH`, placed at the first bracket too deep."""
    depth = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line, column = line_col(text, match.start())
                break
        elif token in "]}":
            depth -= 1
    else:
        line, column = 1, 1
    return FixtureError(
        f"nesting deeper than {MAX_DEPTH} levels is not supported", code="too_deep", line=line, column=column
    )


def _parse_exact(text: str, place: tuple[int, int] | None = None) -> Any:
    """`text` parsed by the standard library, so integers of any length stay exact.

    Only used on text orjson refused for a number it cannot hold, or read with an
    inexact float: it checks what orjson would (no NaN/Infinity, no lone surrogate,
    bounded depth) and raises `FixtureError` as `parse_json` does; `place` is where
    orjson stopped, for errors the standard library does not place.
    """
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise FixtureError(f"invalid JSON: {exc.msg}", code="invalid_json", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise _too_deep(text) from None
    except ValueError as exc:
        line, column = place or (None, None)
        if "integer string conversion" in str(exc):
            raise integer_too_long(line, column) from None
        raise FixtureError(f"invalid JSON: {exc}", code="invalid_json", line=line, column=column) from None
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise FixtureError(
                    "invalid JSON: a \\u escape stands for a lone surrogate, which is not text", code="invalid_json"
                ) from None
    return data


def _count_keys(data: Any) -> int:
    """How many object keys `data` holds, all levels together."""
    # Counted by a walk: counting `":` in orjson's output would also count each string
    # that starts with a colon (`":"`).
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


def _no_repeated_key(body: bytes, data: Any, dumped: bytes | None = None) -> bool:
    """True when the JSON text `body` (parsed as `data`, where a repeated key is read once)
    repeats no key within an object; False when it may (a span parse tells). `dumped` is
    orjson's output of `data`, compact or indented, when made already."""
    if b"\\" not in body or b"\\u" not in body:  # one byte is found faster than two
        # Every key of the text is followed by one colon, and every other colon is inside a
        # string, written as itself (no `\u` escape to write one otherwise): so are they in
        # orjson's output of the data (compact or indented: `":` or `": ` after each key),
        # which holds each key and string the text does, but a repeated key and its value
        # once. Equal counts of `:` mean no key was repeated.
        if dumped is None:
            try:
                dumped = orjson.dumps(data)
            except TypeError:  # an integer beyond 64 bits, read exactly by the standard library
                dumped = None
        if dumped is not None:
            return body.count(b":") == dumped.count(b":")
    # Every key of the text ends in `":` once whitespace is deleted, and a string holds `":`
    # only after a backslash: the count is the keys of the text plus such strings, never
    # fewer than the keys orjson kept, and equal to them only when no key was repeated.
    return body.translate(_SKETCH, _WHITESPACE).count(b'":') == _count_keys(data)


def parse_json(body: bytes, text: str | None = None, *, duplicates: str = "refuse") -> Any:
    """The data of a JSON text (`body` without BOM; `text` its decoded form, if known).

    With `duplicates="last"` a repeated key is not an error and the last value wins.
    Integers keep every digit, however long: orjson reads those beyond 64 bits as
    floats (the text is parsed again by the standard library when a run of 19 digits
    appears in it) or refuses them as infinite (the standard library reads them then).

    Raises `FixtureError`: `invalid_json` with line and column (NaN and Infinity are
    not JSON; a float beyond the double range is refused), `duplicate_key` with the
    place of the repeated key, `empty` for an empty or blank file, `too_deep` for
    nesting deeper than `MAX_DEPTH`.
    """
    if not body or body.isspace():  # blank (`strip` would copy the whole body to say so)
        raise FixtureError("empty file: no JSON value", code="empty", line=1, column=1)
    exact = False
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        message = str(exc.msg)
        if "UTF-8" in message:
            decode_text(body)  # raises with the place of the first bad byte
        text = body.decode("utf-8") if text is None else text
        if "depth limit" in message or "recursion" in message:
            raise _too_deep(text) from None
        if "infinity" not in message:
            raise FixtureError(
                f"invalid JSON: {message}", code="invalid_json", line=exc.lineno, column=exc.colno
            ) from None
        # A number too large for a double: an integer beyond 64 bits is valid JSON and kept exactly.
        data, exact = _parse_exact(text, (exc.lineno, exc.colno)), True
    sketch = body.translate(_SKETCH)
    # Before the standard library's recursive parse below. No value can nest deeper than
    # the file has brackets, so most files are cleared by one count, without a walk; the
    # indented output made to clear the others serves the duplicate key test too.
    dumped = None
    if sketch.count(b"[") > MAX_DEPTH:
        dumped = _indented(data)
        if not _shallow(data, dumped) and _depth(data) > MAX_DEPTH:
            raise _too_deep(body.decode("utf-8") if text is None else text)
    if not exact and _LONG_RUN in sketch:
        text = body.decode("utf-8") if text is None else text
        data, dumped = _parse_exact(text), None
    if duplicates == "last":
        return data
    if not _no_repeated_key(body, data, dumped):
        from fixture_migrate.formats.json_text import parse_spans

        parse_spans(body.decode("utf-8") if text is None else text)  # raises, placing the repeat
    return data


class JsonDocument(Document):
    """A `.json` file holding one payload (a top-level object)."""

    syntax = "json"

    def __init__(self, path: Path, raw: bytes, *, duplicates: str = "refuse") -> None:
        super().__init__(path, raw)
        self.bom = raw.startswith(BOM)
        body = raw[3:] if self.bom else raw
        data = parse_json(body, duplicates=duplicates)
        self.unique_keys = duplicates == "refuse"  # read so: no key repeats within an object
        # A payload is an object. A non-empty array of objects may be a bare case list, as
        # a YAML document or a JSON Lines file may be (only adapters of such lists claim it).
        # Any other JSON (a scalar, an array of other values) is valid JSON that is not a
        # fixture, and is left alone.
        if isinstance(data, dict):
            self.units = [Unit(data)]
        elif isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
            self.units = [Unit(data, shape="case_list")]
        else:
            self.units = []

    @cached_property
    def text(self) -> str:
        return decode_text(self.raw)[0]

    @cached_property
    def spans(self) -> JNode:
        from fixture_migrate.formats.json_text import parse_spans

        return parse_spans(self.text)

    @cached_property
    def style(self) -> JsonStyle:
        from fixture_migrate.formats.json_text import detect_style

        return detect_style(self.text, self.spans)

    def render(self, targets: list[Node]) -> bytes:
        (target,) = targets
        if isinstance(target, Src) and target.path == ():
            return self.raw
        if self.unique_keys and self.units:
            # A file laid out as a pretty printer lays it out: written by orjson, without
            # parsing spans (`json_regular`: the writer would write the same bytes).
            from fixture_migrate.formats.json_regular import regular_layout, render_regular

            data = self.units[0].data
            layout = regular_layout(self.raw[3:] if self.bom else self.raw, data)
            if layout is not None:
                new_body = render_regular(target, data, layout)
                if new_body is not None:
                    return (BOM if self.bom else b"") + new_body + layout.end
        root = self.spans
        from fixture_migrate.formats.json_text import JsonWriter

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
        # `line_col`, from the offsets of the lines: a file with many errors (every case of a
        # file missing something) is placed without counting newlines from the top each time.
        starts = self._line_starts
        line = bisect_right(starts, node.start)
        return line, node.start - starts[line - 1] + 1

    def locate_all(self, unit: int, paths: Sequence[NodePath]) -> list[tuple[int, int] | None]:
        """`locate` of each of `paths`, found in one walk of the text to those values alone
        (`json_places`) unless the span tree is built already; a file read despite a
        repeated key is placed as `locate` places it: not at all (no span tree to try for
        each path)."""
        if not self.unique_keys:
            return [None] * len(paths)
        if "spans" not in self.__dict__:
            from fixture_migrate.formats.json_places import Unusual, places

            units = self.units
            body = self.raw[3:] if self.bom else self.raw
            try:
                # A JSON file's one unit is its top-level value: its data is known.
                return places(body, paths, units[unit].data) if 0 <= unit < len(units) else places(body, paths)
            except Unusual:
                pass
        return super().locate_all(unit, paths)

    @cached_property
    def _line_starts(self) -> list[int]:
        """The offset where each line of `text` starts (and one past the end)."""
        return [0, *accumulate(len(line) + 1 for line in self.text.split("\n"))]


def read(path: Path, raw: bytes, *, duplicates: str = "refuse") -> JsonDocument:
    """Read a `.json` file; raises `FixtureError` as `parse_json` does. An object is a payload
    unit, a non-empty array of objects a bare case list unit; any other top-level value
    gives a document with no units (not a fixture)."""
    return JsonDocument(path, raw, duplicates=duplicates)
