"""Safe file I/O: bounded reads, and writes that never leave a file half written.

A bulk migration rewrites many files in a repository that may hold work in
progress. Whatever happens (a crash, a kill, a full disk, a file edited
meanwhile), every file must end up either exactly as it was or exactly
migrated. This module owns how that is done; README "Safety" states it for users.

Reads (`read_fixture`): only a regular file is read (a named pipe or a device
named `*.json` is refused, never waited on), and at most `MAX_FILE_BYTES`: a
larger file is refused before any of it is read, so memory stays bounded.

Writes (`write_atomic`, `write_new`):

1. The new bytes go to a temporary file in the target's own directory, named
   `.<name>.<random>.fixture-migrate.tmp` (`TEMP_SUFFIX`; directory walks skip
   such files), written in full, fsynced, and given the target's permission
   bits (and, where the process may, its owner and group).
2. Just before the swap the target is read again: if its bytes are no longer
   the ones the migration was planned from, nothing is written and the file is
   reported as changed meanwhile (left as the other writer left it). A file
   removed meanwhile is not recreated. A file that holds the migrated bytes
   already (the same run wrote them through a hard link or symlink planned
   beside it) is left as it is.
3. `os.replace` renames the temporary file over the target (atomic: a reader,
   or a crash, sees the whole old file or the whole new one), then the
   directory is fsynced so the rename itself survives a power cut.
4. On any error the temporary file is removed and the target is untouched; the
   error says so. Only a SIGKILL (or a power cut) can leave a temporary file
   behind: it is never a fixture, walks skip it, and it is safe to delete.

Symlinks: a symlink (or a path through a symlinked directory) is followed, and
its target rewritten, only when the target lies inside the repo root;
otherwise the file is refused (`symlink_outside_repo`).

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
the old ones.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.paths import absolute as absolute_path

TEMP_SUFFIX = ".fixture-migrate.tmp"
"""Suffix of the temporary files writes go through (`.<name>.<random>.fixture-migrate.tmp`)."""

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest file read, in bytes (16 MiB, over 200 times the largest real fixture).

Planning a migration holds several copies of a file's data (parsed values, span
tree, rendered text, re-parse for the checks): about 25 times its size, so a
16 MiB file peaks near 400 MB. A larger file is refused before it is read."""

_NAME_BYTES = 80  # of the file name kept in a temporary name, so it stays under NAME_MAX (255)
_UNSUPPORTED = (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _over(size: int, limit: int) -> str:
    return f"file is {size:,} bytes, over the {limit:,}-byte limit ({limit / (1024 * 1024):g} MiB): not read"


def read_fixture(path: Path, *, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (default `MAX_FILE_BYTES`).

    Raises `FixtureError`: `io` when it cannot be opened or read (gone, no
    permission), `not_regular` for a directory, pipe, socket or device (opened
    without blocking, never read), `too_large` when it holds more than `limit`
    bytes (decided from its size before reading; a file that grows while it is
    read is cut off at `limit + 1` bytes and refused the same way).
    """
    limit = MAX_FILE_BYTES if limit is None else limit
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FixtureError("not a regular file (a directory, pipe, socket or device): not read", code="not_regular")
        if info.st_size > limit:
            raise FixtureError(_over(info.st_size, limit), code="too_large")
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        if remaining <= 0:
            raise FixtureError(_over(limit + 1 - remaining, limit) + " (it grew while it was read)", code="too_large")
        return b"".join(chunks)
    except OSError as exc:
        raise FixtureError(f"cannot read: {_reason(exc)}", code="io") from None
    finally:
        os.close(fd)


def is_inside(path: str, root: str) -> bool:
    """True when the absolute, normalized `path` is `root` or lies under it (both as given, lexically)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=4096)
def _real_directory(directory: str) -> str:
    # One run asks about the same few directories for thousands of files; each
    # realpath costs a system call per path component.
    return os.path.realpath(directory)


def _realpath(absolute: str) -> str:
    """`os.path.realpath` of an absolute path, resolving its directory once per run."""
    directory, name = os.path.split(absolute)
    joined = os.path.join(_real_directory(directory), name)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


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
    if real == absolute or root is None:
        return Path(real)
    if is_inside(real, _real_directory(os.path.abspath(root))):
        return Path(real)
    raise FixtureError(
        "refused: it is a symlink (or lies in a symlinked directory) leading outside the repo root; not followed",
        code="symlink_outside_repo",
    )


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
            if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino):
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


