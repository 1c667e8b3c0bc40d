"""The `migrate` run: files in, each file's `Outcome` and the run's summary out.

One run loop for every client: the command line (`fixture_migrate.cli.commands.run_migrate`,
which only prints what the run gives it) and the public API (`fixture_migrate.migrate_file`,
one file through the same `MigrationRun.settle`). Per file, in file order:

1. the file is planned (`Engine.plan`), on up to `jobs` processes
   (`fixture_migrate.files.parallel.ordered_map`), unless the cache holds its verdict
   (`fixture_migrate.migration.cache`: decided in the main process, so a cached file never
   travels to a worker);
2. the cache learns the verdict;
3. the skip rule: a walked file no parser can read is `SKIPPED`, with its reason, unless it
   lies where fixtures live or was named (`fixture_migrate.migration.unreadable`);
4. a planned change to a file the repository pins by digest or size is left undone
   (`PINNED`) unless the mode includes pinned files: the client gives the run the index
   of pinned files (`fixture_migrate.consumers.pins.PinIndex`), so this pipeline imports
   nothing of `consumers/`, which builds on it;
5. the change is written when the mode writes (`Engine.apply`); a write that fails makes
   the file's outcome `ERROR`;
6. the run counts the outcome, and groups the files it leaves unmigrated
   (`fixture_migrate.migration.groups`) for the summary.

The outcome of a file is a `Status` (`fixture_migrate.migration.status`) and nothing else.
"""

from __future__ import annotations

import collections
import itertools
import os
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.diff import render_file_diff
from fixture_migrate.files.parallel import Done, ordered_map
from fixture_migrate.files.paths import diff_name, relative_source
from fixture_migrate.files.root import last_beneath
from fixture_migrate.migration.engine import Engine, FileResult, Options, fingerprint
from fixture_migrate.migration.groups import NotMigrated
from fixture_migrate.migration.status import Status
from fixture_migrate.slots import Record

if TYPE_CHECKING:
    from fixture_migrate.migration.cache import Cache

Files = Iterable[tuple[Path, FixtureError | None]]
"""The files of a run: `(path, error)` pairs as `fixture_migrate.config.iter_selected` yields them
(`error` set for a path the walk could not take)."""


class MigrateMode(Record):
    """How `migrate` treats a planned change: `write` it, print its `diff`, and/or `check`
    (exit 1 when anything would change). `--diff` and `--check` never write;
    `include_pinned` migrates the files the repository pins too."""

    __slots__ = ("diff", "check", "include_pinned")
    __hash__ = Record.value_hash

    def __init__(self, diff: bool = False, check: bool = False, include_pinned: bool = False) -> None:
        self.diff = diff
        self.check = check
        self.include_pinned = include_pinned

    @property
    def write(self) -> bool:
        return not (self.diff or self.check)


class Outcome(Record):
    """One file's end in a run.

    `result` is the engine's `FileResult` as planned (the skip rule makes an unreadable
    walked file's `ERROR` a `SKIPPED` there); `status` the file's `Status` at the end of
    the run: `result.status`, but `PINNED` for a change a pin keeps and `ERROR` for a
    change whose write failed; `error` the error of an `ERROR` (the plan's or the write's),
    else None; `diff` the change's unified diff when the mode shows diffs, else "";
    `pinned_by` the file that pins a `PINNED` one.
    """

    __slots__ = ("result", "status", "error", "diff", "pinned_by")

    def __init__(
        self,
        result: FileResult,
        status: Status,
        error: FixtureError | None = None,
        diff: str = "",
        pinned_by: str | None = None,
    ) -> None:
        self.result = result
        self.status = status
        self.error = error
        self.diff = diff
        self.pinned_by = pinned_by


_WORKER: tuple[Engine, MigrateMode, int] | None = None
"""The engine that plans a run's files in this process, its mode, and the run's number."""

_RUNS = itertools.count(1)

PIN_WAIT = 10_000
"""At most this many outcomes wait, in a run that writes nothing, for the index of pinned files
to be built from the run's own reads (`MigrationRun.outcomes`)."""

PIN_WAIT_SECONDS = 2.0
"""And for at most this long (seconds of wall time since the first waited): the output of
such a run is never further behind its walk."""


def _start_worker(options: Options, mode: MigrateMode, cache: Cache | None = None, run: int = 0) -> None:
    global _WORKER
    engine = Engine(options, cache=cache, reuse_changes=not (mode.write or mode.diff), keep_moves=False)
    _WORKER = (engine, mode, run)


