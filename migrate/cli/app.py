"""The `fixture-migrate` command line: parses options, calls the runs in `fixture_migrate.cli`.

Exit codes: 0 nothing to do or done; 1 `--check` found a change or `validate`
found errors; 2 bad input, bad usage or an I/O failure (an error wins).

One typer command per subcommand, each with the help text of its own options; the
options the subcommands share are declared in `fixture_migrate.cli.options`, the
commands `import` and `export` in `fixture_migrate.cli.app_exchange` and the group
`cache` in `fixture_migrate.cli.app_cache`. The commands hold no logic. `main` is the
console script's entry point. The module runs to some 580 lines because each command carries
its own help text and options, which `--help` shows as written here.
"""

import contextlib
import gc
import os
import signal
import sys
import threading
from typing import Annotated

import typer
from fixture_migrate import __version__
from fixture_migrate.claiming.registry import RegistryError
from fixture_migrate.cli import GC_THRESHOLD, commands, recording
from fixture_migrate.cli.emitters import emitter_class
from fixture_migrate.cli.options import (
    AsMigrated,
    ConfigFile,
    Exclude,
    ExtendExclude,
    ForceExclude,
    Jobs,
    NormalizeFormat,
    OutputFormat,
    Paths,
    PyNames,
    Quiet,
    RepoRoot,
    ReviewFormat,
    Skill,
    Verbose,
    resolve_settings,
    say_error,
)
from fixture_migrate.cli.output import github_stream, make_report, output_stream
from fixture_migrate.config import iter_selected
from fixture_migrate.files.parallel import default_jobs


COMPLETE_VAR = "_FIXTURE_MIGRATE_COMPLETE"
"""The environment variable a shell sets to ask for completions (click's `_{PROG}_COMPLETE`)."""


