"""Output formats shared by `migrate`, `validate` and `detect`: text, json and github.

- `text`: unified diffs and lines for a person; a diff is coloured (rich) when it
  goes to a terminal and `NO_COLOR` is not set, plain otherwise.
- `json`: one JSON document on stdout at the end of the run; messages stay on stderr.
- `github`: GitHub Actions workflow commands (`::error file=...,line=...,col=...::...`)
  on stdout, one per finding, placed on the line of the case or member concerned;
  `GithubReport` turns file errors into annotations too. Nothing else the tool prints
  can be read as a workflow command (`GithubStream`): diffs are folded in a
  `::group::` and fenced by `::stop-commands::<random token>` (`write_github_diff`),
  and every line but the tool's own commands is made inert (`inert_line`).

The summary a run ends with is built here from the run's counts, so every format
says the same thing.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from fixture_migrate.cli.report import Report, next_step
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.diff import escape_text
from fixture_migrate.migration.status import Status


def use_colour(stream: TextIO) -> bool:
    """True when `stream` is a terminal and neither `NO_COLOR` (any non-empty value,
    no-color.org) nor `TERM=dumb` asks for plain output."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_STYLES = (("+++ ", "bold"), ("--- ", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"), ("\\", "dim"))


def write_diff(out: TextIO, diff: str, *, colour: bool | None = None) -> None:
    """Write a unified diff (from `fixture_migrate.files.diff.render_diff`, already terminal-safe) to `out`,
    coloured when `colour` (default: `use_colour(out)`). rich is imported only to colour."""
    if not diff:
        return
    if not (use_colour(out) if colour is None else colour):
        out.write(diff)
        return
    from rich.console import Console
    from rich.text import Text

    text = Text(no_wrap=True)
    for line in diff.splitlines(keepends=True):
        style = next((style for prefix, style in _STYLES if line.startswith(prefix)), "")
        text.append(line, style=style)
    console = Console(file=out, force_terminal=True, highlight=False, markup=False, emoji=False, soft_wrap=True)
    console.print(text, end="")
    out.flush()


class WorkflowCommand(str):
    """A line the tool means as a GitHub Actions workflow command: `GithubStream` writes it
    as it is (every other line is made inert)."""


_LINE_BREAKS = r"(\r\n|\r|\n)"  # compiled on first use (`re` keeps it): most runs print no workflow command


def inert_line(line: str) -> str:
    """`line` (without its line break) made inert for the Actions runner, which reads a
    workflow command from a line that starts with `::` after leading white space, and a
    legacy one from `##[` anywhere in a line (its log view also styles `##[error]`...).
    Such a `:` or `#` is shown as the escape `\\x3a` / `\\x23`, as control characters are
    shown elsewhere; any other line is returned as it is."""
    if "##[" in line:
        line = line.replace("##[", "#\\x23[")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        cut = len(line) - len(stripped)
        line = line[:cut] + "\\x3a" + line[cut + 1 :]
    return line


