"""The `fixture-migrate` command line: parses options, calls `fixture_migrate.cli.commands`.

Exit codes: 0 nothing to do or done; 1 `--check` found a change or `validate`
found errors; 2 bad input, bad usage or an I/O failure (an error wins).

Over the project's ~500 lines a module: one typer command per subcommand, each
with its options' help text written where the option is declared; the commands
hold no logic.
"""

import gc
import os
import signal
import sys
import threading
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from fixture_migrate import __version__
from fixture_migrate.adapting.registry import RegistryError
from fixture_migrate.cli import commands, decisions
from fixture_migrate.cli.output import github_stream, inert_line, make_report, output_stream
from fixture_migrate.config import ConfigError, Settings, resolve
from fixture_migrate.migration.diff import escape_text
from fixture_migrate.migration.parallel import default_jobs


def _new_app() -> typer.Typer:
    return typer.Typer(
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


app = _new_app()


class NormalizeFormat(StrEnum):
    json = "json"
    jsonl = "jsonl"


class ReviewFormat(StrEnum):
    """Output formats of the review-facing subcommands (`fixture_migrate.cli.output`)."""

    text = "text"
    json = "json"
    github = "github"


Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Files or directories (walked for the file types fixture-migrate reads). Default: the current directory."
    ),
]
RepoRoot = Annotated[
    Path | None,
    typer.Option(
        "--repo-root",
        help="Root that source_file and source_refs are relative to. Default: repo-root in the configuration, "
        "else the git top level, else the current directory.",
        file_okay=False,
        exists=True,
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
Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", min=1, help="Worker processes, at most the number of CPUs (the default; small runs use one)."
    ),
]
AsMigrated = Annotated[
    bool,
    typer.Option(
        "--as-migrated",
        help="View legacy files as they would be after `migrate` (default: as the reference reads them).",
    ),
]
ConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Read [tool.fixture-migrate] from this TOML file instead of the nearest pyproject.toml that has one.",
        dir_okay=False,
    ),
]
ForceExclude = Annotated[
    bool,
    typer.Option(
        "--force-exclude",
        help="Apply the configuration's include/exclude to files named on the command line too "
        "(as pre-commit names them), and skip named files of other types.",
    ),
]
Exclude = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        metavar="GLOB",
        help="Globs of files and directories a walk leaves out, instead of the configuration's "
        "`exclude` (repeatable, or comma-separated).",
    ),
]
ExtendExclude = Annotated[
    list[str] | None,
    typer.Option(
        "--extend-exclude",
        metavar="GLOB",
        help="Globs a walk leaves out, besides the configuration's `exclude` (repeatable, or comma-separated). "
        "Walks also skip what .gitignore ignores; a file named on the command line is always processed.",
    ),
]
OutputFormat = Annotated[
    ReviewFormat,
    typer.Option(
        "--output-format",
        help="text for a person; json, one document on stdout; github, GitHub Actions annotations.",
    ),
]


