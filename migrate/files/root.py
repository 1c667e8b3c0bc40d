"""The root rule: a path is resolved once, then every system call acts relative to a
directory descriptor reached from the pinned repo root, never through a symlink.

**The root rule at the instant of each system call.** A path is resolved once
(`resolve_target`: symlinks are followed only when they lead inside the real
root, else `symlink_outside_repo`). Then its directory is opened by walking
from the real root (from `/` for a path outside any root), one component at a
time, each opened with `O_DIRECTORY | O_NOFOLLOW` relative to the previous one
(`open_directory`). Everything after that (`stat`, `open` with `O_NOFOLLOW`,
creating the temporary file with `O_EXCL`, `link`, `rename`, `unlink`, `fsync`)
is relative to that open directory (`dir_fd=`), never a path looked up again.
A directory on the way swapped for a symlink after the check makes the walk
fail (`ELOOP`/`ENOTDIR`): the file is refused (`symlink_outside_repo` when the
link now leads outside the root, else `changed_meanwhile`), nothing is touched.

A walk (`fixture_migrate.files.walk`) opens its directories the same way, one
`O_NOFOLLOW` open below the other from the root, and holds each open while it yields
its files (`hold_directory`): a read of such a file meanwhile opens it relative to that
descriptor (`O_NOFOLLOW`), one open instead of a walk from the root per file. What it
reads is still in the directory the walk reached without following any symlink; a
file there that is a symlink, or any failure, takes the full path above. Writes
always walk from the root again.
A worker process, which holds none of the walk's
directories, keeps the last few it opened for reads the same way (`keep_directories`).
Before each read through a held or kept directory, its real path, with no symlink on
it below the root, must still lead to it: one moved out of the root is not read from.

The repo root is pinned (`pin_root`, by device and inode, at the start of a run):
every walk from it checks that the root path still leads to that directory.

What no tool can promise without locks, and this module does not: a process that
holds a file open and writes to it after the last read that follows the rename (a
few microseconds) writes into a file that no longer has a name; a directory renamed
(not symlinked) out of the root after it was opened is written in, as it is the
directory that was checked.

`make_directories(directory, root=...)` creates missing directories under the same rule.
Every error is a `FixtureError` (`io`, `changed_meanwhile`, `symlink_outside_repo`,
`symlink_loop`, `path_outside_repo`).

(Some 570 lines, over the ~500 the project aims for: the root rule, the directories a walk
holds open and the ones a worker keeps are one mechanism, checked the same way before each use.)
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files import beneath
from fixture_migrate.files.paths import absolute as absolute_path

_UNSUPPORTED = (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _removed() -> FixtureError:
    return FixtureError(
        "refused: the file was removed while it was being migrated; nothing written", code="changed_meanwhile"
    )


def _changed() -> FixtureError:
    return FixtureError(
        "refused: the file changed while it was being migrated; left as it is now, run again",
        code="changed_meanwhile",
    )


def is_inside(path: str, root: str) -> bool:
    """True when the absolute, normalized `path` is `root` or lies under it (both as given, lexically)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=4096)
def _real_directory(directory: str) -> str:
    # One run asks about the same few directories for thousands of files; each
    # realpath costs a system call per path component. A stale answer (a directory
    # swapped after it was cached) is caught by `open_directory`, which trusts no path.
    return os.path.realpath(directory)


def _realpath(absolute: str) -> str:
    """`os.path.realpath` of an absolute path, resolving its directory once per run."""
    directory, name = os.path.split(absolute)
    joined = os.path.join(_real_directory(directory), name)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


