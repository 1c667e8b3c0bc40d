"""Where chosen values sit in a JSON text, found without building its span tree.

Placing a validation error needs the offset of one member of one case (the `id` of a
duplicate, say), and a file with many such errors needs that for every case. The span
tree (`fixture_migrate.formats.json_text.parse_spans`) costs a regex match and a node per
token of the whole file. `value_offsets` walks only the containers on the way to the
values asked for, reading each key it passes and skipping every other value in one call
of the standard library's JSON scanner (C code), and stops once every value is found.
One member of every item of a list (the ids of a file's cases) is found faster still, by
matching its key in the text, where the data proves each match is that member
(`_item_members`).
It gives the offsets the span tree gives (`JNode.start`: the first character of the
value), on valid JSON that repeats no key within an object: what a `JsonDocument` read
with `duplicates="refuse"` holds. An index into an object names no value (None, as in
the span tree); a key into an array or a scalar, or a key that is neither a `str` nor a
non-negative `int` (a negative index, a `bool`), raises `Unusual`, and the caller places
by the span tree, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from json.scanner import make_scanner
from typing import Any

import orjson

from fixture_migrate.formats.target import Path as NodePath

# Compiled at import: this module is imported only by a run that places errors.
_SCAN = make_scanner(json.JSONDecoder())
"""`(value, end)` of the JSON value starting at an offset (the C scanner where built)."""

_MEMBER = re.compile(r'[ \t\r\n]*[{,][ \t\r\n]*("[^"\\]*(?:\\.[^"\\]*)*")[ \t\r\n]*:[ \t\r\n]*')
"""From an object's `{` or the end of one of its values: the next member's key (group 1),
up to the start of its value. No match: the object ends there."""
_ITEM = re.compile(r"[ \t\r\n]*[\[,][ \t\r\n]*")
"""From an array's `[` or the end of one of its items: up to the start of the next item."""
_CLOSE = re.compile(r"[ \t\r\n]*[\]}]")
_SPACE = re.compile(r"[ \t\r\n]*")
_RESCAN = 512
"""An object whose members asked for all end within this many characters of its start is
skipped by one scan from its start."""


_UNKNOWN: Any = object()
"""The `data` a caller does not give."""


class Unusual(Exception):
    """A path or text this walk does not take: the caller places by the span tree."""


class _Done(Exception):
    """Every value asked for is found: the walk stops."""


_Want = list[Any]
"""A node of the tree of paths asked for: `[ends, below, keys]`, the numbers of the paths
that end here, per key or index the node below it, and how many of those are keys."""


def value_offsets(text: str, paths: Sequence[NodePath], data: Any = _UNKNOWN) -> list[int | None]:
    """The offset in `text` (a valid JSON text that repeats no key within an object) of the
    value at each of `paths` (keys of objects and indexes of arrays, from the top-level
    value), or None for a path that is not in the text. Raises `Unusual` for a path that
    is neither (a key into an array, a negative index, a key of another type) or a text
    the scanner refuses.

    The paths to one member of many items of one list (`("cases", i, "id")`: the places of
    duplicate ids) are found by `_item_members` when it can prove where they are, else by
    the walk; `data`, the text's value when the caller holds it, spares that a parse."""
    found = _item_members(text, paths, data)
    return found if found is not None else _walked(text, paths)


def places(
    body: bytes, paths: Sequence[NodePath], data: Any = _UNKNOWN, *, match: bool = True
) -> list[tuple[int, int] | None]:
    """`line_columns(text, value_offsets(text, paths, data))` for the UTF-8 JSON text `body`
    (without its byte order mark; `text` its decoding): the 1-based line and column (in
    characters) of the value at each of `paths`, or None. Raises `Unusual` as
    `value_offsets` does. The ids of a file's cases (`_item_members`) are placed from the
    bytes, with no decoding but that of the lines they are on. `match=False` goes straight to
    the walk: for a caller whose `item_member_places` of the same list proved nothing."""
    found = _item_members(body, paths, data) if match else None
    if found is not None:
        if None not in found and all(map(int.__lt__, found, found[1:])):  # in order: the common case
            return _ordered_byte_line_columns(body, found)  # type: ignore[arg-type]
        return _byte_line_columns(body, found)
    text = body.decode("utf-8")
    return line_columns(text, _walked(text, paths))


