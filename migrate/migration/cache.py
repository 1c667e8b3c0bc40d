"""Verdicts of earlier `migrate` runs, so a re-run skips the files nothing changed in.

As black and ruff do, a run remembers, per file, what planning it found ("unchanged",
"not a fixture", or "would change", with what `--check` reports of the change), and
the next run with the same tool and the same settings takes that answer instead of
planning the file again.

What an entry is keyed on, so that a stale verdict cannot be used:

- the file's bytes: every run reads each file and hashes its content (xxHash's
  XXH3, 128 bits); size and modification time are not trusted, so a file edited
  with its size and mtime restored is still planned again. Reading is what a run
  must do anyway; the hash costs a few milliseconds per 50 MB;
- what else of the file system its verdict read (`entry_digest`): where a symlinked
  file leads, and which project markers (`package.json`, `__init__.py`, ...) the
  folders on its way hold, which make a folder a sandbox or a package;
- its path relative to the repo root (the `source_file` of its cases, and the
  skill inferred from it);
- in the name of the cache file, everything else a verdict depends on: the tool
  (its version, and the size and mtime of each of its modules, so an edited
  checkout never reuses the verdicts of the code before), the Python and orjson
  versions, the ruamel.yaml and libcst installs (they render YAML and Python
  fixtures), the installed adapter plugins (name, distribution, version, and the size
  and mtime of every file of the package each entry point's module lies in), and the run's configuration
  (repo root, skill, skill globs, `include` globs, the adapter tables declared with
  `files`, `--py-name`, the configuration file's place).

The cache only ever skips work, it never decides a write: a "would change"
verdict serves `--check` alone (its exit code, the file's name and the counts);
a run that writes or shows diffs plans such a file afresh, and writes or shows
only what that plan made. A file planned with an error, or whose migration
creates another file (JSONL, where the new name's state counts too), is never
cached.

Where: `.fixture_migrate_cache/` at the repo root (it holds a `.gitignore` of
`*`, so git never sees it; walks skip hidden directories), or the directory
named by `FIXTURE_MIGRATE_CACHE_DIR`. The cache is used only in a directory the
run makes or one holding only the cache's own files (`usable`), never through a
symlink, inside the root or outside it; its `.gitignore` goes only into a
directory the run made or the one at the default place, so a cache never hides
or writes among other files, and never changes which files a walk visits.
`--no-cache` neither reads nor writes it; `fixture-migrate cache clean` removes
exactly the files it wrote. A cache file is replaced whole (`files.writes.write_file`: a temporary file renamed
over it, under the root rule when the cache is at the root), so a
reader sees an old or a new file, never part of one; two runs finishing together
each write a whole file and the last one wins (a verdict the other learnt is
learnt again next time). A file that is not a cache of this format and key
(corrupt, truncated, foreign) is ignored and overwritten at the end of the run.

Beside each cache file, `<key>.run` may hold the record of the last run that qualified
for one (`fixture_migrate.migration.replay`): the same directory rules, the same key,
removed by `cache clean` with the rest.

(Some 660 lines, over the ~500 the project aims for: the key, the reading and merging
of cache files and of the run's record beside them, and the rule for where a cache may
live (a directory the run makes or one holding only its files, checked with the file
read through the same opened directory) belong together.)
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import xxhash
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.reads import read_fixture, read_head
from fixture_migrate.files.root import Directory, is_inside, make_directories, open_directory, real_root, resolve_target
from fixture_migrate.files.writes import TEMP_SUFFIX, write_file
from fixture_migrate.migration import cache_file
from fixture_migrate.migration.cache_file import Entries
from fixture_migrate.migration.status import Status

CACHE_DIR_NAME = ".fixture_migrate_cache"
ENV_VAR = "FIXTURE_MIGRATE_CACHE_DIR"
MAGIC_PREFIX = b"fixture-migrate cache "
MAGIC = MAGIC_PREFIX + b"5\n"
"""The first line of every cache file: a file without it is not read."""

CACHEABLE = (Status.UNCHANGED, Status.NOT_FIXTURE, Status.CHANGED)
"""The verdicts an entry may hold (stored as their words)."""

digest = xxhash.xxh3_128_digest
"""The content hash of a file's bytes (16 bytes)."""


def entry_digest(content_digest: bytes, facts: str) -> bytes:
    """The digest an entry is of (16 bytes): the `digest` of the file's bytes, with the
    facts of the file system its verdict read besides (`claiming.territory.place_facts`:
    a symlink's target, the markers on its way) folded in; the content digest itself
    when there are none."""
    return content_digest if not facts else digest(content_digest + os.fsencode(facts))


