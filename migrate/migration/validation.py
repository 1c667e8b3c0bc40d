"""A `validate` run file by file: each file read, normalized, validated and its errors
placed on its own (in a worker process when the run has several), so the run streams
and keeps nothing of a file once it is printed; duplicate ids across files are found by
the caller from the compact keys each file gives back."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xxhash import xxh3_64_intdigest

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import NormalizedCase
from fixture_migrate.contract.validate import RefChecker, ValidationError, make_error, validate_case
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.paths import relative_source
from fixture_migrate.migration.locate import CasePlaces, Place, error_place, error_places
from fixture_migrate.migration.reader import CaseOrigin, CaseOrigins, Reader
from fixture_migrate.slots import Record


class CheckedFile(Record):
    """One file's part of a `validate` run, worked out on its own (in a worker process when
    the run has several), so the run streams: nothing of the file is kept once it is printed.

    `problems` are the file's own errors (unreadable, bad syntax, a repeated key, a mapping
    failure), `fixture` whether any payload is claimed. Per normalized case, in order:
    `keys` the digest of the reference's `skill:id` key (`case_key`) and `ids` the id (what finding a duplicate id
    across files needs), with the case's skill and source file in `shared` when every case
    has the same ones (the common case), else per case in `owners`; `errors` the
    `(case index, errors)` of the cases that have some, each error with its `(line, column)`
    (None where unknown or not asked for); `dup_places`, when places are asked for, where a
    duplicate id of each case would point (`CasePlaces`: worked out when first asked for, for
    a JSON file in whichever process that is; a file of another syntax is placed before its
    record leaves a worker). `head` holds the errors before
    the cases (a repeated key), `tail` those after (non-object cases), each with its place;
    `normalized` the cases themselves when the run also reports readiness. Kept this
    compact because it travels between processes.
    """

    __slots__ = (
        "path",
        "name",
        "claims",
        "problems",
        "fixture",
        "head",
        "keys",
        "ids",
        "shared",
        "owners",
        "errors",
        "dup_places",
        "tail",
        "normalized",
    )

    def __init__(self, path: Path, name: str = "") -> None:
        self.path = path
        self.name = name
        self.claims: list[str] | None = None  # what `detect` says of each payload, once read
        self.problems: list[FixtureError] = []
        self.fixture = False
        self.head: list[tuple[ValidationError, Place]] = []
        self.keys: list[int] = []
        self.ids: list[Any] = []
        self.shared: tuple[Any, Any] | None = None
        self.owners: list[tuple[Any, Any]] | None = None
        self.errors: list[tuple[int, list[tuple[ValidationError, Place]]]] = []
        self.dup_places: CasePlaces | None = None
        self.tail: list[tuple[ValidationError, Place]] = []
        self.normalized: list[NormalizedCase] | None = None


def check_file(
    reader: Reader,
    path: Path,
    refs: RefChecker,
    *,
    as_migrated: bool = False,
    place: bool = True,
    keep_cases: bool = False,
) -> CheckedFile:
    """`validation_errors` for one file, without the duplicates across files (the caller
    keeps the `skill:id` keys it has met; see `CheckedFile`). With `place`, every error is
    given its line and column now, while the file's text is at hand."""
    # A case's source file, as `Options.context(path)` gives it (its skill is not needed here).
    source_file = relative_source(path, reader.engine.options.repo_root)
    checked = CheckedFile(path, source_file)
    loaded = reader.load(path, last_duplicate_wins=True)
    if loaded.error is not None:
        checked.problems.append(loaded.error)
        return checked
    from fixture_migrate.claiming.rules import claim_words

    checked.claims = [claim_words(claim) for claim in loaded.claims]
    checked.fixture = any(loaded.adapters)
    if loaded.duplicate is not None:
        checked.problems.append(loaded.duplicate)
        where = {"line": loaded.duplicate.line, "column": loaded.duplicate.column}
        entry = make_error(c.DUPLICATE_KEY, {"source_file": source_file}, loaded.duplicate.message, **where)
        checked.head.append((entry, error_place(CaseOrigin(loaded), entry) if place else None))
    origins = CaseOrigins()
    failed: list[tuple[int, list[ValidationError]]] = []
    digest = xxh3_64_intdigest
    # Most files hold one payload whose every case is valid: proven without normalizing it.
    clean = 0 if as_migrated or keep_cases else reader.clean_case_ids(loaded, refs)
    if clean.__class__ is not int:
        unit, skill, shared_file, ids = clean  # type: ignore[misc]
        origins.add(loaded, unit, len(ids))
        start = f"{skill}:"
        # `case_key`, inlined as below.
        checked.keys = [digest((start + case_id).encode("utf-8", "surrogatepass")) or 1 for case_id in ids]
        checked.ids = ids
        if ids:
            checked.shared = (skill, shared_file)
        _place(checked, origins, failed, place)
        _tail(checked, reader, loaded, source_file, place)
        return checked
    try:
        cases = reader.cases(loaded, as_migrated=as_migrated, origins=origins)
    except FixtureError as error:
        checked.problems.append(error)
        return checked
    if keep_cases:
        checked.normalized = cases
    keys, ids = checked.keys, checked.ids
    js_string = c.js_string
    # Every case of most files has the file's skill and source file (the same objects):
    # `shared` then, else each case's own in `owners`.
    shared = (cases[0].get("skill"), cases[0].get("source_file")) if cases else None
    proven = clean  # the first cases, proven valid already
    for index, entry in enumerate(cases):
        if index >= proven:  # type: ignore[operator]
            found = validate_case(entry, refs)
            if found:
                failed.append((index, found))
        get = entry.get
        skill, case_id = get("skill"), get("id")
        if skill.__class__ is str and case_id.__class__ is str:
            key = f"{skill}:{case_id}"
        else:
            key = f"{js_string(skill)}:{js_string(case_id)}"
        # `case_key`, inlined: 0 marks an empty slot of `CaseKeys`.
        keys.append(digest(key.encode("utf-8", "surrogatepass")) or 1)
        ids.append(case_id)
        if shared is not None and (skill is not shared[0] or get("source_file") is not shared[1]):
            shared = None
    if shared is not None:
        checked.shared = shared
    elif cases:
        checked.owners = [(entry.get("skill"), entry.get("source_file")) for entry in cases]
    _place(checked, origins, failed, place)
    _tail(checked, reader, loaded, source_file, place)
    return checked