def _walked(text: str, paths: Sequence[NodePath]) -> list[int | None]:
    """`value_offsets` by the walk: the containers on the way to the values asked for."""
    root: _Want = [[], {}, 0]
    for number, path in enumerate(paths):
        node = root
        for key in path:
            below = node[1].get(key)
            if below is None:
                if key.__class__ is str:
                    node[2] += 1
                elif key.__class__ is not int or key < 0:
                    raise Unusual(f"path key {key!r}")
                below = node[1][key] = [[], {}, 0]
            node = below
        node[0].append(number)
    found: list[int | None] = [None] * len(paths)
    walk = _Walk(text, found, len(paths))
    try:
        walk.value(_SPACE.match(text).end(), root)  # type: ignore[union-attr]
    except _Done:
        pass
    except Unusual:
        raise
    except Exception as exc:  # noqa: BLE001 - the scanner refused the text: place by spans
        raise Unusual(str(exc)) from None
    return found


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_AT: dict[tuple[str, bool], Any] = {}
"""Per member name (and whether for bytes), the regex of that name as a key: the name in
quotes, the colon, up to the value."""


def _item_members(text: str | bytes, paths: Sequence[NodePath], data: Any = _UNKNOWN) -> list[int | None] | None:
    """`value_offsets` of `paths` when they all name one member `key` (a name of letters,
    digits and `_`) of items of one list (`(*prefix, index, key)`) and it can be proven
    where each is without a walk; None otherwise. `text` is the JSON text, decoded or as
    UTF-8 bytes (offsets then count bytes); `data` its value when the caller holds it
    (else it is parsed here).

    The proof, for valid JSON that repeats no key within an object (with a repeated key
    the data holds fewer members than the text has, and the counts below prove nothing);
    for UTF-8 bytes as for text, since no byte of a multi-byte character is below 0x80,
    so the quotes, backslashes, colons and names matched are the text's own characters.
    In valid JSON, `"key"` then a colon, its first quote after anything but a
    backslash, is always a member named `key`: that quote is not escaped, so it bounds a
    string; it cannot close one, as a letter or `_` never follows a closing quote; so it
    opens the string `key`, and a string before a colon is a key. The data holds the list
    at `prefix`, every item an object with a member `key`. The data's members named `key`
    are counted: in a text without a backslash no escape can write one, so each is a
    match; else they are counted as `{"key":` and `,"key":` in the data's compact
    serialization (where a key always follows `{` or `,`, and a string cannot hold `{"`
    or `,"`). When the matches, those members and the items are as many, the matches are
    the items' own members, in the order of the items, and each value starts where its
    match ends."""
    if not paths:
        return None
    first = paths[0]
    if len(first) < 2:
        return None
    key, prefix, depth = first[-1], first[:-2], len(first)
    if key.__class__ is not str or _NAME.fullmatch(key) is None:
        return None
    indexes: list[int] = []
    for path in paths:
        index = path[-2] if len(path) == depth else None
        if index.__class__ is not int or index < 0 or path[-1] != key or path[:-2] != prefix:  # type: ignore[operator]
            return None
        indexes.append(index)  # type: ignore[arg-type]
    starts = _proven_starts(text, prefix, key, data)
    if starts is None:
        return None
    count = len(starts)
    return [starts[index] if index < count else None for index in indexes]