def cache_dir(repo_root: Path) -> Path:
    """The cache directory of a run over `repo_root`: `FIXTURE_MIGRATE_CACHE_DIR`, else
    `.fixture_migrate_cache` at the root."""
    named = os.environ.get(ENV_VAR)
    return Path(named) if named else Path(repo_root) / CACHE_DIR_NAME


def _tool_fingerprint() -> list[Any]:
    """The tool's version (the hash of the package's `__init__.py`, which holds it) and, per
    module, its size and mtime: an edited checkout or a reinstall of another build never
    reuses the verdicts of the code before."""
    package = Path(__file__).resolve().parent.parent
    with open(package / "__init__.py", "rb") as handle:
        found: list[Any] = [xxhash.xxh3_64_hexdigest(handle.read())]
    for directory in (package, Path(sys.modules["fixture_migrate.adapters"].__file__ or "").parent):
        for folder, dirnames, filenames in os.walk(directory):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    info = os.stat(os.path.join(folder, name))
                    found.append([os.path.relpath(os.path.join(folder, name), package), info.st_size, info.st_mtime_ns])
    return found


PARSERS = ("ruamel.yaml", "libcst")
"""The libraries that read and write YAML and Python fixtures: their release decides what a
file's rendering is, so whether it would change."""


def _parsers() -> list[Any]:
    """Per library of `PARSERS`, where its `__init__.py` is, and its size and mtime (an
    upgrade or reinstall rewrites it), found without importing the library."""
    from importlib.util import find_spec

    found: list[Any] = []
    for name in PARSERS:
        try:
            spec = find_spec(name)
            origin = spec.origin if spec is not None else None
            info = os.stat(origin) if origin else None
        except (ImportError, ValueError, OSError):
            origin, info = None, None
        found.append([name, origin, None if info is None else [info.st_size, info.st_mtime_ns]])
    return found


def _plugins() -> list[Any]:
    """Name, distribution and version of each installed adapter plugin."""
    from fixture_migrate.claiming.registry import ENTRY_POINT_GROUP, entry_points_of

    found = []
    for point in entry_points_of(ENTRY_POINT_GROUP):
        dist = point.dist
        found.append(
            [point.name, point.value, dist.name if dist else None, dist.version if dist else None, _code_of(point)]
        )
    return found


MAX_PLUGIN_FILES = 20_000
"""The most files of one plugin's package fingerprinted; past it the run's key takes the count."""


def _code_of(point: Any) -> list[Any]:
    """Size and mtime of the code and data of a plugin, so an edited plugin (an editable
    install keeps its version) does not reuse verdicts of its code before: every file
    (modules, subpackages, data files read beside them) of the top-level package its
    entry-point module lies in; for a module outside any package, the modules beside it.
    The run loads the plugin anyway; a module that cannot be found gives nothing."""
    from importlib.util import find_spec

    top = point.module.split(".")[0]
    try:
        spec = find_spec(top)
    except Exception:  # noqa: BLE001 - the registry reports a broken plugin
        return []
    if spec is None:
        return []
    locations = list(spec.submodule_search_locations or ())
    if locations:
        return _package_files(locations)
    origin = spec.origin
    if not origin or not os.path.isfile(origin):
        return []
    folder = os.path.dirname(origin)
    found: list[Any] = []
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".py"))
        for name in names:
            info = os.stat(os.path.join(folder, name))
            found.append([os.path.join(folder, name), info.st_size, info.st_mtime_ns])
    except OSError:
        return [origin]
    return found


def _package_files(locations: list[str]) -> list[Any]:
    """Path, size and mtime of every file under a package's folders (no `__pycache__`, no
    symlinked folder followed), at most `MAX_PLUGIN_FILES` of them."""
    found: list[Any] = []
    for location in sorted(locations):
        for folder, dirnames, filenames in os.walk(location):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if len(found) >= MAX_PLUGIN_FILES:
                    found.append(["...", len(found)])
                    return found
                path = os.path.join(folder, name)
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                found.append([path, info.st_size, info.st_mtime_ns])
    return found


