"""The read side: files read for `normalize`, `validate` and `detect`, the normalized cases
of each, and their validation errors placed at the case they are about."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from fixture_migrate.claiming.rules import Claim, Verdict
from fixture_migrate.adapting.protocol import Adapter
from fixture_migrate.claiming.registry import load_builtin
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import NormalizedCase
from fixture_migrate.contract.validate import (
    CaseIdRegistry,
    RefChecker,
    ValidationError,
    clean_case_ids,
    make_error,
    validate_cases,
)
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import Document, load_document
from fixture_migrate.formats.target import Path as NodePath
from fixture_migrate.migration.engine import (
    Engine,
    migrated_cases,
    place_error,
    reference_cases,
    unexpected,
)
from fixture_migrate.migration.status import Status
from fixture_migrate.slots import Record


class LoadedFile(Record):
    """A file read for `normalize`, `validate` or `detect`: its document and adapters, or its
    error; `duplicate` a repeated key, read as JSON.parse reads it (the last one wins)."""

    __slots__ = ("path", "document", "adapters", "error", "duplicate", "claims")

    def __init__(
        self,
        path: Path,
        document: Document | None = None,
        adapters: list[Adapter | None] | None = None,
        error: FixtureError | None = None,
        duplicate: FixtureError | None = None,
        claims: list[Claim] | None = None,
    ) -> None:
        self.path = path
        self.claims = [] if claims is None else claims
        self.document = document
        self.adapters = [] if adapters is None else adapters
        self.error = error
        self.duplicate = duplicate


_PROOF_WARM_UP = 32
"""Files `Reader.clean_case_ids` tries before it may pass over some."""

_PROOF_SAMPLE = 16
"""Where proofs mostly fail, `Reader.clean_case_ids` tries one file in this many."""


class Reader:
    """Reads fixtures for the read-only commands, with the engine's registry and options."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # What `clean_case_ids` has met: proofs tried, proofs complete (both halved now and
        # then), files met while proofs mostly fail.
        self._tried = self._complete = self._sampled = 0

    def load(self, path: Path, *, last_duplicate_wins: bool = False) -> LoadedFile:
        """Read and detect one file. With `last_duplicate_wins`, a JSON file with a repeated
        key is read as the reference reads it (the last one wins) and the repeat is kept
        in `duplicate`, so validation can report it beside the reference's errors. A symlink
        leading outside the repo root is refused, as `migrate` refuses it. Errors, foreseen
        or not, are in the result: one file never stops the run."""
        try:
            return self._load(path, last_duplicate_wins)
        except Exception as exc:  # noqa: BLE001 - reported per file
            return LoadedFile(path, error=unexpected(exc))

    def _load(self, path: Path, last_duplicate_wins: bool) -> LoadedFile:
        py_names = self.engine.options.py_names
        duplicate = None
        try:
            raw = self.engine.read(path)
            try:
                document = load_document(path, raw, py_names=py_names)
            except FixtureError as error:
                if error.code != "duplicate_key" or not last_duplicate_wins:
                    raise
                duplicate = error
                try:  # the same bytes again, as the reference reads them
                    document = load_document(path, raw, duplicates="last", py_names=py_names)
                except FixtureError:
                    raise error from None
            claims = self.engine.decide(document)
        except FixtureError as error:
            return LoadedFile(path, error=error)
        return LoadedFile(path, document, self._readers(document, claims), duplicate=duplicate, claims=claims)

    def _readers(self, document: Document, claims: list[Claim]) -> list[Adapter | None]:
        """The adapter each unit is read with: its claim's; for an unclaimed payload (a local
        family `migrate` leaves alone) the `generic` one, so `normalize` and `validate` give
        the reference's view of every file the reference reads, claimed or not."""
        readers: list[Adapter | None] = []
        for unit, claim in zip(document.units, claims, strict=True):
            if claim.adapter is None and claim.status == Verdict.UNCLAIMED and unit.shape == "payload":
                readers.append(load_builtin("generic"))
            else:
                readers.append(claim.adapter)
        return readers

    def cases(
        self, loaded: LoadedFile, *, as_migrated: bool = False, origins: CaseOrigins | None = None
    ) -> list[NormalizedCase]:
        """The normalized cases of a loaded file: the reference's view of each payload,
        or with `as_migrated` (and for bare case lists, which the reference cannot read)
        the view of its migration. Raises `FixtureError` for a mapping failure, or for
        anything unforeseen (`unexpected`), so the caller reports it for this file.

        With `origins`, the `CaseOrigin` of each returned case is added to it: where the
        case is in the file (None for a case a migration makes from other data)."""
        try:
            return self._cases(loaded, as_migrated, origins)
        except FixtureError:
            raise
        except Exception as exc:  # noqa: BLE001 - the caller reports it for this file
            raise unexpected(exc) from None

    def _cases(self, loaded: LoadedFile, as_migrated: bool, origins: CaseOrigins | None) -> list[NormalizedCase]:
        assert loaded.document is not None
        if not as_migrated:
            return self._read_cases(loaded, loaded, origins)
        # As `normalize` reads the file once `migrate` has run: the planned bytes read back,
        # under the new name when the file moves (JSONL). A file `migrate` would refuse has
        # only its refusal; one read despite a repeated key (reported already) has none.
        if loaded.duplicate is not None:
            return []
        planned = self.engine.plan_bytes(loaded.path, loaded.document.raw)
        if planned.error is not None:
            raise planned.error
        if planned.status != Status.CHANGED:
            return self._read_cases(loaded, loaded, origins)
        assert planned.new_bytes is not None
        path = planned.new_path or loaded.path
        document = load_document(path, planned.new_bytes, py_names=self.engine.options.py_names)
        return self._read_cases(LoadedFile(path, document, self.engine.detect(document)), loaded, origins)

    def _read_cases(
        self, file: LoadedFile, placed_in: LoadedFile, origins: CaseOrigins | None
    ) -> list[NormalizedCase]:
        """The normalized cases of `file`: the reference's view of each payload, the view of
        its migration for a bare case list (which the reference cannot read). `origins` get
        the places of the cases in `placed_in` (the file on disk), where they line up."""
        assert file.document is not None
        context = self.engine.options.context(file.path)
        cases: list[NormalizedCase] = []
        for index, (unit, adapter) in enumerate(zip(file.document.units, file.adapters, strict=True)):
            if adapter is None:
                continue
            if unit.shape != "payload":
                try:
                    found = migrated_cases(unit, adapter, context)
                except FixtureError as error:
                    raise place_error(error, file.document, index) from None
            else:
                found = reference_cases(unit, context)
            cases.extend(found)
            if origins is not None:
                origins.add(placed_in, index, len(found))
        return cases

    def clean_case_ids(self, loaded: LoadedFile, refs: RefChecker) -> tuple[int, str, str | None, list[str]] | int:
        """For a file with one payload to read (one unit with an adapter, not a bare case
        list): `(unit index, skill, source file, ids)` of its normalized cases when
        `validate_case` finds no error in any of them (`contract.validate.clean_case_ids`),
        proven without normalizing them; the skill and source file are those of every such
        case. Else how many of its first normalized cases are proven valid (0 for any other
        file); the caller reads them with `cases`.

        A proof that fails is work spent for nothing: where fewer than one file in four of
        the last ones read was proven, only one file in `_PROOF_SAMPLE` is tried (so a run
        over files that all have errors costs about what it did without proofs, and a run
        whose files turn valid finds it out). What is returned never depends on that."""
        if self._tried >= _PROOF_WARM_UP and self._complete * 4 < self._tried:
            self._sampled += 1
            if self._sampled % _PROOF_SAMPLE:
                return 0
        found = self._proven(loaded, refs)
        self._tried += 1
        if found.__class__ is not int:
            self._complete += 1
        if self._tried >= 2 * _PROOF_WARM_UP * _PROOF_SAMPLE:  # the recent files weigh most
            self._tried //= 2
            self._complete //= 2
        return found

    def _proven(self, loaded: LoadedFile, refs: RefChecker) -> tuple[int, str, str | None, list[str]] | int:
        assert loaded.document is not None
        found = None
        for index, (unit, adapter) in enumerate(zip(loaded.document.units, loaded.adapters, strict=True)):
            if adapter is None:
                continue
            if found is not None or unit.shape != "payload":
                return 0
            found = index, unit
        if found is None:
            return 0
        index, unit = found
        context = self.engine.options.context(loaded.path)
        clean = clean_case_ids(unit.data, refs, source_file=context.source_file, skill=context.skill)
        if clean.__class__ is int:
            return clean  # type: ignore[return-value]
        return index, clean[0], context.source_file, clean[1]  # type: ignore[index]

    def non_object_cases(self, loaded: LoadedFile) -> list[tuple[int, tuple[int, int] | None]]:
        """`(case number, place)` of each case that is not an object, over the file's payloads
        (the place None where it cannot be told: a file read despite a repeated key)."""
        assert loaded.document is not None
        found = []
        for index, (unit, adapter) in enumerate(zip(loaded.document.units, loaded.adapters, strict=True)):
            if adapter is None or unit.shape != "payload":
                continue
            data = unit.data
            key = "cases" if isinstance(data.get("cases"), list) else "examples"
            entries = data.get(key)
            if not isinstance(entries, list) or _DICT_ONLY.issuperset(map(type, entries)):
                continue  # no case list, or every case a plain dict (told in C)
            for i, entry in enumerate(entries):
                if not isinstance(entry, dict):
                    try:
                        place = loaded.document.locate(index, (key, i))
                    except FixtureError:  # a file read despite a repeated key has no span tree to place by
                        place = None
                    found.append((i + 1, place))
        return found


