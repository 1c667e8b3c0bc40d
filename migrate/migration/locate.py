"""Where in a file a validation error points: the line and column of the member concerned.

A validation error names a case (by skill and id) and a reason code; the
engine's `CaseOrigin` says which case of which file it is about. This module
picks the member the reason code is about (the `coverage_tags` holding an
invalid tag, the one `source_refs` entry that is missing, the `id` of a
duplicate, ...), in the case or, for values a case inherits, in the file, and
asks the document for its place. Where no member fits, the case itself is
placed; where the case is unknown (a case a migration makes from other data),
the file's first line.

`error_places` places many errors of a file at once (the document's `locate_all`: a JSON
file is then walked only to the members concerned, never parsed for spans), and
`CasePlaces` is the place of one kind of error in every case of a file, worked out only
when one is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats.target import Path as NodePath
from fixture_migrate.migration.reader import CaseOrigin, CaseOrigins, _case_paths, case_list

_CASE_MEMBERS: dict[str, tuple[str, ...]] = {
    c.MISSING_ID: ("id", "name"),
    c.MISSING_INPUT: c.INPUT_SOURCES,
    c.INVALID_COVERAGE_TAG: ("coverage_tags",),
    c.INVALID_SOURCE_REF_AUTHORITY: ("source_ref_authority",),
    c.MISSING_EXPECTED_OUTCOME: c.OUTCOME_SOURCES,
    c.DUPLICATE_CASE_ID: ("id", "name"),
}
"""Per reason code, the case members it is about, first present wins."""

_FILE_MEMBERS: dict[str, tuple[str, ...]] = {
    c.MISSING_SKILL: ("skill",),
    c.INVALID_COVERAGE_TAG: ("coverage_tags",),
    c.INVALID_SOURCE_REF_AUTHORITY: ("source_ref_authority",),
}
"""Per reason code, the file-level members it is about when the case has none (inherited)."""

_REF_CODES = frozenset(
    {c.INVALID_SOURCE_REF, c.SOURCE_REF_NOT_SOURCE_AUTHORITY, c.SOURCE_REF_MISSING, c.SOURCE_REF_OUTSIDE_REPO}
)


def _ref_path(data: Any, base: NodePath, message: str) -> NodePath | None:
    """The path of the `source_refs` entry (under `base`) that `message` ends with."""
    refs = data.get("source_refs") if isinstance(data, dict) else None
    if isinstance(refs, str):
        return (*base, "source_refs") if message.endswith(refs) else None
    if isinstance(refs, list):
        for i, ref in enumerate(refs):
            if isinstance(ref, str) and ref and message.endswith(ref):
                return (*base, "source_refs", i)
    return None


_MISSING: Any = object()


def _entry(data: Any, case: NodePath) -> Any:
    """The value at the path `case` in `data`, or `_MISSING` when it is not there."""
    entry = data
    try:
        for key in case:
            entry = entry[key]
    except (KeyError, IndexError, TypeError):
        return _MISSING
    return entry


def _case_member(entry: Any, case: NodePath, members: tuple[str, ...]) -> NodePath | None:
    """The path of the first of `members` the case `entry` (at `case`) has, or None."""
    if isinstance(entry, dict):
        for key in members:
            if key in entry:
                return (*case, key)
    return None


def member_path(data: Any, case: NodePath, error: dict[str, Any]) -> NodePath:
    """The payload path the error is about, in the unit `data`: a member of the case at
    `case`, a file-level member it inherits, or the case itself."""
    code = error.get("reason_code")
    entry = _entry(data, case)
    if entry is _MISSING:
        return case
    if code in _REF_CODES:
        message = str(error.get("message", ""))
        found = _ref_path(entry, case, message)
        if found is None and isinstance(data, dict):
            found = _ref_path(data, (), message)
        return found or case
    found = _case_member(entry, case, _CASE_MEMBERS.get(code, ()))
    if found is not None:
        return found
    if isinstance(data, dict) and len(case) == 2:
        for key in _FILE_MEMBERS.get(code, ()):
            if key in data:
                return (key,)
    return case


def member_paths(data: Any, cases: Sequence[NodePath], error: dict[str, Any]) -> list[NodePath]:
    """`member_path(data, case, error)` of each of `cases`: for an error of a reason code
    about case members alone (a duplicate id), the code is asked once, not per case."""
    code = error.get("reason_code")
    if code in _REF_CODES or code in _FILE_MEMBERS:
        return [member_path(data, case, error) for case in cases]
    members = _CASE_MEMBERS.get(code, ())
    paths: list[NodePath] = []
    for case in cases:
        found = _case_member(_entry(data, case), case, members)  # `_MISSING` is no dict: None
        paths.append(case if found is None else found)
    return paths


def error_place(origin: CaseOrigin, error: dict[str, Any]) -> tuple[int, int] | None:
    """1-based `(line, column)` of what `error` is about, or None when it cannot be told.

    An error that carries its own `line` (duplicate keys, non-object cases) keeps it.
    """
    if error.get("line"):
        return error["line"], error.get("column") or 1
    document = origin.file.document
    if document is None or origin.unit is None or origin.case is None:
        return None
    data = document.units[origin.unit].data
    try:
        return document.locate(origin.unit, member_path(data, origin.case, error))
    except FixtureError:  # a file read with a repeated key has no span tree to place by
        return None


Place = tuple[int, int] | None
"""1-based `(line, column)`, or None where it cannot be told."""


def error_places(origins: Sequence[CaseOrigin], errors: Sequence[dict[str, Any]]) -> list[Place]:
    """`error_place(origin, error)` of each pair of `origins` and `errors` (of one length),
    those of one unit placed by one call of its document's `locate_all`."""
    places: list[Place] = [None] * len(errors)
    groups: dict[tuple[int, int], tuple[Any, int, list[int], list[NodePath]]] = {}
    for number, (origin, error) in enumerate(zip(origins, errors, strict=True)):
        if error.get("line"):
            places[number] = error["line"], error.get("column") or 1
            continue
        document = origin.file.document
        unit = origin.unit
        if document is None or unit is None or origin.case is None:
            continue
        group = groups.get((id(document), unit))
        if group is None:
            group = groups[id(document), unit] = (document, unit, [], [])
        group[2].append(number)
        group[3].append(member_path(document.units[unit].data, origin.case, error))
    for document, unit, numbers, paths in groups.values():
        for number, place in zip(numbers, document.locate_all(unit, paths), strict=True):
            places[number] = place
    return places


