"""One emitter per output format: how a run's product is printed on stdout.

`--output-format` picks one class here, once (`emitter_for`), in the manner of black's
`Report` and ruff's emitters; the runs in `fixture_migrate.cli.commands`,
`fixture_migrate.cli.decisions` and `fixture_migrate.cli.exchange` call its methods and
never ask which format they print. Each method is one thing a run has to show: a
planned change and its diff, a file left unclaimed, the end-of-run document, the
validation errors of one file, a detection, the cases `normalize` prints.

- `TextEmitter`: diffs (coloured on a terminal) and lines for a person.
- `JsonEmitter`: one JSON document on stdout at the end of the run (or, for
  `validate` and `normalize`, an array streamed file by file).
- `JsonLinesEmitter`: `normalize --output-format jsonl`, one case per line.
- `GithubEmitter`: GitHub Actions workflow commands (`fixture_migrate.cli.output`):
  annotations placed on the line concerned, diffs folded in `::group::` and fenced by
  `::stop-commands::`.

Messages (per-file notes, file errors, the summary line) go through the run's `Report`
on stderr; `fixture_migrate.cli.output.make_report` picks the one for the format.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, TextIO

from fixture_migrate.cli import output
from fixture_migrate.cli.jsontext import ByteWriter, dump_json, dump_json_bytes, json_lines
from fixture_migrate.contract import rules as c
from fixture_migrate.files.diff import escape_lines, escape_text

Found = Sequence[tuple[dict[str, Any], Any]]
"""The validation errors of one file: `(error object, (line, column) or None)` pairs."""


class Emitter:
    """What every output format prints; a method a format has nothing for does nothing.

    `out` is stdout (a `GithubStream` for `github`); `root` is the repository root that
    annotation paths are relative to.
    """

    name: ClassVar[str] = ""
    one_document: ClassVar[bool] = False
    """Whether the format prints one document at the end of a run (for which `migrate`
    keeps every file's record) and nothing on stdout while files are processed."""
    annotates: ClassVar[bool] = False
    """Whether the format writes a line on stdout per finding as files are processed."""
    places_errors: ClassVar[bool] = True
    """Whether `validate` places each error on its line and column (read from the file's text)."""

    def __init__(self, out: TextIO, root: Path) -> None:
        self.out = out
        self.root = root
        self._written = 0

    def file_name(self, path: Path) -> str:
        """`path` relative to the repository root, as an annotation names it."""
        from fixture_migrate.files.paths import relative_source

        return relative_source(path, self.root)

    # --- migrate ---------------------------------------------------------------------------

    def unclaimed(self, path: Path, reason: str) -> None:
        """A file that looks like a local family's fixture, left unmigrated for `reason`."""

    def diff(self, path: Path, diff: str, record: dict[str, Any]) -> None:
        """The unified diff of one planned change (`record` is the file's JSON record)."""

    def change(
        self, path: Path, *, verb: str, shown: str, adapters: list[str], line: int | None, check: bool, write: bool
    ) -> None:
        """A change planned (`check` or a diff) or written (`write`) by `adapters`."""

    def migrate_end(self, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
        """The end of a `migrate` run: its per-file `records` (when kept) and `summary`."""

    # --- validate --------------------------------------------------------------------------

    def validation_begin(self, *, readiness: bool) -> None:
        """A `validate` run starts (`readiness`: it also reports each skill's readiness)."""

    def validation_errors(self, path: Path, found: Found) -> None:
        """The validation errors of one file, in file order."""

    def validation_end(self, ready: list[Any] | None) -> None:
        """The end of a `validate` run: the readiness of each skill, when asked for."""

    # --- detect ----------------------------------------------------------------------------

    def detection(self, where: str, said: str, reason: str, *, verbose: bool) -> None:
        """Who takes one payload (`where`: the file, and the payload's label) and why."""

    def legacy(self, path: Path, shown: str, said: str) -> None:
        """A payload a migrating adapter claims: `migrate` would rewrite it."""

    def detect_end(self, records: list[dict[str, Any]]) -> None:
        """The end of a `detect` run, with one record per payload or file error."""

    def families_end(self, families: list[dict[str, Any]], lines: list[str]) -> None:
        """The end of a `detect --families` run: each family as a record and as text lines."""
        self.out.write("".join(escape_text(line) + "\n" for line in lines))

    # --- normalize -------------------------------------------------------------------------

    @staticmethod
    def encode_cases(cases: list[Any]) -> bytes:
        """One file's normalized cases as UTF-8 (in a worker process): the members of a
        JSON array, indented as members of the one array printed."""
        return dump_json_bytes(cases)[2:-2]

    def cases_begin(self) -> None:
        """A `normalize` run starts: from here its output is written as bytes (held a while
        where it goes to a file or pipe: `cases_flush` writes it)."""
        self._write = ByteWriter(self.out)

    def cases_flush(self) -> None:
        """Write the cases held so far (before a message, and at the end)."""
        self._write.flush()

    def cases(self, text: bytes) -> None:
        """One file's encoded cases (`encode_cases`), non-empty."""
        self._write((b"[\n" if not self._written else b",\n") + text)
        self._written += 1

    def cases_end(self) -> None:
        self._write(b"\n]\n" if self._written else b"[]\n")
        self._write.flush()

    # --- export ----------------------------------------------------------------------------

    def export_end(self, result: dict[str, Any], code: int) -> None:
        """The end of an `export` run: what was done, its losses and errors, its exit `code`."""

    # --- consumers -------------------------------------------------------------------------

    def consumer(self, finding: Any, *, fixed: bool) -> None:
        """One site of code reading a moved name (`fixture_migrate.consumers.findings.Finding`);
        `fixed` when this run rewrote it."""

    def consumers_end(self, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
        """The end of a `consumers` run: every finding's record and the `summary`."""


class TextEmitter(Emitter):
    """For a person: unified diffs (coloured on a terminal) and one line per finding."""

    name = "text"

    def diff(self, path: Path, diff: str, record: dict[str, Any]) -> None:
        output.write_diff(self.out, diff)

    def validation_errors(self, path: Path, found: Found) -> None:
        lines = []
        for entry, where in found:
            shown = entry.get("source_file") or "-"
            if where is not None:
                shown += f":{where[0]}:{where[1]}"
            elif entry.get("line"):
                shown += f":{entry['line']}"
            lines.append(f"{shown}: {entry.get('id') or '-'}: {entry['reason_code']}: {entry['message']}")
        self.out.write(escape_lines(lines))

    def validation_end(self, ready: list[Any] | None) -> None:
        if ready is None:
            return
        from fixture_migrate.contract.readiness import readiness_text

        self.out.write("".join(escape_text(line) + "\n" for line in readiness_text(ready).splitlines()))

    def detection(self, where: str, said: str, reason: str, *, verbose: bool) -> None:
        shown = f"{where}: {said}" + (f" ({reason})" if verbose and reason else "")
        self.out.write(escape_text(shown) + "\n")


    def consumer(self, finding: Any, *, fixed: bool) -> None:
        text = finding.text()
        if fixed:
            text = text.replace("(--fix rewrites it)", "(rewritten)")
        self.out.write(escape_text(text) + "\n")


class JsonEmitter(Emitter):
    """One JSON document on stdout; `validate` without readiness streams its array of
    error objects file by file, `normalize` its array of cases."""

    name = "json"
    one_document = True
    places_errors = False

    def diff(self, path: Path, diff: str, record: dict[str, Any]) -> None:
        record["diff"] = diff

    def migrate_end(self, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
        self.out.write(dump_json({"files": records, "summary": summary}) + "\n")

    def validation_begin(self, *, readiness: bool) -> None:
        self._kept: list[dict[str, Any]] | None = [] if readiness else None  # one document at the end

    def validation_errors(self, path: Path, found: Found) -> None:
        if self._kept is not None:
            self._kept.extend(entry for entry, _ in found)
            return
        text = dump_json([entry for entry, _ in found])[2:-2]
        self.out.write(("[\n" if not self._written else ",\n") + text)
        self._written += 1

    def validation_end(self, ready: list[Any] | None) -> None:
        if self._kept is None:
            self.out.write("\n]\n" if self._written else "[]\n")
        else:
            assert ready is not None
            self.out.write(dump_json({"errors": self._kept, "readiness": [s.as_dict() for s in ready]}) + "\n")

    def detect_end(self, records: list[dict[str, Any]]) -> None:
        self.out.write(dump_json(records) + "\n")

    def families_end(self, families: list[dict[str, Any]], lines: list[str]) -> None:
        self.out.write(dump_json({"families": families}) + "\n")
    def consumers_end(self, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
        self.out.write(dump_json({"findings": records, "summary": summary}) + "\n")

    def export_end(self, result: dict[str, Any], code: int) -> None:
        result["exit_code"] = code
        self.out.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


class JsonLinesEmitter(Emitter):
    """`normalize --output-format jsonl`: one compact JSON line per case."""

    name = "jsonl"

    @staticmethod
    def encode_cases(cases: list[Any]) -> bytes:
        return json_lines(cases)

    def cases(self, text: bytes) -> None:
        self._write(text)

    def cases_end(self) -> None:
        self._write.flush()


class GithubEmitter(Emitter):
    """GitHub Actions workflow commands: an annotation per finding, on the line concerned;
    diffs folded in `::group::` and fenced by `::stop-commands::` (`output.write_github_diff`).
    `out` is a `GithubStream`, which makes every other line inert."""

    name = "github"
    annotates = True

    def _annotate(
        self, level: str, message: str, *, file: str | None, line: int | None, title: str, col: int | None = None
    ) -> None:
        self.out.write(output.annotation(level, message, file=file, line=line, col=col, title=title))

    def unclaimed(self, path: Path, reason: str) -> None:
        self._annotate("warning", f"not migrated: {reason}", file=self.file_name(path), line=1, title="fixture-migrate")

    def diff(self, path: Path, diff: str, record: dict[str, Any]) -> None:
        output.write_github_diff(self.out, diff, self.file_name(path))

    def change(
        self, path: Path, *, verb: str, shown: str, adapters: list[str], line: int | None, check: bool, write: bool
    ) -> None:
        level = "error" if check else "notice" if write else "warning"
        message = f"{verb} to {c.CANONICAL_SCHEMA_VERSION} by {', '.join(adapters)}"
        if not write:
            message += f"; run `fixture-migrate migrate {shown.split(' -> ')[0]}` and commit the result"
        self._annotate(level, message, file=self.file_name(path), line=line, title="fixture-migrate")

    def validation_errors(self, path: Path, found: Found) -> None:
        name = self.file_name(path)
        for entry, where in found:
            if entry["reason_code"] in (c.DUPLICATE_KEY, c.CASE_NOT_OBJECT):
                continue  # annotated already, as the file error it also is
            line, col = where if where is not None else (None, None)
            message = f"{entry.get('id') or '-'}: {entry['message']}"
            self._annotate("error", message, file=name, line=line, col=col, title=entry["reason_code"])

    def validation_end(self, ready: list[Any] | None) -> None:
        for skill in ready or ():
            if skill.ready:
                continue
            name = skill.skill if skill.skill is not None else "(no skill)"
            message = (
                f"skill {name} is not ready: no valid {' or '.join(skill.missing)} case; "
                f"{'; '.join(skill.next_steps())}"
            )
            first = skill.files[0] if skill.files else None
            self._annotate("error", message, file=first, line=1 if first else None, title="readiness")

    def consumer(self, finding: Any, *, fixed: bool) -> None:
        if fixed:
            return
        how = "`fixture-migrate consumers --fix` rewrites it" if finding.who == "fix" else finding.advice
        message = f"reads `{finding.legacy}`, now `{finding.home}` ({finding.pattern}): {how}"
        self._annotate(
            "error", message, file=finding.path, line=finding.line, col=finding.column, title="fixture-migrate consumers"
        )

    def legacy(self, path: Path, shown: str, said: str) -> None:
        message = f"legacy fixture ({said}); `fixture-migrate migrate {shown}` rewrites it as v1"
        self._annotate("notice", message, file=self.file_name(path), line=1, title="fixture-migrate")


EMITTERS: dict[str, type[Emitter]] = {
    emitter.name: emitter for emitter in (TextEmitter, JsonEmitter, JsonLinesEmitter, GithubEmitter)
}
"""The emitter of each `--output-format`."""


def emitter_class(output_format: str) -> type[Emitter]:
    """The emitter class of `output_format` (a worker process needs only its `encode_cases`)."""
    return EMITTERS[output_format]


def emitter_for(output_format: str, *, out: TextIO, root: Path) -> Emitter:
    """The emitter a run with `--output-format output_format` prints with, on `out`."""
    return EMITTERS[output_format](out, root)
