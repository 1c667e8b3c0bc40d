"""Safe file I/O: bounded reads, and writes that never leave a file half written,
never lose a concurrent writer's bytes they could see, and never act outside the root.

(Some 550 lines, over the ~500 the project aims for: every step of a safe write and the
fault it guards against belong together, as README "Safety" describes them.)

A bulk migration rewrites many files in a repository that may hold work in
progress. Whatever happens (a crash, a kill, a full disk, a file edited or a
directory swapped meanwhile), every file must end up either exactly as it was,
exactly migrated, or as the other writer left it. This module owns how that is
done; README "Safety" states it for users.

The API other modules use (the engine, `import`, the cache):

- `read_fixture(path, limit=..., root=...)`: the bytes of a regular file.
- `write_atomic(path, data, original=..., root=...)`: replace a file's content
  (or, with `original=None`, create it).
- `write_new(path, data, like=..., root=...)`: create a file, never over one.
- `write_file(path, data, root=...)`: replace a file the tool owns (a cache), whatever
  it holds.
- `move_file(source, original, target, data, root=...)`: replace `source` by a new
  file `target` (a JSONL file by its `.json`).
- `remove_file(path, original, root=...)`: remove a file that still holds `original`.
- `make_directories(directory, root=...)`: create missing directories.
- `resolve_target(path, root)` / `open_directory(directory, root)`: the root rule.

Every error is a `FixtureError` with a code (`io`, `changed_meanwhile`, `read_only`,
`symlink_outside_repo`, `symlink_loop`, `hard_link_outside_repo`, `hard_link_rename`, `exists`,
`too_large`, `not_regular`).

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

A walk (`fixture_migrate.migration.walk`) opens its directories the same way, one
`O_NOFOLLOW` open below the other from the root, and holds each open while it yields
its files (`hold_directory`): a read of such a file meanwhile opens it relative to that
descriptor (`O_NOFOLLOW`), one open instead of a walk from the root per file. What it
reads is still in the directory the walk reached without following any symlink; a
file there that is a symlink, or any failure, takes the full path above. Writes
always walk from the root again. A worker process, which holds none of the walk's
directories, keeps the last few it opened for reads the same way (`keep_directories`).
Before each read through a held or kept directory, its real path, with no symlink on
it below the root, must still lead to it: one moved out of the root is not read from.

Reads (`read_fixture`): only a regular file is read (a named pipe or a device
named `*.json` is refused, never waited on), and at most `limit` bytes: a larger
file is refused before any of it is read, so memory stays bounded.

Writes (`write_atomic`):

1. The target is opened (`O_NOFOLLOW`) and read: if its bytes are no longer the
   ones the migration was planned from, nothing is written (`changed_meanwhile`).
   A file removed meanwhile is not recreated. A file that holds the migrated
   bytes already (the same run wrote them through a hard link or a symlink
   planned beside it) is left as it is.
2. The new bytes go to a temporary file in the target's directory, named
   `.<name>.<random>.fixture-migrate.tmp` (`TEMP_SUFFIX`; walks skip such files),
   created with `O_EXCL`, written in full, fsynced, given the target's permission
   bits (and, where the process may, its owner, group and extended attributes).
3. Just before the swap the name is opened and read again (the last check).
4. The temporary file and the target are exchanged atomically (Linux
   `renameat2(RENAME_EXCHANGE)`, `_swap`): the old file now has the temporary name,
   and must be the very file read (same device and inode); one renamed over the
   name after the last check (an editor's save) is exchanged back at once and the
   file reported `changed_meanwhile`. Where there is no exchange, `os.replace`
   renames the temporary file over the target, unchecked (the documented weaker
   guarantee). Either way a reader, or a crash, sees the whole old file or the
   whole new one.
5. After the swap, the old file (still open from step 3) is read once more: if
   another writer's bytes reached it between the last check and the swap, the
   old content, with their bytes, is put back over the new file (while the new file
   is still this write's; a name removed meanwhile gets it back, never over a
   file) and the file is reported `changed_meanwhile`. Then the old file goes.
6. The directory is fsynced so the rename survives a power cut. On any error the
   temporary file is removed and the target is untouched; only a SIGKILL (or a
   power cut) can leave a temporary file behind: it is never a fixture, walks skip
   it, and it is safe to delete.

`move_file` creates the target as `write_new` does (a target holding exactly the
migration already, from another or an interrupted run, is exchanged for a copy this
move makes, so the move knows its own file by inode), then checks the source again
immediately before removing it: the source is renamed aside inside its directory,
must be the very file read holding the bytes read, and only then is removed; its
still-open descriptor is read once more right after. A source that changed (an
appended line, a save by rename) is kept, or put back with the other writer's
bytes, and the new file is removed again, by inode only (`_remove_own`), and the
move is reported `changed_meanwhile`. The source is removed only while the target
is still the file this move made; a source gone meanwhile leaves a target taken
over from another run in place (it may be the only copy). A source with several
hard links is refused (`hard_link_rename`). SIGINT and SIGTERM are held during
every write and move (`_Deferred`), so each is finished or undone before the
process stops.

The repo root is pinned (`pin_root`, by device and inode, at the start of a run):
every walk from it checks that the root path still leads to that directory.

What no tool can promise without locks, and this module does not: a process that
holds a file open and writes to it after the last read that follows the rename (a
few microseconds) writes into a file that no longer has a name; a directory renamed
(not symlinked) out of the root after it was opened is written in, as it is the
directory that was checked.

Read-only: a file without write permission, or in a directory without it, is
refused (`read_only`) rather than replaced behind its mode's back; this holds
for the superuser too, who could otherwise replace it.

Hard links: renaming over one name of a file with several hard links would
leave the other names holding the old content. POSIX has no way to replace an
inode's content atomically, and overwriting it in place has a window (and,
after a crash, a result) where it is half written. So every name of the inode
is re-pointed instead: the new content is written once to a temporary file,
hard-linked under a temporary name beside every other name, and each name is
then renamed over, one atomic `os.replace` each. At every instant each name
holds the whole old or the whole new file, never part of one; afterwards all
names are hard links of one new inode again, holding the migrated bytes. The
names are found by scanning the repo root (`HardLinks`); when some name lies
outside it (the link count is higher than the names found), the file is refused
(`hard_link_outside_repo`) rather than splitting the group. A crash between two
renames leaves some names old and some new, each whole; running again migrates
the old ones. A hard-linked group gets the checks before the renames, not the
one after (step 5).

Tests pause a write at a named step with `set_step_hook` (see `STEPS`), to make a
concurrent edit, a swap or a kill happen exactly there.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.paths import absolute as absolute_path

T = TypeVar("T")

TEMP_SUFFIX = ".fixture-migrate.tmp"
"""Suffix of the temporary files writes go through (`.<name>.<random>.fixture-migrate.tmp`)."""

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest file read by default, in bytes (16 MiB, over 200 times the largest real
fixture); each fixture syntax has its own, lower, limit (`limit_for`)."""