def _place(
    checked: CheckedFile, origins: CaseOrigins, failed: list[tuple[int, list[ValidationError]]], place: bool
) -> None:
    """`checked.errors` from the errors `failed` of each case (by index), placed with `place`."""
    if place:
        # Every error of the file placed in one walk of its text (`error_places`); the place a
        # duplicate id would have, only if one turns up (`CasePlaces`).
        flat = [(origins[index], error) for index, found in failed for error in found]
        places = iter(error_places([origin for origin, _ in flat], [error for _, error in flat]))
        checked.errors = [(index, [(error, next(places)) for error in found]) for index, found in failed]
        checked.dup_places = CasePlaces(origins, {"reason_code": c.DUPLICATE_CASE_ID})
    else:
        checked.errors = [(index, [(error, None) for error in found]) for index, found in failed]


def _tail(checked: CheckedFile, reader: Reader, loaded: Any, source_file: str, place: bool) -> None:
    """The errors of the file's cases that are not objects, after the others."""
    for number, where in reader.non_object_cases(loaded):
        extra = {"line": where[0], "column": where[1]} if where else {}
        message = f"case {number} is not an object"
        entry = make_error(c.CASE_NOT_OBJECT, {"source_file": source_file, "id": None, "skill": None}, message, **extra)
        checked.tail.append((entry, error_place(CaseOrigin(loaded), entry) if place else None))
        # Bad input, as in every command (exit 2); listed among the reference's errors
        # too, as a repeated key is.
        line, column = where if where else (None, None)
        checked.problems.append(FixtureError(message, code=c.CASE_NOT_OBJECT, line=line, column=column))


def duplicate_error(skill: Any, case_id: Any, source_file: Any, previous: Any) -> ValidationError:
    """The `duplicate_case_id` error of a case whose `skill:id` key a case of `previous`
    (its source file) had first, as `CaseIdRegistry.check` makes it."""
    entry = {"skill": skill, "id": case_id, "source_file": source_file}
    message = f"duplicate case id for {c.js_string(skill)}: {c.js_string(case_id)}"
    return make_error(c.DUPLICATE_CASE_ID, entry, message, previous_source_file=previous)


