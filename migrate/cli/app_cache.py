"""The typer group `cache`: the cache of earlier verdicts `migrate` keeps
(`fixture_migrate.migration.cache`), registered on the app by `fixture_migrate.cli.app`."""

import os
from pathlib import Path

import typer
from fixture_migrate.cli.options import RepoRoot
from fixture_migrate.config import ConfigError, resolve

cache_app = typer.Typer(
    help="The cache of earlier verdicts that lets `migrate` skip unchanged files.", no_args_is_help=True
)


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
