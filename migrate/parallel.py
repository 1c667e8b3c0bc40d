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
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=initializer, initargs=initargs) as pool:
        yield from pool.map(function, items, chunksize=chunksize)