def check_inside(path: Path | str, root: Path | str | None, *, root_given: bool = True) -> None:
    """Raise `FixtureError` (`path_outside_repo`) when `path`, made absolute and normalized
    lexically (`..` collapsed, as a shell user reads it), lies outside the repo `root`
    (as given, or its real path). The one root rule for a path named by the user (a PATH,
    a DEST): `resolve_target` then refuses one that leaves the root through a symlink
    (`symlink_outside_repo`). `root` None checks nothing.

    The command line and the API always check (`root_given` True): their root is named,
    or found to hold every named path (`files.paths.root_for_paths`), so `..`, an absolute
    path and a symlink are judged alike. `root_given` False is an internal caller's that
    built its own request around a root and names paths wherever it likes: nothing is
    checked lexically, whatever the spelling (`resolve_target` still refuses symlinks)."""
    if root is None or not root_given:
        return
    text, root_text = os.fspath(path), os.fspath(root)
    directory, _, name = text.rpartition(os.sep)
    if directory and name not in ("", os.curdir, os.pardir):
        # A file in a directory that is the root or lies under it lies under it too: a run
        # asks for thousands of files in a few directories, and each directory is judged once.
        cwd = "" if os.path.isabs(text) and os.path.isabs(root_text) else os.getcwd()
        if _directory_inside(cwd, directory, root_text):
            return
    absolute = os.path.normpath(os.path.abspath(path))
    if is_inside(absolute, os.path.normpath(os.path.abspath(root))) or is_inside(absolute, real_root(root)):
        return
    raise FixtureError(
        "refused: it lies outside the repo root (its path, with `..` collapsed, leaves it); not read or written",
        code="path_outside_repo",
    )


@functools.lru_cache(maxsize=1024)
def _directory_inside(cwd: str, directory: str, root: str) -> bool:
    """Whether `directory` (relative to `cwd` unless absolute), made absolute and normalized
    lexically, is the repo `root` (as `check_inside` takes it: as given or its real path) or
    lies under it."""
    absolute = os.path.normpath(os.path.join(cwd, directory))
    return is_inside(absolute, os.path.normpath(os.path.join(cwd, root))) or is_inside(absolute, real_root(root))


def _outside() -> FixtureError:
    return FixtureError(
        "refused: it is a symlink (or lies in a symlinked directory) leading outside the repo root; not followed",
        code="symlink_outside_repo",
    )


_ROOT_IDS: dict[str, tuple[int, int]] = {}
"""Per real root path, the (device, inode) of the directory it was when the run began."""


def pin_root(root: Path | str) -> None:
    """Remember which directory the repo root is now: every later walk (`open_directory`)
    starts from it and refuses when the root path leads to another directory (the root, or
    a directory above it, renamed away or replaced by a symlink)."""
    base = real_root(root)
    try:
        info = os.stat(base)
    except OSError:
        return
    _ROOT_IDS[base] = (info.st_dev, info.st_ino)


def real_root(root: Path | str) -> str:
    """The real path of a repo root (the root itself may be reached through a symlink)."""
    return _real_directory(os.path.abspath(root))


def resolve_target(path: Path, root: Path | None) -> Path:
    """The file a write to `path` lands in: its real path (symlinks resolved).

    When symlinks are involved (the path or a directory on it is one), the real
    path must lie inside the real `root`; otherwise `FixtureError`
    (`symlink_outside_repo`). A path that involves no symlink is returned as is,
    wherever it is: naming it was the caller's choice. `root` None follows any symlink.
    """
    text = os.fspath(path)
    absolute = absolute_path(text)
    # `..` after a symlinked directory means its real parent: only realpath knows.
    real = os.path.realpath(text) if ".." in text.split(os.sep) else _realpath(absolute)
    if os.path.islink(real):
        # realpath stops where links lead back to themselves: the path is a link loop.
        raise FixtureError(
            "refused: it is a symlink loop (the link leads back to itself); nothing read or written",
            code="symlink_loop",
        )
    if real == absolute or root is None:
        return Path(real)
    if is_inside(real, real_root(root)):
        return Path(real)
    raise _outside()


class Directory:
    """A directory opened by `open_directory`: `fd` (for `dir_fd=`), its real `path` and the
    `root` it was reached from (nothing is looked up by them but `verify`'s walk). A
    context manager that closes it."""

    __slots__ = ("fd", "path", "root")

    def __init__(self, fd: int, path: str, root: Path | str | None = None) -> None:
        self.fd = fd
        self.path = path
        self.root = root

    def verify(self) -> None:
        """Raise `FixtureError` unless walking to `path` from the root again still reaches
        this very directory: it was not moved, nor replaced (by a symlink, say), since it
        was opened. Called right before a rename or removal, so the root rule holds then."""
        with open_directory(self.path, self.root) as again:
            if not _same_file(os.fstat(again.fd), os.fstat(self.fd)):
                raise FixtureError(
                    "refused: a directory on its path was moved or replaced while it was being migrated; "
                    "nothing written",
                    code="changed_meanwhile",
                )

    def __enter__(self) -> Directory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def sync(self) -> None:
        """fsync the directory so a rename or removal in it is durable; a file system that
        cannot sync directories is accepted, any other failure raises `OSError`."""
        try:
            os.fsync(self.fd)
        except OSError as exc:
            if exc.errno not in _UNSUPPORTED:
                raise


