"""The runs behind each subcommand: paths in, output and a `Report` out.

Each `run_*` function takes the resolved options, walks the paths, prints its
product on `out` (diffs, normalized cases, validation errors, detections) and
its messages through `report`, and returns the exit code the report decides.
The typer layer (`fixture_migrate.cli.app`) only parses options and calls these.

The streaming runs (`migrate`, `normalize`, `validate`) each keep beside them the
worker function they map over files on `--jobs` processes. How each output format
prints is `fixture_migrate.cli.emitters`'s; the runs of `detect` and `suggest` are in
`fixture_migrate.cli.decisions`, those of `import` and `export` in
`fixture_migrate.cli.exchange`.

At some 570 lines (over the 500 the layout test asks a reason for), because the
`migrate` run loop still lives here with its per-status handling, grouping and pin
check; it belongs in the migration pipeline (`migration/run.py`), shared with the
API, which is where it goes next.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from fixture_migrate.cli import output
from fixture_migrate.cli.groups import NotMigrated
from fixture_migrate.cli.emitters import Emitter, emitter_class, emitter_for
from fixture_migrate.cli.jsontext import dump_json
from fixture_migrate.cli.report import Report
from fixture_migrate.config import iter_selected
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.diff import render_file_diff
from fixture_migrate.migration.engine import Engine, FileResult, Options, unexpected
from fixture_migrate.migration.status import Status
from fixture_migrate.files.parallel import Done, ordered_map
from fixture_migrate.files.paths import diff_name
from fixture_migrate.slots import Record

if TYPE_CHECKING:  # imported where used: a run imports only what its subcommand needs
    from fixture_migrate.contract.validate import RefChecker, ValidationError
    from fixture_migrate.migration.cache import Cache
    from fixture_migrate.migration.reader import Reader
    from fixture_migrate.migration.validation import CheckedFile


class MigrateMode(Record):
    """How `migrate` treats a planned change: `write` it, print its `diff`, and/or `check`
    (exit 1 when anything would change). `--diff` and `--check` never write."""

    __slots__ = ("diff", "check", "include_pinned")
    __hash__ = Record.value_hash

    def __init__(self, diff: bool = False, check: bool = False, include_pinned: bool = False) -> None:
        self.diff = diff
        self.check = check
        self.include_pinned = include_pinned

    @property
    def write(self) -> bool:
        return not (self.diff or self.check)


def _display(path: Path) -> str:
    return path.as_posix()


_WORKER: tuple[Engine, MigrateMode] | None = None


def _start_worker(options: Options, mode: MigrateMode, cache: Cache | None = None) -> None:
    global _WORKER
    _WORKER = (Engine(options, cache=cache, reuse_changes=not (mode.write or mode.diff)), mode)


def _plan_one(item: tuple[Path, FixtureError | None]) -> tuple[FileResult, str]:
    """Plan one file (in a worker process when the run has several): its result, and its
    diff when the mode shows diffs. Only what the main process needs travels back: the
    file's bytes only when writing."""
    path, error = item
    if error is not None:
        return FileResult(path, Status.ERROR, error=error), ""
    assert _WORKER is not None
    engine, mode = _WORKER
    result = engine.plan(path)
    diff = ""
    if result.status is Status.CHANGED and mode.diff:
        assert result.old_bytes is not None and result.new_bytes is not None
        root = engine.options.repo_root
        new_name = None if result.new_path is None else diff_name(result.new_path, root)
        diff = render_file_diff(
            result.old_bytes, result.new_bytes, diff_name(result.path, root), new_name, result.encoding
        )
    if result.status is Status.CHANGED and result.old_bytes is not None:
        from fixture_migrate.consumers.pins import fingerprint

        result.fingerprint = fingerprint(result.old_bytes)
    if not mode.write:
        result.old_bytes = result.new_bytes = None
    return result, diff


def _staged(engine: Engine, files: Iterable[tuple[Path, FixtureError | None]]) -> Iterator[Any]:
    """`files`, each as `Done` with its result when the cache has its verdict (decided here,
    in the main process: a file a cached verdict covers never travels to a worker)."""
    for item in files:
        if item[1] is None and engine.cache is not None:
            found = engine.cached(item[0])
            if found is not None:
                yield Done((found, ""))
                continue
        yield item