def _stem(name: str) -> str:
    """`name` cut to `_NAME_BYTES` bytes, for the middle of a temporary name."""
    while len(os.fsencode(name)) > _NAME_BYTES:
        name = name[:-1]
    return name


def _link_temp(source: str, beside: str) -> str:
    """A new temporary name beside the path `beside`, hard-linked to the file `source`."""
    import secrets  # imported only by runs that meet a hard-linked file

    directory, name = os.path.split(beside)
    while True:
        link = os.path.join(directory, f".{_stem(name)}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            os.link(source, link)
            return link
        except FileExistsError:
            continue


def _write_temp(
    directory: Path, name: str, data: bytes, like: os.stat_result | None, attributes_of: str | None = None
) -> str:
    """A new temporary file in `directory` holding `data`, fsynced, with the mode (and,
    where allowed, owner) of `like`, and the extended attributes of the file
    `attributes_of` (see `_copy_attributes`). Raises `OSError`; leaves nothing behind then."""
    import tempfile  # imported only by runs that write

    fd, tmp = -1, ""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{_stem(name)}.", suffix=TEMP_SUFFIX, dir=directory)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        if like is None:
            os.fchmod(fd, 0o666 & ~_umask())  # as open() would create it, not mkstemp's 0600
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
        if tmp:
            _remove(tmp)
        raise


def _copy_attributes(source: str, fd: int) -> None:
    """Give the open file `fd` the extended attributes of `source` (on Linux these carry
    POSIX ACLs, SELinux labels and `user.*` notes), so the rename does not drop them.

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


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _remove_all(paths: list[str]) -> None:
    for path in paths:
        _remove(path)


def sync_directory(directory: Path | str) -> None:
    """fsync a directory so a rename in it is durable; a file system that cannot sync
    directories is accepted, any other failure raises `OSError`."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _UNSUPPORTED:
            raise
    finally:
        os.close(fd)


def check_writable(target: Path, info: os.stat_result | None = None) -> None:
    """Refuse (`read_only`) a file without write permission or in a directory without it.

    Mode bits count even for the superuser, who may write anything: a file or
    directory marked read-only is not written. `info` is the file's stat, if known.
    Raises `FixtureError` (`read_only`, or `io` when the file cannot be examined).
    """
    if info is None:
        try:
            info = os.stat(target)
        except OSError as exc:
            raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None
    if not info.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise FixtureError("refused: the file is read-only", code="read_only")
    directory = target.parent
    try:
        mode = os.stat(directory).st_mode
    except OSError as exc:
        raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None
    if not mode & 0o222 or not os.access(directory, os.W_OK | os.X_OK):
        raise FixtureError("refused: its directory is read-only", code="read_only")


def _still(target: str, original: bytes, data: bytes) -> bool:
    """Whether `target` must still be written: False when it holds `data` already (this run
    wrote it through another name: a hard link or a symlink planned beside it). Refuses
    (`changed_meanwhile`) unless it holds exactly `original` otherwise."""
    try:
        with open(target, "rb") as handle:
            now = handle.read(max(len(original), len(data)) + 1)
    except FileNotFoundError:
        raise FixtureError(
            "refused: the file was removed while it was being migrated; nothing written", code="changed_meanwhile"
        ) from None
    if now == data:
        return False
    if now != original:
        raise FixtureError(
            "refused: the file changed while it was being migrated; left as it is now, run again",
            code="changed_meanwhile",
        )
    return True


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
    (symlinks are followed only inside it; None follows any); `hard_links` finds the
    names of a hard-linked file (None refuses such a file, as no root can be
    scanned). `before_swap` is called after the temporary files are ready and just
    before the last check and the renames (a test hook for concurrent edits). A file
    that holds `data` already is left as it is.

    Raises `FixtureError` with code `io` (nothing written, or, when the message
    says "migrated, but", written and not yet durable), `changed_meanwhile`,
    `read_only`, `symlink_outside_repo` or `hard_link_outside_repo`; on every
    error no temporary file stays and `path` is untouched.
    """
    target = resolve_target(path, root)
    if original is None:
        write_new(target, data, mode_from=mode_from or target)
        return
    try:
        info = os.stat(target)
    except FileNotFoundError:
        raise FixtureError(
            "refused: the file was removed while it was being migrated; nothing written", code="changed_meanwhile"
        ) from None
    except OSError as exc:
        raise FixtureError(f"cannot write: {_reason(exc)}", code="io") from None
    check_writable(target, info)
    if not _still(str(target), original, data):
        return
    names = [str(target)]
    if info.st_nlink > 1:
        if hard_links is None:
            raise FixtureError(
                f"refused: it has {info.st_nlink} hard links and no repo root to find them in",
                code="hard_link_outside_repo",
            )
        names = hard_links.names(target, info)

    temps: list[str] = []
    order: list[tuple[str, str]] = []  # (temporary, name) in rename order: the other names, the file last
    done = 0
    try:
        temps.append(_write_temp(target.parent, target.name, data, info, attributes_of=str(target)))
        for other in names[1:]:
            # Every other name gets a temporary hard link to the same new inode beside it.
            temps.append(_link_temp(temps[0], other))
        if before_swap is not None:
            before_swap()
        order = list(zip(temps[1:], names[1:], strict=True)) + [(temps[0], names[0])]
        if not _still(names[0], original, data):
            _remove_all(temps)  # written meanwhile, through another name, with these very bytes
            return
        for other in names[1:]:
            now = os.lstat(other)
            if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
                raise FixtureError(
                    f"refused: its hard link {other} changed while it was being migrated; run again",
                    code="changed_meanwhile",
                )
        for temp, name in order:
            os.replace(temp, name)
            done += 1
    except OSError as exc:
        _remove_all([temp for temp, _ in order[done:]] if order else temps)
        if done:
            raise FixtureError(
                f"cannot write: {_reason(exc)}; {done} of the {len(names)} hard links were migrated, "
                "the others are unchanged",
                code="io",
            ) from None
        raise FixtureError(f"cannot write: {_reason(exc)}; the file is unchanged", code="io") from None
    except BaseException:
        _remove_all([temp for temp, _ in order[done:]] if order else temps)
        raise
    try:
        for directory in dict.fromkeys(os.path.dirname(name) for name in names):
            sync_directory(directory)
    except OSError as exc:
        raise FixtureError(
            f"migrated, but the directory could not be synced to disk: {_reason(exc)}", code="io"
        ) from None


def write_new(path: Path, data: bytes, *, mode_from: Path) -> bool:
    """Create the file `path` holding `data`, never replacing an existing one.

    The bytes go through a temporary file as in `write_atomic`, then are linked
    under `path` (`os.link` fails when the name exists, so a file created meanwhile
    is never clobbered; where hard links are unsupported, an existence check and a
    rename are used). The new file takes the permission bits of `mode_from`, or
    where it does not exist those a newly created file gets (0666 less the umask).

    Returns False when `path` exists already holding exactly `data` (a run that was
    interrupted after writing it): nothing is written. Raises `FixtureError` with
    code `exists` when it holds anything else, `io` on I/O failure; no temporary
    file stays.
    """
    directory = path.parent
    try:
        like: os.stat_result | None = os.stat(mode_from)
    except OSError:
        like = None
    if os.path.lexists(path):
        return _existing(path, data)
    try:
        tmp = _write_temp(directory, path.name, data, like)
    except OSError as exc:
        raise FixtureError(f"cannot write {path.name}: {_reason(exc)}; nothing written", code="io") from None
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return _existing(path, data)
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            if os.path.lexists(path):
                return _existing(path, data)
            os.replace(tmp, path)
        sync_directory(directory)
        return True
    except OSError as exc:
        raise FixtureError(f"cannot write {path.name}: {_reason(exc)}; nothing written", code="io") from None
    finally:
        _remove(tmp)


def check_new(path: Path, data: bytes) -> None:
    """Raise `FixtureError` (`exists`) when `write_new(path, data)` would refuse: `path` exists
    holding anything but exactly `data`. For planning, before anything is written."""
    if os.path.lexists(path):
        _existing(path, data)


def _existing(path: Path, data: bytes) -> bool:
    try:
        if stat.S_ISREG(os.lstat(path).st_mode) and read_fixture(path, limit=len(data)) == data:
            return False
    except (OSError, FixtureError):
        pass
    raise FixtureError(f"refused: {path.name} already exists beside it", code="exists")