def open_directory(directory: str | Path, root: Path | str | None) -> Directory:
    """Open the real directory `directory` (no symlink in it, as `resolve_target` gives it)
    by walking to it from the real `root` (from `/` when it is not under the root, or no
    root is given), one component at a time, each with `O_NOFOLLOW`.

    Raises `FixtureError`: `symlink_outside_repo` when a component is now a symlink
    leading outside the root, `changed_meanwhile` when it is now a symlink leading
    elsewhere inside, or gone; `io` when it cannot be opened.
    """
    directory = os.fspath(directory)
    base = real_root(root) if root is not None else None
    if base is None or not is_inside(directory, base):
        base = os.sep
    rest = os.path.relpath(directory, base)
    parts = [] if rest == os.curdir else rest.split(os.sep)
    rooted = root is not None and base != os.sep
    try:
        fd = os.open(base, os.O_RDONLY | _DIRECTORY | _CLOEXEC | (_NOFOLLOW if rooted else 0))
    except OSError as exc:
        if rooted:
            raise _walk_failure(exc, directory, root) from None
        raise FixtureError(f"cannot open its directory: {_reason(exc)}", code="io") from None
    if rooted:
        # The root itself must still be the directory the run started from (not one swapped in
        # for it, or for a directory above it, by a rename or a symlink).
        info = os.fstat(fd)
        if _ROOT_IDS.setdefault(base, (info.st_dev, info.st_ino)) != (info.st_dev, info.st_ino):
            os.close(fd)
            raise FixtureError(
                "refused: the repo root was moved or replaced while it was being migrated; nothing written",
                code="changed_meanwhile",
            )
    for part in parts:
        try:
            below = _open_below(part, fd)
        except OSError as exc:
            os.close(fd)
            raise _walk_failure(exc, directory, root) from None
        os.close(fd)
        fd = below
    return Directory(fd, directory, root)


def _open_below(name: str, directory_fd: int) -> int:
    """The directory `name` in the open directory `directory_fd`, never through a symlink.
    One the process may search but not list is opened as a path (`O_PATH`, where there is
    one): it can still be walked, written in and renamed in, only not fsynced."""
    flags = _DIRECTORY | _NOFOLLOW | _CLOEXEC
    try:
        return os.open(name, os.O_RDONLY | flags, dir_fd=directory_fd)
    except PermissionError:
        if not hasattr(os, "O_PATH"):
            raise
        return os.open(name, os.O_PATH | flags, dir_fd=directory_fd)


