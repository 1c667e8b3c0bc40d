"""The command line's side of a run's record (`fixture_migrate.migration.replay`): what
`migrate --check` printed is recorded as it is printed, and a re-run over unchanged inputs
prints it again.

`start` says whether a run qualifies (`--check` without `--diff`, the cache on, neither
stdout nor stderr a terminal, more than one file) and tries the record before anything
is planned; a `Recorder`, entered around the run, puts recording streams in place of
`sys.stdout` and `sys.stderr` (every writer of the run, the `github` format's wrappers
and the byte writer of the JSON formats included, goes through them), and `save`
writes the record once the run is over, when the run qualified to the end.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from fixture_migrate.cli.output import GithubStream
from fixture_migrate.files import parallel


def _terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return True


def start(
    values: dict[str, Any],
    paths: Iterable[Path],
    options: Any,
    files: Iterable[tuple[Path, Any]],
    *,
    check: bool,
    diff: bool,
    use_cache: bool,
) -> tuple[int | None, Recorder | None]:
    """Before a `migrate` run with the merged option `values`, the `paths` named and
    `options`, whose files are `files` (the walk, `(path, error)`): `(exit code, None)` when
    the record that goes with the run's cache is of this invocation and its inputs are still
    `files`' (`replay.same_inputs`), its output printed again; else `(None, recorder)`, the
    `Recorder` to run with (None for a run that is never recorded: see
    `fixture_migrate.migration.replay`), having printed nothing."""
    if not check or diff or not use_cache or _terminal(sys.stdout) or _terminal(sys.stderr):
        return None, None
    paths = list(paths)
    if len(paths) < 2 and not any(path.is_dir() for path in paths):
        return None, None  # one file at most: a run over one file keeps no cache (`MigrationRun.over`)
    files = iter(files)
    head = list(itertools.islice(files, 2))
    if len(head) < 2:
        return None, None  # a run over one file keeps no cache (`MigrationRun.over`), so no record
    from fixture_migrate.migration import replay
    from fixture_migrate.migration.cache import Cache

    recorder = Recorder(replay.invocation(values, paths, (_beneath(sys.stdout), _beneath(sys.stderr))))
    record = replay.RunRecord.load(Cache.read_record(options))
    if record is None or record.invocation != recorder.invocation:
        return None, recorder
    root = Path(options.repo_root)
    if not replay.same_inputs(record, itertools.chain(head, files), root):
        return None, recorder
    stdout, stderr = _beneath(sys.stdout), _beneath(sys.stderr)
    for kind, text in record.output:
        if kind == replay.STDOUT_BYTES:
            stdout.flush()
            stdout.buffer.write(text.encode("utf-8"))
        else:
            (stdout if kind == replay.STDOUT else stderr).write(text)
    stdout.flush()
    stderr.flush()
    return record.exit_code, None


def _beneath(stream: Any) -> Any:
    """The stream beneath the `github` format's filter, if one is on `stream`."""
    return stream.stream if isinstance(stream, GithubStream) else stream


class _Recorded:
    """A text stream that writes through to `stream` and notes each write with the
    recorder as `kind`; its `buffer` does the same for bytes, which it notes decoded as
    `bytes_kind` (bytes that are not UTF-8, bytes where no `bytes_kind` is given, or text
    past `replay.MAX_OUTPUT_CHARS` in all make the run one that is not recorded)."""

    def __init__(self, stream: TextIO, kind: int, recorder: Recorder, bytes_kind: int | None = None) -> None:
        self._stream = stream
        self._kind = kind
        self._recorder = recorder
        if getattr(stream, "buffer", None) is not None:
            self.buffer = _RecordedBytes(stream.buffer, recorder, bytes_kind)

    def write(self, text: str) -> int:
        self._recorder.note(self._kind, text)
        return self._stream.write(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _RecordedBytes:
    """The binary buffer of a `_Recorded` stream (see there)."""

    def __init__(self, buffer: Any, recorder: Recorder, kind: int | None) -> None:
        self._buffer = buffer
        self._recorder = recorder
        self._kind = kind

    def write(self, data: bytes) -> int:
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None or self._kind is None:
            self._recorder.events = None
        else:
            self._recorder.note(self._kind, text)
        return self._buffer.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._buffer, name)


class Recorder:
    """Records what a run prints while entered (`with recorder:`), and its inputs
    (`take`); `save(exit_code)` writes the record. `invocation` is the run's
    `replay.invocation` digest; `events` the output so far (per stretch of one kind, its
    pieces), None once it cannot be kept."""

    def __init__(self, invocation: bytes) -> None:
        from fixture_migrate.migration import replay

        self._replay = replay
        self._most = replay.MAX_OUTPUT_CHARS
        self.invocation = invocation
        self.events: list[list[Any]] | None = []
        self._chars = 0
        self._hooked: list[tuple[Any, str, Any]] = []
        self._pools = 0
        self._taken: tuple[Any, bytes, bytes, bytes | None] | None = None

    def note(self, kind: int, text: str) -> None:
        events = self.events
        if events is None or not text:
            return
        self._chars += len(text)
        if self._chars > self._most:
            self.events = None
        elif events and events[-1][0] == kind:
            events[-1][1].append(text)  # joined once, in `output` (`+=` would copy it all each time)
        else:
            events.append([kind, [text]])

    def output(self) -> list[list[Any]]:
        """The output so far as `replay.RunRecord` keeps it: `[kind, text]`, in order."""
        return [[kind, "".join(texts)] for kind, texts in self.events or ()]

    def __enter__(self) -> Recorder:
        # Beneath the `github` format's filter when the command line put one on the stream
        # (`cli.app.main`): what is recorded is what reached the stream, and a replay writes
        # it there (`start`), not through the filter again.
        replay = self._replay
        self._pools = parallel.pools_started
        self._hooked = []
        for name, kind, bytes_kind in (("stdout", replay.STDOUT, replay.STDOUT_BYTES), ("stderr", replay.STDERR, None)):
            current = getattr(sys, name)
            if isinstance(current, GithubStream):
                self._hooked.append((current, "stream", current.stream))
                current.stream = _Recorded(current.stream, kind, self, bytes_kind)
            else:
                self._hooked.append((sys, name, current))
                setattr(sys, name, _Recorded(current, kind, self, bytes_kind))
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            sys.stdout.flush()  # a line a filter still holds is part of the run's output
            sys.stderr.flush()
        finally:
            for owner, name, stream in reversed(self._hooked):
                setattr(owner, name, stream)
        if kind is not None:
            self.events = None  # a run that did not end as runs end is never replayed
        if parallel.pools_started != self._pools:
            # What a worker process printed (a plugin's warning, say) went straight to the
            # stream: this process never saw it. A later run that plans nothing starts none.
            self.events = None

    def take(self, run: Any) -> None:
        """Take the inputs of the `MigrationRun` `run`, now over (`record_inputs`)."""
        inputs = run.record_inputs()
        self._taken = None if inputs is None else (run.engine.cache, *inputs)

    def save(self, exit_code: int) -> bool:
        """Write the record of the run (best effort); False when it was not written."""
        if self._taken is None or self.events is None:
            return False
        cache, entries, paths, pins = self._taken
        try:
            data = self._replay.RunRecord(self.invocation, entries, paths, pins, self.output(), exit_code).dump()
        except TypeError:  # text orjson cannot write (a lone surrogate)
            return False
        return cache.write_record(data)