def run_key(options: Any) -> str:
    """The hex key of everything besides a file's path and bytes that its verdict depends on."""
    import fixture_migrate.adapters  # noqa: F401 - its folder is part of the fingerprint

    skills = [[glob.text, name] for glob, name in getattr(options, "skills", ())]
    selection = getattr(options, "selection", None)
    # `include` gives a local family's file fixture context; a declared adapter table
    # (with its `files`) claims files: both decide verdicts. Their globs are relative to
    # the selection's base.
    include = None if selection is None or selection.include is None else [g.text for g in selection.include]
    families = [[name, table, [g.text for g in globs]] for name, table, globs in getattr(options, "families", ())]
    config_path = getattr(options, "config_path", None)
    parts = [
        _tool_fingerprint(),
        list(sys.version_info[:3]),
        orjson.__version__,
        _parsers(),
        _plugins(),
        str(options.repo_root),
        options.skill,
        list(options.py_names),
        skills,
        include,
        families,
        None if selection is None else str(selection.base),
        None if config_path is None else str(config_path),
    ]
    return xxhash.xxh3_128_hexdigest(orjson.dumps(parts, default=str))


class Cache:
    """The verdicts of one cache file: relative path -> `[digest, status, adapter names, cases,
    first changed line, fields moved to extensions per adapter, reason, pins nothing]` (see
    `FileResult`; the last, whether the pin index found nothing in the bytes, see `pins_nothing`).

    `get` answers a lookup; `put` notes a verdict of this run (or forgets the file's);
    `pins_nothing` and `learn_pins_nothing` read and note whether a file's bytes, read in
    this run, pin nothing (`entries.see` marks the entries so read); `save` writes the
    file back (merged with what another run may have written meanwhile). `loaded` is what
    the cache file was (`_identity`) when its entries were read, or None.
    """

    digest = staticmethod(digest)
    entry_digest = staticmethod(entry_digest)
    identity = staticmethod(cache_file.identity)

    def __init__(
        self, path: Path, key: str, entries: dict[str, list[Any]] | Entries | None = None, root: Path | None = None
    ) -> None:
        self.path = path
        self.key = key
        self.root = root  # the repo root whose rule writes obey; None for a directory named by the user
        if not isinstance(entries, Entries):
            given = entries or {}
            entries = Entries()
            for relative, entry in given.items():
                entries.set(relative, entry)
        self.entries = entries
        self.repo_root: Path | None = None  # where entries' paths are relative to, to prune them
        self.default_place = False  # `.fixture_migrate_cache` at the root (not a directory named by the user)
        self._put = Entries()  # the verdicts this run learnt (held compact, as `entries`)
        self._dropped: set[str] = set()  # the files whose entry this run forgets
        self._learnt = False  # some entry learnt that its bytes pin nothing (held in `entries`)
        self.loaded: int | None = None  # what the cache file was (`_identity`) when `entries` was read from it

    @classmethod
    def open(cls, options: Any) -> Cache | None:
        """The cache of a run with `options`, its earlier verdicts read; None when no cache
        can be used (see `usable`: the directory is reached through a symlink, is not a
        directory, or holds a file the cache did not write)."""
        root = Path(options.repo_root)
        directory = cache_dir(root)
        write_root = _write_root(directory, root)
        key = run_key(options)
        path = directory / f"{key}.cache"
        identity: list[int] = []
        state, entries = _scan(
            directory, root, read=path.name, load=lambda fd, name: _load_below(fd, name, key, identity)
        )
        if state is None:
            return None
        found = cls(path, key, entries if isinstance(entries, Entries) else Entries(), root=write_root)
        found.loaded = identity[0] if identity and len(found.entries) else None
        found.repo_root = root
        found.default_place = not os.environ.get(ENV_VAR)
        return found

    @staticmethod
    def read_record(options: Any) -> bytes:
        """The bytes of the run's record (`fixture_migrate.migration.replay`) that goes with
        the cache of a run with `options` (`<key>.run` beside `<key>.cache`), read as the
        cache file is (a usable directory, no symlink followed, a pipe never waited on),
        without reading the cache file; empty when there is none."""
        root = Path(options.repo_root)
        state, raw = _scan(cache_dir(root), root, read=f"{run_key(options)}.run")
        return raw if state == "ours" else b""

    def write_record(self, data: bytes) -> bool:
        """Write `data` as the run's record beside this cache file, as `save` writes it (the
        directory checked again, under the root rule, replaced whole). Best effort: False
        when it cannot be written."""
        try:
            _prepare(self.path.parent, self.root, self.repo_root, default_place=self.default_place)
            write_file(self.path.with_suffix(".run"), data, root=self.root)
        except (OSError, FixtureError):
            return False
        return True

    def get(self, relative: str, content_digest: bytes) -> list[Any] | None:
        """The entry cached for the file at `relative` whose bytes have `content_digest`
        (see `digest`), or None."""
        if self.entries.digest_of(relative) != content_digest.hex():
            return None
        return self.entries.get(relative)

    def put(self, relative: str, content_digest: bytes | None, result: Any) -> None:
        """Note the verdict of a file planned (or found in the cache) in this run, from its
        `FileResult`: kept when it is in `CACHEABLE`, makes no new file and the digest is
        known; any other verdict forgets the file."""
        status = result.status
        if status in CACHEABLE and content_digest is not None and result.new_path is None and _storable(relative):
            hex_digest = content_digest.hex()
            known = self.entries.get(relative)
            entry = [
                hex_digest,
                status,
                result.adapters,
                result.cases,
                result.first_changed_line,
                result.to_extensions,
                result.reason,
                known is not None and known[0] == hex_digest and known[7],  # of the same bytes: still known
            ]
            if known != entry:
                self._put.set(relative, entry)
                self._dropped.discard(relative)
        elif relative in self.entries:
            self._put.pop(relative)
            self._dropped.add(relative)

    def pins_nothing(self, relative: str) -> bool:
        """Whether the bytes of the file at `relative`, read in this run and the bytes of its
        entry (`Entries.see`), are known to hold nothing that could pin a file."""
        return self.entries.pins_nothing(relative)

    def learn_pins_nothing(self, relative: str) -> None:
        """Note that the pin index found nothing in the bytes of the file at `relative`, read
        in this run and the bytes of its entry (else nothing is noted)."""
        if self.entries.learn_pins_nothing(relative):
            self._learnt = True

    def save(self) -> bool:
        """Write what this run learnt, merged over the file as it is now (another run may
        have written it meanwhile: it is read again unless it is still the very file this run
        read, by `_identity`), less the entries of files no longer under the root. The
        document is written a piece at a time (`cache_file.dump_chunks`), never held whole.
        Best effort: False when it cannot be written."""
        if not len(self._put) and not self._dropped and not self._learnt:
            return True
        if self.loaded is not None and _identity(self.path) == self.loaded:
            entries = self.entries  # the file as it was read: no second copy of it
        else:
            entries = _read(self.path, self.key, self.root)
            if not entries:
                entries = self.entries
            elif self._learnt:
                entries.learn_from(self.entries)
        for relative in self._dropped:
            entries.pop(relative)
        for relative, entry in self._put.items():
            entries.set(relative, entry)
        if self.repo_root is not None:
            # Files renamed or removed since: their entries would only grow the file.
            base = str(self.repo_root)
            put = self._put
            entries.keep(lambda relative: relative in put or os.path.lexists(os.path.join(base, relative)))
        try:
            _prepare(self.path.parent, self.root, self.repo_root, default_place=self.default_place)
            write_file(self.path, itertools.chain((MAGIC,), cache_file.dump_chunks(self.key, entries)), root=self.root)
        except (OSError, FixtureError):
            return False
        self._put, self._dropped = Entries(), set()
        self._learnt = False
        self.loaded = None
        return True