def _walk_failure(exc: OSError, directory: str, root: Path | str | None) -> FixtureError:
    """The error for a walk stopped by `exc`: a directory on the way is no longer one."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
        real = os.path.realpath(directory)  # uncached: what the path leads to now
        if root is not None and not is_inside(real, os.path.realpath(os.path.abspath(root))):
            return FixtureError(
                "refused: a directory on its path was replaced by a symlink leading outside the repo root "
                "while it was being migrated; nothing written",
                code="symlink_outside_repo",
            )
        return FixtureError(
            "refused: a directory on its path was moved or replaced while it was being migrated; nothing written",
            code="changed_meanwhile",
        )
    return FixtureError(f"cannot open its directory: {_reason(exc)}", code="io")


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | _CLOEXEC


def _open_file(directory: Directory, name: str) -> int:
    """A read-only descriptor of the regular file `name` in `directory`, never through a
    symlink and never waiting on a pipe. Raises `OSError` (`ELOOP` for a symlink)."""
    return os.open(name, _READ_FLAGS, dir_fd=directory.fd)


_HELD: dict[str, tuple[int, Path | str, str, str, int, int, tuple[str, ...] | None, str, int]] = {}
"""Per directory a walk is in, named as the walk names it (`repo/skills/a/evals`): the
descriptor the walk holds on it, the root it was opened under, that root's real path, the
directory's real path and (device, inode), the directories between the root and it
(`_between`; None when its real path is not under the root's), its real path below the
root's as a prefix of its files' (`skills/a/evals/`, "" for the root itself), and a
descriptor of the pinned root for reads below it in one call (`_open_root`; -1: none)."""

_BENEATH = True
"""Whether reads below held directories may open in one call (`beneath`); False takes the
checks one by one (tests compare the two)."""


def hold_directory(path: str, fd: int, root: Path | str) -> None:
    """Note that `fd` is the directory `path` (as the walk names it: the files it yields are
    `path/name`), opened under the root rule: by `open_directory` from the real `root`, or
    below such a directory with `open_below`. Until `release_directory`, a read under the
    same root of a file named `path/name` opens `name` relative to `fd` (`O_NOFOLLOW`)
    instead of walking from the root again: one open per file, and still no symlink
    followed at the instant of any system call. The caller keeps `fd` open meanwhile."""
    try:
        info = os.fstat(fd)
    except OSError:
        return
    real, held_real = real_root(root), os.path.realpath(path)
    inside = is_inside(held_real, real)
    release_directory(path)  # a note left for the same name: its root descriptor closed
    _HELD["" if path == os.curdir else path] = (
        fd,
        root,
        real,
        held_real,
        info.st_dev,
        info.st_ino,
        _between(real, held_real) if inside else None,
        (held_real[len(real.rstrip(os.sep)) :].lstrip(os.sep) + os.sep).lstrip(os.sep) if inside else "",
        _open_root(real) if inside and _BENEATH and beneath.available() else -1,
    )


def release_directory(path: str) -> None:
    """Forget what `hold_directory` noted for `path` (before its descriptor is closed)."""
    held = _HELD.pop("" if path == os.curdir else path, None)
    if held is not None and held[-1] >= 0:
        os.close(held[-1])


def _open_root(real: str) -> int:
    """A descriptor of the real root `real` for the reads below one held directory, opened
    while it is the directory pinned for it (`_ROOT_IDS`), or -1. It lives as long as the
    held directory's note (`release_directory` closes it), never longer than the walk."""
    ids = _ROOT_IDS.get(real)
    if ids is None:
        return -1
    try:
        fd = os.open(real, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return -1
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != ids:
        os.close(fd)
        return -1
    return fd


def _forget_held() -> None:
    # A forked worker did not open these: it never reads through them. The root descriptors
    # were opened for the parent's walk: the child's copies are closed.
    for held in _HELD.values():
        if held[-1] >= 0:
            os.close(held[-1])
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_held)


def open_below(name: str, directory_fd: int) -> int:
    """The subdirectory `name` of the open directory `directory_fd`, never through a symlink
    (see `open_directory`). Raises `OSError` (`ELOOP`/`ENOTDIR` for a symlink)."""
    return _open_below(name, directory_fd)


def lstat_held(path: Path) -> os.stat_result:
    """`os.lstat(path)`; for a file of a directory a walk holds (`hold_directory`), the same
    relative to the descriptor held, one name resolved instead of the whole path (the
    directory the walk listed, even if its path leads elsewhere since). Raises `OSError`."""
    text = os.fspath(path)
    directory, _, name = text.rpartition(os.sep)
    held = _HELD.get(directory)
    if held is None or name in ("", os.curdir, os.pardir):
        return os.lstat(text)
    return os.stat(name, dir_fd=held[0], follow_symlinks=False)


def _open_held(path: Path, root: Path) -> int | None:
    """A read-only descriptor of `path` opened relative to the directory a walk holds for it
    (`hold_directory`), or None when none is held (or the open fails: the full walk from
    the root then decides, and says why)."""
    directory, _, name = os.fspath(path).rpartition(os.sep)
    held = _HELD.get(directory)
    if held is None or name in ("", os.curdir, os.pardir):
        return None
    fd, held_root, real, held_real, device, inode, between, below, root_fd = held
    if root is not held_root and real_root(root) != real:
        return None
    try:
        # As every walk from the root checks (`open_directory`): a root moved or replaced
        # since the run began refuses every later read, this one included. And, as a
        # worker's kept directories are checked (`_open_kept`): the directory's real path,
        # with no symlink on it below the root, still leads to the very directory held, so
        # one moved out of the root since it was listed is not read from.
        info = os.stat(real)
        ids = _ROOT_IDS.get(real)
        if ids != (info.st_dev, info.st_ino) or between is None:
            return None
        # Where the kernel can: the same in one call, the file opened from the pinned root
        # along the directory's real path, no symlink followed (what the full walk from the
        # root does, component by component). It reaches the directory now at that path,
        # which the checks below would send to the full walk, to open the same file.
        if root_fd >= 0 and _BENEATH:
            fd = beneath.open_beneath(root_fd, below + name, _READ_FLAGS)
            if fd is not None:
                _LAST_BENEATH[0] = below + name
            return fd
        for directory in between:
            if stat.S_ISLNK(os.stat(directory, follow_symlinks=False).st_mode):
                return None
        info = os.stat(held_real, follow_symlinks=False)
        if (info.st_dev, info.st_ino) != (device, inode):
            return None
        return os.open(name, _READ_FLAGS, dir_fd=fd)
    except OSError:
        return None


KEPT_DIRECTORIES = 4
"""How many directories, at most, a process that keeps them (`keep_directories`) holds open
between reads: the ones it read from last."""


_KEPT: dict[tuple[str, str], tuple[int, int, int]] = {}
"""Per (real directory, real root), oldest first: the descriptor `open_directory` opened on it
under that root, and the (device, inode) it had then."""


_KEEPING = False


def keep_directories(keep: bool = True) -> None:
    """Whether reads under a root (`read_fixture`, `read_head`) in this process keep the
    directories they open (the last `KEPT_DIRECTORIES` of them), so that the next read of a
    file in the same directory opens only the file. For a worker process that reads files
    a walk elsewhere found (`parallel.ordered_map`), directory after directory; writes never
    use them. Turned off, every kept directory is closed; a forked child keeps none.

    A kept directory was opened by `open_directory`: one `O_NOFOLLOW` open below the other
    from the pinned root, as the walk's held directories (`hold_directory`) are. A read
    through one checks, as a read through a held directory does, that the root is still the
    directory pinned; and, beyond that, that the directory's real path still leads to the
    very directory kept (an `lstat` against the `fstat` taken when it was opened), so a
    directory renamed away (outside the root, say) or replaced is not read from again. The
    file is then opened relative to it with `O_NOFOLLOW`: a symlinked file, or any failure,
    takes the full walk from the root, which decides and says why. A swap after the check
    leaves the read in the directory the walk reached without following any symlink."""
    global _KEEPING
    _KEEPING = keep
    if not keep:
        forget_kept_directories()


def forget_kept_directories() -> None:
    """Close every directory kept by `keep_directories`."""
    while _KEPT:
        _, (fd, _, _) = _KEPT.popitem()
        try:
            os.close(fd)
        except OSError:
            pass


def _forget_kept_in_child() -> None:
    # A forked child closes its copies of the parent's descriptors and starts with none.
    global _KEEPING
    forget_kept_directories()
    _KEEPING = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_kept_in_child)


