"""The checks of an export: what it refuses, and the losses no adapter sees.

- `refuse_invalid`: PATHS are validated first (`validate --no-ref-check`); errors that
  make an export wrong stop it at their place, the others are warnings.
- `refuse_different_files`: several PATHS go into one DEST only when the file-level
  data the target writes is the same.
- `refuse_canonical_dest`, `refuse_foreign_dest`: an existing DEST is replaced only
  when it is not canonical and is export's own earlier output: each record marked
  `fixture_migrate`, or data-equal to a record the cases export to now or were imported
  from (`foreign_records`); `--force` replaces it, its records listed as losses.
- `file_losses`, `csv_losses`: file-level members the target has no place for, and
  CSV cells that hold a value as text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError
from fixture_migrate.importing.base import DROPPED, META_KEY, TEXT, ExportContext, ImportAdapter, extension
from fixture_migrate.importing.pipeline import ImportFailed


def _fail(path: Path | str, message: str, code: str) -> ImportFailed:
    return ImportFailed([(path, FixtureError(message, code=code))])


REFUSED = frozenset({c.MISSING_ID, c.MISSING_INPUT, c.MISSING_SKILL, c.DUPLICATE_CASE_ID})
"""Validation errors that make an export wrong (a record without its id or input, two
records under one id): always refused. The others are warnings (`--strict`: refused)."""


def csv_losses(rows: list[Any], cases: list[dict[str, Any]], context: ExportContext) -> None:
    """A CSV cell is text: a value that is not (a list, an object, a number) is written as
    JSON text, and a member a record lacks as an empty cell; the target's loader reads
    both back otherwise (a string, an empty string). Adapters that encode a column the
    way their tool reads it (DeepEval, promptfoo) leave only text here."""
    header: dict[str, None] = {}
    for row in rows:
        if isinstance(row, dict):
            header.update(dict.fromkeys(row))
    for row, case in zip(rows, cases, strict=False):
        if not isinstance(row, dict):
            continue
        for column in header:
            if column not in row:
                if getattr(context, "empty_cell_is_absent", False):
                    continue
                context.loss(case, column, TEXT, column, "absent in this record: a CSV row has an empty cell there")
            elif row[column] is not None and not isinstance(row[column], str):
                context.loss(case, column, TEXT, column, "a CSV cell is text: written as JSON text")


def _validation_errors(paths: Sequence[Path], repo_root: Path) -> list[dict[str, Any]]:
    """`validate --no-ref-check` over `paths`, each error with its line and column."""
    from fixture_migrate.contract.validate import RefChecker
    from fixture_migrate.migration.engine import Engine, Options
    from fixture_migrate.migration.locate import error_place
    from fixture_migrate.migration.reader import Reader, validation_errors

    reader = Reader(Engine(Options(Path(repo_root).resolve())))
    loaded = [reader.load(path, last_duplicate_wins=True) for path in paths]
    failed = [(item.path, item.error) for item in loaded if item.error is not None]
    if failed:
        raise ImportFailed(failed)
    places: list[Any] = []
    errors, problems = validation_errors(reader, loaded, RefChecker(repo_root, check_exists=False), places=places)
    problems = [(path, problem) for path, problem in problems if problem.code != "duplicate_key"]
    if problems:
        raise ImportFailed(problems)
    placed = []
    for error, origin in zip(errors, places, strict=True):
        where = error_place(origin, error)
        placed.append({**error, "line": where[0], "column": where[1]} if where is not None else error)
    return placed


def refuse_invalid(paths: Sequence[Path], repo_root: Path, *, strict: bool) -> list[str]:
    """The validation of PATHS (`validate --no-ref-check`, ids repeated across PATHS
    included), each error at its place: `REFUSED` errors (any with `--strict`) stop the
    export, nothing written; the others are returned as warning lines."""
    errors = _validation_errors(paths, repo_root)

    def place(error: dict[str, Any]) -> str:
        where = ":".join(str(error[key]) for key in ("line", "column") if error.get(key) is not None)
        return f"{error.get('source_file') or paths[0]}{':' + where if where else ''}"

    refused = [error for error in errors if error["reason_code"] in REFUSED or strict]
    if refused:
        raise ImportFailed(
            [
                (
                    error.get("source_file") or paths[0],
                    FixtureError(
                        f"case {error.get('id')}: {error['message']}; fix it (fixture-migrate validate) before exporting",
                        code=error["reason_code"],
                        line=error.get("line"),
                        column=error.get("column"),
                    ),
                )
                for error in refused
            ]
        )
    return [
        f"{place(error)}: warning: case {error.get('id')}: {error['message']} [{error['reason_code']}] "
        "(exported; --strict refuses it)"
        for error in errors
    ]


def refuse_canonical_dest(dest: Path, old_bytes: bytes) -> None:
    if b"schema_version" in old_bytes and c.CANONICAL_SCHEMA_VERSION.encode() in old_bytes:
        try:
            data = json.loads(old_bytes.decode("utf-8-sig"))
        except ValueError:
            return
        if isinstance(data, dict) and data.get("schema_version") == c.CANONICAL_SCHEMA_VERSION:
            raise _fail(
                dest, "--out holds a canonical v1 file; not overwritten (choose another --out)", "dest_canonical"
            )


FILE_MEMBERS_WRITTEN = {"promptfoo": ("description",), "skill-creator": ("skill",)}
"""File-level canonical members a target writes into DEST's own file-level data."""