def run_migrate(
    paths: Sequence[Path],
    options: Options,
    mode: MigrateMode,
    *,
    out: TextIO,
    report: Report,
    output_format: str = "text",
    jobs: int = 1,
    use_cache: bool = False,
) -> int:
    """Migrate every fixture under `paths`; returns the exit code (0, 1 with `check`, 2 on errors).

    `output_format` is "text" (diffs and messages), "json" (one document of per-file
    records and the summary, at the end) or "github" (an annotation per file to migrate).
    Files are planned on up to `jobs` processes; output and writes happen in file
    order, so any `jobs` gives the same output. With `use_cache`, files a cached verdict
    says need nothing are not planned again (`fixture_migrate.migration.cache`).
    """
    files = report.sources(iter_selected(paths, options))
    if use_cache:
        # A run over one file gains nothing from a cache: it would only add its upkeep.
        head = list(itertools.islice(files, 2))
        files = itertools.chain(head, files) if not isinstance(files, list) else files
        use_cache = len(head) > 1
    cache = None
    if use_cache:
        from fixture_migrate.migration.cache import Cache

        cache = Cache.open(options)
    engine = Engine(options, cache=cache, reuse_changes=not (mode.write or mode.diff))
    emit = emitter_for(output_format, out=out, root=options.repo_root)
    for family in engine.declared:
        for message in family.notes:
            report.note(f"note: {message}", always=True)
    cases = 0
    moved: Counter[str] = Counter()
    records: list[dict[str, Any]] = []
    total = len(files) if isinstance(files, list) else None
    plans = ordered_map(
        _plan_one, _staged(engine, files), jobs=jobs, initializer=_start_worker, initargs=(options, mode, cache)
    )
    scanned = 0
    named = {path for path in paths if not path.is_dir()}
    other_tools: Counter[str] = Counter()
    left = NotMigrated()
    pins: list[Any] = []  # the index of pinned files, built at the first change (`_pinned`)
    pinned = 0
    for result, diff in report.track(plans, "migrate", total):
        scanned += 1
        path = result.path
        if cache is not None and result.cache_entry is not None:
            relative, digest = result.cache_entry
            cache.put(relative, digest, result)
        if result.status is Status.ERROR:
            _skip_or_describe(result, named=path in named, options=options)
        record: dict[str, Any] = {"path": _display(path), "status": result.status, "adapters": result.adapters}
        if result.reason and result.status not in (Status.CHANGED, Status.UNCHANGED):
            record["reason"] = result.reason  # a claimed file's reason is its adapter (detect -v says more)
        if result.import_from:
            record["import_from"] = result.import_from
        if emit.one_document:  # only a document printed at the end needs every file's record
            records.append(record)
        if result.status is Status.ERROR:
            assert result.error is not None
            report.error(_display(path), result.error)
            record["error"] = output.error_record(result.error)
            continue
        report.count(result.status)
        # The notes of "not a fixture", "skipped" and "unchanged" show only when verbose: not
        # even made otherwise (a run over a large tree makes one per file).
        if result.status is Status.NOT_FIXTURE:
            if report.verbose:
                report.note(f"{_display(path)}: not a fixture, skipped")
        elif result.status is Status.OTHER_TOOL:
            assert result.import_from is not None
            other_tools[result.import_from] += 1
            left.add(result, _display(path))
            report.note(f"{_display(path)}: left for import: {result.reason}")
        elif result.status is Status.UNCLAIMED:
            left.add(result, _display(path))
            report.note(
                f"{_display(path)}: not migrated: {result.reason}; "
                f"`fixture-migrate suggest {_display(path)}` drafts an adapter table for it"
            )
            emit.unclaimed(path, result.reason)
        elif result.status is Status.SKIPPED:
            if report.verbose:
                report.note(f"{_display(path)}: skipped: {result.reason}")
        elif result.status is Status.UNCHANGED:
            if report.verbose:
                report.note(f"{_display(path)}: unchanged ({', '.join(result.adapters)})")
        else:
            place = None if mode.include_pinned else _pinned(pins, result, options)
            if place is not None:
                report.counts[Status.CHANGED] -= 1
                pinned += 1
                record.update(status=Status.PINNED, pinned_by=place)
                report.note(
                    f"{_display(path)}: left as it is: pinned by `{place}` (its digest or size); "
                    "`--include-pinned` migrates it",
                    always=True,
                )
                continue
            if _handle_change(engine, result, diff, mode, emit=emit, report=report, record=record):
                cases += result.cases
                moved.update(result.to_extensions)
    summary = {
        "files_scanned": scanned,
        "migrated": report.counts[Status.CHANGED],
        "cases_migrated": cases,
        "unchanged": report.counts[Status.UNCHANGED],
        "not_fixtures": report.counts[Status.NOT_FIXTURE],
        "other_tools": dict(sorted(other_tools.items())),
        "unclaimed": report.counts[Status.UNCLAIMED],
        "skipped": report.counts[Status.SKIPPED],
        "errors": report.counts[Status.ERROR],
        "moved_to_extensions": dict(sorted(moved.items())),
        "written": mode.write,
        "families_not_migrated": left.families,
        "not_migrated": left.records(),
    }
    for line in left.lines(verbose=report.verbose):
        report.note(line, always=True)
    if pinned:
        summary["pinned"] = pinned
    emit.migrate_end(records, summary)
    report.summary_line(output.migrate_summary_text(summary, written=mode.write))
    if cache is not None:
        cache.save()
    return report.exit_code