def _storable(relative: str) -> bool:
    """Whether a path can be a key of the file (JSON text): not a name that is not UTF-8."""
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


MAX_CACHE_BYTES = 1 << 30
"""The largest cache file read (some 5 million files' verdicts); a larger one is ignored."""


def _read(path: Path, key: str, root: Path | None) -> Entries:
    """The entries of the cache file at `path`, or none when it is missing, corrupt, of
    another format or of another key; or not a regular file (a pipe is never waited on),
    or, with `root` (the cache at the repo root), reached through a symlink leading
    outside it: read as a fixture is (`read_fixture`)."""
    try:
        raw = read_fixture(path, limit=MAX_CACHE_BYTES, root=root)
    except FixtureError:
        return Entries()
    return _entries(raw, key)


def _entries(raw: bytes, key: str) -> Entries:
    """The entries of the bytes of a cache file, or none when they are not a cache of this
    format and `key` (see `_read`): `cache_file.load`, which holds them compact."""
    if not raw.startswith(MAGIC):
        return Entries()
    found = cache_file.load(raw[len(MAGIC) :], key, CACHEABLE)
    return Entries() if found is None else found


GITIGNORE = b"# Created by fixture-migrate: its cache, safe to delete.\n*\n"
"""The `.gitignore` a cache directory holds."""

