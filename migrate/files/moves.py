"""Moves and removals: `move_file(source, original, target, data, root=...)` replaces
`source` by a new file `target` (a JSONL file by its `.json`); `remove_file(path, original,
root=...)` removes a file that still holds `original`. Both act under the root rule
(`fixture_migrate.files.root`) and create files as `fixture_migrate.files.writes` does.

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
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.files import writes
from fixture_migrate.files.hard_links import HardLinks
from fixture_migrate.files.reads import _reread
from fixture_migrate.files.root import (
    Directory,
    _changed,
    _open_file,
    _reason,
    _removed,
    _same_file,
    open_directory,
    resolve_target,
)
from fixture_migrate.files.steps import _step, _uninterrupted
from fixture_migrate.files.writes import (
    _RENAME_NOREPLACE,
    TEMP_SUFFIX,
    _check_writable_at,
    _create,
    _open_target,
    _remove,
    _temp_name,
    _write_temp,
)


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
            if not writes._renameat2(directory, name, aside, _RENAME_NOREPLACE):
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
        if not writes._renameat2(directory, name, aside, _RENAME_NOREPLACE):
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
