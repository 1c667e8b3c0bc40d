"""Path helpers shared by the migration and import pipelines: the repo root, and the
names a file has in reports (`source_file`) and in diff headers."""

from __future__ import annotations

import functools
import os
from pathlib import Path


def find_repo_root(start: Path) -> Path:
    """The nearest directory at or above `start` holding `.git`, else `start` itself."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


@functools.lru_cache(maxsize=1024)
def _absolute_directory(cwd: str, directory: str) -> str:
    # A run asks about thousands of files in a few directories: normalize each once.
    return os.path.normpath(os.path.join(cwd, directory))


def absolute(path: Path | str) -> str:
    """`os.path.abspath(path)`, normalizing each directory once per run."""
    text = os.fspath(path)
    directory, _, name = text.rpartition("/")
    if not directory or name in ("", ".", "..") or os.sep != "/":
        return os.path.abspath(text)
    cwd = "" if text[0] == "/" else os.getcwd()
    return _absolute_directory(cwd, directory) + "/" + name


@functools.lru_cache(maxsize=64)
def _root(root: str) -> str:
    return os.path.abspath(root) + os.sep


@functools.lru_cache(maxsize=1024)
def _relative_directory(cwd: str, directory: str, root: str) -> str | None:
    """`relative_source` of the files of `directory` (relative to `cwd` unless absolute), as
    a prefix of their names (`skills/a/evals/`); None when it is not inside `root`."""
    full = _absolute_directory(cwd, directory) + "/"
    base = _root(root)
    return full[len(base) :] if full.startswith(base) else None


def relative_source(path: Path, root: Path) -> str:
    """The POSIX path of `path` relative to `root`, as the reference's `source_file` (`../` when outside)."""
    text = os.fspath(path)
    directory, _, name = text.rpartition("/")
    if directory and name not in ("", ".", "..") and os.sep == "/":
        # A run asks for thousands of files in a few directories: each directory once.
        prefix = _relative_directory("" if text[0] == "/" else os.getcwd(), directory, os.fspath(root))
        if prefix is not None:
            return prefix + name
    full = absolute(path)
    base = _root(os.fspath(root))
    if full.startswith(base):
        return full[len(base) :].replace(os.sep, "/")
    return Path(os.path.relpath(full, base)).as_posix()


def diff_name(path: Path, root: Path) -> str:
    """The name of `path` in a diff header: relative to the repo `root`, as git writes it, so
    the diff applies from there (`git apply`, `patch -p1`); as given when outside the root."""
    relative = relative_source(path, root)
    return Path(path).as_posix() if relative.startswith("../") else relative
