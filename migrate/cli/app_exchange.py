"""The typer commands `import` and `export`: they parse options and call the runs in
`fixture_migrate.cli.exchange` (registered on the app by `fixture_migrate.cli.app`)."""

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from fixture_migrate.cli.options import ConfigFile, Quiet, RepoRoot, Verbose, resolve_settings
from fixture_migrate.cli.output import make_report


class Authority(StrEnum):
    source = "source"
    historical = "historical"
    advisory = "advisory"


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
    from fixture_migrate.cli.exchange import run_import
    from fixture_migrate.importing.pipeline import ImportRequest

    settings = resolve_settings(ctx, "import")
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
        root_given=getattr(settings.options, "root_given", False),
    )
    report = make_report(
        "text", out=sys.stdout, root=settings.options.repo_root, quiet=quiet, verbose=verbose, live_stdout=diff
    )
    raise typer.Exit(run_import(request, out=sys.stdout, report=report))


class ExportFormat(StrEnum):
    text = "text"
    json = "json"


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
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace a DEST export cannot show it wrote; its replaced records are listed as losses.",
        ),
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
    from fixture_migrate.cli.exchange import run_export
    from fixture_migrate.exporting.pipeline import ExportRequest

    settings = resolve_settings(ctx, "export")
    request = ExportRequest(
        paths=paths,
        target=to,
        dest=out,
        repo_root=settings.options.repo_root,
        check=check,
        diff=diff,
        strict=strict,
        config_path=settings.config_path,
        force=force,
        root_given=getattr(settings.options, "root_given", False),
    )
    fmt = output_format.value
    report = make_report(
        "text", out=sys.stdout, root=settings.options.repo_root, quiet=quiet, verbose=verbose, live_stdout=diff
    )
    raise typer.Exit(run_export(request, out=sys.stdout, report=report, output_format=fmt))