STEPS = ("opened", "temp_written", "before_swap", "after_swap", "before_unlink", "after_unlink")
"""The steps `set_step_hook` reports: the target was opened and checked; the temporary
file is written; just before the last check and the swap (exchange or rename); right
after the swap; (moves) just before the last check and the removal of the source; right
after it."""

_NAME_BYTES = 80  # of the file name kept in a temporary name, so it stays under NAME_MAX (255)
_UNSUPPORTED = (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_STEP_HOOK: Callable[[str, str], None] | None = None


def set_step_hook(hook: Callable[[str, str], None] | None) -> Callable[[str, str], None] | None:
    """Call `hook(step, path)` at each step of `STEPS` of every write and move (None: no hook);
    returns the hook it replaces. For tests: a hook may edit, swap or remove files, or end
    the process, exactly at the dangerous step."""
    global _STEP_HOOK
    previous, _STEP_HOOK = _STEP_HOOK, hook
    return previous


class _Deferred:
    """While a write is between two of its steps, SIGINT and SIGTERM are held (in the main
    thread, where Python runs handlers) and delivered right after it, so a move or a swap is
    finished or undone whole before the process stops. Nested uses hold them once."""

    depth = 0
    held: list[int] = []
    previous: dict[int, object] = {}

    def __enter__(self) -> None:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        cls = _Deferred
        cls.depth += 1
        if cls.depth == 1:
            cls.held = []
            for signum in (signal.SIGINT, signal.SIGTERM):
                try:
                    cls.previous[signum] = signal.signal(signum, lambda number, frame: cls.held.append(number))
                except (ValueError, OSError):
                    pass

    def __exit__(self, *exc: object) -> None:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        cls = _Deferred
        cls.depth -= 1
        if cls.depth:
            return
        for signum, handler in cls.previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        cls.previous = {}
        held, cls.held = cls.held, []
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)


def _uninterrupted(function: Callable[..., T]) -> Callable[..., T]:
    """Run `function` with SIGINT and SIGTERM held until it returns (`_Deferred`)."""

    @functools.wraps(function)
    def held(*args: object, **kwargs: object) -> T:
        with _Deferred():
            return function(*args, **kwargs)

    return held


def _step(name: str, path: str) -> None:
    if _STEP_HOOK is not None:
        _STEP_HOOK(name, path)


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


class SizeLimit:
    """The size limit of a read: `bytes`, and `how` to raise it (for the message)."""

    __slots__ = ("bytes", "how")

    def __init__(self, bytes: int, how: str | None = None) -> None:  # noqa: A002
        self.bytes = bytes
        self.how = how

    def refusal(self, size: int, grew: bool = False) -> FixtureError:
        limit = self.bytes
        shown = f"{limit / (1024 * 1024):g} MiB" if limit >= 1024 * 1024 else f"{limit / 1024:g} KiB"
        message = f"file is {size:,} bytes, over the {limit:,}-byte limit ({shown}): not read"
        if grew:
            message += " (it grew while it was read)"
        if self.how:
            message += f"; {self.how}"
        return FixtureError(message, code="too_large")


def limit_for(path: Path | str) -> SizeLimit:
    """The size limit of a fixture file, by its syntax (`fixture_migrate.formats.SIZE_LIMITS`;
    `MAX_FILE_BYTES` for JSON, JSON Lines and a file of no fixture syntax), with the
    message that names it and how to raise it."""
    formats = _formats()
    # The suffix as `Path.suffix` gives it, without a Path per file (asked for every read).
    name = os.fspath(path).rstrip(os.sep).rpartition(os.sep)[2]
    dot = name.rfind(".")
    syntax = formats.SYNTAX_BY_SUFFIX.get(name[dot:].lower() if 0 < dot < len(name) - 1 else "")
    if syntax is None:
        return SizeLimit(MAX_FILE_BYTES)
    setting = os.environ.get(_size_variable(syntax))
    return _limit(syntax, setting, MAX_FILE_BYTES, formats.SIZE_LIMITS.get(syntax))


@functools.lru_cache(maxsize=1)
def _formats() -> Any:
    # Imported on first use (not at import: `formats` imports this module's users), once.
    import fixture_migrate.formats

    return fixture_migrate.formats


@functools.lru_cache(maxsize=16)
def _size_variable(syntax: str) -> str:
    return _formats().size_variable(syntax)


@functools.lru_cache(maxsize=32)
def _limit(syntax: str, setting: str | None, default: int, built_in: int | None) -> SizeLimit:
    """`limit_for` a syntax, once per value of its environment variable (`setting`), of the
    default limit and of its built-in limit (`built_in`: the key only, `max_bytes` reads it)."""
    from fixture_migrate.formats import MEMORY_PER_MIB, SYNTAX_NAMES, max_bytes, size_variable

    how = (
        f"the limit of {SYNTAX_NAMES[syntax]} fixtures, which take about {MEMORY_PER_MIB[syntax]:,} MiB of "
        f"memory per MiB to migrate; split the file, or raise the limit with {size_variable(syntax)}=BYTES"
    )
    return SizeLimit(max_bytes(syntax, default), how)


