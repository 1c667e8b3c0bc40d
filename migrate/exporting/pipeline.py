"""`fixture-migrate export`: canonical v1 files become one native file of another eval tool.

```
PATHS... ─► canonical v1 JSON (read, never written)
         ─► per case: imported from the target format? ─► adapter.record_of (its record back)
                                                   else ─► adapter.map_case (+ loss report)
         ─► adapter.export_document ─► exporting.native (jsonl · json · csv · yaml)
         ─► DEST unchanged when its data is the same ─► diff / check / atomic write
```

- **Records come back.** A case whose `extensions.import.format` is the target's, and
  which is still what importing its record gives (`exporting.rederive`; else it is
  mapped onto the record: the canonical file wins), is rebuilt from what the import kept (`extensions.<format>`, `extensions.import`), with
  the members renamed back by the file's `--field` mapping and in the source's order.
  An export onto the file the cases came from leaves it untouched when the data is
  the same (its bytes, layout and comments stay); a new file is written in the layout
  of `exporting.native`.
- **Other cases are mapped** by the adapter (README "Importing and exporting" has the
  table per format); whatever the target cannot hold is a `Loss`: printed on stderr,
  listed in `--output-format json`, an error with `--strict` (exit 2, nothing written).
- **Safety.** The canonical files are only read. DEST is written with the same atomic
  write as `migrate` and `import`; it is refused when it is one of PATHS, holds a
  canonical v1 file, or is a file export did not write (`_refuse_foreign_dest`). `--diff` prints the unified diff and `--check` exits 1 when DEST
  would change; neither writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError
from fixture_migrate.exporting.losses import LossReport
from fixture_migrate.exporting.native import SYNTAX_BY_SUFFIX, render
from fixture_migrate.exporting.rederive import derive, unchanged
from fixture_migrate.importing.base import (
    DROPPED,
    TEXT,
    ExportContext,
    ImportAdapter,
    extension,
    imported_from,
    in_key_order,
)
from fixture_migrate.importing.pipeline import ImportFailed, find_adapter, import_adapters, same_data
from fixture_migrate.migration.diff import render_file_diff
from fixture_migrate.migration.paths import diff_name
from fixture_migrate.migration.writes import make_directories, read_fixture, resolve_target, write_atomic

if TYPE_CHECKING:  # `run_export` is the command's shell; only the command line passes a Report
    from fixture_migrate.cli.report import Report


@dataclass(frozen=True)
class ExportRequest:
    """One `fixture-migrate export` run: canonical `paths`, the `target` format, the native
    file `dest`; `check`/`diff` as for `migrate` (either writes nothing); `strict` makes
    any loss an error."""

    paths: Sequence[Path]
    target: str
    dest: Path
    repo_root: Path
    check: bool = False
    diff: bool = False
    strict: bool = False
    config_path: Path | None = None


@dataclass
class ExportPlan:
    """What an export would write: `new_bytes` for DEST (`old_bytes` its bytes or None)."""

    adapter: ImportAdapter
    new_bytes: bytes
    old_bytes: bytes | None
    cases: int
    restored: int
    losses: LossReport
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Validation errors of PATHS that did not stop the export, one line each."""

    @property
    def changed(self) -> bool:
        return self.new_bytes != self.old_bytes


def _fail(path: Path | str, message: str, code: str) -> ImportFailed:
    return ImportFailed([(path, FixtureError(message, code=code))])


def export_adapter(name: str, repo_root: Path, config_path: Path | None = None) -> ImportAdapter:
    """The adapter that writes format `name`; raises `ImportFailed` (usage) otherwise."""
    adapters = [a for a in import_adapters(repo_root, config_path) if getattr(a, "export_syntaxes", ())]
    try:
        return find_adapter(adapters, name)
    except ImportFailed:
        known = ", ".join(sorted(a.format for a in adapters))
        raise _fail("--to", f"cannot export to {name!r}; formats: {known}", "usage") from None


def read_canonical(path: Path) -> dict[str, Any]:
    """A canonical v1 file (JSON); raises `ImportFailed` for anything else."""
    from fixture_migrate.formats.json_format import parse_json

    try:
        data = parse_json(read_fixture(path).removeprefix(b"\xef\xbb\xbf"))
    except FixtureError as error:
        raise ImportFailed([(path, error)]) from None
    if not isinstance(data, dict) or data.get("schema_version") != c.CANONICAL_SCHEMA_VERSION:
        raise _fail(
            path, "not a canonical v1 file: export reads canonical fixtures (import or migrate first)", "not_canonical"
        )
    if not isinstance(data.get("cases"), list):
        raise _fail(path, "the canonical file has no `cases` list", "not_canonical")
    return data


