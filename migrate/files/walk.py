"""The walk: which files a run over PATHS processes, in a stable order."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.ignore import GitIgnore
from fixture_migrate.files.root import (
    check_inside,
    hold_directory,
    open_below,
    open_directory,
    release_directory,
    resolve_target,
)
from fixture_migrate.files.writes import TEMP_SUFFIX
from fixture_migrate.formats import SYNTAX_BY_SUFFIX

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


def iter_files(
    paths: Iterable[Path],
    ignore: GitIgnore | None = None,
    admits: Callable[[Path], bool] | None = None,
    *,
    root: Path | None = None,
    root_given: bool = False,
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
    (`root.open_directory`, then `root.open_below` one level at a time) and held
    open while the walk yields its files (`root.hold_directory`): a read of one of them
    in the meantime opens it relative to that directory, once, instead of walking from
    the root again. The walk is iterative and holds at most `HELD_LEVELS` directories
    open however deep the tree is. A named path outside `root` yields its error
    (`root.check_inside`, with `root_given`) and is not walked.
    """
    paths = list(paths)
    roots = [Path(os.path.realpath(path)) for path in paths if path.is_dir()]
    # One walk never meets a file twice; only overlapping arguments need remembering
    # (and a long walk is not held in memory without need).
    seen: set[Path] | None = set() if len(paths) > 1 else None
    targets: set[Path] = set()
    for path in paths:
        try:
            check_inside(path, root, root_given=root_given)
        except FixtureError as error:
            yield path, error
            continue
        if path.is_dir():
            for found, is_link in _walk(path, ignore, root):
                if isinstance(is_link, FixtureError):
                    yield found, is_link  # a directory the walk could not enter
                    continue
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


HELD_LEVELS = 16
"""How many directories, from the top of a walk down, stay open while the walk is below
them. A directory deeper than that is closed once listed and opened again (from the
deepest directory still held, one level at a time without following a symlink, and only
when each level is still the very directory listed) to enter each of its subdirectories: a walk of any depth needs a bounded number of descriptors."""


def _walk_open(top: Path, fd: int, ignore: GitIgnore | None, root: Path | None) -> Iterator[tuple[Path, bool]]:
    """The walk below the directory `top`, open as `fd` (the caller's; as `os.walk` lists
    it): the files of a directory first, then each subdirectory's walk, in sorted order.
    Iterative: a tree of any depth is walked, with at most `HELD_LEVELS` descriptors."""
    # Per directory entered: its path, its descriptor (-1 once closed), its identity (when
    # closed), the subdirectories still to enter (reversed: the next one is last) and
    # whether the walk opened it (the top is the caller's to close).
    stack: list[tuple[Path, int, tuple[int, int], list[str], bool]] = []
    here, current, owned = top, fd, False
    try:
        while True:
            subdirectories = yield from _directory(here, current, ignore, root)
            held, identity = current, (0, 0)
            if owned and len(stack) >= HELD_LEVELS:
                info = os.fstat(current)
                identity = (info.st_dev, info.st_ino)
                os.close(current)
                held = -1
            current = -1
            stack.append((here, held, identity, subdirectories[::-1], owned))
            while current < 0:
                if not stack:
                    return
                parent, parent_fd, identity, pending, parent_owned = stack[-1]
                if not pending:
                    stack.pop()
                    if parent_owned and parent_fd >= 0:
                        os.close(parent_fd)
                    continue
                name = pending.pop()
                here = parent / name
                try:
                    current = _enter(stack, name)
                except _Exhausted as exc:
                    yield here, FixtureError(  # type: ignore[misc]
                        f"cannot open its directory: {os.strerror(exc.errno)}; not walked", code="io"
                    )
            owned = True
    finally:
        if owned and current >= 0:
            os.close(current)
        for _, held, _, _, was_owned in stack:
            if was_owned and held >= 0:
                os.close(held)


_EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOMEM)


class _Exhausted(OSError):
    """A directory not opened for want of descriptors (or memory): never passed over silently."""


def _enter(stack: list[tuple[Path, int, tuple[int, int], list[str], bool]], name: str) -> int:
    """The subdirectory `name` of the directory last on `stack`, opened without following a
    symlink, or -1 when it is no longer one (replaced by a symlink, removed) or cannot be
    opened (as `os.walk`: not entered)."""
    parent_fd = stack[-1][1]
    if parent_fd >= 0:
        try:
            return open_below(name, parent_fd)
        except OSError as exc:
            if exc.errno in _EXHAUSTED:
                raise _Exhausted(exc.errno, exc.strerror) from None
            return -1
    # Closed once listed (see `HELD_LEVELS`): opened again one level at a time from the
    # nearest directory still held, each level checked to be the very directory listed.
    start = max(index for index, entry in enumerate(stack) if entry[1] >= 0)
    fd = stack[start][1]
    try:
        for path, _, identity, _, _ in stack[start + 1 :]:
            below = open_below(path.name, fd)
            if fd != stack[start][1]:
                os.close(fd)
            fd = below
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) != identity:
                return -1
        return open_below(name, fd)
    except OSError as exc:
        if exc.errno in _EXHAUSTED:
            raise _Exhausted(exc.errno, exc.strerror) from None
        return -1
    finally:
        if fd != stack[start][1]:
            os.close(fd)


def _directory(
    here: Path, fd: int, ignore: GitIgnore | None, root: Path | None
) -> Generator[tuple[Path, bool], None, list[str]]:
    """Yield the files of the directory `here` (open as `fd`) the walk takes; return the
    sorted names of the subdirectories it enters."""
    try:
        entries = list(os.scandir(fd))
    except OSError as exc:
        if exc.errno in _EXHAUSTED:
            yield here, FixtureError(  # type: ignore[misc]
                f"cannot list the directory: {os.strerror(exc.errno)}; not walked", code="io"
            )
        return []  # as `os.walk`: a directory that cannot be listed is passed over
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
        child = _child_of(here)
        try:
            for name, is_link in sorted(files):
                path = child(name)
                if not rules or not ignore.ignored(path, is_dir=False):  # type: ignore[union-attr]
                    yield path, is_link
        finally:
            if root is not None:
                release_directory(text)
    return [
        name
        for name in sorted(directories)
        if not (rules and ignore.ignored(here / name, is_dir=True))  # type: ignore[union-attr]
    ]


def _child_of(directory: Path) -> Callable[[str], Path]:
    """`directory / name` for a name as `os.scandir` gives it (one component, never `.` or
    `..`): pathlib's own child constructor where it has one (Python 3.11 and 3.12), which
    skips parsing the name again; the same path either way."""
    make = getattr(directory, "_make_child_relpath", None)
    return make if make is not None else directory.joinpath


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
