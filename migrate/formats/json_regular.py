"""JSON laid out as the standard pretty printers lay it out, rewritten without a span parse.

Most JSON fixtures are written by a program: Python's `json.dump(data, indent=2,
ensure_ascii=False)`, JavaScript's `JSON.stringify(data, null, 2)` and orjson's
`OPT_INDENT_2` lay data out alike, which this module calls the *block* layout: every
non-empty container across lines, two spaces an indent level, `": "` after a key,
`\\n` line ends, text beyond ASCII as itself (only some floats are written otherwise:
`1e-07` in Python, `1e-7` in orjson, `2` for 2.0 in JavaScript). Many hand-kept files are that text with
every non-empty array of scalars on one line instead (`"tags": ["a", "b"]`), the
*inline* layout. A file whose body is exactly orjson's text of its own data in one of
the two layouts (with or without one final newline) is *regular*. Of the JSON files a
migration rewrites in the spec-first corpus, 61 of 77 are.

The writer (`fixture_migrate.formats.json_text.JsonWriter`) edits a file's text: it
keeps each source value's text, re-indented where it moves, and lays out what is new
in the file's own style. In a regular file the text of every source value is the
layout's text of that value, and the file's style is the layout, so the writer writes
the layout's text of the target's data, which orjson writes at C speed
(`render_regular`). Where the writer would keep a source layout the data does not show
(an edited container moved to another depth keeps its old indentation; an edited array
keeps being written on one line or across lines, as it was) or writes a value another
way than orjson would (a new float, through Python's `repr`; a tuple; new text as
`\\uXXXX` escapes in a file that writes them, which is never taken as regular), the
target is not rendered here and the writer is used: `render_regular` answers None.
Tests compare both paths on random data and targets, on every legacy family and on
the corpus.
"""

from __future__ import annotations

from typing import Any

import orjson
from fixture_migrate.formats.target import Node, Obj, Src, Val
from fixture_migrate.patterns import LazyRegex
from fixture_migrate.slots import Record

_ITEM = rb'(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"|[^\s\[\]{},"]++)'
_SCALAR_ARRAY = LazyRegex(rb"\[\n( ++)(" + _ITEM + rb"(?:,\n\1" + _ITEM + rb")*+)\n *+\]")
"""A non-empty array of scalars in orjson's indented output: its items' indent (group 1)
and the items with the separators between them (group 2). orjson writes no raw newline
inside a string, so `,\\n` followed by the indent only ever separates items."""

_OPTION = orjson.OPT_INDENT_2


def _inline(match: Any) -> bytes:
    return b"[" + match.group(2).replace(b",\n" + match.group(1), b", ") + b"]"


def inline_arrays(text: bytes) -> bytes:
    """orjson's indented `text` with every non-empty array of scalars on one line, its
    items separated by `", "` (the inline layout)."""
    return _SCALAR_ARRAY.sub(_inline, text)


class Layout(Record):
    """A regular file's layout: `inline` (the inline layout, else the block one) and `end`,
    the bytes after its value (`b""` or `b"\\n"`)."""

    __slots__ = ("inline", "end")

    def __init__(self, inline: bool, end: bytes) -> None:
        self.inline = inline
        self.end = end


def regular_layout(body: bytes, data: Any) -> Layout | None:
    """The layout of the JSON text `body` (without a byte order mark) when it is regular:
    exactly orjson's indented text of `data`, its parse, in the block or the inline layout,
    followed by nothing or one newline; else None.

    A value on one line (`{}`, a scalar) is never regular: the writer lays out what it adds
    to such a file on one line too. Nor is a file the writer adds `\\uXXXX` escapes to
    (`json_text.writes_ascii`: all ASCII, with an escape of a character past U+007F).
    """
    if not isinstance(data, (dict, list)) or not data:
        return None
    if b"\\u" in body and body.isascii():
        from fixture_migrate.formats.json_text import writes_ascii

        if writes_ascii(body.decode("ascii")):
            return None
    try:
        dumped = orjson.dumps(data, option=_OPTION)
    except TypeError:  # an integer beyond 64 bits, read exactly (orjson's JSONEncodeError)
        return None
    end = b"\n" if body.endswith(b"\n") else b""
    size = len(body) - len(end)
    if size == len(dumped):
        return Layout(False, end) if body.startswith(dumped) else None
    if size < len(dumped) and body.startswith(dumped[:2]):
        inline = inline_arrays(dumped)
        if len(inline) == size and body.startswith(inline):
            return Layout(True, end)
    return None


