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
from pathlib import Path
from typing import TextIO

from migrate.diff import escape_text
from migrate.errors import FixtureError

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


def format_error(path: Path | str, error: FixtureError) -> str:
    """`path:line:column: message [code]`, the place omitted where unknown."""
    place = str(path)
    if error.line is not None:
        place += f":{error.line}"
        if error.column is not None:
            place += f":{error.column}"
    return escape_text(f"{place}: error: {error.message} [{error.code}]")


class Report:
    """Counts outcomes per status and prints what the user needs to know.

    `verbose` names every file; `quiet` prints only errors. Messages go to `err`.
    """

    def __init__(self, *, err: TextIO | None = None, quiet: bool = False, verbose: bool = False) -> None:
        self.err = err or sys.stderr
        self.quiet = quiet
        self.verbose = verbose
        self.counts: Counter[str] = Counter()
        self.found = False

    def error(self, path: Path | str, error: FixtureError) -> None:
        """Record and print an error for `path`."""
        self.counts["error"] += 1
        print(format_error(path, error), file=self.err)

    def note(self, message: str, *, always: bool = False) -> None:
        """Print a line about a file: shown unless quiet (`always`), or only when verbose."""
        if (always and not self.quiet) or self.verbose:
            print(escape_text(message), file=self.err)

    def count(self, status: str, n: int = 1) -> None:
        self.counts[status] += n

    @property
    def exit_code(self) -> int:
        if self.counts["error"]:
            return EXIT_ERROR
        return EXIT_FOUND if self.found else EXIT_OK

    def summary(self, parts: list[tuple[str, int]]) -> None:
        """Print `label: n` parts with a non-zero count, unless quiet."""
        shown = [f"{label}: {n}" for label, n in parts if n]
        if shown and not self.quiet:
            print(", ".join(shown), file=self.err)