class GithubStream:
    """A text stream for the `github` output format that writes `WorkflowCommand`s as they
    are and every other line through `inert_line`. Lines are split where the runner splits
    them (LF, CR LF, and a lone CR); a partial line waits for its end (or `flush`)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._partial = ""

    def write(self, text: str) -> int:
        if isinstance(text, WorkflowCommand):
            self._drain()
            self.stream.write(text)
            return len(text)
        pieces = re.split(_LINE_BREAKS, self._partial + text)
        self._partial = pieces.pop()
        # pieces alternate: line, break, line, break, ...
        self.stream.write("".join(inert_line(p) if i % 2 == 0 else p for i, p in enumerate(pieces)))
        return len(text)

    def _drain(self) -> None:
        if self._partial:
            self.stream.write(inert_line(self._partial))
            self._partial = ""

    def flush(self) -> None:
        self._drain()
        self.stream.flush()

    def isatty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def github_stream(stream: TextIO) -> TextIO:
    """`stream` wrapped in a `GithubStream` (once)."""
    return stream if isinstance(stream, GithubStream) else GithubStream(stream)  # type: ignore[return-value]


def output_stream(output_format: str, stream: TextIO | None = None) -> TextIO:
    """Where a command with `--output-format output_format` prints (default: stdout):
    a `GithubStream` for `github`, the stream itself otherwise."""
    stream = sys.stdout if stream is None else stream
    return github_stream(stream) if output_format == "github" else stream


def write_github_diff(out: TextIO, diff: str, name: str) -> None:
    """Write a unified diff for the Actions log: folded in `::group::` (titled with the file
    `name`) and fenced by `::stop-commands::<token>` ... `::<token>::`, a random token that
    does not occur in the diff, so the runner reads no command from it whatever it holds;
    its lines are also made inert (`inert_line`) when `out` is a `GithubStream`."""
    if not diff:
        return
    import secrets

    token = secrets.token_hex(16)
    while token in diff.lower():
        token = secrets.token_hex(16)
    title = _escape_data(escape_text(f"fixture-migrate diff: {name}"))
    out.write(WorkflowCommand(f"::group::{inert_line(title)}\n"))
    out.write(WorkflowCommand(f"::stop-commands::{token}\n"))
    out.write(diff if diff.endswith("\n") else diff + "\n")
    out.write(WorkflowCommand(f"::{token}::\n"))
    out.write(WorkflowCommand("::endgroup::\n"))


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    title: str | None = None,
) -> str:
    """One GitHub Actions workflow command line (`::error file=a.json,line=3,col=5,title=x::message`).

    `level` is `error`, `warning` or `notice`. Values are escaped as the runner expects
    (`%`, CR and LF in the message; also `:` and `,` in properties); control characters
    are shown as escapes so no fixture can write to the log's terminal.
    """
    props = []
    if file is not None:
        props.append(f"file={_escape_property(file)}")
        if line is not None:
            props.append(f"line={line}")
            if col is not None:
                props.append(f"col={col}")
    if title:
        props.append(f"title={_escape_property(title)}")
    head = f"::{level}" + (" " + ",".join(props) if props else "")
    # The runner reads only the first command of a line; `##[` inside it is made inert all
    # the same, as the log view styles it.
    line = escape_text(f"{head}::{_escape_data(message)}")
    return WorkflowCommand(line.replace("##[", "#\\x23[") + "\n")


class GithubReport(Report):
    """A `Report` whose file errors are `::error` annotations on `out` (stdout) instead of
    lines on stderr. `root` is the repository root annotation paths are relative to."""

    def __init__(self, out: TextIO, root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.out = out
        self.root = root

    def file_name(self, path: Path | str) -> str:
        """`path` relative to the repository root, as GitHub places annotations."""
        from fixture_migrate.files.paths import relative_source

        return relative_source(Path(path), self.root)

    def error(self, path: Path | str, error: FixtureError) -> None:
        self.counts[Status.ERROR] += 1
        step = next_step(error)
        message = f"{error.message} [{error.code}]" + (f" (help: {step})" if step else "")
        self.out.write(
            annotation("error", message, file=self.file_name(path), line=error.line, col=error.column, title=error.code)
        )


def make_report(
    output_format: str,
    *,
    out: TextIO,
    root: Path,
    quiet: bool = False,
    verbose: bool = False,
    live_stdout: bool = False,
) -> Report:
    """The `Report` for an output format. `live_stdout` says the command writes to stdout
    while files are processed (diffs, annotations): then no progress bar is shown when
    stdout and stderr are terminals, as the two would interleave."""
    stdout_tty = bool(getattr(out, "isatty", None) and out.isatty())
    progress = not (live_stdout and stdout_tty)
    if output_format == "github":
        return GithubReport(out, root, quiet=quiet, verbose=verbose, progress=progress, err=github_stream(sys.stderr))
    return Report(quiet=quiet, verbose=verbose, progress=progress, err=sys.stderr)


def error_record(error: FixtureError) -> dict[str, Any]:
    """A file error as JSON: `{code, message, line, column, help}`."""
    return {
        "code": error.code,
        "message": error.message,
        "line": error.line,
        "column": error.column,
        "help": next_step(error),
    }


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 file`, `2 files` (`many` for an irregular plural)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def migrate_summary_text(summary: Mapping[str, Any], *, written: bool) -> str:
    """The summary line of `migrate`, in a reviewer's words, e.g. `Migrated 3 files (40
    cases); 8 unchanged; 14 left for import; 2 families not migrated (5 files): see
    fixture-migrate detect --families (117 files scanned, 92 not fixtures)`. Which fields
    moved where is in the JSON summary and `detect --families`, not here."""
    n = summary["migrated"]
    if n:
        verb = "Migrated" if written else "Would migrate"
        parts = [f"{verb} {plural(n, 'file')} ({plural(summary['cases_migrated'], 'case')})"]
    else:
        parts = ["Nothing to migrate"]
    if summary["unchanged"]:
        parts.append(f"{summary['unchanged']} already canonical")
    tools = summary.get("other_tools") or {}
    if tools:
        parts.append(f"{sum(tools.values())} left for import")
    if summary.get("unclaimed"):
        families = summary.get("families_not_migrated") or 0
        what = plural(families, "family", "families") if families else "local families"
        parts.append(
            f"{what} not migrated ({plural(summary['unclaimed'], 'file')}): see `fixture-migrate detect --families`"
        )
    if summary.get("pinned"):
        parts.append(f"{summary['pinned']} pinned, left as they are (`--include-pinned`)")
    if summary.get("skipped"):
        parts.append(f"{summary['skipped']} skipped as unreadable")
    if summary["errors"]:
        parts.append(plural(summary["errors"], "error"))
    tail = plural(summary["files_scanned"], "file") + " scanned"
    if summary["not_fixtures"]:
        tail += ", " + plural(summary["not_fixtures"], "not a fixture", "not fixtures")
    return "; ".join(parts) + f" ({tail})"
