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
from fixture_migrate.migration.reader import CaseOrigin, CaseOrigins

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


def member_path(data: Any, case: NodePath, error: dict[str, Any]) -> NodePath:
    """The payload path the error is about, in the unit `data`: a member of the case at
    `case`, a file-level member it inherits, or the case itself."""
    code = error.get("reason_code")
    entry: Any = data
    try:
        for key in case:
            entry = entry[key]
    except (KeyError, IndexError, TypeError):
        return case
    if code in _REF_CODES:
        message = str(error.get("message", ""))
        found = _ref_path(entry, case, message)
        if found is None and isinstance(data, dict):
            found = _ref_path(data, (), message)
        return found or case
    if isinstance(entry, dict):
        for key in _CASE_MEMBERS.get(code, ()):
            if key in entry:
                return (*case, key)
    if isinstance(data, dict) and len(case) == 2:
        for key in _FILE_MEMBERS.get(code, ()):
            if key in data:
                return (key,)
    return case


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
    placed). Pickled to another process (a `validate` worker's result), it travels as
    what is needed to place them there, still only when asked: for a JSON file its bytes
    and the payload path of each case's member (`_Sent`), for any other its places,
    worked out before it leaves (the file it was read from stays behind).

    `origins` are the cases' origins, `error` an error of that reason code (what
    `error_place` reads of it: its code, its line if it has one); or `places`, known.
    """

    __slots__ = ("_origins", "_error", "_places")

    def __init__(
        self,
        origins: CaseOrigins | None = None,
        error: dict[str, Any] | None = None,
        places: Sequence[Place] | None = None,
    ) -> None:
        self._origins = origins
        self._error = error
        self._places = places

    def _worked_out(self) -> Sequence[Place]:
        """`error_place` of every case, as `error_places` gives it, from the origins' paths
        (no `CaseOrigin` made)."""
        places = self._places
        if places is not None:
            return places
        origins, error = self._origins, self._error
        assert origins is not None and error is not None
        places = []
        for loaded, unit, cases, count in origins.units():
            document = loaded.document
            if error.get("line"):
                places.extend([(error["line"], error.get("column") or 1)] * count)
            elif document is None or unit is None or cases is None:
                places.extend([None] * count)
            else:
                data = document.units[unit].data
                places.extend(document.locate_all(unit, [member_path(data, case, error) for case in cases]))
        self._places, self._origins, self._error = places, None, None
        return places

    def __getitem__(self, index: int) -> Place:
        places = self._places
        return (places if places is not None else self._worked_out())[index]

    def __len__(self) -> int:
        return len(self._worked_out())

    def __reduce__(self) -> tuple[Any, ...]:
        if self._places is not None:
            return CasePlaces, (None, None, tuple(self._places))
        origins, error = self._origins, self._error
        assert origins is not None and error is not None
        segments: list[tuple[Any, ...]] = []  # per unit: ("at", place, count) or ("json", unit, paths)
        sent: tuple[Any, bytes] | None = None
        for loaded, unit, cases, count in origins.units():
            document = loaded.document
            if error.get("line"):
                segments.append(("at", (error["line"], error.get("column") or 1), count))
            elif document is None or unit is None or cases is None:
                segments.append(("at", None, count))
            else:
                data = document.units[unit].data
                paths = [member_path(data, case, error) for case in cases]
                if getattr(document, "syntax", None) == "json" and (sent is None or sent[0] == document.path):
                    sent = (document.path, document.raw)
                    segments.append(("json", unit, paths, getattr(document, "unique_keys", True)))
                else:  # another syntax: placed here, before it leaves
                    segments.extend(("at", place, 1) for place in document.locate_all(unit, paths))
        return CasePlaces, (None, None, _Sent(sent, segments))


class _Sent(Sequence[Place]):
    """A `CasePlaces` as it travels between processes: the JSON file's `(path, raw bytes)`
    and, per unit, the places known (`("at", place, count)`) or the payload paths to place
    in that file (`("json", unit, paths, unique_keys)`). The file is read again from these
    bytes (never from the disk) and walked the first time a place is asked for."""

    __slots__ = ("_file", "_segments", "_places")

    def __init__(self, file: tuple[Any, bytes] | None, segments: list[tuple[Any, ...]]) -> None:
        self._file = file
        self._segments = segments
        self._places: list[Place] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return _Sent, (self._file, self._segments) if self._places is None else (None, [("at", p, 1) for p in self._places])

    def _worked_out(self) -> list[Place]:
        places = self._places
        if places is not None:
            return places
        places = []
        document = None
        for segment in self._segments:
            if segment[0] == "at":
                places.extend([segment[1]] * segment[2])
                continue
            _, unit, paths, unique_keys = segment
            if document is None:
                from fixture_migrate.formats.json_format import JsonDocument

                assert self._file is not None
                path, raw = self._file
                document = JsonDocument(path, raw, duplicates="refuse" if unique_keys else "last")
            places.extend(document.locate_all(unit, paths))
        self._places, self._file, self._segments = places, None, []
        return places

    def __getitem__(self, index: int) -> Place:  # type: ignore[override]
        places = self._places
        return (places if places is not None else self._worked_out())[index]

    def __len__(self) -> int:
        return len(self._worked_out())
