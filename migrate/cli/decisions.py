"""The runs behind `detect` and `suggest`: who takes each file and why, and the drafted
table that brings an unclaimed local family in (DESIGN.md, "Claiming a file")."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from fixture_migrate.claiming.rules import Claim, Verdict, claim_words
from fixture_migrate.cli import output
from fixture_migrate.cli.commands import _display
from fixture_migrate.cli.emitters import emitter_for
from fixture_migrate.cli.report import Report
from fixture_migrate.config import iter_selected
from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.engine import Engine, Options
from fixture_migrate.migration.reader import LoadedFile, Reader
from fixture_migrate.migration.status import Status


def _load_all(
    reader: Reader, paths: Sequence[Path], report: Report, *, last_duplicate_wins: bool = False
) -> list[LoadedFile]:
    """Every file under `paths`, read and claimed; `-v` names each file's claims."""
    loaded = []
    files = list(iter_selected(paths, reader.engine.options))
    for path, error in report.track(files, "read", len(files)):
        item = LoadedFile(path, error=error) if error else reader.load(path, last_duplicate_wins=last_duplicate_wins)
        loaded.append(item)
        if item.error is None:
            words = [claim_words(claim) for claim in item.claims] or ["not a fixture"]
            report.note(f"{_display(path)}: {'; '.join(words)}")
    return loaded


def run_detect(
    paths: Sequence[Path],
    options: Options,
    *,
    out: TextIO,
    report: Report,
    output_format: str = "text",
    families: bool = False,
) -> int:
    """Print, per file (and per payload of a multi-payload file), who takes it and why.

    Each payload is claimed by an adapter (`adapter (kind)`, or `canonical`), left for
    `import --from FORMAT` (another eval tool's file), unclaimed (looks like a fixture of
    a local family, without the evidence to migrate it), or not a fixture; a walked file
    no parser can read is skipped. `report.verbose` (`-v`) adds the reason to each line.

    `output_format`: "text" lines, "json" (an array of `{path, unit, adapter, kind,
    status, reason, import_from, rule}`, adapter null when no adapter claims it, `rule`
    the claim rule that decided (`fixture_migrate.claiming.rules.RULES`); errors as
    `{path, error}`), or "github" (a notice on each legacy file, an error annotation for
    each file that cannot be read).

    With `families`, the report is instead one entry per family of local fixtures
    (`fixture_migrate.claiming.survey`): its files, its records' members and where each
    lands (text; JSON: `{"families": [...]}`); errors are reported as always.
    """
    from fixture_migrate.migration.unreadable import described, skip_reason

    reader = Reader(Engine(options))
    records: list[dict[str, Any]] = []
    named = {path for path in paths if not path.is_dir()}
    emit = emitter_for(output_format, out=out, root=options.repo_root)
    survey = None
    if families:
        from fixture_migrate.claiming.survey import Survey

        survey = Survey()

    def line(where: str, claim: str, reason: str) -> None:
        if survey is None:
            emit.detection(where, claim, reason, verbose=report.verbose)

    for loaded in _load_all(reader, paths, report):
        shown = _display(loaded.path)
        if loaded.error is not None:
            reason = skip_reason(
                loaded.path, loaded.error, named=loaded.path in named, repo_root=options.repo_root, options=options
            )
            if reason is not None:
                report.count(Status.SKIPPED)
                records.append(
                    {"path": shown, "unit": None, "adapter": None, "kind": None, "status": Status.SKIPPED, "reason": reason}
                )
                line(shown, "skipped, cannot be read", reason)
                continue
            error = described(loaded.path, loaded.error, root=options.repo_root)
            report.error(shown, error)
            records.append({"path": shown, "error": output.error_record(error)})
            continue
        assert loaded.document is not None
        if not loaded.document.units:  # a YAML stream or Python module with no payload in it
            leftover = reader.engine.leftover(loaded.document)
            status, reason = (Verdict.UNCLAIMED, leftover) if leftover else (Verdict.NOT_FIXTURE, "no payload in it")
            records.append(
                {"path": shown, "unit": None, "adapter": None, "kind": None, "status": status, "reason": reason}
            )
            line(shown, claim_words(Claim(status)), reason)
        for unit, claim in zip(loaded.document.units, loaded.claims, strict=True):
            where = shown + (f" [{unit.label}]" if unit.label else "")
            adapter = claim.adapter
            said = claim_words(claim)
            records.append(
                {
                    "path": shown,
                    "unit": unit.label,
                    "adapter": adapter.name if adapter else None,
                    "kind": adapter.kind if adapter else None,
                    "status": claim.status,
                    "reason": claim.reason,
                    "import_from": claim.import_from,
                    "rule": claim.rule,
                }
            )
            line(where, said, f"{claim.reason} [{claim.rule}]" if claim.rule else claim.reason)
            if survey is not None:
                survey.add(shown, unit.data, claim)
            elif adapter is not None and adapter.kind != "canonical":
                emit.legacy(loaded.path, shown, said)
    if survey is None:
        emit.detect_end(records)
    else:
        emit.families_end(survey.records(), survey.lines(verbose=report.verbose))
    return report.exit_code


def run_suggest(paths: Sequence[Path], options: Options, *, out: TextIO, report: Report) -> int:
    """Print a drafted adapter table (`fixture_migrate.claiming.suggest`) per local family
    found under `paths`: files no known family claims, grouped by file name and shape.
    Files a known family, the canonical pass-through or a declared family already claims
    are passed over (and named with `-v`); a file that cannot be read is an error."""
    from fixture_migrate.claiming.suggest import UnwritableName, draft_table, family_name, shape_of

    reader = Reader(Engine(options))
    groups: dict[tuple[Any, ...], tuple[list[Path], list[Any]]] = {}
    for loaded in _load_all(reader, paths, report):
        if loaded.error is not None:
            report.error(_display(loaded.path), loaded.error)
            continue
        assert loaded.document is not None
        for unit, claim in zip(loaded.document.units, loaded.claims, strict=True):
            adapter = claim.adapter
            if adapter is not None and adapter.kind != "generic":
                report.note(f"{_display(loaded.path)}: already claimed ({adapter.name}), no table needed")
                continue
            shape = shape_of(unit.data)
            if shape is None:
                continue
            files, shapes = groups.setdefault((loaded.path.name, shape.signature), ([], []))
            if loaded.path not in files:
                files.append(loaded.path)
            shapes.append(shape)
    # Globs are relative to the pyproject.toml the table goes into: the one in use, else the repo root's.
    config_path = getattr(options, "config_path", None)
    base = config_path.resolve().parent if config_path is not None else options.repo_root
    taken: set[str] = set()
    tables = []
    for files, shapes in groups.values():
        try:
            tables.append(draft_table(family_name(files, taken), files, shapes, base))
        except UnwritableName as exc:
            report.error(_display(files[0]), FixtureError(f"no table drafted: {exc}", code="unwritable_name"))
    out.write("\n".join(tables))
    if not tables:
        report.summary_line("no local family found: nothing to declare")
    return report.exit_code