def _pinned(pins: list[Any], result: FileResult, options: Options) -> str | None:
    """Where the repository pins the file of a planned change (`fixture_migrate.consumers.pins`),
    or None; the index is built on the first call of a run and kept in `pins`."""
    if result.fingerprint is None:
        return None
    if not pins:
        from fixture_migrate.consumers.pins import PinIndex

        pins.append(PinIndex(options.repo_root))
    return pins[0].pinned_by(result.path, result.fingerprint)


def _skip_or_describe(result: FileResult, *, named: bool, options: Options) -> None:
    """A walked file that cannot be read becomes "skipped" (with its reason) unless it lies
    where fixtures live (`fixture_migrate.migration.unreadable`); an error that stays says
    what the file plainly is, when it is recognized."""
    from fixture_migrate.migration.unreadable import described, skip_reason

    assert result.error is not None
    reason = skip_reason(result.path, result.error, named=named, repo_root=options.repo_root, options=options)
    if reason is not None:
        result.status, result.reason, result.error = Status.SKIPPED, reason, None
    else:
        result.error = described(result.path, result.error, root=options.repo_root)


def _handle_change(
    engine: Engine,
    result: FileResult,
    diff: str,
    mode: MigrateMode,
    *,
    emit: Emitter,
    report: Report,
    record: dict[str, Any],
) -> bool:
    """Show, check and/or write one planned change (`diff` its unified diff when shown);
    False when writing it failed."""
    shown = _display(result.path)
    if result.new_path is not None:
        shown += f" -> {_display(result.new_path)}"
    record.update(
        new_path=_display(result.new_path) if result.new_path is not None else None,
        cases=result.cases,
        moved_to_extensions=result.to_extensions,
    )
    if mode.diff:
        emit.diff(result.path, diff, record)
    if mode.check:
        report.found = True
    if mode.write:
        try:
            engine.apply(result)
        except FixtureError as error:
            report.counts[Status.CHANGED] -= 1
            report.error(_display(result.path), error)
            record.update(status=Status.ERROR, error=output.error_record(error))
            return False
    record["written"] = mode.write
    verb = "migrated" if mode.write else "would migrate"
    emit.change(
        result.path,
        verb=verb,
        shown=shown,
        adapters=result.adapters,
        line=result.first_changed_line,
        check=mode.check,
        write=mode.write,
    )
    report.note(f"{verb} {shown} ({', '.join(result.adapters)})", always=not mode.diff)
    return True


_READER: tuple[Reader, bool, type[Emitter]] | None = None


def _start_reader(options: Options, as_migrated: bool, output_format: str) -> None:
    from fixture_migrate.migration.reader import Reader

    global _READER
    _READER = (Reader(Engine(options)), as_migrated, emitter_class(output_format))


_Normalized = tuple[Path, Status | None, FixtureError | None, bytes, int]
"""What normalizing one file gives back (`_normalize_file`)."""


def _normalize_one(item: tuple[Path, FixtureError | None]) -> _Normalized:
    """Normalize one file; see `_normalize_file`. Anything unforeseen is this file's error."""
    try:
        return _normalize_file(item)
    except Exception as exc:  # noqa: BLE001 - one file never stops the run
        return item[0], Status.ERROR, unexpected(exc), b"", 0


