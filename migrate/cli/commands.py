"""The runs behind each subcommand: paths in, output and a `Report` out.

Each `run_*` function takes the resolved options, walks the paths, prints its
product on `out` (diffs, normalized cases, validation errors, detections) and
its messages through `report`, and returns the exit code the report decides.
The typer layer (`fixture_migrate.cli.app`) only parses options and calls these.

The streaming runs of `normalize` and `validate` each keep beside them the worker
function they map over files on `--jobs` processes. How each output format
prints is `fixture_migrate.cli.emitters`'s; the runs of `detect` and `suggest` are in
`fixture_migrate.cli.decisions`, those of `import` and `export` in
`fixture_migrate.cli.exchange`.

The `migrate` run itself (planning in parallel, the cache, the skip rule, the pin check,
the writes, the summary) is `fixture_migrate.migration.run`'s, shared with the API;
`run_migrate` prints its outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from fixture_migrate.cli import output
from fixture_migrate.cli.emitters import Emitter, emitter_class, emitter_for
from fixture_migrate.cli.jsontext import dump_json
from fixture_migrate.cli.report import Report
from fixture_migrate.config import iter_selected
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.parallel import ordered_map
from fixture_migrate.migration.engine import Engine, Options, unexpected
from fixture_migrate.migration.run import MigrateMode, MigrationRun, Outcome, scope_of
from fixture_migrate.migration.status import Status
from fixture_migrate.migration.unreadable import described

if TYPE_CHECKING:  # imported where used: a run imports only what its subcommand needs
    from fixture_migrate.cli.recording import Recorder
    from fixture_migrate.contract.validate import RefChecker, ValidationError
    from fixture_migrate.migration.reader import Reader
    from fixture_migrate.migration.validation import CheckedFile


def _display(path: Path) -> str:
    return path.as_posix()


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
    recorder: Recorder | None = None,
) -> int:
    """Migrate every fixture under `paths`; returns the exit code (0, 1 with `check`, 2 on errors).

    `output_format` is "text" (diffs and messages), "json" (one document of per-file
    records and the summary, at the end) or "github" (an annotation per file to migrate).
    The run is `fixture_migrate.migration.run.MigrationRun`'s: files are planned on up to
    `jobs` processes, and output and writes happen in file order, so any `jobs` gives the
    same output. With `use_cache`, files a cached verdict says need nothing are not planned
    again (`fixture_migrate.migration.cache`). This prints what the run gives. A `recorder`
    (`fixture_migrate.cli.recording`) takes the run's inputs for its record.
    """
    files = report.sources(iter_selected(paths, options))
    named = {path for path in paths if not path.is_dir()}
    scope = scope_of(paths, options.repo_root)
    run = MigrationRun.over(files, options, mode, named=named, pins=_pin_index, use_cache=use_cache, scope=scope)
    if recorder is not None:
        from fixture_migrate.migration.replay import Inputs

        run.inputs = Inputs()
    emit = emitter_for(output_format, out=out, root=options.repo_root)
    for family in run.engine.declared:
        for message in family.notes:
            report.note(f"note: {message}", always=True)
    records: list[dict[str, Any]] = []
    total = len(run.files) if isinstance(run.files, list) else None
    for outcome in run.outcomes(jobs=jobs, track=lambda plans: report.track(plans, "migrate", total)):
        result = outcome.result
        path = result.path
        if outcome.status in _QUIET:
            # Nothing of the file but its record in a document printed at the end, and a note
            # when verbose: neither made otherwise (a run over a large tree has one per file).
            if emit.one_document:
                records.append(_record(outcome))
            if report.verbose:
                _quiet_note(outcome, report)
            continue
        record = _record(outcome)
        if emit.one_document:  # only a document printed at the end needs every file's record
            records.append(record)
        if result.status is Status.ERROR:
            assert outcome.error is not None
            # An error that stays says what the file plainly is, when it is recognized.
            error = described(path, outcome.error, root=options.repo_root)
            report.error(_display(path), error)
            record["error"] = output.error_record(error)
            continue
        if result.status is Status.OTHER_TOOL:
            report.note(f"{_display(path)}: left for import: {result.reason}")
        elif result.status is Status.UNCLAIMED:
            report.note(
                f"{_display(path)}: not migrated: {result.reason}; "
                f"`fixture-migrate suggest {_display(path)}` drafts an adapter table for it"
            )
            emit.unclaimed(path, result.reason)
        elif outcome.status is Status.PINNED:
            record["pinned_by"] = outcome.pinned_by
            report.note(
                f"{_display(path)}: left as it is: pinned by `{outcome.pinned_by}` (its digest or size); "
                "`--include-pinned` migrates it",
                always=True,
            )
        else:
            _show_change(outcome, mode, emit=emit, report=report, record=record)
    summary = run.summary()
    for line in run.left.lines(verbose=report.verbose):
        report.note(line, always=True)
    emit.migrate_end(records, summary)
    report.summary_line(output.migrate_summary_text(summary, written=mode.write))
    run.save()
    if recorder is not None:
        recorder.take(run)
    return report.exit_code


_QUIET = frozenset({Status.NOT_FIXTURE, Status.SKIPPED, Status.UNCHANGED})
"""The outcomes `migrate` says nothing of but a note when verbose (not even made otherwise: a
run over a large tree makes one per file)."""


def _record(outcome: Outcome) -> dict[str, Any]:
    """The record of a file's outcome in `--output-format json`'s document (and what the
    other formats add to as they show it)."""
    result = outcome.result
    record: dict[str, Any] = {"path": _display(result.path), "status": outcome.status, "adapters": result.adapters}
    if result.reason and result.status not in (Status.CHANGED, Status.UNCHANGED):
        record["reason"] = result.reason  # a claimed file's reason is its adapter (detect -v says more)
    if result.import_from:
        record["import_from"] = result.import_from
    return record


def _quiet_note(outcome: Outcome, report: Report) -> None:
    """The verbose note of an outcome of `_QUIET`."""
    result = outcome.result
    shown = _display(result.path)
    if result.status is Status.NOT_FIXTURE:
        report.note(f"{shown}: not a fixture, skipped")
    elif result.status is Status.SKIPPED:
        report.note(f"{shown}: skipped: {result.reason}")
    else:
        report.note(f"{shown}: unchanged ({', '.join(result.adapters)})")


def _pin_index(repo_root: Path) -> Any:
    """The index of the files the repository pins (`fixture_migrate.consumers.pins`),
    imported by the first run that has a change to make."""
    from fixture_migrate.consumers.pins import PinIndex

    return PinIndex(repo_root)


def _show_change(outcome: Outcome, mode: MigrateMode, *, emit: Emitter, report: Report, record: dict[str, Any]) -> None:
    """Show one planned change (its diff when shown), or the failure of its write."""
    result = outcome.result
    shown = _display(result.path)
    if result.new_path is not None:
        shown += f" -> {_display(result.new_path)}"
    record.update(
        new_path=_display(result.new_path) if result.new_path is not None else None,
        cases=result.cases,
        moved_to_extensions=result.to_extensions,
    )
    if mode.diff:
        emit.diff(result.path, outcome.diff, record)
    if mode.check:
        report.found = True
    if outcome.status is Status.ERROR:  # the write failed
        assert outcome.error is not None
        report.error(_display(result.path), outcome.error)
        record["error"] = output.error_record(outcome.error)
        return
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


_READER: tuple[Reader, bool, type[Emitter]] | None = None


def _start_reader(options: Options, as_migrated: bool, output_format: str) -> None:
    from fixture_migrate.migration.reader import Reader

    global _READER
    _READER = (Reader(Engine(options, keep_moves=False)), as_migrated, emitter_class(output_format))


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
    processes, in file order), so memory does not grow with the number of files (to a file
    or pipe, in batches of `jsontext.BATCH_BYTES`, written before any message)."""
    files = report.sources(iter_selected(paths, options))
    total = len(files) if isinstance(files, list) else None
    results = ordered_map(
        _normalize_one, files, jobs=jobs, initializer=_start_reader, initargs=(options, as_migrated, output_format)
    )
    emit = emitter_for(output_format, out=out, root=options.repo_root)
    emit.cases_begin()
    try:
        for path, status, error, text, count in report.track(results, "normalize", total):
            if status is Status.ERROR:
                assert error is not None
                emit.cases_flush()  # the cases before it, then the message
                report.error(_display(path), error)
                continue
            if status is Status.NOT_FIXTURE:
                report.count(Status.NOT_FIXTURE)
                if report.verbose:
                    emit.cases_flush()
                report.note(f"{_display(path)}: not a fixture, skipped")
                continue
            if report.verbose:
                emit.cases_flush()
                report.note(f"{_display(path)}: {count} case(s)")
            if text:
                emit.cases(text)
    finally:
        emit.cases_flush()
    emit.cases_end()
    return report.exit_code