def _plan_one(item: tuple[Path, FixtureError | None]) -> tuple[FileResult, str]:
    """Plan one file (in a worker process when the run has several): its result, and its
    diff when the mode shows diffs. Only what the main process needs travels back: the
    file's bytes only when writing."""
    path, error = item
    if error is not None:
        return FileResult(path, Status.ERROR, error=error), ""
    assert _WORKER is not None
    engine, mode, _ = _WORKER
    result = engine.plan(path)
    diff = ""
    if result.status is Status.CHANGED and mode.diff:
        assert result.old_bytes is not None and result.new_bytes is not None
        root = engine.options.repo_root
        new_name = None if result.new_path is None else diff_name(result.new_path, root)
        diff = render_file_diff(
            result.old_bytes, result.new_bytes, diff_name(result.path, root), new_name, result.encoding
        )
    if result.status is Status.CHANGED and result.old_bytes is not None:
        result.fingerprint = fingerprint(result.old_bytes)
    if not mode.write:
        result.old_bytes = result.new_bytes = None
    return result, diff


def _staged(engine: Engine, files: Files) -> Iterator[Any]:
    """`files`, each as `Done` with its result when the cache has its verdict (decided here,
    in the main process: a file a cached verdict covers never travels to a worker)."""
    for item in files:
        if item[1] is None and engine.cache is not None:
            found = engine.cached(item[0])
            if found is not None:
                yield Done((found, ""))
                continue
        yield item


def scope_of(paths: Iterable[Path], root: Path) -> list[str]:
    """Where a run over the named `paths` (files and folders, as given) may find files, as
    `Entries.holds` takes it: each path's POSIX path from the repo `root`, a folder's ending
    with `/` (`""` for the root itself); a path outside the root is left out. It decides
    only when the pin index is built (`MigrationRun._pins_first`): a scope too wide or too
    narrow costs time, never an answer."""
    found = []
    for path in paths:
        relative = relative_source(Path(path), root)
        if relative == "." or relative == "":
            found.append("")
        elif relative != ".." and not relative.startswith("../"):
            found.append(relative + "/" if os.path.isdir(path) else relative)
    return found