_DICT_ONLY = frozenset((dict,))


class CaseOrigin(Record):
    """Where a normalized case (or a validation error) comes from: the file, the unit of its
    document and the payload path of the case (`("cases", 3)`; None where unknown)."""

    __slots__ = ("file", "unit", "case")

    def __init__(self, file: LoadedFile, unit: int | None = None, case: tuple[str | int, ...] | None = None) -> None:
        self.file = file
        self.unit = unit
        self.case = case


class CaseOrigins(Sequence[CaseOrigin]):
    """The `CaseOrigin` of each normalized case of a file, in order, made only when one is
    asked for (most cases of a run are never placed): what is kept is, per unit read, the
    file, the unit's index and how many cases it gave."""

    __slots__ = ("_units", "_made")

    def __init__(self) -> None:
        self._units: list[tuple[LoadedFile, int, int]] = []
        self._made: list[CaseOrigin] | None = None

    def add(self, loaded: LoadedFile, index: int, count: int) -> None:
        """The `count` cases normalized from unit `index` of `loaded` come next."""
        self._units.append((loaded, index, count))
        self._made = None

    def counts(self) -> list[tuple[LoadedFile, int, int]]:
        """Per unit read: the file, the unit's index and how many cases it gave (what
        `units` works out the rest from)."""
        return list(self._units)

    def units(self) -> list[tuple[LoadedFile, int | None, list[NodePath] | None, int]]:
        """Per unit read: the file, the unit's index (None when the file has no such unit),
        the payload path of each of its cases (None when unknown), as `CaseOrigin`s say
        them, and how many cases it gave."""
        return [(*_case_paths(loaded, index, count), count) for loaded, index, count in self._units]

    def _all(self) -> list[CaseOrigin]:
        made = self._made
        if made is None:
            made = self._made = []
            for loaded, unit, paths, count in self.units():
                if paths is None:
                    made.extend(CaseOrigin(loaded, unit) for _ in range(count))
                else:
                    made.extend(CaseOrigin(loaded, unit, path) for path in paths)
        return made

    def __len__(self) -> int:
        return sum(count for _, _, count in self._units)

    def __getitem__(self, index: int) -> CaseOrigin:  # type: ignore[override]
        return self._all()[index]

    def __iter__(self) -> Iterator[CaseOrigin]:
        return iter(self._all())