def _file_level(adapter: ImportAdapter, file: dict[str, Any]) -> dict[str, Any]:
    """What of a canonical file's own members goes into DEST's file-level data."""
    extensions = file.get("extensions") if isinstance(file.get("extensions"), dict) else {}
    kept = {
        "extensions." + adapter.namespace: extensions.get(adapter.namespace),
        "extensions.import.fields": extension(file, "import").get("fields"),
    }
    for member in FILE_MEMBERS_WRITTEN.get(adapter.format, ()):
        kept[member] = file.get(member)
    return kept


def file_losses(adapter: ImportAdapter, file: dict[str, Any], context: ExportContext) -> None:
    """A loss (case None) for each file-level member the target has no place for but
    `skill`. The
    members an import of the target's own files derives (its skill, source refs and
    authority, the format tag, `extensions.import` and the format's namespace) are not
    losses there: importing the export derives them again."""
    own = extension(file, "import").get("format") == adapter.format
    # `skill` is not a loss: an import takes it from --skill or DEST's skills/<name>/ path.
    written = set(FILE_MEMBERS_WRITTEN.get(adapter.format, ())) | {"schema_version", "skill"}
    derived = {"skill", "source_refs", "source_ref_authority", "description"} if own else set()
    for member, value in file.items():
        if member in written or member in derived or value in ("", [], {}, None):
            continue
        if member == "coverage_tags" and isinstance(value, list):
            extra = [tag for tag in value if not (own and tag == getattr(adapter, "tag", None))]
            if extra:
                context.loss(None, "coverage_tags", DROPPED, None, f"no file-level field in {adapter.format}: {extra}")
            continue
        if member == "extensions" and isinstance(value, dict):
            for key in value:
                if key == "import" or (own and key == adapter.namespace):
                    continue
                if key == adapter.namespace and adapter.format in ("promptfoo", "skill-creator", "deepeval"):
                    continue  # the format's own file members: written back as file members
                context.loss(None, f"extensions.{key}", DROPPED, None, f"no file-level field in {adapter.format}")
            continue
        context.loss(None, member, DROPPED, None, f"no file-level field in {adapter.format}")


def refuse_different_files(adapter: ImportAdapter, paths: Sequence[Path], files: list[dict[str, Any]]) -> None:
    """DEST has one set of file-level data (a promptfoo config's `defaultTest` and
    providers, a skill name, ...): several PATHS are exported together only when theirs
    is the same, since one file's would otherwise apply to the other's cases."""
    if len(files) < 2:
        return
    first = _file_level(adapter, files[0])
    for path, file in zip(paths[1:], files[1:], strict=True):
        other = _file_level(adapter, file)
        differ = [member for member in first if first[member] != other[member]]
        if differ:
            raise _fail(
                path,
                f"its file-level {', '.join(f'`{m}`' for m in differ)} differ from {paths[0].as_posix()}'s, and "
                f"{adapter.format} has one per file: export each canonical file to its own --out",
                "different_files",
            )


