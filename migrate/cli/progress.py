"""A progress bar for long runs, on stderr, only where a person is watching.

A bar is shown when a run has more than `THRESHOLD` files, stderr is a
terminal, the output is not quiet, and the command allows it (the CLI does not
when stdout is the same kind of terminal and gets diffs or annotations while
the run goes on: the two would interleave). It never goes to stdout, so diffs
and JSON stay clean, and it disappears when the run ends. While it is shown,
the report's messages print above it. rich is imported only when a bar is
actually shown.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, Protocol, TextIO, TypeVar

T = TypeVar("T")


class Report(Protocol):
    """What a bar needs of the run's `fixture_migrate.cli.report.Report` (which imports this
    module, so this one names only the members it uses): where to draw, whether it may, and
    `live`, set to the bar while it is shown so messages print above it."""

    err: TextIO
    quiet: bool
    progress: bool
    live: Any


THRESHOLD = 200
"""A run over more files than this shows a progress bar (where it may)."""


def may_show(report: Report) -> bool:
    """True when a bar could be shown on `report.err` at all (a long enough run aside):
    not quiet, allowed, `err` a terminal, `TERM` not `dumb`."""
    if report.quiet or not report.progress:
        return False
    isatty = getattr(report.err, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def wanted(total: int, report: Report) -> bool:
    """True when a bar should be shown for `total` files on `report.err`: more than
    `THRESHOLD` files, `err` a terminal, not quiet, and `TERM` not `dumb`."""
    if total <= THRESHOLD or report.quiet or not report.progress:
        return False
    isatty = getattr(report.err, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class _Live:
    """The shown bar: `print` puts a message line above it."""

    def __init__(self, progress: object) -> None:
        self._progress = progress

    def print(self, line: str) -> None:
        from rich.text import Text

        self._progress.console.print(Text(line), soft_wrap=True)  # type: ignore[attr-defined]


def track(items: Iterable[T], report: Report, label: str, total: int) -> Iterator[T]:
    """Yield `items` (`total` of them), advancing a bar on `report.err` when `wanted`; the
    bar is removed at the end."""
    if not wanted(total, report):
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(file=report.err, highlight=False, markup=False, emoji=False)
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("files"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, redirect_stdout=False, redirect_stderr=False) as bar:
        task = bar.add_task(label, total=total)
        report.live = _Live(bar)
        try:
            for item in items:
                yield item
                bar.advance(task)
        finally:
            report.live = None