# --- the root rule ---------------------------------------------------------------------


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

    With `root_given` False (the root was not named by `--repo-root`, the configuration
    or the API's `repo_root`, but found from the current directory), an absolute path
    is the caller's explicit choice and is not checked: only a relative one that climbs
    out by `..` is refused."""
    if root is None or (not root_given and os.path.isabs(path)):
        return
    absolute = os.path.normpath(os.path.abspath(path))
    if is_inside(absolute, os.path.normpath(os.path.abspath(root))) or is_inside(absolute, real_root(root)):
        return
    raise FixtureError(
        "refused: it lies outside the repo root (its path, with `..` collapsed, leaves it); not read or written",
        code="path_outside_repo",
    )


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


# --- directories a walk holds open -----------------------------------------------------

_HELD: dict[str, tuple[int, Path | str, str, str, int, int]] = {}
"""Per directory a walk is in, named as the walk names it (`repo/skills/a/evals`): the
descriptor the walk holds on it, the root it was opened under, and that root's real path."""


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
    _HELD["" if path == os.curdir else path] = (
        fd,
        root,
        real_root(root),
        os.path.realpath(path),
        info.st_dev,
        info.st_ino,
    )


def release_directory(path: str) -> None:
    """Forget what `hold_directory` noted for `path` (before its descriptor is closed)."""
    _HELD.pop("" if path == os.curdir else path, None)


def _forget_held() -> None:
    # A forked worker did not open these: it never reads through them.
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_held)


def open_below(name: str, directory_fd: int) -> int:
    """The subdirectory `name` of the open directory `directory_fd`, never through a symlink
    (see `open_directory`). Raises `OSError` (`ELOOP`/`ENOTDIR` for a symlink)."""
    return _open_below(name, directory_fd)


def _open_held(path: Path, root: Path) -> int | None:
    """A read-only descriptor of `path` opened relative to the directory a walk holds for it
    (`hold_directory`), or None when none is held (or the open fails: the full walk from
    the root then decides, and says why)."""
    directory, _, name = os.fspath(path).rpartition(os.sep)
    held = _HELD.get(directory)
    if held is None or name in ("", os.curdir, os.pardir):
        return None
    fd, held_root, real, held_real, device, inode = held
    if root is not held_root and real_root(root) != real:
        return None
    try:
        # As every walk from the root checks (`open_directory`): a root moved or replaced
        # since the run began refuses every later read, this one included. And, as a
        # worker's kept directories are checked (`_open_kept`): the directory's real path,
        # with no symlink on it below the root, still leads to the very directory held, so
        # one moved out of the root since it was listed is not read from.
        info = os.stat(real)
        if _ROOT_IDS.get(real) != (info.st_dev, info.st_ino):
            return None
        if not is_inside(held_real, real) or not _no_symlink_below(real, held_real):
            return None
        info = os.stat(held_real, follow_symlinks=False)
        if (info.st_dev, info.st_ino) != (device, inode):
            return None
        return os.open(name, _READ_FLAGS, dir_fd=fd)
    except OSError:
        return None


# --- directories a worker keeps open between reads ---------------------------------------

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
    prefix = real.rstrip(os.sep)
    for part in directory[len(prefix) :].split(os.sep)[1:-1]:
        prefix = prefix + os.sep + part
        if stat.S_ISLNK(os.stat(prefix, follow_symlinks=False).st_mode):
            return False
    return True


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


# --- reads -----------------------------------------------------------------------------


def _read_all(fd: int, limit: SizeLimit) -> bytes:
    """All bytes of the regular file `fd`, just opened, at most `limit.bytes`."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise FixtureError("not a regular file (a directory, pipe, socket or device): not read", code="not_regular")
    if info.st_size > limit.bytes:
        raise limit.refusal(info.st_size)
    chunks: list[bytes] = []
    remaining = limit.bytes + 1
    while remaining > 0:
        wanted = min(remaining, 1 << 20)
        chunk = os.read(fd, wanted)
        if not chunk:
            break
        if not chunks and len(chunk) == info.st_size < wanted:
            # Fewer bytes than asked from a regular file, as many as its size: its end was
            # reached (no second read to find it out).
            return chunk
        chunks.append(chunk)
        remaining -= len(chunk)
    if remaining <= 0:
        raise limit.refusal(limit.bytes + 1 - remaining, grew=True)
    return b"".join(chunks)


def _reread(fd: int, size_hint: int) -> bytes:
    """The bytes of the open file `fd` from its start (for comparisons: at most
    `size_hint + 1` bytes are needed to tell a change)."""
    chunks: list[bytes] = []
    offset = 0
    wanted = size_hint + 1
    while offset < wanted:
        chunk = os.pread(fd, min(wanted - offset, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def read_fixture(path: Path, *, limit: int | SizeLimit | None = None, root: Path | None = None) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (default `MAX_FILE_BYTES`).

    With `root`, the root rule holds (`resolve_target`, then the file is opened relative to
    its directory opened by `open_directory`, never through a symlink swapped in meanwhile).

    Raises `FixtureError`: `io` when it cannot be opened or read (gone, no
    permission), `not_regular` for a directory, pipe, socket or device (opened
    without blocking, never read), `too_large` when it holds more than `limit`
    bytes (decided from its size before reading; a file that grows while it is
    read is cut off at `limit + 1` bytes and refused the same way), and with `root`
    `symlink_outside_repo` / `changed_meanwhile` as `open_directory` raises them.
    """
    if not isinstance(limit, SizeLimit):
        limit = SizeLimit(MAX_FILE_BYTES if limit is None else limit)
    fd = _open_for_reading(path, root)
    try:
        return _read_all(fd, limit)
    except OSError as exc:
        raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    finally:
        os.close(fd)


def read_head(path: Path, size: int, *, root: Path | None = None) -> bytes:
    """The first `size` bytes (at most) of the regular file `path`, whatever its length;
    opened as `read_fixture` opens it. Raises `FixtureError` as `read_fixture` does, but
    never `too_large`."""
    fd = _open_for_reading(path, root)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FixtureError("not a regular file (a directory, pipe, socket or device): not read", code="not_regular")
        return os.read(fd, size)
    except OSError as exc:
        raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    finally:
        os.close(fd)


def _open_for_reading(path: Path, root: Path | None) -> int:
    """A read-only descriptor of `path` that never waits on a pipe; with `root`, under the
    root rule (see `read_fixture`). Raises `FixtureError`."""
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


# --- hard links ------------------------------------------------------------------------


