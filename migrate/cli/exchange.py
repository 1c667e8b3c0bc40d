"""The runs behind `import` and `export`: a request in, output and a `Report` out.

The pipelines (`fixture_migrate.importing.pipeline.plan_import`,
`fixture_migrate.exporting.pipeline.plan_export`) work out DEST's bytes and write
nothing; these shells print the diff, write DEST (`fixture_migrate.files.writes.write_dest`,
as the API does), tell the user through the report, print the output format's product
(`fixture_migrate.cli.emitters`) and return the exit code the report decides, as the
other runs in `fixture_migrate.cli.commands` do.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from fixture_migrate.cli.emitters import emitter_for
from fixture_migrate.cli.report import Report
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.diff import render_file_diff
from fixture_migrate.files.paths import diff_name
from fixture_migrate.files.writes import write_dest
from fixture_migrate.migration.status import Status

if TYPE_CHECKING:
    from fixture_migrate.cli.emitters import Emitter
    from fixture_migrate.exporting.pipeline import ExportRequest
    from fixture_migrate.importing.pipeline import ImportRequest


def run_import(request: ImportRequest, *, out: TextIO, report: Report) -> int:
    """Run `fixture-migrate import`; returns the exit code (0 done or nothing to do; 1 with
    `--check` when DEST would change; 2 on any error, with nothing written)."""
    from fixture_migrate.importing.pipeline import ImportFailed, plan_import

    shown = request.dest.as_posix()
    try:
        plan = plan_import(
            request, on_note=lambda message: report.note(message, always=message.startswith(("warning", "mapped")))
        )
    except ImportFailed as failure:
        for path, error in failure.errors:
            report.error(path.as_posix() if isinstance(path, Path) else path, error)
        return report.exit_code
    except RecursionError:
        report.error(shown, FixtureError("nesting too deep to import", code="too_deep"))
        return report.exit_code
    except Exception as exc:  # noqa: BLE001 - a bug (a plugin's, say) is one line and exit 2, never a traceback
        report.error(shown, FixtureError(f"internal error: {type(exc).__name__}: {exc}", code="internal"))
        return report.exit_code
    if not plan.changed:
        report.count(Status.UNCHANGED)
        report.note(f"{shown}: unchanged ({_cases(plan.cases)}, {plan.adapter.format})", always=True)
        return report.exit_code
    if request.diff:
        out.write(render_file_diff(plan.old_bytes, plan.new_bytes, diff_name(request.dest, request.repo_root)))
    if request.check:
        report.found = True
    verb = "updated" if plan.old_bytes is not None else "imported"
    if not (request.diff or request.check):
        if (failure := _write_dest(request, plan)) is not None:
            report.error(shown, failure)
            return report.exit_code
    else:
        verb = f"would {'update' if plan.old_bytes is not None else 'import'}"
    report.count(Status.CHANGED)
    if not request.diff:
        report.note(f"{verb} {shown}: {_cases(plan.cases)} ({plan.adapter.format})", always=True)
    return report.exit_code


def _cases(n: int) -> str:
    return f"{n} case" if n == 1 else f"{n} cases"


def run_export(request: ExportRequest, *, out: TextIO, report: Report, output_format: str = "text") -> int:
    """Run `fixture-migrate export`; returns the exit code (0 done or nothing to do; 1 with
    `--check` when DEST would change; 2 on an error, or any loss with `--strict`)."""
    from fixture_migrate.exporting.pipeline import plan_export
    from fixture_migrate.importing.pipeline import ImportFailed

    emit = emitter_for(output_format, out=out, root=request.repo_root)
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
        return _finish(report, result, emit)
    except RecursionError:
        report.error(shown, FixtureError("nesting too deep to export", code="too_deep"))
        return _finish(report, result, emit)
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
        return _finish(report, result, emit)
    for note in plan.notes:
        report.note(note)
    if not plan.changed:
        report.count(Status.UNCHANGED)
        result["status"] = "unchanged"
        report.note(f"{shown}: unchanged ({plan.cases} case(s), {plan.adapter.format})", always=True)
        return _finish(report, result, emit)
    if request.diff:
        out.write(render_file_diff(plan.old_bytes, plan.new_bytes, diff_name(request.dest, request.repo_root)))
    if request.check:
        report.found = True
    if request.diff or request.check:
        result["status"] = "would_change"
        if not request.diff:
            report.note(f"would export {shown}: {plan.cases} case(s) ({plan.adapter.format})", always=True)
        return _finish(report, result, emit)
    if (failure := _write_dest(request, plan)) is not None:
        report.error(shown, failure)
        result["errors"].append({"file": shown, "code": failure.code, "message": failure.message})
        return _finish(report, result, emit)
    report.count(Status.CHANGED)
    result["status"] = "written"
    report.note(f"exported {shown}: {plan.cases} case(s) ({plan.adapter.format})", always=True)
    return _finish(report, result, emit)


def _finish(report: Report, result: dict[str, Any], emit: Emitter) -> int:
    code = report.exit_code
    emit.export_end(result, code)
    return code


def _write_dest(request: Any, plan: Any) -> FixtureError | None:
    """Write `plan.new_bytes` to `request.dest` (`fixture_migrate.files.writes.write_dest`);
    the error, if any."""
    try:
        write_dest(request.dest, plan.new_bytes, original=plan.old_bytes, root=request.repo_root)
    except FixtureError as error:
        return error
    return None