def _open_kept(target: Path, root: Path) -> int | None:
    """A read-only descriptor of the file `target` (a path as named, or a real path as
    `resolve_target` gives it: either way only a directory kept under exactly that name is
    used) opened relative to its kept directory, or None (none kept, or it no longer passes
    the checks of `keep_directories`, or the open fails: the full walk then decides)."""
    directory, _, name = os.fspath(target).rpartition(os.sep)
    real = real_root(root)
    key = (directory, real)
    kept = _KEPT.get(key)
    if kept is None or name in ("", os.curdir, os.pardir):
        return None
    fd, device, inode = kept
    try:
        info = os.stat(real)
        if _ROOT_IDS.get(real) == (info.st_dev, info.st_ino) and _no_symlink_below(real, directory):
            info = os.stat(directory, follow_symlinks=False)
            if (info.st_dev, info.st_ino) == (device, inode):
                return os.open(name, _READ_FLAGS, dir_fd=fd)
    except OSError:
        pass
    del _KEPT[key]
    os.close(fd)
    return None


def _no_symlink_below(real: str, directory: str) -> bool:
    """True when no directory on the way from the real root `real` down to `directory` (a
    path under it) is now a symlink. The last one's `lstat` alone follows a symlinked parent:
    a kept directory whose parent was moved outside the root, a symlink to it left in its
    place, would still match the directory kept."""
    return not any(stat.S_ISLNK(os.stat(below, follow_symlinks=False).st_mode) for below in _between(real, directory))