class HardLinks:
    """Finds every name of a hard-linked file under a repo root.

    The root is scanned once, on the first question, without following symlinks
    or crossing into other file systems (where no hard link can be); each answer
    is checked against the current inode, and the scan is redone once when names
    seem to be missing (a link made after the scan).
    """

    def __init__(self, root: Path) -> None:
        self.root = os.path.realpath(root)
        self._index: dict[tuple[int, int], list[str]] | None = None

    def names(self, target: Path, info: os.stat_result) -> list[str]:
        """All names of `target`'s inode (`info` its stat), `target` first.

        Raises `FixtureError` (`hard_link_outside_repo`) when fewer than its
        `st_nlink` names lie under the root.
        """
        found = self._lookup(info)
        if len(found) < info.st_nlink:
            self._index = None
            found = self._lookup(info)
        if len(found) < info.st_nlink:
            raise FixtureError(
                f"refused: it has {info.st_nlink} hard links and only {len(found)} lie under the repo root; "
                "rewriting it would leave the others behind",
                code="hard_link_outside_repo",
            )
        own = str(target)
        return [own] + [name for name in found if name != own]

    def _lookup(self, info: os.stat_result) -> list[str]:
        if self._index is None:
            self._index = self._scan()
        names = []
        for name in self._index.get((info.st_dev, info.st_ino), []):
            try:
                now = os.lstat(name)
            except OSError:
                continue
            if _same_file(now, info):
                names.append(name)
        return names

    def _scan(self) -> dict[tuple[int, int], list[str]]:
        index: dict[tuple[int, int], list[str]] = {}
        try:
            device = os.stat(self.root).st_dev
        except OSError:
            return index
        for entry in _entries(self.root, device):
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                index.setdefault((info.st_dev, info.st_ino), []).append(entry.path)
        return index


def _entries(root: str, device: int) -> Iterator[os.DirEntry[str]]:
    """Every entry under `root` that is not a directory, on `device`, symlinks not followed."""
    stack = [root]
    while stack:
        try:
            with os.scandir(stack.pop()) as listing:
                for entry in listing:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.stat(follow_symlinks=False).st_dev == device:
                                stack.append(entry.path)
                        else:
                            yield entry
                    except OSError:
                        continue
        except OSError:
            continue


# --- temporary files -------------------------------------------------------------------


def _stem(name: str) -> str:
    """`name` cut to `_NAME_BYTES` bytes, for the middle of a temporary name."""
    while len(os.fsencode(name)) > _NAME_BYTES:
        name = name[:-1]
    return name


def _temp_name(name: str) -> str:
    import secrets

    return f".{_stem(name)}.{secrets.token_hex(4)}{TEMP_SUFFIX}"