_CACHE_NAME = re.compile(r"[0-9a-f]{32}\.(?:cache|run)")
_TEMP_NAME = re.compile(r"\.[0-9a-f]{32}\.(?:cache|run)\.[^/]*" + re.escape(TEMP_SUFFIX))
RECORD_MAGIC_PREFIX = b"fixture-migrate run "
"""The start of a run's record (`fixture_migrate.migration.replay`), `<key>.run` beside `<key>.cache`."""


def _prepare(directory: Path, root: Path | None, repo_root: Path | None, *, default_place: bool) -> None:
    """Create the cache directory, with a `.gitignore` that keeps it out of git (under the
    root rule, as every write: nothing is written through a symlink leading outside it),
    checked again right before (`usable`): a directory that has become a symlink, or holds
    a file the cache did not write, is not written to (`FixtureError`).

    The `.gitignore` goes only into the default place (`.fixture_migrate_cache`, holding
    only the cache's files) or a directory the run made outside the repo root: a
    directory named by `FIXTURE_MIGRATE_CACHE_DIR` inside the root gets none, since its
    `*` would hide from the walk and from git whatever lands there later."""
    if repo_root is None:  # a Cache made by hand, not by `Cache.open`
        raise FixtureError("no repo root to check the cache directory against; not written", code="cache_not_ours")
    state = usable(directory, repo_root)
    if state is not None:
        make_directories(directory, root)
    if state is None or usable(directory, repo_root) != "ours":
        raise FixtureError("the cache directory is no longer the cache's own; not written", code="cache_not_ours")
    if state == "ours" and not default_place:
        return
    if not default_place and root is not None:
        return  # a named folder inside the repo: a `.gitignore` of `*` there would hide what lies in it
    ignore = directory / ".gitignore"
    if not os.path.lexists(ignore):
        write_file(ignore, GITIGNORE, root=root)


def _symlinked(directory: Path, repo_root: Path) -> bool:
    """Whether the cache directory `directory` is reached through a symlink: it is one, or,
    lying in the repo root, a folder on its path below the root is one (the path spelled
    from the root's own path must be the real one)."""
    absolute = os.path.normpath(os.path.abspath(directory))
    if os.path.islink(absolute):
        return True
    real = os.path.realpath(absolute)
    base = real_root(repo_root)
    lexical_root = os.path.normpath(os.path.abspath(repo_root))
    if not is_inside(real, base):
        # Spelled inside the root, it leads out: a folder on its path is a symlink (the
        # folders still to be made would be made outside).
        return is_inside(absolute, lexical_root)
    if not is_inside(absolute, lexical_root):
        return True  # inside the root only by way of a symlink
    return os.path.relpath(absolute, lexical_root) != os.path.relpath(real, base)


def _write_root(directory: Path, repo_root: Path) -> Path | None:
    """The root whose rule writes to the cache directory obey: the repo root when the
    directory lies in it (its default place, or a named directory inside), else None."""
    if not os.environ.get(ENV_VAR):
        return repo_root
    return repo_root if is_inside(os.path.realpath(directory), real_root(repo_root)) else None


def usable(directory: Path, repo_root: Path) -> str | None:
    """Whether the cache may live in `directory`: "absent" (the run will make it), "ours" (a
    real directory holding only files the cache wrote, see `_cache_made`), or None: it is
    reached through a symlink (inside or outside the root), is not a directory, cannot be
    opened, or holds anything else. A cache used only there never writes into, nor hides
    from git (its `.gitignore` of `*`), a folder of other files: it cannot change what a
    walk visits."""
    return _scan(directory, repo_root)[0]


def _scan(
    directory: Path, repo_root: Path, read: str | None = None, load: Callable[[int, str], Any] | None = None
) -> tuple[str | None, Any]:
    """`usable`'s answer, and the bytes of the file `read` in the directory (empty when it
    is missing, is no regular file or is too large), read through the same opened directory;
    with `load`, what `load(directory descriptor, read)` makes of it instead."""
    if _symlinked(directory, repo_root):
        return None, b""
    if not os.path.lexists(directory):
        return "absent", b""
    if not os.path.isdir(directory):
        return None, b""
    root = _write_root(directory, repo_root)
    try:
        opened = open_directory(resolve_target(directory, root), root)
    except FixtureError:
        return None, b""
    with opened:
        try:
            entries = list(os.scandir(opened.fd))
        except OSError:
            return None, b""
        if not all(_cache_made(entry, opened.fd) for entry in entries):
            return None, b""
        raw = b""
        if read is not None and any(entry.name == read and entry.is_file(follow_symlinks=False) for entry in entries):
            raw = _read_below(opened.fd, read, MAX_CACHE_BYTES) if load is None else load(opened.fd, read)
    return "ours", raw


