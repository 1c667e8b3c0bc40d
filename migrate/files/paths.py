"""Path helpers shared by the migration and import pipelines: the repo root, and the
names a file has in reports (`source_file`) and in diff headers."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path


def find_repo_root(start: Path) -> Path:
    """The nearest directory at or above `start` holding `.git`, else `start` itself."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def root_for_paths(paths: Iterable[Path | str], cwd: Path) -> Path | None:
    """The repo root a run over the named `paths` finds when none is named (`--repo-root`,
    the configuration's `repo-root`, the API's `repo_root`): the root that holds them.

    That is `find_repo_root(cwd)` when every path, made absolute and normalized lexically
    (`..` collapsed), lies inside it (or no path is named), unless that is the file-system
    root (a run from `/`, outside any repository, names paths somewhere below). Else the repository that holds
    them all: the one nearest directory holding `.git` at or above each path's folder (found
    lexically, from the nearest ancestor that exists); where none of them lies in a
    repository, the folder they share. So `../elsewhere/x.json` and `/abs/elsewhere/x.json`
    find the same root, and a named path never lies outside the root found for it.

    None when no one root holds them: paths in two repositories, or some in a repository
    and some outside any (a root above a repository would change how its own files are
    read), or a shared folder that is the file-system root. The caller then keeps
    `find_repo_root(cwd)` and refuses the paths outside it."""
    base = find_repo_root(cwd)
    named = [os.path.normpath(os.path.join(os.fspath(cwd), os.fspath(path))) for path in paths]
    top = os.fspath(base)
    at_top = os.path.dirname(top) == top  # run from `/` outside any repository (a container's)
    if not (at_top and named) and all(path == top or path.startswith(top.rstrip(os.sep) + os.sep) for path in named):
        return base
    folders = [_existing_folder(path) for path in named]
    tops = {_git_top(folder) for folder in folders}
    if len(tops) > 1:
        return None
    (found,) = tops
    if found is None:
        found = os.path.commonpath(folders)
    if os.path.dirname(found) == found:
        return None  # the file-system root holds everything: no repository's rule
    return Path(found)


def _existing_folder(path: str) -> str:
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def _git_top(folder: str) -> str | None:
    """The nearest directory at or above `folder` (lexically) holding `.git`, else None."""
    here = folder
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


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
