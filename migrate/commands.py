"""The runs behind each subcommand: paths in, output and a `Report` out.

Each `run_*` function takes the resolved options, walks the paths, prints its
product on `out` (diffs, normalized cases, validation errors, detections) and
its messages through `report`, and returns the exit code the report decides.
The typer layer (`migrate.cli`) only parses options and calls these.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from migrate.diff import escape_json, escape_text, render_diff
from migrate.engine import Engine, FileResult, LoadedFile, Options, Reader, iter_files, validation_errors
from migrate.errors import FixtureError
from migrate.formats import BOM
from migrate.report import Report
from migrate.validate import RefChecker


@dataclass(frozen=True)
class MigrateMode:
    """How `migrate` treats a planned change: `write` it, print its `diff`, and/or `check`
    (exit 1 when anything would change). `--diff` and `--check` never write."""

    diff: bool = False
    check: bool = False

    @property
    def write(self) -> bool:
        return not (self.diff or self.check)


def _text(raw: bytes) -> str:
    return (raw[3:] if raw.startswith(BOM) else raw).decode("utf-8")


def _display(path: Path) -> str:
    return path.as_posix()


def run_migrate(paths: Sequence[Path], options: Options, mode: MigrateMode, *, out: TextIO, report: Report) -> int:
    """Migrate every fixture under `paths`; returns the exit code (0, 1 with `check`, 2 on errors)."""
    engine = Engine(options)
    cases = 0
    for path, error in iter_files(paths):
        if error is not None:
            report.error(_display(path), error)
            continue
        result = engine.plan(path)
        if result.status == "error":
            assert result.error is not None
            report.error(_display(path), result.error)
            continue
        report.count(result.status)
        if result.status == "not_fixture":
            report.note(f"{_display(path)}: not a fixture, skipped")
        elif result.status == "unchanged":
            report.note(f"{_display(path)}: unchanged ({', '.join(result.adapters)})")
        else:
            cases += result.cases
            _handle_change(engine, result, mode, out=out, report=report)
    verb = "migrated" if mode.write else "would migrate"
    report.summary(
        [
            (f"{verb}", report.counts["changed"]),
            ("cases", cases if report.counts["changed"] else 0),
            ("unchanged", report.counts["unchanged"]),
            ("not fixtures", report.counts["not_fixture"]),
            ("errors", report.counts["error"]),
        ]
    )
    return report.exit_code


def _handle_change(engine: Engine, result: FileResult, mode: MigrateMode, *, out: TextIO, report: Report) -> None:
    assert result.old_bytes is not None and result.new_bytes is not None
    shown = _display(result.path)
    if result.new_path is not None:
        shown += f" -> {_display(result.new_path)}"
    if mode.diff:
        old_name, new_name = _display(result.path), _display(result.new_path or result.path)
        out.write(render_diff(_text(result.old_bytes), _text(result.new_bytes), old_name, new_name))
    if mode.check:
        report.found = True
    if mode.write:
        try:
            engine.apply(result)
        except FixtureError as error:
            report.counts["changed"] -= 1
            report.error(_display(result.path), error)
            return
    verb = "migrated" if mode.write else "would migrate"
    report.note(f"{verb} {shown} ({', '.join(result.adapters)})", always=not mode.diff)


def _load_all(reader: Reader, paths: Sequence[Path], *, last_duplicate_wins: bool = False) -> list[LoadedFile]:
    loaded = []
    for path, error in iter_files(paths):
        loaded.append(
            LoadedFile(path, error=error) if error else reader.load(path, last_duplicate_wins=last_duplicate_wins)
        )
    return loaded


def dump_json(value: Any, *, indent: int | None = 2) -> str:
    """JSON text as the reference prints it (`JSON.stringify(value, null, 2)`), with
    terminal-unsafe characters escaped as `\\uXXXX` (still valid JSON)."""
    return escape_json(json.dumps(value, ensure_ascii=False, indent=indent))


def run_normalize(
    paths: Sequence[Path], options: Options, *, output_format: str, as_migrated: bool, out: TextIO, report: Report
) -> int:
    """Print the normalized cases of every fixture under `paths` as a JSON array or JSON Lines."""
    reader = Reader(Engine(options))
    cases: list[Any] = []
    for loaded in _load_all(reader, paths):
        if loaded.error is not None:
            report.error(_display(loaded.path), loaded.error)
            continue
        if not any(loaded.adapters):
            report.count("not_fixture")
            report.note(f"{_display(loaded.path)}: not a fixture, skipped")
            continue
        bad = reader.non_object_cases(loaded)
        if bad:
            number, where = bad[0]
            line, column = where or (None, None)
            report.error(
                _display(loaded.path),
                FixtureError(f"case {number} is not an object", code="case_not_object", line=line, column=column),
            )
            continue
        try:
            cases.extend(reader.cases(loaded, as_migrated=as_migrated))
        except FixtureError as error:
            report.error(_display(loaded.path), error)
    if output_format == "jsonl":
        out.write("".join(dump_json(case, indent=None) + "\n" for case in cases))
    else:
        out.write(dump_json(cases) + "\n")
    return report.exit_code


def run_validate(
    paths: Sequence[Path],
    options: Options,
    *,
    check_refs: bool,
    output_format: str,
    as_migrated: bool,
    out: TextIO,
    report: Report,
) -> int:
    """Validate every fixture under `paths`; exit 1 on validation errors, 2 on bad input."""
    reader = Reader(Engine(options))
    loaded = _load_all(reader, paths, last_duplicate_wins=True)
    refs = RefChecker(options.repo_root, check_exists=check_refs)
    errors, problems = validation_errors(reader, loaded, refs, as_migrated=as_migrated)
    for path, error in problems:
        report.error(_display(path), error)
    if output_format == "json":
        out.write(dump_json(errors) + "\n")
    else:
        for entry in errors:
            place = entry.get("source_file") or "-"
            if entry.get("line"):
                place += f":{entry['line']}"
            out.write(
                escape_text(f"{place}: {entry.get('id') or '-'}: {entry['reason_code']}: {entry['message']}") + "\n"
            )
    report.found = bool(errors)
    checked = sum(1 for item in loaded if item.error is None and any(item.adapters))
    report.summary([("files checked", checked), ("validation errors", len(errors)), ("file errors", len(problems))])
    return report.exit_code


def run_detect(paths: Sequence[Path], options: Options, *, out: TextIO, report: Report) -> int:
    """Print, per file (and per payload of a multi-payload file), the adapter that claims it."""
    reader = Reader(Engine(options))
    for loaded in _load_all(reader, paths):
        if loaded.error is not None:
            report.error(_display(loaded.path), loaded.error)
            continue
        assert loaded.document is not None
        if not loaded.document.units:  # a YAML stream or Python module with no payload in it
            out.write(escape_text(f"{_display(loaded.path)}: not a fixture") + "\n")
        for unit, adapter in zip(loaded.document.units, loaded.adapters, strict=True):
            where = _display(loaded.path) + (f" [{unit.label}]" if unit.label else "")
            if adapter is None:
                claim = "not a fixture"
            elif adapter.kind == "canonical":
                claim = "canonical"
            else:
                claim = f"{adapter.name} ({adapter.kind})"
            out.write(escape_text(f"{where}: {claim}") + "\n")
    return report.exit_code


def run_adapters(*, out: TextIO) -> int:
    """Print the registered adapters, one line each, in detection order."""
    from migrate.registry import default_registry

    adapters = list(default_registry())
    width = max(len(adapter.name) for adapter in adapters)
    for adapter in adapters:
        out.write(f"{adapter.name:<{width}}  {adapter.kind:<9}  {adapter.summary}\n")
    return 0