def _case_paths(loaded: LoadedFile, index: int, count: int) -> tuple[LoadedFile, int | None, list[NodePath] | None]:
    """Where the `count` cases normalized from unit `index` are: the object entries of its
    case list in order, when their number is `count`; else unknown (and where the unit
    itself is not in the file, it is unknown too)."""
    assert loaded.document is not None
    if index >= len(loaded.document.units):
        return loaded, None, None
    found = case_list(loaded.document.units[index].data)
    prefix, entries = found if found is not None else ((), [])
    paths: list[NodePath] = [(*prefix, i) for i, entry in enumerate(entries) if isinstance(entry, dict)]
    if len(paths) != count:
        return loaded, index, None
    return loaded, index, paths


def validation_errors(
    reader: Reader,
    files: list[LoadedFile],
    refs: RefChecker,
    *,
    as_migrated: bool = False,
    places: list[CaseOrigin] | None = None,
) -> tuple[list[ValidationError], list[tuple[Path, FixtureError]]]:
    """The validation errors of all `files` (duplicate ids across them), and the files'
    own errors (unreadable, bad syntax), in file order. With `places`, one `CaseOrigin`
    per error is appended to it (the case the error is about, where known)."""
    ids = CaseIdRegistry()
    errors: list[ValidationError] = []
    problems: list[tuple[Path, FixtureError]] = []
    for loaded in files:
        if loaded.error is not None:
            problems.append((loaded.path, loaded.error))
            continue
        source_file = reader.engine.options.context(loaded.path).source_file
        if loaded.duplicate is not None:
            problems.append((loaded.path, loaded.duplicate))
            where = {"line": loaded.duplicate.line, "column": loaded.duplicate.column}
            entry = {"source_file": source_file}
            errors.append(make_error(c.DUPLICATE_KEY, entry, loaded.duplicate.message, **where))
            if places is not None:
                places.append(CaseOrigin(loaded))
        origins = CaseOrigins() if places is not None else None
        try:
            cases = reader.cases(loaded, as_migrated=as_migrated, origins=origins)
        except FixtureError as error:
            problems.append((loaded.path, error))
            continue
        if places is None or origins is None:
            errors.extend(validate_cases(cases, refs, ids))
        else:
            for case, origin in zip(cases, origins, strict=True):
                found = validate_cases([case], refs, ids)
                errors.extend(found)
                places.extend([origin] * len(found))
        for number, where in reader.non_object_cases(loaded):
            extra = {"line": where[0], "column": where[1]} if where else {}
            entry = {"source_file": source_file, "id": None, "skill": None}
            message = f"case {number} is not an object"
            errors.append(make_error(c.CASE_NOT_OBJECT, entry, message, **extra))
            # Bad input, as in every command (exit 2); listed among the reference's errors
            # too, as a repeated key is.
            line, column = where if where else (None, None)
            problems.append((loaded.path, FixtureError(message, code=c.CASE_NOT_OBJECT, line=line, column=column)))
            if places is not None:
                places.append(CaseOrigin(loaded))
    return errors, problems


def case_list(data: Any) -> tuple[NodePath, list[Any]] | None:
    """`(its payload path, the list)` of the case list of a unit's `data`: the unit itself
    when it is a bare case list (path `()`), else its `cases` or, failing that, `examples`
    array (the reference's case list); None when it has none."""
    if isinstance(data, list):
        return (), data
    if isinstance(data, dict):
        for key in ("cases", "examples"):
            if isinstance(data.get(key), list):
                return (key,), data[key]
    return None