def plan_export(request: ExportRequest) -> ExportPlan:
    """Work out DEST's bytes and the loss report, writing nothing; raises `ImportFailed`."""
    adapter = export_adapter(request.target, request.repo_root, request.config_path)
    dest = request.dest
    syntax = SYNTAX_BY_SUFFIX.get(dest.suffix.lower())
    if syntax not in adapter.export_syntaxes:
        suffixes = ", ".join(f".{s}" if s != "yaml" else ".yaml/.yml" for s in adapter.export_syntaxes)
        raise _fail(dest, f"--out for {adapter.format} must end in {suffixes}", "usage")
    if dest.exists() and not dest.is_file():
        raise _fail(dest, "--out names a directory; give a file path", "usage")
    try:
        # As `migrate` and `import` write: never through a symlink leading outside the repo root.
        resolve_target(dest, request.repo_root)
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    real_dest = dest.resolve()
    for path in request.paths:
        if path.resolve() == real_dest:
            raise _fail(dest, "--out is one of the canonical files read; it is never written", "usage")
    warnings = _refuse_invalid(request)
    losses = LossReport(adapter.format)
    records: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    contexts: list[ExportContext] = []
    restored = 0
    verbatim: list[bool] = []
    edited: list[str] = []
    files: list[dict[str, Any]] = []
    for path in request.paths:
        data = read_canonical(path)
        file = {key: value for key, value in data.items() if key != "cases"}
        files.append(file)
        context = ExportContext(file, path.as_posix(), syntax, losses)
        contexts.append(context)
        _file_losses(adapter, file, context)
        for index, case in enumerate(data["cases"]):
            if not isinstance(case, dict):
                raise _fail(path, f"case {index} is not an object", "case_not_object")
            if not isinstance(case.get("id"), str) or not case["id"].strip():
                # validation reads such a case under a generated id; the export would write the
                # raw value (null, a number) as the record's id: give the case its id first.
                raise _fail(
                    path, f"case {index} has no `id` string ({json.dumps(case.get('id'))}): give it one", "missing_id"
                )
            cases.append(case)
            if imported_from(case) == adapter.format:
                derived = derive(adapter, case, file, request.repo_root, path.as_posix(), dest)
                if unchanged(adapter, case, derived):
                    records.append(_restored(adapter, case, context))
                    restored += 1
                    verbatim.append(True)
                    continue
                edited.append(str(case.get("id")))
                records.append(_mapped_onto(adapter, case, context))
            else:
                records.append(adapter.map_case(case, context))
            verbatim.append(False)
    if not records:
        raise _fail(request.paths[0] if request.paths else dest, "no cases to export", "no_cases")
    _refuse_different_files(adapter, request.paths, files)
    contexts[0].cases = cases
    contexts[0].verbatim = verbatim
    contexts[0].dest_name = dest.name
    contexts[0].dest = dest
    try:
        document = adapter.export_document(records, contexts[0])
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    if syntax == "csv" and isinstance(document, list):
        contexts[0].empty_cell_is_absent = adapter.format == "deepeval"  # its loader reads "" as None
        _csv_losses(document, cases, contexts[0])
    new_bytes = render(syntax, document)
    # A case left out of DEST by `export_document` is a `dropped` loss of the field `case`.
    left_out = sum(1 for loss in losses.losses if loss.field == "case" and loss.kind == DROPPED)
    notes = [
        f"{len(records)} case(s) to {dest.as_posix()} ({adapter.format}): {restored} as imported, "
        f"{len(records) - restored} mapped"
    ]
    if edited:
        shown = ", ".join(edited[:5]) + (", ..." if len(edited) > 5 else "")
        notes.append(
            f"{len(edited)} imported case(s) differ from what their kept record gives (edited since the import): "
            f"mapped from their current fields onto the record: {shown}"
        )
    try:
        old_bytes = read_fixture(dest, root=request.repo_root) if dest.exists() else None
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    if old_bytes is not None:
        _refuse_canonical_dest(dest, old_bytes)
        if _same_native(dest, old_bytes, new_bytes, syntax):
            new_bytes = old_bytes
        else:
            _refuse_foreign_dest(adapter, dest, old_bytes, syntax, files, cases, request.repo_root)
    return ExportPlan(adapter, new_bytes, old_bytes, len(records) - left_out, restored, losses, notes, warnings)


REFUSED = frozenset({c.MISSING_ID, c.MISSING_INPUT, c.MISSING_SKILL, c.DUPLICATE_CASE_ID})
"""Validation errors that make an export wrong (a record without its id or input, two
records under one id): always refused. The others are warnings (`--strict`: refused)."""


def _csv_losses(rows: list[Any], cases: list[dict[str, Any]], context: ExportContext) -> None:
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