class CasePlaces:
    """Where an error of one reason code would point in each case of a file (the `id` of a
    duplicate, say), by case index: `places[i]`. Worked out, for every case at once, the
    first time one is asked for (most files have no duplicate, and their cases are never
    placed). Pickled to another process (a `validate` worker's result), it travels as what
    is needed to place them there, still only when asked: for a JSON file its bytes and the
    payload path of each case's member, walked there from those bytes (never read from the
    disk again); for a file of another syntax its places, worked out before it leaves.

    `origins` are the cases' origins and `error` an error of that reason code (what
    `member_path` reads of it); `file` and `segments` are what travelled instead (see
    `_segments`).
    """

    __slots__ = ("_origins", "_error", "_file", "_segments", "_places")

    def __init__(
        self,
        origins: CaseOrigins | None = None,
        error: dict[str, Any] | None = None,
        file: tuple[Any, bytes] | None = None,
        segments: list[tuple[str, int, list[Any]]] | None = None,
    ) -> None:
        self._origins = origins
        self._error = error
        self._file = file
        self._segments = segments
        self._places: list[Place] | None = None

    def __getitem__(self, index: int) -> Place:
        places = self._places
        return (places if places is not None else self._worked_out())[index]

    def _worked_out(self) -> list[Place]:
        if self._origins is not None:
            assert self._error is not None
            segments, file = _segments(self._origins, self._error, defer=False)
        else:
            segments, file = self._segments or [], self._file
        places: list[Place] = []
        for kind, unit, value in segments:
            if kind == "at":
                places.extend(value)
            elif kind == "items":
                assert file is not None
                places.extend(_items_placed_in(file, unit, *value))
            else:
                assert file is not None
                places.extend(_placed_in(file, unit, value))
        self._places, self._origins, self._error, self._file, self._segments = places, None, None, None, None
        return places

    def __reduce__(self) -> tuple[Any, ...]:
        if self._places is not None:
            return CasePlaces, (None, None, None, [("at", 0, self._places)])
        if self._origins is None:
            return CasePlaces, (None, None, self._file, self._segments)
        assert self._error is not None
        segments, file = _segments(self._origins, self._error, defer=True)
        return CasePlaces, (None, None, file, segments)