class DuplicateErrors:
    """`duplicate_error` for the cases of one skill and one source file (every case of most
    files), with what their errors share worked out once: the skill and source file as an
    error shows them, and the start of the message. `error(case_id, previous)` is
    `duplicate_error(skill, case_id, source_file, previous)`, key for key."""

    __slots__ = ("_skill", "_source_file", "_start")

    def __init__(self, skill: Any, source_file: Any) -> None:
        self._skill = skill if c.js_truthy(skill) else None
        self._source_file = source_file if c.js_truthy(source_file) else None
        self._start = f"duplicate case id for {c.js_string(skill)}: "

    def error(self, case_id: Any, previous: Any) -> ValidationError:
        """The error of the case `case_id` whose key a case of `previous` had first."""
        if case_id.__class__ is str:
            shown, truthy = case_id, case_id != ""
        else:
            shown, truthy = c.js_string(case_id), c.js_truthy(case_id)
        return {
            "reason_code": c.DUPLICATE_CASE_ID,
            "message": self._start + shown,
            "skill": self._skill,
            "id": case_id if truthy else None,
            "source_file": self._source_file,
            "previous_source_file": previous,
        }


def _digest(key: str) -> int:
    """`case_key` of the reference's `skill:id` string `key`."""
    return xxh3_64_intdigest(key.encode("utf-8", "surrogatepass")) or 1  # 0 marks an empty slot of `CaseKeys`


def case_key(skill: Any, case_id: Any) -> int:
    """The compact key of a case id: a 64-bit digest (xxHash's XXH3; never 0) of the
    reference's `skill:id` string (`CaseIdRegistry`'s key). Two different keys share a
    digest with odds of about n\u00b2/2\u2076\u2075 over n ids (below 1e-7 at 1.6 million ids)."""
    return _digest(f"{c.js_string(skill)}:{c.js_string(case_id)}")


_QUICK_GROWTH = 1 << 17
"""Below this many slots, `CaseKeys` grows fourfold (up to 3 MiB), beyond it twofold."""


class CaseKeys:
    """The case ids a `validate` run has met, as `case_key` digests, each with the index of
    the source file of its first case: an open-addressed table in two flat arrays (12
    bytes a slot, at most 80% full), so its memory holds no object per id.
    """

    __slots__ = ("_keys", "_values", "_mask", "_used", "_limit")

    def __init__(self, size: int = 1 << 12) -> None:
        self._keys = array("Q", bytes(8 * size))
        self._values = array("i", bytes(4 * size))
        self._mask = size - 1
        self._used = 0
        self._limit = size * 4 // 5

    def __len__(self) -> int:
        return self._used

    def first(self, key: int, value: int) -> int:
        """The value of `key` when it was met before; else -1, after keeping `value` for it."""
        keys = self._keys
        slot = key & self._mask
        found = keys[slot]
        if found and found != key:  # probe on, by a step of the key's own (double hashing)
            mask = self._mask
            step = ((key >> 32) | 1) & mask
            while True:
                slot = (slot + step) & mask
                found = keys[slot]
                if not found or found == key:
                    break
        if found:
            return self._values[slot]
        keys[slot] = key
        self._values[slot] = value
        self._used += 1
        if self._used > self._limit:
            self._grow()
        return -1

    def meet(self, keys: Sequence[int], value: int) -> list[tuple[int, int]]:
        """`first(key, value)` of each of `keys` in turn (a later key finds an earlier one of
        the same call): the `(index in keys, value kept before)` of the keys met before."""
        met: list[tuple[int, int]] = []
        table, values, mask = self._keys, self._values, self._mask
        for index, key in enumerate(keys):
            slot = key & mask
            found = table[slot]
            if found and found != key:  # probe on, as `first` does
                step = ((key >> 32) | 1) & mask
                while True:
                    slot = (slot + step) & mask
                    found = table[slot]
                    if not found or found == key:
                        break
            if found:
                met.append((index, values[slot]))
                continue
            table[slot] = key
            values[slot] = value
            self._used += 1
            if self._used > self._limit:
                self._grow()
                table, values, mask = self._keys, self._values, self._mask
        return met

    def _grow(self) -> None:
        old_keys, old_values, used = self._keys, self._values, self._used
        # Four times as large while small (a run over 10,000 files grows three times, not
        # six, each growth a pass over every slot), twice beyond, so that past `_QUICK_GROWTH`
        # slots the table grows in step with the keys (below it, it takes at most 3 MiB).
        size = (4 if len(old_keys) < _QUICK_GROWTH else 2) * len(old_keys)
        self.__init__(size)  # type: ignore[misc]
        keys, values, mask = self._keys, self._values, self._mask
        for key, value in zip(old_keys, old_values):
            if key:
                slot = key & mask
                step = ((key >> 32) | 1) & mask
                while keys[slot]:
                    slot = (slot + step) & mask
                keys[slot] = key
                values[slot] = value
        self._used = used
