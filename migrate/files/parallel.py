"""Ordered parallel map over files, for `--jobs`.

Planning a file (parse, map, render, check, diff) is independent of every other
file, so a run spreads it over worker processes and consumes the results in
input order: the output of `--jobs N` is byte-identical to `--jobs 1`. Writes,
printing and the report stay in the main process. Small runs stay in-process,
where a pool's start-up would cost more than it saves.
"""

from __future__ import annotations

import collections
import itertools
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_FILES_PER_JOB = 32
"""Below this many files per worker, a run stays in one process."""


def default_jobs() -> int:
    """The number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _die_with_parent(parent: int) -> None:
    """Make this worker end when the process that started it ends, however it ends.

    A pool's workers wait on a pipe their siblings also hold open, so a parent killed
    with SIGKILL would leave them waiting forever. On Linux the kernel is asked to send
    SIGKILL on the parent's death; elsewhere a daemon thread polls for it.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:  # the parent died before the request took effect
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _start(parent: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    from fixture_migrate.files.root import keep_directories

    # Ctrl-C reaches every process of the terminal's group. Only the parent acts on it: it
    # stops handing out work and shuts the pool down. A worker interrupted in the middle of
    # taking a task or handing back a result would leave the pool's queue locked, and the
    # parent waiting for it at shutdown for ever. SIGTERM still ends a worker (a CI runner's
    # cancel sends it to the group: the parent stops too, without waiting for the pool).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Held by the parent while it started this process (`_HELD`), so that none came
    # before the lines above: now ignored, or ending the worker.
    _hold(signal.SIG_UNBLOCK, _HELD)
    _die_with_parent(parent)
    # A worker reads files directory after directory, and holds none of the walk's open
    # directories: it keeps the last few it opened under the root rule (closed when it ends).
    keep_directories()
    initializer(*initargs)


pools_started = 0
"""How many times this process started worker processes (`ordered_map`): what a worker
prints reaches the output without passing through this process, so a run that started
none is the one whose output the process saw whole (`fixture_migrate.cli.recording`)."""


class Done:
    """An item whose result is known already (a cached verdict): `ordered_map` yields its
    `value` in its place, without sending it to a worker."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def ordered_map(
    function: Callable[[T], R],
    items: Iterable[T | Done],
    *,
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
) -> Iterator[R]:
    """`function` over `items`, results in input order, on up to `jobs` processes (never
    more than `default_jobs()`). An item wrapped in `Done` is its own result.

    `items` are consumed as the work goes (a bounded number in flight), so a long walk
    is never held in memory at once. `initializer(*initargs)` prepares each process
    (the main one too, when the run stays in-process). `function`, `items` and results
    must pickle.
    """
    # The work is CPU-bound: more processes than CPUs only cost memory and start-up (and a
    # repository's configuration must not be able to fork thousands).
    jobs = max(1, min(jobs, default_jobs()))
    source = iter(items)
    # Look ahead far enough to know whether several processes are worth starting: enough
    # items to work on, among at most LOOKAHEAD (the rest may be results known already).
    head: list[Any] = []
    work = 0
    if jobs > 1:
        for item in source:
            head.append(item)
            if type(item) is not Done:
                work += 1
                if work >= MIN_FILES_PER_JOB * jobs:
                    break
            if len(head) >= LOOKAHEAD:
                break
    if jobs <= 1 or work < MIN_FILES_PER_JOB * 2:
        initializer(*initargs)
        for item in itertools.chain(head, source):
            yield item.value if type(item) is Done else function(item)  # type: ignore[union-attr,arg-type]
        return
    # Imported here: a run that stays in one process never pays for them at start-up.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    segments = _segments(itertools.chain(head, source), CHUNK, grow_after=jobs * AHEAD)
    start_args = (os.getpid(), initializer, initargs)
    global pools_started
    pools_started += 1
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start, initargs=start_args)
    try:
        pending: collections.deque[Any] = collections.deque()
        in_flight = 0

        def top_up() -> None:
            nonlocal in_flight
            while in_flight < jobs * AHEAD and len(pending) < jobs * AHEAD * 4:
                segment = next(segments, None)
                if segment is None:
                    return
                ready, chunk = segment
                if ready:
                    pending.append(chunk)
                    continue
                # A submit may start the workers: they are forked with these signals held.
                held = _hold(signal.SIG_BLOCK, _HELD)
                try:
                    pending.append(pool.submit(_run_chunk, function, chunk))
                finally:
                    _hold(signal.SIG_SETMASK, held)
                in_flight += 1

        top_up()
        while pending:
            first = pending.popleft()
            if isinstance(first, list):
                values = first
            else:
                values = first.result()
                in_flight -= 1
            top_up()
            yield from values
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)


def _stop(pool: Any) -> None:
    """End `pool` without waiting, for a run that stops early (interrupted, or its consumer
    gone): no task not yet started is run, and each worker ends after its current chunk
    (they only plan; every write is the parent's). Waiting could be for ever: a worker
    killed by the same signal halfway through handing back a result leaves the pool's
    reader waiting for the rest of it. (The console script then ends at once, and its
    workers with it; a worker is never killed here, which would leave that reader waiting
    at a library caller's exit.)"""
    pool.shutdown(wait=False, cancel_futures=True)


_HELD = {signal.SIGINT, signal.SIGTERM}
"""Held while workers are forked (where threads can hold signals: `_hold`)."""


def _hold(how: int, signals: Any) -> Any:
    """`signal.pthread_sigmask`, where the platform has it (else nothing is held)."""
    mask = getattr(signal, "pthread_sigmask", None)
    return mask(how, signals) if mask is not None else set()


LOOKAHEAD = 1024
"""Items looked at, at most, before deciding whether to start worker processes."""

CHUNK = 16
"""Items sent to a worker at a time at first: a short run still spreads evenly."""

LARGE_CHUNK = 64
"""Items sent to a worker at a time once every worker has work: each round trip (pickling
the call and its results, waking the pool's threads and the worker) costs the parent
and the worker CPU time of their own, which on a machine with as many workers as cores
is taken from the planning itself. 16 items at a time cost a 10,000-file run about 0.15 s
of CPU more than 64 do; larger chunks gain little more and leave a longer tail."""

AHEAD = 4
"""Chunks in flight per worker: enough to keep every worker busy, few enough to bound memory."""


def _segments(items: Iterator[Any], size: int, *, grow_after: int | None = None) -> Iterator[tuple[bool, list[Any]]]:
    """`(True, results)` for runs of `Done` items, `(False, chunk)` for chunks of at most
    `size` items to work on; in order, each list at most `size` (results: `size * 8`) long.
    With `grow_after`, chunks after the first `grow_after` hold up to `LARGE_CHUNK` items."""
    chunk: list[Any] = []
    ready: list[Any] = []
    chunks = 0
    for item in items:
        if grow_after is not None and chunks >= grow_after:
            size, grow_after = max(size, LARGE_CHUNK), None
        if type(item) is Done:
            if chunk:
                yield False, chunk
                chunk = []
            ready.append(item.value)
            if len(ready) >= size * 8:
                yield True, ready
                ready = []
        else:
            if ready:
                yield True, ready
                ready = []
            chunk.append(item)
            if len(chunk) >= size:
                yield False, chunk
                chunk = []
                chunks += 1
    if ready:
        yield True, ready
    if chunk:
        yield False, chunk


def _run_chunk(function: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [function(item) for item in chunk]