def _normalize_file(item: tuple[Path, FixtureError | None]) -> _Normalized:
    """Normalize one file (in a worker process when the run has several).

    Returns `(path, status, error, text, cases)`: status None (its cases are read),
    `NOT_FIXTURE` or `ERROR`; `text` the file's cases already serialized as UTF-8 (the
    members of a JSON array, or JSON Lines), so only bytes travel back to the main process.
    """
    path, error = item
    if error is not None:
        return path, Status.ERROR, error, b"", 0
    assert _READER is not None
    reader, as_migrated, emitter = _READER
    loaded = reader.load(path)
    if loaded.error is not None:
        return path, Status.ERROR, loaded.error, b"", 0
    if not any(loaded.adapters):
        return path, Status.NOT_FIXTURE, None, b"", 0
    bad = reader.non_object_cases(loaded)
    if bad:
        number, where = bad[0]
        line, column = where or (None, None)
        problem = FixtureError(f"case {number} is not an object", code="case_not_object", line=line, column=column)
        return path, Status.ERROR, problem, b"", 0
    try:
        cases = reader.cases(loaded, as_migrated=as_migrated)
    except FixtureError as problem:
        return path, Status.ERROR, problem, b"", 0
    if not cases:
        return path, None, None, b"", 0
    return path, None, None, emitter.encode_cases(cases), len(cases)


def run_normalize(
    paths: Sequence[Path],
    options: Options,
    *,
    output_format: str,
    as_migrated: bool,
    out: TextIO,
    report: Report,
    jobs: int = 1,
) -> int:
    """Print the normalized cases of every fixture under `paths` as one JSON array (as the
    reference prints it) or as JSON Lines, file by file as they are read (on up to `jobs`
    processes, in file order), so memory does not grow with the number of files."""
    files = report.sources(iter_selected(paths, options))
    total = len(files) if isinstance(files, list) else None
    results = ordered_map(
        _normalize_one, files, jobs=jobs, initializer=_start_reader, initargs=(options, as_migrated, output_format)
    )
    emit = emitter_for(output_format, out=out, root=options.repo_root)
    emit.cases_begin()
    for path, status, error, text, count in report.track(results, "normalize", total):
        if status is Status.ERROR:
            assert error is not None
            report.error(_display(path), error)
            continue
        if status is Status.NOT_FIXTURE:
            report.count(Status.NOT_FIXTURE)
            report.note(f"{_display(path)}: not a fixture, skipped")
            continue
        if report.verbose:
            report.note(f"{_display(path)}: {count} case(s)")
        if text:
            emit.cases(text)
    emit.cases_end()
    return report.exit_code


_VALIDATOR: tuple[Reader, RefChecker, bool, bool, bool] | None = None


def _start_validator(options: Options, check_refs: bool, as_migrated: bool, place: bool, keep_cases: bool) -> None:
    from fixture_migrate.contract.validate import RefChecker
    from fixture_migrate.migration.reader import Reader

    global _VALIDATOR
    refs = RefChecker(options.repo_root, check_exists=check_refs)
    _VALIDATOR = (Reader(Engine(options)), refs, as_migrated, place, keep_cases)


def _validate_one(item: tuple[Path, FixtureError | None]) -> CheckedFile:
    """Validate one file (in a worker process when the run has several); see `check_file`."""
    from fixture_migrate.migration.validation import CheckedFile, check_file

    path, error = item
    checked = CheckedFile(path)
    if error is not None:
        checked.problems.append(error)
        return checked
    assert _VALIDATOR is not None
    reader, refs, as_migrated, place, keep_cases = _VALIDATOR
    try:
        return check_file(reader, path, refs, as_migrated=as_migrated, place=place, keep_cases=keep_cases)
    except Exception as exc:  # noqa: BLE001 - one file never stops the run
        checked.problems.append(unexpected(exc))
        return checked