def _segments(
    origins: CaseOrigins, error: dict[str, Any], *, defer: bool
) -> tuple[list[tuple[str, int, list[Any]]], tuple[Any, bytes] | None]:
    """Per unit of `origins`, `("at", unit, places)` or, with `defer`, for the units of one JSON
    file read with unique keys, `("json", unit, member paths)` to place later from that
    file's `(path, raw bytes)`, given beside; or, for a unit whose cases are every item of
    its case list and each has the member the error is about (`_every_case_has`),
    `("items", unit, [list path, member, count])`. A case without a place (no document, no
    unit, a file read despite a repeated key) is None."""
    segments: list[tuple[str, int, list[Any]]] = []
    file: tuple[Any, bytes] | None = None
    code = error.get("reason_code")
    # A code about a case member alone (a duplicate id): its first member is where most
    # cases point. Others (inherited members, source refs) take the general way.
    member = None if code in _REF_CODES or code in _FILE_MEMBERS else next(iter(_CASE_MEMBERS.get(code, ())), None)
    for loaded, index, count in origins.counts():
        document = loaded.document
        found = _every_case_has(loaded, index, count, member) if member is not None else None
        if found is not None:
            prefix, data = found
            if defer:
                if file is None or file[0] == document.path:  # type: ignore[union-attr]
                    file = (document.path, document.raw)  # type: ignore[union-attr]
                    segments.append(("items", index, [prefix, member, count]))
                    continue
            else:
                placed = _items_placed(document, prefix, member, data)  # type: ignore[arg-type]
                if placed is not None:
                    segments.append(("at", index, placed))
                    continue
                # Not proven: the same proof would fail again by the paths; walk to them.
                paths = [(*prefix, i, member) for i in range(count)]
                segments.append(("at", index, _placed_in((document.path, document.raw), index, paths, match=False)))  # type: ignore[union-attr]
                continue
        loaded, unit, cases = _case_paths(loaded, index, count)
        if document is None or unit is None or cases is None:
            segments.append(("at", -1, [None] * count))
            continue
        data = document.units[unit].data
        paths = member_paths(data, cases, error)
        json = getattr(document, "syntax", None) == "json" and getattr(document, "unique_keys", False)
        if defer and json and (file is None or file[0] == document.path):
            file = (document.path, document.raw)
            segments.append(("json", unit, paths))
        else:
            segments.append(("at", unit, document.locate_all(unit, paths)))
    return segments, file


def _every_case_has(loaded: Any, index: int, count: int, member: str) -> tuple[NodePath, Any] | None:
    """`(path of the case list, the unit's data)` when unit `index` of a JSON file read with
    unique keys (and no span tree built) gave its `count` cases from every item of its case
    list, and each has `member`: then the case at item `i` points at `(*path, i, member)`,
    as `member_paths` would find; else None."""
    document = loaded.document
    if document is None or getattr(document, "syntax", None) != "json" or not getattr(document, "unique_keys", False):
        return None
    if "spans" in document.__dict__ or index >= len(document.units):
        return None  # placed by the span tree, as `JsonDocument.locate_all` then places
    data = document.units[index].data
    found = case_list(data)
    if found is None:
        return None
    prefix, entries = found
    # As many cases as items: every item is an object (`_case_paths` counts those).
    if len(entries) != count:
        return None
    for entry in entries:
        if entry.__class__ is not dict or member not in entry:
            return None
    return prefix, data


def _items_placed(document: Any, prefix: NodePath, member: str, data: Any) -> list[Place] | None:
    """`json_places.item_member_places` of the JSON `document`'s bytes (None: not proven)."""
    from fixture_migrate.formats.json_places import item_member_places

    raw = document.raw
    return item_member_places(raw[3:] if document.bom else raw, prefix, member, data)  # type: ignore[return-value]


def _placed_in(file: tuple[Any, bytes], unit: int, paths: list[Any], *, match: bool = True) -> list[Place]:
    """`JsonDocument.locate_all` of `paths` in the JSON file `(path, raw bytes)` (read with
    unique keys), from those bytes: matched by key or walked to (`json_places.places`), or by its span
    tree where neither goes (`json_places.Unusual`)."""
    from fixture_migrate.formats import BOM
    from fixture_migrate.formats.json_format import JsonDocument
    from fixture_migrate.formats.json_places import Unusual, places

    path, raw = file
    try:
        return places(raw[3:] if raw.startswith(BOM) else raw, paths, match=match)
    except Unusual:
        document = JsonDocument(path, raw)
        document.spans  # noqa: B018 - built now: `locate_all` then places by it, matching and walking no more
        return document.locate_all(unit, paths)


def _items_placed_in(file: tuple[Any, bytes], unit: int, prefix: NodePath, member: str, count: int) -> list[Place]:
    """The places of `member` of each of the `count` items of the list at `prefix` in the
    JSON file `(path, raw bytes)` (read with unique keys): matched by key
    (`json_places.item_member_places`), else as `_placed_in` places their paths."""
    import orjson

    from fixture_migrate.formats import BOM
    from fixture_migrate.formats.json_places import item_member_places

    raw = file[1]
    body = raw[3:] if raw.startswith(BOM) else raw
    try:
        placed = item_member_places(body, prefix, member, orjson.loads(body))
    except orjson.JSONDecodeError:  # a number orjson refuses: the general way reads it
        placed = None
    if placed is not None and len(placed) == count:
        return placed  # type: ignore[return-value]
    return _placed_in(file, unit, [(*prefix, i, member) for i in range(count)], match=placed is not None)
