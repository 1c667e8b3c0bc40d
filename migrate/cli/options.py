"""The options the subcommands share, declared once with their help text, and the
merge of a subcommand's options with the configuration (`resolve_settings`)."""

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from fixture_migrate.cli.output import inert_line
from fixture_migrate.config import ConfigError, Settings, resolve
from fixture_migrate.files.diff import escape_text


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


def resolve_settings(ctx: typer.Context, command: str) -> Settings:
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
    from fixture_migrate.formats.limits import size_limit_problems

    for problem in size_limit_problems():
        say_error(f"fixture-migrate: error: {problem}")
    if size_limit_problems():
        raise typer.Exit(2)
    try:
        return resolve(command, params, given, config_file=params.get("config"))
    except ConfigError as exc:
        say_error(f"fixture-migrate: error: {exc}")
        raise typer.Exit(2) from None


def say_error(text: str) -> None:
    """Print a message of the tool's own on stderr as one line: control characters escaped
    (`escape_text`) and a workflow-command prefix made inert (`inert_line`), so a value from
    a config file or a path can neither start a line of its own nor be read as a command."""
    print(inert_line(escape_text(text)), file=sys.stderr)
