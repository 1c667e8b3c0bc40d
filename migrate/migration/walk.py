"""The walk: which files a run over PATHS processes, in a stable order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import SYNTAX_BY_SUFFIX
from fixture_migrate.migration.ignore import GitIgnore
from fixture_migrate.migration.writes import (
    TEMP_SUFFIX,
    hold_directory,
    open_below,
    open_directory,
    release_directory,
    resolve_target,
)

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


def iter_files(
    paths: Iterable[Path],
    ignore: GitIgnore | None = None,
    admits: Callable[[Path], bool] | None = None,
    *,
    root: Path | None = None,
) -> Iterator[tuple[Path, FixtureError | None]]:
    """Each file to process, in a stable order, with an error for a path that does not exist.

    A directory is walked recursively for the suffixes `fixture_migrate.formats` reads, in
    sorted order, skipping hidden and `SKIPPED_DIRS` directories and never following
    a symlinked directory, and leaving out what `ignore` (the `.gitignore` rules) ignores.
    A file named directly is yielded whatever its suffix, ignored or not.

    A symlinked file met in a walk is judged by its target too: it is left out when the
    target is ignored, not admitted by `admits` (the configured `include`/`exclude`), or
    lies under a walked directory (the walk meets the real file there), and one target
    is processed once however many links lead to it.

    With `root` (the repo root), each directory is opened under its root rule
    (`writes.open_directory`, then `writes.open_below` one level at a time) and held
    open while the walk yields its files (`writes.hold_directory`): a read of one of them
    in the meantime opens it relative to that directory, once, instead of walking from
    the root again.
    """
    paths = list(paths)
    roots = [Path(os.path.realpath(path)) for path in paths if path.is_dir()]
    # One walk never meets a file twice; only overlapping arguments need remembering
    # (and a long walk is not held in memory without need).
    seen: set[Path] | None = set() if len(paths) > 1 else None
    targets: set[Path] = set()
    for path in paths:
        if path.is_dir():
            for found, is_link in _walk(path, ignore, root):
                if is_link and not _admit_link(found, roots, targets, ignore, admits):
                    continue
                if seen is None or found not in seen:
                    if seen is not None:
                        seen.add(found)
                    yield found, None
        elif path.exists() or path.is_symlink():
            if seen is None or path not in seen:
                if seen is not None:
                    seen.add(path)
                yield path, None
        else:
            yield path, FixtureError("no such file or directory", code="io")


def _admit_link(
    link: Path,
    roots: list[Path],
    targets: set[Path],
    ignore: GitIgnore | None,
    admits: Callable[[Path], bool] | None,
) -> bool:
    """Whether a walk processes the symlinked file `link` (see `iter_files`)."""
    target = Path(os.path.realpath(link))
    if not target.exists():
        return True  # a dangling link: reading it reports the error
    if target in targets:
        return False
    if any(target.is_relative_to(root) for root in roots):
        return False  # the walk meets (or deliberately skips) the real file itself
    if ignore is not None and target.is_relative_to(ignore.root) and ignore.ignored(target, is_dir=False):
        return False
    if admits is not None and not admits(target):
        return False
    targets.add(target)
    return True


def _walk(top: Path, ignore: GitIgnore | None, root: Path | None) -> Iterator[tuple[Path, bool]]:
    """`(path, is a symlink)` of each file of the walk of the directory `top`."""
    try:
        opened = open_directory(resolve_target(top, root), root)
    except FixtureError:
        # The directory named is a symlink leading outside the root (say): walked by its
        # path, and each file read reports the refusal.
        yield from _walk_paths(top, ignore)
        return
    with opened:
        yield from _walk_open(top, opened.fd, ignore, root)


def _walk_open(here: Path, fd: int, ignore: GitIgnore | None, root: Path | None) -> Iterator[tuple[Path, bool]]:
    """The walk below the directory `here`, open as `fd` (as `os.walk` lists it)."""
    try:
        entries = list(os.scandir(fd))
    except OSError:
        return  # as `os.walk`: a directory that cannot be listed is passed over
    directories: list[str] = []
    files: list[tuple[str, bool]] = []
    for entry in entries:
        name = entry.name
        try:
            is_dir = entry.is_dir()  # a symlinked directory is no file, and never entered
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink() and not name.startswith(".") and name not in SKIPPED_DIRS:
                directories.append(name)
            continue
        # The suffix as `Path.suffix` gives it, without a Path per name.
        dot = name.rfind(".")
        suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""
        if suffix in SYNTAX_BY_SUFFIX and not name.endswith(TEMP_SUFFIX):
            files.append((name, entry.is_symlink()))
    text = os.fspath(here)
    rules = ignore is not None and ignore.has_rules(here, fd)
    if files:
        if root is not None:
            hold_directory(text, fd, root)
        try:
            for name, is_link in sorted(files):
                path = here / name
                if not rules or not ignore.ignored(path, is_dir=False):  # type: ignore[union-attr]
                    yield path, is_link
        finally:
            if root is not None:
                release_directory(text)
    for name in sorted(directories):
        path = here / name
        if rules and ignore.ignored(path, is_dir=True):  # type: ignore[union-attr]
            continue
        try:
            below = open_below(name, fd)
        except OSError:
            continue  # replaced by a symlink (or removed) meanwhile: as `os.walk`, not entered
        try:
            yield from _walk_open(path, below, ignore, root)
        finally:
            os.close(below)


def _walk_paths(root: Path, ignore: GitIgnore | None = None) -> Iterator[tuple[Path, bool]]:
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(directory)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not (ignore is not None and ignore.ignored(here / d, is_dir=True))
        )
        for name in sorted(filenames):
            # The suffix as `Path.suffix` gives it, without a Path per name.
            dot = name.rfind(".")
            suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""
            if suffix in SYNTAX_BY_SUFFIX and not name.endswith(TEMP_SUFFIX):
                if ignore is None or not ignore.ignored(here / name, is_dir=False):
                    path = here / name
                    yield path, path.is_symlink()
