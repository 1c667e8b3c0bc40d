"""The `fixture-migrate` command line: parses options, calls `migrate.commands`.

Exit codes: 0 nothing to do or done; 1 `--check` found a change or `validate`
found errors; 2 bad input, bad usage or an I/O failure (an error wins).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from migrate import __version__, commands
from migrate.engine import Options, find_repo_root
from migrate.report import Report

app = typer.Typer(
    name="fixture-migrate",
    help=(
        "Migrate legacy eval-fixture files to the canonical spec-first.workflow-eval-fixtures.v1 shape, "
        "in place, keeping every local field under `extensions`.\n\n"
        "Exit codes: 0 nothing to do or done; 1 changes needed (--check) or validation errors; "
        "2 bad input, bad usage or I/O failure."
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class NormalizeFormat(StrEnum):
    json = "json"
    jsonl = "jsonl"


class ValidateFormat(StrEnum):
    text = "text"
    json = "json"


Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Files or directories (walked for *.json, *.jsonl, *.yaml, *.yml and *.py). Default: the current directory."
    ),
]
RepoRoot = Annotated[
    Path | None,
    typer.Option(
        "--repo-root",
        help="Root that source_file and source_refs are relative to. Default: the git top level, else the current directory.",
        file_okay=False,
    ),
]
Skill = Annotated[
    str | None, typer.Option("--skill", help="Skill for files that name none and are not under skills/<name>/.")
]
PyNames = Annotated[
    list[str] | None,
    typer.Option(
        "--py-name",
        metavar="NAME",
        help="Name a bare list of case dicts in a Python module is a fixture under (repeatable). Default: CASES, FIXTURE.",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")]
Verbose = Annotated[
    bool, typer.Option("--verbose", "-v", help="Name every file, also unchanged ones and non-fixtures.")
]
AsMigrated = Annotated[
    bool,
    typer.Option(
        "--as-migrated",
        help="View legacy files as they would be after `migrate` (default: as the reference reads them).",
    ),
]


def _options(repo_root: Path | None, skill: str | None, py_names: list[str] | None = None) -> Options:
    root = repo_root.resolve() if repo_root is not None else find_repo_root(Path.cwd())
    if py_names:
        return Options(repo_root=root, skill=skill, py_names=tuple(py_names))
    return Options(repo_root=root, skill=skill)


def _paths(paths: list[Path] | None) -> list[Path]:
    return list(paths) if paths else [Path(".")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fixture-migrate {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """fixture-migrate: legacy eval fixtures to canonical v1."""


@app.command()
def migrate(
    paths: Paths = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if any file would change.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print unified diffs of the changes; write nothing.")] = False,
    repo_root: RepoRoot = None,
    skill: Skill = None,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Rewrite legacy fixtures in place as canonical v1 files.

    Members that do not move keep their exact text; local fields go under `extensions`;
    a JSONL file becomes <stem>.json beside it. Every change is checked before it is
    written: nothing is lost, the normalized view stays compatible, a second run changes
    nothing.

    Example: fixture-migrate migrate --diff skills/
    """
    code = commands.run_migrate(
        _paths(paths),
        _options(repo_root, skill, py_name),
        commands.MigrateMode(diff=diff, check=check),
        out=sys.stdout,
        report=Report(quiet=quiet, verbose=verbose),
    )
    raise typer.Exit(code)


@app.command()
def normalize(
    paths: Paths = None,
    repo_root: RepoRoot = None,
    skill: Skill = None,
    output_format: Annotated[
        NormalizeFormat, typer.Option("--output-format", help="A JSON array, or one case per line.")
    ] = NormalizeFormat.json,
    as_migrated: AsMigrated = False,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Print the normalized cases, as the contract's reference normalizer gives them.

    Example: fixture-migrate normalize skills/spec-prd/evals/examples.json --output-format jsonl
    """
    code = commands.run_normalize(
        _paths(paths),
        _options(repo_root, skill, py_name),
        output_format=output_format.value,
        as_migrated=as_migrated,
        out=sys.stdout,
        report=Report(quiet=quiet, verbose=verbose),
    )
    raise typer.Exit(code)


@app.command()
def validate(
    paths: Paths = None,
    repo_root: RepoRoot = None,
    skill: Skill = None,
    no_ref_check: Annotated[
        bool, typer.Option("--no-ref-check", help="Do not check that source_refs paths exist.")
    ] = False,
    output_format: Annotated[
        ValidateFormat, typer.Option("--output-format", help="Text lines, or a JSON array of error objects.")
    ] = ValidateFormat.text,
    as_migrated: AsMigrated = False,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Check normalized cases against the contract; exit 1 on any error.

    Reason codes and their order are the reference's; duplicate case ids are found across
    all the given files.

    Example: fixture-migrate validate skills/ --no-ref-check --output-format json
    """
    code = commands.run_validate(
        _paths(paths),
        _options(repo_root, skill, py_name),
        check_refs=not no_ref_check,
        output_format=output_format.value,
        as_migrated=as_migrated,
        out=sys.stdout,
        report=Report(quiet=quiet, verbose=verbose),
    )
    raise typer.Exit(code)


@app.command()
def detect(paths: Paths = None, repo_root: RepoRoot = None, py_name: PyNames = None) -> None:
    """Say which adapter claims each file: an adapter name, canonical, or not a fixture.

    Example: fixture-migrate detect skills/spec-write-tasks/evals
    """
    options = _options(repo_root, None, py_name)
    raise typer.Exit(commands.run_detect(_paths(paths), options, out=sys.stdout, report=Report()))


@app.command()
def adapters() -> None:
    """List the registered adapters in detection order: name, kind, what it reads.

    Example: fixture-migrate adapters
    """
    raise typer.Exit(commands.run_adapters(out=sys.stdout))


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: `sys.argv[1:]`); returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        app(args=argv, prog_name="fixture-migrate")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return 0