def run_validate(
    paths: Sequence[Path],
    options: Options,
    *,
    check_refs: bool,
    output_format: str,
    as_migrated: bool,
    out: TextIO,
    report: Report,
    readiness: bool = False,
    jobs: int = 1,
) -> int:
    """Validate every fixture under `paths`; exit 1 on validation errors (or, with
    `readiness`, a skill missing a required bucket), 2 on bad input.

    `output_format`: "text" lines, "json" (the array of error objects; with `readiness`
    an object `{errors, readiness}`) or "github" (one annotation per error, on the line
    of the case or member concerned).

    Files are checked on up to `jobs` processes and their errors printed in file order
    as they come, each placed while its file's text is at hand: what the run keeps is
    one 64-bit digest of the `skill:id` key and the index of its first source file per
    case id (`CaseKeys`), for duplicates across files (and, with `readiness`, the case
    ids per skill and bucket). A file whose only errors are duplicates is read again
    once, to place them.
    """
    from fixture_migrate.contract.validate import RefChecker
    from fixture_migrate.migration.locate import error_place
    from fixture_migrate.migration.reader import CaseOrigin, Reader
    from fixture_migrate.migration.validation import CaseKeys, duplicate_error

    files = report.sources(iter_selected(paths, options))
    total = len(files) if isinstance(files, list) else None
    emit = emitter_for(output_format, out=out, root=options.repo_root)
    emit.validation_begin(readiness=readiness)
    place = emit.places_errors
    results = ordered_map(
        _validate_one,
        files,
        jobs=jobs,
        initializer=_start_validator,
        initargs=(options, check_refs, as_migrated, place, readiness),
    )
    reader: Reader | None = None  # for a duplicate id in a file that had no other error to place
    seen = CaseKeys()  # per case id met, the index in `sources` of its first case's source file
    sources: list[Any] = []
    source_index: dict[str, int] = {}
    skills: dict[Any, Any] | None = {} if readiness else None
    refs = RefChecker(options.repo_root, check_exists=check_refs) if readiness else None
    errors = problems = checked_files = 0
    for checked in report.track(results, "validate", total):
        for problem in checked.problems:
            report.error(_display(checked.path), problem)
        problems += len(checked.problems)
        if checked.claims is not None:
            words = checked.claims or ["not a fixture"]
            report.note(f"{_display(checked.path)}: {'; '.join(words)}")
        checked_files += checked.fixture
        found: list[tuple[ValidationError, Any]] = list(checked.head)
        own = iter(checked.errors)
        next_own = next(own, None)
        loaded = None  # this file read again, once, to place duplicates the worker could not
        shared_index = -1
        for index, key in enumerate(checked.keys):
            if next_own is not None and next_own[0] == index:
                found.extend(next_own[1])
                next_own = next(own, None)
            skill, source_file = checked.shared or checked.owners[index]  # type: ignore[index]
            if checked.shared is not None and shared_index >= 0:
                number = shared_index
            else:
                number = _source_number(source_file, sources, source_index)
                if checked.shared is not None:
                    shared_index = number
            previous = seen.first(key, number)
            if previous < 0:
                continue
            duplicate = duplicate_error(skill, checked.ids[index], source_file, sources[previous])
            dup_place = checked.dup_places[index] if checked.dup_places is not None else None
            origin = checked.origins[index] if checked.origins is not None else None
            if dup_place is None and origin is not None and origin[1] is not None:
                if loaded is None:
                    if reader is None:
                        reader = Reader(Engine(options))
                    loaded = reader.load(checked.path, last_duplicate_wins=True)
                dup_place = error_place(CaseOrigin(loaded, *origin), duplicate)
            found.append((duplicate, dup_place))
        found.extend(checked.tail)
        errors += len(found)
        if skills is not None and checked.normalized:
            from fixture_migrate.contract.readiness import add_readiness

            assert refs is not None
            add_readiness(skills, checked.normalized, refs)
        if found:
            emit.validation_errors(checked.path, found)
    ready = list(skills.values()) if skills is not None else None
    emit.validation_end(ready)
    report.found = bool(errors) or (ready is not None and not all(skill.ready for skill in ready))
    parts = [("files checked", checked_files), ("validation errors", errors), ("file errors", problems)]
    if ready is not None:
        parts.append(("skills not ready", sum(1 for skill in ready if not skill.ready)))
    report.summary(parts)
    return report.exit_code


def _source_number(source_file: Any, sources: list[Any], index: dict[str, int]) -> int:
    """The index of `source_file` in `sources`, appended when new. Only strings (what a
    source file is, but for hostile input) are shared by equal value; any other value
    gets an index of its own, so it is printed exactly as its case had it."""
    if source_file.__class__ is not str:
        sources.append(source_file)
        return len(sources) - 1
    number = index.get(source_file)
    if number is None:
        number = index[source_file] = len(sources)
        sources.append(source_file)
    return number


def run_schema(*, out: TextIO) -> int:
    """Print the JSON Schema (draft 2020-12) of a canonical v1 file."""
    from fixture_migrate.contract.schema import canonical_schema

    out.write(dump_json(canonical_schema()) + "\n")
    return 0


def run_adapters(*, out: TextIO) -> int:
    """Print the registered adapters, one line each, in detection order."""
    from fixture_migrate.claiming.registry import default_registry

    adapters = list(default_registry())
    width = max(len(adapter.name) for adapter in adapters)
    for adapter in adapters:
        out.write(f"{adapter.name:<{width}}  {adapter.kind:<9}  {adapter.summary}\n")
    return 0