def _given(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _settings(ctx: typer.Context, command: str) -> Settings:
    """The subcommand's options merged with the configuration (flags win); exits 2 on a bad one.

    The callbacks' parameters are read here, through `ctx.params`, with where each value
    came from: only a flag the user typed overrides the configuration.
    """
    params = {name: getattr(value, "value", value) for name, value in ctx.params.items()}
    # ctx.params holds click's values, before typer's conversion: paths may still be strings.
    for name in ("config", "repo_root"):
        if isinstance(params.get(name), str):
            params[name] = Path(params[name])
    if params.get("paths"):
        if any(str(path) == "" for path in params["paths"]):
            # Path("") is ".", so an unset shell variable would mean the whole directory.
            raise typer.BadParameter("an empty path names nothing; give a file or directory", param_hint="PATHS")
        params["paths"] = [Path(path) for path in params["paths"]]
    given = {name for name in params if _given(ctx, name)}
    from fixture_migrate.formats import size_limit_problems

    for problem in size_limit_problems():
        _say_error(f"fixture-migrate: error: {problem}")
    if size_limit_problems():
        raise typer.Exit(2)
    try:
        return resolve(command, params, given, config_file=params.get("config"))
    except ConfigError as exc:
        _say_error(f"fixture-migrate: error: {exc}")
        raise typer.Exit(2) from None


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
    ctx: typer.Context,
    paths: Paths = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if any file would change.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print unified diffs of the changes; write nothing.")] = False,
    output_format: OutputFormat = ReviewFormat.text,
    repo_root: RepoRoot = None,
    skill: Skill = None,
    jobs: Jobs = None,
    config: ConfigFile = None,
    force_exclude: ForceExclude = False,
    exclude: Exclude = None,
    extend_exclude: ExtendExclude = None,
    py_name: PyNames = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Plan every file, neither reading nor writing the cache of earlier verdicts "
            "(.fixture_migrate_cache at the repo root, or $FIXTURE_MIGRATE_CACHE_DIR).",
        ),
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Rewrite legacy fixtures in place as canonical v1 files.

    Members that do not move keep their exact text; local fields go under `extensions`;
    a JSONL file becomes <stem>.json beside it. Every change is checked before it is
    written: nothing is lost, the normalized view stays compatible, a second run changes
    nothing. Writing exits 0; pre-commit fails the hook because files changed.

    \b
    Examples:
      fixture-migrate migrate --diff skills/          # review: show the changes, write nothing
      fixture-migrate migrate --check --diff skills/  # CI: the diffs, and exit 1 if any
      fixture-migrate migrate skills/                 # rewrite in place
    """
    settings = _settings(ctx, "migrate")
    values = settings.values
    mode = commands.MigrateMode(diff=values["diff"], check=values["check"])
    fmt = values["output_format"]
    stdout = output_stream(fmt)
    code = commands.run_migrate(
        settings.paths,
        settings.options,
        mode,
        out=stdout,
        report=make_report(
            fmt,
            out=stdout,
            root=settings.options.repo_root,
            quiet=values["quiet"],
            verbose=values["verbose"],
            live_stdout=mode.diff or fmt == "github",
        ),
        output_format=fmt,
        jobs=values["jobs"] or default_jobs(),
        use_cache=not values["no_cache"],
    )
    stdout.flush()
    raise typer.Exit(code)


@app.command()
def normalize(
    ctx: typer.Context,
    paths: Paths = None,
    repo_root: RepoRoot = None,
    skill: Skill = None,
    output_format: Annotated[
        NormalizeFormat, typer.Option("--output-format", help="A JSON array, or one case per line.")
    ] = NormalizeFormat.json,
    as_migrated: AsMigrated = False,
    jobs: Jobs = None,
    config: ConfigFile = None,
    force_exclude: ForceExclude = False,
    exclude: Exclude = None,
    extend_exclude: ExtendExclude = None,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Print the normalized cases, as the contract's reference normalizer gives them.

    \b
    Examples:
      fixture-migrate normalize skills/spec-prd/evals/examples.json --output-format jsonl
      fixture-migrate normalize --as-migrated skills/   # the cases as they will be after migrate
    """
    settings = _settings(ctx, "normalize")
    values = settings.values
    code = commands.run_normalize(
        settings.paths,
        settings.options,
        output_format=values["output_format"],
        as_migrated=values["as_migrated"],
        out=sys.stdout,
        report=make_report(
            "text", out=sys.stdout, root=settings.options.repo_root, quiet=values["quiet"], verbose=values["verbose"]
        ),
        jobs=values["jobs"] or default_jobs(),
    )
    raise typer.Exit(code)