def _refuse_invalid(request: ExportRequest) -> list[str]:
    """The validation of PATHS (`validate --no-ref-check`, ids repeated across PATHS
    included), each error at its place: `REFUSED` errors (any with `--strict`) stop the
    export, nothing written; the others are returned as warning lines."""
    from fixture_migrate._api import MigrationError, validate

    for path in request.paths:
        read_canonical(path)  # not canonical v1: said as such first
    try:
        errors = validate(list(request.paths), repo_root=request.repo_root, check_refs=False)
    except MigrationError as error:
        raise ImportFailed([(error.path or request.paths[0], error)]) from None

    def place(error: dict[str, Any]) -> str:
        where = ":".join(str(error[key]) for key in ("line", "column") if error.get(key) is not None)
        return f"{error.get('source_file') or request.paths[0]}{':' + where if where else ''}"

    refused = [error for error in errors if error["reason_code"] in REFUSED or request.strict]
    if refused:
        raise ImportFailed(
            [
                (
                    error.get("source_file") or request.paths[0],
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


def _restored(adapter: ImportAdapter, case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    # The member order was recorded under the names the import read (after --field renames).
    record = in_key_order(adapter.record_of(case, context), case)
    fields = context.file.get("extensions", {}).get("import", {}).get("fields")
    if isinstance(fields, dict) and fields:
        columns = {name: column for name, column in fields.items() if isinstance(column, str)}
        record = {columns.get(key, key): value for key, value in record.items()}
    return record


def _mapped_onto(adapter: ImportAdapter, case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """An imported case edited since the import: its current fields mapped by the adapter,
    onto the kept record (the record's other members stay; metadata objects are merged).
    The import's own bookkeeping (`extensions.import`, the record under
    `extensions.<format>`, the source ref of the record) is not written again."""
    info = extension(case, "import")
    bare = {key: value for key, value in case.items() if key != "extensions"}
    extensions = {
        key: value for key, value in (case.get("extensions") or {}).items() if key not in ("import", adapter.namespace)
    }
    if extensions:
        bare["extensions"] = extensions
    ref = f"{info.get('source_file')}#{info.get('locator')}"
    if isinstance(bare.get("source_refs"), list):
        refs = [r for r in bare["source_refs"] if r != ref]
        if refs:
            bare["source_refs"] = refs
        else:
            bare.pop("source_refs")
    mapped = adapter.map_case(bare, context)
    try:
        record = _restored(adapter, case, context) if extension(case, adapter.namespace) else {}
    except Exception:  # noqa: BLE001 - no usable record: the mapped case alone
        record = {}
    if not isinstance(record, dict) or context.syntax == "csv":
        return mapped
    merged = dict(record)
    for key, value in mapped.items():
        old = merged.get(key)
        if key in META_MEMBERS and isinstance(old, dict) and isinstance(value, dict):
            merged[key] = {**old, **value}
        else:
            merged[key] = value
    return merged


META_MEMBERS = ("metadata", "additional_metadata", "additionalMetadata")
"""Record members that are metadata objects: the kept one and the mapped one are merged."""


def _refuse_canonical_dest(dest: Path, old_bytes: bytes) -> None:
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


def _file_losses(adapter: ImportAdapter, file: dict[str, Any], context: ExportContext) -> None:
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


def _refuse_different_files(adapter: ImportAdapter, paths: Sequence[Path], files: list[dict[str, Any]]) -> None:
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


def _refuse_foreign_dest(
    adapter: ImportAdapter,
    dest: Path,
    old_bytes: bytes,
    syntax: str,
    files: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    root: Path,
) -> None:
    """Refuse to replace a DEST export did not write. Allowed: a file the canonical cases
    were imported from (an export back onto its source), or a file whose every record
    is one of the exported cases or was mapped by an export (an earlier export: its ids
    are case ids of PATHS, or it carries the `fixture_migrate` member export writes)."""
    from fixture_migrate.migration.paths import relative_source

    ref = relative_source(dest, root)
    sources = {extension(case, "import").get("source_file") for case in cases}
    for file in files:
        sources.update(r for r in file.get("source_refs") or [] if isinstance(r, str))
    if ref in sources:
        return
    if _written_by_export(adapter, dest, old_bytes, syntax, cases, root):
        return
    raise _fail(
        dest,
        "--out exists and was not written by an export of these cases (nor imported into them); "
        "not overwritten: delete it or move it away to export there, or choose another --out",
        "dest_not_export",
    )


def _written_by_export(
    adapter: ImportAdapter, dest: Path, old_bytes: bytes, syntax: str, cases: list[dict[str, Any]], root: Path
) -> bool:
    from fixture_migrate.importing.base import META_KEY, Job
    from fixture_migrate.importing.readers import SourceError, read_source

    ids = {str(case.get("id")) for case in cases}
    ids |= {str(extension(case, "import")["id"]) for case in cases if "id" in extension(case, "import")}
    try:
        source = read_source(dest, dest.name, old_bytes, syntax=syntax)
        drafts = adapter.build([source], Job(root=root))
    except (SourceError, FixtureError, ValueError, TypeError, KeyError):
        return False
    except Exception:  # noqa: BLE001 - a file the adapter cannot read is not an export's
        return False
    if not drafts:
        return False

    def marked(value: Any) -> str | None:
        if isinstance(value, dict):
            meta = value.get(META_KEY)
            if isinstance(meta, dict):
                return str(meta.get("id", ""))
            for item in value.values():
                found = marked(item)
                if found is not None:
                    return found
        return None

    # A record export mapped carries its case under `fixture_migrate`: export's own mark.
    return all(draft.id in ids or marked(draft.extensions) is not None for draft in drafts)


def _same_native(dest: Path, old_bytes: bytes, new_bytes: bytes, syntax: str) -> bool:
    """True when DEST already holds the data of `new_bytes` (read as an import reads it)."""
    if old_bytes == new_bytes:
        return True
    from fixture_migrate.importing.readers import SourceError, read_source

    try:
        old = read_source(dest, dest.name, old_bytes, syntax=syntax)
        new = read_source(dest, dest.name, new_bytes, syntax=syntax)
    except SourceError:
        return False
    return same_data(old.data, new.data) and old.header == new.header


def run_export(request: ExportRequest, *, out: TextIO, report: Report, output_format: str = "text") -> int:
    """Run `fixture-migrate export`; returns the exit code (0 done or nothing to do; 1 with
    `--check` when DEST would change; 2 on an error, or any loss with `--strict`)."""
    shown = request.dest.as_posix()
    result: dict[str, Any] = {
        "dest": shown,
        "to": request.target,
        "status": "error",
        "cases": 0,
        "losses": [],
        "errors": [],
    }
    try:
        plan = plan_export(request)
    except ImportFailed as failure:
        for path, error in failure.errors:
            report.error(path.as_posix() if isinstance(path, Path) else path, error)
            result["errors"].append({"file": str(path), "code": error.code, "message": error.message})
        return _finish(report, result, out, output_format)
    except RecursionError:
        report.error(shown, FixtureError("nesting too deep to export", code="too_deep"))
        return _finish(report, result, out, output_format)
    result.update(
        to=plan.adapter.format,
        cases=plan.cases,
        restored=plan.restored,
        losses=plan.losses.as_json(),
        warnings=plan.warnings,
    )
    for line in plan.warnings + plan.losses.lines():
        report.print(line)
    if plan.losses and request.strict:
        error = FixtureError(f"{len(plan.losses)} loss(es) with --strict; nothing written", code="loss")
        report.error(shown, error)
        result["errors"].append({"file": shown, "code": "loss", "message": error.message})
        return _finish(report, result, out, output_format)
    for note in plan.notes:
        report.note(note)
    if not plan.changed:
        report.count("unchanged")
        result["status"] = "unchanged"
        report.note(f"{shown}: unchanged ({plan.cases} case(s), {plan.adapter.format})", always=True)
        return _finish(report, result, out, output_format)
    if request.diff:
        out.write(render_file_diff(plan.old_bytes, plan.new_bytes, diff_name(request.dest, request.repo_root)))
    if request.check:
        report.found = True
    if request.diff or request.check:
        result["status"] = "would_change"
        if not request.diff:
            report.note(f"would export {shown}: {plan.cases} case(s) ({plan.adapter.format})", always=True)
        return _finish(report, result, out, output_format)
    try:
        make_directories(request.dest.parent, request.repo_root)
        write_atomic(
            request.dest, plan.new_bytes, original=plan.old_bytes, mode_from=request.dest, root=request.repo_root
        )
    except (FixtureError, OSError) as error:
        failure = error if isinstance(error, FixtureError) else FixtureError(f"cannot write: {error}", code="io")
        report.error(shown, failure)
        result["errors"].append({"file": shown, "code": failure.code, "message": failure.message})
        return _finish(report, result, out, output_format)
    report.count("changed")
    result["status"] = "written"
    report.note(f"exported {shown}: {plan.cases} case(s) ({plan.adapter.format})", always=True)
    return _finish(report, result, out, output_format)


def _finish(report: Report, result: dict[str, Any], out: TextIO, output_format: str) -> int:
    code = report.exit_code
    if output_format == "json":
        result["exit_code"] = code
        out.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return code


__all__ = ["ExportPlan", "ExportRequest", "export_adapter", "plan_export", "read_canonical", "run_export"]
