"""What a run tells the user, and the exit code it ends with.

`Report` collects the per-file outcomes of a command, prints one line per file
worth naming and a summary on stderr, and owns the exit code: 2 when any file
had an error (bad input, I/O, a refused migration), else 1 when `--check` found
a change or `validate` found errors, else 0. An error wins over "would change".
Everything printed passes through `escape_text`, so no fixture can write
control sequences to the terminal.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.diff import escape_text
from fixture_migrate.migration.status import Status

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

T = TypeVar("T")

_REPORT_IT = "the file was left as it was; please report this as a bug, with the file"
NEXT_STEPS = {
    "invalid_json": "fix the syntax at that place, then run again",
    "duplicate_key": "keep one of the two members (a JSON reader keeps only the last), then run again",
    "empty": "give the file a fixture or delete it, or exclude it in [tool.fixture-migrate]",
    "case_not_object": "make every case an object, then run again",
    "extensions_not_object": "make `extensions` an object, then run again",
    "unsupported": "name .json or .jsonl files, or a directory",
    "io": "check the path and its permissions",
    "exists": "move the existing file away, then run again",
    "conservation": _REPORT_IT,
    "internal": _REPORT_IT,
    "too_deep": "the file was left as it was",
    "too_large": "the file was not read; split it into several fixture files, or raise the limit its message names",
    "integer_too_long": "write the number as a string, or shorten it; the file was left as it was",
    "not_regular": "only regular files are read; exclude it in [tool.fixture-migrate]",
    "read_only": "make it writable (chmod u+w) if it should be migrated, then run again",
    "changed_meanwhile": "run again once the other writer is done",
    "symlink_outside_repo": "migrate the file it points to in its own repository, or pass --repo-root",
    "path_outside_repo": "name a path inside the repo root, or pass --repo-root",
    "symlink_loop": "point the link at a file, or remove it",
    "symlink_rename": "migrate the file the link points to",
    "hard_link_outside_repo": "run from a --repo-root that holds every link, or copy the file to break the link",
    "bad_size_limit": "set the variable to a number of bytes, or a number followed by KiB, MiB or GiB",
    "hard_link_rename": "copy the file to break the link (cp f.jsonl f.tmp && mv f.tmp f.jsonl), then run again",
}
"""Per error code, what the user can do next; appended to the message as `(help: ...)`."""


def next_step(error: FixtureError) -> str | None:
    """What to do about `error`, or None when its message already says it."""
    return NEXT_STEPS.get(error.code)


def format_error(path: Path | str, error: FixtureError) -> str:
    """`path:line:column: error: message [code] (help: next step)`, the place omitted where unknown."""
    place = str(path)
    if error.line is not None:
        place += f":{error.line}"
        if error.column is not None:
            place += f":{error.column}"
    step = next_step(error)
    help_text = f" (help: {step})" if step else ""
    return escape_text(f"{place}: error: {error.message} [{error.code}]{help_text}")


class Report:
    """Counts outcomes per status and prints what the user needs to know.

    `verbose` names every file; `quiet` prints only errors. Messages go to `err`.
    `progress` allows a progress bar on `err` for long runs (`fixture_migrate.cli.progress` decides
    whether one is shown); while it is shown, messages print above it.
    """

    def __init__(
        self, *, err: TextIO | None = None, quiet: bool = False, verbose: bool = False, progress: bool = False
    ) -> None:
        self.err = err or sys.stderr
        self.quiet = quiet
        self.verbose = verbose
        self.progress = progress
        self.live: Any = None  # the progress display while one is shown (`fixture_migrate.cli.progress`)
        self.counts: Counter[str] = Counter()
        self.found = False

    def print(self, line: str) -> None:
        """Print one line on `err`, above the progress bar if one is shown."""
        if self.live is not None:
            self.live.print(line)
        else:
            print(line, file=self.err)

    def error(self, path: Path | str, error: FixtureError) -> None:
        """Record and print an error for `path`."""
        self.counts[Status.ERROR] += 1
        self.print(format_error(path, error))

    def note(self, message: str, *, always: bool = False) -> None:
        """Print a line about a file: shown unless quiet (`always`), or only when verbose."""
        if (always and not self.quiet) or self.verbose:
            self.print(escape_text(message))

    def sources(self, files: Iterable[T]) -> Iterable[T]:
        """`files` as they are, streamed, unless a progress bar may be shown: a bar needs
        the total, so the files are listed first (see `fixture_migrate.cli.progress`)."""
        if self.quiet or not self.progress:
            return files  # no bar, whatever the terminal: the bar's module is not even imported
        from fixture_migrate.cli.progress import may_show

        return list(files) if may_show(self) else files

    def track(self, items: Iterable[T], label: str, total: int | None = None) -> Iterator[T]:
        """Iterate over `items`, showing a progress bar on `err` when the run is long (`total`
        items; None when unknown: no bar) and `err` is a terminal (`fixture_migrate.cli.progress.track`)."""
        if total is None or not self.progress or self.quiet:
            return iter(items)
        from fixture_migrate.cli.progress import track

        return track(items, self, label, total)

    def count(self, status: Status, n: int = 1) -> None:
        """Count `n` files of `status`."""
        self.counts[status] += n

    @property
    def exit_code(self) -> int:
        if self.counts[Status.ERROR]:
            return EXIT_ERROR
        return EXIT_FOUND if self.found else EXIT_OK

    def summary(self, parts: list[tuple[str, int]]) -> None:
        """Print `label: n` parts with a non-zero count, unless quiet."""
        shown = [f"{label}: {n}" for label, n in parts if n]
        if shown and not self.quiet:
            self.print(", ".join(shown))

    def summary_line(self, text: str) -> None:
        """Print the run's summary line, unless quiet."""
        if text and not self.quiet:
            self.print(escape_text(text))