def _read_below(directory_fd: int, name: str, limit: int) -> bytes:
    """The bytes of the regular file `name` below `directory_fd` (no symlink followed, a
    pipe never waited on), or empty when it cannot be read or is over `limit` bytes."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=directory_fd)
    except OSError:
        return b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return b""
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            if sum(map(len, chunks)) > limit:
                return b""
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _identity(path: Path) -> int | None:
    """`cache_file.identity` of the regular file `path` itself (a symlink is not followed),
    or None: a cache file is only ever replaced whole, so the same identity is the same
    file, unwritten since."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return cache_file.identity(info) if stat.S_ISREG(info.st_mode) else None


def _load_below(directory_fd: int, name: str, key: str, identity: list[int] | None = None) -> Entries:
    """The entries of the cache file `name` below `directory_fd`, opened as `_read_below`
    opens it, and read a block at a time (`cache_file.Loader`): never held whole. A file not
    in the layout this module writes is read whole, as `_read_below` reads it. `identity`
    gets the file's `_identity` as it was read."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=directory_fd)
    except OSError:
        return Entries()
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CACHE_BYTES:
            return Entries()
        if identity is not None:
            identity.append(cache_file.identity(info))
        loader = cache_file.Loader(MAGIC + cache_file.header(key), CACHEABLE)
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > MAX_CACHE_BYTES:
                return Entries()
            loader.feed(chunk)
        found = loader.finish()
    except OSError:
        return Entries()
    finally:
        os.close(fd)
    return found if found is not None else _entries(_read_below(directory_fd, name, MAX_CACHE_BYTES), key)


def _cache_made(entry: os.DirEntry[str], directory_fd: int) -> bool:
    """Whether `entry` is a regular file of a name the cache writes: a cache file (whatever
    it holds: a damaged one is rewritten), a temporary file of one, or its `.gitignore`
    holding exactly what the cache writes there (read below `directory_fd`, no symlink
    followed)."""
    if not entry.is_file(follow_symlinks=False):
        return False
    if _CACHE_NAME.fullmatch(entry.name) or _TEMP_NAME.fullmatch(entry.name):
        return True
    return entry.name == ".gitignore" and _read_below(directory_fd, entry.name, len(GITIGNORE)) == GITIGNORE


def _ours(entry: os.DirEntry[str], directory: Directory) -> bool:
    """Whether `entry` (of `directory`) is a file the cache wrote: a cache file (its name
    and first bytes), a temporary file of one, or the `.gitignore` it made. A directory
    named by `FIXTURE_MIGRATE_CACHE_DIR` may hold other files of the same names: they are
    not ours."""
    if not entry.is_file(follow_symlinks=False):
        return False
    if _TEMP_NAME.fullmatch(entry.name):
        return True
    if entry.name == ".gitignore":
        expected = GITIGNORE
    elif _CACHE_NAME.fullmatch(entry.name):
        expected = RECORD_MAGIC_PREFIX if entry.name.endswith(".run") else MAGIC_PREFIX
    else:
        return False
    try:
        found = read_head(Path(directory.path, entry.name), len(GITIGNORE) + 1, root=directory.root)
    except FixtureError:
        return False
    return found == expected if expected is GITIGNORE else found.startswith(expected)


def clean(repo_root: Path) -> Path | None:
    """Remove the cache directory of `repo_root` (see `cache_dir`); returns it, or None
    when there was none. Only the cache's own files are removed (`_ours`): a directory
    holding anything else is left in place with those files. The directory is opened
    under the root rule (`open_directory`; a directory named by `FIXTURE_MIGRATE_CACHE_DIR`
    outside the root is the user's choice) and its files removed relative to it, so a
    directory swapped for a symlink meanwhile is refused, never emptied; a directory
    reached through a symlink is never the cache's (`usable`), so nothing is removed."""
    directory = cache_dir(repo_root)
    if not directory.is_dir() or directory.is_symlink() or _symlinked(directory, repo_root):
        return None
    root = _write_root(directory, repo_root)
    try:
        opened = open_directory(resolve_target(directory, root), root)
    except FixtureError:
        return None
    with opened:
        for entry in os.scandir(opened.fd):
            if _ours(entry, opened):
                os.unlink(entry.name, dir_fd=opened.fd)
    try:
        directory.rmdir()
    except OSError:
        pass
    return directory
