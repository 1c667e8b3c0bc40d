"""Where chosen values sit in a JSON text, found without building its span tree.

Placing a validation error needs the offset of one member of one case (the `id` of a
duplicate, say), and a file with many such errors needs that for every case. The span
tree (`fixture_migrate.formats.json_text.parse_spans`) costs a regex match and a node per
token of the whole file. `value_offsets` walks only the containers on the way to the
values asked for, reading each key it passes and skipping every other value in one call
of the standard library's JSON scanner (C code), and stops once every value is found.
It gives the offsets the span tree gives (`JNode.start`: the first character of the
value), on valid JSON that repeats no key within an object: what a `JsonDocument` read
with `duplicates="refuse"` holds. A path of another shape than the data's (an index
into an object, a key into an array, a negative index) raises `Unusual`, and the caller
places by the span tree, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from json.scanner import make_scanner
from typing import Any

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


class Unusual(Exception):
    """A path or text this walk does not take: the caller places by the span tree."""


class _Done(Exception):
    """Every value asked for is found: the walk stops."""


_Want = list[Any]
"""A node of the tree of paths asked for: `[ends, below, keys]`, the numbers of the paths
that end here, per key or index the node below it, and how many of those are keys."""


def value_offsets(text: str, paths: Sequence[NodePath]) -> list[int | None]:
    """The offset in `text` (a valid JSON text that repeats no key within an object) of the
    value at each of `paths` (keys of objects and indexes of arrays, from the top-level
    value), or None for a path that is not in the text. Raises `Unusual` for a path that
    is neither (a key into an array, a negative index, a key of another type) or a text
    the scanner refuses."""
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