class _Irregular(Exception):
    """The writer would lay the target out otherwise than the layout does."""


def render_regular(target: Node, data: Any, layout: Layout) -> bytes | None:
    """The bytes `JsonWriter` writes for `target` (a target tree over `data`, the parse of a
    file in `layout`), without the file's byte order mark; None when the writer may write
    them otherwise (see the module's docstring), or when the target cannot be written
    (a `Src` path that is not in `data`, a key that is not a string): the writer then
    writes it, or raises its own error."""
    try:
        text = orjson.dumps(_plain(target, data, 0, layout.inline), option=_OPTION)
    except (_Irregular, LookupError, TypeError):  # orjson's JSONEncodeError is a TypeError
        return None
    return inline_arrays(text) if layout.inline else text


def _source(data: Any, path: tuple[Any, ...]) -> Any:
    """The value at `path` in `data`, stepping only into objects and arrays: `_Irregular`
    for a step into a scalar (the span tree has no children there), and `KeyError`,
    `IndexError` or `TypeError` for a key a container does not have."""
    for key in path:
        kind = data.__class__
        if kind is not dict and kind is not list:
            raise _Irregular
        data = data[key]
    return data


def _scalar(value: Any) -> bool:
    kind = value.__class__
    return kind is not dict and kind is not list


def _plain(node: Node, data: Any, depth: int, inline: bool) -> Any:
    """The data `node` stands for, raising `_Irregular` where the writer's layout of it
    differs from the layout's (`inline`: the inline layout) at `depth` (0: the root)."""
    kind = node.__class__
    if kind is Src:
        return _source(data, node.path)  # type: ignore[union-attr]
    if kind is Val:
        return _new_value(node.value)  # type: ignore[union-attr]
    origin = node.origin  # type: ignore[union-attr]
    if kind is Obj:
        if origin is not None and (len(origin) != depth or _source(data, origin).__class__ is not dict):
            raise _Irregular  # an edited object keeps the indentation of its own depth
        members = node.members  # type: ignore[union-attr]
        below = depth + 1
        out = {key: _plain(child, data, below, inline) for key, child in members}
        if len(out) != len(members):
            raise _Irregular  # a repeated key: the writer writes both
        return out
    items = [_plain(child, data, depth + 1, inline) for child in node.items]  # type: ignore[union-attr]
    if origin is not None:
        source = _source(data, origin)
        if len(origin) != depth or source.__class__ is not list:
            raise _Irregular
        # An edited array keeps its own layout: on one line when it is a non-empty array
        # of scalars in the inline layout, else across lines.
        if inline and items and (bool(source) and all(map(_scalar, source))) != all(map(_scalar, items)):
            raise _Irregular
    return items


def _new_value(value: Any) -> Any:
    """A `Val`'s value when the writer writes it as orjson does: strings (in a regular file
    the writer encodes them with `json.encoder.encode_basestring`, whose escapes are
    orjson's for every character), integers, booleans, null, and lists and dicts of them;
    a float (Python's `repr`, not orjson's digits) or any other type raises `_Irregular`."""
    kind = value.__class__
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is list:
        for item in value:
            _new_value(item)
        return value
    if kind is dict:  # a key that is not a `str` is refused by orjson (a `TypeError`)
        for item in value.values():
            _new_value(item)
        return value
    raise _Irregular