def _link_temp(source: Directory, temp: str, directory: Directory, beside: str) -> str:
    """A new temporary name in `directory` (beside its entry `beside`), hard-linked to the
    temporary file `temp` of `source`."""
    while True:
        link = _temp_name(beside)
        try:
            os.link(temp, link, src_dir_fd=source.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
            return link
        except FileExistsError:
            continue


def _write_temp(
    directory: Directory, name: str, data: bytes, like: os.stat_result | None, attributes_of: int | None = None
) -> str:
    """A new temporary file in `directory` (named after `name`) holding `data`, fsynced,
    with the mode (and, where allowed, owner) of `like`, and the extended attributes of
    the open file `attributes_of` (see `_copy_attributes`). Returns its name. Raises
    `OSError`; leaves nothing behind then."""
    fd, tmp = -1, ""
    try:
        while True:
            tmp = _temp_name(name)
            try:
                fd = os.open(
                    tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=directory.fd
                )
                break
            except FileExistsError:
                continue
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        if like is None:
            os.fchmod(fd, 0o666 & ~_umask())  # as open() would create it, not 0600
        else:
            os.fchmod(fd, stat.S_IMODE(like.st_mode))
            if (like.st_uid, like.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(fd, like.st_uid, like.st_gid)
                except OSError:
                    pass  # not permitted: the file gets the process's owner, as any editor's save would
        if attributes_of is not None:
            _copy_attributes(attributes_of, fd)
        os.close(fd)
        fd = -1
        return tmp
    except BaseException:
        if fd >= 0:
            os.close(fd)
            _remove(directory, tmp)
        raise


def _copy_attributes(source: int, fd: int) -> None:
    """Give the open file `fd` the extended attributes of the open file `source` (on Linux
    these carry POSIX ACLs, SELinux labels and `user.*` notes), so the rename does not drop them.

    Best effort: where the platform or file system has none, or one may not be set by
    this user, the file is written without it, as an editor's save would.
    """
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(source)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(source, name))
        except OSError:
            continue


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(directory: Directory, name: str) -> None:
    try:
        os.unlink(name, dir_fd=directory.fd)
    except OSError:
        pass


# --- checks ----------------------------------------------------------------------------


def _check_writable_at(directory: Directory, name: str, info: os.stat_result | None) -> None:
    try:
        if info is None:
            info = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
        if not info.st_mode & 0o222 or not os.access(name, os.W_OK, dir_fd=directory.fd):
            raise FixtureError("refused: the file is read-only", code="read_only")
        mode = os.fstat(directory.fd).st_mode
        if not mode & 0o222 or not os.access(".", os.W_OK | os.X_OK, dir_fd=directory.fd):
            raise FixtureError("refused: its directory is read-only", code="read_only")
    except OSError as exc:
        raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None


def _state(now: bytes, original: bytes, data: bytes) -> bool:
    """Whether a file holding `now` must still be written: False when it holds `data`
    already (this run wrote it through another name: a hard link or a symlink planned
    beside it). Refuses (`changed_meanwhile`) unless it holds exactly `original` otherwise."""
    if now == data:
        return False
    if now != original:
        raise _changed()
    return True


def _open_target(directory: Directory, name: str) -> int:
    """`_open_file`, with the errors of a write: gone (`changed_meanwhile`), a symlink now."""
    try:
        return _open_file(directory, name)
    except FileNotFoundError:
        raise _removed() from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FixtureError(
                "refused: the file was replaced by a symlink while it was being migrated; nothing written",
                code="changed_meanwhile",
            ) from None
        raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None


# --- writes ----------------------------------------------------------------------------


@_uninterrupted
def write_atomic(
    path: Path,
    data: bytes,
    *,
    original: bytes | None,
    root: Path | None = None,
    hard_links: HardLinks | None = None,
    mode_from: Path | None = None,
    before_swap: Callable[[], None] | None = None,
) -> None:
    """Replace the content of the existing file `path` (which held `original`) with `data`;
    with `original` None, create `path` as `write_new` does (never over an existing file,
    with the mode of `mode_from` if it exists).

    See the module docstring for the steps and guarantees. `root` is the repo root
    (symlinks are followed only inside it, and the root rule holds at each system call;
    None follows any); `hard_links` finds the names of a hard-linked file (None refuses
    such a file, as no root can be scanned). `before_swap` is called after the temporary
    files are ready and just before the last check and the renames (as the step hook's
    `before_swap`). A file that holds `data` already is left as it is.

    Raises `FixtureError` with code `io` (nothing written, or, when the message
    says "migrated, but", written and not yet durable), `changed_meanwhile`,
    `read_only`, `symlink_outside_repo` or `hard_link_outside_repo`; on every
    error no temporary file stays and `path` is untouched.
    """
    target = resolve_target(path, root)
    if original is None:
        like = None
        if mode_from is not None:
            try:
                like = os.stat(mode_from)
            except OSError:
                like = None
        write_new(target, data, like=like, root=root)
        return
    with open_directory(target.parent, root) as directory:
        fd = _open_target(directory, target.name)
        try:
            _replace(directory, target, fd, data, original, root, hard_links, before_swap)
        finally:
            os.close(fd)


def _replace(
    directory: Directory,
    target: Path,
    fd: int,
    data: bytes,
    original: bytes,
    root: Path | None,
    hard_links: HardLinks | None,
    before_swap: Callable[[], None] | None,
) -> None:
    name = target.name
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _changed()
        _check_writable_at(directory, name, info)
        if not _state(_reread(fd, max(len(original), len(data))), original, data):
            return
    except OSError as exc:
        raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None
    _step("opened", str(target))
    names = [str(target)]
    if info.st_nlink > 1:
        if hard_links is None:
            raise FixtureError(
                f"refused: it has {info.st_nlink} hard links and no repo root to find them in",
                code="hard_link_outside_repo",
            )
        names = hard_links.names(target, info)
    others: list[Directory] = []
    temps: list[tuple[Directory, str]] = []  # (directory, temporary name): the file's own first
    order: list[tuple[Directory, str, str]] = []  # (directory, temporary, name) in rename order, the file last
    asides: list[tuple[Directory, str]] = []  # (directory, temporary name) of an old file exchanged out
    done = 0
    last_fd = -1
    try:
        try:
            temps.append((directory, _write_temp(directory, name, data, info, attributes_of=fd)))
            _step("temp_written", str(target))
            for other in names[1:]:
                # Every other name gets a temporary hard link to the same new inode beside it.
                opened = open_directory(os.path.dirname(other), root)
                others.append(opened)
                temps.append((opened, _link_temp(directory, temps[0][1], opened, os.path.basename(other))))
            if before_swap is not None:
                before_swap()
            _step("before_swap", str(target))
            order = [
                (place, temp, os.path.basename(other))
                for (place, temp), other in zip(temps[1:], names[1:], strict=True)
            ] + [(directory, temps[0][1], name)]
            new = os.stat(temps[0][1], dir_fd=directory.fd, follow_symlinks=False)
            for (place, _, other_name), other in zip(order[:-1], names[1:], strict=True):
                here = os.stat(other_name, dir_fd=place.fd, follow_symlinks=False)
                if not _same_file(here, info):
                    raise FixtureError(
                        f"refused: its hard link {other} changed while it was being migrated; run again",
                        code="changed_meanwhile",
                    )
            # The last checks, nearest the renames: the name still leads to a file holding
            # the bytes planned from, and each directory is still where the root leads.
            last_fd = _open_target(directory, name)
            now = os.fstat(last_fd)
            if not _state(_reread(last_fd, max(len(original), len(data))), original, data):
                _remove_temps(temps)  # written meanwhile, through another name, with these very bytes
                return
            for place in [directory, *others]:
                place.verify()
            for place, temp, other_name in order:
                # Atomically exchanged where the system can (the old file keeps a name, `temp`,
                # and is checked to be the very one read), else renamed over.
                aside = _swap(place, temp, other_name, info, new, done, len(names))
                done += 1
                if aside is not None:
                    asides.append((place, aside))
        except OSError as exc:
            _remove_temps([(place, temp) for place, temp, _ in order[done:]] if order else temps)
            _remove_temps(asides)
            if done:
                raise FixtureError(
                    f"cannot write: {_reason(exc)}; {done} of the {len(names)} hard links were migrated, "
                    "the others are unchanged",
                    code="io",
                ) from None
            raise FixtureError(f"cannot write: {_reason(exc)}; the file is unchanged", code="io") from None
        except BaseException:
            _remove_temps([(place, temp) for place, temp, _ in order[done:]] if order else temps)
            _remove_temps(asides)
            raise
        _step("after_swap", str(target))
        try:
            if len(names) == 1 and _reread(last_fd, len(original)) != original:
                # Another writer's bytes reached the old file between the last check and the rename.
                if asides:
                    _swap_back(directory, asides.pop()[1], name, new)
                else:
                    _put_back(directory, name, last_fd, now, new)
                raise _changed()
            _remove_temps(asides)
            for place in [directory, *others]:
                place.sync()
        except FileNotFoundError:
            raise _changed() from None  # the name was removed meanwhile by a third writer
        except OSError as exc:
            raise FixtureError(
                f"migrated, but the directory could not be synced to disk: {_reason(exc)}", code="io"
            ) from None
        finally:
            _remove_temps(asides)
    finally:
        _close(others, last_fd)


def _close(directories: list[Directory], fd: int) -> None:
    for directory in directories:
        directory.close()
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass


def _remove_temps(temps: list[tuple[Directory, str]]) -> None:
    for directory, temp in temps:
        _remove(directory, temp)


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_RENAMEAT2: list[Callable[..., int] | None] = []


def _renameat2(directory: Directory, source: str, target: str, flags: int) -> bool:
    """Linux `renameat2(2)` with `flags`, both names in `directory`: True when done, False
    where the system or file system has no such call or flag (the caller falls back);
    raises `OSError` otherwise."""
    if not _RENAMEAT2:
        function = None
        if hasattr(os, "O_DIRECTORY") and os.uname().sysname == "Linux":
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                function = getattr(libc, "renameat2", None)
                if function is not None:
                    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                    function.restype = ctypes.c_int
            except (OSError, AttributeError):
                function = None
        _RENAMEAT2.append(function)
    function = _RENAMEAT2[0]
    if function is None:
        return False
    import ctypes

    if function(directory.fd, os.fsencode(source), directory.fd, os.fsencode(target), flags) == 0:
        return True
    number = ctypes.get_errno()
    if number in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(number, os.strerror(number), target)


def _swap(
    directory: Directory,
    temp: str,
    name: str,
    expected: os.stat_result,
    new: os.stat_result,
    done: int = 0,
    total: int = 1,
) -> str | None:
    """Put the temporary file `temp` under `name`. Where the system can, the two are
    exchanged atomically (`RENAME_EXCHANGE`) and the file swapped out, now under `temp`,
    must be `expected` (the one read and checked): when another writer renamed a file of
    theirs over `name` after the last check, it is exchanged back and `changed_meanwhile`
    raised. Returns `temp` (holding the old file, for the caller to check and remove), or
    None where the exchange is unsupported and `temp` was renamed over `name` (no check).
    `new` is the stat of the temporary file (the new file)."""
    if not _renameat2(directory, temp, name, _RENAME_EXCHANGE):
        os.replace(temp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
        return None
    out = os.stat(temp, dir_fd=directory.fd, follow_symlinks=False)
    if _same_file(out, expected):
        return temp
    _swap_back(directory, temp, name, new)
    if done:
        raise FixtureError(
            f"refused: {name} was replaced while it was being migrated; {done} of the {total} hard links "
            "were migrated, the others are as they are now",
            code="changed_meanwhile",
        )
    raise _changed()


def _swap_back(directory: Directory, aside: str, name: str, new: os.stat_result) -> None:
    """Undo `_swap`: the file exchanged out (under `aside`) goes back under `name`, and the
    new file this write made (`new`) is removed. When `name` no longer holds `new` (a third
    writer replaced or removed it), theirs is kept and the old file stays beside it under a
    name the error gives (or goes back under `name` if that is free)."""
    here = None
    try:
        here = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
    except FileNotFoundError:
        pass
    if here is not None and _same_file(here, new) and _renameat2(directory, aside, name, _RENAME_EXCHANGE):
        after = os.stat(aside, dir_fd=directory.fd, follow_symlinks=False)
        if _same_file(after, new):
            _remove(directory, aside)
            return
        here = after  # a third writer's file came out instead: keep it beside
    if here is None:
        try:
            os.link(aside, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
            _remove(directory, aside)
            return
        except OSError:
            pass
    kept = _temp_name(name).replace(TEMP_SUFFIX, ".kept")
    os.rename(aside, kept, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
    raise FixtureError(
        f"refused: the file changed while it was being migrated and was replaced again meanwhile; "
        f"the earlier version is kept beside it as {kept}",
        code="changed_meanwhile",
    )


def _put_back(directory: Directory, name: str, old_fd: int, old: os.stat_result, new: os.stat_result) -> None:
    """After a rename over `name`, another writer's bytes reached the old file (open as
    `old_fd`): put its content back under `name`, with its mode, unless `name` is no
    longer the file this write made (`new`; then a third writer owns it: left alone)."""
    content = _reread(old_fd, os.fstat(old_fd).st_size)
    temp = _write_temp(directory, name, content, old, attributes_of=old_fd)
    try:
        try:
            here = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
        except FileNotFoundError:
            # Removed meanwhile by a third writer: the other writer's bytes go back, never over a file.
            os.link(temp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
            return
        if _same_file(here, new):
            os.replace(temp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
            directory.sync()
    finally:
        _remove(directory, temp)


@_uninterrupted
def write_new(
    path: Path,
    data: bytes,
    *,
    mode_from: Path | None = None,
    like: os.stat_result | None = None,
    root: Path | None = None,
) -> bool:
    """Create the file `path` holding `data`, never replacing an existing one.

    The bytes go through a temporary file as in `write_atomic`, then are linked
    under `path` (`link` fails when the name exists, so a file created meanwhile
    is never clobbered; where hard links are unsupported, an existence check and a
    rename are used), relative to its directory opened under the root rule. The new
    file takes the permission bits of `like` (or of the file `mode_from`), or where
    there is none those a newly created file gets (0666 less the umask).

    Returns False when `path` exists already holding exactly `data` (a run that was
    interrupted after writing it): nothing is written. Raises `FixtureError` with
    code `exists` when it holds anything else, `io` on I/O failure, and the root
    rule's codes; no temporary file stays.
    """
    target = resolve_target(path, root)
    if like is None and mode_from is not None:
        try:
            like = os.stat(mode_from)
        except OSError:
            like = None
    with open_directory(target.parent, root) as directory:
        return _create(directory, target.name, data, like) is not None


def _create(
    directory: Directory,
    name: str,
    data: bytes,
    like: os.stat_result | None,
    *,
    own: bool = False,
    took_over: list[bool] | None = None,
) -> os.stat_result | None:
    """Create `name` in `directory` holding `data` (never over another file); returns the stat
    of the file made, now under `name`, or None when `name` held exactly `data` already
    (nothing written). With `own`, such a file is replaced by one this call makes, so the
    caller can tell its own file by inode later (a move removes its source only then), and
    True is appended to `took_over`."""
    if _lexists(directory, name):
        if not _existing(directory, name, data) and not own:
            return None
    try:
        tmp = _write_temp(directory, name, data, like)
    except OSError as exc:
        raise FixtureError(f"cannot write {name}: {_reason(exc)}; nothing written", code="io") from None
    try:
        _step("temp_written", os.path.join(directory.path, name))
        directory.verify()
        made = os.stat(tmp, dir_fd=directory.fd, follow_symlinks=False)
        try:
            if own and _lexists(directory, name):
                raise FileExistsError(errno.EEXIST, "exists")
            try:
                os.link(tmp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
            except FileExistsError:
                raise
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                    raise
                if not _renameat2(directory, tmp, name, _RENAME_NOREPLACE):
                    if _lexists(directory, name):
                        raise FileExistsError(errno.EEXIST, "exists") from None
                    os.replace(tmp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
        except FileExistsError:
            if not _existing(directory, name, data) and not own:
                return None
            _take_over(directory, tmp, name, data, made)
            if took_over is not None:
                took_over.append(True)
        directory.sync()
        return made
    except OSError as exc:
        raise FixtureError(f"cannot write {name}: {_reason(exc)}; nothing written", code="io") from None
    finally:
        _remove(directory, tmp)


def _take_over(directory: Directory, tmp: str, name: str, data: bytes, made: os.stat_result) -> None:
    """Replace the file `name`, which holds exactly `data` (made by another run, or by an
    interrupted one), by the temporary file `tmp` (stat `made`) holding the same bytes,
    checking that the file replaced is still one holding `data`; else it is put back
    (`exists`). Where `RENAME_EXCHANGE` is missing the old file is renamed aside first (for
    an instant `name` is absent)."""
    if _renameat2(directory, tmp, name, _RENAME_EXCHANGE):
        aside = tmp
    else:
        aside = _temp_name(name)
        os.rename(name, aside, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
    try:
        fd = _open_file(directory, aside)
        try:
            same = stat.S_ISREG(os.fstat(fd).st_mode) and _reread(fd, len(data)) == data
        finally:
            os.close(fd)
    except OSError:
        same = False
    if aside == tmp:
        if not same:
            _swap_back(directory, aside, name, made)
            raise FixtureError(f"refused: {name} already exists beside it", code="exists")
        return  # the old file, under `tmp`, goes with it
    if not same:
        try:
            os.link(aside, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
            _remove(directory, aside)
        except OSError:
            kept = _temp_name(name).replace(TEMP_SUFFIX, ".kept")
            os.rename(aside, kept, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
        raise FixtureError(f"refused: {name} already exists beside it", code="exists")
    try:
        os.link(tmp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
    finally:
        _remove(directory, aside)


def _lexists(directory: Directory, name: str) -> bool:
    try:
        os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def check_new(path: Path, data: bytes, *, root: Path | None = None) -> None:
    """Raise `FixtureError` (`exists`) when `write_new(path, data)` would refuse: `path` exists
    holding anything but exactly `data`. For planning, before anything is written."""
    target = resolve_target(path, root)
    try:
        directory = open_directory(target.parent, root)
    except FixtureError:
        return  # the directory itself is gone or swapped: the write will say so
    with directory:
        if _lexists(directory, target.name):
            _existing(directory, target.name, data)


def _existing(directory: Directory, name: str, data: bytes) -> bool:
    try:
        fd = _open_file(directory, name)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode) and _reread(fd, len(data)) == data:
                return False
        finally:
            os.close(fd)
    except OSError:
        pass
    raise FixtureError(f"refused: {name} already exists beside it", code="exists")


@_uninterrupted
def write_file(path: Path, data: bytes, *, root: Path | None = None) -> None:
    """Replace (or create) the file `path` with `data` whatever it holds now: for files the
    tool owns, such as a cache, never for fixtures (those go through `write_atomic`, which
    keeps another writer's bytes). Atomic (a temporary file renamed over it) and under the
    root rule like every write here (a symlink is followed only inside the root). Raises
    `FixtureError` (`io`, and the root rule's codes)."""
    target = resolve_target(path, root)
    with open_directory(target.parent, root) as directory:
        temp = ""
        try:
            temp = _write_temp(directory, target.name, data, None)
            _step("temp_written", str(target))
            directory.verify()
            os.replace(temp, target.name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
            temp = ""
            directory.sync()
        except OSError as exc:
            raise FixtureError(f"cannot write {target.name}: {_reason(exc)}", code="io") from None
        finally:
            if temp:
                _remove(directory, temp)


# --- moves and removals ----------------------------------------------------------------


@_uninterrupted
def move_file(
    source: Path,
    original: bytes,
    target: Path,
    data: bytes,
    *,
    root: Path | None = None,
    hard_links: HardLinks | None = None,
) -> None:
    """Replace the file `source` (which held `original`) by the new file `target` holding
    `data` (a JSON Lines file by its `.json`), never over an existing file.

    `target` is created as `write_new` creates it (with the mode of `source`); an existing
    `target` holding exactly `data` (another or an interrupted run) is exchanged for a
    copy this call makes. Immediately before `source` is removed it is renamed aside and
    checked (same inode, same bytes), and read once more through its still-open
    descriptor right after: if it changed (an appended line, a save by rename), it is
    kept (or put back, holding the other writer's bytes), the `target` this call made is
    removed by inode, and `changed_meanwhile` is raised. A `source` that is gone is
    `changed_meanwhile` too. `hard_links` finds the names of a hard-linked source (which
    is refused: `hard_link_outside_repo` or `hard_link_rename`). Raises `FixtureError`
    as `write_atomic` does.
    """
    real_source = resolve_target(source, root)
    with open_directory(real_source.parent, root) as directory:
        name = real_source.name
        fd = _open_target(directory, name)
        try:
            _move(directory, name, fd, original, target, data, root, hard_links)
        finally:
            os.close(fd)


def _move(
    directory: Directory,
    name: str,
    fd: int,
    original: bytes,
    target: Path,
    data: bytes,
    root: Path | None,
    hard_links: HardLinks | None,
) -> None:
    try:
        info = os.fstat(fd)
        _check_writable_at(directory, name, info)
        if not stat.S_ISREG(info.st_mode) or _reread(fd, len(original)) != original:
            raise _changed()
    except OSError as exc:
        raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None
    if info.st_nlink > 1:
        # Removing one name of a hard-linked file would leave the others holding the old bytes.
        if hard_links is not None:
            hard_links.names(Path(os.path.join(directory.path, name)), info)  # hard_link_outside_repo
        raise FixtureError(
            f"refused: it has {info.st_nlink} hard links; moving it to {target.name} would leave the others "
            "holding the old file",
            code="hard_link_rename",
        )
    _step("opened", os.path.join(directory.path, name))
    real_target = resolve_target(target, root)
    with open_directory(real_target.parent, root) as target_directory:
        took_over: list[bool] = []
        made = _create(target_directory, real_target.name, data, info, own=True, took_over=took_over)
        assert made is not None

        def ours() -> bool:
            try:
                here = os.stat(real_target.name, dir_fd=target_directory.fd, follow_symlinks=False)
            except OSError:
                return False
            return _same_file(here, made)

        def undo(error: FixtureError) -> FixtureError:
            # The source is kept, whole: the file this move made goes again, by inode only.
            _remove_own(target_directory, real_target.name, made)
            return error

        def gone() -> FixtureError:
            # The source is gone. A file this move took over from another run may be the only
            # copy of its migration (that run moved the source): kept. One it made afresh
            # goes again (by inode): the source was removed, nothing is written.
            if took_over:
                return _source_gone(name, target)
            return undo(_removed())

        _unlink_source(directory, name, fd, info, original, target, undo, ours, gone)


def _unlink_source(
    directory: Directory,
    name: str,
    fd: int,
    info: os.stat_result,
    original: bytes,
    target: Path,
    undo: Callable[[FixtureError], FixtureError],
    ours: Callable[[], bool],
    gone: Callable[[], FixtureError],
) -> None:
    """The second half of a move: remove the source `name` (open as `fd`, stat `info`) if it
    still holds `original` and the target is still the file this move made (`ours`).

    The source is first renamed aside, inside its directory, and the file that went aside
    is checked to be the very one read, holding `original`; only then is it removed (an
    editor's save renamed over the name just before is put back). Once more after the
    removal its descriptor is read: bytes written through it are put back. `undo` removes
    the new file while the source is kept; `gone` is the error when the source is gone."""
    _step("before_unlink", os.path.join(directory.path, name))
    try:
        try:
            here = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
        except FileNotFoundError:
            raise gone() from None
        if not _same_file(here, info) or _reread(fd, len(original)) != original:
            raise undo(_changed())
        try:
            directory.verify()
        except FixtureError as error:
            raise undo(error) from None
        if not ours():
            raise undo(
                FixtureError(
                    f"refused: {target.name} was replaced while {name} was being moved to it; {name} is kept",
                    code="changed_meanwhile",
                )
            )
        aside = _temp_name(name)
        try:
            if not _renameat2(directory, name, aside, _RENAME_NOREPLACE):
                os.rename(name, aside, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
        except FileNotFoundError:
            raise gone() from None
        out = os.stat(aside, dir_fd=directory.fd, follow_symlinks=False)
        if not _same_file(out, info) or _reread(fd, len(original)) != original:
            # Another writer's file (or bytes) reached the name after the last check: put back.
            try:
                os.link(aside, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
            except OSError:
                kept = _temp_name(name).replace(TEMP_SUFFIX, ".kept")
                os.rename(aside, kept, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
                raise undo(
                    FixtureError(
                        f"refused: the file changed while it was being migrated and a new {name} appeared; "
                        f"the changed one is kept as {kept}",
                        code="changed_meanwhile",
                    )
                ) from None
            _remove(directory, aside)
            raise undo(_changed())
        os.unlink(aside, dir_fd=directory.fd)
        _step("after_unlink", os.path.join(directory.path, name))
        if _reread(fd, len(original)) != original:
            # Written to between the last check and the removal: its bytes are put back.
            content = _reread(fd, os.fstat(fd).st_size)
            try:
                _create(directory, name, content, info)
            except FixtureError:
                kept = _write_temp(directory, name, content, info)
                raise undo(
                    FixtureError(
                        f"refused: the file changed while it was being migrated and a new {name} appeared; "
                        f"its content is kept in {kept}",
                        code="changed_meanwhile",
                    )
                ) from None
            raise undo(_changed())
        directory.sync()
    except OSError as exc:
        raise FixtureError(f"wrote {target.name} but cannot remove the original: {_reason(exc)}", code="io") from None


def _source_gone(name: str, target: Path) -> FixtureError:
    return FixtureError(
        f"refused: {name} was removed (or moved by another run) while it was being moved; "
        f"{target.name}, holding its migration, is kept",
        code="changed_meanwhile",
    )


def _remove_own(directory: Directory, name: str, made: os.stat_result) -> None:
    """Remove `name` only if it is the very file `made` (by inode): it is renamed aside and
    checked there first, and put back when it is not (no other file is ever removed)."""
    aside = _temp_name(name)
    try:
        if not _renameat2(directory, name, aside, _RENAME_NOREPLACE):
            os.rename(name, aside, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
    except OSError:
        return
    try:
        if _same_file(os.stat(aside, dir_fd=directory.fd, follow_symlinks=False), made):
            os.unlink(aside, dir_fd=directory.fd)
            directory.sync()
            return
        os.link(aside, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd, follow_symlinks=False)
        _remove(directory, aside)
    except OSError:
        try:  # a new file took the name meanwhile: the one that went aside stays, not as a temporary
            os.rename(
                aside, _temp_name(name).replace(TEMP_SUFFIX, ".kept"), src_dir_fd=directory.fd, dst_dir_fd=directory.fd
            )
        except OSError:
            pass


@_uninterrupted
def remove_file(path: Path, original: bytes, *, root: Path | None = None) -> bool:
    """Remove the file `path` if it holds exactly `original` (checked through the open file
    just before the removal, relative to its directory opened under the root rule).

    Returns False when it is gone already. Raises `FixtureError`: `changed_meanwhile`
    when it holds anything else (it is kept), `io`, and the root rule's codes.
    """
    real = resolve_target(path, root)
    with open_directory(real.parent, root) as directory:
        return _remove_if(directory, real.name, original, verify=True)


def _remove_if(directory: Directory, name: str, original: bytes, *, verify: bool = False) -> bool:
    """`remove_file` for the entry `name` of an open directory; with `verify`, the directory
    must still be where it was opened (`Directory.verify`). Without, it is a file this
    process just made that is removed again, wherever its directory has gone."""
    try:
        fd = _open_file(directory, name)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise FixtureError(f"cannot remove {name}: {_reason(exc)}", code="io") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or _reread(fd, len(original)) != original:
            raise _changed()
        if not _same_file(os.stat(name, dir_fd=directory.fd, follow_symlinks=False), info):
            raise _changed()
        if verify:
            directory.verify()
        os.unlink(name, dir_fd=directory.fd)
        directory.sync()
        return True
    except OSError as exc:
        raise FixtureError(f"cannot remove {name}: {_reason(exc)}", code="io") from None
    finally:
        os.close(fd)