def _new_app(*, completion: bool = True) -> typer.Typer:
    return typer.Typer(
        name="fixture-migrate",
        add_completion=completion,
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


_app = _new_app()
"""The app; its `import` and `export` commands and `cache` group join it on first need
(`_complete`): a run of another command never imports their modules. Reach it as `app`."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fixture-migrate {__version__}")
        raise typer.Exit(0)


@_app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """fixture-migrate: legacy eval fixtures to canonical v1."""


@_app.command()
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
    include_pinned: Annotated[
        bool,
        typer.Option(
            "--include-pinned",
            help="Also migrate files the repository pins (another tracked file holds their sha256/sha1 "
            "or their byte count next to their name); without it they are left as they are, and named.",
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
    settings = resolve_settings(ctx, "migrate")
    values = settings.values
    mode = commands.MigrateMode(diff=values["diff"], check=values["check"], include_pinned=values["include_pinned"])
    fmt = values["output_format"]
    use_cache = not values["no_cache"]
    # A check re-run over unchanged inputs prints what the run before it printed
    # (`fixture_migrate.migration.replay`); a run that qualifies records what it prints.
    replayed, recorder = recording.start(
        values,
        settings.paths,
        settings.options,
        iter_selected(settings.paths, settings.options),
        check=mode.check,
        diff=mode.diff,
        use_cache=use_cache,
    )
    if replayed is not None:
        raise typer.Exit(replayed)
    with recorder or contextlib.nullcontext():
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
                live_stdout=mode.diff or emitter_class(fmt).annotates,
            ),
            output_format=fmt,
            jobs=values["jobs"] or default_jobs(),
            use_cache=use_cache,
            recorder=recorder,
        )
        stdout.flush()
    if recorder is not None:
        recorder.save(code)
    raise typer.Exit(code)


@_app.command()
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
    settings = resolve_settings(ctx, "normalize")
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


@_app.command()
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
    settings = resolve_settings(ctx, "validate")
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


@_app.command()
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
    families: Annotated[
        bool,
        typer.Option(
            "--families",
            help="Report each family of local fixtures instead of each file: its files, its "
            "records' members and where each lands (input, expected_outcome, extensions, ...) "
            "with the rule that decided.",
        ),
    ] = False,
) -> None:
    """Say which adapter claims each file and by which rule: an adapter name, canonical,
    left for import, not migrated, or not a fixture (-v adds the reason and the rule).

    \b
    Examples:
      fixture-migrate detect skills/spec-write-tasks/evals
      fixture-migrate detect -v .
      fixture-migrate detect --families .
      fixture-migrate detect --output-format json . > formats.json
    """
    settings = resolve_settings(ctx, "detect")
    values = settings.values
    fmt = values["output_format"]
    stdout = output_stream(fmt)
    from fixture_migrate.cli import decisions  # `detect` and `suggest` alone read files this way

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
            live_stdout=not emitter_class(fmt).one_document,
        ),
        output_format=fmt,
        families=families,
    )
    stdout.flush()
    raise typer.Exit(code)


@_app.command()
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
    settings = resolve_settings(ctx, "suggest")
    values = settings.values
    from fixture_migrate.cli import decisions

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


@_app.command()
def consumers(
    ctx: typer.Context,
    paths: Paths = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Rewrite the reads --fix can rewrite, in place (atomic writes).")
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print the rewrites as a unified diff (a patch); write nothing.")
    ] = False,
    output_format: OutputFormat = ReviewFormat.text,
    repo_root: RepoRoot = None,
    config: ConfigFile = None,
    force_exclude: ForceExclude = False,
    exclude: Exclude = None,
    extend_exclude: ExtendExclude = None,
    py_name: PyNames = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Find the code that reads the fixtures a migration changes, before or after `migrate`.

    Consumer code is code that names a migrated fixture file (its path, base name, folder
    or a glob of it, or a constant bound to one) or a legacy schema_version string. In it,
    each read of a moved name (`examples` -> `cases`, `user_intent` -> `input`,
    `dispatch_authorization` -> `extensions.dispatch_authorization`, the legacy
    schema_version -> `extensions.migrated_from`, `cases.jsonl` -> `cases.json`) is printed at
    file:line:col with its new home and whether --fix rewrites it or a person must.
    Python is read with libcst, JavaScript and TypeScript with tree-sitter. Rewrites read
    the new home with a fallback to the legacy name, so the code works on migrated and on
    legacy data. Exit 1 while any site remains.

    \b
    Examples:
      fixture-migrate consumers .                 # the sites, for review; exit 1 if any
      fixture-migrate consumers --fix --diff .    # the rewrites as a patch; write nothing
      fixture-migrate consumers --fix .           # rewrite in place; list what is left
    """
    settings = resolve_settings(ctx, "consumers")
    values = settings.values
    fmt = values["output_format"]
    stdout = output_stream(fmt)
    from fixture_migrate.cli import consumer_runs

    code = consumer_runs.run_consumers(
        settings.paths,
        settings.options,
        fix=values["fix"],
        diff=values["diff"],
        out=stdout,
        report=make_report(
            fmt, out=stdout, root=settings.options.repo_root, quiet=values["quiet"], verbose=values["verbose"]
        ),
        output_format=fmt,
    )
    stdout.flush()
    raise typer.Exit(code)


_EXCHANGE_AFTER = "suggest"
"""The command after which `import` and `export` are listed."""


@_app.command()
def adapters() -> None:
    """List the registered adapters in detection order: name, kind, what it reads.

    \b
    Example:
      fixture-migrate adapters
    """
    raise typer.Exit(commands.run_adapters(out=sys.stdout))


@_app.command()
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


def _complete() -> typer.Typer:
    """`_app` with every command: `import` and `export` listed after `_EXCHANGE_AFTER`, and
    the `cache` group last, as `--help` shows them."""
    if not _app.registered_groups:
        from fixture_migrate.cli import app_cache, app_exchange

        registered = _app.registered_commands
        at = 1 + next(i for i, info in enumerate(registered) if _command_name(info) == _EXCHANGE_AFTER)
        count = len(registered)
        _app.command("import")(app_exchange.import_)
        _app.command("export")(app_exchange.export)
        registered[at:at] = registered[count:]
        del registered[count + 2 :]
        _app.add_typer(app_cache.cache_app, name="cache")
    return _app


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return _complete()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        return _complete()
    commands_ = [info for info in _app.registered_commands if _command_name(info) == name]
    if not commands_:
        app = _complete()
        commands_ = [info for info in app.registered_commands if _command_name(info) == name]
    groups = [info for info in _app.registered_groups if info.name == name]
    if not commands_ and not groups:
        return _complete()
    # `--install-completion` and `--show-completion` are options of the whole app, never of a
    # subcommand: a run of one goes without them (typer inspects their machinery on every
    # run), unless a shell is asking for completions.
    lean = _new_app(completion=COMPLETE_VAR in os.environ)
    lean.registered_callback = _app.registered_callback
    lean.registered_commands = commands_
    lean.registered_groups = groups
    return lean


def _command_name(info: typer.models.CommandInfo) -> str:
    if info.name:
        return info.name
    assert info.callback is not None
    return info.callback.__name__.lower().replace("_", "-")


def _github_requested(argv: list[str]) -> bool:
    """Whether the run prints for GitHub Actions: `--output-format github` is given, or the
    process runs in an Actions job (`GITHUB_ACTIONS=true`), where the runner reads every line."""
    if os.environ.get("GITHUB_ACTIONS") == "true" or "--output-format=github" in argv:
        return True
    return any(a == "--output-format" and b == "github" for a, b in zip(argv, argv[1:]))


_READ_ONLY = frozenset({"normalize", "validate", "detect", "suggest", "adapters", "schema"})
"""The commands that never write a file: an interrupted run of one says so."""


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
        # The thresholds of a run (`GC_THRESHOLD`). Objects alive now (modules, the app) are
        # never looked at again; worker processes inherit both.
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLD)
    streams = (sys.stdout, sys.stderr)
    args = sys.argv[1:] if argv is None else argv
    if _github_requested(list(args)):
        # Every line printed, by this tool or by the command-line parser (a usage error that
        # quotes a value), goes through the same inert-line filter as the report.
        sys.stdout, sys.stderr = github_stream(sys.stdout), github_stream(sys.stderr)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, _interrupt)
    try:
        _app_for(args)(args=args, prog_name="fixture-migrate")
    except _Interrupted as exc:
        for signum in previous:  # a second Ctrl-C does not cut the report short
            signal.signal(signum, signal.SIG_IGN)
        if args and args[0] in _READ_ONLY:
            say_error("fixture-migrate: interrupted (this command changes no file)")
        else:
            say_error("fixture-migrate: interrupted; every file is either migrated or as it was")
        if argv is None:
            # The process is this run's: it ends now. The interpreter's exit would wait for
            # worker pools first, which a signal that also reached the workers can leave
            # waiting for ever; every write and temporary file is settled by now.
            for stream in (sys.stdout, sys.stderr, *streams):
                stream.flush()
            os._exit(int(exc.code))  # type: ignore[arg-type]
        return int(exc.code)  # type: ignore[arg-type]
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except RegistryError as exc:
        say_error(f"fixture-migrate: error: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug must still end in one line and exit 2
        say_error(f"fixture-migrate: internal error: {type(exc).__name__}: {exc}")
        return 2
    finally:
        for signum, handler in previous.items():
            if handler is not None:
                signal.signal(signum, handler)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = streams
    return 0
