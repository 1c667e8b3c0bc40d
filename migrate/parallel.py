"""Ordered parallel map over files, for `--jobs`.

Planning a file (parse, map, render, check, diff) is independent of every other
file, so a run spreads it over worker processes and consumes the results in
input order: the output of `--jobs N` is byte-identical to `--jobs 1`. Writes,
printing and the report stay in the main process. Small runs stay in-process,
where a pool's start-up would cost more than it saves.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
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
    items: Sequence[T],
    *,
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
) -> Iterator[R]:
    """`function` over `items`, results in input order, on up to `jobs` processes.

    `initializer(*initargs)` prepares each process (the main one too, when the run
    stays in-process). `function`, `items` and results must pickle.
    """
    jobs = min(jobs, len(items) // MIN_FILES_PER_JOB)
    if jobs <= 1:
        initializer(*initargs)
        yield from map(function, items)
        return
    # Imported here: a run that stays in one process never pays for them at start-up.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunksize = max(1, min(64, len(items) // (jobs * 8)))
    start_args = (os.getpid(), initializer, initargs)
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start, initargs=start_args) as pool:
        yield from pool.map(function, items, chunksize=chunksize)
