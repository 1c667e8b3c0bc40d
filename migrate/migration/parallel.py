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
    import signal

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
    _die_with_parent(parent)
    initializer(*initargs)


def ordered_map(
    function: Callable[[T], R],
    items: Iterable[T],
    *,
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
) -> Iterator[R]:
    """`function` over `items`, results in input order, on up to `jobs` processes (never
    more than `default_jobs()`).

    `items` are consumed as the work goes (a bounded number in flight), so a long walk
    is never held in memory at once. `initializer(*initargs)` prepares each process
    (the main one too, when the run stays in-process). `function`, `items` and results
    must pickle.
    """
    # The work is CPU-bound: more processes than CPUs only cost memory and start-up (and a
    # repository's configuration must not be able to fork thousands).
    jobs = max(1, min(jobs, default_jobs()))
    source = iter(items)
    # Look ahead far enough to know whether several processes are worth starting.
    head = list(itertools.islice(source, MIN_FILES_PER_JOB * max(jobs, 1)))
    if jobs <= 1 or len(head) < MIN_FILES_PER_JOB * 2:
        initializer(*initargs)
        yield from map(function, itertools.chain(head, source))
        return
    # Imported here: a run that stays in one process never pays for them at start-up.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunks = _chunks(itertools.chain(head, source), CHUNK)
    start_args = (os.getpid(), initializer, initargs)
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start, initargs=start_args) as pool:
        pending: collections.deque[Any] = collections.deque()
        for chunk in itertools.islice(chunks, jobs * AHEAD):
            pending.append(pool.submit(_run_chunk, function, chunk))
        while pending:
            done = pending.popleft().result()
            chunk = next(chunks, None)
            if chunk is not None:
                pending.append(pool.submit(_run_chunk, function, chunk))
            yield from done


CHUNK = 16
"""Items sent to a worker at a time: fewer round trips, still an even spread."""

AHEAD = 4
"""Chunks in flight per worker: enough to keep every worker busy, few enough to bound memory."""


def _chunks(items: Iterator[T], size: int) -> Iterator[list[T]]:
    while chunk := list(itertools.islice(items, size)):
        yield chunk


def _run_chunk(function: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [function(item) for item in chunk]