class MigrationRun:
    """A `migrate` run with `engine`, treating planned changes as `mode` says; `named` the
    paths named on the command line (never skipped when unreadable); `pins` makes the
    index of the repository's pinned files from its root (an object whose
    `pinned_by(path, fingerprint)` names the place that pins a file, or gives None, and
    which may offer `build(on_read=..., on_nothing=...)`, as `PinIndex` does), built at the
    run's first change, or before the files are planned when the cache can take its reads
    (`_pins_first`); None checks no pin. `scope` is where the run's files lie (`scope_of`),
    None when not known.

    `outcomes()` plans the run's files and settles each (`settle`); `summary()` is the
    end-of-run document; `save()` writes what the cache learnt. `counts` holds the files
    per `Status` at the end of the run, `left` the groups of files left unmigrated.
    `inputs`, when set (`fixture_migrate.migration.replay.Inputs`), takes each outcome as
    it is settled, for the run's record (`record_inputs`).
    """

    def __init__(
        self,
        engine: Engine,
        mode: MigrateMode,
        *,
        named: Collection[Path] = (),
        pins: Callable[[Path], Any] | None = None,
        scope: list[str] | None = None,
    ) -> None:
        self.engine = engine
        self.mode = mode
        self.named = named
        self.pins = pins
        self.scope = scope
        self.files: Files = ()
        self.counts: Counter[Status] = Counter()
        self.cases = 0
        self.moved: Counter[str] = Counter()
        self.other_tools: Counter[str] = Counter()
        self.left = NotMigrated()
        self.inputs: Any = None
        self._pins: Any = None  # the index of pinned files: `_pins_first`, or at the first change (`_pinned_by`)
        self._number = next(_RUNS)  # tells this run's engine in this process (`_WORKER`)
        self._may_wait = False  # whether a change's pin verdict may wait for the index (`outcomes`)
        self._waiting: list[Outcome] | None = None  # the changes waiting for it, in file order

    @classmethod
    def over(
        cls,
        files: Files,
        options: Options,
        mode: MigrateMode,
        *,
        named: Collection[Path] = (),
        pins: Callable[[Path], Any] | None = None,
        use_cache: bool = False,
        scope: list[str] | None = None,
    ) -> MigrationRun:
        """A run over `files` with `options`. With `use_cache`, files a cached verdict says
        need nothing are not planned again; a run over a single file keeps no cache (it
        would only add its upkeep). `files` stays a list when it is one. `scope` is where
        the files lie (`scope_of`), when known."""
        if use_cache:
            head = list(itertools.islice(files, 2))
            files = itertools.chain(head, files) if not isinstance(files, list) else files
            use_cache = len(head) > 1
        cache = None
        if use_cache:
            from fixture_migrate.migration.cache import Cache

            cache = Cache.open(options)
        engine = Engine(options, cache=cache, reuse_changes=not (mode.write or mode.diff), keep_moves=False)
        run = cls(engine, mode, named=named, pins=pins, scope=scope)
        run.files = files
        return run

    def outcomes(
        self, *, jobs: int = 1, track: Callable[[Iterator[Any]], Iterable[Any]] | None = None
    ) -> Iterator[Outcome]:
        """Plan the run's files on up to `jobs` processes and settle each, in file order (any
        `jobs` gives the same outcomes). `track` wraps the plans as they come (a progress bar).

        In a run that writes nothing and shows no diffs, whose files are planned in this
        process, the pin verdict of a change waits for the index of pinned files, which is
        built once the walk ends from the bytes the run reads itself (`PinIndex.feed`) and
        the other tracked files: each file is read once, not once more for the index. The
        outcomes from the first such change on are held meanwhile (at most `PIN_WAIT` of them,
        for at most `PIN_WAIT_SECONDS`: then the index is built at once, reading the files
        the walk has not reached), and given in file order; the same outcomes as when the
        index is built at the first change. (A run interrupted meanwhile has not printed
        the outcomes held.)"""
        self._pins_first()
        mode = self.mode
        self._may_wait = (
            self._pins is None and self.pins is not None and not (mode.include_pinned or mode.write or mode.diff)
        )
        plans: Iterable[Any] = ordered_map(
            _plan_one,
            _staged(self.engine, self.files),
            jobs=jobs,
            initializer=_start_worker,
            initargs=(self.engine.options, self.mode, self.engine.cache, self._number),
        )
        if track is not None:
            plans = track(plans)
        held: collections.deque[Outcome] = collections.deque()
        since = 0.0
        try:
            for result, diff in plans:
                outcome = self.settle(result, diff)
                if self._waiting is None:
                    yield outcome
                    continue
                if not held:
                    since = time.monotonic()
                held.append(outcome)
                if len(held) >= PIN_WAIT or time.monotonic() - since >= PIN_WAIT_SECONDS:
                    self._release()
                    while held:
                        yield held.popleft()
            if self._waiting is not None:
                self._release()
            while held:
                yield held.popleft()
        finally:
            self._stop_feeding()

    def _pins_first(self) -> None:
        """In a run whose cache holds a "would change" it may take (`--check`) for a file in
        the run's `scope`, the index of pinned files will be needed (unless that file
        changed since): it is built before the files are planned, and its
        read of each tracked file spares the cache a second read of it (`Engine.note_read`);
        the cache tells it the files whose bytes it knows to pin nothing, which it then
        does not scan, and learns those it finds so (`Engine.note_pins_nothing`).
        Elsewhere it is built at the run's first change, if any."""
        engine, cache = self.engine, self.engine.cache
        if cache is None or self.pins is None or self.mode.include_pinned or not engine.reuse_changes:
            return
        if self._pins is not None or self.scope is None or not cache.entries.holds(Status.CHANGED, self.scope):
            return
        index = self._new_pins()
        build = getattr(index, "build", None)
        if build is not None:
            build(on_read=engine.note_read, on_nothing=engine.note_pins_nothing)
        self._pins = index

    def settle(self, result: FileResult, diff: str = "") -> Outcome:
        """What becomes of the planned file `result` (`diff` its diff when shown): the cache
        learns its verdict, the skip rule, the pin check, the write; counted."""
        cache = self.engine.cache
        if cache is not None and result.cache_entry is not None:
            relative, digest = result.cache_entry
            cache.put(relative, digest, result)
        if self.inputs is not None:
            self.inputs.add(result)
        status = result.status
        outcome = Outcome(result, status, error=result.error, diff=diff)
        if status is Status.ERROR:
            self._skip(result)
            outcome.status, outcome.error = result.status, result.error
        elif status is Status.OTHER_TOOL:
            assert result.import_from is not None
            self.other_tools[result.import_from] += 1
            self.left.add(result, result.path.as_posix())
        elif status is Status.UNCLAIMED:
            self.left.add(result, result.path.as_posix())
        elif status is Status.CHANGED and self._waits(outcome):
            return outcome  # counted once its pin verdict is known (`_release`)
        elif status is Status.CHANGED:
            self._change(outcome)
        self.counts[outcome.status] += 1
        return outcome

    def _skip(self, result: FileResult) -> None:
        """A walked file that cannot be read becomes `SKIPPED` (with its reason) unless it
        lies where fixtures live or was named (`fixture_migrate.migration.unreadable`)."""
        from fixture_migrate.migration.unreadable import skip_reason

        assert result.error is not None
        options = self.engine.options
        named = result.path in self.named
        reason = skip_reason(result.path, result.error, named=named, repo_root=options.repo_root, options=options)
        if reason is not None:
            result.status, result.reason, result.error = Status.SKIPPED, reason, None

    def _change(self, outcome: Outcome) -> None:
        """Leave a pinned change undone, else write the change when the mode writes."""
        result = outcome.result
        place = None if self.mode.include_pinned else self._pinned_by(result)
        if place is not None:
            outcome.status, outcome.pinned_by = Status.PINNED, place
            return
        if self.mode.write:
            try:
                self.engine.apply(result)
            except FixtureError as error:
                outcome.status, outcome.error = Status.ERROR, error
                return
        self.cases += result.cases
        self.moved.update(result.to_extensions)

    def _waits(self, outcome: Outcome) -> bool:
        """Whether the pin verdict of the planned change `outcome` waits for the index of
        pinned files (see `outcomes`); the first change that waits starts feeding the index
        with the bytes the run's engine reads."""
        if self._waiting is not None:
            self._waiting.append(outcome)
            return True
        if not self._may_wait or outcome.result.fingerprint is None or self._pins is not None:
            return False
        worker = _WORKER
        if worker is None or worker[2] != self._number:
            return False  # planned in other processes: their reads cannot feed the index
        index = self._new_pins()
        self._pins = index
        if not (hasattr(index, "feed") and hasattr(index, "build")):
            return False
        worker[0].on_read = self._feed
        self._waiting = [outcome]
        return True

    def _feed(self, raw: bytes) -> None:
        """The engine's `on_read` while changes wait: the bytes of a file it just read, given to
        the index when read along their own path below the root (`root.last_beneath`)."""
        relative = last_beneath()
        if relative is not None:
            self._pins.feed(relative, raw)

    def _stop_feeding(self) -> None:
        worker = _WORKER
        if worker is not None and worker[2] == self._number:
            worker[0].on_read = None

    def _release(self) -> None:
        """Build the index of pinned files now, and settle the changes that waited for it."""
        self._stop_feeding()
        waiting, self._waiting = self._waiting or [], None
        self._pins.build()
        for outcome in waiting:
            self._change(outcome)
            self.counts[outcome.status] += 1

    def _pinned_by(self, result: FileResult) -> str | None:
        """Where the repository pins the file of a planned change, or None; the index is
        built on the first call of a run."""
        if result.fingerprint is None or self.pins is None:
            return None
        if self._pins is None:
            self._pins = self._new_pins()
        return self._pins.pinned_by(result.path, result.fingerprint)

    def _new_pins(self) -> Any:
        """The index of pinned files (not built yet), keeping what it reads for the run's
        record when the run makes one (`inputs`)."""
        assert self.pins is not None
        index = self.pins(self.engine.options.repo_root)
        if self.inputs is not None and hasattr(index, "keep_inputs"):
            index.keep_inputs = True
        return index

    def summary(self) -> dict[str, Any]:
        """The end-of-run document (`--output-format json`'s `summary`): files scanned, per
        outcome, cases migrated, fields moved under `extensions` per adapter, whether the run
        wrote, and the files left unmigrated in groups."""
        counts = self.counts
        summary = {
            "files_scanned": sum(counts.values()),
            "migrated": counts[Status.CHANGED],
            "cases_migrated": self.cases,
            "unchanged": counts[Status.UNCHANGED],
            "not_fixtures": counts[Status.NOT_FIXTURE],
            "other_tools": dict(sorted(self.other_tools.items())),
            "unclaimed": counts[Status.UNCLAIMED],
            "skipped": counts[Status.SKIPPED],
            "errors": counts[Status.ERROR],
            "moved_to_extensions": dict(sorted(self.moved.items())),
            "written": self.mode.write,
            "families_not_migrated": self.left.families,
            "not_migrated": self.left.records(),
        }
        if counts[Status.PINNED]:
            summary["pinned"] = counts[Status.PINNED]
        return summary

    def record_inputs(self) -> tuple[bytes, bytes, bytes | None] | None:
        """The inputs of this run for its record (`fixture_migrate.migration.replay`): the
        digests of its files' bytes, the digest of their paths, and the inputs of the index
        of pinned files it built (None when it built none); or None when the run cannot be
        recorded (no cache, no `inputs`, an outcome that is not a cached verdict, an index
        that keeps no inputs)."""
        if self.engine.cache is None or self.inputs is None or self.inputs.entries is None:
            return None
        pins = None
        if self._pins is not None:
            pins = getattr(self._pins, "inputs", None)
            if pins is None:
                return None
        return bytes(self.inputs.entries), self.inputs.paths(), pins

    def save(self) -> None:
        """Write what the cache learnt in this run (best effort), when the run keeps one."""
        if self.engine.cache is not None:
            self.engine.cache.save()