_VALIDATOR: tuple[Reader, RefChecker, bool, bool, bool] | None = None


def _start_validator(options: Options, check_refs: bool, as_migrated: bool, place: bool, keep_cases: bool) -> None:
    from fixture_migrate.contract.validate import RefChecker
    from fixture_migrate.migration.reader import Reader

    global _VALIDATOR
    refs = RefChecker(options.repo_root, check_exists=check_refs)
    _VALIDATOR = (Reader(Engine(options, keep_moves=False)), refs, as_migrated, place, keep_cases)


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
    ids per skill and bucket). The ids of a file are placed only when one of them turns
    out a duplicate (`CasePlaces`; a worker's result carries a JSON file's bytes to place
    them from in the main process, and the places of a file of another syntax).
    """
    from fixture_migrate.contract.validate import RefChecker
    from fixture_migrate.migration.validation import CaseKeys, DuplicateErrors, duplicate_error

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
        if checked.claims is not None and report.verbose:  # a note shown only when verbose
            words = checked.claims or ["not a fixture"]
            report.note(f"{_display(checked.path)}: {'; '.join(words)}")
        checked_files += checked.fixture
        found: list[tuple[ValidationError, Any]] = list(checked.head)
        keys = checked.keys
        if keys:
            # The cases whose key was met before, then each case's own errors and after them
            # its duplicate id, case by case.
            shared, ids, places = checked.shared, checked.ids, checked.dup_places
            owners = checked.owners
            if shared is not None:
                met = seen.meet(keys, _source_number(shared[1], sources, source_index))
            else:
                assert owners is not None
                met = []
                for index, key in enumerate(keys):
                    previous = seen.first(key, _source_number(owners[index][1], sources, source_index))
                    if previous >= 0:
                        met.append((index, previous))
            own = checked.errors
            next_own = 0
            same = DuplicateErrors(*shared) if shared is not None and met else None
            for index, previous in met:
                while next_own < len(own) and own[next_own][0] <= index:
                    found.extend(own[next_own][1])
                    next_own += 1
                if same is not None:
                    duplicate = same.error(ids[index], sources[previous])
                else:
                    skill, source_file = owners[index]  # type: ignore[index]
                    duplicate = duplicate_error(skill, ids[index], source_file, sources[previous])
                found.append((duplicate, places[index] if places is not None else None))
            for _, entries in own[next_own:]:
                found.extend(entries)
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
