"""The steps of a write: named points a test can pause at, and the signals held between them.

Tests pause a write at a named step with `set_step_hook` (see `STEPS`), to make a
concurrent edit, a swap or a kill happen exactly there. SIGINT and SIGTERM are held during every write and move (`_Deferred`,
`_uninterrupted`), so each is finished or undone before the process stops.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


STEPS = ("opened", "temp_written", "before_swap", "after_swap", "before_unlink", "after_unlink")
"""The steps `set_step_hook` reports: the target was opened and checked; the temporary
file is written; just before the last check and the swap (exchange or rename); right
after the swap; (moves) just before the last check and the removal of the source; right
after it."""


_STEP_HOOK: Callable[[str, str], None] | None = None


def set_step_hook(hook: Callable[[str, str], None] | None) -> Callable[[str, str], None] | None:
    """Call `hook(step, path)` at each step of `STEPS` of every write and move (None: no hook);
    returns the hook it replaces. For tests: a hook may edit, swap or remove files, or end
    the process, exactly at the dangerous step."""
    global _STEP_HOOK
    previous, _STEP_HOOK = _STEP_HOOK, hook
    return previous


class _Deferred:
    """While a write is between two of its steps, SIGINT and SIGTERM are held (in the main
    thread, where Python runs handlers) and delivered right after it, so a move or a swap is
    finished or undone whole before the process stops. Nested uses hold them once."""

    depth = 0
    held: list[int] = []
    previous: dict[int, object] = {}

    def __enter__(self) -> None:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        cls = _Deferred
        cls.depth += 1
        if cls.depth == 1:
            cls.held = []
            for signum in (signal.SIGINT, signal.SIGTERM):
                try:
                    cls.previous[signum] = signal.signal(signum, lambda number, frame: cls.held.append(number))
                except (ValueError, OSError):
                    pass

    def __exit__(self, *exc: object) -> None:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        cls = _Deferred
        cls.depth -= 1
        if cls.depth:
            return
        for signum, handler in cls.previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        cls.previous = {}
        held, cls.held = cls.held, []
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)


def _uninterrupted(function: Callable[..., T]) -> Callable[..., T]:
    """Run `function` with SIGINT and SIGTERM held until it returns (`_Deferred`)."""

    @functools.wraps(function)
    def held(*args: object, **kwargs: object) -> T:
        with _Deferred():
            return function(*args, **kwargs)

    return held


def _step(name: str, path: str) -> None:
    if _STEP_HOOK is not None:
        _STEP_HOOK(name, path)
