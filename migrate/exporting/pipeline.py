"""`fixture-migrate export`: canonical v1 files become one native file of another eval tool.

```
PATHS... ─► canonical v1 JSON (read, never written)
         ─► per case: imported from the target format? ─► adapter.record_of (its record back)
                                                   else ─► adapter.map_case (+ loss report)
         ─► adapter.export_document ─► exporting.native (jsonl · json · csv · yaml)
         ─► DEST unchanged when its data is the same ─► diff / check / atomic write
```

- **Records come back.** A case whose `extensions.import.format` is the target's is
  rebuilt from what the import kept (`extensions.<format>`, `extensions.import`), with
  the members renamed back by the file's `--field` mapping and in the source's order.
  An export onto the file the cases came from leaves it untouched when the data is
  the same (its bytes, layout and comments stay); a new file is written in the layout
  of `exporting.native`.
- **Other cases are mapped** by the adapter (README "Importing and exporting" has the
  table per format); whatever the target cannot hold is a `Loss`: printed on stderr,
  listed in `--output-format json`, an error with `--strict` (exit 2, nothing written).
- **Safety.** The canonical files are only read. DEST is written with the same atomic
  write as `migrate` and `import`; it is refused when it is one of PATHS or holds a
  canonical v1 file. `--diff` prints the unified diff and `--check` exits 1 when DEST
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
from fixture_migrate.exporting.native import render
from fixture_migrate.importing.base import DROPPED, ExportContext, ImportAdapter, imported_from, in_key_order
from fixture_migrate.importing.pipeline import ImportFailed, find_adapter, import_adapters, same_data
from fixture_migrate.importing.readers import syntax_for
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
    syntax = syntax_for(dest)
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
    losses = LossReport(adapter.format)
    records: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    contexts: list[ExportContext] = []
    restored = 0
    for path in request.paths:
        data = read_canonical(path)
        file = {key: value for key, value in data.items() if key != "cases"}
        context = ExportContext(file, path.as_posix(), syntax, losses)
        contexts.append(context)
        for index, case in enumerate(data["cases"]):
            if not isinstance(case, dict):
                raise _fail(path, f"case {index} is not an object", "case_not_object")
            cases.append(case)
            if imported_from(case) == adapter.format:
                records.append(_restored(adapter, case, context))
                restored += 1
            else:
                records.append(adapter.map_case(case, context))
    if not records:
        raise _fail(request.paths[0] if request.paths else dest, "no cases to export", "no_cases")
    contexts[0].cases = cases
    contexts[0].dest_name = dest.name
    document = adapter.export_document(records, contexts[0])
    new_bytes = render(syntax, document)
    # A case left out of DEST by `export_document` is a `dropped` loss of the field `case`.
    left_out = sum(1 for loss in losses.losses if loss.field == "case" and loss.kind == DROPPED)
    notes = [
        f"{len(records)} case(s) to {dest.as_posix()} ({adapter.format}): {restored} as imported, "
        f"{len(records) - restored} mapped"
    ]
    try:
        old_bytes = read_fixture(dest, root=request.repo_root) if dest.exists() else None
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    if old_bytes is not None:
        _refuse_canonical_dest(dest, old_bytes)
        if _same_native(dest, old_bytes, new_bytes, syntax):
            new_bytes = old_bytes
    return ExportPlan(adapter, new_bytes, old_bytes, len(records) - left_out, restored, losses, notes)


def _restored(adapter: ImportAdapter, case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    # The member order was recorded under the names the import read (after --field renames).
    record = in_key_order(adapter.record_of(case, context), case)
    fields = context.file.get("extensions", {}).get("import", {}).get("fields")
    if isinstance(fields, dict) and fields:
        columns = {name: column for name, column in fields.items() if isinstance(column, str)}
        record = {columns.get(key, key): value for key, value in record.items()}
    return record


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
    result.update(to=plan.adapter.format, cases=plan.cases, restored=plan.restored, losses=plan.losses.as_json())
    for line in plan.losses.lines():
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