def item_member_places(body: bytes, prefix: NodePath, key: str, data: Any) -> list[tuple[int, int]] | None:
    """`places(body, paths, data)` of the paths to member `key` of every item of the list at
    `prefix`, in order (`[(*prefix, 0, key), (*prefix, 1, key), ...]`), without those paths:
    the places of the ids of every case of a file. `body` is the UTF-8 JSON text (without its
    byte order mark), `data` its value. None where `_item_members` would not prove them
    (the caller then asks `places` for the paths)."""
    if key.__class__ is not str or _NAME.fullmatch(key) is None:
        return None
    starts = _proven_starts(body, prefix, key, data)
    return None if starts is None else _ordered_byte_line_columns(body, starts)


def _proven_starts(text: str | bytes, prefix: NodePath, key: str, data: Any) -> list[int] | None:
    """The offset of the value of member `key` (a name `_NAME` matches) of each item of the
    list at `prefix`, in order, when `_item_members` proves them (its docstring says how),
    else None. `text` and `data` as `_item_members` takes them."""
    try:
        if data is _UNKNOWN:
            data = orjson.loads(text)
        items = data
        for step in prefix:
            # The steps the walk takes: a key into an object, an index (an `int`, not
            # negative) into an array. Python's own indexing (`-1`, `True`) is not the walk's.
            if step.__class__ is str:
                if items.__class__ is not dict:
                    return None
            elif step.__class__ is not int or step < 0 or items.__class__ is not list:
                return None
            items = items[step]
    except (orjson.JSONDecodeError, KeyError, IndexError):
        return None
    if items.__class__ is not list:
        return None
    for item in items:
        if item.__class__ is not dict or key not in item:
            return None
    count = len(items)
    binary = text.__class__ is bytes
    backslash = b"\\" if binary else "\\"
    pattern = _KEY_AT.get((key, binary))
    if pattern is None:
        source = rf'"{key}"[ \t\r\n]*:[ \t\r\n]*'
        pattern = _KEY_AT[key, binary] = re.compile(source.encode() if binary else source)
    if backslash in text:  # a member named `key` may be written with an escape: count them all
        try:
            compact = orjson.dumps(data)
        except orjson.JSONEncodeError:
            return None
        quoted = f'"{key}":'.encode()
        if compact.count(b"{" + quoted) + compact.count(b"," + quoted) != count:
            return None
        starts: list[int] = []
        for match in pattern.finditer(text):  # type: ignore[arg-type]
            at = match.start()
            if at and text[at - 1 : at] != backslash:
                starts.append(match.end())
    else:
        # No backslash: no match follows one. (A match at the very start is no member: the
        # text is valid JSON, whose top-level value a colon never follows.)
        starts = [match.end() for match in pattern.finditer(text) if match.start()]  # type: ignore[arg-type]
    if len(starts) != count:
        return None
    return starts