def _between(real: str, directory: str) -> tuple[str, ...]:
    """The directories on the way from the real root `real` down to `directory` (a path under
    it), neither included: those `_no_symlink_below` checks."""
    prefix = real.rstrip(os.sep)
    found = []
    for part in directory[len(prefix) :].split(os.sep)[1:-1]:
        prefix = prefix + os.sep + part
        found.append(prefix)
    return tuple(found)


def _keep(directory: Directory) -> None:
    """Keep `directory` (just opened by `open_directory` under its root) for the next reads;
    it is no longer the caller's to close. The oldest kept directory beyond
    `KEPT_DIRECTORIES` is closed."""
    if directory.root is None or directory.fd < 0:
        return
    real = real_root(directory.root)
    if real == os.sep or not is_inside(directory.path, real):
        return  # opened from `/`, not under the root rule
    try:
        info = os.fstat(directory.fd)
    except OSError:
        return
    key = (directory.path, real)
    old = _KEPT.pop(key, None)
    if old is not None:
        os.close(old[0])
    _KEPT[key] = (directory.fd, info.st_dev, info.st_ino)
    directory.fd = -1
    while len(_KEPT) > KEPT_DIRECTORIES:
        oldest = next(iter(_KEPT))
        os.close(_KEPT.pop(oldest)[0])


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def make_directories(directory: Path, root: Path | None = None) -> None:
    """Create the directory `directory` and its missing parents, under the root rule: each
    is made relative to its parent opened as `open_directory` opens it, and opened again
    with `O_NOFOLLOW` before anything is made inside it. Raises `FixtureError`
    (`symlink_outside_repo`, `changed_meanwhile`, `io`)."""
    real = str(resolve_target(directory, root))
    missing: list[str] = []
    existing = real
    while not os.path.isdir(existing):
        existing, part = os.path.split(existing)
        if not part:
            break
        missing.append(part)
    with open_directory(existing, root) as opened:
        fd = os.dup(opened.fd)
    try:
        for part in reversed(missing):
            try:
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass
            below = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = below
    except OSError as exc:
        raise (
            _walk_failure(exc, real, root)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR)
            else FixtureError(f"cannot create its directory: {_reason(exc)}", code="io")
        ) from None
    finally:
        os.close(fd)


_LAST_BENEATH: list[str | None] = [None]


def last_beneath() -> str | None:
    """The POSIX path below the real root of the file the last read of this process
    (`read_fixture`, `read_head`) opened in one call from the root, beneath it, following
    no symlink (the file itself included), along that very path; None when that read opened
    its file otherwise (or failed). Such a read is the one `consumers.pins` makes of a tracked
    file at that path, so its bytes may stand for that read (`PinIndex.feed`)."""
    return _LAST_BENEATH[0]


def _open_for_reading(path: Path, root: Path | None) -> int:
    """A read-only descriptor of `path` that never waits on a pipe; with `root`, under the
    root rule (see `read_fixture`). Raises `FixtureError`."""
    _LAST_BENEATH[0] = None
    if root is None:
        try:
            return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
        except OSError as exc:
            raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    if _HELD:
        fd = _open_held(path, root)
        if fd is not None:
            return fd
    if _KEPT:
        # A kept directory is named by its real path, as the paths a walk yields usually
        # are: the path as named is tried first, so that a file read through a kept
        # directory costs no resolving (the checks of `_open_kept` are the same either way:
        # its directory still leads to the very directory kept, the file is no symlink).
        fd = _open_kept(path, root)
        if fd is not None:
            return fd
    target = resolve_target(path, root)
    if _KEPT and target != path:
        fd = _open_kept(target, root)
        if fd is not None:
            return fd
    with open_directory(target.parent, root) as directory:
        try:
            fd = _open_file(directory, target.name)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                resolve_target(path, root)  # a symlink leading outside now: symlink_outside_repo
                raise _changed() from None
            raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
        if _KEEPING:
            _keep(directory)
        return fd