def foreign_records(
    adapter: ImportAdapter,
    dest: Path,
    old_bytes: bytes,
    syntax: str,
    known: list[Any],
    root: Path,
) -> list[tuple[str | None, str, int | None, Any]] | None:
    """The records of DEST that cannot be shown to be this export's own earlier output, as
    `(record id or None, locator, 1-based line or None, record data)`; [] when every one can; None when DEST is
    not a file of the target that its adapter reads (all of it is someone else's).

    A record is the export's own when it carries the `fixture_migrate` member export writes
    into a mapped case (`META_KEY`, anywhere under the case's `extensions` as imported), or
    when it is data-equal (`same_data`, types included) to one of `known`: the records
    this export writes now, read back as DEST is read, and the records the imported cases
    were imported from (what the import kept). An id that merely equals a case id is no
    evidence: a hand-written dataset can share the ids."""
    from fixture_migrate.importing.base import Job, canonical_json
    from fixture_migrate.importing.pipeline import same_data
    from fixture_migrate.importing.readers import SourceError, read_source

    try:
        source = read_source(dest, dest.name, old_bytes, syntax=syntax)
        drafts = adapter.build([source], Job(root=root))
    except (SourceError, FixtureError, ValueError, TypeError, KeyError):
        return None
    except Exception:  # noqa: BLE001 - a file the adapter cannot read is not an export's
        return None
    if not drafts:
        return None

    def marked(value: Any) -> bool:
        if isinstance(value, dict):
            if isinstance(value.get(META_KEY), dict):
                return True
            return any(marked(item) for item in value.values())
        return False

    def key(value: Any) -> bytes | None:
        try:
            return canonical_json(value)
        except (TypeError, ValueError):  # a YAML date, say: compared one by one
            return None

    # Canonical JSON tells `1`, `1.0` and `true` apart as `same_data` does: one set look-up
    # a record, not a comparison with every known record.
    keys = {key(other) for other in known}
    odd = [other for other in known if key(other) is None]
    foreign: list[tuple[str | None, str, int | None, Any]] = []
    seen: set[str] = set()
    for draft in drafts:
        record = draft.record
        if record.ref in seen:
            continue  # one record, several cases (a promptfoo scenario)
        seen.add(record.ref)
        if marked(draft.extensions) or marked(record.data):
            continue
        found = key(record.data)
        if found is not None and found in keys:
            continue
        if found is None and any(same_data(record.data, other) for other in odd):
            continue
        foreign.append((draft.id, record.locator, record.line, record.data))
    return foreign


def read_records(adapter: ImportAdapter, dest: Path, data: bytes, syntax: str, root: Path) -> list[Any]:
    """The records of `data` (DEST's bytes as export would write them) as an import reads
    them; [] when the adapter reads none."""
    from fixture_migrate.importing.base import Job
    from fixture_migrate.importing.readers import read_source

    try:
        source = read_source(dest, dest.name, data, syntax=syntax)
        return [draft.record.data for draft in adapter.build([source], Job(root=root))]
    except Exception:  # noqa: BLE001 - nothing read back: nothing known
        return []


def refuse_foreign_dest(
    adapter: ImportAdapter,
    dest: Path,
    old_bytes: bytes,
    syntax: str,
    known: list[Any],
    root: Path,
    *,
    force: bool,
    losses: Any,
) -> None:
    """Refuse to replace a DEST that is not this export's own earlier output (see
    `foreign_records`): raises `ImportFailed` (`dest_not_export`, at the first such
    record) unless `force`; with `force` each replaced record (or the whole file, when the
    target's adapter does not read it) is a `dropped` loss in `losses`, filed under DEST."""
    foreign = foreign_records(adapter, dest, old_bytes, syntax, known, root)
    if foreign == []:
        return
    shown = dest.as_posix()
    if force:
        if foreign is None:
            losses.add(shown, None, "file", DROPPED, None, f"--out is not a {adapter.format} file; replaced (--force)")
        for record_id, locator, _line, data in foreign or []:
            text = json.dumps(data, ensure_ascii=False)
            text = text if len(text) <= 120 else text[:117] + "..."
            losses.add(shown, record_id, f"record {locator}", DROPPED, None, f"replaced (--force): {text}")
        return
    if foreign is None:
        what = f"is not a {adapter.format} file export wrote"
    else:
        first = foreign[0][1]
        what = (
            f"holds {len(foreign)} record(s) export did not write (first: {first}; not marked `{META_KEY}` "
            "and not what these cases export to now or were imported from)"
        )
    message = (
        f"--out exists and {what}; not overwritten: delete it or move it away to export there, choose another "
        "--out, or pass --force (the replaced records are listed as losses)"
    )
    line = foreign[0][2] if foreign else None
    raise ImportFailed([(dest, FixtureError(message, code="dest_not_export", line=line))])