class _Walk:
    """One walk of `value_offsets`: the text, the offsets found so far and how many paths
    are still to find."""

    __slots__ = ("text", "found", "left")

    def __init__(self, text: str, found: list[int | None], left: int) -> None:
        self.text = text
        self.found = found
        self.left = left

    def value(self, start: int, want: _Want) -> int:
        """Record the paths ending at the value at `start`, walk into it for those below
        it, and return the offset just past it."""
        ends, below, keys = want
        if ends:
            for number in ends:
                self.found[number] = start
            self.left -= len(ends)
            if not self.left:
                raise _Done
        text = self.text
        if not below:
            return _SCAN(text, start)[1]
        first = text[start]
        if first == "{":
            return self._object(start, below, keys)
        if keys:
            raise Unusual("a key into an array or a scalar")
        if first == "[":
            return self._array(start, below)
        return _SCAN(text, start)[1]  # an index into a scalar: not there

    def _object(self, start: int, below: dict[Any, Any], need: int) -> int:
        """Walk the object at `start` to the `need` members of `below` (an index names
        none); the offset just past it."""
        text = self.text
        member = _MEMBER.match
        position = start
        while True:
            if not need and position - start <= _RESCAN:
                # Every member asked for is found, near the start: the object in one scan
                # (reading those few members again costs less than a step per member left).
                return _SCAN(text, start)[1]
            match = member(text, position)
            if match is None:  # the end of the object (of an empty one, just past its `{`)
                closing = _CLOSE.match(text, position + 1 if position == start else position)
                return closing.end()  # type: ignore[union-attr]
            at = match.end()
            want = None
            if need:
                key = match.group(1)
                want = below.get(key[1:-1] if "\\" not in key else json.loads(key))
            if want is None:
                position = _SCAN(text, at)[1]
                continue
            need -= 1
            if want[1]:
                position = self.value(at, want)
                continue
            # A value asked for itself (the common case: the `id` of a case), inline.
            ends = want[0]
            for number in ends:
                self.found[number] = at
            self.left -= len(ends)
            if not self.left:
                raise _Done
            if not need and at - start <= _RESCAN:
                return _SCAN(text, start)[1]
            position = _SCAN(text, at)[1]

    def _array(self, start: int, below: dict[Any, Any]) -> int:
        """Walk the array at `start` to the items of `below`; the offset just past it."""
        text = self.text
        item = _ITEM.match
        value = self.value
        position = item(text, start).end()  # type: ignore[union-attr]
        if text[position] == "]":
            return position + 1
        index = 0
        while True:
            want = below.get(index)
            if want is None:
                position = _SCAN(text, position)[1]
            elif not want[0] and text[position] == "{":  # an object to walk into (a case, to its id)
                position = self._object(position, want[1], want[2])
            else:
                position = value(position, want)
            match = item(text, position)
            if match is None:
                return _CLOSE.match(text, position).end()  # type: ignore[union-attr]
            position = match.end()
            index += 1


def line_columns(text: str, offsets: Sequence[int | None]) -> list[tuple[int, int] | None]:
    """1-based `(line, column)` of each offset in `text` (None stays None), lines ending at
    `\\n`, columns counted in characters: what `JsonDocument.locate` gives for the same
    offset. One pass over the text, however many offsets."""
    order = sorted((offset, n) for n, offset in enumerate(offsets) if offset is not None)
    places: list[tuple[int, int] | None] = [None] * len(offsets)
    line, last_newline, previous = 1, -1, 0
    for offset, number in order:
        between = text.count("\n", previous, offset)
        if between:
            line += between
            last_newline = text.rfind("\n", previous, offset)
        places[number] = (line, offset - last_newline)
        previous = offset
    return places


def _byte_line_columns(body: bytes, offsets: Sequence[int | None]) -> list[tuple[int, int] | None]:
    """`line_columns` of the decoded text, for byte `offsets` (each at a character's start) in
    the UTF-8 `body`: lines end at `\\n`, columns count characters. Linear in the bytes: no
    byte is scanned again per offset (a long line holding many offsets is decoded piece by piece)."""
    order = sorted((offset, n) for n, offset in enumerate(offsets) if offset is not None)
    found: list[tuple[int, int] | None] = [None] * len(offsets)
    for (_, number), place in zip(order, _ordered_byte_line_columns(body, [offset for offset, _ in order])):
        found[number] = place
    return found


def _ordered_byte_line_columns(body: bytes, offsets: Sequence[int]) -> list[tuple[int, int]]:
    """`_byte_line_columns` of `offsets` given in order (none None, none smaller than the one
    before): no sort, and where `body` is ASCII, each column straight from the offset where
    its line starts."""
    found: list[tuple[int, int]] = []
    append = found.append
    count, rfind = body.count, body.rfind
    line, previous = 1, 0
    if body.isascii():
        line_start = 0
        for offset in offsets:
            between = count(b"\n", previous, offset)
            if between:
                line += between
                line_start = rfind(b"\n", previous, offset) + 1
            append((line, offset - line_start + 1))
            previous = offset
        return found
    column = 1
    for offset in offsets:
        between = count(b"\n", previous, offset)
        if between:
            line += between
            previous = rfind(b"\n", previous, offset) + 1
            column = 1
        piece = body[previous:offset]
        column += len(piece) if piece.isascii() else len(piece.decode("utf-8"))
        append((line, column))
        previous = offset
    return found
