"""Safe writes: files that are never left half written, never lose a concurrent writer's
bytes they could see, and never act outside the root.

A bulk migration rewrites many files in a repository that may hold work in
progress. Whatever happens (a crash, a kill, a full disk, a file edited or a
directory swapped meanwhile), every file must end up either exactly as it was,
exactly migrated, or as the other writer left it. This module owns how that is
done; README "Safety" states it for users.

- `write_atomic(path, data, original=..., root=...)`: replace a file's content
  (or, with `original=None`, create it).
- `write_new(path, data, like=..., root=...)`: create a file, never over one.
- `write_file(path, data, root=...)`: replace a file the tool owns (a cache), whatever
  it holds.
- `write_dest(path, data, original=..., root=...)`: write the output file of `import` or
  `export` (DEST), its missing folders made first: the one place both commands and the
  API write it.

Moves and removals are in `fixture_migrate.files.moves`, reads in
`fixture_migrate.files.reads`, the root rule and the directory descriptors every call goes
through in `fixture_migrate.files.root`, the names of a hard-linked group in
`fixture_migrate.files.hard_links`, the step hooks in `fixture_migrate.files.steps`.

Every error is a `FixtureError` with a code (`io`, `changed_meanwhile`, `read_only`,
`symlink_outside_repo`, `symlink_loop`, `hard_link_outside_repo`, `hard_link_rename`, `exists`,
`too_large`, `not_regular`).

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

Read-only: a file without write permission, or in a directory without it, is
refused (`read_only`) rather than replaced behind its mode's back; this holds
for the superuser too, who could otherwise replace it.

(Some 710 lines, over the ~500 the project aims for: every step of a safe write and the
fault it guards against belong together, as README "Safety" describes them.)
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.hard_links import HardLinks
from fixture_migrate.files.reads import _reread
from fixture_migrate.files.root import (
    _CLOEXEC,
    _NOFOLLOW,
    Directory,
    _changed,
    _open_file,
    _reason,
    _removed,
    _same_file,
    make_directories,
    open_directory,
    resolve_target,
)
from fixture_migrate.files.steps import _step, _uninterrupted

TEMP_SUFFIX = ".fixture-migrate.tmp"
"""Suffix of the temporary files writes go through (`.<name>.<random>.fixture-migrate.tmp`)."""


_NAME_BYTES = 80  # of the file name kept in a temporary name, so it stays under NAME_MAX (255)


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
    directory: Directory,
    name: str,
    data: bytes | Iterable[bytes],
    like: os.stat_result | None,
    attributes_of: int | None = None,
) -> str:
    """A new temporary file in `directory` (named after `name`) holding `data` (bytes, or
    pieces of bytes written in turn), fsynced,
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
        for chunk in (data,) if isinstance(data, (bytes, bytearray, memoryview)) else data:
            view = memoryview(chunk)
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


def write_dest(path: Path, data: bytes, *, original: bytes | None, root: Path) -> None:
    """Write DEST, the output file of an import or an export: `path`'s missing folders are
    made under the root rule (`fixture_migrate.files.root.make_directories`), then `data`
    replaces the `original` bytes it was planned from (None: `path` did not exist, and is
    created with nothing over it) through `write_atomic`, keeping the mode of the file it
    replaces. Raises `FixtureError`: `write_atomic`'s codes, and `io` ("cannot write: ...")
    for any other failure of the system."""
    try:
        make_directories(path.parent, root)
        write_atomic(path, data, original=original, mode_from=path, root=root)
    except OSError as error:
        raise FixtureError(f"cannot write: {error}", code="io") from None


@_uninterrupted
def write_file(path: Path, data: bytes | Iterable[bytes], *, root: Path | None = None) -> None:
    """Replace (or create) the file `path` with `data` (bytes, or pieces of bytes written in
    turn) whatever it holds now: for files the tool owns, such as a cache, never for fixtures
    (those go through `write_atomic`, which keeps another writer's bytes). Atomic (a
    temporary file renamed over it) and under the root rule like every write here (a
    symlink is followed only inside the root). Raises `FixtureError` (`io`, and the root
    rule's codes); an exception the pieces raise is raised as it is, the temporary file
    removed and the old file kept. Interrupts are held until the rename (`_uninterrupted`),
    while the pieces are made too."""
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