@app.command()
def validate(
    ctx: typer.Context,
    paths: Paths = None,
    repo_root: RepoRoot = None,
    skill: Skill = None,
    no_ref_check: Annotated[
        bool, typer.Option("--no-ref-check", help="Do not check that source_refs paths exist.")
    ] = False,
    readiness: Annotated[
        bool,
        typer.Option(
            "--readiness",
            help="Also report, per skill, whether valid cases cover the required buckets (trigger, boundary) "
            "and the optional ones (failure, expected); exit 1 when a skill is not ready.",
        ),
    ] = False,
    output_format: OutputFormat = ReviewFormat.text,
    as_migrated: AsMigrated = False,
    jobs: Jobs = None,
    config: ConfigFile = None,
    force_exclude: ForceExclude = False,
    exclude: Exclude = None,
    extend_exclude: ExtendExclude = None,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Check normalized cases against the contract; exit 1 on any error.

    Reason codes and their order are the reference's; duplicate case ids are found across
    all the given files.

    \b
    Examples:
      fixture-migrate validate skills/ --no-ref-check --output-format json
      fixture-migrate validate --readiness skills/      # which skills lack a trigger or boundary case
      fixture-migrate validate --output-format github   # annotations in a GitHub Actions job
    """
    settings = _settings(ctx, "validate")
    values = settings.values
    fmt = values["output_format"]
    stdout = output_stream(fmt)
    code = commands.run_validate(
        settings.paths,
        settings.options,
        check_refs=not values["no_ref_check"],
        output_format=fmt,
        as_migrated=values["as_migrated"],
        out=stdout,
        report=make_report(
            fmt, out=stdout, root=settings.options.repo_root, quiet=values["quiet"], verbose=values["verbose"]
        ),
        readiness=values["readiness"],
        jobs=values["jobs"] or default_jobs(),
    )
    stdout.flush()
    raise typer.Exit(code)


@app.command()
def detect(
    ctx: typer.Context,
    paths: Paths = None,
    repo_root: RepoRoot = None,
    output_format: OutputFormat = ReviewFormat.text,
    config: ConfigFile = None,
    force_exclude: ForceExclude = False,
    exclude: Exclude = None,
    extend_exclude: ExtendExclude = None,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Say which adapter claims each file: an adapter name, canonical, or not a fixture.

    \b
    Examples:
      fixture-migrate detect skills/spec-write-tasks/evals
      fixture-migrate detect --output-format json . > formats.json
    """
    settings = _settings(ctx, "detect")
    values = settings.values
    fmt = values["output_format"]
    stdout = output_stream(fmt)
    code = decisions.run_detect(
        settings.paths,
        settings.options,
        out=stdout,
        report=make_report(
            fmt,
            out=stdout,
            root=settings.options.repo_root,
            quiet=values["quiet"],
            verbose=values["verbose"],
            live_stdout=fmt != "json",
        ),
        output_format=fmt,
    )
    stdout.flush()
    raise typer.Exit(code)


@app.command()
def suggest(
    ctx: typer.Context,
    paths: Paths = None,
    repo_root: RepoRoot = None,
    config: ConfigFile = None,
    exclude: Exclude = None,
    extend_exclude: ExtendExclude = None,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Draft a pyproject.toml adapter table for a local family migrate leaves unclaimed.

    Reads the files (a directory: the files of local families in it), recognizes the
    fields holding input, expected outcome, forbidden signals, boundary note and trigger
    polarity, and prints a `[tool.fixture-migrate.adapters.NAME]` table per family.
    Paste it into pyproject.toml: the next `migrate` migrates those files in place.

    \b
    Examples:
      fixture-migrate suggest skills/*/evals/trigger-cases.json >> pyproject.toml
      fixture-migrate suggest .
    """
    settings = _settings(ctx, "suggest")
    values = settings.values
    code = decisions.run_suggest(
        settings.paths,
        settings.options,
        out=sys.stdout,
        report=make_report(
            "text",
            out=sys.stdout,
            root=settings.options.repo_root,
            quiet=values["quiet"],
            verbose=values["verbose"],
            live_stdout=True,
        ),
    )
    raise typer.Exit(code)


class Authority(StrEnum):
    source = "source"
    historical = "historical"
    advisory = "advisory"


@app.command("import")
def import_(
    ctx: typer.Context,
    sources: Annotated[
        list[Path], typer.Argument(metavar="SRC...", help="Files written for another eval tool (never modified).")
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out", metavar="DEST", help="The canonical .json file to write (updated in place when it exists)."
        ),
    ],
    from_: Annotated[
        str,
        typer.Option(
            "--from",
            help="auto (detect from content, then file name), openai-evals, promptfoo, inspect, skill-creator, "
            "deepeval, langsmith, or a plugin or pyproject.toml adapter name.",
        ),
    ] = "auto",
    skill: Annotated[str | None, typer.Option("--skill", help="Skill of the imported cases.")] = None,
    source_ref: Annotated[
        list[str] | None,
        typer.Option(
            "--source-ref", metavar="PATH", help="Repo-relative path to cite each SRC by, one per SRC in order."
        ),
    ] = None,
    source_ref_authority: Annotated[
        Authority, typer.Option("--source-ref-authority", help="source_ref_authority of the file.")
    ] = Authority.source,
    field: Annotated[
        list[str] | None,
        typer.Option(
            "--field", metavar="NAME=COLUMN", help="Read the format's field NAME from the record member COLUMN."
        ),
    ] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if DEST would change.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the unified diff of DEST; write nothing.")] = False,
    repo_root: RepoRoot = None,
    config: ConfigFile = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Import fixtures written for another eval tool as one canonical v1 file.

    Every field of every record lands in DEST (core fields or `extensions`); importing
    the same sources again gives the same bytes. Field-mapping adapters come from the
    `[tool.fixture-migrate.adapters.NAME]` tables of the configuration.

    \b
    Examples:
      fixture-migrate import evals/evals.json --out skills/demo/evals/imported.json
      fixture-migrate import promptfooconfig.yaml --out skills/demo/evals/promptfoo.json --diff
    """
    from fixture_migrate.importing.pipeline import ImportRequest, run_import

    settings = _settings(ctx, "import")
    fields: dict[str, str] = {}
    for item in field or []:
        name, sep, column = item.partition("=")
        if not sep or not name.strip() or not column.strip():
            raise typer.BadParameter(f"{item!r} is not NAME=COLUMN", param_hint="--field")
        name, column = name.strip(), column.strip()
        if name in fields:
            raise typer.BadParameter(f"{name} is given twice", param_hint="--field")
        if column in fields.values():
            raise typer.BadParameter(f"column {column} is given for two fields", param_hint="--field")
        fields[name] = column
    request = ImportRequest(
        sources=sources,
        dest=out,
        repo_root=settings.options.repo_root,
        fmt=from_,
        skill=skill,
        source_refs=source_ref or [],
        authority=source_ref_authority.value,
        fields=fields,
        diff=diff,
        check=check,
        config_path=settings.config_path,
    )
    report = make_report(
        "text", out=sys.stdout, root=settings.options.repo_root, quiet=quiet, verbose=verbose, live_stdout=diff
    )
    raise typer.Exit(run_import(request, out=sys.stdout, report=report))


class ExportFormat(StrEnum):
    text = "text"
    json = "json"


@app.command("export")
def export(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(metavar="PATHS...", help="Canonical v1 files (never modified).")],
    to: Annotated[
        str,
        typer.Option("--to", help="promptfoo, inspect, openai-evals, deepeval, langsmith or skill-creator."),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="DEST",
            help="The native file to write; its suffix picks the syntax (.jsonl, .json, .csv, .yaml).",
        ),
    ],
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if DEST would change.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the unified diff of DEST; write nothing.")] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Any loss (a value the target cannot hold) is an error: exit 2.")
    ] = False,
    output_format: Annotated[
        ExportFormat,
        typer.Option("--output-format", help="text for a person; json, one document on stdout (with the losses)."),
    ] = ExportFormat.text,
    repo_root: RepoRoot = None,
    config: ConfigFile = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Export canonical fixtures as another eval tool's native file.

    A case imported from that tool comes back as the record it was imported from;
    any other case is mapped onto the tool's fields, and every value the tool cannot
    hold is listed in the loss report (stderr; `losses` with --output-format json).

    \b
    Examples:
      fixture-migrate export skills/demo/evals/imported.json --to inspect --out evals/dataset.jsonl
      fixture-migrate export skills/demo/evals/*.json --to promptfoo --out promptfooconfig.yaml --diff
    """
    from fixture_migrate.exporting.pipeline import ExportRequest, run_export

    settings = _settings(ctx, "export")
    request = ExportRequest(
        paths=paths,
        target=to,
        dest=out,
        repo_root=settings.options.repo_root,
        check=check,
        diff=diff,
        strict=strict,
        config_path=settings.config_path,
    )
    fmt = output_format.value
    report = make_report(
        "text", out=sys.stdout, root=settings.options.repo_root, quiet=quiet, verbose=verbose, live_stdout=diff
    )
    raise typer.Exit(run_export(request, out=sys.stdout, report=report, output_format=fmt))


@app.command()
def adapters() -> None:
    """List the registered adapters in detection order: name, kind, what it reads.

    \b
    Example:
      fixture-migrate adapters
    """
    raise typer.Exit(commands.run_adapters(out=sys.stdout))


@app.command()
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of a canonical spec-first.workflow-eval-fixtures.v1 file.

    It describes the shape (members and their types), not the validation rules: use
    `validate` for those.

    \b
    Examples:
      fixture-migrate schema > fixture.schema.json
      check-jsonschema --schemafile fixture.schema.json skills/*/evals/*.json
    """
    raise typer.Exit(commands.run_schema(out=sys.stdout))


cache_app = typer.Typer(
    help="The cache of earlier verdicts that lets `migrate` skip unchanged files.", no_args_is_help=True
)
app.add_typer(cache_app, name="cache")


@cache_app.command("clean")
def cache_clean(repo_root: RepoRoot = None) -> None:
    """Remove the cache (.fixture_migrate_cache at the repo root, or $FIXTURE_MIGRATE_CACHE_DIR).

    \b
    Example:
      fixture-migrate cache clean
    """
    from fixture_migrate.migration.cache import clean

    removed = clean(_cache_root(repo_root))
    if removed is None:
        typer.echo("no cache to remove")
    elif os.path.lexists(removed):
        typer.echo(f"removed the cache files in {removed} (it holds other files, left in place)")
    else:
        typer.echo(f"removed {removed}")


@cache_app.command("dir")
def cache_dir(repo_root: RepoRoot = None) -> None:
    """Print the directory the cache of a run from here lives in."""
    from fixture_migrate.migration.cache import cache_dir as directory

    typer.echo(str(directory(_cache_root(repo_root))))


def _cache_root(repo_root: Path | None) -> Path:
    """The repo root `migrate` would use from here: `--repo-root`, the configuration's, or git's."""
    try:
        return resolve("cache", {"repo_root": repo_root}, ()).options.repo_root
    except ConfigError as exc:
        typer.echo(f"fixture-migrate: error: {exc}", err=True)
        raise typer.Exit(2) from None


class _Interrupted(SystemExit):
    """SIGINT or SIGTERM: unwinds like an exception, so a write in progress removes its
    temporary file and leaves its target as it was."""


def _interrupt(signum: int, frame: object) -> None:
    raise _Interrupted(128 + signum)


def _app_for(argv: list[str]) -> typer.Typer:
    """The app holding only the subcommand `argv` starts with, when it names one.

    typer builds the parser of every registered command (inspecting each signature) on
    every run; a run needs its own only. Top-level options, help and unknown names get
    the whole app, so its help and its errors are the same as ever.
    """
    name = argv[0] if argv else None
    if name is None or name.startswith("-"):
        return app
    commands_ = [info for info in app.registered_commands if _command_name(info) == name]
    groups = [info for info in app.registered_groups if info.name == name]
    if not commands_ and not groups:
        return app
    lean = _new_app()
    lean.registered_callback = app.registered_callback
    lean.registered_commands = commands_
    lean.registered_groups = groups
    return lean


def _command_name(info: typer.models.CommandInfo) -> str:
    if info.name:
        return info.name
    assert info.callback is not None
    return info.callback.__name__.lower().replace("_", "-")


def _say_error(text: str) -> None:
    """Print a message of the tool's own on stderr as one line: control characters escaped
    (`escape_text`) and a workflow-command prefix made inert (`inert_line`), so a value from
    a config file or a path can neither start a line of its own nor be read as a command."""
    print(inert_line(escape_text(text)), file=sys.stderr)


def _github_requested(argv: list[str]) -> bool:
    """Whether the run prints for GitHub Actions: `--output-format github` is given, or the
    process runs in an Actions job (`GITHUB_ACTIONS=true`), where the runner reads every line."""
    if os.environ.get("GITHUB_ACTIONS") == "true" or "--output-format=github" in argv:
        return True
    return any(a == "--output-format" and b == "github" for a, b in zip(argv, argv[1:]))


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: `sys.argv[1:]`); returns the exit code.

    Never ends in a traceback: a bug is reported on one line with exit 2. SIGINT and
    SIGTERM stop the run between two steps of a write (exit 130 / 143): every file is
    then either migrated or exactly as it was.
    """
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if argv is None:  # the process is this run's (not a caller's, as in tests)
        # A run allocates many short-lived containers and keeps few: collecting the youngest
        # generation every 700 allocations costs more than it frees. Objects alive now
        # (modules, the app) are never looked at again; worker processes inherit both.
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
    streams = (sys.stdout, sys.stderr)
    if _github_requested(list(sys.argv[1:] if argv is None else argv)):
        # Every line printed, by this tool or by the command-line parser (a usage error that
        # quotes a value), goes through the same inert-line filter as the report.
        sys.stdout, sys.stderr = github_stream(sys.stdout), github_stream(sys.stderr)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, _interrupt)
    try:
        args = sys.argv[1:] if argv is None else argv
        _app_for(args)(args=args, prog_name="fixture-migrate")
    except _Interrupted as exc:
        _say_error("fixture-migrate: interrupted; every file is either migrated or as it was")
        return int(exc.code)  # type: ignore[arg-type]
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except RegistryError as exc:
        _say_error(f"fixture-migrate: error: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug must still end in one line and exit 2
        _say_error(f"fixture-migrate: internal error: {type(exc).__name__}: {exc}")
        return 2
    finally:
        for signum, handler in previous.items():
            if handler is not None:
                signal.signal(signum, handler)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = streams
    return 0
