"""The run of `consumers`: the code that reads the fixtures a migration changes (or changed).

`run_consumers` plans the fixtures under PATHS (nothing written), builds the moved-names
model, finds the consumer sites in every Python, JavaScript and TypeScript file under
PATHS, prints each (`Emitter.consumer`), and with `--fix` writes the rewrites through the
project's atomic writes, with `--diff` prints them as a patch instead. Exit 1 while any
site remains (after `--fix`: those left for a person), 2 on an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from fixture_migrate.cli import output
from fixture_migrate.cli.emitters import emitter_for
from fixture_migrate.cli.report import Report
from fixture_migrate.config import iter_selected
from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.engine import Engine, Options


def run_consumers(
    paths: Sequence[Path],
    options: Options,
    *,
    fix: bool,
    diff: bool,
    out: TextIO,
    report: Report,
    output_format: str = "text",
) -> int:
    """Report (and with `fix` rewrite, with `diff` show the rewrite of) the consumer sites
    under `paths`; returns the exit code (0 none left, 1 some left, 2 an error)."""
    from fixture_migrate.consumers.findings import FIX, References
    from fixture_migrate.consumers.run import code_files, fixed_text, read_code
    from fixture_migrate.files.diff import render_file_diff
    from fixture_migrate.files.paths import diff_name
    from fixture_migrate.files.hard_links import HardLinks
    from fixture_migrate.files.writes import write_atomic

    from fixture_migrate.consumers.run import targets_inside

    root = options.repo_root
    paths, refused = targets_inside(paths, root)
    for path, error in refused:
        report.error(path.as_posix(), error)
    named = {path for path in paths if not path.is_dir()}
    engine = Engine(options)
    fixtures = [path for path, error in iter_selected(paths, options) if error is None]
    model, errors = fixture_moves_of(engine, fixtures)
    for path, error in errors:
        if report.verbose:
            report.note(f"{path.as_posix()}: not read as a fixture: {error.message}")
    emit = emitter_for(output_format, out=out, root=root)
    refs = References(model)
    records: list[dict[str, Any]] = []
    left = rewritten = files_changed = scanned = 0
    hard_links = HardLinks(root)  # every name of a hard-linked consumer is rewritten, as migrate does
    for path in code_files(paths, root) if model else ():
        scanned += 1
        try:
            raw, text = read_code(path, root)
            new_text, findings = fixed_text(path, text, refs, root) if (fix or diff) else (text, None)
            if findings is None:
                from fixture_migrate.consumers.run import find_in_text

                findings = find_in_text(path, text, refs, root)
        except FixtureError as error:
            if error.code in ("invalid_code", "io", "too_large", "too_deep", "not_regular") and path not in named:
                # Walked, not named: said on every run (a consumer may hide there), not an error.
                report.note(f"{path.as_posix()}: not read: {error.message}", always=True)
                continue
            report.error(path.as_posix(), error)
            continue
        wrote = False
        if new_text != text:
            new_bytes = new_text.encode("utf-8")
            if diff:
                output.write_diff(out, render_file_diff(raw, new_bytes, diff_name(path, root)))
            if fix and not diff:
                try:
                    write_atomic(path, new_bytes, original=raw, root=root, hard_links=hard_links)
                    wrote = True
                    files_changed += 1
                except FixtureError as error:
                    report.error(path.as_posix(), error)
        for finding in findings:
            fixed = wrote and finding.who == FIX
            rewritten += fixed
            left += not fixed
            if not diff:
                emit.consumer(finding, fixed=fixed)
            record = finding.as_dict()
            record["rewritten"] = fixed
            records.append(record)
    for finding in refs.file_findings() if fixtures_named(paths, root) else ():
        left += 1
        if not diff:
            emit.consumer(finding, fixed=False)
        record = finding.as_dict()
        record["rewritten"] = False
        records.append(record)
    summary = {
        "fixtures_with_moves": refs.counted(),
        "code_files_scanned": scanned,
        "sites": len(records),
        "fixable": sum(1 for r in records if r["fix"]),
        "for_a_person": sum(1 for r in records if not r["fix"]),
        "rewritten": rewritten,
        "files_rewritten": files_changed,
        "left": left,
    }
    emit.consumers_end(records, summary)
    report.found = left > 0
    report.summary(
        [
            ("fixtures with moved names", refs.counted()),
            ("consumer sites", len(records)),
            ("rewritten", rewritten),
            ("left for --fix", sum(1 for r in records if r["fix"] and not r["rewritten"])),
            ("left for a person", sum(1 for r in records if not r["fix"])),
        ]
    )
    return report.exit_code


def fixture_moves_of(engine: Engine, fixtures: list[Path]) -> Any:
    from fixture_migrate.consumers.run import fixture_moves

    return fixture_moves(engine, fixtures)


def fixtures_named(paths: Sequence[Path], root: Path) -> bool:
    """Whether the run looks at code at all (a folder, or a code file): the findings about
    moved fixture files come with a run over a tree, not with one named source file."""
    from fixture_migrate.consumers.run import CODE_SUFFIXES

    return any(path.is_dir() or path.suffix in CODE_SUFFIXES for path in paths)
